"""Directory import for the table formats (``long``, ``wide``, ``aggregate``): a folder is walked for tables
(CSV, TSV, parquet, Excel; JSON too for ``aggregate``), each read as if named, with the read/skipped/why
summary that the harness importers give."""

from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from benchsift.errors import FormatError, InputError
from benchsift.io import import_panel, read_aggregate, read_long, read_scores, read_wide


def _tree_long(root: Path) -> list[Path]:
    (root / "run1").mkdir(parents=True)
    (root / "run2" / "deep").mkdir(parents=True)
    a = root / "run1" / "a.csv"
    a.write_text("model,benchmark,item,score\nA,MMStar,1,1\nA,MMStar,2,0\nA,OCR,q,0.5\n")
    b = root / "run2" / "deep" / "b.parquet"
    pd.DataFrame(
        {"model": ["B", "B"], "benchmark": ["MMStar", "OCR"], "item": ["1", "q"], "score": [0.0, 1.0]}
    ).to_parquet(b)
    (root / "run2" / "models.csv").write_text("model,family\nA,x\nB,y\n")  # not a long table
    (root / "README.txt").write_text("not a table\n")
    return [a, b]


def test_long_folder_equals_the_files_named(tmp_path: Path) -> None:
    files = _tree_long(tmp_path / "tree")
    notes: list[str] = []
    walked = read_long(tmp_path / "tree", notes=notes)
    named = read_long(files)
    assert walked.model_ids == ["A", "B"]
    assert walked.item_keys == named.item_keys
    np.testing.assert_array_equal(walked.scores, named.scores)
    np.testing.assert_array_equal(walked.scores, [[1.0, 0.0, 0.5], [0.0, np.nan, 1.0]])
    skipped = [n for n in notes if "models.csv" in n]
    assert len(skipped) == 1 and skipped[0].startswith("warning: skipped ") and "missing column" in skipped[0]
    assert f"{tmp_path / 'tree'}: read 2 long table file(s), skipped 1" in notes
    assert not any("README" in n for n in notes)  # not a table: not looked at


def test_wide_folder_one_benchmark_per_file(tmp_path: Path) -> None:
    root = tmp_path / "wide"
    (root / "sub").mkdir(parents=True)
    (root / "MMStar.csv").write_text("item,A,B\n1,1,0\n2,1,1\n")
    (root / "sub" / "OCRBench.tsv").write_text("item\tA\tB\nx\t0\t1\n")
    (root / "sub" / "broken.csv").write_text("item,A\n1,1,extra\n")  # a row with too many fields
    notes: list[str] = []
    p = read_wide(root, notes=notes)
    assert p.benchmarks == ["MMStar", "OCRBench"]
    np.testing.assert_array_equal(p.scores, [[1.0, 1.0, 0.0], [0.0, 1.0, 1.0]])
    assert any(n.startswith(f"warning: skipped {root / 'sub' / 'broken.csv'}: line 2") for n in notes)
    assert f"{root}: read 2 wide table file(s), skipped 1" in notes
    with pytest.raises(InputError, match="benchmark names one file's benchmark"):
        read_wide(root, benchmark="X")


def test_aggregate_folder_tables_and_leaderboard_json(tmp_path: Path, fixtures: Path) -> None:
    root = tmp_path / "agg"
    (root / "a").mkdir(parents=True)
    (root / "b").mkdir()
    shutil.copy(fixtures / "aggregate" / "leaderboard.csv", root / "a" / "leaderboard.csv")
    shutil.copy(fixtures / "aggregate" / "OpenVLM.json", root / "b" / "OpenVLM.json")
    (root / "b" / "config.json").write_text('{"seed": 1}')  # a JSON that is no leaderboard
    notes: list[str] = []
    walked = read_aggregate(root, notes=notes)
    named = read_aggregate([root / "a" / "leaderboard.csv", root / "b" / "OpenVLM.json"])
    assert walked.model_ids == named.model_ids and walked.item_keys == named.item_keys
    np.testing.assert_array_equal(walked.scores, named.scores)
    assert any(n.startswith(f"warning: skipped {root / 'b' / 'config.json'}") for n in notes)
    assert f"{root}: read 2 aggregate table file(s), skipped 1" in notes


def test_folder_without_tables_and_link_outside(tmp_path: Path) -> None:
    empty = tmp_path / "empty"
    empty.mkdir()
    (empty / "notes.txt").write_text("x")
    for fmt in ("long", "wide", "aggregate"):
        with pytest.raises(InputError, match=r"empty: no readable .* in this folder") as err:
            import_panel(fmt, empty, notes=[])
        assert "\n" not in str(err.value)
    outside = tmp_path / "outside.csv"
    outside.write_text("model,benchmark,item,score\nZ,B,1,1\n")
    root = tmp_path / "linked"
    _tree_long(root)
    (root / "link.csv").symlink_to(outside)
    notes: list[str] = []
    p = read_long(root, notes=notes)
    assert "Z" not in p.model_ids
    assert any(n.startswith(f"warning: skipped {root / 'link.csv'}: links outside") for n in notes)
    assert f"{root}: read 2 long table file(s), skipped 2" in notes  # models.csv and the link
    # a linked folder outside the root: not walked, and said (before, it vanished: "skipped 2")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "more.csv").write_text("model,benchmark,item,score\nY,B,1,1\n")
    (root / "run3").symlink_to(elsewhere, target_is_directory=True)
    # and a linked folder inside the root: its files are read once, through the real folder
    (root / "again").symlink_to(root / "run1", target_is_directory=True)
    notes = []
    p2 = read_long(root, notes=notes)
    assert "Y" not in p2.model_ids and "Z" not in p2.model_ids
    np.testing.assert_array_equal(p2.scores, p.scores)
    assert any(n.startswith(f"warning: skipped {root / 'run3'}: links outside") for n in notes)
    assert not any(str(root / "again") in n for n in notes)
    assert f"{root}: read 2 long table file(s), skipped 3" in notes
    # a folder whose only table links outside it: the error says what was skipped and why
    lone = tmp_path / "lone"
    lone.mkdir()
    (lone / "link.csv").symlink_to(outside)
    with pytest.raises(
        InputError, match=r"lone: no readable long table .*; skipped 1, first link\.csv: links outside"
    ):
        read_long(lone)


def test_header_only_tables_are_refused_not_imported_as_empty_panels(tmp_path: Path) -> None:
    # the wide reader's fast CSV path read 'item,m1' with no rows as a panel of 1 model x 0 items
    header_only = tmp_path / "header.csv"
    header_only.write_text("item,m1,m2\n")
    for fmt, options in (("wide", {}), ("wide", {"orient": "models-rows"}), ("aggregate", {}), ("long", {})):
        with pytest.raises(FormatError, match=r"header\.csv: no data rows \(only a header\)"):
            import_panel(fmt, header_only, **options)


def test_a_table_split_by_another_separator_is_named(tmp_path: Path) -> None:
    # a European spreadsheet's CSV export uses semicolons: read as CSV it was one text column, no scores
    semi = tmp_path / "semi.csv"
    semi.write_text("item;m1;m2\nq1;1;0\nq2;0;1\n")
    tabs = tmp_path / "tabs.csv"
    tabs.write_text("model\tbenchmark\titem\tscore\nm\tB\tq\t1\n")
    commas = tmp_path / "commas.tsv"
    commas.write_text("model,benchmark,item,score\nm,B,q,1\n")
    for fmt, path, found, wanted in (
        ("wide", semi, "semicolons", "commas"),
        ("long", tabs, "tabs", "commas"),
        ("long", commas, "commas", "tabs"),
    ):
        with pytest.raises(
            FormatError, match=rf"{path.name}: the header .* is split by {found}, not {wanted}"
        ):
            import_panel(fmt, path)
    with pytest.raises(FormatError, match="semi.csv: the header 'item;m1;m2' is split by semicolons"):
        read_scores(semi)


def test_a_workbook_of_several_sheets_is_refused_naming_them(tmp_path: Path) -> None:
    # pandas reads the first sheet alone, silently: the scores may be on another
    book = tmp_path / "book.xlsx"
    with pd.ExcelWriter(book) as writer:
        pd.DataFrame({"item": ["q1", "q2"], "m1": [1, 0]}).to_excel(writer, sheet_name="summary", index=False)
        pd.DataFrame({"item": ["q1", "q2"], "m2": [0, 1]}).to_excel(writer, sheet_name="details", index=False)
    with pytest.raises(FormatError, match=r"book\.xlsx: the workbook has 2 sheets \['summary', 'details'\]"):
        import_panel("wide", book)
    single = tmp_path / "single.xlsx"
    pd.DataFrame({"item": ["q1", "q2"], "m1": [1, 0]}).to_excel(single, index=False)
    assert import_panel("wide", single).model_ids == ["m1"]
