"""Judge audits (PRISM-VLM Sec. 5.3, App. C, Table 7, Table 21)."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from sklearn.metrics import cohen_kappa_score

from benchsift.prism.audit import cohen_kappa, cross_judge_audit, judge_human_agreement, load_labels
from benchsift.simulate.verdicts import simulate_verdict_arrays


def test_kappa_matches_sklearn() -> None:
    rng = np.random.default_rng(0)
    for k in (2, 3, 5):
        a = rng.integers(0, k, 300)
        b = np.where(rng.random(300) < 0.7, a, rng.integers(0, k, 300))
        assert cohen_kappa(a, b) == pytest.approx(cohen_kappa_score(a, b))


def test_kappa_hand_case_and_degenerate() -> None:
    # po = 3/4, pe = (2/4)(1/4) + (2/4)(3/4) = 1/2 -> kappa = 0.5
    assert cohen_kappa([1, 1, 0, 0], [1, 0, 0, 0]) == pytest.approx(0.5)
    assert np.isnan(cohen_kappa([1, 1], [1, 1]))
    assert cohen_kappa(np.array([1, None, 0], dtype=object), [1, 0, 0]) == pytest.approx(
        1.0
    )  # missing pair dropped


def test_judge_human_table() -> None:
    labels = pd.DataFrame(
        {"axis": ["q"] * 4 + ["h"] * 4, "judge": [1, 1, 0, 0, 1, 0, 1, 0], "human": [1, 0, 0, 0, 1, 0, 1, 0]}
    )
    t = judge_human_agreement(labels)
    assert t.loc["q", "kappa"] == pytest.approx(0.5) and t.loc["q", "disagreement"] == pytest.approx(0.25)
    assert t.loc["h", "kappa"] == pytest.approx(1.0) and t.loc["h", "disagreement"] == 0.0
    assert t.loc["overall", "n"] == 8
    assert t.loc["overall", "kappa"] == pytest.approx(cohen_kappa_score(labels["judge"], labels["human"]))


def test_cross_judge_audit_identical_and_noisy() -> None:
    levels = np.repeat(np.linspace(0.2, 0.8, 10)[:, None], 7, axis=1)
    arrays, _, _ = simulate_verdict_arrays(10, 1500, levels=levels, random_state=0)
    same = cross_judge_audit(arrays, arrays, n_items=200, random_state=0)
    assert (same.table["rho"] == 1.0).all() and same.admitted_axes == list(arrays.axes)
    assert (same.table["n_items"] == 200).all() and same.overall == pytest.approx(1.0)
    # a second judge that randomises 90 % of the q verdicts cannot reproduce the q leaderboard
    rng = np.random.default_rng(1)
    scores = arrays.scores.copy()
    q = arrays.axis_index("q")
    noise = rng.random(scores.shape[:2]) < 0.9
    scores[:, :, q] = np.where(noise, rng.integers(0, 2, scores.shape[:2]), scores[:, :, q])
    other = dataclasses.replace(arrays, scores=scores, models=list(arrays.models))
    # the second judge's file lists models in another order: aligned by name
    perm = np.arange(10)[::-1]
    assert other.sc_turn0_correct is not None and other.sc_flip_turn is not None
    assert other.sc_adopted is not None and other.partial is not None
    other = dataclasses.replace(
        other,
        models=[other.models[i] for i in perm],
        scores=other.scores[perm],
        sc_turn0_correct=other.sc_turn0_correct[perm],
        sc_flip_turn=other.sc_flip_turn[perm],
        sc_adopted=other.sc_adopted[perm],
        partial=other.partial[perm],
    )
    noisy = cross_judge_audit(arrays, other, n_items=200, random_state=0)
    assert noisy.table.loc["q", "rho"] < 0.95 and "q" not in noisy.admitted_axes
    assert noisy.table.drop(index="q")["rho"].eq(1.0).all()


def test_labels_compare_by_value_when_a_missing_entry_makes_a_column_float(tmp_path: Path) -> None:
    """A CSV human column with one empty cell is read as float (1.0, 0.0, NaN): it must still agree with
    the judge's int labels (1, 0), and the row with the missing label is left out."""
    p = tmp_path / "labels.csv"
    p.write_text("axis,judge,human\nq,1,1\nq,0,0\nq,1,\nq,0,0\nh,1,1\nh,0, 1\n")

    t = judge_human_agreement(load_labels(p))
    assert t.loc["q", "disagreement"] == 0.0 and t.loc["q", "kappa"] == pytest.approx(1.0)
    assert t.loc["q", "n"] == 3
    assert t.loc["h", "disagreement"] == pytest.approx(0.5)  # labels compare stripped
    assert cohen_kappa([1, 0, 1], [1.0, 0.0, 1.0]) == pytest.approx(1.0)
