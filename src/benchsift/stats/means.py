"""NaN-aware means of score matrices, vectorized and without warnings on empty slices."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

__all__ = ["group_nan_means", "nan_mean"]


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
