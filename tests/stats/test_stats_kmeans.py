"""``stats.kmeans.grid_kmeans``: exact small cases, the objective against scikit-learn's ``KMeans``, and the
same labels under every BLAS kernel (fresh processes with ``OPENBLAS_CORETYPE`` set), where scikit-learn's
differ on the same data."""

from __future__ import annotations

import inspect
from fractions import Fraction

import numpy as np
import pytest
from kernels import under_every_kernel
from sklearn.cluster import KMeans

from benchsift.compression.selectors.estimation import correctness_anchors
from benchsift.stats.kmeans import MAX_RESOLUTION, grid_kmeans


def simulated_items(seed: int = 5, models: int = 60, items: int = 400) -> np.ndarray:
    """The items' 0/1 correctness vectors (rows) of a simulated 2PL panel: many exactly tied distances."""
    rng = np.random.default_rng(seed)
    theta, b, a = rng.normal(size=models), rng.normal(size=items), rng.lognormal(0.0, 0.3, items)
    p = 1.0 / (1.0 + np.exp(-a * (theta[:, None] - b)))
    return (rng.random((models, items)) < p).astype(np.float64).T


def test_two_groups_by_hand() -> None:
    x = np.array([[0.0], [1.0], [2.0], [10.0], [11.0], [12.0]])
    km = grid_kmeans(x, 2, 0)
    assert len(set(km.labels[:3].tolist())) == 1 and len(set(km.labels[3:].tolist())) == 1
    assert km.labels[0] != km.labels[3]
    assert sorted(km.centres[:, 0].tolist()) == [1.0, 11.0]
    # each row's squared distance to its centre, in grid units: (x - c)^2 r^2
    r = km.resolution
    assert r == MAX_RESOLUTION
    np.testing.assert_array_equal(km.dist2, np.array([1.0, 0.0, 1.0, 1.0, 0.0, 1.0]) * r * r)
    assert km.inertia == 4.0


def test_each_row_at_its_exactly_nearest_centre_first_on_ties() -> None:
    """On 0/1 rows (many exactly tied distances), computed with fractions: every row's centre is an exactly
    nearest one, the lowest-numbered of them, and ``dist2`` is its exact squared distance on the grid."""
    binary = (np.random.default_rng(1).random((40, 5)) < 0.5).astype(np.float64)
    # 3 is as far from mean(0, 0, 3) = 1 as from mean(4, 6) = 5: a tie that survives convergence
    line = np.array([[0.0], [0.0], [3.0], [4.0], [6.0]])
    ties = 0
    for x, k, seed in [(binary, 6, s) for s in range(6)] + [(line, 2, s) for s in range(30)]:
        km = grid_kmeans(x, k, seed)
        live = sorted(set(km.labels.tolist()))
        size = {c: int((km.labels == c).sum()) for c in live}
        centre = {c: [Fraction(int(v), size[c]) for v in x[km.labels == c].sum(axis=0)] for c in live}
        for i, row in enumerate(x):
            exact = [Fraction(int(v)) for v in row]
            d = {c: sum((v - m) ** 2 for v, m in zip(exact, centre[c], strict=True)) for c in live}
            nearest = min(d.values())
            tied = [c for c in live if d[c] == nearest]
            ties += len(tied) > 1
            assert km.labels[i] == tied[0]
            assert km.dist2[i] == pytest.approx(float(nearest) * km.resolution**2, rel=1e-12)
    assert ties > 0  # the rule was exercised


def test_objective_close_to_scikit_learn() -> None:
    rng = np.random.default_rng(0)
    ratios = []
    for t in range(16):
        n, d, k = int(rng.integers(60, 500)), int(rng.integers(4, 40)), int(rng.integers(2, 30))
        if t % 2:
            x = (rng.random((n, d)) < rng.random(d)).astype(np.float64)
        else:
            x = rng.normal(size=(n, d)) + rng.integers(0, 4, size=(n, 1))
        km = grid_kmeans(x, k, t)
        centres = np.array([x[km.labels == j].mean(axis=0) for j in range(k) if (km.labels == j).any()])
        relabel = {j: i for i, j in enumerate(sorted(set(km.labels.tolist())))}
        lab = np.array([relabel[j] for j in km.labels])
        ours = float(((x - centres[lab]) ** 2).sum())
        theirs = KMeans(n_clusters=k, n_init=1, random_state=t).fit(x).inertia_
        ratios.append(ours / theirs)
    assert np.mean(ratios) < 1.03
    assert max(ratios) < 1.15


def test_seeded_and_capped() -> None:
    x = simulated_items(models=20, items=80)
    a, b = grid_kmeans(x, 10, 3), grid_kmeans(x, 10, 3)
    np.testing.assert_array_equal(a.labels, b.labels)
    few = grid_kmeans(x[:4], 10, 0)  # k capped at the rows: each distinct row its own cluster
    assert few.centres.shape[0] == 4
    assert len(set(few.labels.tolist())) == np.unique(x[:4], axis=0).shape[0]
    with pytest.raises(ValueError, match="finite"):
        grid_kmeans(np.array([[np.nan, 1.0]]), 1)


def test_coarser_grid_when_exact_sums_need_it() -> None:
    x = np.full((5000, 400), 1.0)
    x[::2] = 0.0
    km = grid_kmeans(x, 2, 0)
    assert km.resolution < MAX_RESOLUTION
    n, d, cell = 5000, 400, km.resolution
    assert d * (n * cell) ** 2 < 2.0**53
    assert sorted(np.bincount(km.labels).tolist()) == [2500, 2500]
    with pytest.raises(ValueError, match="too large"):
        grid_kmeans(np.full((10, 2), 1e18), 2)


_CHILD = """
import hashlib, json
import numpy as np
from sklearn.cluster import KMeans
from benchsift.stats.kmeans import grid_kmeans
from benchsift.compression.selectors.estimation import correctness_anchors
{source}
x = simulated_items()
h = lambda a: hashlib.md5(np.ascontiguousarray(a, dtype=np.int64).tobytes()).hexdigest()
out = {{"grid": [], "sklearn": [], "anchors": []}}
for seed in range(4):
    for k in (10, 25):
        out["grid"].append(h(grid_kmeans(x, k, seed).labels))
        out["sklearn"].append(h(KMeans(n_clusters=k, n_init=1, random_state=seed).fit(x).labels_))
        out["anchors"].append(h(correctness_anchors(x.T, k, seed)))
print(json.dumps(out))
"""


def test_same_labels_under_every_blas_kernel() -> None:
    runs = under_every_kernel(_CHILD.format(source=inspect.getsource(simulated_items)))
    base = runs["default"]
    for name, run in runs.items():
        assert run["grid"] == base["grid"], name
        assert run["anchors"] == base["anchors"], name
    # the data are of the kind where the kernel decides ties: scikit-learn's labels move with it
    if len(runs) > 2:
        assert any(run["sklearn"] != base["sklearn"] for run in runs.values())


def test_correctness_anchors_one_per_cluster() -> None:
    x = simulated_items(models=30, items=200)
    picked = correctness_anchors(x.T, 12, 0)
    km = grid_kmeans(x, 12, 0)
    assert picked.size == len(set(km.labels.tolist()))
    assert len(set(km.labels[picked].tolist())) == picked.size
    for j in picked:  # the anchor is its cluster's nearest row (first on ties)
        members = np.flatnonzero(km.labels == km.labels[j])
        assert j == members[np.argmin(km.dist2[members])]
