"""Correlations between score vectors: 1-D, column-wise (one vector against many) and paired columns.

The metrics are those of the redundancy paper (Redundancy Principles for MLLMs Benchmarks, Appendix A):
SRCC (Spearman, average ranks for ties), PLCC (Pearson), R² (score prediction, ``1 - SS_res / SS_tot``
with the reference as truth), plus Kendall tau-b. Every function is pairwise-complete: a row is used only
where both sides are present, and Spearman ranks over those rows only. A value is undefined (NaN, no
warning) with fewer than two complete rows or a constant side (for R²: a constant truth; a constant
prediction is a valid, poor, prediction). Checked against ``scipy.stats.spearmanr / pearsonr /
kendalltau`` and ``sklearn.metrics.r2_score`` to 1e-10 (``tests/stats``).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from numpy.typing import ArrayLike, NDArray

from benchsift.stats import _kernels as K
from benchsift.stats._checks import Metric, as_float_array, check_metric, check_shape, reject_inf
from benchsift.stats.ranks import rank_last_axis

__all__ = [
    "corr_with_vector",
    "correlation",
    "kendall_tau_b",
    "paired_columns",
    "pearson",
    "r2_score",
    "spearman",
]

FloatArray = NDArray[np.float64]

_PAIRED: dict[str, Callable[[FloatArray, FloatArray], FloatArray]] = {
    "srcc": K.spearman_paired,
    "plcc": K.pearson_paired,
    "kendall": K.kendall_paired,
    "r2": K.r2_paired,
}


def _vectors(x: ArrayLike, y: ArrayLike, names: tuple[str, str]) -> tuple[FloatArray, FloatArray]:
    a = as_float_array(x, names[0], ndim=1)
    b = as_float_array(y, names[1], ndim=1)
    check_shape(names[1], b.shape, a.shape, what=f"the same length as {names[0]}:")
    return a, b


def _one(metric: str, a: FloatArray, b: FloatArray) -> float:
    return float(_PAIRED[metric](a[:, None], b[:, None])[0])


def pearson(x: ArrayLike, y: ArrayLike) -> float:
    r"""Pearson linear correlation (PLCC, redundancy paper App. A, Eq. 2), pairwise-complete.

    .. math:: r = \frac{\sum_i (x_i - \bar x)(y_i - \bar y)}{\sqrt{\sum_i (x_i - \bar x)^2}
              \sqrt{\sum_i (y_i - \bar y)^2}}

    NaN with fewer than two complete pairs or a constant side.
    """
    a, b = _vectors(x, y, ("x", "y"))
    return _one("plcc", a, b)


def spearman(x: ArrayLike, y: ArrayLike) -> float:
    r"""Spearman rank correlation (SRCC, redundancy paper App. A, Eq. 1), pairwise-complete.

    The Pearson correlation of the average ranks (ties share their mean rank) of the complete pairs; with
    no ties this equals :math:`1 - 6 \sum_i d_i^2 / (n (n^2 - 1))`. NaN with fewer than two complete
    pairs or a constant side.
    """
    a, b = _vectors(x, y, ("x", "y"))
    return _one("srcc", a, b)


def kendall_tau_b(x: ArrayLike, y: ArrayLike) -> float:
    r"""Kendall's tau-b (tie-corrected), pairwise-complete; ``scipy.stats.kendalltau`` variant ``"b"``.

    .. math:: \tau_b = \frac{C - D}{\sqrt{(n_0 - n_1)(n_0 - n_2)}}

    with :math:`C, D` the concordant and discordant pairs, :math:`n_0 = n(n-1)/2` and :math:`n_1, n_2`
    the pairs tied in ``x`` and in ``y``. NaN with fewer than two complete pairs or a constant side.
    """
    a, b = _vectors(x, y, ("x", "y"))
    return _one("kendall", a, b)


def r2_score(y_true: ArrayLike, y_pred: ArrayLike) -> float:
    r"""Coefficient of determination of a score prediction (redundancy paper App. A, Eq. 3).

    .. math:: R^2 = 1 - \frac{\sum_i (y_i - \hat y_i)^2}{\sum_i (y_i - \bar y)^2}

    ``y_true`` is the reference (e.g. the full-benchmark scores), ``y_pred`` the prediction (e.g. the
    scores on sampled instances); not symmetric, can be negative. Equals ``sklearn.metrics.r2_score`` on
    the complete pairs. NaN with fewer than two complete pairs or a constant ``y_true``.
    """
    a, b = _vectors(y_true, y_pred, ("y_true", "y_pred"))
    return _one("r2", a, b)


def correlation(x: ArrayLike, y: ArrayLike, metric: Metric | str = "srcc") -> float:
    """``metric`` (``"srcc" | "plcc" | "kendall" | "r2"``) between two vectors.

    For ``"r2"`` ``x`` is the truth and ``y`` the prediction, as in :func:`r2_score`.
    """
    name = check_metric(metric)
    a, b = _vectors(x, y, ("x", "y"))
    return _one(name, a, b)


def corr_with_vector(X: ArrayLike, y: ArrayLike, metric: Metric | str = "srcc") -> FloatArray:
    """``metric`` between each column of ``X`` (n, k) and ``y`` (n,), as a (k,) array.

    The hot path of instance-redundancy resampling (e.g. 169 models x 1000 sampled subsets against the
    full-benchmark scores). For ``"r2"`` ``y`` is the truth and each column a prediction. Without NaN the
    work is one argsort along the rows (Spearman), a centring pass and matrix-vector products (Pearson, R²),
    or column sums of row-pair signs (Kendall: all pairs at once when small, else one row at a time on
    integer ranks, scipy's sort-based algorithm per column when the columns are long or few); with NaN each
    column uses its own complete rows (ranks are taken over those rows only), read through matrix-vector
    products with the 0/1 mask instead of a broadcast copy of ``y``. Rows where ``y`` is NaN are dropped
    first (no column can use them).

    Pearson and R² check ``X`` for infinite values only when the sums of the fast NaN-free pass come out
    non-finite (a NaN or inf there), which saves a pass over ``X`` in the common case; an infinite value
    still raises :class:`~benchsift.errors.InputError`.
    """
    name = check_metric(metric)
    A = as_float_array(X, "X", ndim=2, check_inf=False)
    v = as_float_array(y, "y", ndim=1)
    check_shape("X", A.shape, (v.shape[0], "k"), what="len(y) rows, shape")
    y_nan = np.isnan(v)
    if name in ("plcc", "r2") and A.shape[0] >= 2 and not y_nan.any():
        kernel = K.pearson_with_vector_complete if name == "plcc" else K.r2_with_vector_complete
        out = kernel(A, v, True)
        if out is not None:
            return out
    reject_inf(A, "X")
    if name == "kendall":
        return K.kendall_with_vector(A, v)
    if y_nan.any():
        A, v = A[~y_nan], v[~y_nan]
    n, k = A.shape
    if n < 2:
        return np.full(k, np.nan)
    if not np.isnan(A).any():
        return _complete_with_vector(name, A, v)
    if name == "srcc":
        return K.spearman_with_vector(A, v)
    if name == "plcc":
        return K.pearson_with_vector(A, v)
    return K.r2_with_vector(A, v)


def _complete_with_vector(name: str, A: FloatArray, v: FloatArray) -> FloatArray:
    """No-NaN path of :func:`corr_with_vector` on validated input with n >= 2 rows."""
    if name != "srcc":
        kernel = K.pearson_with_vector_complete if name == "plcc" else K.r2_with_vector_complete
        out = kernel(A, v, False)
        assert out is not None
        return out
    n, k = A.shape
    # Average ranks of n values have mean (n + 1) / 2 exactly; centred, they are exact half-integers, so a
    # constant column (all ranks equal) has a sum of squares of exactly 0.
    D = rank_last_axis(np.ascontiguousarray(A.T))  # (k, n)
    D -= (n + 1) / 2.0
    w = rank_last_axis(v) - (n + 1) / 2.0
    ss = np.einsum("ij,ij->i", D, D)
    ssw = float(w @ w)
    with np.errstate(divide="ignore", invalid="ignore"):
        r = (D @ w) / np.sqrt(ss * ssw)
    r[(ss == 0) | (ssw == 0) | ~np.isfinite(r)] = np.nan
    return np.clip(r, -1.0, 1.0)


def paired_columns(X: ArrayLike, Y: ArrayLike, metric: Metric | str = "srcc") -> FloatArray:
    """``metric`` between ``X[:, j]`` and ``Y[:, j]`` for every column, as a (k,) array.

    ``X`` and ``Y`` have the same shape (n, k); each pair of columns is pairwise-complete on its own.
    For ``"r2"`` ``X`` is the truth and ``Y`` the prediction (the argument order of :func:`r2_score`).
    """
    name = check_metric(metric)
    A = as_float_array(X, "X", ndim=2)
    B = as_float_array(Y, "Y", ndim=2)
    check_shape("Y", B.shape, A.shape, what="the same shape as X:")
    return _PAIRED[name](A, B)
