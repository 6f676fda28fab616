"""Importer ``inspect``: EvalLog .json and the .eval zip, score value mapping, epochs, scorers."""

from __future__ import annotations

import json
import shutil
import zipfile
from pathlib import Path

import numpy as np
import pytest
from warned import warned

from benchsift.errors import FormatError, InputError
from benchsift.io import read_inspect
from benchsift.io.inspect_logs import score_to_float

JSON_LOG = "2024-09-01T10-00-00+00-00_mmmu-multiple-choice_Hc9xk2.json"


def make_eval_zip(fixtures: Path, target: Path) -> Path:
    """Pack the hand-written members in fixtures/io/inspect/chartqa_eval into an .eval archive."""
    src = fixtures / "inspect" / "chartqa_eval"
    with zipfile.ZipFile(target, "w", compression=zipfile.ZIP_DEFLATED) as zf:
        for member in sorted(src.rglob("*.json")):
            zf.write(member, member.relative_to(src).as_posix())
    return target


def test_json_log(fixtures: Path) -> None:
    p = read_inspect(fixtures / "inspect" / JSON_LOG)
    assert p.model_ids == ["openai/gpt-4o"]
    assert p.benchmarks == ["mmmu_multiple_choice"]
    assert [k[1] for k in p.item_keys] == ["validation_Art_1", "validation_Art_2", "validation_Art_3"]
    # C -> 1, I -> 0, errored sample without scores -> missing
    np.testing.assert_array_equal(p.scores, [[1.0, 0.0, np.nan]])
    assert p.items["category"].tolist() == ["Art", "Art", "Art"]


def test_eval_zip_with_epochs(tmp_path: Path, fixtures: Path) -> None:
    path = make_eval_zip(fixtures, tmp_path / "2024-10-02T09-30-00+00-00_chartqa_Lk3jH5.eval")
    notes: list[str] = []
    p = read_inspect(path, notes=notes)
    assert p.model_ids == ["anthropic/claude-3-5-sonnet-20240620"]
    assert [k[1] for k in p.item_keys] == ["11", "12", "13"]
    # epochs averaged: (C=1 + I=0)/2, (P + P)/2 = 0.5, (N=0 + I=0)/2
    np.testing.assert_allclose(p.scores, [[0.5, 0.5, 0.0]])
    assert any("6 sample-epochs, reducer 'mean', reduced here" in n for n in notes)


def test_eval_zip_unfinished_journal(tmp_path: Path, fixtures: Path) -> None:
    src = fixtures / "inspect" / "chartqa_eval"
    work = tmp_path / "members"
    shutil.copytree(src, work)
    (work / "_journal").mkdir()
    header = json.loads((work / "header.json").read_text())
    start = {"version": 2, "eval": header["eval"], "plan": header["plan"]}
    (work / "_journal" / "start.json").write_text(json.dumps(start))
    (work / "header.json").unlink()
    target = tmp_path / "partial.eval"
    with zipfile.ZipFile(target, "w") as zf:
        for member in sorted(work.rglob("*.json")):
            zf.write(member, member.relative_to(work).as_posix())
    p = warned(read_inspect, target, model="claude", expect=["log status 'started' (an unfinished run)"])
    assert p.model_ids == ["claude"]
    assert p.n_items == 3


@pytest.mark.parametrize(
    ("value", "expected"),
    [("C", 1.0), ("I", 0.0), ("P", 0.5), ("N", 0.0), ("yes", 1.0), ("False", 0.0), ("0.25", 0.25), (3, 3.0)],
)
def test_score_values(value: object, expected: float) -> None:
    assert score_to_float(value, "here", None) == expected


def test_score_value_errors() -> None:
    with pytest.raises(InputError, match="here: score value 'maybe'"):
        score_to_float("maybe", "here", None)
    with pytest.raises(InputError, match="choose one with `metric`"):
        score_to_float({"a": 1, "b": 0}, "here", None)
    assert score_to_float({"a": 1, "b": 0}, "here", "b") == 0.0
    assert np.isnan(score_to_float(None, "here", None))


def test_scorer_choice_and_errors(tmp_path: Path, fixtures: Path) -> None:
    log = json.loads((fixtures / "inspect" / JSON_LOG).read_text())
    for s in log["samples"][:2]:
        s["scores"]["match"] = {"value": 1}
    f = tmp_path / "two_scorers.json"
    f.write_text(json.dumps(log))
    with pytest.raises(InputError, match=r"several scorers \['choice', 'match'\]"):
        read_inspect(f)
    p = read_inspect(f, scorer="match")
    np.testing.assert_array_equal(p.scores, [[1.0, 1.0, np.nan]])
    log["samples"][1]["scores"]["choice"]["value"] = "Z"
    f.write_text(json.dumps(log))
    with pytest.raises(InputError, match=r"two_scorers\.json, samples\[1\]: score value 'Z'"):
        read_inspect(f, scorer="choice")
    bad = tmp_path / "bad.eval"
    bad.write_text("not a zip")
    with pytest.raises(FormatError, match=r"bad\.eval: not an inspect \.eval archive"):
        read_inspect(bad)
    f.write_text(json.dumps({"version": 2}))
    with pytest.raises(FormatError, match="not an inspect EvalLog"):
        read_inspect(f)
