"""Coverage cells and in-cell choice for VAW (PRIMEBench section 4.3, Appendix D.1, D.4).

Vectorized building blocks, each working on one benchmark's items:

* :func:`kmeans_cells` -- ``K_b`` coverage cells by seeded k-means in time near-linear in the items: a flat
  k-means (k-means++ seeding by D^2 sampling, then a capped number of Lloyd iterations, :func:`lloyd`) up to
  ``LEAF_CELLS`` cells, a recursive partition (hierarchical k-means) above; cells only need to group
  near-duplicates, not to reach the optimum;
* :func:`random_cells` -- a seeded random partition into ``K_b`` groups of near-equal size (D.4 ablation);
* :func:`cell_winners` -- the highest-scoring item of every cell, ties by a seeded random priority, with
  one ``np.lexsort`` (no loop over cells or items);
* :func:`greedy_dpp` -- greedy MAP of the DPP with kernel ``L = diag(q) G diag(q)``, ``G`` an RBF kernel whose
  bandwidth is the median squared distance of 2,000 random item pairs (D.4), by the incremental Cholesky
  algorithm of Chen, Zhang and Zhou (2018, "Fast greedy MAP inference for determinantal point process").
"""

from __future__ import annotations

import hashlib
import threading
from collections import OrderedDict

import numpy as np

from benchsift._threads import single_thread

__all__ = [
    "cell_winners",
    "clear_cell_memo",
    "greedy_dpp",
    "kmeans_cells",
    "kmeanspp_init",
    "median_sq_distance",
    "random_cells",
]


def kmeanspp_init(x: np.ndarray, k: int, rng: np.random.Generator) -> np.ndarray:
    """``k`` initial centres by D^2 sampling (k-means++, Arthur and Vassilvitskii 2007; one candidate a step).

    Each step is one vectorized pass over the items (``O(n d)``), so the whole init costs about one Lloyd
    iteration (run with one BLAS thread: a threaded matrix-vector product per step is slower, badly so on a
    loaded machine); scikit-learn's greedy variant tries ``2 + log k`` candidates per step, far slower for
    the thousands of cells Stage 2 draws. When every remaining point coincides with a centre, the next centre
    is drawn uniformly.

    Measured trade-off (``benchmarks/bench_cells.py``): on well-separated groups with ``k`` equal to their
    number, one candidate a step can put two centres in one group and none in another, and the objective is
    then up to 1.4-2.7x scikit-learn's (within 1 % once ``k`` exceeds the number of groups). The greedy
    variant (``2 + ln k`` candidates a step, tried for cells of at least 4 rows) fixed that but cost 1.67x
    the CPU time of paper-scale ``validate`` (172 s against 103 s) and left VAW's held-out fidelity where it
    was (3 splits, six retentions: every difference <= 0.0015 against split sds of 0.0003-0.0046), so it is
    not used: the cells only have to keep near-duplicates together.
    """
    with single_thread():
        return _kmeanspp(x, k, rng)


def _kmeanspp(x: np.ndarray, k: int, rng: np.random.Generator) -> np.ndarray:
    n = x.shape[0]
    x = np.ascontiguousarray(x, dtype=np.float32)
    sq = np.einsum("ij,ij->i", x, x)
    idx = np.empty(k, dtype=np.int64)
    idx[0] = rng.integers(n)
    d2 = np.empty(n, dtype=np.float32)
    _sq_dist_to(x, sq, int(idx[0]), d2)
    tmp = np.empty(n, dtype=np.float32)
    cum = np.empty(n, dtype=np.float64)
    u = rng.random(k)
    for t in range(1, k):
        np.cumsum(d2, dtype=np.float64, out=cum)
        total = cum[-1]
        if total > 0:
            j = min(int(np.searchsorted(cum, u[t] * total, side="right")), n - 1)
        else:
            j = int(rng.integers(n))
        idx[t] = j
        _sq_dist_to(x, sq, j, tmp)
        np.minimum(d2, tmp, out=d2)
    return x[idx]


def _sq_dist_to(x: np.ndarray, sq: np.ndarray, j: int, out: np.ndarray) -> None:
    """``out[i] = max(|x_i - x_j|^2, 0)`` in place (float32, no temporaries)."""
    np.dot(x, x[j], out=out)
    out *= -2.0
    out += sq
    out += sq[j]
    np.maximum(out, 0.0, out=out)


#: Cells per flat k-means run: a node of the partition with more cells is split first (see kmeans_cells).
LEAF_CELLS = 128
#: Children per split of the coverage-cell partition.
BRANCH = 16


# A few recent partitions, keyed by the exact embedding bytes, cell count, seed and iterations: the cells do
# not depend on the models, so the automatic selector's inner splits (each candidate keeps its seed on every
# inner split) and its final selection share one partition per budget instead of computing it each time.
_CELL_CACHE: OrderedDict[tuple[object, ...], np.ndarray] = OrderedDict()
_CELL_CACHE_SIZE = 16
_CELL_LOCK = threading.Lock()


def kmeans_cells(x: np.ndarray, n_cells: int, seed: int, max_iter: int = 10) -> np.ndarray:
    """Cell label (``0 .. n_cells-1``) of each row of ``x``: seeded k-means cells in time near-linear in rows.

    PRIMEBench section 4.3 / D.1 groups a benchmark's items into ``K_b`` coverage cells by k-means so that
    near-duplicates do not consume the share. A flat k-means costs ``O(n K_b d)`` per Lloyd iteration and
    ``K_b`` grows with ``n`` (``K_b ~ r n_b``), so it is quadratic in the items. Here the cells come from a
    recursive partition (hierarchical k-means):

    * ``n_cells <= LEAF_CELLS``: one flat k-means, k-means++ seeding (:func:`kmeanspp_init`, D^2 sampling)
      then at most ``max_iter`` Lloyd iterations (vectorised numpy, :func:`lloyd`);
    * otherwise the rows are split by a ``min(BRANCH, ceil(n_cells / LEAF_CELLS))``-means (same seeding and
      iterations), the cells are divided among the non-empty groups (one each, the rest in proportion to
      each group's sum of squared distances to its mean, never more cells than rows), and each group is
      partitioned the same way. Giving cells in proportion to the groups' k-means cost is the allocation that
      minimises the total cost in the high-resolution limit of quantisation theory (``K_g ~ SSE_g^(d/(d+2))``,
      Gersho 1979, for large ``d``); by row counts instead, spread-out groups would get too few cells.

    Each level costs ``O(n d BRANCH)`` per iteration and the leaves ``O(n d LEAF_CELLS)``, so the total is
    ``O(n d (BRANCH log(n_cells / LEAF_CELLS) + LEAF_CELLS))`` instead of ``O(n d n_cells)``. Nearby rows
    share a group at every level, so near-duplicates still land in one cell; the objective stays within a few
    per cent of a flat k-means on the same data (the tests compare it with scikit-learn's ``KMeans``).

    ``x`` must have no NaN rows. With ``n_cells >= n`` every item is its own cell. Exact duplicates can leave
    fewer distinct cells than ``n_cells`` (a group of identical rows is one cell); the caller completes the
    share from the remaining items. The same ``seed`` gives the same labels (one generator, nodes visited in a
    fixed order, one BLAS thread). The labels are memoised on the exact bytes of ``x`` with ``n_cells``,
    ``seed`` and ``max_iter`` (a few recent calls; a copy is returned).
    """
    n = x.shape[0]
    if n_cells >= n:
        return np.arange(n, dtype=np.int64)
    if n_cells <= 1:
        return np.zeros(n, dtype=np.int64)
    xf = np.ascontiguousarray(x, dtype=np.float32)
    digest = hashlib.blake2b(xf.tobytes(), digest_size=16).hexdigest()
    key = (xf.shape, digest, int(n_cells), int(seed), int(max_iter))
    with _CELL_LOCK:
        hit = _CELL_CACHE.get(key)
        if hit is not None:
            _CELL_CACHE.move_to_end(key)
            return hit.copy()
    labels = _kmeans_cells(xf, int(n_cells), int(seed), int(max_iter))
    with _CELL_LOCK:
        _CELL_CACHE[key] = labels.copy()
        while len(_CELL_CACHE) > _CELL_CACHE_SIZE:
            _CELL_CACHE.popitem(last=False)
    return labels


def clear_cell_memo() -> None:
    """Empty the memo of :func:`kmeans_cells` (benchmarks clear it so no timed run reuses another's cells)."""
    with _CELL_LOCK:
        _CELL_CACHE.clear()


def _kmeans_cells(xf: np.ndarray, n_cells: int, seed: int, max_iter: int) -> np.ndarray:
    """:func:`kmeans_cells` without the memo (``xf`` float32, C-contiguous, ``1 < n_cells < n``)."""
    n = xf.shape[0]
    rng = np.random.default_rng(seed)
    labels = np.empty(n, dtype=np.int64)
    with single_thread():
        next_label = 0
        stack = [(np.arange(n, dtype=np.int64), int(n_cells))]
        while stack:
            idx, k = stack.pop()
            if k <= 1 or _all_equal(xf, idx):
                labels[idx] = next_label
                next_label += 1
                continue
            if k >= idx.shape[0]:
                labels[idx] = next_label + np.arange(idx.shape[0])
                next_label += idx.shape[0]
                continue
            sub = xf[idx]
            if k <= LEAF_CELLS:
                lab = lloyd(sub, _kmeanspp(sub, k, rng), max_iter)
                _, lab = np.unique(lab, return_inverse=True)
                labels[idx] = next_label + lab
                next_label += int(lab.max()) + 1
                continue
            b = min(BRANCH, -(-k // LEAF_CELLS))
            groups = lloyd(sub, _kmeanspp(sub, b, rng), max_iter)
            sizes = np.bincount(groups, minlength=b)
            present = np.flatnonzero(sizes)
            if present.shape[0] < 2:  # no split found (e.g. equal means): one flat k-means on the node
                lab = lloyd(sub, _kmeanspp(sub, k, rng), max_iter)
                _, lab = np.unique(lab, return_inverse=True)
                labels[idx] = next_label + lab
                next_label += int(lab.max()) + 1
                continue
            shares = _group_shares(k, sizes[present], _group_sse(sub, groups, present))
            order = np.argsort(groups, kind="stable")
            bounds = np.concatenate([[0], np.cumsum(sizes)])
            # pushed in reverse so the groups are visited (and labelled) in group order
            for g, share in reversed(list(zip(present.tolist(), shares.tolist(), strict=True))):
                stack.append((idx[order[bounds[g] : bounds[g + 1]]], int(share)))
    return labels


def _group_sse(x: np.ndarray, groups: np.ndarray, present: np.ndarray) -> np.ndarray:
    """Sum of squared distances of the rows of each group (``present``, sorted ids) to the group's mean."""
    k = int(groups.max()) + 1
    counts = np.bincount(groups, minlength=k)
    onehot = np.zeros((k, x.shape[0]), dtype=np.float32)
    onehot[groups, np.arange(x.shape[0])] = 1.0
    means = (onehot @ x) / np.maximum(counts, 1)[:, None].astype(np.float32)
    diff = x - means[groups]
    return np.bincount(groups, weights=np.einsum("ij,ij->i", diff, diff), minlength=k)[present]


def _group_shares(k: int, sizes: np.ndarray, weights: np.ndarray | None = None) -> np.ndarray:
    """``k`` cells among groups of ``sizes`` rows: one cell each, the rest in proportion to ``weights``.

    Default weights: the sizes. A group never gets more cells than rows; what a full group cannot take goes
    to the others in proportion to their weights (groups of weight 0 are filled last, by free room). Each
    round hands out the whole parts of the quotas, then one cell to each of the largest fractional quotas.
    Needs ``len(sizes) <= k <= sum(sizes)``. A weight that is not a finite number >= 0 counts as 0 (with an
    infinite one every quota was NaN and the rounds never ended).
    """
    sizes = np.asarray(sizes, dtype=np.int64)
    w_all = sizes.astype(np.float64) if weights is None else np.asarray(weights, dtype=np.float64)
    w_all = np.where(np.isfinite(w_all) & (w_all > 0), w_all, 0.0)
    room = sizes - 1
    extra = np.zeros(sizes.shape[0], dtype=np.int64)
    left = int(k) - sizes.shape[0]
    while left > 0:
        free = room - extra
        w = np.where(free > 0, w_all, 0.0)
        if w.sum() <= 0:
            w = np.where(free > 0, free.astype(np.float64), 0.0)
        quota = left * w / w.sum()
        add = np.minimum(np.floor(quota).astype(np.int64), free)
        if add.sum() == 0:
            top = np.argsort(-(quota - np.floor(quota)) - (free > 0), kind="stable")[:left]
            add[top] = 1
        extra += add
        left -= int(add.sum())
    return 1 + extra


def _all_equal(x: np.ndarray, idx: np.ndarray) -> bool:
    """Whether the rows ``x[idx]`` all coincide (a group of duplicates is one cell)."""
    first = x[idx[0]]
    return bool(np.all(x[idx] == first))


def lloyd(x: np.ndarray, centres: np.ndarray, max_iter: int = 10, tol: float = 1e-4) -> np.ndarray:
    """Labels of at most ``max_iter`` Lloyd iterations from ``centres`` (vectorised numpy, float32).

    Each iteration: assignment by ``argmin_c (|c|^2 - 2 x.c)`` (one matrix product), centres as the means of
    their rows (one ``np.bincount``); an emptied centre moves to the row farthest from its centre (as
    scikit-learn's Lloyd does). Stops when the labels no longer change or the centres move by at most ``tol``
    times the mean per-feature variance in squared norm (scikit-learn's ``tol`` rule). The returned labels are
    the assignment to the final centres.
    """
    x = np.ascontiguousarray(x, dtype=np.float32)
    c = np.array(centres, dtype=np.float32)
    n = x.shape[0]
    k = c.shape[0]
    tol_abs = float(tol) * float(np.mean(np.var(x, axis=0)))
    rows = np.arange(n)
    onehot = np.zeros((k, n), dtype=np.float32)
    labels = _assign(x, c)
    for _ in range(max(1, int(max_iter))):
        counts = np.bincount(labels, minlength=k)
        onehot[labels, rows] = 1.0
        sums = onehot @ x
        onehot[labels, rows] = 0.0
        new = c.copy()
        full = counts > 0
        new[full] = sums[full] / counts[full, None].astype(np.float32)
        if not full.all():  # relocate empty centres to the rows farthest from their centre
            diff = x - c[labels]
            dist = np.einsum("ij,ij->i", diff, diff)
            far = np.argsort(-dist, kind="stable")[: int((~full).sum())]
            new[~full] = x[far]
        shift = float(np.sum((new - c) ** 2))
        c = new
        new_labels = _assign(x, c)
        if shift <= tol_abs or np.array_equal(new_labels, labels):
            return new_labels
        labels = new_labels
    return labels


def _assign(x: np.ndarray, c: np.ndarray) -> np.ndarray:
    """Nearest centre of each row: ``argmin_c (|c|^2 - 2 x.c)`` (``|x|^2`` is common to a row)."""
    dist = x @ (-2.0 * c.T).astype(np.float32)
    dist += np.einsum("ij,ij->i", c, c)[None, :]
    return np.argmin(dist, axis=1).astype(np.int64)


def random_cells(n: int, n_cells: int, rng: np.random.Generator) -> np.ndarray:
    """A seeded random partition of ``n`` items into ``min(n_cells, n)`` groups of near-equal size."""
    n_cells = max(1, min(int(n_cells), n))
    return (rng.permutation(n) % n_cells).astype(np.int64)


def cell_winners(labels: np.ndarray, score: np.ndarray, priority: np.ndarray) -> np.ndarray:
    """Index (into ``labels``) of the best item of each non-empty cell, in cell order.

    Best = highest ``score`` (NaN lowest), ties by the lowest ``priority`` (a seeded random permutation).
    One ``np.lexsort`` on (cell, -score, priority) and a first-of-group mask.
    """
    if labels.shape[0] == 0:
        return np.empty(0, dtype=np.int64)
    key = np.where(np.isnan(score), -np.inf, score)
    order = np.lexsort((priority, -key, labels))
    lab = labels[order]
    first = np.empty(lab.shape[0], dtype=bool)
    first[0] = True
    np.not_equal(lab[1:], lab[:-1], out=first[1:])
    return order[first].astype(np.int64)


def median_sq_distance(x: np.ndarray, rng: np.random.Generator, n_pairs: int = 2000) -> float:
    """Median squared Euclidean distance over ``n_pairs`` random pairs of distinct rows (PRIMEBench D.4).

    Falls back to 1.0 when every sampled pair coincides (no scale to read from the data).
    """
    n = x.shape[0]
    if n < 2:
        return 1.0
    i = rng.integers(0, n, size=n_pairs)
    j = (i + rng.integers(1, n, size=n_pairs)) % n  # j != i
    diff = x[i] - x[j]
    d2 = np.einsum("ij,ij->i", diff, diff)
    h = float(np.median(d2))
    if h <= 0:
        pos = d2[d2 > 0]
        h = float(np.median(pos)) if pos.size else 1.0
    return h


def greedy_dpp(
    x: np.ndarray,
    quality: np.ndarray,
    k: int,
    rng: np.random.Generator,
    bandwidth: float | None = None,
    eps: float = 1e-10,
) -> np.ndarray:
    """Greedy MAP of a DPP with ``L = diag(q) G diag(q)``, ``G_ij = exp(-||x_i - x_j||^2 / h)``.

    ``h`` is ``bandwidth`` or, by default, the median squared distance of 2,000 random pairs (PRIMEBench
    D.4). Incremental Cholesky (Chen et al. 2018, Algorithm 1): after choosing ``j``, each item's
    conditional gain ``d_i^2`` drops by ``e_i^2`` with ``e_i = (L_ji - <c_j, c_i>) / d_j``; every step is one
    vectorized pass over the items, ``O(n k)`` memory and ``O(n k^2 + n k d)`` time. Stops early when no item
    adds volume (``d_i^2 <= eps``: zero quality or a duplicate of a chosen item). Ties in the gain are broken
    by a seeded random order. Returns the chosen row indices in selection order.
    """
    n = x.shape[0]
    k = min(int(k), n)
    if k <= 0 or n == 0:
        return np.empty(0, dtype=np.int64)
    with single_thread():
        return _greedy_dpp(x, quality, k, rng, bandwidth, eps)


def _greedy_dpp(
    x: np.ndarray, quality: np.ndarray, k: int, rng: np.random.Generator, bandwidth: float | None, eps: float
) -> np.ndarray:
    n = x.shape[0]
    perm = rng.permutation(n)  # seeded tie-breaking: argmax takes the first maximum of the permuted order
    xp = np.asarray(x, dtype=np.float64)[perm]
    q = np.nan_to_num(np.asarray(quality, dtype=np.float64)[perm], nan=0.0)
    q = np.maximum(q, 0.0)
    h = median_sq_distance(xp, rng) if bandwidth is None else float(bandwidth)
    sq_norm = np.einsum("ij,ij->i", xp, xp)
    c = np.zeros((k, n))
    d2 = q * q  # L_ii = q_i^2 G_ii = q_i^2
    chosen = np.empty(k, dtype=np.int64)
    alive = np.ones(n, dtype=bool)
    n_chosen = 0
    for t in range(k):
        gain = np.where(alive, d2, -np.inf)
        j = int(np.argmax(gain))
        if not np.isfinite(gain[j]) or gain[j] <= eps:
            break
        chosen[t] = j
        n_chosen = t + 1
        alive[j] = False
        if t == k - 1:
            break
        dist2 = np.maximum(sq_norm + sq_norm[j] - 2.0 * (xp @ xp[j]), 0.0)
        l_j = q[j] * q * np.exp(-dist2 / h)
        e = (l_j - c[:t, j] @ c[:t]) / np.sqrt(d2[j])
        c[t] = e
        d2 = d2 - e * e
    return perm[chosen[:n_chosen]].astype(np.int64)
