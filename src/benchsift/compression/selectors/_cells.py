"""Coverage cells and in-cell choice for VAW (PRIMEBench section 4.3, Appendix D.1, D.4).

Vectorized building blocks, each working on one benchmark's items:

* :func:`kmeans_cells` -- ``K_b`` coverage cells by k-means (one seeded run: k-means++ seeding by D^2
  sampling, then a capped number of Lloyd iterations: cells only need to group near-duplicates, not to reach
  the optimum);
* :func:`random_cells` -- a seeded random partition into ``K_b`` groups of near-equal size (D.4 ablation);
* :func:`cell_winners` -- the highest-scoring item of every cell, ties by a seeded random priority, with
  one ``np.lexsort`` (no loop over cells or items);
* :func:`greedy_dpp` -- greedy MAP of the DPP with kernel ``L = diag(q) G diag(q)``, ``G`` an RBF kernel whose
  bandwidth is the median squared distance of 2,000 random item pairs (D.4), by the incremental Cholesky
  algorithm of Chen, Zhang and Zhou (2018, "Fast greedy MAP inference for determinantal point process").
"""

from __future__ import annotations

import warnings

import numpy as np
from sklearn.cluster import KMeans
from sklearn.exceptions import ConvergenceWarning

from benchsift._threads import single_thread

__all__ = [
    "cell_winners",
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


def kmeans_cells(x: np.ndarray, n_cells: int, seed: int, max_iter: int = 10) -> np.ndarray:
    """Cell label (``0 .. n_cells-1``) of each row of ``x`` by one seeded k-means run.

    k-means++ seeding (:func:`kmeanspp_init`) then at most ``max_iter`` Lloyd iterations (scikit-learn
    ``KMeans``, ``n_init=1``). ``x`` must have no NaN rows. With ``n_cells >= n`` every item is its own cell.
    Exact duplicates can leave some cells empty (fewer distinct points than cells); the caller completes the
    share from the remaining items, so the k-means warning about it is silenced here.
    """
    n = x.shape[0]
    if n_cells >= n:
        return np.arange(n, dtype=np.int64)
    if n_cells <= 1:
        return np.zeros(n, dtype=np.int64)
    xf = np.ascontiguousarray(x, dtype=np.float32)
    centres = kmeanspp_init(xf, n_cells, np.random.default_rng(seed))
    km = KMeans(
        n_clusters=n_cells,
        init=centres,
        n_init=1,
        max_iter=max_iter,
        tol=1e-4,
        random_state=seed,
        algorithm="lloyd",
    )
    with warnings.catch_warnings(), single_thread():
        warnings.simplefilter("ignore", ConvergenceWarning)
        labels = km.fit_predict(xf)
    return labels.astype(np.int64)


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
