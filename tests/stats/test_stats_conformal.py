"""The split-conformal quantile (benchsift.stats.conformal): by hand, against numpy's inverted-CDF quantile,
and its coverage guarantee on simulated exchangeable scores (known truth: k / (n + 1))."""

from __future__ import annotations

import math

import numpy as np
import pytest

from benchsift.stats.conformal import conformal_quantile, conformal_rank


def test_rank_and_quantile_by_hand() -> None:
    scores = np.arange(1, 20) / 10.0  # 0.1 .. 1.9, n = 19
    assert conformal_rank(19, 0.95) == 19  # ceil(20 x 0.95)
    assert conformal_quantile(scores, 0.95) == pytest.approx(1.9)  # the largest
    assert conformal_quantile(scores, 0.5) == pytest.approx(1.0)  # ceil(20 x 0.5) = 10th smallest
    # one fewer: ceil(19 x 0.95) = 19 > 18, no finite half-width has the guarantee
    assert conformal_rank(18, 0.95) == 19 and conformal_quantile(scores[:18], 0.95) == math.inf
    # NaN and infinities are left out before counting; nothing left: inf
    noisy = np.concatenate([scores, [np.nan, np.inf, np.nan]])
    assert conformal_quantile(noisy, 0.5) == pytest.approx(1.0)
    assert conformal_quantile(np.array([np.nan]), 0.5) == math.inf
    assert conformal_quantile(np.array([]), 0.9) == math.inf


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_quantile_is_numpys_inverted_cdf_quantile_of_the_kth_score(seed: int) -> None:
    rng = np.random.default_rng(seed)
    for _ in range(50):
        n = int(rng.integers(1, 200))
        level = float(rng.uniform(0.5, 0.99))
        s = rng.exponential(size=n)
        k = conformal_rank(n, level)
        if k > n:
            assert conformal_quantile(s, level) == math.inf
        else:
            # the smallest score whose empirical CDF reaches (k - 1/2) / n is the k-th smallest (the half
            # step keeps the probability off the CDF's jumps, where k / n may round either way)
            want = float(np.quantile(s, (k - 0.5) / n, method="inverted_cdf"))
            assert conformal_quantile(s, level) == want


def test_coverage_on_exchangeable_scores_is_k_over_n_plus_one() -> None:
    """n = 39 calibration scores and one new score from the same distribution, 20,000 draws: the new score is
    at most the quantile with probability exactly k / (n + 1) = 36 / 40 = 0.9 at level 0.9."""
    rng = np.random.default_rng(7)
    n, level, reps = 39, 0.9, 20_000
    draws = rng.standard_normal((reps, n + 1)) ** 2
    q = np.array([conformal_quantile(row[:n], level) for row in draws])
    covered = float(np.mean(draws[:, n] <= q))
    se = math.sqrt(0.9 * 0.1 / reps)
    assert abs(covered - conformal_rank(n, level) / (n + 1)) < 4 * se
