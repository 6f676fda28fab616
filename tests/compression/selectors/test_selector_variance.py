"""Variance selection: category-wide top-K by PRIMEBench Eq. 5, seeded random tie-breaking."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from benchsift.compression.selectors.variance import VarianceSelector, variance_scores
from benchsift.errors import InputError


def test_eq5_hand_computed() -> None:
    # Item 0: 1, 0, 1, 0 -> mean .5, sum of squares 1, M = 4: Eq. 5 = 1 / 2 = 0.5, plug-in v = 0.25.
    # Item 1: 1, 1, NaN, 0 -> mean 2/3, sum of squares 2/9 * 3 = 2/3, M = 3: Eq. 5 = (2/3)/sqrt(3), v = 2/9.
    x = np.array([[1, 1, 0.5], [0, 1, 0.5], [1, np.nan, 0.5], [0, 0, 0.5]], dtype=float)
    score, sigma2 = variance_scores(x)
    np.testing.assert_allclose(sigma2, [0.5, (2 / 3) / np.sqrt(3), 0.0])
    np.testing.assert_allclose(score, [0.25, 2 / 9, 0.0])
    eq5, _ = variance_scores(x, "eq5")
    np.testing.assert_allclose(eq5, sigma2)
    assert np.isnan(variance_scores(np.full((3, 1), np.nan))[0][0])


def test_picks_planted_high_variance_items() -> None:
    rng = np.random.default_rng(0)
    m, n = 30, 300
    x = (rng.random((m, n)) < 0.03).astype(float)  # low-variance items (p ~ 0.03)
    planted = rng.choice(n, 25, replace=False)
    x[:, planted] = (rng.random((m, 25)) < 0.5).astype(float)
    sel = VarianceSelector(random_state=1)
    kept = sel.select(x, 25, item_meta=pd.DataFrame({"benchmark": ["a"] * 200 + ["b"] * 100}))
    # Category-wide: no benchmark shares, the planted items win wherever they are.
    assert set(kept) == set(planted)
    assert set(sel.reasons_) == {"top"}
    np.testing.assert_allclose(sel.item_scores_, x.var(axis=0))


def test_rank_by_matters_only_with_unequal_counts() -> None:
    # Item 0: variance .25 over 4 models; item 1: variance .2222 over 9 -> plug-in prefers 0, Eq. 5 prefers 1.
    col0 = np.array([1, 0, 1, 0] + [np.nan] * 5)
    col1 = np.array([1, 1, 0, 1, 1, 0, 1, 1, 0], dtype=float)
    x = np.column_stack([col0, col1])
    assert VarianceSelector(rank_by="plugin").select(x, 1).tolist() == [0]
    assert VarianceSelector(rank_by="eq5").select(x, 1).tolist() == [1]
    with pytest.raises(InputError, match="rank_by"):
        VarianceSelector(rank_by="nope").select(x, 1)  # type: ignore[arg-type]


def test_ties_broken_by_seed_not_by_index() -> None:
    x = np.tile([[0.0], [1.0]], (1, 50))  # every item has the same variance
    picks = {tuple(VarianceSelector(random_state=s).select(x, 5)) for s in range(20)}
    assert len(picks) > 10
    first = np.zeros(50)
    for s in range(400):
        first[VarianceSelector(random_state=s).select(x, 5)] += 1
    assert first[:5].sum() < 0.3 * first.sum()  # not the lowest indices
    assert np.array_equal(
        VarianceSelector(random_state=3).select(x, 5), VarianceSelector(random_state=3).select(x, 5)
    )


def test_missing_items_rank_last() -> None:
    x = np.array([[np.nan, 0.0, 1.0], [np.nan, 0.0, 0.0]])
    assert VarianceSelector().select(x, 2).tolist() == [1, 2]
    assert VarianceSelector().select(x, 1).tolist() == [2]


def test_index_tie_break_keeps_the_lowest_indices_among_ties() -> None:
    """Tables 12 and 14: "Variance here breaks ties by item index"; registered as ``variance-index``."""
    from benchsift.compression.selectors.registry import make_selector
    from benchsift.compression.selectors.variance import IndexTieVarianceSelector

    x = np.tile([[0.0], [1.0]], (1, 50))  # 50 tied items (variance .25)
    x[:, [7, 30]] = [[0.0, 0.0], [0.0, 0.0]]  # two items with no variance rank below the ties
    for seed in range(5):  # the seed plays no part
        assert VarianceSelector(tie_break="index", random_state=seed).select(x, 5).tolist() == [0, 1, 2, 3, 4]
    assert VarianceSelector(tie_break="index").select(x, 9).tolist() == [0, 1, 2, 3, 4, 5, 6, 8, 9]
    x[:, 40] = [0.5, 0.6]  # a lower variance than the ties (0.0025): it ranks after all of them
    assert 40 not in VarianceSelector(tie_break="index").select(x, 47).tolist()
    sel = make_selector("variance-index", random_state=3)
    assert isinstance(sel, IndexTieVarianceSelector) and sel.tie_break == "index"
    assert sel.select(x, 5).tolist() == [0, 1, 2, 3, 4]
    with pytest.raises(InputError, match="tie_break"):
        VarianceSelector(tie_break="first").select(x, 1)  # type: ignore[arg-type]
