r"""k-means whose labels are the same on every machine: exact integer arithmetic on a fixed grid.

scikit-learn's :class:`~sklearn.cluster.KMeans` computes its distances with BLAS, whose kernels (chosen at
run time by CPU kind: AVX-512, AVX2, AVX) add the products of a dot product in different orders, so the same
data and seed give distances that differ in the last bits from one machine to another. On 0/1 correctness
vectors many distances are *exactly* tied, and those last bits then decide the assignment: measured on the
MMMU, AI2D and MMT-Bench panels (60 % of the models, 10 / 25 / 60 clusters, seeds 0-3), the items nearest the
centres differed from a machine with AVX-512 kernels in 15 of 36 cases with the AVX2 ones and 32 of 36 with
the AVX ones (``OPENBLAS_CORETYPE=Haswell`` / ``Sandybridge`` on one machine), and with them the suite
``compress --selector estimate`` keeps.

Here every quantity that decides a label is computed exactly or by one correctly rounded IEEE operation on
exact inputs, so no summation order can change it:

* the data are put on a grid, :math:`q = \mathrm{rint}(x\,r)` (``r`` a power of two, 1024 unless the sizes
  below need a coarser one; 0/1 data are exact on it, other values move by at most :math:`1/(2r)`), held as
  integer-valued float64;
* a centre is kept as the integer sum :math:`S_c` of its rows and their count :math:`n_c`; every dot product
  :math:`q_i \cdot S_c` and squared norm is an integer below :math:`2^{53}` (``r`` is chosen so), which BLAS
  then computes exactly in any order (every partial sum is an exact integer too);
* the assignment minimises :math:`f_{ic} = |S_c|^2 / n_c^2 - 2\,(q_i \cdot S_c) / n_c`
  (:math:`|q_i - S_c / n_c|^2` less :math:`|q_i|^2`, common to a row), three correctly rounded operations on
  exact integers: the same bits everywhere, exact ties stay exact, and ``argmin`` takes the first centre;
* k-means++ seeding (Arthur and Vassilvitskii 2007) with scikit-learn's greedy variant (``2 + floor(ln k)``
  candidates a step, the one that lowers the potential most; exact integer potentials), then Lloyd
  iterations until no label changes (or ``max_iter``); a centre left empty moves to the row farthest from
  its centre (the first such row), as scikit-learn's does.

The objective reached is that of scikit-learn's ``KMeans(n_init=1)`` within a few per cent on average (other
random draws; ``tests/stats/test_kmeans.py`` compares them on random data), and the labels do not depend on
the BLAS kernel or the number of threads (the same test runs the function under three
``OPENBLAS_CORETYPE`` settings in fresh processes).

Cost: ``O(n d k)`` per Lloyd iteration (one matrix product, in blocks of rows), the seeding
``O(n d k log k)``.
"""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import ArrayLike, NDArray

from benchsift.stats._random import SeedLike, check_random_state

__all__ = ["GridKMeans", "grid_kmeans"]

#: Finest grid (values per unit of ``x``); a coarser one where the sizes would overflow the exact range.
MAX_RESOLUTION = 1024
#: Coarsest grid accepted: beyond it the data are too large for exact arithmetic here.
MIN_RESOLUTION = 8
_EXACT = float(2**53)  # integers below this are exact in float64
_BLOCK = 4096  # rows per block of the assignment (bounds its memory to _BLOCK x k floats)


class GridKMeans:
    """The result of :func:`grid_kmeans`: ``labels`` (n,), ``centres`` (k, d) in the units of ``x``,
    ``dist2`` (n,) each row's squared distance to its centre on the grid, in grid units squared (for ranking
    the rows of a cluster: same bits on every machine), ``resolution`` the grid's ``r``, ``inertia`` the sum
    of squared distances in the units of ``x``."""

    __slots__ = ("centres", "dist2", "inertia", "labels", "resolution")

    def __init__(
        self, labels: NDArray[np.int64], centres: NDArray[np.float64], dist2: NDArray[np.float64], r: float
    ) -> None:
        self.labels = labels
        self.centres = centres
        self.dist2 = dist2
        self.resolution = r
        self.inertia = float(dist2.sum()) / (r * r)

    def nearest_rows(self) -> NDArray[np.int64]:
        """Per non-empty cluster, in cluster order, the row nearest its centre (by ``dist2``: the same on
        every machine), the first on ties."""
        order = np.lexsort((np.arange(self.labels.shape[0]), self.dist2, self.labels))
        first = np.ones(order.shape[0], dtype=bool)
        first[1:] = self.labels[order][1:] != self.labels[order][:-1]
        return order[first].astype(np.int64)


def _resolution(n: int, d: int, top: float) -> float:
    """The finest power-of-two grid at most ``MAX_RESOLUTION`` for which every sum stays exact: a centre's
    sum is at most ``n r top`` per coordinate, a dot product of a row with it at most ``d (r top) (n r top)``,
    and a centre's squared norm at most ``d (n r top)^2``."""
    r = float(MAX_RESOLUTION)
    top = max(top, 1.0)
    while r >= MIN_RESOLUTION:
        cell = r * top
        if d * cell * n * cell < _EXACT and d * (n * cell) ** 2 < _EXACT:
            return r
        r /= 2.0
    raise ValueError(
        f"grid_kmeans: {n} rows x {d} columns with values up to {top:g} are too large for exact arithmetic"
    )


def _assign(q: np.ndarray, S: np.ndarray, counts: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Labels and ``f`` of each row's own centre (``f_ic`` of the module docstring; empty centres never
    chosen), in blocks of rows."""
    n = q.shape[0]
    live = counts > 0
    nc = np.where(live, counts, 1).astype(np.float64)
    A = np.einsum("ij,ij->i", S, S) / (nc * nc)  # exact integers, one rounding each
    A = np.where(live, A, np.inf)
    labels = np.empty(n, dtype=np.int64)
    best = np.empty(n, dtype=np.float64)
    St = np.ascontiguousarray(S.T)
    for lo in range(0, n, _BLOCK):
        B = q[lo : lo + _BLOCK] @ St  # exact: integers below 2**53
        f = A[None, :] - 2.0 * (B / nc[None, :])
        lab = np.argmin(f, axis=1)
        labels[lo : lo + _BLOCK] = lab
        best[lo : lo + _BLOCK] = f[np.arange(lab.shape[0]), lab]
    return labels, best


def _sums(q: np.ndarray, labels: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
    """Each centre's integer sum of rows and count (exact: integer additions below 2**53)."""
    order = np.argsort(labels, kind="stable")
    counts = np.bincount(labels, minlength=k)
    S = np.zeros((k, q.shape[1]), dtype=np.float64)
    nz = np.flatnonzero(counts)
    starts = np.concatenate([[0], np.cumsum(counts)[:-1]])[nz]
    S[nz] = np.add.reduceat(q[order], starts, axis=0)
    return S, counts


def _seed_centres(q: np.ndarray, sq: np.ndarray, k: int, rng: np.random.Generator) -> np.ndarray:
    """Row positions of ``k`` initial centres: greedy k-means++ (``2 + floor(ln k)`` candidates a step),
    on exact integer squared distances; when every row coincides with a centre the rest are drawn
    uniformly."""
    n = q.shape[0]
    n_try = 2 + int(math.log(k))
    centres = np.empty(k, dtype=np.int64)
    centres[0] = rng.integers(n)
    closest = np.maximum(sq + sq[centres[0]] - 2.0 * (q @ q[centres[0]]), 0.0)
    for c in range(1, k):
        cum = np.cumsum(closest)  # exact: integers below 2**53
        pot = cum[-1]
        if pot <= 0:
            centres[c] = rng.integers(n)
            continue
        cand = np.minimum(np.searchsorted(cum, rng.random(n_try) * pot, side="right"), n - 1)
        d_cand = np.maximum(sq[None, :] + sq[cand][:, None] - 2.0 * (q[cand] @ q.T), 0.0)
        d_cand = np.minimum(closest[None, :], d_cand)
        best = int(np.argmin(d_cand.sum(axis=1)))
        centres[c] = cand[best]
        closest = d_cand[best]
    return centres


def grid_kmeans(x: ArrayLike, k: int, random_state: SeedLike = 0, *, max_iter: int = 100) -> GridKMeans:
    """k-means of the rows of ``x`` (finite, ``(n, d)``) into at most ``k`` clusters, the same labels on every
    machine (module docstring). ``k`` is capped at ``n``; clusters that end empty keep no rows."""
    xa = np.asarray(x, dtype=np.float64)
    if xa.ndim != 2 or not np.isfinite(xa).all():
        raise ValueError("grid_kmeans: expected a finite 2-D array")
    n, d = xa.shape
    k = min(int(k), n)
    if k <= 0:
        raise ValueError(f"grid_kmeans: expected k >= 1 and rows, got k={k}, n={n}")
    rng = check_random_state(random_state)
    r = _resolution(n, d, float(np.abs(xa).max(initial=0.0)))
    q = np.rint(xa * r)
    sq = np.einsum("ij,ij->i", q, q)
    S = q[_seed_centres(q, sq, k, rng)].copy()
    counts = np.ones(k, dtype=np.int64)
    labels, f = _assign(q, S, counts)
    for _ in range(max(1, int(max_iter))):
        S, counts = _sums(q, labels, k)
        empty = np.flatnonzero(counts == 0)
        if empty.size:  # move each empty centre to the row farthest from its centre (first on ties)
            far = np.argsort(-(f + sq), kind="stable")[: empty.size]
            S[empty], counts[empty] = q[far], 1
        new_labels, f = _assign(q, S, counts)
        done = not empty.size and np.array_equal(new_labels, labels)
        labels = new_labels
        if done:
            break
    # the labels are the assignment to these centres (the means of the rows they were computed from)
    centres = np.divide(S, np.maximum(counts, 1)[:, None] * r)
    return GridKMeans(labels, centres, np.maximum(f + sq, 0.0), r)
