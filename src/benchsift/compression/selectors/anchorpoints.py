"""AnchorPoints item selection (Vivek et al. 2024, "Anchor Points: Benchmarking Models with Much Fewer
Examples").

Each item is represented by its column of build-model scores; two items are close when the models' scores on
them are correlated. The pool is clustered by k-medoids on the correlation distance

.. math::

    d(i, j) = 1 - \\operatorname{corr}_m(x_{m,i}, x_{m,j}),

the ``K`` medoids are the anchor points, and a model's pool mean is estimated by the anchors' scores
weighted by their cluster sizes (Vivek et al., section 3):

.. math::

    \\hat s_m = \\frac{\\sum_c |C_c|\\, x_{m, a_c}}{\\sum_c |C_c|}.

Implementation. Columns are standardised over their valid build models and divided by ``sqrt(M)``, so
``z_i . z_j`` is the Pearson correlation of two complete columns; a missing cell enters as the column mean
(``z = 0``), which makes the distance a mean-imputed correlation when scores are missing. Because ``d`` is
linear in ``z_i``, the sum of distances from item ``i`` to the members of cluster ``C`` is
``|C| - z_i . sum_{j in C} z_j``, so the medoid update of every cluster is one matrix product. The k-medoids
algorithm is the alternate (Voronoi-iteration) scheme of Park and Jun (2009): assign every item to its nearest
medoid, move every medoid to the member with the least total distance to its cluster, until the medoids stop
changing; initialised by k-medoids++ (D^2 sampling on ``d``), seeded, best of ``n_init`` runs by total
distance.

Items whose column is constant over the build models (e.g. items every build model fails) or has no valid
score carry no correlation; they take no part in the clustering (so they cannot become anchors while
informative items remain) and join, for the weights only, the anchor whose build mean is closest to theirs.
"""

from __future__ import annotations

from numbers import Integral
from typing import ClassVar

import numpy as np
from scipy import sparse

from benchsift._params import ConstraintLike, Interval
from benchsift._threads import single_thread
from benchsift.compression.selectors.base import ItemSelector, SelectorInput
from benchsift.stats import check_random_state

__all__ = [
    "AnchorPointsSelector",
    "complete_anchors",
    "correlation_embedding",
    "kmedoids_correlation",
    "sorted_anchor_labels",
]


def correlation_embedding(scores: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``Z`` (n_models, n_items) with ``z_i . z_j`` the correlation of complete columns; and the item means.

    Column ``i`` is ``(x_i - mean_i) / (sd_i sqrt(M))`` over its valid models (ddof 0), 0 where missing, and
    all 0 when the column is constant or empty. The means are NaN for columns with no valid score.
    """
    x = np.asarray(scores, dtype=np.float64)
    m = x.shape[0]
    valid = ~np.isnan(x)
    cnt = valid.sum(axis=0)
    x0 = np.where(valid, x, 0.0)
    with np.errstate(invalid="ignore", divide="ignore"):
        mean = x0.sum(axis=0) / cnt
        dev = np.where(valid, x - mean, 0.0)
        sd = np.sqrt((dev * dev).sum(axis=0) / cnt)
        z = dev / (sd * np.sqrt(m))
    z[:, ~(sd > 1e-12)] = 0.0
    z[~np.isfinite(z)] = 0.0
    mean[cnt == 0] = np.nan
    return z, mean


#: The grid every similarity that decides a choice is rounded to (:func:`_snap`).
SNAP = 2.0**-32


def _snap(v: np.ndarray) -> np.ndarray:
    """``v`` rounded to multiples of :data:`SNAP`: the same values on every machine.

    A similarity is a dot product, which BLAS kernels of different CPU kinds (AVX-512, AVX2, AVX) add in
    different orders, so it differs between machines in its last bits; equal similarities (duplicate
    columns) then break their ties differently and the medoids with them (measured: ``validate``'s
    anchorpoints rows differed between ``OPENBLAS_CORETYPE=SkylakeX`` and ``Sandybridge`` on MMMU). Rounded to
    ``2**-32`` (far coarser than those bits, far finer than any real difference), they agree unless a value
    lies within its last bits of a rounding boundary (about one in 10**6). Sums of snapped values below
    ``2**20`` are exact in float64, so totals compared between runs are too."""
    return np.rint(np.asarray(v) / SNAP) * SNAP


def _kmedoids_pp(zt: np.ndarray, k: int, rng: np.random.Generator) -> np.ndarray:
    """k-medoids++ seeding on ``zt`` (n_items, M): first medoid uniform, then D^2 sampling on ``d``.

    One matrix-vector product per medoid, run on one BLAS thread (a threaded product per step is slower).
    """
    n = zt.shape[0]
    idx = np.empty(k, dtype=np.int64)
    idx[0] = rng.integers(n)
    u = rng.random(k)
    with single_thread():
        dist = np.maximum(1.0 - _snap(zt @ zt[idx[0]]), 0.0)
        dist[idx[0]] = 0.0
        for t in range(1, k):
            cum = np.cumsum(dist * dist)
            total = cum[-1]
            if total > 0:
                j = min(int(np.searchsorted(cum, u[t] * total, side="right")), n - 1)
            else:  # every remaining item coincides with a medoid: draw uniformly among the others
                rest = np.setdiff1d(np.arange(n), idx[:t])
                j = int(rest[rng.integers(rest.shape[0])])
            idx[t] = j
            np.minimum(dist, np.maximum(1.0 - _snap(zt @ zt[j]), 0.0), out=dist)
            dist[j] = 0.0
    return idx


def _assign(zt: np.ndarray, medoids: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Nearest medoid of every item (ties: first medoid) and the distance to it; medoids own themselves."""
    sim = _snap(zt @ zt[medoids].T)  # (n, k)
    labels = np.argmax(sim, axis=1)
    labels[medoids] = np.arange(medoids.shape[0])
    dist = 1.0 - sim[np.arange(zt.shape[0]), labels]
    return labels.astype(np.int64), np.maximum(dist, 0.0)


def kmedoids_correlation(
    z: np.ndarray, k: int, rng: np.random.Generator, max_iter: int = 50
) -> tuple[np.ndarray, np.ndarray, float, int]:
    """One run of alternate k-medoids on ``d = 1 - z_i . z_j`` for the columns of ``z`` (module docstring).

    Returns ``(medoids, labels, total_distance, n_iter)``: medoid positions (k,), each item's cluster index
    into ``medoids``, the sum of item-to-medoid distances, and the number of iterations run.
    """
    zt = np.ascontiguousarray(z.T)
    n = zt.shape[0]
    k = min(int(k), n)
    medoids = _kmedoids_pp(zt, k, rng)
    labels, dist = _assign(zt, medoids)
    n_iter = 0
    for it in range(1, max_iter + 1):
        n_iter = it
        onehot = sparse.csr_matrix((np.ones(n), (labels, np.arange(n))), shape=(k, n))
        sums = np.asarray(onehot @ zt)  # (k, M): member sums of every cluster
        sizes = np.bincount(labels, minlength=k).astype(np.float64)
        # Total distance of each item to the members of its own cluster: |C| - z_i . sum_{j in C} z_j.
        cost = sizes[labels] - _snap(np.einsum("im,im->i", zt, sums[labels]))
        order = np.lexsort((cost, labels))
        first = np.ones(n, dtype=bool)
        first[1:] = labels[order][1:] != labels[order][:-1]
        best = order[first]  # one per non-empty cluster, in cluster order
        new = medoids.copy()
        new[labels[best]] = best
        if np.array_equal(new, medoids):
            break
        medoids = new
        labels, dist = _assign(zt, medoids)
    return medoids, labels, float(dist.sum()), n_iter


def complete_anchors(
    anchors: np.ndarray, candidates: np.ndarray, k: int, rng: np.random.Generator
) -> tuple[np.ndarray, int]:
    """Fill ``anchors`` up to ``k`` with items drawn at random (seeded) from ``candidates``.

    Used when the clustering yields fewer anchors than the budget (constant items, duplicate embeddings).
    Returns the anchors (selection order, the drawn items last) and the number of items added.
    """
    n_extra = max(int(k) - int(anchors.shape[0]), 0)
    if n_extra == 0:
        return anchors, 0
    extra = candidates[rng.permutation(candidates.shape[0])[:n_extra]]
    return np.concatenate([anchors, extra]).astype(np.int64), int(extra.shape[0])


def sorted_anchor_labels(anchors: np.ndarray, label: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Re-index per-anchor results to the sorted positions :meth:`ItemSelector.select` returns.

    ``anchors`` are the kept items in selection order and ``label[i]`` the index into ``anchors`` of item
    ``i``'s anchor (-1 = none). Returns ``(order, labels)``: ``order`` sorts the anchors (apply it to any
    per-anchor array, e.g. the weights) and ``labels[i]`` is the position of item ``i``'s anchor in the
    sorted kept positions (-1 = none).
    """
    order = np.argsort(anchors, kind="stable")
    rank = np.empty(anchors.shape[0], dtype=np.int64)
    rank[order] = np.arange(anchors.shape[0])
    labels = np.full(label.shape[0], -1, dtype=np.int64)
    has = label >= 0
    labels[has] = rank[label[has]]
    return order, labels


class AnchorPointsSelector(ItemSelector):
    """AnchorPoints: k-medoids on the correlation distance of item columns, cluster-size weighted estimate.

    Parameters
    ----------
    n_init
        Number of seeded k-medoids++ starts; the run with the least total distance is kept.
    max_iter
        Cap on the alternate iterations of each run.
    random_state
        Seed of the k-medoids++ seeding.

    Fitted attributes
    -----------------
    ``support_``, ``item_scores_`` (each item's correlation with its anchor, ``1 - d``; NaN for items outside
    the clustering), ``reasons_`` (``"medoid"``, or ``"completion"`` for constant items added when the pool
    has fewer informative items than ``K``), ``weights_`` (cluster sizes of the kept items, in the order of
    the returned positions), ``labels_`` (per item: the position, in the returned array, of its anchor),
    ``objective_`` (total distance), ``n_iter_``.
    """

    name = "anchorpoints"
    _parameter_constraints: ClassVar[dict[str, list[ConstraintLike]]] = {
        "n_init": [Interval(Integral, 1, None)],
        "max_iter": [Interval(Integral, 1, None)],
    }

    def __init__(
        self, n_init: int = 1, max_iter: int = 50, random_state: int | np.random.Generator | None = 0
    ) -> None:
        self.n_init = n_init
        self.max_iter = max_iter
        self.random_state = random_state

    def _select(self, inp: SelectorInput) -> np.ndarray:
        """Cluster the pool into ``k`` correlation clusters and keep their medoids (sorted positions)."""
        rng = check_random_state(self.random_state)
        n = inp.n_items
        z, mean = correlation_embedding(inp.scores)
        informative = np.einsum("mi,mi->i", z, z) > 1e-12
        inf_pos = np.flatnonzero(informative)
        k_eff = min(inp.k, inf_pos.shape[0])
        similarity = np.full(n, np.nan)
        objective = 0.0
        n_iter = 0
        anchors = np.empty(0, dtype=np.int64)
        labels_inf = np.empty(0, dtype=np.int64)
        if k_eff > 0:
            zi = z[:, inf_pos]
            best: tuple[np.ndarray, np.ndarray, float, int] | None = None
            for _ in range(int(self.n_init)):
                run = kmedoids_correlation(zi, k_eff, rng, int(self.max_iter))
                if best is None or run[2] < best[2]:
                    best = run
            assert best is not None
            med_local, labels_inf, objective, n_iter = best
            anchors = inf_pos[med_local]
            similarity[inf_pos] = np.einsum("mi,mi->i", zi, zi[:, med_local[labels_inf]])
        n_medoids = anchors.shape[0]
        # fewer informative items than the budget: add constant items
        anchors, n_extra = complete_anchors(anchors, np.flatnonzero(~informative), inp.k, rng)
        reasons = ["medoid"] * n_medoids + ["completion"] * n_extra
        # Cluster of every item, as an index into ``anchors``.
        label = np.full(n, -1, dtype=np.int64)
        if inf_pos.size and labels_inf.size:
            label[inf_pos] = labels_inf
        label[anchors] = np.arange(anchors.shape[0])
        loose = np.flatnonzero(label < 0)  # constant / empty items: nearest anchor by build mean
        if loose.size and anchors.size:
            overall = float(np.nanmean(mean)) if np.isfinite(mean).any() else 0.0
            mu_a = np.where(np.isnan(mean[anchors]), overall, mean[anchors])
            mu_l = np.where(np.isnan(mean[loose]), overall, mean[loose])
            label[loose] = np.argmin(np.abs(mu_l[:, None] - mu_a[None, :]), axis=1)
        sizes = np.bincount(label[label >= 0], minlength=anchors.shape[0]).astype(np.float64)

        out = self._set_fitted(n, anchors, np.asarray(reasons, dtype=object), similarity)
        order, self.labels_ = sorted_anchor_labels(anchors, label)
        self.weights_ = sizes[order]
        self.objective_ = objective
        self.n_iter_ = n_iter
        return out
