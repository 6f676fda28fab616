"""Correlation matrices between the columns of a score matrix, pairwise-complete, by matrix products.

``corr_matrix(X, metric)[i, j]`` uses the rows where columns ``i`` and ``j`` are both present (as
``pandas.DataFrame.corr``, which it is checked against). Pearson and R² come from masked moment matrices
(``Z.T @ M`` etc.); Kendall from row-pair sign matrices, one block per row (``S.T @ S``); Spearman
ranks columns once when there is no NaN, and otherwise once per distinct pair of missingness patterns
(ranks over the pair's common rows), falling back to one column-wise pass per column when the patterns
are many.
"""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np
from numpy.typing import ArrayLike, NDArray

from benchsift._threads import single_thread
from benchsift.stats import _kernels as K
from benchsift.stats._checks import Metric, as_float_array, check_metric, reject_inf
from benchsift.stats.ranks import rank_last_axis

__all__ = ["corr_matrix"]

FloatArray = NDArray[np.float64]

#: Largest n for which integer sums of squared dense ranks (<= n**4) are exact in float64.
_EXACT_FLOAT_N = 9000
#: Row pairs per block of Kendall's sign products (measured flat from 256 to 2048 on 169 x 200, 400 x 100,
#: 100 x 800); far below 2**24, so the float32 sums of a block are exact.
_PAIR_BLOCK = 512
#: Above this many row pairs times columns, Kendall's signs come from dense ranks rather than the values
#: (measured crossover: about 6e4 without NaN, 3e5 to 1e6 with 5 % NaN; within 5 % of the faster at 2**17).
_RANK_PAIRS = 1 << 17


def corr_matrix(X: ArrayLike, metric: Metric | str = "srcc") -> FloatArray:
    """(k, k) matrix of ``metric`` between the columns of ``X`` (n, k), pairwise-complete.

    Symmetric for ``"srcc" | "plcc" | "kendall"`` with 1 on the diagonal of defined columns; for ``"r2"``
    entry ``[i, j]`` has column ``i`` as truth and column ``j`` as prediction (not symmetric). Undefined
    entries (fewer than two common rows, a constant side) are NaN.
    """
    name = check_metric(metric)
    A = as_float_array(X, "X", ndim=2, check_inf=False)
    n = A.shape[0]
    with single_thread():  # many small and medium products: one thread is faster (see benchsift._threads)
        if name == "plcc" and n >= 2:
            with np.errstate(over="ignore", invalid="ignore"):  # inf - inf, an overflow: told just below
                m = (np.ones(n) @ A) / n
            if np.isfinite(m).all():  # no NaN and no inf in A: either makes its column's mean non-finite
                return _complete_pearson_matrix(A, m)
        if not np.isfinite(A).all():  # one pass: no inf and no NaN
            reject_inf(A, "X")
        if name == "kendall":
            return _kendall_matrix(A)
        if name == "srcc":
            return _spearman_matrix(A)
        return _moment_matrix(A, r2=(name == "r2"))


def _constant_pairs(A: FloatArray, mask: NDArray[np.bool_]) -> NDArray[np.bool_]:
    """``[i, j]``: column ``i`` is constant on the rows where ``i`` and ``j`` are both present.

    Exact: with integer dense ranks ``d`` of each column, ``c * sum(d^2) - (sum d)^2`` over the common rows
    is a sum of squared integer differences, zero only for a constant column.
    """
    n, k = A.shape
    if mask.all():
        const = ~(A.max(axis=0) > A.min(axis=0)) if n else np.ones(k, dtype=bool)
        return np.broadcast_to(const[:, None], (k, k)).copy()
    D = K.dense_ranks(A)[0].astype(np.int64)  # 0 where missing (``mask`` is A's non-NaN cells)
    M = mask.astype(D.dtype)
    c: np.ndarray
    sd: np.ndarray
    sdd: np.ndarray
    if n > _EXACT_FLOAT_N:
        c, sd, sdd = M.T @ M, D.T @ M, (D * D).T @ M  # int64 products: exact
    else:
        Df, Mf = D.astype(np.float64), M.astype(np.float64)
        c, sd, sdd = Mf.T @ Mf, Df.T @ Mf, (Df * Df).T @ Mf
    return c * sdd - sd * sd == 0


def _moment_matrix(A: FloatArray, r2: bool) -> FloatArray:
    """Pearson (or R²) matrix from masked moment matrices; columns pre-centred to avoid cancellation."""
    n, k = A.shape
    mask = ~np.isnan(A)
    if not r2 and n >= 2 and mask.all():  # Spearman's ranks without NaN
        return _complete_pearson_matrix(A)
    M = mask.astype(np.float64)
    with np.errstate(invalid="ignore", divide="ignore"):
        col_mean = np.where(mask, A, 0.0).sum(axis=0) / M.sum(axis=0)
    col_mean = np.nan_to_num(col_mean)
    Z = np.where(mask, A - col_mean, 0.0)  # each column shifted by its own mean
    count = M.T @ M
    sx = Z.T @ M  # [i, j]: sum of column i over the rows common with j
    with np.errstate(invalid="ignore", divide="ignore"):
        ss = (Z * Z).T @ M - sx * sx / count  # [i, j]: SS of column i over the common rows
        undefined = (count < 2) | _constant_pairs(A, mask)
        if r2:
            # SS_res[i, j] = sum (x_i - x_j)^2 over common rows, from the shifted columns:
            # x_i - x_j = z_i - z_j + (m_i - m_j).
            shift = col_mean[:, None] - col_mean[None, :]
            zz = Z.T @ Z
            sq = (Z * Z).T @ M
            ss_res = sq + sq.T - 2.0 * zz + 2.0 * shift * (sx - sx.T) + count * shift**2
            out = 1.0 - ss_res / ss
            out[undefined | ~np.isfinite(out)] = np.nan
            return out
        cov = Z.T @ Z - sx * sx.T / count
        r = cov / np.sqrt(ss * ss.T)
    undefined = undefined | undefined.T
    r[undefined | ~np.isfinite(r)] = np.nan
    r = np.clip(r, -1.0, 1.0)
    diag = np.diag_indices(k)
    r[diag] = np.where(np.isnan(r[diag]), np.nan, 1.0)
    return r


def _complete_pearson_matrix(A: FloatArray, m: FloatArray | None = None) -> FloatArray:
    """Pearson matrix of a NaN-free ``A`` with n >= 2 rows: centred columns, one product (as ``np.corrcoef``).

    The columns are scaled to unit sum of squares before the product (``Zs.T @ Zs``: one pass over the
    (n, k) data instead of scaling the (k, k) product; with |entries| <= 1 it cannot overflow). When a sum
    of squares overflows, the product comes first and the scale after, as ``np.corrcoef`` (the overflowed
    entries NaN). Constancy stays exact: only a column whose sum of squares is small enough to be the
    rounding error of a constant column's mean (:data:`~benchsift.stats._kernels.CONST_SS`) is compared min
    against max. The matrix is exactly symmetric: numpy computes ``Zs.T @ Zs`` as one symmetric product
    (syrk, the lower triangle copied from the upper), and the scale ``outer(1 / sd, 1 / sd)`` is symmetric.
    ``m``: the column means, when the caller has them.
    """
    n, k = A.shape
    if m is None:
        m = (np.ones(n) @ A) / n
    Z = A - m
    with np.errstate(over="ignore", invalid="ignore"):
        ss = np.einsum("ij,ij->j", Z, Z)
    prescale = bool(np.isfinite(ss).all())
    if not prescale:
        r = Z.T @ Z
        ss = np.diag(r).copy()
    maybe = np.flatnonzero(ss <= K.CONST_SS * float(n) ** 3 * (m * m))
    bad = np.zeros(k, dtype=bool)
    if maybe.size:
        bad[maybe] = ~(A[:, maybe].max(axis=0) > A[:, maybe].min(axis=0))
    with np.errstate(divide="ignore", over="ignore", invalid="ignore"):
        inv = 1.0 / np.sqrt(ss)
        bad |= ~np.isfinite(inv)
        inv[bad] = 0.0
        if prescale:
            Z *= inv
            r = Z.T @ Z
        else:
            r *= np.outer(inv, inv)
    if not prescale and not np.isfinite(r).all():  # an overflow in the product
        r[~np.isfinite(r)] = np.nan
    if bad.any():
        r[bad] = np.nan
        r[:, bad] = np.nan
    np.clip(r, -1.0, 1.0, out=r)
    r[np.diag_indices(k)] = np.where(bad, np.nan, 1.0)
    return r


def _spearman_matrix(A: FloatArray) -> FloatArray:
    n, k = A.shape
    mask = ~np.isnan(A)
    if mask.all():
        return _moment_matrix(rank_last_axis(np.ascontiguousarray(A.T)).T, r2=False)
    patterns, which = np.unique(mask.T, axis=0, return_inverse=True)
    which = which.reshape(-1)
    n_pat = patterns.shape[0]
    out = np.full((k, k), np.nan)
    if n_pat * (n_pat + 1) // 2 <= max(k // 4, 8):
        for p in range(n_pat):
            for q in range(p, n_pat):
                rows = patterns[p] & patterns[q]
                cols = np.flatnonzero((which == p) | (which == q))
                sub = A[np.ix_(rows, cols)]
                ranks = rank_last_axis(np.ascontiguousarray(sub.T)).T
                block = _moment_matrix(ranks, r2=False)
                in_p = which[cols] == p
                in_q = which[cols] == q
                out[np.ix_(cols[in_p], cols[in_q])] = block[np.ix_(in_p, in_q)]
                out[np.ix_(cols[in_q], cols[in_p])] = block[np.ix_(in_q, in_p)]
        return out
    for i in range(k):  # many distinct patterns: one column against the later ones, on column i's rows
        rows = mask[:, i]
        if rows.sum() >= 2:
            out[i, i:] = K.spearman_with_vector(A[rows, i:], A[rows, i])
            out[i:, i] = out[i, i:]
    return out


def _pair_blocks(n: int, size: int) -> Iterator[tuple[NDArray[np.intp], NDArray[np.intp]]]:
    """The row pairs ``a < b`` of ``n`` rows in order, as index arrays of whole rows' pairs, about ``size``
    pairs a block (at least one row's): memory O(n + size) whatever ``n``, where all n(n-1)/2 pairs at
    once would take 16 bytes each (3.2 GB at n = 20,000)."""
    a = 0
    while a < n - 1:
        end, count = a + 1, n - 1 - a
        while end < n - 1 and count + (n - 1 - end) <= size:
            count += n - 1 - end
            end += 1
        rows = np.arange(a, end)
        ia = np.repeat(rows, n - 1 - rows)
        ib = np.concatenate([np.arange(r + 1, n) for r in range(a, end)])
        yield ia, ib
        a = end


def _kendall_matrix(A: FloatArray) -> FloatArray:
    """tau_b[i, j] = sum(s_i s_j) / sqrt(T[i, j] T[j, i]), ``T[i, j]`` = untied pairs of i complete in j.

    ``s_i`` are the row-pair signs of column ``i`` (0 where a row is missing), ``_PAIR_BLOCK`` row pairs at
    a time; each block adds ``S.T @ S`` (one float32 symmetric product, exact: its sums are integers below
    2**24) to the numerator. The signs come from comparing the values (NaN compares false: sign 0) up to
    ``_RANK_PAIRS`` pair-column elements, above from the columns' dense ranks (int16 while n < 2**15;
    ranking costs a sort but makes each block's signs several times cheaper). Without NaN ``T[i, j]`` is
    column ``i``'s untied pairs (from sorting); with NaN each block also adds ``|S|.T @ V``, ``V`` the pairs'
    presence (1 where both rows are there).
    """
    n, k = A.shape
    missing = np.isnan(A)
    has_nan = bool(missing.any())
    by_rank = n * (n - 1) // 2 * k > _RANK_PAIRS
    src: NDArray[np.float64] | NDArray[np.integer]
    if by_rank:
        ranks, tied = K.dense_ranks(A)
        src = ranks.astype(np.int16) if n < 2**15 else ranks
    else:
        src = A
        tied = np.zeros(k) if has_nan else K.tied_pairs(A)
    present = (~missing).astype(np.float32)
    num = np.zeros((k, k))
    ties = np.zeros((k, k))
    for ia, ib in _pair_blocks(n, _PAIR_BLOCK):
        a, b = src[ia], src[ib]
        S = np.sign(a - b).astype(np.float32) if by_rank else np.subtract(a > b, a < b, dtype=np.float32)
        if has_nan:
            V = present[ia] * present[ib]
            if by_rank:
                S *= V  # a missing cell has rank 0: a sign against it is not 0
            ties += np.abs(S).T @ V
        num += S.T @ S
    if not has_nan:
        ties[:] = (n * (n - 1) / 2.0 - tied)[:, None]
    with np.errstate(invalid="ignore", divide="ignore"):
        tau = num / np.sqrt(ties * ties.T)
    tau[(ties == 0) | (ties.T == 0) | ~np.isfinite(tau)] = np.nan
    tau = np.clip(tau, -1.0, 1.0)
    diag = np.diag_indices(k)
    tau[diag] = np.where(np.isnan(tau[diag]), np.nan, 1.0)
    return tau
