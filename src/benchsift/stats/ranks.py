"""Average ranks along an axis, NaN-aware and vectorized (argsort along the axis, no Python loop)."""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike, NDArray

from benchsift.errors import InputError
from benchsift.stats._checks import as_float_array

__all__ = ["rank_among", "rank_average"]


def rank_average(x: ArrayLike, axis: int = 0) -> NDArray[np.float64]:
    """Average ranks of ``x`` along ``axis`` (1 = smallest); tied values share the mean of their ranks.

    The ranks of the non-missing values of each slice are ``1 .. n_valid``; NaN stays NaN. This is
    ``scipy.stats.rankdata(method="average", nan_policy="omit")`` applied slice by slice, computed for all
    slices at once: one ``argsort`` along the axis, tie groups found from equal neighbours in the sorted
    order, and the rank of a group ``(first + last) / 2 + 1``.
    """
    a = as_float_array(x, "x")
    if a.ndim == 0:
        raise InputError("x: expected an array with at least one dimension, got a scalar")
    try:
        moved = np.moveaxis(a, axis, -1)
    except np.exceptions.AxisError as exc:
        raise InputError(f"axis: {exc}") from None
    ranks = rank_last_axis(np.ascontiguousarray(moved))
    return np.moveaxis(ranks, -1, axis)


def rank_last_axis(a: NDArray[np.float64]) -> NDArray[np.float64]:
    """Average ranks along the last axis of a float array (no validation; NaN stays NaN)."""
    n = a.shape[-1]
    if n == 0 or a.size == 0:
        return np.array(a, dtype=np.float64, copy=True)
    order = np.argsort(a, axis=-1)  # NaN sorts last
    s = np.take_along_axis(a, order, axis=-1)
    pos = np.arange(n)
    new_group = np.ones(s.shape, dtype=bool)
    new_group[..., 1:] = s[..., 1:] != s[..., :-1]  # NaN != NaN: every NaN is its own group
    first = np.maximum.accumulate(np.where(new_group, pos, 0), axis=-1)
    ends_group = np.ones(s.shape, dtype=bool)
    ends_group[..., :-1] = new_group[..., 1:]
    last = np.minimum.accumulate(np.where(ends_group, pos, n - 1)[..., ::-1], axis=-1)[..., ::-1]
    sorted_ranks = (first + last) / 2.0 + 1.0
    sorted_ranks[np.isnan(s)] = np.nan
    ranks = np.empty_like(sorted_ranks)
    np.put_along_axis(ranks, order, sorted_ranks, axis=-1)
    return ranks


def rank_among(reference: np.ndarray, values: np.ndarray) -> np.ndarray:
    """Rank of each value among ``reference``: ``1 + #(reference entries higher)``.

    ``reference`` is ``(n_ref, ...)`` and ``values`` ``(n, ...)`` (trailing axes, e.g. bootstrap replicates,
    are broadcast); a NaN reference entry never counts as higher, a NaN value gets a NaN rank.
    """
    reference = np.asarray(reference, dtype=np.float64)
    values = np.asarray(values, dtype=np.float64)
    higher = (reference[None, ...] > values[:, None, ...]).sum(axis=1)
    return np.where(np.isnan(values), np.nan, 1.0 + higher)
