"""Bootstrap resampling as index and weight matrices, so that B replicates are one matrix product.

With ``W = bootstrap_weights(n, B, seed)`` (B, n) the B replicate means of the rows of ``X`` (n, ...) are
``W @ X / n``; ``W`` holds the counts of ``bootstrap_indices(n, B, seed)`` row by row, so the index and the
weight form of the same seed describe the same resamples.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike, NDArray

from benchsift._params import validate_params
from benchsift.stats._checks import COUNT, OPEN_UNIT, as_float_array, move_axis
from benchsift.stats._random import SeedLike, check_random_state

__all__ = ["bootstrap_indices", "bootstrap_weights", "percentile_ci"]


@validate_params({"n": [COUNT], "n_boot": [COUNT]})
def bootstrap_indices(n: int, n_boot: int, random_state: SeedLike = None) -> NDArray[np.intp]:
    """(n_boot, n) row indices drawn uniformly with replacement; row ``b`` is the ``b``-th resample.

    Memory is ``8 * n_boot * n`` bytes: draw in several calls with one generator for very large sizes.
    """
    rng = check_random_state(random_state)
    return rng.integers(0, n, size=(int(n_boot), int(n)), dtype=np.intp)


def bootstrap_weights(n: int, n_boot: int, random_state: SeedLike = None) -> NDArray[np.float64]:
    """(n_boot, n) resampling counts: ``W[b, i]`` = times row ``i`` is drawn in resample ``b``.

    Each row is a Multinomial(n, 1/n) draw summing to ``n``; it is the per-row count of
    ``bootstrap_indices(n, n_boot, random_state)`` (same seed, same resamples). Replicate means of the
    rows of ``X`` are ``W @ X / n``.
    """
    idx = bootstrap_indices(n, n_boot, random_state)
    flat = idx + (np.arange(idx.shape[0], dtype=np.intp) * n)[:, None]
    counts = np.bincount(flat.reshape(-1), minlength=idx.size)
    return counts.reshape(idx.shape).astype(np.float64)


@validate_params({"level": [OPEN_UNIT]})
def percentile_ci(samples: ArrayLike, level: float = 0.95, axis: int = 0) -> NDArray[np.float64]:
    r"""Percentile bootstrap confidence interval along ``axis`` (the replicate axis).

    Returns an array of shape ``(2, ...)``: ``[lower, upper]`` = the :math:`(1-\text{level})/2` and
    :math:`(1+\text{level})/2` quantiles (linear interpolation, numpy's default) of the replicates, so
    ``lo, hi = percentile_ci(s)`` works. Undefined (NaN) replicates, e.g. a correlation on a resample
    where one side is constant, are left out; a slice with no defined replicate gives NaN.
    """
    S = move_axis(as_float_array(samples, "samples", min_ndim=1), axis, 0)
    q = np.array([(1.0 - level) / 2.0, (1.0 + level) / 2.0])
    if S.shape[0] == 0:
        return np.full((2, *S.shape[1:]), np.nan)
    if not np.isnan(S).any():
        return np.quantile(S, q, axis=0)
    # NaN-omitting quantile without warnings: sort (NaN last), interpolate within each slice's n_valid.
    n_valid = (~np.isnan(S)).sum(axis=0)
    srt = np.sort(S, axis=0)
    pos = q.reshape((2,) + (1,) * (S.ndim - 1)) * np.maximum(n_valid - 1, 0)
    lo_i = np.floor(pos).astype(np.intp)
    hi_i = np.minimum(lo_i + 1, np.maximum(n_valid - 1, 0))
    frac = pos - lo_i
    lo_v = np.take_along_axis(srt, lo_i, axis=0)
    hi_v = np.take_along_axis(srt, hi_i, axis=0)
    with np.errstate(invalid="ignore"):
        out = lo_v + frac * (hi_v - lo_v)
    return np.where(n_valid == 0, np.nan, out)
