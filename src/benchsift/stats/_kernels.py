"""Column-wise correlation kernels on validated float arrays (private; no input checks here).

Every kernel takes two arrays of the same shape ``(n, k)`` and returns ``(k,)``: the statistic between
``X[:, j]`` and ``Y[:, j]`` over the rows where both are present (pairwise-complete). NaN marks an
undefined value: fewer than two complete rows, or a constant side (for R², a constant truth). Constancy
is decided exactly (minimum == maximum over the complete rows), never from a rounded variance.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from benchsift.stats.ranks import rank_last_axis

__all__ = [
    "is_constant",
    "kendall_paired",
    "kendall_with_vector",
    "tied_pairs",
    "pearson_paired",
    "r2_paired",
    "spearman_paired",
]

FloatArray = NDArray[np.float64]
BoolArray = NDArray[np.bool_]


def is_constant(X: FloatArray, mask: BoolArray) -> BoolArray:
    """Per column: True when the values of ``X`` at ``mask`` are all equal (or there are none)."""
    lo = np.where(mask, X, np.inf).min(axis=0, initial=np.inf)
    hi = np.where(mask, X, -np.inf).max(axis=0, initial=-np.inf)
    return ~(hi > lo)


def _ratio(num: FloatArray, den: FloatArray, undefined: BoolArray) -> FloatArray:
    with np.errstate(divide="ignore", invalid="ignore"):
        r = num / den
    r[undefined | ~np.isfinite(r)] = np.nan
    return r


def pearson_paired(X: FloatArray, Y: FloatArray) -> FloatArray:
    """Pearson r per column, pairwise-complete (two-pass: means first, then centred sums)."""
    mask = ~(np.isnan(X) | np.isnan(Y))
    count = mask.sum(axis=0)
    with np.errstate(divide="ignore", invalid="ignore"):
        mx = np.where(mask, X, 0.0).sum(axis=0) / count
        my = np.where(mask, Y, 0.0).sum(axis=0) / count
    dx = np.where(mask, X - mx, 0.0)
    dy = np.where(mask, Y - my, 0.0)
    sxy = np.einsum("ij,ij->j", dx, dy)
    den = np.sqrt(np.einsum("ij,ij->j", dx, dx) * np.einsum("ij,ij->j", dy, dy))
    undefined = (count < 2) | is_constant(X, mask) | is_constant(Y, mask)
    return np.clip(_ratio(sxy, den, undefined), -1.0, 1.0)


def spearman_paired(X: FloatArray, Y: FloatArray) -> FloatArray:
    """Spearman rho per column: Pearson r of average ranks taken over each column's complete rows only."""
    mask = ~(np.isnan(X) | np.isnan(Y))
    rx = rank_last_axis(np.ascontiguousarray(np.where(mask, X, np.nan).T)).T
    ry = rank_last_axis(np.ascontiguousarray(np.where(mask, Y, np.nan).T)).T
    return pearson_paired(rx, ry)


def r2_paired(T: FloatArray, P: FloatArray) -> FloatArray:
    """R² = 1 - SS_res / SS_tot per column, ``T`` the truth and ``P`` the prediction, pairwise-complete."""
    mask = ~(np.isnan(T) | np.isnan(P))
    count = mask.sum(axis=0)
    with np.errstate(divide="ignore", invalid="ignore"):
        mt = np.where(mask, T, 0.0).sum(axis=0) / count
    dt = np.where(mask, T - mt, 0.0)
    res = np.where(mask, T - P, 0.0)
    ss_tot = np.einsum("ij,ij->j", dt, dt)
    ss_res = np.einsum("ij,ij->j", res, res)
    undefined = (count < 2) | is_constant(T, mask)
    return 1.0 - _ratio(ss_res, ss_tot, undefined)


def tied_pairs(X: FloatArray) -> FloatArray:
    """Per column of a NaN-free ``X`` (n, k): the number of row pairs with equal values, sum m(m-1)/2."""
    s = np.sort(X, axis=0)
    pos = np.arange(X.shape[0])[:, None]
    new_group = np.ones(s.shape, dtype=bool)
    new_group[1:] = s[1:] != s[:-1]
    first = np.maximum.accumulate(np.where(new_group, pos, 0), axis=0)
    return (pos - first).sum(axis=0).astype(np.float64)  # each value counts the earlier equal ones


def _kendall_scipy(X: FloatArray, Y: FloatArray) -> FloatArray:
    """Column by column with scipy's O(n log n) algorithm, for long columns (n > ``LONG_COLUMNS``)."""
    from scipy.stats import kendalltau

    out = np.full(X.shape[1], np.nan)
    for j in range(X.shape[1]):
        ok = ~(np.isnan(X[:, j]) | np.isnan(Y[:, j]))
        x, y = X[ok, j], Y[ok, j]
        if x.size >= 2 and x.max() > x.min() and y.max() > y.min():
            out[j] = kendalltau(x, y).statistic
    return out


#: Above this many rows Kendall's tau switches from O(n^2) sign blocks to scipy's O(n log n) per column.
LONG_COLUMNS = 1500
#: Up to this many elements (n * n * k) Kendall's tau builds the full sign tensor in one step.
SMALL_TENSOR = 1 << 18


def kendall_paired(X: FloatArray, Y: FloatArray) -> FloatArray:
    """Kendall tau-b per column from row-pair signs, pairwise-complete.

    For row pairs ``p = (a, b)`` complete in both columns, ``s_p = sign(x_a - x_b)`` and
    ``t_p = sign(y_a - y_b)``; ``tau_b = sum(s t) / sqrt(sum(s^2) sum(t^2))`` (= (C - D) /
    sqrt((n0 - n1)(n0 - n2)), scipy's variant ``"b"``). Undefined (NaN) when either side has no untied pair.
    The signs of row ``a`` against all later rows form one contiguous (n - a - 1, k) block, so the Python
    loop runs over rows (models), every step vectorized over columns; columns longer than
    ``LONG_COLUMNS`` rows use scipy's sort-based algorithm instead.
    """
    n, k = X.shape
    if n > LONG_COLUMNS:
        return _kendall_scipy(X, Y)
    has_nan = bool(np.isnan(X).any() or np.isnan(Y).any())
    if n * n * k <= SMALL_TENSOR:
        # small problems (1-D calls): all ordered pairs at once; each unordered pair counts twice
        s = np.sign(X[:, None, :] - X[None, :, :])
        t = np.sign(Y[:, None, :] - Y[None, :, :])
        if has_nan:
            valid = ~(np.isnan(s) | np.isnan(t))
            s = np.where(valid, s, 0.0)
            t = np.where(valid, t, 0.0)
        num = np.einsum("abj,abj->j", s, t)
        tx = np.abs(s).sum(axis=(0, 1))
        ty = np.abs(t).sum(axis=(0, 1))
        return np.clip(_ratio(num, np.sqrt(tx * ty), (tx == 0) | (ty == 0)), -1.0, 1.0)
    num = np.zeros(k)
    tx = np.zeros(k)
    ty = np.zeros(k)
    for a in range(n - 1):
        s = np.sign(X[a] - X[a + 1 :])
        t = np.sign(Y[a] - Y[a + 1 :])
        if has_nan:
            valid = ~(np.isnan(s) | np.isnan(t))
            s = np.where(valid, s, 0.0)
            t = np.where(valid, t, 0.0)
        num += np.einsum("ij,ij->j", s, t)
        tx += np.abs(s).sum(axis=0)
        ty += np.abs(t).sum(axis=0)
    undefined = (tx == 0) | (ty == 0)
    return np.clip(_ratio(num, np.sqrt(tx * ty), undefined), -1.0, 1.0)


def kendall_with_vector(X: FloatArray, y: FloatArray) -> FloatArray:
    """Kendall tau-b of each column of ``X`` (n, k) with ``y`` (n,), pairwise-complete.

    The numerator ``sum_p s_p t_p`` is one matrix-vector product per row block
    ``t_a @ sign(X[a] - X[a+1:])``. Without NaN the untied-pair counts come from sorting
    (``tied_pairs``); with NaN they are two more matrix-vector products per block, each side counted over
    the pairs the other side has.
    """
    n, k = X.shape
    if n > LONG_COLUMNS:
        return _kendall_scipy(X, np.broadcast_to(y[:, None], X.shape))
    num = np.zeros(k)
    if not (np.isnan(X).any() or np.isnan(y).any()):
        n_pairs = n * (n - 1) / 2.0
        tx = n_pairs - tied_pairs(X)
        ty = np.full(k, n_pairs - tied_pairs(y[:, None])[0])
        for a in range(n - 1):
            num += np.sign(y[a] - y[a + 1 :]) @ np.sign(X[a] - X[a + 1 :])
    else:
        tx = np.zeros(k)
        ty = np.zeros(k)
        for a in range(n - 1):
            s = np.sign(X[a] - X[a + 1 :])
            t = np.sign(y[a] - y[a + 1 :])
            s_present = ~np.isnan(s)
            t_present = ~np.isnan(t)
            s = np.where(s_present, s, 0.0)
            t = np.where(t_present, t, 0.0)
            num += t @ s
            tx += t_present.astype(np.float64) @ np.abs(s)
            ty += np.abs(t) @ s_present
    undefined = (tx == 0) | (ty == 0)
    return np.clip(_ratio(num, np.sqrt(tx * ty), undefined), -1.0, 1.0)
