"""corr_matrix against pandas.DataFrame.corr (pairwise-complete) and sklearn r2_score; degenerate entries."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
import sklearn.metrics

from benchsift.stats import corr_matrix, correlation

PANDAS = {"srcc": "spearman", "plcc": "pearson", "kendall": "kendall"}


def panel_like(seed: int, n: int = 40, k: int = 12) -> np.ndarray:
    """Scores in [0, 1] with a shared factor, ties (rounded columns) and no NaN."""
    rng = np.random.default_rng(seed)
    ability = rng.normal(size=(n, 1))
    X = 1 / (1 + np.exp(-(ability * rng.uniform(0.3, 2, size=k) + rng.normal(size=(n, k)))))
    X[:, ::3] = np.round(X[:, ::3] * 5) / 5
    return X


def random_nan(X: np.ndarray, rate: float, seed: int) -> np.ndarray:
    X = X.copy()
    X[np.random.default_rng(seed).random(X.shape) < rate] = np.nan
    return X


def block_nan(X: np.ndarray) -> np.ndarray:
    """Few missingness patterns: some models lack whole groups of columns (the usual panel case)."""
    X = X.copy()
    X[:8, :4] = np.nan
    X[30:, 6:9] = np.nan
    return X


@pytest.mark.parametrize("metric", ["srcc", "plcc", "kendall"])
@pytest.mark.parametrize("variant", ["complete", "random_nan", "block_nan"])
def test_matches_pandas(metric: str, variant: str) -> None:
    X = panel_like(1)
    X = {"complete": X, "random_nan": random_nan(X, 0.2, 2), "block_nan": block_nan(X)}[variant]
    want = pd.DataFrame(X).corr(method=PANDAS[metric]).to_numpy()
    got = corr_matrix(X, metric)
    np.testing.assert_allclose(got, want, rtol=0, atol=1e-10)
    np.testing.assert_array_equal(got, got.T)


def test_spearman_many_patterns_fallback_matches_pandas() -> None:
    X = random_nan(panel_like(3, n=30, k=40), 0.3, 4)  # ~40 distinct patterns: per-column pass
    want = pd.DataFrame(X).corr(method="spearman").to_numpy()
    np.testing.assert_allclose(corr_matrix(X, "srcc"), want, rtol=0, atol=1e-10)


@pytest.mark.parametrize("variant", ["complete", "random_nan", "block_nan"])
def test_r2_matrix_matches_sklearn(variant: str) -> None:
    X = panel_like(5, n=30, k=8)
    X = {"complete": X, "random_nan": random_nan(X, 0.2, 6), "block_nan": block_nan(X)}[variant]
    got = corr_matrix(X, "r2")
    k = X.shape[1]
    for i in range(k):
        for j in range(k):
            ok = ~np.isnan(X[:, i]) & ~np.isnan(X[:, j])
            want = sklearn.metrics.r2_score(X[ok, i], X[ok, j])  # column i is the truth
            assert got[i, j] == pytest.approx(want, abs=1e-10)
    assert not np.allclose(got, got.T)


@pytest.mark.parametrize("metric", ["srcc", "plcc", "kendall", "r2"])
def test_matrix_entries_equal_one_d(metric: str) -> None:
    X = random_nan(panel_like(8, n=25, k=6), 0.15, 9)
    got = corr_matrix(X, metric)
    want = np.array([[correlation(X[:, i], X[:, j], metric) for j in range(6)] for i in range(6)])
    np.testing.assert_allclose(got, want, rtol=0, atol=1e-10)


@pytest.mark.parametrize("metric", ["srcc", "plcc", "kendall", "r2"])
def test_degenerate_entries_are_nan(metric: str) -> None:
    X = panel_like(11, n=12, k=5)
    X[:, 1] = 0.5  # constant column
    X[3:, 2] = np.nan  # column 2: three equal values, constant
    X[:3, 2] = [0.2, 0.2, 0.2]
    X[:, 3] = np.nan
    X[0, 3] = 0.9  # a single value
    X[:3, 4] = np.nan  # column 4 shares no non-constant rows with column 2
    got = corr_matrix(X, metric)
    assert np.isnan(got[1]).all()  # as truth (r2) or as either side
    assert np.isnan(got[3]).all() and np.isnan(got[:, 3]).all()
    assert np.isnan(got[2]).all()
    assert np.isnan(got[2, 4]) and np.isnan(got[4, 2])  # constant, and no common rows
    if metric != "r2":
        assert np.isnan(got[:, 1]).all()
        assert got[0, 0] == 1.0 and got[4, 4] == 1.0
    else:
        # a constant prediction is defined when the truth is not
        assert np.isfinite(got[0, 1])


def test_constant_on_common_rows_only() -> None:
    # column 1 varies overall but is constant on the rows it shares with column 0
    X = np.array(
        [[0.1, 0.5], [0.2, 0.5], [0.3, 0.5], [np.nan, 0.9], [np.nan, 0.1]],
    )
    for metric in ("srcc", "plcc", "kendall"):
        assert np.isnan(corr_matrix(X, metric)[0, 1])
    r2 = corr_matrix(X, "r2")
    assert np.isnan(r2[1, 0])  # truth constant on common rows
    assert r2[0, 1] == pytest.approx(sklearn.metrics.r2_score([0.1, 0.2, 0.3], [0.5, 0.5, 0.5]), abs=1e-12)


@pytest.mark.parametrize("metric", ["srcc", "plcc", "kendall", "r2"])
def test_all_missing_column_and_tiny_inputs(metric: str) -> None:
    X = block_nan(panel_like(13, n=40, k=10))
    X = np.column_stack([X, np.full(40, np.nan)])
    got = corr_matrix(X, metric)
    assert got.shape == (11, 11)
    assert np.isnan(got[10]).all() and np.isnan(got[:, 10]).all()
    assert np.isfinite(got[4:6, :10]).all()  # complete columns against the partly missing ones
    assert np.isnan(corr_matrix(np.ones((1, 3)), metric)).all()  # a single row: nothing is defined
    assert corr_matrix(np.empty((5, 0)), metric).shape == (0, 0)
