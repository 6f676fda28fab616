r"""Cluster bootstrap: resample whole clusters of rows with replacement, as index and weight matrices.

Rows (items) that share an image, a passage or a source question are not independent draws. The cluster
(block) bootstrap resamples the ``G`` clusters with replacement and keeps every row of a drawn cluster,
so the within-cluster correlation is carried into each replicate (Davison & Hinkley 1997, Sec. 3.8
"Hierarchical data", strategy 1 -- resample the first stage only; Field & Welsh 2007, "Bootstrapping
clustered data", the *cluster bootstrap*; Cameron, Gelbach & Miller 2008, the pairs cluster bootstrap).
For the mean, the bootstrap variance of the replicate ratio mean, linearised, is the cluster-robust
(sandwich, CR0) variance

.. math::

   \widehat{\operatorname{Var}}(\bar x) = \frac{1}{n^2} \sum_{g=1}^{G} \Big( \sum_{i \in g}
   (x_i - \bar x) \Big)^2 ,

which :func:`cluster_robust_se` computes in closed form (with the CR1 factor ``G / (G - 1)``) and the
tests compare against.

The weight form: ``W[b, i]`` is the number of times row ``i``'s cluster is drawn in replicate ``b``, so
replicate means are ``(W @ X) / W.sum(axis=1)`` (a replicate's size ``W[b].sum()`` varies with the sizes
of the clusters drawn). It is the cluster counts (:func:`benchsift.stats.bootstrap_weights` over the ``G``
clusters, same generator) spread to the rows, so with one row per cluster, clusters numbered in row
order, ``cluster_bootstrap_weights(codes, B, seed)`` equals ``bootstrap_weights(n, B, seed)`` byte for
byte. The stratified form resamples the clusters of each stratum separately (strata in order of first
appearance, one generator), the cluster analogue of a category-stratified bootstrap; a cluster that spans
strata is split at the stratum boundary (its parts are resampled within their strata).
"""

from __future__ import annotations

from numbers import Integral

import numpy as np
from numpy.typing import ArrayLike, NDArray

from benchsift._inputs import check_array
from benchsift._params import Check, Interval, check_param, validate_params
from benchsift.stats._checks import COUNT, check_shape
from benchsift.stats._random import SeedLike, check_random_state
from benchsift.stats.bootstrap import bootstrap_weights

__all__ = [
    "cluster_bootstrap_indices",
    "cluster_bootstrap_weights",
    "cluster_codes",
    "cluster_robust_se",
    "stratified_cluster_bootstrap_weights",
]


def cluster_codes(clusters: ArrayLike) -> tuple[NDArray[np.intp], int]:
    """``(codes, G)``: the integer cluster labels renumbered ``0 .. G-1`` in order of first appearance.

    ``clusters`` is one integer label per row (any integers; equal label = same cluster). With all labels
    distinct the codes are ``arange(n)``.
    """
    c = check_array("clusters", clusters, dtype=None, min_shape=(1,), what="a non-empty 1-d array of labels")
    check_param(
        "clusters", c, [Check(lambda a: np.issubdtype(a.dtype, np.integer), "integer labels")], quote=False
    )
    _, first, inv = np.unique(c, return_index=True, return_inverse=True)
    order = np.argsort(first, kind="stable")  # unique labels in order of first appearance
    rank = np.empty(order.size, dtype=np.intp)
    rank[order] = np.arange(order.size, dtype=np.intp)
    return rank[inv.reshape(-1)], int(order.size)


@validate_params({"n_boot": [COUNT]})
def cluster_bootstrap_indices(
    clusters: ArrayLike, n_boot: int, random_state: SeedLike = None
) -> tuple[NDArray[np.intp], NDArray[np.intp]]:
    """``(drawn, codes)``: ``drawn`` (n_boot, G) cluster codes drawn uniformly with replacement.

    Replicate ``b`` is the rows ``flatnonzero(codes == g)`` for each ``g`` in ``drawn[b]``, concatenated;
    its length varies with the cluster sizes, so the index form stops at the clusters (use
    :func:`cluster_bootstrap_weights` for row weights). ``drawn`` is ``bootstrap_indices(G, n_boot,
    random_state)``.
    """
    codes, g = cluster_codes(clusters)  # at least one cluster
    rng = check_random_state(random_state)
    return rng.integers(0, g, size=(int(n_boot), g), dtype=np.intp), codes


def cluster_bootstrap_weights(
    clusters: ArrayLike, n_boot: int, random_state: SeedLike = None
) -> NDArray[np.float64]:
    """(n_boot, n) row weights of the cluster bootstrap: ``W[b, i]`` = draws of row ``i``'s cluster.

    The cluster counts are a Multinomial(G, 1/G) draw per replicate
    (:func:`benchsift.stats.bootstrap_weights` on the ``G`` clusters), the same resamples as
    :func:`cluster_bootstrap_indices` with the same seed. One row per cluster gives exactly
    ``bootstrap_weights(n, n_boot, random_state)``.
    """
    codes, g = cluster_codes(clusters)
    return bootstrap_weights(g, n_boot, random_state)[:, codes]


def stratified_cluster_bootstrap_weights(
    clusters: ArrayLike, strata: ArrayLike, n_boot: int, random_state: SeedLike = None
) -> NDArray[np.float64]:
    """(n_boot, n) row weights: within each stratum, its clusters resampled with replacement.

    ``strata`` holds one integer label per row. Strata are visited in order of first appearance and each
    draws :func:`cluster_bootstrap_weights` over its own clusters from the one generator, so a stratum
    whose rows are all singletons draws exactly what ``bootstrap_weights(n_stratum, ...)`` would. Every
    stratum keeps at least one cluster in every replicate (Davison & Hinkley 1997, Sec. 3.8, with strata
    as in their Sec. 3.7). Drawn by :class:`benchsift.stats.WeightStream` (which streams it in blocks of
    replicates, for matrices too large to hold).
    """
    from benchsift.stats.resample import WeightStream  # resample imports this module

    c = np.asarray(clusters)
    stream = WeightStream(int(c.size), n_boot, random_state, clusters=c, strata=strata)
    return stream.toarray()


def cluster_robust_se(x: ArrayLike, clusters: ArrayLike, small_sample: bool = True) -> float:
    r"""Cluster-robust standard error of the mean of ``x`` (no NaN), the analytic counterpart of the
    cluster bootstrap SE.

    .. math::

       \operatorname{se} = \frac{1}{n} \sqrt{\frac{G}{G-1} \sum_g \Big(\sum_{i\in g} (x_i - \bar x)\Big)^2}

    the Liang-Zeger / CR1 sandwich of an intercept-only regression with the small-sample factor
    ``G / (G - 1)`` (Cameron & Miller 2015, "A practitioner's guide to cluster-robust inference",
    Eq. 11 with ``c = G / (G - 1)`` for the mean; Cameron, Gelbach & Miller 2008). The cluster bootstrap
    variance of the ratio mean converges to the same quantity without the factor, i.e. ``(G - 1) / G``
    times its square: ``small_sample=False`` gives that CR0 value.
    """
    v = np.asarray(x, dtype=np.float64)
    codes, g = cluster_codes(clusters)
    check_shape("x", v.shape, codes.shape, what="one value per cluster label, shape")
    check_array("x", v, nan=False)  # NaN refused: drop missing rows first
    two = Interval(Integral, 2, None, closed="left")  # a cluster-robust standard error needs 2
    check_param("number of clusters", g, [two], quote=False)
    resid_sums = np.bincount(codes, weights=v - v.mean(), minlength=g)
    factor = g / (g - 1) if small_sample else 1.0
    return float(np.sqrt(factor * np.sum(resid_sums**2)) / v.size)
