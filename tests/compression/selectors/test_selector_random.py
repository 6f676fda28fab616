"""Random selection: uniform, seeded, scored by the plain mean."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from benchsift.compression.selectors.random import RandomSelector


def test_inclusion_is_uniform() -> None:
    # Over many seeds every item is kept with probability k / n: a chi-square test of the inclusion counts.
    n, k, reps = 40, 10, 800
    x = np.full((3, n), 0.5)
    counts = np.zeros(n)
    for seed in range(reps):
        counts[RandomSelector(random_state=seed).select(x, k)] += 1
    expected = reps * k / n
    chi2 = ((counts - expected) ** 2 / expected).sum()
    assert stats.chi2.sf(chi2, n - 1) > 1e-3
    assert counts.sum() == reps * k


def test_seed_determinism_and_variation() -> None:
    x = np.random.default_rng(0).random((5, 200))
    a = RandomSelector(random_state=3).select(x, 50)
    assert np.array_equal(a, RandomSelector(random_state=3).select(x, 50))
    assert not np.array_equal(a, RandomSelector(random_state=4).select(x, 50))
    gen = np.random.default_rng(11)
    assert np.array_equal(
        RandomSelector(random_state=gen).select(x, 50),
        RandomSelector(random_state=np.random.default_rng(11)).select(x, 50),
    )


def test_ignores_scores_and_scores_by_mean() -> None:
    rng = np.random.default_rng(1)
    x1, x2 = rng.random((4, 100)), rng.random((4, 100))
    s = RandomSelector(random_state=5)
    kept = s.select(x1, 20)
    assert np.array_equal(kept, RandomSelector(random_state=5).select(x2, 20))
    assert np.all(np.isnan(s.item_scores_))
    assert set(s.reasons_) == {"random"}
    y = x1[:, kept].copy()
    y[0, :3] = np.nan
    est = s.estimate(y)
    assert est[0] == pytest.approx(np.mean(y[0, 3:]), abs=1e-15)
    np.testing.assert_allclose(est[1:], y[1:].mean(axis=1))
