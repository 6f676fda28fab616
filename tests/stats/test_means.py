"""NaN-aware means and ranks among a reference (benchsift.stats.means, stats.ranks.rank_among), by hand."""

from __future__ import annotations

import warnings

import numpy as np

from benchsift.stats.means import group_nan_means, group_nan_sums, nan_mean, ratio_or_nan
from benchsift.stats.ranks import rank_among


def test_nan_mean_by_hand_and_without_warnings() -> None:
    a = np.array([[1.0, np.nan, 3.0], [np.nan, np.nan, np.nan], [np.inf, 2.0, 4.0]])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        out = nan_mean(a, axis=1)
    np.testing.assert_array_equal(out[[0, 2]], [2.0, 3.0])  # inf is not finite: left out
    assert np.isnan(out[1])
    np.testing.assert_array_equal(nan_mean(a, axis=0)[[1, 2]], [2.0, 3.5])


def test_group_nan_means_by_hand() -> None:
    X = np.array([[1.0, 0.0, np.nan, 1.0], [0.0, np.nan, np.nan, 0.5]])
    out = group_nan_means(X, [np.array([0, 1]), np.array([2]), np.array([], dtype=int), np.array([1, 3])])
    np.testing.assert_array_equal(out[0], [0.5, np.nan, np.nan, 0.5])
    np.testing.assert_array_equal(out[1], [0.0, np.nan, np.nan, 0.5])


def test_rank_among_by_hand() -> None:
    ref = np.array([0.9, 0.5, np.nan, 0.7])
    # 1 + number of reference values above; NaN references never count; a NaN value has no rank
    np.testing.assert_array_equal(rank_among(ref, np.array([0.8, 0.95, 0.1])), [2.0, 1.0, 4.0])
    assert np.isnan(rank_among(ref, np.array([np.nan]))[0])
    # trailing axes broadcast (bootstrap replicates)
    boot = rank_among(np.array([[0.5, 0.6], [0.4, 0.9]]), np.array([[0.45, 0.95]]))
    np.testing.assert_array_equal(boot, [[2.0, 1.0]])


def test_group_nan_sums_and_ratio_or_nan_by_hand() -> None:
    # columns 0, 1 in group 0 (not side by side: a run split in two), 2 in group 1, 3 in no group (-1)
    X = np.array([[1.0, 0.0, np.nan, 1.0, 0.5], [np.nan, np.nan, np.nan, 0.25, 1.0]])
    codes = np.array([0, 2, 1, -1, 0])
    sums, counts = group_nan_sums(X, codes, 3)
    np.testing.assert_array_equal(sums, [[1.5, 0.0, 0.0], [1.0, 0.0, 0.0]])
    np.testing.assert_array_equal(counts, [[2.0, 0.0, 1.0], [1.0, 0.0, 0.0]])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        means = ratio_or_nan(sums, counts)
    np.testing.assert_array_equal(means, [[0.75, np.nan, 0.0], [1.0, np.nan, np.nan]])
    # the same means as group_nan_means over the groups' columns
    groups = [np.flatnonzero(codes == g) for g in range(3)]
    np.testing.assert_array_equal(means, group_nan_means(X, groups))
