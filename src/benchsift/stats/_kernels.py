"""Column-wise correlation kernels on validated float arrays (private; no input checks here).

Every kernel takes two arrays of the same shape ``(n, k)`` and returns ``(k,)``: the statistic between
``X[:, j]`` and ``Y[:, j]`` over the rows where both are present (pairwise-complete). NaN marks an
undefined value: fewer than two complete rows, or a constant side (for R², a constant truth). Constancy
is decided exactly (minimum == maximum over the complete rows), never from a rounded variance.
"""

from __future__ import annotations

import functools

import numpy as np
from numpy.typing import NDArray

from benchsift.stats.ranks import rank_last_axis

__all__ = [
    "dense_ranks",
    "is_constant",
    "kendall_paired",
    "kendall_with_vector",
    "tied_pairs",
    "upper_pairs",
    "pearson_paired",
    "r2_paired",
    "spearman_paired",
]

FloatArray = NDArray[np.float64]
BoolArray = NDArray[np.bool_]
IntArray = NDArray[np.intp] | NDArray[np.int32]


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
    if mask.all():
        return _spearman_complete(X, Y)
    rx = rank_last_axis(np.ascontiguousarray(np.where(mask, X, np.nan).T)).T
    ry = rank_last_axis(np.ascontiguousarray(np.where(mask, Y, np.nan).T)).T
    return pearson_paired(rx, ry)


def _spearman_complete(X: FloatArray, Y: FloatArray) -> FloatArray:
    """:func:`spearman_paired` when no value is missing: both sides ranked in one call, and
    :func:`pearson_paired`'s arithmetic without its masks (the same operations on the same layouts: the
    same floats)."""
    n, k = X.shape
    ranks = rank_last_axis(np.concatenate((X.T, Y.T)))  # (2k, n): the columns of X, then those of Y
    rx, ry = ranks[:k].T, ranks[k:].T
    constant = ~(ranks.max(axis=1, initial=-np.inf) > ranks.min(axis=1, initial=np.inf))
    with np.errstate(divide="ignore", invalid="ignore"):
        dx = rx - rx.sum(axis=0) / n
        dy = ry - ry.sum(axis=0) / n
    sxy = np.einsum("ij,ij->j", dx, dy)
    den = np.sqrt(np.einsum("ij,ij->j", dx, dx) * np.einsum("ij,ij->j", dy, dy))
    undefined = (n < 2) | constant[:k] | constant[k:]
    return np.clip(_ratio(sxy, den, undefined), -1.0, 1.0)


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


#: Up to this many row pairs times columns, :func:`kendall_with_vector` builds the signs of all row pairs in
#: one step (gathered rows, float values); above, it loops over the rows with integer ranks (measured
#: crossover, one thread: 1e5 to 2e5, from 20 x 5 to 200 x 2 and 80 x 200, with and without NaN).
GATHER_PAIRS = 1 << 17
#: :func:`kendall_with_vector` uses scipy's O(n log n) ``kendalltau`` column by column (about 0.25 ms a
#: column plus 0.1 us a row here) above ``VECTOR_LONG_COLUMNS`` rows, or when n**2 > ``SORT_PAIRS_PER_COLUMN``
#: * k: the O(n**2) pair sums cost about 0.3 ns a pair and column plus a fixed cost per row shared by the
#: columns. Measured crossovers (one thread, 5 % NaN): n about 130 for k = 1, 200 for k = 5, 550 for
#: k = 20, 950 for k = 100, 1000 for k = 200.
VECTOR_LONG_COLUMNS = 1000
SORT_PAIRS_PER_COLUMN = 15_000


@functools.lru_cache(maxsize=8)
def upper_pairs(n: int) -> tuple[IntArray, IntArray]:
    """Row indices ``(a, b)`` of every pair ``a < b`` of ``n`` rows (the last 8 sizes cached, read-only;
    only for the small problems of :func:`kendall_with_vector`'s all-pairs path)."""
    ia, ib = np.triu_indices(n, 1)
    ia.flags.writeable = False
    ib.flags.writeable = False
    return ia, ib


def dense_ranks(X: FloatArray) -> tuple[IntArray, FloatArray]:
    """Dense ranks (1, 2, ...; equal values equal ranks) of each column of ``X`` (finite or NaN), 0 where
    missing, as a C-ordered (n, k) int32 array; and per column the pairs of present rows with equal values.

    Missing cells are sorted as +inf (numpy's vectorised argsort does not take NaN; ``X`` has no inf), each
    its own group, and ranked 0 afterwards.
    """
    n, k = X.shape
    XT = X.T
    missing = np.isnan(XT)
    has_nan = bool(missing.any())
    if has_nan:  # a new array: the caller's X keeps its NaN (X.T of a Fortran-ordered X is its memory)
        XT = np.where(missing, np.inf, XT)
    order = np.argsort(XT, axis=1)
    s = np.take_along_axis(XT, order, axis=1)
    new_group = np.ones(s.shape, dtype=bool)
    new_group[:, 1:] = s[:, 1:] != s[:, :-1]
    absent = np.isinf(s) if has_nan else None
    if absent is not None:
        new_group |= absent
    pos = np.arange(n)
    first = np.maximum.accumulate(np.where(new_group, pos, 0), axis=1)
    tied = (pos - first).sum(axis=1).astype(np.float64)
    dense = np.cumsum(new_group, axis=1, dtype=np.int32)
    if absent is not None:
        dense[absent] = 0
    R = np.empty((k, n), dtype=np.int32)
    np.put_along_axis(R, order, dense, axis=1)
    return np.ascontiguousarray(R.T), tied


def _sign_sum_gathered(F: FloatArray, y: FloatArray) -> tuple[FloatArray, int]:
    """``sum over a < b of sign(y_a - y_b) sign(F_a - F_b)`` per column of a NaN-free ``F``, every row pair
    at once: the pairs untied in ``y`` turned so that ``y`` decreases, their rows gathered, column sums of
    the signs; and the number of pairs untied in ``y``."""
    ia, ib = upper_pairs(F.shape[0])
    up = y[ia] > y[ib]
    down = y[ia] < y[ib]
    hi = np.concatenate([ia[up], ib[down]])
    lo = np.concatenate([ib[up], ia[down]])
    with np.errstate(over="ignore"):  # |difference| > max float: inf, of the right sign
        return np.sign(F[hi] - F[lo]).sum(axis=0), hi.size


def _kendall_gathered(
    X: FloatArray, y: FloatArray, missing: BoolArray | None
) -> tuple[FloatArray, FloatArray]:
    """Kendall's numerator and the pairs untied in ``y`` complete in each column, from the signs of all row
    pairs at once (:func:`_sign_sum_gathered`; ``missing``: ``X``'s NaN cells, None when there are none).

    With NaN the sum runs on ``X`` with its missing cells set to 0. A pair of a missing cell ``m`` and a
    present one ``p`` then added ``t_mp sign(0 - x_p)`` (two missing cells: 0), taken out as the sum over
    the missing cells ``(m, j)`` of ``(T @ sign(0 - filled X))[m, j]``, ``T`` the (n, n) signs of ``y``;
    the complete pairs untied in ``y`` are ``P.T |T| P / 2`` per column, ``P`` the presence.
    """
    k = X.shape[1]
    if missing is None:
        num, untied_y = _sign_sum_gathered(X, y)
        return num, np.full(k, float(untied_y))
    F = np.where(missing, 0.0, X)
    num, _ = _sign_sum_gathered(F, y)
    T = np.sign(y[:, None] - y[None, :])
    num -= np.einsum("aj,aj->j", missing, T @ np.sign(0.0 - F))
    P = (~missing).astype(np.float64)
    return num, np.einsum("aj,aj->j", P, np.abs(T) @ P) / 2.0


def _sign_sum_by_row(R: IntArray, y: FloatArray) -> FloatArray:
    """``sum over a < b of sign(y_a - y_b) sign(R_a - R_b)`` per column of the integer ranks ``R``, one row
    at a time: rows ordered by ``y`` decreasing, row ``a`` against the rows after its tie group of ``y``
    (one contiguous block), int32 signs summed in int64."""
    n, k = R.shape
    order = np.argsort(-y, kind="stable")
    ys = y[order]
    new_group = np.ones(n, dtype=bool)
    new_group[1:] = ys[1:] != ys[:-1]
    group_end = np.append(np.flatnonzero(new_group)[1:], n)[np.cumsum(new_group) - 1]
    Rs = R[order]
    num = np.zeros(k, dtype=np.int64)
    for a in range(n):
        if group_end[a] < n:
            num += np.sign(Rs[a] - Rs[group_end[a] :]).sum(axis=0, dtype=np.int32)
    return num.astype(np.float64)


def _y_group_terms(y: FloatArray, missing: BoolArray) -> tuple[FloatArray, FloatArray]:
    """Per column, from the present rows counted per tie group of ``y``: the pairs untied in ``y`` among
    the present rows, and ``sum over missing m, present p of sign(y_m - y_p)`` (the present rows in lower
    groups minus those in higher groups, summed over the missing rows)."""
    order = np.argsort(y, kind="stable")
    ys = y[order]
    new_group = np.append(True, ys[1:] != ys[:-1])
    group = np.cumsum(new_group) - 1
    per_group = np.add.reduceat((~missing[order]).astype(np.float64), np.flatnonzero(new_group), axis=0)
    count = per_group.sum(axis=0)
    below = np.cumsum(per_group, axis=0) - per_group
    lower_minus_higher = 2.0 * below + per_group - count  # below - (count - below - per_group)
    towards_missing = np.einsum("mj,mj->j", missing[order], lower_minus_higher[group])
    untied = (count * (count - 1) - (per_group * (per_group - 1)).sum(axis=0)) / 2.0
    return untied, towards_missing


def kendall_with_vector(X: FloatArray, y: FloatArray) -> FloatArray:
    """Kendall tau-b of each column of ``X`` (n, k; finite or NaN) with ``y`` (n,), pairwise-complete.

    Rows where ``y`` is missing are dropped. Up to ``GATHER_PAIRS`` pair-column elements the numerator
    ``sum_p s_p t_p`` over the row pairs ``p`` (``s``, ``t`` the signs of the differences in ``X`` and
    ``y``) comes from the signs of all row pairs at once (:func:`_kendall_gathered`). Above, it is summed
    one row at a time on int32 dense ranks, a missing cell ranked 0 (:func:`_sign_sum_by_row`): a pair of a
    missing cell ``m`` and a present one ``p`` then added ``-t_mp`` (two missing cells: 0), so ``sum over
    the missing m of sum over the present p of t_mp`` is added back, counted per tie group of ``y``
    (:func:`_y_group_terms`). The untied pairs of ``X`` come from sorting, those of ``y`` from its tie
    groups. Every count is an integer, exact in float64. Long columns, or few columns of a few hundred
    rows, use scipy's sort-based algorithm (``VECTOR_LONG_COLUMNS``, ``SORT_PAIRS_PER_COLUMN``). No BLAS
    call here is large enough to be threaded.
    """
    y_present = ~np.isnan(y)
    if not y_present.all():
        X, y = X[y_present], y[y_present]
    n, k = X.shape
    if n > VECTOR_LONG_COLUMNS or n * n > SORT_PAIRS_PER_COLUMN * k:
        return _kendall_scipy(X, np.broadcast_to(y[:, None], X.shape))
    missing = np.isnan(X)
    has_nan = bool(missing.any())
    if n * (n - 1) // 2 * k <= GATHER_PAIRS:
        num, ty = _kendall_gathered(X, y, missing if has_nan else None)
        tied = tied_pairs(X)
    else:
        R, tied = dense_ranks(X)
        num = _sign_sum_by_row(R, y)
        if has_nan:
            ty, towards_missing = _y_group_terms(y, missing)
            num += towards_missing
        else:
            ty = np.full(k, n * (n - 1) / 2.0 - tied_pairs(y[:, None])[0])
    count = (~missing).sum(axis=0).astype(np.float64) if has_nan else np.full(k, float(n))
    tx = count * (count - 1) / 2.0 - tied
    undefined = (tx == 0) | (ty == 0)
    return np.clip(_ratio(num, np.sqrt(tx * ty), undefined), -1.0, 1.0)


# --- one vector against many columns (corr_with_vector) -------------------------------------------------
#
# ``A`` (n, k) may hold NaN (no inf: validated), ``v`` (n,) is finite. Each kernel reads ``A`` a few times
# with matrix-vector products instead of building a broadcast copy of ``v``; the columns where its shortcut
# could cost accuracy, or where a side may be constant, are recomputed with the exact two-pass kernels above
# (exact constancy check included), so the result is that of the paired kernels to rounding (~1e-15).

#: A column with all values equal to ``c`` keeps, after subtracting its computed mean ``m``, only the rounding
#: error of ``m`` (|c - m| <= n eps |c| / 2 for any summation order), so its sum of squares is at most
#: n^3 eps^2 m^2 / 4; a column at or under ``CONST_SS * n**3 * m**2`` may be constant and is checked exactly.
CONST_SS = 16.0 * np.finfo(np.float64).eps ** 2
#: With NaN, y's sum of squares over a column's rows comes as ``sum(u^2) - sum(u)^2 / count``
#: (u = y - mean y); a column where that cancels by more than this factor (y nearly or exactly constant
#: there) is recomputed two-pass.
_MAX_CANCEL = 16.0


def _y_moments(M: FloatArray, v: FloatArray) -> tuple[FloatArray, FloatArray, FloatArray, BoolArray]:
    """Per column of the 0/1 mask ``M``: count, sum of u = v - mean(v), SS of v, and the columns to redo."""
    u = v - v.mean()
    count, su, suu = np.stack([np.ones_like(u), u, u * u]) @ M
    with np.errstate(divide="ignore", invalid="ignore"):
        ss = suu - su * (su / count)
    redo = (count < 2) | ~(ss * _MAX_CANCEL > suu)
    return count, su, ss, redo


def pearson_with_vector_complete(A: FloatArray, v: FloatArray, strict: bool) -> FloatArray | None:
    """Pearson r of each column of a NaN-free ``A`` (n >= 2 rows) with ``v``, two-pass.

    With ``strict``, ``A`` is unvalidated: ``None`` when some column's sum of squares is not finite (a NaN or
    an infinite value in it, or an overflow), for the caller to validate and take the NaN path.
    """
    n, k = A.shape
    m = (np.ones(n) @ A) / n
    with np.errstate(invalid="ignore", over="ignore"):  # inf - inf, when X holds inf: rejected just below
        D = A - m
        ss = np.einsum("ij,ij->j", D, D)
    if strict and not np.isfinite(ss).all():
        return None
    if not v.max() > v.min():
        return np.full(k, np.nan)
    w = v - v.mean()
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        r = (w @ D) / np.sqrt(ss * (w @ w))
        maybe_constant = np.flatnonzero(ss <= CONST_SS * float(n) ** 3 * (m * m))
    if maybe_constant.size:
        cols = maybe_constant
        r[cols] = pearson_paired(A[:, cols], np.broadcast_to(v[:, None], (n, cols.size)))
    r[~np.isfinite(r)] = np.nan
    return np.clip(r, -1.0, 1.0)


def r2_with_vector_complete(A: FloatArray, v: FloatArray, strict: bool) -> FloatArray | None:
    """R² of each column of a NaN-free ``A`` (n >= 2 rows) as a prediction of the truth ``v``.

    ``strict`` as in :func:`pearson_with_vector_complete`.
    """
    with np.errstate(invalid="ignore", over="ignore"):
        R = A - v[:, None]
        ss_res = np.einsum("ij,ij->j", R, R)
    if strict and not np.isfinite(ss_res).all():
        return None
    if not v.max() > v.min():
        return np.full(A.shape[1], np.nan)
    dv = v - v.mean()
    return 1.0 - ss_res / float(dv @ dv)


def pearson_with_vector(A: FloatArray, v: FloatArray) -> FloatArray:
    """Pearson r of each column of ``A`` (NaN = missing) with ``v`` over the column's present rows."""
    n, k = A.shape
    mask = ~np.isnan(A)
    M = mask.astype(np.float64)
    count, su, ssy, redo = _y_moments(M, v)
    ones = np.ones(n)
    with np.errstate(divide="ignore", invalid="ignore"):
        mx = (ones @ np.where(mask, A, 0.0)) / count
    D = np.where(mask, A - mx, 0.0)
    sd, sdu = np.stack([ones, v - v.mean()]) @ D
    ssx = np.einsum("ij,ij->j", D, D)
    with np.errstate(divide="ignore", invalid="ignore"):
        sxy = sdu - (su / count) * sd  # sum over the rows of (x - mean x)(y - mean y), y's mean per column
        r = sxy / np.sqrt(ssx * ssy)
    redo |= ssx <= CONST_SS * count**3 * (mx * mx)
    cols = np.flatnonzero(redo)
    if cols.size:
        r[cols] = pearson_paired(A[:, cols], np.broadcast_to(v[:, None], (n, cols.size)))
    r[~np.isfinite(r)] = np.nan
    return np.clip(r, -1.0, 1.0)


def r2_with_vector(A: FloatArray, v: FloatArray) -> FloatArray:
    """R² of each column of ``A`` (NaN = missing) as a prediction of ``v``, over the column's present rows."""
    n, k = A.shape
    mask = ~np.isnan(A)
    _, _, ss_tot, redo = _y_moments(mask.astype(np.float64), v)
    R = np.where(mask, A - v[:, None], 0.0)
    with np.errstate(divide="ignore", invalid="ignore"):
        out = 1.0 - np.einsum("ij,ij->j", R, R) / ss_tot
    cols = np.flatnonzero(redo)
    if cols.size:
        out[cols] = r2_paired(np.broadcast_to(v[:, None], (n, cols.size)), A[:, cols])
    out[~np.isfinite(out)] = np.nan
    return out


def spearman_with_vector(A: FloatArray, v: FloatArray) -> FloatArray:
    """Spearman rho of each column of ``A`` (NaN = missing) with ``v``, ranks over the column's present rows.

    ``A``'s columns are ranked once (one argsort each); ``v`` is sorted once, and its ranks among a column's
    present rows come from counting those rows per tie group of ``v`` (rank = rows in lower groups + (rows
    in the group + 1) / 2), so no per-column sort of ``v``. Average ranks over c rows are half-integers with
    mean exactly (c + 1) / 2: the centred sums are exact, and a side is constant exactly when its sum of
    squares is 0.
    """
    AT = np.ascontiguousarray(A.T)  # (k, n): one column per row
    present = ~np.isnan(AT)
    rx = rank_last_axis(AT)
    order = np.argsort(v, kind="stable")
    vs = v[order]
    new_group = np.ones(vs.size, dtype=bool)
    new_group[1:] = vs[1:] != vs[:-1]
    per_group = np.add.reduceat(present[:, order].astype(np.float64), np.flatnonzero(new_group), axis=1)
    group_rank = np.cumsum(per_group, axis=1) - (per_group - 1.0) / 2.0  # rows up to the group - (c - 1) / 2
    ry = np.empty_like(rx)
    ry[:, order] = group_rank[:, np.cumsum(new_group) - 1]
    count = per_group.sum(axis=1)
    centre = ((count + 1.0) / 2.0)[:, None]
    dx = np.where(present, rx - centre, 0.0)
    dy = np.where(present, ry - centre, 0.0)
    ssx = np.einsum("ij,ij->i", dx, dx)
    ssy = np.einsum("ij,ij->i", dy, dy)
    undefined = (count < 2) | (ssx == 0) | (ssy == 0)
    return np.clip(_ratio(np.einsum("ij,ij->i", dx, dy), np.sqrt(ssx * ssy), undefined), -1.0, 1.0)
