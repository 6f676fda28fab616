"""The factor estimator's posterior-mean full score per group (compression.full_score_factor), by hand."""

from __future__ import annotations

import numpy as np
from scipy.special import expit

from benchsift.compression.full_score_factor import FactorState, factor_estimates


def test_factor_estimates_by_hand_with_a_missing_answer() -> None:
    # two prior draws (1-D), two suite items (loadings 1 and -1, intercepts 0), two groups: group 0 holds
    # suite item 0 and 3 items off the suite, group 1 suite item 1 and 1 item off it
    samples = np.array([[-1.0], [1.0]])
    a_suite, d_suite = np.array([[1.0], [-1.0]]), np.zeros(2)
    rest = np.array([[0.5, 0.2], [2.5, 0.9]])  # per draw and group: the expected score summed off the suite
    state = FactorState(samples, a_suite, d_suite, rest)
    cols = [np.array([0]), np.array([1])]
    sizes = np.array([4, 2])
    X = np.array([[1.0, 0.0], [0.0, np.nan]])
    est = factor_estimates(X, state, cols, sizes)
    p = expit(samples @ a_suite.T + d_suite)  # (draw, item)
    # row 0 answered both: weights proportional to P(y0 = 1) P(y1 = 0) per draw
    lik = p[:, 0] * (1 - p[:, 1])
    w = lik / lik.sum()
    np.testing.assert_allclose(est[0], [(1.0 + w @ rest[:, 0]) / 4, (0.0 + w @ rest[:, 1]) / 2])
    # row 1 lacks item 1: weights from item 0 alone, and item 1 enters as its posterior mean
    lik = 1 - p[:, 0]
    w = lik / lik.sum()
    np.testing.assert_allclose(est[1], [(0.0 + w @ rest[:, 0]) / 4, (w @ p[:, 1] + w @ rest[:, 1]) / 2])
