"""Bootstrap matrices, percentile intervals and multiple-testing corrections."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.stats

from benchsift.errors import InputError
from benchsift.stats import bh_adjust, bootstrap_weights, percentile_ci
from benchsift.stats.bootstrap import bootstrap_indices
from benchsift.stats.multitest import bonferroni_adjust, reject


def test_bootstrap_reproducible_and_shaped() -> None:
    a = bootstrap_indices(50, 200, 3)
    assert a.shape == (200, 50) and a.min() >= 0 and a.max() < 50
    np.testing.assert_array_equal(a, bootstrap_indices(50, 200, 3))
    assert not np.array_equal(a, bootstrap_indices(50, 200, 4))
    W = bootstrap_weights(50, 200, 3)
    np.testing.assert_array_equal(W, bootstrap_weights(50, 200, 3))
    assert W.shape == (200, 50) and W.dtype == np.float64
    np.testing.assert_array_equal(W.sum(axis=1), np.full(200, 50.0))
    # the weights are the counts of the same seed's indices: one resample, two forms
    counts = np.stack([np.bincount(row, minlength=50) for row in a])
    np.testing.assert_array_equal(W, counts)


def test_weight_matrix_product_equals_index_means() -> None:
    rng = np.random.default_rng(0)
    X = rng.random((40, 7))
    idx = bootstrap_indices(40, 300, 11)
    W = bootstrap_weights(40, 300, 11)
    np.testing.assert_allclose(W @ X / 40, X[idx].mean(axis=1), rtol=0, atol=1e-12)


def test_bootstrap_weights_are_multinomial() -> None:
    # Multinomial(n, 1/n): each count has mean 1 and variance 1 - 1/n
    W = bootstrap_weights(20, 20000, 5)
    assert W.mean() == pytest.approx(1.0, abs=0.01)
    assert W.var() == pytest.approx(1 - 1 / 20, abs=0.02)


def test_bootstrap_mean_ci_covers_known_mean() -> None:
    # parameter recovery: the 95% CI of the mean of N(0.3, 1) samples (n = 400) should cover 0.3
    rng = np.random.default_rng(12)
    x = rng.normal(0.3, 1.0, size=400)
    lo, hi = percentile_ci(bootstrap_weights(400, 4000, 2) @ x / 400)
    assert lo < 0.3 < hi
    assert hi - lo == pytest.approx(2 * 1.96 / np.sqrt(400), rel=0.15)


def test_bootstrap_bad_sizes() -> None:
    for n, b in ((0, 10), (10, 0), (2.5, 3), (True, 3)):
        with pytest.raises(InputError):
            bootstrap_indices(n, b, 0)  # type: ignore[arg-type]


def test_percentile_ci_matches_numpy_and_omits_nan() -> None:
    rng = np.random.default_rng(1)
    S = rng.normal(size=(1000, 3))
    want = np.quantile(S, [0.025, 0.975], axis=0)
    np.testing.assert_allclose(percentile_ci(S), want, rtol=0, atol=1e-12)
    np.testing.assert_allclose(percentile_ci(S.T, level=0.9, axis=1), np.quantile(S, [0.05, 0.95], axis=0))
    S[::7, 0] = np.nan
    S[:, 2] = np.nan
    got = percentile_ci(S, level=0.8)
    np.testing.assert_allclose(got[:, 0], np.quantile(S[~np.isnan(S[:, 0]), 0], [0.1, 0.9]), atol=1e-12)
    np.testing.assert_allclose(got[:, 1], np.quantile(S[:, 1], [0.1, 0.9]), atol=1e-12)
    assert np.isnan(got[:, 2]).all()
    # hand case: 0..100, 90% interval is [5, 95]
    np.testing.assert_allclose(percentile_ci(np.arange(101.0), level=0.9), [5.0, 95.0])
    with pytest.raises(InputError, match="level"):
        percentile_ci(S, level=95)


def test_bh_matches_scipy() -> None:
    rng = np.random.default_rng(2)
    for _ in range(20):
        p = np.concatenate([rng.uniform(size=30), rng.uniform(0, 0.01, size=10), [0.5, 0.5]])
        np.testing.assert_allclose(
            bh_adjust(p), scipy.stats.false_discovery_control(p, method="bh"), rtol=0, atol=1e-12
        )


def test_bh_hand_case_nan_and_shape() -> None:
    # m = 4: sorted [0.01, 0.02, 0.03, 0.5] * 4 / [1, 2, 3, 4] = [0.04, 0.04, 0.04, 0.5]
    p = np.array([0.03, np.nan, 0.5, 0.01, 0.02])
    np.testing.assert_allclose(bh_adjust(p), [0.04, np.nan, 0.5, 0.04, 0.04])
    # step-up monotonicity and the cap at 1
    np.testing.assert_allclose(bh_adjust([0.9, 0.8]), [0.9, 0.9])
    np.testing.assert_allclose(bonferroni_adjust([0.9, 0.1]), [1.0, 0.2])
    assert bh_adjust(np.ones((2, 3)) * 0.2).shape == (2, 3)
    assert np.isnan(bh_adjust([np.nan, np.nan])).all()
    np.testing.assert_allclose(bonferroni_adjust([0.01, np.nan, 0.2]), [0.02, np.nan, 0.4])


def test_reject() -> None:
    p = [0.01, 0.02, 0.03, 0.5, np.nan]
    np.testing.assert_array_equal(reject(p, 0.05, "bh"), [True, True, True, False, False])
    np.testing.assert_array_equal(reject(p, 0.05, "bonferroni"), [True, False, False, False, False])
    np.testing.assert_array_equal(reject(p, 0.025, "none"), [True, True, False, False, False])
    # Holm: 0.01 * 4 = 0.04 <= 0.05, then 0.02 * 3 = 0.06 > 0.05 stops the step-down
    np.testing.assert_array_equal(reject(p, 0.05, "holm"), [True, False, False, False, False])
    with pytest.raises(InputError, match="method"):
        reject(p, 0.05, "hochberg")
    with pytest.raises(InputError, match="alpha"):
        reject(p, 5)
    with pytest.raises(InputError, match=r"\[0, 1\]"):
        bh_adjust([0.1, 1.2])
