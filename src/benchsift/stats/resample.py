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
  non-rational case is subject to summation-order rounding: the same bytes on one machine whatever
  ``block`` is, since each replicate is multiplied at the same place of a product of the same shape,
  but not across CPU kinds or BLAS builds).
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from benchsift._params import Check, check_param, validate_params
from benchsift.errors import InputError
from benchsift.stats._checks import COUNT, check_shape
from benchsift.stats._random import SeedLike, check_random_state
from benchsift.stats.cluster import cluster_codes

__all__ = ["WeightStream", "bootstrap_weight_blocks", "paired_bootstrap_means"]

FloatArray = NDArray[np.float64]

# One block of counts is at most this large: big enough that each product is one large BLAS call (many
# small ones lose to thread wake-ups, badly on a loaded machine), small next to a (B, n) float64 matrix.
_BLOCK_BYTES = 32 * 1024 * 1024
_MAX_BLOCK = 2048
_DRAW_BYTES = 4 * 1024 * 1024  # integer draws and their counts are made this many bytes at a time
_EXACT32 = float(2**24)  # float32 holds every integer below this exactly


def _block_rows(n: int, itemsize: int) -> int:
    return int(max(1, min(_MAX_BLOCK, _BLOCK_BYTES // (itemsize * max(n, 1)))))


def _draw_counts(
    rng: np.random.Generator, rows: int, units: int, n_draw: int | None
) -> NDArray[np.intp] | NDArray[np.int64]:
    """``rows`` replicates of counts over ``units`` units: ``units`` draws with replacement (the integer
    stream of :func:`bootstrap_weights`) or ``Multinomial(n_draw, 1 / units)``."""
    if n_draw is None:
        idx = rng.integers(0, units, size=(rows, units), dtype=np.intp)
        idx += (np.arange(rows, dtype=np.intp) * units)[:, None]
        return np.bincount(idx.reshape(-1), minlength=rows * units).reshape(rows, units)
    return rng.multinomial(int(n_draw), np.full(units, 1.0 / units), size=rows)


class WeightStream:
    r"""The ``(n_boot, n)`` resampling counts of one bootstrap, drawn in row blocks and *replayable*: every
    call of :meth:`blocks` yields the same blocks, so a kernel can pass over the replicates several times
    holding one block of ``block x n`` counts, whatever ``n_boot x n`` is. This is the one place the
    paired bootstraps draw their weights (:func:`paired_bootstrap_means`, the PRISM-VLM bootstrap, and
    :func:`benchsift.stats.paired.paired_bootstrap_pairs` / :func:`benchsift.leaderboard.compare`).

    Stacked, the blocks are ``bootstrap_weights(n, n_boot, random_state)``; with ``clusters`` (one integer
    label per item) ``cluster_bootstrap_weights(clusters, n_boot, random_state)``; with ``strata`` too
    ``stratified_cluster_bootstrap_weights(clusters, strata, n_boot, random_state)``: the same bytes, for
    any ``block``. ``n_draw`` draws that many units (items, or clusters) per replicate,
    ``Generator.multinomial(n_draw, 1 / units, size=n_boot)`` (not with several strata).

    How the streams are kept: numpy's integer and multinomial streams do not depend on how a draw is
    split into calls, so one stratum is drawn block by block from the generator. Several strata are drawn
    one after another from one generator (stratum 0's ``n_boot`` replicates, then stratum 1's ...): the
    constructor runs through that draw once, discarding it, to record the generator's state where each
    stratum starts, and :meth:`blocks` then draws each block's rows of every stratum from its own copy.
    A generator passed in is advanced as the whole draw would advance it (for one stratum, on the first
    pass over :meth:`blocks`).
    """

    @validate_params({"n": [COUNT], "n_boot": [COUNT], "n_draw": [COUNT, None]})
    def __init__(
        self,
        n: int,
        n_boot: int,
        random_state: SeedLike = None,
        *,
        clusters: ArrayLike | None = None,
        strata: ArrayLike | None = None,
        n_draw: int | None = None,
        block: int | None = None,
    ) -> None:
        codes = np.arange(int(n), dtype=np.intp)
        if clusters is not None:
            codes, _ = cluster_codes(clusters)
            check_shape("clusters", codes.shape, (n,), what="one label per item, shape")
        if strata is None:
            groups = [np.arange(int(n), dtype=np.intp)]
        else:
            s_codes, n_s = cluster_codes(strata)
            check_shape("strata", s_codes.shape, codes.shape, what="one label each per row, as clusters:")
            groups = [np.flatnonzero(s_codes == k) for k in range(n_s)]
            if n_s > 1 and n_draw is not None:
                raise InputError("n_draw: a fixed number of draws per replicate is not defined with strata")
        self.shape = (int(n_boot), int(n))
        self.n_draw = None if n_draw is None else int(n_draw)
        self.block = None if block is None else max(1, int(block))
        self._groups: list[tuple[NDArray[np.intp], NDArray[np.intp], int]] = []
        for members in groups:
            sub, units = cluster_codes(codes[members])
            self._groups.append((members, sub, units))
        rng = check_random_state(random_state)
        self._starts: list[np.random.Generator] = []
        self._live: np.random.Generator | None = None
        if len(self._groups) == 1:
            self._starts.append(copy.deepcopy(rng))
            self._live = rng  # the first pass draws from it, advancing it as one draw would
        else:
            for _, _, units in self._groups:
                self._starts.append(copy.deepcopy(rng))
                step = max(1, _DRAW_BYTES // (8 * units))
                for s0 in range(0, int(n_boot), step):
                    _draw_counts(rng, min(step, int(n_boot) - s0), units, self.n_draw)
        self._cols: NDArray[np.intp] | None = None

    @property
    def size(self) -> int:
        """Entries of the matrix, ``n_boot x n`` (columns taken)."""
        return self.shape[0] * self.shape[1]

    def take(self, columns: ArrayLike) -> WeightStream:
        """The same replicates restricted to ``columns`` (distinct item indices), e.g. one benchmark's items;
        only the strata that hold a taken column are drawn."""
        cols = np.asarray(columns, dtype=np.intp).reshape(-1)
        n = self.shape[1]
        distinct = Check(
            lambda c: (not c.size or (c.min() >= 0 and c.max() < n)) and np.unique(c).size == c.size,
            f"distinct indices into the {n} items",
        )
        check_param("columns", cols, [distinct], quote=False)
        base = np.arange(self.shape[1]) if self._cols is None else self._cols
        out = copy.copy(self)
        out._cols = base[cols]
        out._live = None  # a view replays from the recorded states
        out.shape = (self.shape[0], int(cols.size))
        return out

    def toarray(self) -> FloatArray:
        """The whole ``(n_boot, n)`` matrix (columns taken)."""
        return np.concatenate(list(self.blocks()), axis=0)

    def _plan(
        self, gens: list[np.random.Generator]
    ) -> list[tuple[np.random.Generator, int, NDArray[np.intp] | None, NDArray[np.intp] | None]]:
        """Per stratum drawn: its generator, units, the destination columns (``None``: all, in order) and
        their unit codes (``None``: the counts are the block itself)."""
        n = self.shape[1]
        pos = None
        if self._cols is not None:
            pos = np.full(sum(m.size for m, _, _ in self._groups), -1, dtype=np.intp)
            pos[self._cols] = np.arange(self._cols.size)
        plan = []
        for gen, (members, sub, units) in zip(gens, self._groups, strict=True):
            dest, codes = members, sub
            if pos is not None:
                at = pos[members]
                keep = at >= 0
                if not keep.any():
                    continue  # a stratum with no taken column: its own generator, nothing to draw
                dest, codes = at[keep], sub[keep]
            every = dest.size == n and bool(np.array_equal(dest, np.arange(n)))  # all columns, in order
            whole = every and units == n and bool(np.array_equal(codes, dest))  # ... one unit each
            plan.append((gen, units, None if every else dest, None if whole else codes))
        return plan

    def blocks(
        self, dtype: type[np.floating[Any]] = np.float64, reuse: bool = False
    ) -> Iterator[NDArray[Any]]:
        """The matrix in consecutive row blocks (``block`` rows, default as many as fit 32 MB, at most
        2,048). With ``reuse`` every block is written into one buffer: the caller must be done with a block
        before it asks for the next."""
        B, n = self.shape
        rows = _block_rows(n, np.dtype(dtype).itemsize) if self.block is None else self.block
        if self._live is not None:
            gens, self._live = [self._live], None
        else:
            gens = [copy.deepcopy(g) for g in self._starts]
        plan = self._plan(gens)
        buffer = np.empty((min(rows, B), n), dtype=dtype) if reuse else None
        for start in range(0, B, rows):
            b = min(rows, B - start)
            W = np.empty((b, n), dtype=dtype) if buffer is None else buffer[:b]
            for gen, units, dest, codes in plan:
                step = max(1, _DRAW_BYTES // (8 * units))
                for s0 in range(0, b, step):
                    r = min(step, b - s0)
                    counts = _draw_counts(gen, r, units, self.n_draw).astype(dtype)
                    if codes is None:
                        W[s0 : s0 + r] = counts
                    elif dest is None:
                        np.take(counts, codes, axis=1, out=W[s0 : s0 + r])  # spread to the items
                    else:
                        W[s0 : s0 + r, dest] = np.take(counts, codes, axis=1)
            yield W


def bootstrap_weight_blocks(
    n: int,
    n_boot: int,
    random_state: SeedLike = None,
    *,
    clusters: ArrayLike | None = None,
    strata: ArrayLike | None = None,
    n_draw: int | None = None,
    block: int | None = None,
) -> Iterator[NDArray[np.float64]]:
    """The (n_boot, n) resampling counts in consecutive row blocks of at most ``block`` replicates: one
    pass over :class:`WeightStream` (its docstring says which matrices they stack to; same seed, same
    bytes, whatever ``block`` is)."""
    return WeightStream(
        n, n_boot, random_state, clusters=clusters, strata=strata, n_draw=n_draw, block=block
    ).blocks()


def _aligned_product(W: FloatArray, U: FloatArray, start: int, window: int) -> FloatArray:
    """``W @ U`` for the replicates ``start, start + 1, ...`` that ``W``'s rows hold, one BLAS call per
    window of replicates ``[j * window, (j + 1) * window)``, each a ``(window, n)`` matrix (zero rows pad
    a window the block only partly holds): every replicate is computed at the same place of a product of
    the same shape whatever the block size, so a BLAS that rounds its edge rows differently (OpenBLAS's
    AVX2 kernels do) gives the same bytes for any ``block``."""
    b = W.shape[0]
    out = np.empty((b, U.shape[1]))
    pad: FloatArray | None = None
    row = 0
    while row < b:
        at = (start + row) % window  # the replicate's place in its window
        take = min(window - at, b - row)
        if at == 0 and take == window:
            out[row : row + take] = W[row : row + take] @ U
        else:
            if pad is None:
                pad = np.zeros((window, W.shape[1]))
            pad.fill(0.0)
            pad[at : at + take] = W[row : row + take]
            out[row : row + take] = (pad @ U)[at : at + take]
        row += take
    return out


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
    weights: ArrayLike | WeightStream | None = None,
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
        (B, n) given resampling counts (e.g. the matrix shared with another test) or a
        :class:`WeightStream`; otherwise drawn by a :class:`WeightStream` with ``clusters`` and ``n_draw``.
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
    check_shape("X", V.shape, ("K", "n"), what="a matrix of shape")
    K, n = V.shape
    if denominators is None:
        present = ~np.isnan(V)
        num = np.where(present, V, 0.0)
        den = present.astype(np.float64)
    else:
        den = np.asarray(denominators, dtype=np.float64)
        check_shape("denominators", den.shape, V.shape)
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

    if weights is not None and not isinstance(weights, WeightStream):
        Wall = np.asarray(weights, dtype=np.float64)
        check_shape("weights", Wall.shape, ("n_boot", n))
        total = Wall.shape[0]
        rows = _block_rows(n, 8) if block is None else max(1, int(block))
        blocks: Iterator[FloatArray] = (Wall[s : s + rows] for s in range(0, total, rows))
        integral = bool(np.array_equal(Wall, np.round(Wall))) and bool((Wall >= 0).all())
    else:
        if isinstance(weights, WeightStream):
            check_shape("weights", weights.shape, ("n_boot", n))
            stream = weights
        else:
            stream = WeightStream(n, int(n_boot), random_state, clusters=clusters, n_draw=n_draw, block=block)
        total = stream.shape[0]
        blocks = stream.blocks(np.float32, reuse=True)
        integral = True

    out = np.empty((total, K))
    sizes = np.empty(total)
    window = _block_rows(n, 8)  # float64 products run on these replicate windows, whatever ``block`` is
    done = 0
    for W in blocks:
        rowsum = W.sum(axis=1, dtype=np.float64)
        sizes[done : done + W.shape[0]] = rowsum
        if U32 is not None and integral and float(np.abs(rowsum).max(initial=0.0)) * bound < _EXACT32:
            sums = (W.astype(np.float32, copy=False) @ U32).astype(np.float64)
        else:
            sums = _aligned_product(W.astype(np.float64, copy=False), U64, done, window)
        sums = sums[:, inv]
        wn, wd = sums[:, :K], sums[:, K:]
        blk = out[done : done + W.shape[0]]
        blk.fill(np.nan)
        np.divide(wn, wd, out=blk, where=wd > 0)
        done += W.shape[0]
        if progress is not None:
            progress(done, total)
    return (out, sizes) if return_sizes else out
