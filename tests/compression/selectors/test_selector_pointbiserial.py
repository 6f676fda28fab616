"""DatBench r_pb: the Pearson item-rest correlation (PRIMEBench D.1)."""

from __future__ import annotations

import numpy as np
from scipy import stats

from benchsift.compression.selectors.pointbiserial import (
    PointBiserialSelector,
    item_rest_correlation,
    rest_scores,
)


def test_rest_scores_hand_computed() -> None:
    x = np.array([[1.0, 0.0, 0.5], [np.nan, 1.0, 1.0], [np.nan, np.nan, 0.2]])
    r = rest_scores(x)
    # Row 0: mean of the other two items; row 1: item 0 missing; row 2: only item 2 is valid.
    np.testing.assert_allclose(r[0], [0.25, 0.75, 0.5])
    np.testing.assert_allclose(r[1], [1.0, 1.0, 1.0])
    assert np.isnan(r[2, 2])
    np.testing.assert_allclose(r[2, :2], [0.2, 0.2])


def test_equals_scipy_pointbiserial_on_binary_data() -> None:
    rng = np.random.default_rng(0)
    x = (rng.random((40, 25)) < 0.5).astype(float)
    r = item_rest_correlation(x)
    for i in range(x.shape[1]):
        rest = np.delete(x, i, axis=1).mean(axis=1)
        expected = stats.pointbiserialr(x[:, i].astype(bool), rest).statistic
        assert abs(r[i] - expected) < 1e-12


def test_continuous_matches_pearson_with_missing() -> None:
    rng = np.random.default_rng(1)
    x = rng.random((30, 8))
    x[rng.random(x.shape) < 0.2] = np.nan
    r = item_rest_correlation(x)
    for i in range(8):
        others = np.delete(x, i, axis=1)
        rest = np.nanmean(others, axis=1)
        ok = ~np.isnan(x[:, i]) & ~np.isnan(rest)
        assert abs(r[i] - stats.pearsonr(x[ok, i], rest[ok]).statistic) < 1e-12


def test_constant_item_is_undefined_and_ranked_last() -> None:
    x = np.array([[0.0, 1.0, 0.0], [0.0, 0.0, 1.0], [0.0, 1.0, 1.0], [0.0, 0.0, 0.0]])
    r = item_rest_correlation(x)
    assert np.isnan(r[0])
    kept = PointBiserialSelector().select(x, 2)
    assert 0 not in kept


def test_picks_planted_discriminating_items_over_noise() -> None:
    rng = np.random.default_rng(2)
    m, n_disc, n_noise = 40, 120, 180
    theta = rng.standard_normal(m)
    b = rng.normal(0, 0.7, n_disc)
    p = 1 / (1 + np.exp(-2.5 * (theta[:, None] - b[None, :])))
    disc = (rng.random(p.shape) < p).astype(float)
    noise = (rng.random((m, n_noise)) < 0.5).astype(float)  # unrelated to ability, same variance range
    x = np.hstack([noise, disc])
    order = rng.permutation(x.shape[1])
    x = x[:, order]
    is_disc = order >= n_noise
    sel = PointBiserialSelector(random_state=0)
    kept = sel.select(x, 60)
    assert is_disc[kept].mean() == 1.0
    # Variance alone cannot tell them apart: the noise items have the largest variance.
    assert x[:, ~is_disc].var(axis=0).mean() > x[:, is_disc].var(axis=0).mean()
    assert set(sel.reasons_) == {"top"}
