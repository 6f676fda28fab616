"""Importer ``vlmevalkit``: hit / score columns, failed answers, circular grouping, file-name parsing."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

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
    files = sorted((fixtures / "vlmevalkit").glob("*/*"))
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
    p = read_vlmevalkit(f, model="m")  # string indices: no grouping
    assert [k[1] for k in p.item_keys] == ["q1", "q2"]
