"""NaN-aware means of score matrices, vectorized and without warnings on empty slices."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

__all__ = ["group_nan_means", "group_nan_sums", "nan_mean", "random_subset_means", "ratio_or_nan"]


def nan_mean(a: np.ndarray, axis: int = -1) -> np.ndarray:
    """Mean of the finite entries of ``a`` along ``axis``; NaN where a slice has none (no warning)."""
    a = np.asarray(a, dtype=np.float64)
    ok = np.isfinite(a)
    n = ok.sum(axis=axis)
    out = np.full(n.shape, np.nan)
    np.divide(np.where(ok, a, 0.0).sum(axis=axis), n, out=out, where=n > 0)
    return out


def group_nan_means(X: np.ndarray, groups: Sequence[np.ndarray]) -> np.ndarray:
    """``(n_rows, n_groups)``: each row's :func:`nan_mean` over each group's columns (NaN for an empty
    group or a row with no finite entry in it)."""
    X = np.asarray(X, dtype=np.float64)
    out = np.full((X.shape[0], len(groups)), np.nan)
    for g, cols in enumerate(groups):
        if len(cols):
            out[:, g] = nan_mean(X[:, cols], axis=1)
    return out


def group_nan_sums(scores: np.ndarray, codes: np.ndarray, n_groups: int) -> tuple[np.ndarray, np.ndarray]:
    """NaN-aware per-row sums and counts over groups of columns: ``(n_rows, n_groups)`` each.

    ``codes[j]`` is column ``j``'s group in ``range(n_groups)``; the means are
    :func:`ratio_or_nan` ``(sums, counts)``.

    Items with a negative code belong to no group. Consecutive items of one group (the usual layout: a
    benchmark's items side by side) are first reduced as runs with ``np.add.reduceat`` along the items; the
    run totals are then added per group with a small 0/1 (runs x groups) matrix product.
    """
    n_models, n_items = scores.shape
    codes = np.where(codes >= 0, codes, n_groups).astype(np.int64)
    if n_items == 0:
        return np.zeros((n_models, n_groups)), np.zeros((n_models, n_groups))
    starts = np.concatenate([[0], np.flatnonzero(np.diff(codes)) + 1])
    obs = ~np.isnan(scores)
    run_sums = np.add.reduceat(np.where(obs, scores, 0.0), starts, axis=1)
    run_counts = np.add.reduceat(obs, starts, axis=1, dtype=np.float64)
    run_codes = codes[starts]
    from scipy import sparse  # imported on use: import benchsift.stats stays light

    member = sparse.csr_matrix(
        (np.ones(starts.size), (np.arange(starts.size), run_codes)), shape=(starts.size, n_groups + 1)
    )

    sums = np.asarray((member.T @ run_sums.T).T)[:, :n_groups]
    counts = np.asarray((member.T @ run_counts.T).T)[:, :n_groups]
    return np.ascontiguousarray(sums), np.ascontiguousarray(counts)


def ratio_or_nan(sums: np.ndarray, counts: np.ndarray) -> np.ndarray:
    """``sums / counts`` where ``counts > 0``, NaN elsewhere (broadcast): means from sums and counts
    (:func:`group_nan_sums`) without a warning on an empty group."""
    out = np.full(np.broadcast(sums, counts).shape, np.nan)
    np.divide(sums, counts, out=out, where=counts > 0)
    return out


def random_subset_means(
    scores: np.ndarray, groups: Sequence[np.ndarray], n: int, rng: np.random.Generator
) -> np.ndarray:
    """What a user would do instead of a chosen subset: one random subset of ``n`` items for every model,
    an equal share of it (at least one item) drawn from each benchmark, and each model's estimate the mean of
    its benchmark means over the subset's items it has a score on (the overall is the mean of benchmark
    means, so a subset drawn from the pool as a whole would weigh the benchmarks by their size). On a panel
    of one benchmark: ``n`` items drawn from the pool, their mean."""
    share = max(1, int(round(n / len(groups))))
    means = np.column_stack(
        [
            nan_mean(scores[:, np.sort(g[rng.choice(g.size, min(share, g.size), replace=False)])], axis=1)
            for g in groups
        ]
    )
    return nan_mean(means, axis=1)
