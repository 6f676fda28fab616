"""Importer ``vlmevalkit``: hit / score columns, failed answers, circular grouping, file-name parsing."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from warned import warned

from benchsift.errors import FormatError, InputError
from benchsift.io import read_vlmevalkit
from benchsift.io.vlmevalkit import circular_scores, parse_result_name


def test_circular_rotations_by_hand(fixtures: Path) -> None:
    notes: list[str] = []
    p = read_vlmevalkit(
        fixtures / "vlmevalkit" / "GPT4o" / "GPT4o_MMBench_DEV_EN_openai_result.tsv", notes=notes
    )
    assert p.model_ids == ["GPT4o"]
    assert p.item_keys == [("MMBench_DEV_EN", g) for g in "1234"]
    # q1 all 4 rotations right -> 1; q2 one wrong -> 0; q3 right, failed, right -> missing;
    # q4 failed, wrong -> 0
    np.testing.assert_array_equal(p.scores, [[1.0, 0.0, np.nan, 0.0]])
    assert p.items["answer"].tolist() == ["A", "A", "B", "B"]  # from the main (unrotated) row
    assert p.items["category"].tolist()[0] == "image_scene"
    assert any("11 rows grouped into 4 circular items" in n for n in notes)
    assert any("2 failed answer(s)" in n for n in notes)
    # the same file read without grouping keeps every rotation as its own item
    flat = read_vlmevalkit(
        fixtures / "vlmevalkit" / "GPT4o" / "GPT4o_MMBench_DEV_EN_openai_result.tsv", circular=False
    )
    assert flat.n_items == 11


def test_all_files_together(fixtures: Path) -> None:
    files = sorted(p for p in (fixtures / "vlmevalkit").glob("*/*") if p.parent.name != "real")
    p = read_vlmevalkit(files)
    assert p.model_ids == ["GPT4o", "InternVL2-8B"]
    assert p.benchmarks == ["MMBench_DEV_EN", "MMStar", "MathVerse_MINI"]
    row = dict(zip(p.item_keys, p.scores[1], strict=True))
    # InternVL2-8B's circular result file already holds one row per group (g_index == index): unchanged
    assert [row[("MMBench_DEV_EN", g)] for g in "1234"] == [1.0, 1.0, 0.0, 1.0]
    assert np.isnan(row[("MathVerse_MINI", "1")])  # not evaluated -> missing
    gpt = dict(zip(p.item_keys, p.scores[0], strict=True))
    # MMStar: right, failed (missing, not wrong), wrong
    assert gpt[("MMStar", "0")] == 1.0 and np.isnan(gpt[("MMStar", "1")]) and gpt[("MMStar", "2")] == 0.0
    # MathVerse per-item score column True/False
    assert [gpt[("MathVerse_MINI", "1")], gpt[("MathVerse_MINI", "2")]] == [1.0, 0.0]


def test_xlsx_result_file(tmp_path: Path, fixtures: Path) -> None:
    src = fixtures / "vlmevalkit" / "InternVL2-8B" / "InternVL2-8B_MMStar_exact_matching_result.csv"
    folder = tmp_path / "InternVL2-8B"
    folder.mkdir()
    xlsx = folder / "InternVL2-8B_MMStar_exact_matching_result.xlsx"
    pd.read_csv(src).to_excel(xlsx, index=False)
    p = read_vlmevalkit(xlsx)
    assert p.model_ids == ["InternVL2-8B"] and p.benchmarks == ["MMStar"]
    np.testing.assert_array_equal(p.scores, [[1.0, 1.0, 1.0]])
    assert p.items["l2-category"].tolist()[2] == "numeric commonsense and calculation"


def test_parse_result_name() -> None:
    assert parse_result_name(Path("GPT4o/GPT4o_MMBench_DEV_EN_V11_openai_result.xlsx")) == (
        "GPT4o",
        "MMBench_DEV_EN_V11",
    )
    assert parse_result_name(Path("x/Qwen2-VL-7B_MMStar_exact_matching_result.csv")) == (
        None,
        "Qwen2-VL-7B_MMStar",
    )
    assert parse_result_name(Path("m/m_MathVista_MINI_gpt-4-turbo_score.csv")) == ("m", "MathVista_MINI")


def test_circular_scores_rule() -> None:
    scores = np.array([1, 1, 1, 0, np.nan, 1, np.nan, 0, np.nan, np.nan, 0.5, 1.0])
    groups = np.array([1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6])
    out = circular_scores(scores, groups)
    np.testing.assert_array_equal(out.to_numpy(), [1.0, 0.0, np.nan, 0.0, np.nan, 0.5])


def test_errors(tmp_path: Path) -> None:
    f = tmp_path / "loose_result.csv"
    f.write_text("index,prediction,hit\n1,A,1\n")
    with pytest.raises(InputError, match="cannot tell the model"):
        read_vlmevalkit(f)
    f.write_text("index,prediction,log\n1,A,ok\n")
    with pytest.raises(FormatError, match=r"loose_result\.csv: missing a per-item score column"):
        read_vlmevalkit(f, model="m")
    f.write_text("index,prediction,hit\n1,A,1\n2,B,maybe\n")
    with pytest.raises(InputError, match=r"loose_result\.csv, line 3: hit 'maybe' is not a number"):
        read_vlmevalkit(f, model="m")
    f.write_text("index,hit\nq1,1\nq2,0\n")
    with pytest.raises(InputError, match="circular grouping needs integer"):
        read_vlmevalkit(f, model="m", circular=True)
    p = warned(read_vlmevalkit, f, model="m", expect=["named it 'loose'"])  # string indices: no grouping
    assert [k[1] for k in p.item_keys] == ["q1", "q2"]


def _vlmeval_run(root: Path, model: str, eval_id: str) -> Path:
    """An ``outputs/<model>/<eval_id>/`` run as VLMEvalKit's run.py lays it out (files linked into
    ``outputs/<model>/``): a VQA ``_results`` file with ``eval_score`` (image_vqa.py) and an MCQ
    ``_<judge>_result`` file with ``hit`` (image_mcq.py, judge ``gpt-4.1-mini``, not in KNOWN_JUDGES),
    each beside its prediction file ``<model>_<dataset>.xlsx``."""
    import pandas as pd

    run = root / model / eval_id
    run.mkdir(parents=True)
    vqa = pd.DataFrame({"index": [1, 2, 3, 4], "question": list("abcd"), "prediction": ["x", "y", "z", "w"]})
    vqa.to_excel(run / f"{model}_TextVQA_VAL.xlsx", index=False)
    vqa.assign(eval_score=[1.0, 0.3, 0.0, 0.6]).to_excel(
        run / f"{model}_TextVQA_VAL_results.xlsx", index=False
    )
    mcq = pd.DataFrame({"index": [0, 1, 2], "question": list("abc"), "prediction": list("ABC")})
    mcq.to_excel(run / f"{model}_MMStar.xlsx", index=False)
    mcq.assign(hit=[1, 0, 1]).to_excel(run / f"{model}_MMStar_gpt-4.1-mini_result.xlsx", index=False)
    pd.DataFrame({"split": ["none"], "Overall": [0.66]}).to_csv(run / f"{model}_MMStar_acc.csv", index=False)
    for f in run.iterdir():
        (root / model / f.name).symlink_to(f)
    return run


def test_eval_id_layout_vqa_results_and_any_judge(tmp_path: Path) -> None:
    outputs = tmp_path / "outputs"
    _vlmeval_run(outputs, "Qwen2-VL-7B", "T20260101-120000")
    notes: list[str] = []
    p = read_vlmevalkit(outputs, notes=notes)
    assert p.model_ids == ["Qwen2-VL-7B"]
    assert p.benchmarks == ["MMStar", "TextVQA_VAL"]  # judge and _results suffix not in the name
    means = {
        b: float(np.nanmean(p.scores[0, [j for j, k in enumerate(p.item_keys) if k[0] == b]]))
        for b in p.benchmarks
    }
    assert means == pytest.approx({"MMStar": 2 / 3, "TextVQA_VAL": 1.9 / 4})
    assert any("read 2 VLMEvalKit result file(s)" in n for n in notes)  # links into <model>/ read once
    # a result file alone in the eval-id folder: model from the folder above, judge not confirmable
    lone = tmp_path / "lone" / "M" / "T20260101-120000"
    lone.mkdir(parents=True)
    src = outputs / "Qwen2-VL-7B" / "T20260101-120000" / "Qwen2-VL-7B_MMStar_gpt-4.1-mini_result.xlsx"
    (lone / "M_MMStar_exact_matching_result.xlsx").write_bytes(src.read_bytes())
    q = read_vlmevalkit(lone / "M_MMStar_exact_matching_result.xlsx")
    assert q.model_ids == ["M"] and q.benchmarks == ["MMStar"]
