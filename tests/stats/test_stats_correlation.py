"""1-D, column-wise and paired correlations against scipy / scikit-learn, hand-computed cases, degenerates."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.stats
import sklearn.metrics

from benchsift.errors import InputError
from benchsift.stats import correlation, kendall_tau_b, pearson, spearman
from benchsift.stats.correlation import corr_with_vector, paired_columns, r2_score

N_CASES = 1000
N_MAX = 40
TOL = 1e-10


def make_cases(seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """(N_MAX, N_CASES) pairs of columns: varied length, correlation, ties (rounding) and NaN.

    Case ``j`` has ``n_j`` in [2, N_MAX] rows (the rest NaN); a third of the cases are rounded to few
    levels (many ties), each case gets its own NaN rate (0 for a third), and a few are made constant.
    """
    rng = np.random.default_rng(seed)
    n = rng.integers(2, N_MAX + 1, size=N_CASES)
    rho = rng.uniform(-0.95, 0.95, size=N_CASES)
    x = rng.normal(size=(N_MAX, N_CASES))
    y = rho * x + np.sqrt(1 - rho**2) * rng.normal(size=(N_MAX, N_CASES))
    levels = rng.integers(2, 6, size=N_CASES)
    tied = rng.random(N_CASES) < 1 / 3
    x = np.where(tied, np.round(x * levels / 2) / levels, x)
    y = np.where(tied & (rng.random(N_CASES) < 0.7), np.round(y * levels / 2) / levels, y)
    rate = np.where(rng.random(N_CASES) < 1 / 3, 0.0, rng.uniform(0, 0.4, size=N_CASES))
    x[rng.random((N_MAX, N_CASES)) < rate] = np.nan
    y[rng.random((N_MAX, N_CASES)) < rate] = np.nan
    const = rng.random(N_CASES) < 0.03
    x[:, const] = 0.5
    rows = np.arange(N_MAX)[:, None]
    x[rows >= n] = np.nan
    y[rows >= n] = np.nan
    return x, y


def reference(metric: str, x: np.ndarray, y: np.ndarray) -> float:
    """scipy / sklearn on the complete pairs; NaN where the statistic is undefined."""
    ok = ~(np.isnan(x) | np.isnan(y))
    a, b = x[ok], y[ok]
    if a.size < 2 or np.ptp(a) == 0 or (metric != "r2" and np.ptp(b) == 0):
        return np.nan
    if metric == "srcc":
        return scipy.stats.spearmanr(a, b).statistic
    if metric == "plcc":
        return scipy.stats.pearsonr(a, b).statistic
    if metric == "kendall":
        return scipy.stats.kendalltau(a, b).statistic  # variant "b" is scipy's default
    return sklearn.metrics.r2_score(a, b)


@pytest.fixture(scope="module")
def cases() -> tuple[np.ndarray, np.ndarray]:
    return make_cases()


@pytest.fixture(scope="module")
def expected(cases: tuple[np.ndarray, np.ndarray]) -> dict[str, np.ndarray]:
    x, y = cases
    return {m: np.array([reference(m, x[:, j], y[:, j]) for j in range(N_CASES)]) for m in METRICS}


METRICS = ("srcc", "plcc", "kendall", "r2")
ONE_D = {"srcc": spearman, "plcc": pearson, "kendall": kendall_tau_b, "r2": r2_score}


def test_cases_cover_ties_nan_and_degenerates(cases: tuple[np.ndarray, np.ndarray], expected) -> None:
    x, y = cases
    ok = ~(np.isnan(x) | np.isnan(y))
    has_nan_inside = (np.isnan(x) | np.isnan(y))[: N_MAX // 2].any(axis=0)
    n_unique = np.array([np.unique(x[ok[:, j], j]).size for j in range(N_CASES)])
    has_ties = n_unique < ok.sum(axis=0)
    assert has_nan_inside.sum() > 300
    assert has_ties.sum() > 200
    assert 10 < np.isnan(expected["srcc"]).sum() < 200


@pytest.mark.parametrize("metric", METRICS)
def test_one_d_matches_reference(metric: str, cases, expected) -> None:
    x, y = cases
    got = np.array([ONE_D[metric](x[:, j], y[:, j]) for j in range(N_CASES)])
    np.testing.assert_allclose(got, expected[metric], rtol=0, atol=TOL)
    via_dispatch = np.array([correlation(x[:, j], y[:, j], metric) for j in range(0, N_CASES, 50)])
    np.testing.assert_allclose(via_dispatch, expected[metric][::50], rtol=0, atol=TOL)


@pytest.mark.parametrize("metric", METRICS)
def test_paired_columns_matches_reference(metric: str, cases, expected) -> None:
    x, y = cases
    got = paired_columns(x, y, metric)  # r2: X is the truth, as in r2_score(y_true, y_pred)
    np.testing.assert_allclose(got, expected[metric], rtol=0, atol=TOL)


@pytest.mark.parametrize("metric", METRICS)
@pytest.mark.parametrize("with_nan", [False, True])
def test_corr_with_vector_matches_reference(metric: str, with_nan: bool) -> None:
    rng = np.random.default_rng(7)
    n, k = 60, 300
    y = rng.normal(size=n)
    X = 0.6 * y[:, None] + rng.normal(size=(n, k))
    X[:, ::3] = np.round(X[:, ::3] * 2) / 2  # ties
    X[:, 5] = 1.0  # constant column -> NaN
    if with_nan:
        X[rng.random((n, k)) < 0.15] = np.nan
        y[rng.random(n) < 0.1] = np.nan
    got = corr_with_vector(X, y, metric)
    # corr_with_vector: y is the truth for r2, so the reference is r2_score(y, X[:, j])
    want = np.array(
        [reference(metric, y, X[:, j]) if metric == "r2" else reference(metric, X[:, j], y) for j in range(k)]
    )
    assert np.isnan(got[5]) == (metric != "r2")  # a constant prediction still has an R²
    np.testing.assert_allclose(got, want, rtol=0, atol=TOL)


def test_hand_computed_small_cases() -> None:
    # x mean 2, y mean 7/3: sxy = 3, sxx = 2, syy = 42/9 -> r = 9 / sqrt(84)
    assert pearson([1, 2, 3], [1, 2, 4]) == pytest.approx(9 / np.sqrt(84), abs=1e-15)
    # ranks x = [1, 2.5, 2.5, 4], y = [1, 3, 2, 4]: sxy = 4.5, sxx = 4.5, syy = 5 -> 3 / sqrt(10)
    assert spearman([1, 2, 2, 3], [1, 3, 2, 4]) == pytest.approx(3 / np.sqrt(10), abs=1e-15)
    # 6 pairs: 5 concordant, 1 tied in x only -> (5 - 0) / sqrt(5 * 6)
    assert kendall_tau_b([1, 2, 2, 3], [1, 3, 2, 4]) == pytest.approx(5 / np.sqrt(30), abs=1e-15)
    # SS_res = 1, SS_tot = 2
    assert r2_score([1, 2, 3], [1, 2, 2]) == pytest.approx(0.5, abs=1e-15)
    # R² is not symmetric: truth [1, 2, 2] has SS_tot = 2/3, SS_res = 1 -> 1 - 3/2
    assert r2_score([1, 2, 2], [1, 2, 3]) == pytest.approx(-0.5, abs=1e-15)
    # perfectly reversed ranks
    assert spearman([1, 2, 3, 4], [8, 6, 4, 2]) == -1.0
    assert kendall_tau_b([1, 2, 3, 4], [8, 6, 4, 2]) == -1.0


def test_pairwise_complete_uses_only_common_rows() -> None:
    x = np.array([1.0, np.nan, 3.0, 4.0, 10.0])
    y = np.array([2.0, 5.0, np.nan, 8.0, 9.0])
    # complete rows: 0, 3, 4 -> x = [1, 4, 10], y = [2, 8, 9]: monotone
    assert spearman(x, y) == 1.0
    assert kendall_tau_b(x, y) == 1.0
    assert pearson(x, y) == pytest.approx(scipy.stats.pearsonr([1, 4, 10], [2, 8, 9]).statistic, abs=1e-15)
    # ranking over complete rows only: the dropped y = 5 must not shift y's ranks
    assert spearman([1, 2, np.nan], [1, 2, 0.5]) == 1.0


@pytest.mark.parametrize("metric", METRICS)
@pytest.mark.parametrize(
    ("x", "y"),
    [
        ([], []),
        ([1.0], [2.0]),
        ([1.0, np.nan, 3.0], [np.nan, 2.0, 4.0]),  # one complete pair
        ([np.nan, np.nan], [np.nan, np.nan]),
        ([0.5, 0.5, 0.5, 0.5], [0.1, 0.2, 0.3, 0.4]),  # constant first side
        ([0.1, 0.1, 0.1, 0.7], [0.2, 0.4, 0.6, np.nan]),  # constant on the complete rows only
    ],
)
def test_undefined_is_nan_without_warning(metric: str, x: list, y: list) -> None:
    assert np.isnan(correlation(x, y, metric))
    assert np.isnan(paired_columns(np.array(x)[:, None], np.array(y)[:, None], metric)[0])
    # x is the vector (the truth for r2): undefined in every case above
    assert np.isnan(corr_with_vector(np.array(y)[:, None], np.array(x), metric)[0])


def test_constant_second_side() -> None:
    y = [0.3, 0.3, 0.3]
    x = [0.1, 0.2, 0.4]
    for metric in ("srcc", "plcc", "kendall"):
        assert np.isnan(correlation(x, y, metric))
        assert np.isnan(corr_with_vector(np.array(x)[:, None], np.array(y), metric)[0])
    # a constant prediction is a (bad) prediction, not undefined: 1 - SS_res / SS_tot
    dev = np.array(x) - 0.3
    want = 1 - (dev @ dev) / np.sum((np.array(x) - np.mean(x)) ** 2)
    assert r2_score(x, y) == pytest.approx(want, abs=1e-14)
    assert corr_with_vector(np.array(y)[:, None], np.array(x), "r2")[0] == pytest.approx(want, abs=1e-14)


def test_corr_with_vector_large_fast_path_equals_nan_path() -> None:
    rng = np.random.default_rng(3)
    X = rng.random((169, 1000))
    y = X[:, :50].mean(axis=1)
    for metric in ("srcc", "plcc", "r2"):
        fast = corr_with_vector(X, y, metric)
        X_nan = np.vstack([X, np.full((1, 1000), np.nan)])  # forces the NaN path, same complete rows
        slow = corr_with_vector(X_nan, np.append(y, 0.5), metric)
        np.testing.assert_allclose(fast, slow, rtol=0, atol=1e-12)


def test_metric_aliases_and_errors() -> None:
    x, y = [1.0, 2.0, 3.0], [1.0, 3.0, 2.0]
    assert correlation(x, y, "spearman") == correlation(x, y, "srcc")
    assert correlation(x, y, "pearson") == correlation(x, y, "plcc")
    with pytest.raises(InputError, match="metric"):
        correlation(x, y, "cosine")
    with pytest.raises(InputError, match="same length"):
        pearson([1, 2, 3], [1, 2])
    with pytest.raises(InputError, match="X"):
        corr_with_vector(np.ones(3), np.ones(3))
    with pytest.raises(InputError, match="rows"):
        corr_with_vector(np.ones((4, 2)), np.ones(3))
    with pytest.raises(InputError, match="inf; expected a finite value"):
        spearman([1, np.inf, 2], [1, 2, 3])
    with pytest.raises(InputError, match="numbers"):
        spearman(["a", "b"], [1, 2])
    with pytest.raises(InputError, match="same shape"):
        paired_columns(np.ones((3, 2)), np.ones((3, 3)))


def test_kendall_long_columns_use_the_sort_based_path() -> None:
    rng = np.random.default_rng(21)
    n = 1700  # > LONG_COLUMNS: scipy's O(n log n) algorithm column by column
    y = np.round(rng.normal(size=n), 1)
    X = np.round(0.5 * y[:, None] + rng.normal(size=(n, 3)), 1)
    X[:, 2] = 0.25
    want = [reference("kendall", X[:, j], y) for j in range(3)]
    np.testing.assert_allclose(corr_with_vector(X, y, "kendall"), want, rtol=0, atol=TOL)
    X[rng.random(X.shape) < 0.1] = np.nan
    want = [reference("kendall", X[:, j], y) for j in range(3)]
    np.testing.assert_allclose(corr_with_vector(X, y, "kendall"), want, rtol=0, atol=TOL)
