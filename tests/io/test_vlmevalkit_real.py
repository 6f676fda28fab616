"""Importer ``vlmevalkit`` on files written by VLMEvalKit's own evaluation code
(``tests/fixtures/io/vlmevalkit/real``).

``generate.py`` there ran the datasets' own ``evaluate()`` (commit in ``outputs/VERSION``) on scripted
predictions over local stand-in TSVs, laid out as ``run.py`` does (``outputs/<model>/<eval_id>/``). Each
``_acc.csv`` / ``_score.csv`` / ``_score.json`` beside the result files holds VLMEvalKit's own numbers.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from benchsift.errors import FormatError
from benchsift.io import read_vlmevalkit
from benchsift.io._vlmevalkit_judged import mathvista_correct
from benchsift.io.vlmevalkit import EVAL_ID_RE, FAIL_MARK, vqa_hit
from benchsift.panel import Panel

OUT = Path(__file__).resolve().parents[1] / "fixtures" / "io" / "vlmevalkit" / "real" / "outputs"
MODELS = ["ScriptedA", "ScriptedB"]
# dataset -> scale of the Overall in its _acc.csv (report_acc: a fraction; VQA: percent)
ACC_SCALE = {"MMStar": 1.0, "MMBench_DEV_EN": 1.0, "TextVQA_VAL": 100.0, "DocVQA_VAL": 100.0}


def _run(model: str) -> Path:
    (run,) = [p for p in (OUT / model).iterdir() if p.is_dir()]
    return run


def _row(panel: Panel, model: str, bench: str) -> np.ndarray:
    cols = [j for j, k in enumerate(panel.item_keys) if k[0] == bench]
    return panel.scores[panel.model_ids.index(model), cols]


@pytest.fixture(scope="module")
def imported() -> tuple[Panel, list[str]]:
    notes: list[str] = []
    return read_vlmevalkit(OUT, notes=notes), notes


def test_fixture_layout() -> None:
    assert OUT.joinpath("VERSION").read_text().startswith("VLMEvalKit ")
    for model in MODELS:
        run = _run(model)
        assert EVAL_ID_RE.match(run.name)
        assert json.loads((run / "status.json").read_text())["model_name"] == model
    # ScriptedA wrote VLMEvalKit's default xlsx, ScriptedB PRED_FORMAT=tsv
    assert (_run("ScriptedA") / "ScriptedA_MMStar_exact_matching_result.xlsx").is_file()
    assert (_run("ScriptedB") / "ScriptedB_TextVQA_VAL_results.tsv").is_file()
    assert not list(OUT.rglob("*OCRBench*_result*"))  # OCRBench keeps only _score.json


def test_means_equal_vlmevalkit_acc(imported: tuple[Panel, list[str]]) -> None:
    panel, notes = imported
    assert panel.model_ids == [*MODELS, "ScriptedC", "ScriptedD"]
    assert set(ACC_SCALE) <= set(panel.benchmarks)
    checked = 0
    for model in MODELS:
        run = _run(model)
        for bench, scale in ACC_SCALE.items():
            reported = float(pd.read_csv(run / f"{model}_{bench}_acc.csv")["Overall"].iloc[0]) / scale
            row = _row(panel, model, bench)
            pred = next(run.glob(f"{model}_{bench}.*"))
            table = pd.read_excel(pred) if pred.suffix == ".xlsx" else pd.read_csv(pred, sep="\t")
            n_failed = int(table["prediction"].astype(str).str.contains(FAIL_MARK).sum())
            assert int(np.isnan(row).sum()) == n_failed
            # VLMEvalKit counts a failed API answer wrong; benchsift keeps it missing (NaN)
            assert abs(float(np.mean(np.nan_to_num(row, nan=0.0))) - reported) < 1e-9, (model, bench)
            if n_failed == 0:
                assert abs(float(np.mean(row)) - reported) < 1e-9
            checked += 1
    assert checked == 8
    assert any("ScriptedB_MMStar_exact_matching_result.tsv: 1 failed answer(s)" in n for n in notes)


def test_docvqa_is_anls_hit_not_eval_score(imported: tuple[Panel, list[str]]) -> None:
    """DocVQA's eval_score is the mean ANLS *distance*; VLMEvalKit reports 1 - min(distance) (0 below 0.5):
    ScriptedB answered every question exactly (reported 100) while mean(eval_score) is 0.18."""
    panel, _ = imported
    results = pd.read_csv(_run("ScriptedB") / "ScriptedB_DocVQA_VAL_results.tsv", sep="\t")
    assert float(results["eval_score"].mean()) < 0.2
    np.testing.assert_array_equal(_row(panel, "ScriptedB", "DocVQA_VAL"), [1.0, 1.0, 1.0])
    # ScriptedA's 'J. Smith' for 'John Smith': distance 0.4 -> 1 - 0.4 = 0.6 kept; hand-computed rule
    assert vqa_hit([0.4], "DocVQA_VAL") == pytest.approx(0.6)
    assert vqa_hit([0.6, 0.55], "InfoVQA_TEST") == 0.0
    assert vqa_hit([0.0, 1.0], "ChartQA_TEST") == 1.0
    assert vqa_hit([1 / 3, 2 / 3], "TextVQA_VAL") == pytest.approx(0.5)


def test_docvqa_without_eval_match_refused(tmp_path: Path) -> None:
    src = _run("ScriptedB") / "ScriptedB_DocVQA_VAL_results.tsv"
    run = tmp_path / "ScriptedB"
    run.mkdir()
    pd.read_csv(src, sep="\t").drop(columns=["eval_match"]).to_csv(run / src.name, sep="\t", index=False)
    with pytest.raises(
        FormatError,
        match=r"no 'eval_match' column: for 'DocVQA_VAL'.*; pass `score_column` to use another column\)$",
    ):
        read_vlmevalkit(run / src.name)
    p = read_vlmevalkit(run / src.name, score_column="eval_score")  # the user's explicit choice is kept
    assert float(np.mean(p.scores)) < 0.2


def _mme_rating(scores: np.ndarray, aux: pd.DataFrame) -> dict[str, float]:
    """MME_rating (vlmeval/dataset/utils/yorn.py), recomputed by hand from per-question scores."""
    aux = aux.assign(s=scores)
    out: dict[str, float] = {}
    for cat, sub in aux.groupby("category"):
        pairs = sub.groupby("image_path")["s"].agg(lambda v: float(np.prod(v)))
        out[str(cat)] = 100 * float(sub["s"].mean()) + 100 * float(pairs.mean())
    return out


def test_mme_per_question_and_tool_score(imported: tuple[Panel, list[str]]) -> None:
    panel, notes = imported
    assert sum("VLMEvalKit reports MME" in n and n.startswith("warning: ") for n in notes) == 2
    for model in MODELS:
        run = _run(model)
        aux_path = next(run.glob(f"{model}_MME_auxmatch.*"))
        aux = pd.read_excel(aux_path) if aux_path.suffix == ".xlsx" else pd.read_csv(aux_path, sep="\t")
        row = _row(panel, model, "MME")
        ids = [k[1] for k in panel.item_keys if k[0] == "MME"]
        aux = aux.set_index(aux["index"].astype(str)).loc[ids]
        reported = pd.read_csv(run / f"{model}_MME_score.csv").iloc[0].to_dict()
        mine = _mme_rating(row, aux)
        for cat, value in mine.items():
            assert abs(value - float(reported[cat])) < 1e-9, (model, cat)
        perception = ["OCR", "artwork", "celebrity", "color", "count", "existence"]
        perception += ["landmark", "position", "posters", "scene"]
        assert abs(sum(mine[c] for c in perception) - float(reported["perception"])) < 1e-9


def test_ocrbench_score_json_skipped_and_refused(imported: tuple[Panel, list[str]]) -> None:
    panel, notes = imported
    assert "OCRBench" not in panel.benchmarks
    for model in MODELS:
        path = _run(model) / f"{model}_OCRBench_score.json"
        total = json.loads(path.read_text())["Final Score"]
        assert any(n.startswith(f"skipped {path}") and f"Final Score {total}" in n for n in notes)
        with pytest.raises(FormatError, match="aggregate VLMEvalKit score file") as err:
            read_vlmevalkit(path)
        assert "\n" not in str(err.value)
    assert any("read 12 VLMEvalKit result file(s), skipped 6" in n for n in notes)


def test_judge_name_vlmevalkit_does_not_list_in_benchsift(tmp_path: Path) -> None:
    """``evaluate(..., model="gpt-4.1-mini")`` names the result file after a judge benchsift never heard of;
    given alone (no prediction file beside it), the dataset is the longest name in VLMEvalKit's own list."""
    src = _run("ScriptedC") / "ScriptedC_MMStar_gpt-4.1-mini_result.xlsx"
    folder = tmp_path / "ScriptedC"
    folder.mkdir()
    shutil.copy(src, folder / src.name)
    notes: list[str] = []
    panel = read_vlmevalkit(folder / src.name, notes=notes)
    assert panel.model_ids == ["ScriptedC"] and panel.benchmarks == ["MMStar"]
    reported = float(pd.read_csv(_run("ScriptedC") / "ScriptedC_MMStar_acc.csv")["Overall"].iloc[0])
    assert float(np.mean(panel.scores)) == pytest.approx(reported, abs=1e-12)
    assert not any(n.startswith("warning") for n in notes)


def test_bare_file_name_from_inside_the_model_folder(monkeypatch: pytest.MonkeyPatch) -> None:
    """``benchsift import vlmevalkit ScriptedA_MMStar_exact_matching_result.xlsx`` inside the run folder."""
    monkeypatch.chdir(_run("ScriptedA"))
    panel = read_vlmevalkit("ScriptedA_MMStar_exact_matching_result.xlsx")
    assert panel.model_ids == ["ScriptedA"] and panel.benchmarks == ["MMStar"]


def test_folder_import_warns_of_every_benchmark_left_out(imported: tuple[Panel, list[str]]) -> None:
    """OCRBench keeps only its _score.json: the folder import says, as a warning, that it left it out."""
    panel, notes = imported
    assert "OCRBench" not in panel.benchmarks
    for model in MODELS:
        (pred,) = _run(model).glob(f"{model}_OCRBench.*")
        (warning,) = [n for n in notes if n.startswith(f"warning: {pred}: ")]
        assert f"predictions of model {model!r} on 'OCRBench', but no per-item score" in warning
        assert f"{model}_OCRBench_score.json" in warning
    assert sum("no per-item score of them was imported" in n for n in notes) == 2


def test_mathvista_judge_file_scored_by_vlmevalkits_post_check(imported: tuple[Panel, list[str]]) -> None:
    """MathVista.evaluate (judge gpt-4o-mini, scripted) wrote the judge file with 'res' and only totals in
    _score.csv; the per-item scores are its post_check, whose mean is that acc (4 of 6)."""
    panel, notes = imported
    run = _run("ScriptedD")
    reported = pd.read_csv(run / "ScriptedD_MathVista_MINI_gpt-4o-mini_score.csv").set_index("Task&Skill")
    row = _row(panel, "ScriptedD", "MathVista_MINI")
    assert float(np.mean(row)) == pytest.approx(reported.loc["Overall", "acc"] / 100, abs=1e-12)
    # by hand: 'B' = option of 'square' (right); 7 == 7; 2.5 == 2.5; 'A' (12) is not '15' (B): wrong;
    # 5 != 4: wrong; 30 == 30.0 as floats
    np.testing.assert_array_equal(row, [1, 1, 1, 0, 0, 1])
    assert any(
        n.startswith("skipped ") and n.endswith("ScriptedD_MathVista_MINI_<judge>.xlsx") for n in notes
    )


@pytest.mark.parametrize(
    ("row", "expected"),
    [
        ({"question_type": "multi_choice", "choices": "['1', '2']", "answer_option": "B", "res": "B"}, 1.0),
        (
            {
                "question_type": "multi_choice",
                "choices": "['cat', 'dog']",
                "answer_option": "B",
                "res": "a dog",
            },
            1.0,
        ),
        (
            {
                "question_type": "multi_choice",
                "choices": "['cat', 'dog']",
                "answer_option": "B",
                "res": "A or B",
            },
            0.0,
        ),
        ({"question_type": "free_form", "answer_type": "integer", "answer": "3", "res": "3.0"}, 0.0),
        ({"question_type": "free_form", "answer_type": "float", "answer": "3", "res": "3.0"}, 1.0),
        ({"question_type": "free_form", "answer_type": "text", "answer": "red", "res": "red"}, 0.0),
    ],
)
def test_mathvista_post_check_hand_cases(row: dict, expected: float) -> None:  # type: ignore[type-arg]
    """VLMEvalKit's post_check as it is: int('3.0') fails (wrong), and a free-form text answer is never
    right (it compares str(None))."""
    assert mathvista_correct({"answer": None, **row}) == expected


def test_per_item_mean_checked_against_acc_csv(imported: tuple[Panel, list[str]], tmp_path: Path) -> None:
    """Every result file VLMEvalKit wrote reproduces its _acc.csv Overall (failed answers counted wrong, as
    there): no warning; an _acc.csv that says another number gets a warning naming both."""
    _, notes = imported
    assert not any("aggregate beside it" in n for n in notes)
    run = tmp_path / "ScriptedA"
    run.mkdir()
    src = _run("ScriptedA")
    shutil.copy(src / "ScriptedA_MMStar_exact_matching_result.xlsx", run)
    acc = pd.read_csv(src / "ScriptedA_MMStar_acc.csv")
    true = float(acc["Overall"].iloc[0])
    acc["Overall"] = 0.25
    acc.to_csv(run / "ScriptedA_MMStar_acc.csv", index=False)
    notes = []
    read_vlmevalkit(run / "ScriptedA_MMStar_exact_matching_result.xlsx", notes=notes)
    (warning,) = [n for n in notes if "aggregate beside it" in n]
    assert f"the per-item mean is {true:.10g} but the tool's own aggregate beside it says 0.25" in warning
