"""Streamed paired bootstrap means (stats.paired_bootstrap_means): the same resamples as the weight
matrices, the same means as the plain matrix product and the index form, exact on rational scores."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest

from benchsift.errors import InputError
from benchsift.stats import bootstrap_weights, cluster_bootstrap_weights
from benchsift.stats.bootstrap import bootstrap_indices
from benchsift.stats.resample import bootstrap_weight_blocks, paired_bootstrap_means


@pytest.mark.parametrize("block", [1, 7, 64, None])
def test_weight_blocks_are_the_weight_matrices(block: int | None) -> None:
    n, B = 53, 130
    stacked = np.concatenate(list(bootstrap_weight_blocks(n, B, 9, block=block)))
    np.testing.assert_array_equal(stacked, bootstrap_weights(n, B, 9))
    labels = np.repeat(np.arange(20), 3)[:n][::-1].copy()  # clusters, not numbered in row order
    stacked = np.concatenate(list(bootstrap_weight_blocks(n, B, 9, clusters=labels, block=block)))
    np.testing.assert_array_equal(stacked, cluster_bootstrap_weights(labels, B, 9))
    stacked = np.concatenate(list(bootstrap_weight_blocks(n, B, 9, n_draw=17, block=block)))
    expected = np.random.default_rng(9).multinomial(17, np.full(n, 1 / n), size=B)
    np.testing.assert_array_equal(stacked, expected)


def _reference(X: np.ndarray, W: np.ndarray) -> np.ndarray:
    """The ten-line baseline: one float64 product of the counts with the values and with the mask."""
    present = ~np.isnan(X)
    num = W @ np.where(present, X, 0.0).T
    den = W @ present.T.astype(float)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(den > 0, num / den, np.nan)


@pytest.mark.parametrize(
    "values",
    [
        np.array([0.0, 1.0]),  # 0/1 scores: float32 integer path
        np.array([0.0, 1 / 3, 0.5, 2 / 3, 1.0]),  # partial credit out of 6
        None,  # continuous: float64 path
    ],
)
def test_means_equal_the_matrix_product_and_the_index_form(values: np.ndarray | None) -> None:
    rng = np.random.default_rng(4)
    K, n, B = 9, 211, 300
    X = rng.random((K, n)) if values is None else rng.choice(values, size=(K, n))
    X[rng.random((K, n)) < 0.1] = np.nan
    X[3, :] = np.nan  # a row with no present item: NaN in every replicate
    X[4, 1:] = np.nan  # one present item: NaN where it is not drawn
    means = paired_bootstrap_means(X, B, 21, block=37)
    W = bootstrap_weights(n, B, 21)
    ref = _reference(X, W)
    np.testing.assert_array_equal(np.isnan(means), np.isnan(ref))
    np.testing.assert_allclose(means, ref, rtol=1e-14, atol=0)
    # index form, an independent computation: nanmean over each replicate's drawn items
    idx = bootstrap_indices(n, B, 21)
    with np.errstate(invalid="ignore"), pytest.warns(RuntimeWarning):
        by_index = np.nanmean(X[:, idx], axis=2).T
    np.testing.assert_allclose(means, by_index, rtol=1e-12, atol=0)
    # block size and given weights do not change a byte
    np.testing.assert_array_equal(means, paired_bootstrap_means(X, B, 21))
    np.testing.assert_array_equal(means, paired_bootstrap_means(X, weights=W, block=5))


def test_rational_scores_are_exact_ratios_rounded_once() -> None:
    rng = np.random.default_rng(0)
    grid = [Fraction(k, 6) for k in range(7)]
    codes = rng.integers(0, 7, size=(4, 97))
    X = np.array([[float(grid[c]) for c in row] for row in codes])
    W = bootstrap_weights(97, 40, 2)
    means = paired_bootstrap_means(X, weights=W)
    for b in range(40):
        for k in range(4):
            exact = sum(int(W[b, i]) * grid[codes[k, i]] for i in range(97)) / int(W[b].sum())
            assert means[b, k] == float(exact)


def test_ratio_means_with_denominators_and_large_sums() -> None:
    rng = np.random.default_rng(1)
    K, n, B = 5, 3000, 60
    den = (rng.random((K, n)) < 0.7).astype(float)
    num = den * rng.integers(0, 20000, size=(K, n))  # integer sums past 2^24: float64, still exact
    W = bootstrap_weights(n, B, 3)
    got = paired_bootstrap_means(num, weights=W, denominators=den)
    np.testing.assert_array_equal(got, (W @ num.T) / (W @ den.T))
    sizes = paired_bootstrap_means(num, B, 3, denominators=den, return_sizes=True)[1]
    np.testing.assert_array_equal(sizes, np.full(B, float(n)))


def test_cluster_and_budget_draws_match_the_weight_matrices() -> None:
    rng = np.random.default_rng(2)
    X = rng.integers(0, 2, size=(6, 120)).astype(float)
    labels = np.arange(120) // 4
    got, sizes = paired_bootstrap_means(X, 200, 5, clusters=labels, return_sizes=True)
    W = cluster_bootstrap_weights(labels, 200, 5)
    np.testing.assert_allclose(got, _reference(X, W), rtol=1e-15, atol=0)
    np.testing.assert_array_equal(sizes, W.sum(axis=1))
    got = paired_bootstrap_means(X, 200, 5, n_draw=30)
    W = np.random.default_rng(5).multinomial(30, np.full(120, 1 / 120), size=200).astype(float)
    np.testing.assert_allclose(got, _reference(X, W), rtol=1e-15, atol=0)


def test_bad_inputs() -> None:
    X = np.zeros((2, 5))
    with pytest.raises(InputError, match="X: expected"):
        paired_bootstrap_means(np.zeros(5))
    with pytest.raises(InputError, match="weights: expected shape"):
        paired_bootstrap_means(X, weights=np.ones((3, 4)))
    with pytest.raises(InputError, match="denominators: expected shape"):
        paired_bootstrap_means(X, 10, 0, denominators=np.ones((2, 4)))
    with pytest.raises(
        InputError, match=r"clusters: expected one label per item, shape \(5,\), got shape \(3,\)"
    ):
        paired_bootstrap_means(X, 10, 0, clusters=[0, 1, 2])
    with pytest.raises(InputError, match="n_draw"):
        paired_bootstrap_means(X, 10, 0, n_draw=0)
