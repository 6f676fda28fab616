"""AnchorPoints: k-medoids on 1 - correlation of item columns, cluster-size weighted estimate."""

from __future__ import annotations

from itertools import combinations

import numpy as np
import pytest
from selector_sim import sim_clusters

from benchsift.compression.selectors.anchorpoints import (
    AnchorPointsSelector,
    correlation_embedding,
    kmedoids_correlation,
)
from benchsift.errors import InputError

SIZES = [5, 10, 20, 40, 80]
LEVELS = np.array([0.15, 0.3, 0.5, 0.7, 0.85])


def test_embedding_gives_pearson_correlations() -> None:
    rng = np.random.default_rng(0)
    x = rng.random((15, 6))
    x[:, 4] = 0.5  # constant column
    z, mean = correlation_embedding(x)
    c = z.T @ z
    keep = [0, 1, 2, 3, 5]
    np.testing.assert_allclose(c[np.ix_(keep, keep)], np.corrcoef(x[:, keep].T), atol=1e-12)
    np.testing.assert_array_equal(z[:, 4], 0.0)
    np.testing.assert_allclose(mean, x.mean(axis=0))
    assert np.isnan(correlation_embedding(np.full((3, 1), np.nan))[1][0])


def test_one_medoid_per_planted_cluster_and_weights() -> None:
    x, lab = sim_clusters(40, SIZES, LEVELS, seed=1)
    sel = AnchorPointsSelector(random_state=0)
    kept = sel.select(x, len(SIZES))
    assert sorted(lab[kept].tolist()) == list(range(len(SIZES)))
    np.testing.assert_array_equal(sel.weights_, np.asarray(SIZES, dtype=float)[lab[kept]])
    # Every item points at the anchor of its own cluster.
    np.testing.assert_array_equal(lab[kept][sel.labels_], lab)
    assert set(sel.reasons_) == {"medoid"}
    assert np.all(sel.item_scores_ > 0.9)


def test_weighted_estimate_beats_plain_anchor_mean_on_held_out_models() -> None:
    x, _ = sim_clusters(80, SIZES, LEVELS, seed=2)
    build, held = x[:40], x[40:]
    sel = AnchorPointsSelector(random_state=0)
    kept = sel.select(build, len(SIZES))
    truth = held.mean(axis=1)
    weighted = np.abs(sel.estimate(held[:, kept]) - truth).mean()
    plain = np.abs(held[:, kept].mean(axis=1) - truth).mean()
    assert weighted < 0.02
    assert weighted < plain / 5


def test_kmedoids_reaches_the_brute_force_optimum() -> None:
    x, _ = sim_clusters(30, [3, 4, 5], np.array([0.3, 0.5, 0.7]), seed=3, noise=0.05)
    z, _ = correlation_embedding(x)
    d = 1.0 - z.T @ z
    best = min(d[:, list(c)].min(axis=1).sum() for c in combinations(range(12), 3))
    medoids, labels, total, _ = kmedoids_correlation(z, 3, np.random.default_rng(0))
    assert total == pytest.approx(best, abs=1e-9)
    np.testing.assert_array_equal(labels, np.argmin(d[:, medoids], axis=1))


def test_constant_items_never_anchor_and_join_by_mean() -> None:
    x, lab = sim_clusters(40, [20, 20], np.array([0.2, 0.8]), seed=4)
    x = np.hstack([x, np.zeros((40, 6)), np.ones((40, 3))])
    sel = AnchorPointsSelector(random_state=0)
    kept = sel.select(x, 2)
    assert kept.max() < 40
    assert sel.weights_.sum() == x.shape[1]
    anchor_mean = x[:, kept].mean(axis=0)
    np.testing.assert_array_equal(sel.labels_[40:46], np.argmin(anchor_mean))  # all-zero items -> low anchor
    np.testing.assert_array_equal(sel.labels_[46:], np.argmax(anchor_mean))
    assert np.isnan(sel.item_scores_[40:]).all()
    # More budget than informative items: the informative ones are all kept, constants complete the budget.
    sel2 = AnchorPointsSelector(random_state=0)
    kept2 = sel2.select(x[:, 36:], 6)
    assert set(range(4)) <= set(kept2)
    assert sorted(sel2.reasons_.tolist()).count("completion") == 2


def test_missing_scores_and_determinism() -> None:
    x, lab = sim_clusters(40, SIZES, LEVELS, seed=5)
    x[np.random.default_rng(6).random(x.shape) < 0.1] = np.nan
    a = AnchorPointsSelector(random_state=3, n_init=3)
    kept = a.select(x, len(SIZES))
    assert sorted(lab[kept].tolist()) == list(range(len(SIZES)))
    assert np.array_equal(kept, AnchorPointsSelector(random_state=3, n_init=3).select(x, len(SIZES)))


@pytest.mark.parametrize("param", ["n_init", "max_iter"])
def test_bad_params(param: str) -> None:
    with pytest.raises(InputError, match=param):
        AnchorPointsSelector(**{param: 0}).select(np.zeros((3, 4)), 2)
