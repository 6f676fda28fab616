r"""Paired bootstrap means of many series at once, streamed in blocks of replicates.

Every series ``k`` (a model's scores, an axis, a score difference) is resampled over the same items: in
replicate ``b`` item ``i`` carries the count ``W[b, i]`` (how often it is drawn), and the replicate mean
is the ratio of weighted sums

.. math::

   \bar x_k^{(b)} = \frac{\sum_i W_{bi} \, x_{ki}}{\sum_i W_{bi} \, d_{ki}},

with ``d`` the denominators (by default 1 where ``x`` is present, 0 where it is NaN, so a missing item
stays out of that series' mean; Efron & Tibshirani 1993, Sec. 6.2, in the weight form of Davison &
Hinkley 1997, Sec. 2.4, "resampling weights"). All replicates of all series are the matrix product
``W @ [X; D].T``; the resamples are the same multiset for every series, so differences of two series are
paired.

Speed and memory, what this adds to the one-line product:

* the count matrix is drawn and used in blocks of replicates (``block`` rows at a time, memory
  ``O(block x n)`` instead of ``O(B x n)``); the random stream is the one :func:`bootstrap_weights`,
  :func:`cluster_bootstrap_weights` and ``Generator.multinomial`` consume in one call, so the replicates
  are the same bytes as those functions' matrices for the same seed (numpy's integer and multinomial
  streams do not depend on how the draws are split into calls);
* repeated denominator (and numerator) rows are multiplied once (``[X; D]`` is reduced to its distinct
  rows, found by a random-projection hash and verified exactly);
* when every value of ``X`` and ``D`` is a multiple of ``1 / s`` for one integer ``s <= 1024`` (0/1
  scores: ``s = 1``; halves, thirds, partial credit out of 6: 2, 3, 6), the sums are taken in units of
  ``1 / s``: integers, exact in any summation order, and the mean is their ratio, rounded once. So the
  result does not depend on the BLAS, its threads or the block size (same seed, same bytes on any
  machine). Below ``2^24`` units per sum the product runs in float32, which holds such integers exactly,
  at about twice the speed of float64; above, or for other values, in float64 (where only the
  non-rational case is subject to summation-order rounding).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from benchsift.errors import InputError
from benchsift.stats._random import SeedLike, check_random_state
from benchsift.stats.bootstrap import _check_sizes
from benchsift.stats.cluster import cluster_codes

__all__ = ["bootstrap_weight_blocks", "paired_bootstrap_means"]

FloatArray = NDArray[np.float64]

# One block of counts is at most this large: big enough that each product is one large BLAS call (many
# small ones lose to thread wake-ups, badly on a loaded machine), small next to a (B, n) float64 matrix.
_BLOCK_BYTES = 32 * 1024 * 1024
_MAX_BLOCK = 2048
_DRAW_BYTES = 4 * 1024 * 1024  # integer draws and their counts are made this many bytes at a time
_EXACT32 = float(2**24)  # float32 holds every integer below this exactly


def _block_rows(n: int, itemsize: int) -> int:
    return int(max(1, min(_MAX_BLOCK, _BLOCK_BYTES // (itemsize * max(n, 1)))))


def bootstrap_weight_blocks(
    n: int,
    n_boot: int,
    random_state: SeedLike = None,
    *,
    clusters: ArrayLike | None = None,
    n_draw: int | None = None,
    block: int | None = None,
) -> Iterator[NDArray[np.float64]]:
    """The (n_boot, n) resampling counts in consecutive row blocks of at most ``block`` replicates.

    Without ``clusters`` and ``n_draw`` the blocks stacked are ``bootstrap_weights(n, n_boot,
    random_state)``; with ``clusters`` (one integer label per item) they are
    ``cluster_bootstrap_weights(clusters, n_boot, random_state)``. ``n_draw`` draws that many units (items,
    or clusters when given) per replicate, ``Generator.multinomial(n_draw, 1 / units, size=n_boot)``
    (spread to the items of each cluster). Same seed, same bytes, whatever ``block`` is.
    """
    return _count_blocks(n, n_boot, random_state, clusters, n_draw, block, np.float64, reuse=False)


def _count_blocks(
    n: int,
    n_boot: int,
    random_state: SeedLike,
    clusters: ArrayLike | None,
    n_draw: int | None,
    block: int | None,
    dtype: type[np.floating[Any]],
    reuse: bool,
) -> Iterator[NDArray[Any]]:
    """Blocks of counts; with ``reuse`` every block is written into one buffer (the caller must be done
    with a block before it asks for the next), which saves the page faults of a fresh block."""
    codes: NDArray[np.intp] | None = None
    units = int(n)
    if clusters is not None:
        codes, units = cluster_codes(clusters)
        if codes.size != n:
            raise InputError(f"clusters: {codes.size} item labels for {n} items")
    _check_sizes(units, n_boot)
    if n_draw is not None and (isinstance(n_draw, bool) or int(n_draw) < 1):
        raise InputError(f"n_draw: expected an int >= 1, got {n_draw!r}")
    rng = check_random_state(random_state)
    itemsize = np.dtype(dtype).itemsize
    rows = _block_rows(n, itemsize) if block is None else max(1, int(block))
    sub = max(1, _DRAW_BYTES // (8 * units))  # rows of integer draws at a time: bounds the temporaries
    draw = 0 if n_draw is None else int(n_draw)
    p = None if n_draw is None else np.full(units, 1.0 / units)
    buffer = np.empty((min(rows, int(n_boot)), int(n)), dtype=dtype) if reuse else None
    for start in range(0, int(n_boot), rows):
        b = min(rows, int(n_boot) - start)
        W = np.empty((b, int(n)), dtype=dtype) if buffer is None else buffer[:b]
        for s0 in range(0, b, sub):
            r = min(sub, b - s0)
            if p is None:
                idx = rng.integers(0, units, size=(r, units), dtype=np.intp)
                idx += (np.arange(r, dtype=np.intp) * units)[:, None]
                counts = np.bincount(idx.reshape(-1), minlength=r * units).reshape(r, units)
            else:
                counts = rng.multinomial(draw, p, size=r)
            W[s0 : s0 + r] = counts if codes is None else counts[:, codes]
        yield W


def _distinct_rows(X: FloatArray) -> tuple[FloatArray, NDArray[np.intp]]:
    """Distinct rows of ``X`` and the index map back (``X == U[inv]``), by a random-projection hash that is
    verified exactly (falls back to all rows if two distinct rows ever collide)."""
    h = X @ np.random.default_rng(0).random(X.shape[1])
    _, first, inv = np.unique(h, return_index=True, return_inverse=True)
    inv = inv.reshape(-1)
    if first.size == X.shape[0]:
        return X, np.arange(X.shape[0])
    rep = first[inv]  # the first row with the same hash
    dup = np.flatnonzero(rep != np.arange(X.shape[0]))
    if np.array_equal(X[dup], X[rep[dup]]):
        return X[first], inv
    return X, np.arange(X.shape[0])


def _integer_scale(X: FloatArray) -> int | None:
    """The smallest ``s <= 1024`` such that every value of ``X`` is the float64 nearest to an integer
    multiple of ``1 / s`` (0/1 scores: 1; halves: 2; thirds: 3 ...) below ``2^24 / s``, or None (then
    float64 sums)."""
    if not np.isfinite(X).all():
        return None
    top = float(np.abs(X).max(initial=0.0))
    frac = X[np.rint(X) != X]  # integers are multiples of 1 / s for every s
    values = np.unique(frac) if frac.size else frac
    if values.size > 4096:
        return None
    for s in range(1, 1025):
        if top * s >= _EXACT32:
            return None
        if np.array_equal(np.round(values * s) / s, values):
            return s
    return None


def paired_bootstrap_means(
    X: ArrayLike,
    n_boot: int = 2000,
    random_state: SeedLike = None,
    *,
    denominators: ArrayLike | None = None,
    weights: ArrayLike | None = None,
    clusters: ArrayLike | None = None,
    n_draw: int | None = None,
    block: int | None = None,
    progress: Callable[[int, int], None] | None = None,
    return_sizes: bool = False,
) -> Any:
    """(B, K) paired bootstrap means of the K rows of ``X`` (K, n) over its n items (module docstring).

    Parameters
    ----------
    X
        (K, n) values, one series per row; NaN is a missing value, left out of that row's mean (only
        without ``denominators``).
    n_boot, random_state
        Replicates to draw, and their seed (:func:`check_random_state`); ignored with ``weights``.
    denominators
        (K, n) denominators ``d`` of ratio means ``sum W x / sum W d`` (then ``X`` must have no NaN).
    weights
        (B, n) given resampling counts (e.g. the matrix shared with another test); otherwise drawn by
        :func:`bootstrap_weight_blocks` with ``clusters`` and ``n_draw``.
    block
        Replicates per block (default: as many as fit 16 MB of counts, at most 256).
    progress
        Called as ``progress(done, total)`` after each block.
    return_sizes
        Also return the (B,) replicate sizes ``W.sum(axis=1)`` (items drawn; varies with clusters).

    Returns the (B, K) means, or ``(means, sizes)`` with ``return_sizes``. A replicate whose denominator
    is 0 (no drawn item present) gives NaN.
    """
    V = np.asarray(X, dtype=np.float64)
    if V.ndim != 2:
        raise InputError(f"X: expected a (K, n) matrix, got shape {V.shape}")
    K, n = V.shape
    if denominators is None:
        present = ~np.isnan(V)
        num = np.where(present, V, 0.0)
        den = present.astype(np.float64)
    else:
        den = np.asarray(denominators, dtype=np.float64)
        if den.shape != V.shape:
            raise InputError(f"denominators: expected shape {V.shape}, got {den.shape}")
        if np.isnan(V).any() or np.isnan(den).any():
            raise InputError("X / denominators: NaN with explicit denominators; put missing into them")
        num = V
    U, inv = _distinct_rows(np.concatenate([num, den]))
    scale = _integer_scale(U)
    if scale is not None:  # integer sums in units of 1 / scale: exact in float32 below 2^24
        U = np.round(U * scale)
    bound = float(np.abs(U).max(initial=0.0))
    U64 = np.ascontiguousarray(U.T)
    U32 = None if scale is None else U64.astype(np.float32)

    if weights is not None:
        Wall = np.asarray(weights, dtype=np.float64)
        if Wall.ndim != 2 or Wall.shape[1] != n:
            raise InputError(f"weights: expected shape (n_boot, {n}), got {Wall.shape}")
        total = Wall.shape[0]
        rows = _block_rows(n, 8) if block is None else max(1, int(block))
        blocks: Iterator[FloatArray] = (Wall[s : s + rows] for s in range(0, total, rows))
        integral = bool(np.array_equal(Wall, np.round(Wall))) and bool((Wall >= 0).all())
    else:
        total = int(n_boot)
        blocks = _count_blocks(n, total, random_state, clusters, n_draw, block, np.float32, reuse=True)
        integral = True

    out = np.empty((total, K))
    sizes = np.empty(total)
    done = 0
    for W in blocks:
        rowsum = W.sum(axis=1, dtype=np.float64)
        sizes[done : done + W.shape[0]] = rowsum
        if U32 is not None and integral and float(np.abs(rowsum).max(initial=0.0)) * bound < _EXACT32:
            sums = (W.astype(np.float32, copy=False) @ U32).astype(np.float64)
        else:
            sums = W.astype(np.float64, copy=False) @ U64
        sums = sums[:, inv]
        wn, wd = sums[:, :K], sums[:, K:]
        blk = out[done : done + W.shape[0]]
        blk.fill(np.nan)
        np.divide(wn, wd, out=blk, where=wd > 0)
        done += W.shape[0]
        if progress is not None:
            progress(done, total)
    return (out, sizes) if return_sizes else out
