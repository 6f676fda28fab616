"""Coverage cells of VAW (PRIMEBench section 4.3, D.1): the hierarchical k-means partition and its Lloyd step.

Checked against hand-computed cases, scikit-learn's ``KMeans`` (same initial centres: same labels; its
inertia on the same data: within a few per cent) and planted near-duplicate groups.
"""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.cluster import KMeans

from benchsift.compression.selectors._cells import (
    LEAF_CELLS,
    _group_shares,
    _group_sse,
    kmeans_cells,
    kmeanspp_init,
    lloyd,
)


def _inertia(x: np.ndarray, labels: np.ndarray) -> float:
    """Sum of squared distances of the rows to the mean of their cell (float64)."""
    x = np.asarray(x, dtype=np.float64)
    k = int(labels.max()) + 1
    counts = np.bincount(labels, minlength=k)
    sums = np.zeros((k, x.shape[1]))
    np.add.at(sums, labels, x)
    centres = sums / np.maximum(counts, 1)[:, None]
    return float(((x - centres[labels]) ** 2).sum())


def _blobs(n_blobs: int, per_blob: int, dim: int, spread: float, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    centres = rng.standard_normal((n_blobs, dim))
    return np.repeat(centres, per_blob, axis=0) + spread * rng.standard_normal((n_blobs * per_blob, dim))


def test_lloyd_by_hand() -> None:
    x = np.array([[0.0], [1.0], [10.0], [11.0], [12.0]])
    # from centres 0 and 1: 0 -> {0}, 1 -> {1, 10, 11, 12} (mean 8.5); then 0 -> {0, 1}, 8.5 -> {10, 11, 12}
    labels = lloyd(x, np.array([[0.0], [1.0]]), max_iter=10)
    assert labels.tolist() == [0, 0, 1, 1, 1]
    # one iteration only: labels of the first update (centres 0 and 8.5)
    assert lloyd(x, np.array([[0.0], [1.0]]), max_iter=1).tolist() == [0, 0, 1, 1, 1]
    # an empty centre (far away) moves to the row farthest from its centre and takes it
    labels = lloyd(np.array([[0.0], [0.1], [5.0]]), np.array([[0.0], [100.0]]), max_iter=5)
    assert labels.tolist() == [0, 0, 1]


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_lloyd_matches_sklearn_from_the_same_centres(seed: int) -> None:
    x = _blobs(6, 80, 5, 0.6, seed).astype(np.float32)
    init = kmeanspp_init(x, 8, np.random.default_rng(seed))
    ours = lloyd(x, init, max_iter=300, tol=0.0)
    km = KMeans(n_clusters=8, init=init, n_init=1, max_iter=300, tol=0.0, algorithm="lloyd").fit(x)
    # same fixed point from the same start: the partitions agree (labels are in the same order too)
    np.testing.assert_array_equal(ours, km.labels_)


@pytest.mark.parametrize("n_cells", [5, 40, 150, 700])
def test_every_item_labelled_and_count_bounded(n_cells: int) -> None:
    x = np.random.default_rng(3).standard_normal((2000, 6))
    labels = kmeans_cells(x, n_cells, seed=0)
    assert labels.shape == (2000,) and labels.dtype == np.int64
    assert labels.min() == 0 and labels.max() == n_cells - 1
    # distinct points: every cell is used (no empty cell, no label beyond n_cells - 1)
    assert np.unique(labels).shape[0] == n_cells


def test_same_seed_same_labels_other_seed_other_cells() -> None:
    x = np.random.default_rng(4).standard_normal((3000, 8))
    for k in (30, 400):  # flat and hierarchical
        a = kmeans_cells(x, k, seed=11)
        b = kmeans_cells(x.copy(), k, seed=11)
        assert a.tobytes() == b.tobytes()
        assert not np.array_equal(a, kmeans_cells(x, k, seed=12))


@pytest.mark.parametrize(("n_groups", "dup"), [(40, 3), (500, 3), (300, 5), (2000, 4)])
def test_near_duplicates_share_a_cell(n_groups: int, dup: int) -> None:
    """Groups of near-duplicates are never split over cells when there are fewer cells than groups (D.1)."""
    rng = np.random.default_rng(n_groups)
    x = _blobs(n_groups, dup, 8, 1e-4, n_groups)
    perm = rng.permutation(x.shape[0])  # shuffled rows: the partition may not lean on the row order
    group = np.repeat(np.arange(n_groups), dup)[perm]
    for n_cells in (n_groups // 2, 3 * n_groups // 4):
        labels = kmeans_cells(x[perm], n_cells, seed=0)
        assert np.unique(labels).shape[0] == n_cells
        assert all(np.unique(labels[group == g]).shape[0] == 1 for g in range(n_groups))
    # one flat k-means (up to LEAF_CELLS cells) with a cell per group finds every group exactly; the
    # partition, whose cell counts follow the groups' spread, splits a few groups at that extreme (~2 %)
    labels = kmeans_cells(x[perm], n_groups, seed=0)
    split = sum(np.unique(labels[group == g]).shape[0] > 1 for g in range(n_groups))
    assert split == 0 if n_groups <= LEAF_CELLS else split <= 0.05 * n_groups


@pytest.mark.parametrize(("n_cells", "factor"), [(20, 1.25), (150, 1.15), (600, 1.15)])
def test_inertia_close_to_sklearn_kmeans(n_cells: int, factor: float) -> None:
    """Against scikit-learn's converged greedy k-means++ run: the partition (> LEAF_CELLS cells) is 2-8 %
    above it on such blobs, one flat D^2-seeded run of 10 iterations (20 cells) up to ~17 %."""
    x = _blobs(25, 120, 10, 0.5, 7)
    ours = _inertia(x, kmeans_cells(x, n_cells, seed=0))
    ref = KMeans(n_clusters=n_cells, n_init=1, random_state=0).fit(x.astype(np.float32))
    theirs = _inertia(x, ref.labels_)
    assert ours <= factor * theirs
    # and far better than a random partition of the same size
    rand = _inertia(x, np.random.default_rng(0).permutation(x.shape[0]) % n_cells)
    assert ours < 0.5 * rand


def test_duplicates_give_fewer_cells() -> None:
    assert kmeans_cells(np.zeros((10, 3)), 4, seed=0).tolist() == [0] * 10
    x = np.repeat(np.arange(3.0)[:, None], 50, axis=0)  # three distinct rows, 150 items, 100 cells
    labels = kmeans_cells(np.hstack([x, x]), 100, seed=0)
    assert np.unique(labels).shape[0] == 3
    assert all(np.unique(labels[x[:, 0] == v]).shape[0] == 1 for v in range(3))
    # a large node of identical rows beside distinct ones: still one cell for the duplicates
    y = np.vstack([np.zeros((400, 2)), np.random.default_rng(0).standard_normal((200, 2))])
    lab = kmeans_cells(y, 3 * LEAF_CELLS, seed=0)
    assert np.unique(lab[:400]).shape[0] == 1 and lab.max() < 3 * LEAF_CELLS


def test_group_shares() -> None:
    # one cell each, the other 7 in proportion to the sizes: quotas 2.1, 4.2, 0.7 -> 2, 4, 0; the one left
    # has quotas 0.3, 0.6, 0.1 and goes to the largest
    assert _group_shares(10, np.array([30, 60, 10])).tolist() == [3, 6, 1]
    # a one-row group keeps its one cell (no room); the rest split 3.5035 / 3.4965 -> 3, 3, then 1 more
    assert _group_shares(10, np.array([1, 500, 499])).tolist() == [1, 5, 4]
    # weights: a spread-out small group gets more cells than its size share, but never more than its rows
    assert _group_shares(12, np.array([5, 100]), np.array([9.0, 1.0])).tolist() == [5, 7]
    shares = _group_shares(70, np.array([2, 3, 100, 1]), np.array([5.0, 0.0, 1.0, 3.0]))
    assert shares.sum() == 70 and shares.min() >= 1 and np.all(shares <= [2, 3, 100, 1])
    assert shares.tolist() == [2, 1, 66, 1]
    # every row its own cell when k is the total
    assert _group_shares(9, np.array([2, 3, 4]), np.array([0.0, 1.0, 0.0])).tolist() == [2, 3, 4]
    # a weight that is not a finite number >= 0 counts as 0 (an infinite one made every quota NaN, and the
    # rounds never ended): the same shares as with 0 there
    for odd in (np.inf, np.nan, -1.0):
        got = _group_shares(70, np.array([2, 3, 100, 1]), np.array([5.0, odd, 1.0, 3.0]))
        assert got.tolist() == [2, 1, 66, 1]


def test_group_sse_by_hand() -> None:
    x = np.array([[0.0, 0.0], [2.0, 0.0], [5.0, 5.0], [1.0, 1.0], [3.0, 3.0]], dtype=np.float32)
    groups = np.array([0, 0, 2, 3, 3])
    # group 0: mean (1, 0), SSE 1 + 1; group 2: one row, 0; group 3: mean (2, 2), SSE 2 + 2
    np.testing.assert_allclose(_group_sse(x, groups, np.array([0, 2, 3])), [2.0, 0.0, 4.0], atol=1e-9)
