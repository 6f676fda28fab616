"""The shortcuts of ``corr_with_vector`` / ``corr_matrix`` against scipy / pandas / scikit-learn.

The NaN-free Pearson and R² paths check for infinite values only when their sums come out non-finite; the
NaN-free Pearson paths decide constancy exactly but only on columns whose sum of squares is small enough to
be a constant column's; the NaN paths read y through mask matrix-vector products (and redo two-pass the
columns where that could cancel or y is constant on the column's rows); Spearman with NaN ranks y per
column from one sort; ``corr_matrix`` and Kendall run under one BLAS thread.
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest
import scipy.stats
import sklearn.metrics
from threadpoolctl import threadpool_info

from benchsift._threads import single_thread
from benchsift.errors import InputError
from benchsift.stats import corr_matrix
from benchsift.stats.correlation import corr_with_vector, paired_columns

TOL = 1e-10


def reference(metric: str, x: np.ndarray, y: np.ndarray) -> float:
    """scipy / sklearn on the complete pairs of column ``x`` and vector ``y`` (the truth for r2)."""
    ok = ~(np.isnan(x) | np.isnan(y))
    a, b = x[ok], y[ok]
    if a.size < 2 or np.ptp(b) == 0 or (metric != "r2" and np.ptp(a) == 0):
        return np.nan
    if metric == "srcc":
        return float(scipy.stats.spearmanr(a, b).statistic)
    if metric == "plcc":
        return float(scipy.stats.pearsonr(a, b).statistic)
    if metric == "kendall":
        return float(scipy.stats.kendalltau(a, b).statistic)
    return float(sklearn.metrics.r2_score(b, a))


def want(metric: str, X: np.ndarray, y: np.ndarray) -> np.ndarray:
    return np.array([reference(metric, X[:, j], y) for j in range(X.shape[1])])


def accuracies(n: int = 80, k: int = 120, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """Scores in [0, 1] on 40-item subsets (many ties), with awkward constant columns mixed in."""
    rng = np.random.default_rng(seed)
    y = rng.random(n)
    X = np.clip(y[:, None] + 0.2 * rng.normal(size=(n, k)), 0, 1)
    X = np.round(X * 40) / 40
    # constants whose mean is not exact in binary (0.1, 1/3, 1e6 + 0.1), zero, negative
    for j, c in zip(range(0, min(k, 50), 10), (0.1, 1 / 3, 1e6 + 0.1, 0.0, -7.3), strict=False):
        X[:, j] = c
    return X, y


@pytest.mark.parametrize("metric", ["srcc", "plcc", "kendall", "r2"])
def test_complete_paths_with_awkward_constants(metric: str) -> None:
    X, y = accuracies()
    got = corr_with_vector(X, y, metric)
    np.testing.assert_allclose(got, want(metric, X, y), rtol=1e-12, atol=TOL)
    constant = np.arange(0, 50, 10)
    assert np.isnan(got[constant]).all() == (metric != "r2")  # a constant prediction has an R²


def test_nearly_constant_column_stays_defined() -> None:
    # one value one ulp above the others: not constant, so defined (as the exact two-pass kernel says)
    rng = np.random.default_rng(1)
    y = rng.random(30)
    X = np.full((30, 3), 0.1)
    X[7, 0] = np.nextafter(0.1, 1.0)
    X[:, 1] = 1e6 + 0.1
    X[3, 1] = np.nextafter(1e6 + 0.1, 2e6)
    X[:, 2] = rng.random(30)
    got = corr_with_vector(X, y, "plcc")
    assert np.isfinite(got).all()
    np.testing.assert_allclose(got, paired_columns(X, np.repeat(y[:, None], 3, axis=1), "plcc"), atol=1e-12)
    m = corr_matrix(np.column_stack([X, y]), "plcc")
    assert np.isfinite(m).all()
    np.testing.assert_array_equal(m, m.T)


@pytest.mark.parametrize("metric", ["srcc", "plcc", "r2"])
def test_nan_paths_against_reference(metric: str) -> None:
    X, y = accuracies(seed=2)
    rng = np.random.default_rng(3)
    X[rng.random(X.shape) < 0.1] = np.nan
    X[:, 60] = np.nan  # all missing
    X[1:, 61] = np.nan  # one present row
    y = np.round(y * 5) / 5  # y with heavy ties (Spearman's group ranks)
    # y constant on column 62's rows, nearly constant (strong cancellation) on column 63's
    X[:, 62] = np.where(y == y[0], X[:, 62], np.nan)
    close = np.argsort(np.abs(y - 0.5))[:8]
    y[close] = 0.5 + 1e-7 * np.arange(8)
    X[:, 63] = np.nan
    X[close, 63] = np.arange(8.0)
    got = corr_with_vector(X, y, metric)
    np.testing.assert_allclose(got, want(metric, X, y), rtol=1e-12, atol=TOL)
    assert np.isnan(got[[60, 61, 62]]).all()
    assert np.isfinite(got[63])
    # NaN in y: its rows are dropped for every column
    y_nan = y.copy()
    y_nan[[4, 9, 33]] = np.nan
    np.testing.assert_allclose(
        corr_with_vector(X, y_nan, metric), want(metric, X, y_nan), rtol=1e-12, atol=TOL
    )


@pytest.mark.parametrize("metric", ["srcc", "plcc", "r2"])
def test_nan_paths_match_pandas_corrwith_at_scale(metric: str) -> None:
    rng = np.random.default_rng(5)
    y = rng.random(169)
    X = np.round((y[:, None] + 0.3 * rng.random((169, 400))) * 50) / 50
    X[rng.random(X.shape) < 0.05] = np.nan
    got = corr_with_vector(X, y, metric)
    if metric == "r2":
        ref = want(metric, X, y)
    else:
        method = {"srcc": "spearman", "plcc": "pearson"}[metric]
        ref = pd.DataFrame(X).corrwith(pd.Series(y), method=method).to_numpy()
    np.testing.assert_allclose(got, ref, rtol=1e-12, atol=TOL)


@pytest.mark.parametrize("metric", ["plcc", "r2"])
def test_inf_is_still_rejected_and_nan_still_missing(metric: str) -> None:
    X, y = accuracies(n=20, k=16)
    X[3, 2] = np.inf
    with pytest.raises(InputError, match="inf; expected a finite value"):
        corr_with_vector(X, y, metric)
    X[3, 2] = -np.inf
    with pytest.raises(InputError, match="inf; expected a finite value"):
        corr_with_vector(X, y, metric)
    X[3, 2] = np.nan
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        got = corr_with_vector(X, y, metric)
    np.testing.assert_allclose(got, want(metric, X, y), rtol=1e-12, atol=TOL)


def test_complete_pearson_matrix_against_corrcoef_and_pandas() -> None:
    X, _ = accuracies(k=60, seed=4)
    got = corr_matrix(X, "plcc")
    ref = pd.DataFrame(X).corr(method="pearson").to_numpy()
    np.testing.assert_allclose(got, ref, rtol=1e-12, atol=TOL)
    np.testing.assert_array_equal(got, got.T)
    defined = np.setdiff1d(np.arange(60), np.arange(0, 50, 10))
    with np.errstate(invalid="ignore", divide="ignore"):
        cc = np.corrcoef(X[:, defined], rowvar=False)
    np.testing.assert_allclose(got[np.ix_(defined, defined)], cc, rtol=1e-12, atol=TOL)
    assert np.isnan(got[0]).all() and np.isnan(got[:, 20]).all()
    ranks = corr_matrix(X, "srcc")
    np.testing.assert_allclose(
        ranks, pd.DataFrame(X).corr(method="spearman").to_numpy(), rtol=1e-12, atol=TOL
    )


def _blas_threads() -> list[int]:
    return [p["num_threads"] for p in threadpool_info() if p["user_api"] == "blas"]


def test_single_thread_nests_and_restores() -> None:
    before = _blas_threads()
    with single_thread():
        assert all(t == 1 for t in _blas_threads())
        with single_thread():
            assert all(t == 1 for t in _blas_threads())
        assert all(t == 1 for t in _blas_threads())  # the inner exit keeps the outer limit
    assert _blas_threads() == before
    X, y = accuracies(n=30, k=20)
    corr_matrix(X, "kendall")
    corr_with_vector(X, y, "kendall")
    assert _blas_threads() == before
    with pytest.raises(InputError):
        corr_matrix(np.full((3, 2), np.inf), "plcc")
    assert _blas_threads() == before
