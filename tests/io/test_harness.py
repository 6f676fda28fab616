"""Importers ``lmms-eval`` and ``lm-eval``: hand-checked fixture values, metric/filter choice, errors."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from warned import warned

from benchsift.errors import FormatError, InputError
from benchsift.io import read_lm_eval, read_lmms_eval
from benchsift.io._harness import dict_score


def _score(panel, bench: str, item: str) -> float:  # type: ignore[no-untyped-def]
    return float(panel.scores[0, panel.item_keys.index((bench, item))])


def test_lmms_eval_folder(fixtures: Path) -> None:
    notes: list[str] = []
    p = read_lmms_eval(fixtures / "lmms_eval" / "llava-hf__llava-1.5-7b-hf", notes=notes)
    assert p.model_ids == ["llava-hf/llava-1.5-7b-hf"]  # from the results json's model_name
    assert p.benchmarks == ["ai2d", "mme", "mmmu_val"]
    # ai2d: exact_match 1, 0, 0
    assert [_score(p, "ai2d", i) for i in "012"] == [1.0, 0.0, 0.0]
    # mme: perception 1, perception 0, and a cognition item scored through the second configured metric
    assert [_score(p, "mme", i) for i in "012"] == [1.0, 0.0, 1.0]
    # mmmu: B==B, A!=D, open "12" matches 12.0, B not in [A, C]
    assert [_score(p, "mmmu_val", i) for i in "0123"] == [1.0, 0.0, 1.0, 0.0]
    cats = dict(zip(p.item_keys, p.items["category"], strict=True))
    assert cats[("mme", "2")] == "commonsense_reasoning"
    assert cats[("mmmu_val", "2")] == "Math"
    assert any("metric 'mmmu_acc'" in n for n in notes)


def test_lmms_eval_model_override_and_single_file(fixtures: Path) -> None:
    f = fixtures / "lmms_eval" / "llava-hf__llava-1.5-7b-hf" / "20240708_120000_samples_ai2d.jsonl"
    p = warned(
        read_lmms_eval, f, model="llava-1.5-7b", condition="text-only", benchmark="AI2D", expect=["--limit 4"]
    )
    assert p.model_ids == ["llava-1.5-7b"]
    assert p.models["condition"].tolist() == ["text-only"]
    assert p.benchmarks == ["AI2D"]


def test_lm_eval_filters(fixtures: Path) -> None:
    with pytest.raises(
        InputError, match=r"samples_gsm8k_.*several filters \['strict-match', 'flexible-extract'\]"
    ):
        read_lm_eval(fixtures / "lm_eval" / "EleutherAI__pythia-160m")
    folder = fixtures / "lm_eval" / "EleutherAI__pythia-160m"
    flex = warned(read_lm_eval, folder, filter="flexible-extract", expect=["a run with --limit 3"])
    strict = warned(read_lm_eval, folder, filter="strict-match", expect=["a run with --limit 3"])
    assert flex.model_ids == ["EleutherAI/pythia-160m"]
    assert [_score(flex, "gsm8k", i) for i in "01"] == [1.0, 0.0]
    assert [_score(strict, "gsm8k", i) for i in "01"] == [0.0, 0.0]
    # arc_easy: the sample's first listed metric is acc (1, 1, 0); acc_norm on request (0, 1, 0)
    assert [_score(flex, "arc_easy", i) for i in "012"] == [1.0, 1.0, 0.0]
    arc = (
        fixtures / "lm_eval" / "EleutherAI__pythia-160m" / "samples_arc_easy_2024-07-08T12-00-00.123456.jsonl"
    )
    norm = warned(read_lm_eval, arc, metric="acc_norm", expect=["a run with --limit 3"])
    assert [_score(norm, "arc_easy", i) for i in "012"] == [0.0, 1.0, 0.0]


def test_lm_eval_model_from_folder_when_no_results(tmp_path: Path) -> None:
    d = tmp_path / "org__model-x"
    d.mkdir()
    (d / "samples_boolq_2024-01-01T00-00-00.000001.jsonl").write_text(
        json.dumps({"doc_id": 0, "filter": "none", "metrics": ["acc"], "acc": 1.0})
        + "\n"
        + json.dumps({"doc_id": 1, "filter": "none", "metrics": ["acc"], "acc": 0})
        + "\n"
    )
    p = read_lm_eval(d)
    assert p.model_ids == ["org/model-x"]
    assert p.benchmarks == ["boolq"]
    np.testing.assert_array_equal(p.scores, [[1.0, 0.0]])


def test_dict_score_rules() -> None:
    assert dict_score({"question_id": "x", "category": "count", "score": 0.0}) == 0.0
    assert dict_score({"answer": "C", "parsed_pred": "C"}) == 1.0
    assert dict_score({"answer": ["A", "B"], "parsed_pred": "B"}) == 1.0
    assert dict_score({"answer": "3.5", "parsed_pred": ["three", 3.5]}) == 1.0
    assert dict_score({"answer": "3.5", "parsed_pred": ["3.4"]}) == 0.0
    assert dict_score({"pred": "D", "answer_id": 3}) is None


def test_errors(tmp_path: Path) -> None:
    bad = tmp_path / "20240101_samples_x.jsonl"
    bad.write_text('{"doc_id": 0, "acc": 1}\n{"doc_id": 1, "acc": \n')
    with pytest.raises(FormatError, match=r"20240101_samples_x\.jsonl, line 2: not valid JSON"):
        read_lmms_eval(bad, model="m")
    bad.write_text('{"doc_id": 0, "acc": 1}\n{"doc_id": 1, "acc": "yes"}\n')
    with pytest.raises(InputError, match=r"line 2: metric 'acc' value 'yes' is not a number"):
        read_lmms_eval(bad, model="m")
    bad.write_text('{"doc_id": 0, "m1": 1, "m2": 0}\n')
    with pytest.raises(InputError, match="several metrics"):
        read_lmms_eval(bad, model="m")
    bad.write_text('{"doc_id": 0, "gpt_eval": {"pred": "A"}}\n')
    with pytest.raises(InputError, match="dict without a score field"):
        read_lmms_eval(bad, model="m")
    bad.write_text('{"doc_id": 0, "acc": 1}\n{"doc_id": 0, "acc": 0}\n')
    with pytest.raises(InputError, match=r"line 2: conflicting duplicate scores"):
        read_lmms_eval(bad, model="m")
    bad.write_text("")
    with pytest.raises(FormatError, match="empty file"):
        read_lmms_eval(bad, model="m")
    empty_dir = tmp_path / "empty"
    empty_dir.mkdir()
    with pytest.raises(InputError, match="no readable sample in this folder"):
        read_lm_eval(empty_dir)
    bad.write_text('{"doc_id": 0, "acc": 1}\n')
    with pytest.raises(InputError, match="no metric 'acc_norm'"):
        read_lmms_eval(bad, model="m", metric="acc_norm")


@pytest.mark.parametrize(
    ("read", "results", "pattern"),
    [
        (
            read_lm_eval,
            "lm_eval/real/logs/tree/org__alpha/results_2026-12-01T12-08-08.495379.json",
            "samples_*",
        ),
        (read_lm_eval, "lm_eval/real/logs/single/run_2026-12-01T12-09-58.913231.json", "samples_*"),
        (read_lm_eval, "lm_eval/real/logs/legacy/alpha/results.json", "samples_*"),
        (read_lmms_eval, "lmms_eval/real/logs/org__alpha/20261201_225730_results.json", "*_samples_*"),
    ],
)
def test_a_results_file_given_as_the_log_says_where_the_samples_are(
    fixtures: Path, read: Any, results: str, pattern: str
) -> None:
    # the harness's own results json (aggregate scores) named instead of its sample logs: before, lm-eval's
    # and lmms-eval's said "line 1: not valid JSON (Expecting property name ...)"
    path = fixtures / results
    with pytest.raises(FormatError) as err:
        read(path)
    assert str(err.value) == (
        f"{path}: the run's results file (aggregate scores per task), not a per-sample log; the per-item "
        f"scores are in the sample files beside it ({pattern}.jsonl, written when the harness runs with "
        "--log_samples)"
    )


def test_a_file_not_named_as_the_harness_names_its_samples_is_said(fixtures: Path) -> None:
    # lm-eval's own sample file (written by lm-eval 0.4, tests/fixtures/roundtrip) read as lmms-eval: it
    # parses, but its task is not in the name lmms-eval would give it, so the benchmark is the whole file
    # name; before, nothing said so
    logs = fixtures.parent / "roundtrip" / "logs" / "lm-eval" / "Ember-m027"
    path = sorted(logs.glob("samples_bench00_*.jsonl"))[0]
    notes: list[str] = []
    p = read_lmms_eval(path, notes=notes)
    assert p.benchmarks == [path.stem]
    assert (
        f"warning: {path}: not named as this harness names its sample files (*_samples_*.jsonl), so its "
        in (" ".join(notes))
    )
    assert f"its benchmark is the file name {path.stem!r} (`benchmark` names it)" in " ".join(notes)
    notes = []
    assert read_lmms_eval(path, notes=notes, benchmark="bench00").benchmarks == ["bench00"]
    assert not any(n.startswith("warning:") for n in notes)
    # named as lm-eval names it, read as lm-eval: nothing to say
    notes = []
    assert read_lm_eval(path, notes=notes).benchmarks == ["bench00"]
    assert not any("not named as" in n for n in notes)
