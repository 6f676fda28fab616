"""Near-duplicate items: copied response columns and near-identical question texts are found, distinct
ones are not."""

from __future__ import annotations

import numpy as np
import pandas as pd
from warned import calling

from benchsift.audit import audit, response_duplicates, text_duplicates
from benchsift.panel import Panel


def _panel_with_copies(seed: int = 0) -> tuple[Panel, set[tuple[str, str]]]:
    rng = np.random.default_rng(seed)
    m, n = 60, 80
    theta = rng.standard_normal(m)
    b = rng.normal(0, 1, n)
    X = (rng.random((m, n)) < 1 / (1 + np.exp(-(theta[:, None] - b)))).astype(float)
    copies = {(5, 40), (12, 70), (30, 31)}
    for src, dst in copies:
        X[:, dst] = X[:, src]
    X[0, 70] = 1 - X[0, 70]  # a near-identical copy: one model of 60 differs (tolerance 0.02)
    ids = [f"q{i:03d}" for i in range(n)]
    words = "red green blue cat dog bird tree rock sun moon star river hill lake cloud rain".split()
    questions = [" ".join(rng.choice(words, size=8)) + f" number {i}?" for i in range(n)]
    questions[55] = "  " + questions[20].upper()  # the same question up to case and spacing
    items = pd.DataFrame({"benchmark": "b", "item": ids, "question": questions})
    truth = {(ids[a], ids[c]) for a, c in copies}
    return Panel(X, [f"m{i}" for i in range(m)], items), truth


def test_copied_columns_are_found_and_nothing_else() -> None:
    panel, truth = _panel_with_copies()
    pairs = response_duplicates(panel.scores)
    ids = panel.items["item"].to_numpy()
    found = {(ids[a], ids[c]) for a, c in zip(pairs["item_a"], pairs["item_b"], strict=True)}
    assert found == truth
    sim = dict(zip(zip(pairs["item_a"], pairs["item_b"], strict=True), pairs["similarity"], strict=True))
    assert sim[(12, 70)] == 1 - 1 / 60 and sim[(5, 40)] == 1.0


def test_strict_tolerance_and_minority() -> None:
    panel, _ = _panel_with_copies()
    exact = response_duplicates(panel.scores, tolerance=0.0)
    assert (12, 70) not in set(zip(exact["item_a"], exact["item_b"], strict=True))
    X = np.zeros((20, 3))
    X[0] = 1.0  # every item right for one model only: too little to call a duplicate
    assert len(response_duplicates(X)) == 0
    assert len(response_duplicates(X, min_minority=1)) == 3


def test_text_duplicates() -> None:
    panel, _ = _panel_with_copies()
    pairs = text_duplicates(panel.items["question"].tolist())
    assert list(zip(pairs["item_a"], pairs["item_b"], strict=True)) == [(20, 55)]
    assert pairs["similarity"].iloc[0] > 0.95
    assert len(text_duplicates(["", None, "x"])) == 0


def test_audit_flags_both_kinds() -> None:
    panel, truth = _panel_with_copies()
    res = calling(audit, panel, dif_by="none")
    flagged = res.items.set_index("item")["flags"]
    for a, c in truth:
        assert "duplicate-responses" in flagged[a] and "duplicate-responses" in flagged[c]
    assert "duplicate-text" in flagged["q020"] and "duplicate-text" in flagged["q055"]
    assert res.items.set_index("item").loc["q040", "duplicate_of"] == ("q005",)
    assert set(res.duplicates["kind"]) == {"responses", "text"}
    assert not any("question" in w for w in res.warnings)
    bare = Panel(panel.scores, panel.model_ids, panel.items[["benchmark", "item"]])
    assert (
        "duplicate-text not computed: the items table has no 'question' text"
        in calling(audit, bare, dif_by="none").warnings
    )
