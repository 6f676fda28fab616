"""Cluster bootstrap: equivalence with the plain bootstrap at one row per cluster, cluster-robust SE."""

from __future__ import annotations

import numpy as np
import pytest

from benchsift.errors import InputError
from benchsift.stats import bootstrap_weights, cluster_bootstrap_weights, stratified_cluster_bootstrap_weights
from benchsift.stats.bootstrap import bootstrap_indices
from benchsift.stats.cluster import cluster_bootstrap_indices, cluster_codes, cluster_robust_se


def test_codes_first_appearance_order() -> None:
    codes, g = cluster_codes(np.array([7, 3, 7, -1, 3, 9]))
    assert g == 4
    np.testing.assert_array_equal(codes, [0, 1, 0, 2, 1, 3])
    codes, g = cluster_codes(np.array([5, 2, 8]))
    np.testing.assert_array_equal(codes, [0, 1, 2])
    with pytest.raises(InputError, match="integer"):
        cluster_codes(np.array(["a", "b"]))
    with pytest.raises(InputError, match="non-empty"):
        cluster_codes(np.array([], dtype=int))


def test_one_row_per_cluster_is_the_plain_bootstrap_byte_for_byte() -> None:
    n, B = 37, 250
    labels = np.arange(n) * 3 + 11  # all distinct
    W = cluster_bootstrap_weights(labels, B, 5)
    assert W.tobytes() == bootstrap_weights(n, B, 5).tobytes()
    drawn, codes = cluster_bootstrap_indices(labels, B, 5)
    np.testing.assert_array_equal(codes, np.arange(n))
    assert drawn.tobytes() == bootstrap_indices(n, B, 5).tobytes()
    # stratified, all singletons: the same draws as one bootstrap_weights per stratum from one generator
    strata = np.array([0] * 20 + [1] * 17)
    Ws = stratified_cluster_bootstrap_weights(labels, strata, B, 9)
    rng = np.random.default_rng(9)
    ref = np.hstack([bootstrap_weights(20, B, rng), bootstrap_weights(17, B, rng)])
    assert Ws.tobytes() == ref.tobytes()


def test_weights_are_cluster_counts_spread_to_rows() -> None:
    labels = np.array([0, 0, 0, 1, 2, 2, 3])
    W = cluster_bootstrap_weights(labels, 400, 1)
    drawn, codes = cluster_bootstrap_indices(labels, 400, 1)
    counts = np.stack([np.bincount(r, minlength=4) for r in drawn])
    np.testing.assert_array_equal(W, counts[:, codes])
    # rows of one cluster always carry the same weight; G clusters drawn per replicate
    assert (W[:, 0] == W[:, 1]).all() and (W[:, 4] == W[:, 5]).all()
    np.testing.assert_array_equal(counts.sum(axis=1), np.full(400, 4))


def test_stratified_keeps_every_stratum() -> None:
    labels = np.array([0, 0, 1, 1, 2, 3, 3, 4])
    strata = np.array([0, 0, 0, 0, 1, 1, 1, 1])
    W = stratified_cluster_bootstrap_weights(labels, strata, 300, 2)
    assert (W[:, :4].sum(axis=1) > 0).all() and (W[:, 4:].sum(axis=1) > 0).all()
    # stratum 0 has two clusters of two rows each: its total weight is always 4
    np.testing.assert_array_equal(W[:, :4].sum(axis=1), np.full(300, 4.0))
    with pytest.raises(InputError, match="one label each"):
        stratified_cluster_bootstrap_weights(labels, strata[:-1], 10, 0)


def test_cluster_robust_se_hand_computed() -> None:
    x = np.array([1.0, 0.0, 1.0, 1.0, 0.0, 0.0])
    cl = np.array([0, 0, 1, 1, 2, 2])
    # mean 0.5; residual sums per cluster: 0, 1, -1 -> sum of squares 2; CR1 factor 3/2
    assert cluster_robust_se(x, cl) == pytest.approx(np.sqrt(1.5 * 2.0) / 6)
    assert cluster_robust_se(x, cl, small_sample=False) == pytest.approx(np.sqrt(2.0) / 6)
    with pytest.raises(InputError, match=r"number of clusters: expected an integer >= 2, got 1"):
        cluster_robust_se(x, np.zeros(6, dtype=int))


def test_bootstrap_se_matches_analytic_cluster_robust_se_on_simulated_panel() -> None:
    rng = np.random.default_rng(0)
    G = 120
    sizes = rng.integers(1, 9, size=G)
    labels = np.repeat(np.arange(G), sizes)
    effect = rng.normal(0.0, 1.0, size=G)[labels]  # shared cluster effect: strong intra-cluster correlation
    x = effect + rng.normal(0.0, 0.5, size=labels.size)
    W = cluster_bootstrap_weights(labels, 8000, 3)
    boot = (W @ x) / W.sum(axis=1)
    se_boot = float(boot.std(ddof=1))
    se_cr0 = cluster_robust_se(x, labels, small_sample=False)
    assert se_boot == pytest.approx(se_cr0, rel=0.05)
    # the iid bootstrap ignores the clusters and is far too narrow here
    Wi = bootstrap_weights(labels.size, 8000, 3)
    se_iid = float(((Wi @ x) / labels.size).std(ddof=1))
    assert se_iid < 0.7 * se_boot
    assert se_iid == pytest.approx(x.std(ddof=0) / np.sqrt(labels.size), rel=0.05)
