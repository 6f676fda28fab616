"""Signal-to-noise and the paired minimum detectable difference, computed by hand on small cases."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from benchsift.audit import benchmark_noise
from benchsift.audit.noise import paired_mdd

Z = stats.norm.ppf(0.975) + stats.norm.ppf(0.8)  # 1.959964 + 0.841621 = 2.801585


def test_two_models_by_hand() -> None:
    X = np.array([[1, 1, 1, 0], [1, 0, 0, 0]], dtype=float)
    # d = (0, 1, 1, 0): mean 0.5, sample variance 1/3; MDD = 2.801585 * sqrt(1/3 / 4) = 0.808748
    mdd = paired_mdd(X)
    assert mdd[0, 1] == pytest.approx(Z * np.sqrt(1 / 12)) and mdd[0, 1] == pytest.approx(0.808748, abs=1e-6)
    assert np.isnan(mdd[0, 0])
    res = benchmark_noise(X)
    # means 0.75 and 0.25: S^2 = 0.125; v = 0.75 * 0.25 / 4 = 0.046875 for both; SNR = 2.6667
    assert res.signal_variance == pytest.approx(0.125)
    assert res.noise_variance == pytest.approx(0.046875)
    assert res.snr == pytest.approx(0.125 / 0.046875)
    assert res.reliability == pytest.approx(1 - 0.046875 / 0.125)
    assert res.mean_se == pytest.approx(np.sqrt(0.046875))
    assert res.mdd == pytest.approx(0.808748, abs=1e-6) and res.mdd_pairs == 1


def test_missing_cells_use_the_common_items() -> None:
    X = np.array([[1, 0, 1, np.nan, 1], [0, 0, 1, 1, np.nan], [1, 1, 1, 1, 1]], dtype=float)
    mdd = paired_mdd(X, alpha=0.1, power=0.9)
    z = stats.norm.ppf(0.95) + stats.norm.ppf(0.9)
    d = np.array([1, 0, 0], dtype=float)  # models 0 and 1 share items 0-2
    assert mdd[0, 1] == pytest.approx(z * np.sqrt(d.var(ddof=1) / 3))
    assert mdd[1, 0] == pytest.approx(mdd[0, 1])
    d02 = np.array([0, -1, 0, 0], dtype=float)
    assert mdd[0, 2] == pytest.approx(z * np.sqrt(d02.var(ddof=1) / 4))


def test_graded_scores_and_degenerate_input() -> None:
    X = np.array([[0.2, 0.4, 0.9], [0.1, 0.5, 0.3], [0.8, 0.8, 0.8]])
    res = benchmark_noise(X)
    means = X.mean(axis=1)
    v = X.var(axis=1) / 3
    assert res.snr == pytest.approx(means.var(ddof=1) / v.mean())
    one = benchmark_noise(X[:1])
    assert one.n_models == 1 and np.isnan(one.snr) and np.isnan(one.mdd)
