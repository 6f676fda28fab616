"""Scoring of the held-out protocols (PRIMEBench D.3): NaN-aware weighted group means, per category block."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pandas as pd

from benchsift.compression.protocols.group_means import CategoryBlocks, weighted_group_means
from benchsift.compression.protocols.pools import prepare_pools
from benchsift.panel import Panel

NAN = np.nan


def test_weighted_group_means_by_hand() -> None:
    X = np.array([[1.0, 0.0, 1.0, NAN], [NAN, NAN, 0.0, 1.0]])
    W = np.array([[1.0, 0.0], [1.0, 0.0], [0.0, 2.0], [0.0, 1.0]])
    # row 0: group 0 (1 + 0) / 2; group 1 (2 * 1) / 2 (item 3 missing: its weight leaves the denominator)
    # row 1: group 0 has no observed item -> NaN; group 1 (2 * 0 + 1 * 1) / 3
    np.testing.assert_allclose(weighted_group_means(X, W), [[0.5, 1.0], [NAN, 1.0 / 3.0]])
    # nothing missing: the denominators are the column sums of W
    Y = np.array([[1.0, 0.0, 1.0, 0.0]])
    np.testing.assert_allclose(weighted_group_means(Y, W), [[0.5, 2.0 / 3.0]])
    # a group with no weight at all is NaN
    assert np.isnan(weighted_group_means(Y, np.zeros((4, 1)))).all()


def test_weighted_group_means_matches_a_nanmean_loop() -> None:
    rng = np.random.default_rng(0)
    X = (rng.random((30, 500)) < 0.6).astype(float)
    X[rng.random(X.shape) < 0.05] = NAN
    masks = rng.random((500, 4)) < 0.2
    loop = np.stack([np.nanmean(X[:, masks[:, j]], axis=1) for j in range(4)], axis=1)
    np.testing.assert_allclose(weighted_group_means(X, masks.astype(float)), loop, rtol=1e-12)


def _pools(scores: np.ndarray, categories: list[str]) -> Panel:
    n = scores.shape[1]
    items = pd.DataFrame(
        {"benchmark": [f"b{c}" for c in categories], "item": range(n), "category": categories}
    )
    return Panel(scores, [f"m{i}" for i in range(scores.shape[0])], items)


def test_category_blocks_by_hand() -> None:
    scores = np.array(
        [
            [1.0, 0.0, 1.0, 1.0, NAN],
            [0.0, NAN, 1.0, 0.0, 0.0],
            [1.0, 1.0, 0.0, NAN, NAN],
        ]
    )
    pools = prepare_pools(_pools(scores, ["A", "B", "A", "B", "B"]))
    blocks = CategoryBlocks.from_pools(pools)
    W = np.array([[1.0, 1.0], [1.0, 0.0], [0.0, 1.0], [0.0, 1.0], [1.0, 1.0]])
    got = blocks.kept_means(W, np.array([0, 2]))
    assert got.shape == (2, 2, 2)  # (rows, sets, categories)
    c_a, c_b = pools.categories.index("A"), pools.categories.index("B")
    # model 0: set 0, A = {item 0} -> 1; B = {1, 4}, item 4 missing -> 0
    #          set 1, A = {0, 2} -> 1; B = {3, 4}, item 4 missing -> 1
    np.testing.assert_allclose(got[0, :, c_a], [1.0, 1.0])
    np.testing.assert_allclose(got[0, :, c_b], [0.0, 1.0])
    # model 2: set 0, B = {1, 4}: item 4 missing -> 1; set 1, B = {3, 4}: both missing -> NaN
    np.testing.assert_allclose(got[1, :, c_b], [1.0, NAN])
    np.testing.assert_allclose(got[1, :, c_a], [1.0, 0.5])


def test_category_blocks_match_dense_weights_and_a_loop() -> None:
    rng = np.random.default_rng(2)
    n_models, n_items = 25, 600
    scores = (rng.random((n_models, n_items)) < 0.5).astype(float)
    scores[rng.random(scores.shape) < 0.03] = NAN
    cats = [f"c{k}" for k in rng.integers(0, 5, n_items)]
    pools = prepare_pools(_pools(scores, cats))
    W = (rng.random((n_items, 3)) < 0.3) * rng.uniform(0.5, 2.0, (n_items, 3))  # real-valued weights
    rows = np.sort(rng.permutation(n_models)[:12])
    got = CategoryBlocks.from_pools(pools).kept_means(W, rows)
    dense = (W[:, :, None] * pools.onehot()[:, None, :]).reshape(n_items, -1)
    ref = weighted_group_means(pools.scores[rows], dense).reshape(12, 3, pools.n_categories)
    np.testing.assert_allclose(got, ref, rtol=1e-12)
    for j in range(3):
        for c, cols in enumerate(pools.columns):
            w = W[cols, j]
            x = pools.scores[np.ix_(rows, cols)]
            ok = ~np.isnan(x) & (w > 0)
            expected = np.where(
                ok.any(axis=1), (np.where(ok, x, 0) * w).sum(1) / (ok * w).sum(1).clip(1e-300), NAN
            )
            np.testing.assert_allclose(got[:, j, c], expected, rtol=1e-12)


def test_category_blocks_with_an_empty_category() -> None:
    scores = np.array([[1.0, 0.0, 1.0, 1.0], [0.0, 1.0, NAN, 0.0]])
    pools = prepare_pools(_pools(scores, ["A", "B", "A", "C"])).subset_items(
        np.array([True, True, True, False])
    )
    assert pools.columns[pools.categories.index("C")].shape == (0,)
    W = np.ones((3, 1))
    got = CategoryBlocks.from_pools(pools).kept_means(W, np.array([0, 1]))
    a, b, c = (pools.categories.index(k) for k in "ABC")
    np.testing.assert_allclose(got[:, 0, a], [1.0, 0.0])  # model 1: item 2 missing -> mean of item 0
    np.testing.assert_allclose(got[:, 0, b], [0.0, 1.0])
    assert np.isnan(got[:, 0, c]).all()


def test_category_blocks_float32_counts_equal_the_float64_products() -> None:
    """0/1 scores are kept as float32 (whole counts, exact): the same means, bit for bit, as the float64
    values, with 0/1 weights (float32 products) and real weights (rows taken back to float64), in the items'
    own order and in a shuffled category order."""
    rng = np.random.default_rng(5)
    n_models, n_items = 40, 900
    scores = (rng.random((n_models, n_items)) < 0.4).astype(float)
    scores[rng.random(scores.shape) < 0.04] = NAN
    for cats in (["A"] * n_items, [f"c{k}" for k in rng.integers(0, 4, n_items)]):
        blocks = CategoryBlocks.from_pools(prepare_pools(_pools(scores, cats)))
        assert blocks.values.dtype == np.float32 and blocks.in_order == (len(set(cats)) == 1)
        wide = replace(blocks, values=blocks.values.astype(np.float64))
        rows = np.sort(rng.permutation(n_models)[:25])
        binary = (rng.random((n_items, 4)) < 0.1).astype(float)
        for W in (binary, binary * rng.uniform(0.5, 2.0, binary.shape), np.asfortranarray(binary)):
            np.testing.assert_array_equal(blocks.kept_means(W, rows), wide.kept_means(W, rows))
    partial = np.where(np.isnan(scores), NAN, scores * 0.5)
    partial_blocks = CategoryBlocks.from_pools(prepare_pools(_pools(partial, ["A"] * n_items)))
    assert partial_blocks.values.dtype == np.float64
