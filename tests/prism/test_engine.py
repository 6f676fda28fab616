"""``StageResult.incomplete``: the one line an engine stage prints when it lost too many requests."""

from __future__ import annotations

from pathlib import Path

from benchsift.prism.engine import StageResult


def test_incomplete_names_the_most_common_cause_and_the_first_among_ties() -> None:
    # 64 causes, each lost twice: the line must not depend on string hashing (PYTHONHASHSEED)
    causes = [f"model-{i:02d}: HTTP 400" for i in range(64)]
    res = StageResult("run", Path("records.jsonl"), {}, lost=128, total=128, errors=causes + causes)
    assert res.incomplete(0.1) == "nothing was answered; first cause: model-00: HTTP 400"
    res = StageResult("run", Path("r"), {}, lost=4, total=8, errors=["a: x", "b: y", "b: y", "a: x"])
    assert res.incomplete(0.1) == "4 of 8 got no answer; first cause: a: x"
    res = StageResult("run", Path("r"), {}, lost=3, total=8, errors=["a: x", "b: y", "b: y"])
    assert res.incomplete(0.1) == "3 of 8 got no answer; first cause: b: y"
    assert res.incomplete(0.5) is None
