"""DISCO prediction disagreement: PDS (distinct answers) and JSD (answer entropy), scored by the mean."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from benchsift.compression.selectors.disco import DiscoSelector, answer_codes, disagreement_scores
from benchsift.errors import InputError


def test_pds_and_jsd_hand_computed() -> None:
    preds = np.array(
        [["A", "A", "B", None], ["A", "B", "C", None], ["A", "B", "B", None], ["A", "C", "B", None]],
        dtype=object,
    )
    codes = answer_codes(preds, preds.shape)
    assert (codes[:, 3] == -1).all()
    pds = disagreement_scores(codes, "pds")
    np.testing.assert_array_equal(pds[:3], [1, 3, 2])
    assert np.isnan(pds[3])
    jsd = disagreement_scores(codes, "jsd")
    np.testing.assert_allclose(jsd[:3], [0.0, stats.entropy([1, 2, 1]), stats.entropy([3, 1])], atol=1e-12)
    assert np.isnan(jsd[3])


def test_entropy_matches_scipy_on_random_codes() -> None:
    rng = np.random.default_rng(0)
    codes = rng.integers(-1, 5, size=(37, 60))
    jsd = disagreement_scores(codes, "jsd")
    pds = disagreement_scores(codes, "pds")
    for j in range(60):
        col = codes[:, j][codes[:, j] >= 0]
        _, counts = np.unique(col, return_counts=True)
        assert abs(jsd[j] - stats.entropy(counts)) < 1e-12
        assert pds[j] == counts.size


def test_on_binary_scores_counts_distinct_outcomes() -> None:
    rng = np.random.default_rng(1)
    x = (rng.random((20, 100)) < 0.5).astype(float)
    x[:, :60] = 0.0  # 60 items every build model fails: one outcome
    x[3, 60] = np.nan
    sel = DiscoSelector(random_state=0)
    kept = sel.select(x, 40)
    assert sel.source_ == "scores"
    np.testing.assert_array_equal(sel.item_scores_[:60], 1.0)
    assert np.all(sel.item_scores_[60:] == 2.0)
    assert kept.min() >= 60  # only items that split the models
    # PDS ties at 2 are broken by the seed.
    assert not np.array_equal(kept, DiscoSelector(random_state=1).select(x, 30))


def test_continuous_scores_are_rounded_before_counting() -> None:
    x = np.array([[0.3, 0.1], [0.3 + 1e-12, 0.2], [0.3, 0.3]])
    d = DiscoSelector().select(x, 1)
    assert d.tolist() == [1]


def test_logged_answers_pick_disagreement_items() -> None:
    rng = np.random.default_rng(2)
    m, n = 25, 200
    # Every item is answered right by about half the models (same 0/1 variance), but on the planted items
    # the wrong answers are spread over three distractors instead of one.
    correct = rng.random((m, n)) < 0.5
    planted = rng.choice(n, 30, replace=False)
    wrong = np.where(np.isin(np.arange(n), planted)[None, :], rng.choice(["B", "C", "D"], (m, n)), "B")
    preds = np.where(correct, "A", wrong).astype(object)
    sel = DiscoSelector(random_state=0)
    kept = sel.select(correct.astype(float), 30, predictions=preds)
    assert sel.source_ == "predictions"
    assert set(kept) == set(planted)
    kept_jsd = DiscoSelector(criterion="jsd").select(correct.astype(float), 30, predictions=preds)
    assert len(set(kept_jsd) & set(planted)) >= 25


def test_bad_input() -> None:
    x = np.zeros((3, 4))
    with pytest.raises(InputError, match="predictions: expected shape"):
        DiscoSelector().select(x, 2, predictions=np.zeros((3, 5)))
    with pytest.raises(InputError, match="criterion"):
        DiscoSelector(criterion="kl").select(x, 2)  # type: ignore[arg-type]
    with pytest.raises(InputError, match="decimals"):
        DiscoSelector(decimals=-1).select(x, 2)
