"""Scoring of the held-out protocols (PRIMEBench D.3): NaN-aware weighted group means, dense and sparse."""

from __future__ import annotations

import numpy as np
from scipy import sparse

from benchsift.compression.protocols._pools import selection_groups, weighted_group_means

NAN = np.nan


def test_weighted_group_means_by_hand() -> None:
    X = np.array([[1.0, 0.0, 1.0, NAN], [NAN, NAN, 0.0, 1.0]])
    W = np.array([[1.0, 0.0], [1.0, 0.0], [0.0, 2.0], [0.0, 1.0]])
    # row 0: group 0 (1 + 0) / 2; group 1 (2 * 1) / 2 (item 3 missing: its weight leaves the denominator)
    # row 1: group 0 has no observed item -> NaN; group 1 (2 * 0 + 1 * 1) / 3
    expected = np.array([[0.5, 1.0], [NAN, 1.0 / 3.0]])
    np.testing.assert_allclose(weighted_group_means(X, W), expected)
    np.testing.assert_allclose(weighted_group_means(X, sparse.csr_array(W)), expected)
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
    np.testing.assert_allclose(weighted_group_means(X, sparse.csc_array(masks.astype(float))), loop, rtol=1e-12)


def test_selection_groups_layout() -> None:
    W = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0], [0.0, 0.0]])
    codes = np.array([0, 1, 1, 0])
    G = selection_groups(W, codes, 2)
    # column j * n_groups + c: set j's weights on group c's items
    dense = np.array(
        [
            [1.0, 0.0, 0.0, 0.0],
            [0.0, 0.0, 0.0, 1.0],
            [0.0, 1.0, 0.0, 1.0],
            [0.0, 0.0, 0.0, 0.0],
        ]
    )
    np.testing.assert_array_equal(G.toarray(), dense)
    assert G.nnz == 4
    # same means as the dense (W x one-hot) weights the protocol used to build
    rng = np.random.default_rng(1)
    X = rng.random((5, 4))
    X[0, 2] = NAN
    onehot = np.eye(2)[codes]
    dense_g = (W[:, :, None] * onehot[:, None, :]).reshape(4, 4)
    np.testing.assert_allclose(weighted_group_means(X, G), weighted_group_means(X, dense_g))
