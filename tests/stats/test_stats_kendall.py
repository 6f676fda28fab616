"""Kendall tau-b of ``corr_with_vector`` and ``corr_matrix`` against ``scipy.stats.kendalltau`` to 1e-12.

Random inputs with many ties and NaN, sized to reach every path: all row pairs at once (small), one row at a
time on integer ranks (larger), scipy column by column (few long columns); for the matrix the signs from the
values (small) and from dense ranks (larger). The reference drops the incomplete pairs of each column pair
(``nan_policy`` by hand) and is NaN where tau-b is undefined (fewer than two complete pairs, a constant
side); warnings are errors in the suite, so no path may warn.
"""

from __future__ import annotations

import numpy as np
import pytest
import scipy.stats

from benchsift.stats import _kernels as K
from benchsift.stats import corr_matrix
from benchsift.stats.correlation import corr_with_vector

TOL = 1e-12


def tau_b(x: np.ndarray, y: np.ndarray) -> float:
    ok = ~(np.isnan(x) | np.isnan(y))
    a, b = x[ok], y[ok]
    if a.size < 2 or np.ptp(a) == 0 or np.ptp(b) == 0:
        return np.nan
    return float(scipy.stats.kendalltau(a, b, variant="b").statistic)


def tied_data(n: int, k: int, nan_rate: float, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """Columns related to ``y``, rounded to few levels (many ties), NaN at ``nan_rate``, two constant columns
    and one column constant on the rows where it is present."""
    rng = np.random.default_rng(seed)
    y = np.round(rng.normal(size=n) * 3) / 3
    X = np.round((0.7 * y[:, None] + rng.normal(size=(n, k))) * rng.integers(1, 6, size=k)) / 2
    X[rng.random(X.shape) < nan_rate] = np.nan
    y[rng.random(n) < nan_rate / 2] = np.nan
    if k >= 3:
        X[:, 0] = 0.25
        X[:, 1] = np.where(np.arange(n) < n // 2, 1.5, np.nan)
    return X, y


@pytest.mark.parametrize(
    ("n", "k"),
    [
        (2, 3),
        (12, 7),  # all row pairs at once
        (45, 60),
        (70, 80),  # one row at a time on ranks
        (200, 40),
        (300, 2),  # few columns of 300 rows: scipy column by column
    ],
)
@pytest.mark.parametrize("nan_rate", [0.0, 0.08, 0.3])
def test_corr_with_vector_kendall_matches_scipy(n: int, k: int, nan_rate: float) -> None:
    X, y = tied_data(n, k, nan_rate, seed=n * 31 + k)
    got = corr_with_vector(X, y, "kendall")
    want = np.array([tau_b(X[:, j], y) for j in range(k)])
    np.testing.assert_array_equal(np.isnan(got), np.isnan(want))
    np.testing.assert_allclose(got, want, rtol=0, atol=TOL)


def test_corr_with_vector_kendall_paths_agree_exactly(monkeypatch: pytest.MonkeyPatch) -> None:
    X, y = tied_data(60, 25, 0.1, seed=3)
    monkeypatch.setattr(K, "GATHER_PAIRS", 1 << 40)
    gathered = corr_with_vector(X, y, "kendall")
    monkeypatch.setattr(K, "GATHER_PAIRS", 0)
    by_row = corr_with_vector(X, y, "kendall")
    monkeypatch.setattr(K, "VECTOR_LONG_COLUMNS", 0)
    sort_based = corr_with_vector(X, y, "kendall")
    np.testing.assert_array_equal(gathered, by_row)  # the same integer counts, the same formula
    np.testing.assert_allclose(sort_based, by_row, rtol=0, atol=TOL)


@pytest.mark.parametrize(("n", "k"), [(2, 3), (15, 6), (40, 12), (90, 40)])  # (90, 40): signs from ranks
@pytest.mark.parametrize("nan_rate", [0.0, 0.08, 0.3])
def test_corr_matrix_kendall_matches_scipy(n: int, k: int, nan_rate: float) -> None:
    X, _ = tied_data(n, k, nan_rate, seed=n * 17 + k)
    got = corr_matrix(X, "kendall")
    want = np.array([[tau_b(X[:, i], X[:, j]) for j in range(k)] for i in range(k)])
    np.testing.assert_array_equal(np.isnan(got), np.isnan(want))
    np.testing.assert_allclose(got, want, rtol=0, atol=TOL)
    np.testing.assert_array_equal(got, got.T)


@pytest.mark.parametrize("order", ["C", "F"])
def test_kendall_leaves_the_callers_array_as_it_was(order: str) -> None:
    """The rank paths (300 rows x 20 columns with NaN: dense ranks) read X without writing to it, whatever
    its memory order (the transpose of a Fortran-ordered array is that array's memory)."""
    rng = np.random.default_rng(3)
    X = np.array(rng.normal(size=(300, 20)), order=order)
    X[rng.random(X.shape) < 0.05] = np.nan
    before = X.copy()
    corr_with_vector(X, rng.normal(size=300), "kendall")
    corr_matrix(X, "kendall")
    np.testing.assert_array_equal(X, before)
