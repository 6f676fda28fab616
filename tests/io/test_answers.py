"""Logged answers read against a panel (DISCO's input, PRIMEBench section 5)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from benchsift.errors import FormatError, InputError
from benchsift.io.answers import read_answers
from benchsift.panel import Panel


def _panel() -> Panel:
    models = pd.DataFrame({"model": ["a", "b", "a"], "condition": ["image", "image", "text-only"]})
    items = pd.DataFrame({"benchmark": ["X", "X", "Y"], "item": ["1", "2", "1"]})
    scores = np.array([[1.0, 0.0, 1.0], [0.0, np.nan, 1.0], [0.0, 0.0, 0.0]])
    return Panel(scores, models, items)


def test_answers_align_by_model_run_and_item(tmp_path: Path) -> None:
    path = tmp_path / "answers.csv"
    path.write_text(
        "model,benchmark,item,condition,prediction\n"
        "a,X,1,image, B \n"  # stripped
        "a,X,2,image,C\n"
        "a,Y,1,image,\n"  # empty: no answer
        "b,X,1,image,B\n"
        "b,X,2,image,D\n"  # a cell the panel has no score for still gets its answer
        "b,Y,1,image,7\n"
        "a,X,1,text-only,A\n"
        "a,X,1,image,B\n"  # an identical duplicate
        "zed,X,1,image,A\n"  # a model run the panel does not hold
        "b,Z,9,image,A\n"  # an item the panel does not hold
    )
    logged = read_answers(path, _panel(), column="prediction")
    expected = np.array([["B", "C", None], ["B", "D", "7"], ["A", None, None]], dtype=object)
    assert logged.values.tolist() == expected.tolist()
    # 8 scored cells; answered among them: a: 2, b: 2 (X/2 is unscored), a text-only: 1
    assert logged.coverage == pytest.approx(5 / 8)
    notes = " ".join(logged.notes)
    assert "skipped 1 row(s) of 1 model run(s) not in the panel (e.g. 'zed')" in notes
    assert "skipped 1 row(s) of items not in the panel" in notes
    assert "3 of 8 scored cells have no logged answer" in notes


def test_conflicting_duplicates_name_both_lines(tmp_path: Path) -> None:
    path = tmp_path / "dup.csv"
    path.write_text("model,benchmark,item,answer\na,X,1,B\nb,X,1,A\na,X,1,C\n")
    with pytest.raises(
        InputError, match=r"dup.csv, line 4: conflicting duplicate answers .* 'C' here and 'B' at line 2"
    ):
        read_answers(path, _panel())


def test_benchmark_column_needed_only_for_several_benchmarks(tmp_path: Path) -> None:
    path = tmp_path / "nob.csv"
    path.write_text("model,item,answer\na,1,B\nb,2,C\n")
    with pytest.raises(InputError, match="missing column 'benchmark' \\(the panel holds 2 benchmarks"):
        read_answers(path, _panel())
    one = Panel.from_matrix(np.array([[1.0, 0.0], [0.0, 1.0]]), ["a", "b"], ["1", "2"], benchmark="X")
    logged = read_answers(path, one)
    assert logged.values.tolist() == [["B", None], [None, "C"]] and logged.coverage == 0.5
    with pytest.raises(FormatError, match="nob.csv.*prediction"):
        read_answers(path, one, column="prediction")


FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "io"


def _answers(fmt: str, args: list[str], tmp_path: Path) -> tuple[Panel, pd.DataFrame]:
    from typer.testing import CliRunner

    from benchsift.cli.importers import app

    out, ans = tmp_path / f"{fmt}.parquet", tmp_path / f"{fmt}-answers.csv"
    res = CliRunner().invoke(app, [fmt, *args, "-o", str(out), "--answers-out", str(ans), "--json"])
    assert res.exit_code == 0, res.output
    table = pd.read_csv(ans, dtype=str, keep_default_na=False)
    assert list(table.columns) == ["model", "condition", "benchmark", "item", "answer"]
    assert res.stdout and f'"n_answers": {int((table["answer"] != "").sum())}' in res.stdout
    return Panel.load(out), table


def _lookup(table: pd.DataFrame, model: str, benchmark: str, item: str) -> str:
    row = table[(table["model"] == model) & (table["benchmark"] == benchmark) & (table["item"] == item)]
    assert len(row) == 1
    return str(row["answer"].iloc[0])


def test_vlmevalkit_predictions_with_circular_items_and_failures(tmp_path: Path) -> None:
    files = [str(p) for p in sorted((FIXTURES / "vlmevalkit").glob("*/*")) if p.parent.name != "real"]
    panel, table = _answers("vlmevalkit", files, tmp_path)
    # MMBench circular rows of GPT4o (tsv): item 1's four rotations answered A, D, C, B; item 3 had a failed
    # rotation ("Failed to obtain answer via API."), so the circular item has no answer
    assert _lookup(table, "GPT4o", "MMBench_DEV_EN", "1") == "A|D|C|B"
    assert _lookup(table, "GPT4o", "MMBench_DEV_EN", "2") == "A|A"
    assert _lookup(table, "GPT4o", "MMBench_DEV_EN", "3") == ""
    assert _lookup(table, "GPT4o", "MMStar", "1") == ""  # failed
    assert _lookup(table, "GPT4o", "MMStar", "2") == "B"
    logged = read_answers(tmp_path / "vlmevalkit-answers.csv", panel)  # the round trip aligns every row
    assert not any("skipped" in n for n in logged.notes)
    assert int(pd.notna(pd.DataFrame(logged.values)).to_numpy().sum()) == int((table["answer"] != "").sum())


def test_harness_logs_first_response_or_most_likely_option(tmp_path: Path) -> None:
    _, lm = _answers(
        "lm-eval",
        [str(FIXTURES / "lm_eval" / "EleutherAI__pythia-160m"), "--filter", "strict-match"],
        tmp_path,
    )
    # arc_easy doc 0: log-likelihoods -14.25, -13.5, -9.75, -12.0 -> option 2; doc 1: -8.0, -7.5 -> 1
    assert _lookup(lm, "EleutherAI/pythia-160m", "arc_easy", "0") == "2"
    assert _lookup(lm, "EleutherAI/pythia-160m", "arc_easy", "1") == "1"
    assert _lookup(lm, "EleutherAI/pythia-160m", "gsm8k", "0") == "[invalid]"  # strict-match's answer
    _, lmms = _answers("lmms-eval", [str(FIXTURES / "lmms_eval" / "llava-hf__llava-1.5-7b-hf")], tmp_path)
    assert _lookup(lmms, "llava-hf/llava-1.5-7b-hf", "ai2d", "0") == "C"
    assert set(lmms["benchmark"]) == {"ai2d", "mme", "mmmu_val"}


def test_inspect_and_long_answers(tmp_path: Path) -> None:
    log = FIXTURES / "inspect" / "2024-09-01T10-00-00+00-00_mmmu-multiple-choice_Hc9xk2.json"
    _, ins = _answers("inspect", [str(log)], tmp_path)
    assert ins["answer"].tolist()[:2] == ["A", "D"]  # the scorer's extracted answer
    _, long = _answers("long", [str(FIXTURES / "long" / "scores.csv")], tmp_path)
    assert _lookup(long, "llava-1.5-7b", "MMStar", "1") == "B"  # the prediction column


def test_answers_out_without_logged_answers_is_an_error_and_writes_nothing(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from benchsift.cli.importers import app

    src = tmp_path / "plain.csv"
    src.write_text("model,benchmark,item,score\na,X,1,1\nb,X,1,0\n")
    out, ans = tmp_path / "p.parquet", tmp_path / "a.csv"
    res = CliRunner().invoke(app, ["long", str(src), "-o", str(out), "--answers-out", str(ans)])
    assert res.exit_code == 2 and "--answers-out: these long files log no model answers" in res.output
    assert not out.exists() and not ans.exists()
    res = CliRunner().invoke(
        app, ["long", str(src), "-o", str(out), "--answers-out", str(tmp_path / "a.txt")]
    )
    assert res.exit_code == 2 and "expected a .parquet or .csv file name" in res.output
