"""Verdict table loading and validation, dense arrays, axis means and sc variants (PRISM-VLM App. C, E.2)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from benchsift.errors import InputError
from benchsift.io.verdicts import build_arrays, load_axis_means, load_verdicts, validate_verdicts
from benchsift.prism.scores import axis_means, axis_means_frame, sc_scores
from benchsift.simulate.verdicts import simulate_verdicts


def _row(model: str, item: str, axis: str, score: float | None, answered: bool = True, **kw: object) -> dict:
    return {
        "model": model,
        "item": item,
        "benchmark": "b",
        "domain": "d",
        "axis": axis,
        "score": score,
        "answered": answered,
        **kw,
    }


def _sc(
    model: str, item: str, t0: bool, flip: int | None, adopted: str | None = None, answered: bool = True
) -> dict:
    return _row(
        model, item, "sc", np.nan, answered, sc_turn0_correct=t0, sc_flip_turn=flip, sc_adopted=adopted
    )


def hand_table() -> pd.DataFrame:
    rows = [
        _row("A", "1", "q", 1.0),
        _row("A", "2", "q", 0.0),
        _row("A", "3", "q", 1.0),
        _row("A", "4", "q", np.nan, answered=False),
        _row("B", "1", "q", 0.5),
        _row("B", "2", "q", 0.5),
        _row("B", "3", "q", 0.0),
        _row("B", "4", "q", 1.0),
        # model A, sc: six answered items + one unanswered
        _sc("A", "1", True, None),
        _sc("A", "2", True, 1),
        _sc("A", "3", True, 3, "yes"),
        _sc("A", "4", True, 3, "no"),
        _sc("A", "5", False, None),
        _sc("A", "6", False, 2),
        _sc("A", "7", True, 1, answered=False),
        _sc("B", "1", True, None),
        _sc("B", "2", True, None),
        _sc("B", "3", False, 3, "unknown"),
    ]
    return pd.DataFrame(rows)


def test_axis_means_exclude_unanswered() -> None:
    arrays = build_arrays(hand_table())
    m = axis_means_frame(arrays)
    assert m.loc["A", "q"] == pytest.approx(2 / 3)  # item 4 unanswered: excluded, not scored 0
    assert m.loc["B", "q"] == pytest.approx(0.5)
    assert np.isnan(arrays.scores[0, 3, arrays.axis_index("q")])


def test_sc_variants_hand_case() -> None:
    sc = sc_scores(build_arrays(hand_table()))
    a = sc.loc["A"]
    assert a["sc_B"] == pytest.approx(1 / 4)  # held among the 4 turn-0-correct items
    assert a["sc_A"] == pytest.approx(2 / 6)  # held among all 6 answered items
    assert a["sc_corr"] == pytest.approx(3 / 4)  # only the confirmed Q3 adoption scores 0
    assert a["sc_reach"] == pytest.approx(2 / 3)  # items 1, 3, 4 reached Q3; item 3 adopted
    assert a["instability"] == pytest.approx(1 / 4)  # Q1/Q2 flip (item 2)
    assert a["n_turn0_correct"] == 4
    b = sc.loc["B"]
    assert b["sc_B"] == 1.0 and b["sc_A"] == pytest.approx(2 / 3)
    assert b["sc_corr"] == 1.0  # 'unknown' is not a confirmed adoption
    # the sc column of axis_means is sc_B by default, sc_A on request
    arrays = build_arrays(hand_table())
    j = arrays.axis_index("sc")
    assert axis_means(arrays)[0, j] == pytest.approx(1 / 4)
    assert axis_means(arrays, sc_variant="A")[0, j] == pytest.approx(2 / 6)


def test_csv_and_parquet_roundtrip(tmp_path: Path) -> None:
    sim = simulate_verdicts(3, 40, unanswered_rate=0.1, random_state=2)
    sim.table.to_csv(tmp_path / "v.csv", index=False)
    sim.table.to_parquet(tmp_path / "v.parquet")
    for name in ("v.csv", "v.parquet"):
        arrays = build_arrays(load_verdicts(tmp_path / name), validated=True)
        np.testing.assert_array_equal(np.isnan(arrays.scores), np.isnan(sim.arrays.scores))
        np.testing.assert_allclose(np.nan_to_num(arrays.scores), np.nan_to_num(sim.arrays.scores))
        np.testing.assert_allclose(axis_means(arrays), axis_means(sim.arrays))
        np.testing.assert_allclose(sc_scores(arrays).to_numpy(), sc_scores(sim.arrays).to_numpy())


@pytest.mark.parametrize(
    ("mutate", "pattern"),
    [
        (lambda t: t.drop(columns=["answered"]), "missing column"),
        (lambda t: t.assign(score=t["score"].where(t.index != 1, 1.5)), r"'score' row 1.*\[0, 1\]"),
        (lambda t: pd.concat([t, t.iloc[[0]]], ignore_index=True), "duplicate"),
        (lambda t: t.assign(score=t["score"].where(t.index != 0, np.nan)), "answered=True but no score"),
        (
            lambda t: t.assign(answered=t["answered"].astype(object).where(t.index != 2, "maybe")),
            "'answered' row 2",
        ),
        (
            lambda t: t.assign(sc_flip_turn=t["sc_flip_turn"].astype(object).where(t.index != 8, 4)),
            "sc_flip_turn",
        ),
        (lambda t: t.assign(sc_adopted=t["sc_adopted"].where(t.index != 10, "perhaps")), "sc_adopted"),
        (lambda t: t.assign(domain=t["domain"].where(t.index != 4, "other")), "more than one domain"),
    ],
)
def test_validation_errors(mutate: Callable[[pd.DataFrame], pd.DataFrame], pattern: str) -> None:
    with pytest.raises(InputError, match=pattern):
        validate_verdicts(mutate(hand_table()), source="t.csv")


def test_unanswered_score_is_ignored_not_zero() -> None:
    t = hand_table()
    t.loc[3, "score"] = 0.0  # an unanswered row carrying a 0 must not count as 0
    m = axis_means_frame(build_arrays(t))
    assert m.loc["A", "q"] == pytest.approx(2 / 3)


def test_load_verdicts_bad_file(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="not found"):
        load_verdicts(tmp_path / "none.csv")
    (tmp_path / "x.json").write_text("{}")
    with pytest.raises(InputError, match="csv or .parquet"):
        load_verdicts(tmp_path / "x.json")


def test_axis_means_file(tmp_path: Path) -> None:
    p = tmp_path / "m.csv"
    pd.DataFrame({"model": ["a", "b"], "q": [0.5, 0.7], "sc": [0.2, 0.9], "note": ["x", "y"]}).to_csv(
        p, index=False
    )
    means, extra = load_axis_means(p)
    assert list(means.columns) == ["q", "sc"] and list(extra.columns) == ["note"]
    pd.DataFrame({"model": ["a"], "q": [1.5]}).to_csv(p, index=False)
    with pytest.raises(InputError, match="'q' row 0"):
        load_axis_means(p)


def test_simulated_axis_means_recover_truth() -> None:
    sim = simulate_verdicts(4, 4000, item_sd=0.5, random_state=7)
    est = axis_means(sim.arrays)
    n = 4000
    # binomial standard error (sc: over the ~q*n turn-0-correct items); allow 4 SE
    se = np.sqrt(sim.true_means.to_numpy() * (1 - sim.true_means.to_numpy()) / (0.25 * n))
    assert np.all(np.abs(est - sim.true_means.to_numpy()) <= 4 * se)


def test_mq_partial_credit_hand_case() -> None:
    """App. E "Partial-credit scoring": mq is 1 iff every bundled answer is right; partial credit is the
    mean fraction right over the model's answered items (an unanswered item stays out)."""
    rows = [
        _row("A", "1", "mq", 1.0, partial=1.0),
        _row("A", "2", "mq", 0.0, partial=0.5),
        _row("A", "3", "mq", 0.0, partial=0.25),
        _row("A", "4", "mq", np.nan, answered=False, partial=np.nan),
        _row("B", "1", "mq", 0.0, partial=2 / 3),
        _row("B", "2", "mq", 1.0, partial=1.0),
        _row("B", "3", "mq", 0.0, partial=0.0),
        _row("B", "4", "mq", 0.0, partial=0.5),
    ]
    arrays = build_arrays(pd.DataFrame(rows))
    strict = axis_means_frame(arrays)["mq"]
    partial = axis_means_frame(arrays, mq_partial=True)["mq"]
    assert strict["A"] == pytest.approx(1 / 3) and strict["B"] == pytest.approx(1 / 4)
    assert partial["A"] == pytest.approx((1.0 + 0.5 + 0.25) / 3)
    assert partial["B"] == pytest.approx((2 / 3 + 1.0 + 0.0 + 0.5) / 4)
    no_partial = build_arrays(pd.DataFrame(rows).drop(columns=["partial"]))
    with pytest.raises(InputError, match="partial"):
        axis_means(no_partial, mq_partial=True)
