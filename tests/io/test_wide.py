"""Importer ``wide``: both orients, NaN cells, repeated rows, errors, several files."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from benchsift.errors import FormatError, InputError
from benchsift.io import read_wide


def test_items_rows_by_hand(fixtures: Path) -> None:
    p = read_wide(fixtures / "wide" / "mini_mmmu.csv", benchmark="MMMU")
    assert p.model_ids == ["GPT4o", "InternVL2-8B", "llava_v1.5_7b"]
    assert p.item_keys == [("MMMU", "1"), ("MMMU", "2"), ("MMMU", "3"), ("MMMU", "4")]
    expected = np.array([[1, 1, 0, 1], [0, 1, np.nan, 1], [0, 0, 1, 1]], dtype=float)
    np.testing.assert_array_equal(p.scores, expected)
    # mean over the 11 non-missing 0/1 cells: 7 ones
    assert p.mean_score == pytest.approx(7 / 11)
    assert p.coverage == pytest.approx(11 / 12)


def test_benchmark_defaults_to_file_stem(fixtures: Path) -> None:
    p = read_wide(fixtures / "wide" / "mini_mmmu.csv")
    assert p.benchmarks == ["mini_mmmu"]


def test_models_rows(fixtures: Path) -> None:
    p = read_wide(fixtures / "wide" / "models_rows.csv", benchmark="B", orient="models-rows")
    assert p.model_ids == ["GPT4o", "InternVL2-8B"]
    assert [k[1] for k in p.item_keys] == ["q1", "q2", "q3"]
    np.testing.assert_array_equal(p.scores, [[1, 0, 1], [0, 0, np.nan]])


def test_item_and_category_columns(tmp_path: Path) -> None:
    f = tmp_path / "w.csv"
    f.write_text("m1,qid,m2,subject\n1,a,0,art\n0,b,1,math\n")
    p = read_wide(f, item_column="qid", category_column="subject", condition="text-only")
    assert p.model_ids == ["m1", "m2"]
    assert p.items["category"].tolist() == ["art", "math"]
    assert p.models["condition"].tolist() == ["text-only", "text-only"]
    np.testing.assert_array_equal(p.scores, [[1, 0], [0, 1]])


def test_repeated_rows(tmp_path: Path, fixtures: Path) -> None:
    with pytest.raises(InputError, match=r"repeated_conflict\.csv, line 4: conflicting duplicate item '1'"):
        read_wide(fixtures / "wide" / "repeated_conflict.csv")
    f = tmp_path / "same.csv"
    f.write_text("index,m1\n1,1\n2,0\n1,1\n")
    notes: list[str] = []
    p = read_wide(f, notes=notes)
    np.testing.assert_array_equal(p.scores, [[1, 0]])
    assert any("collapsed 1 identical" in n for n in notes)


def test_nonnumeric_cell_names_row_and_column(fixtures: Path) -> None:
    path = fixtures / "wide" / "nonnumeric.csv"
    with pytest.raises(InputError) as info:
        read_wide(path)
    assert str(info.value) == f"{path}, line 3: score in column 'm2' 'yes' is not a number"


def test_errors(tmp_path: Path, fixtures: Path) -> None:
    with pytest.raises(FormatError, match="missing column 'nope'"):
        read_wide(fixtures / "wide" / "mini_mmmu.csv", item_column="nope")
    with pytest.raises(InputError, match="orient"):
        read_wide(fixtures / "wide" / "mini_mmmu.csv", orient="diagonal")  # type: ignore[arg-type]
    with pytest.raises(InputError, match="file not found"):
        read_wide(tmp_path / "absent.csv")


def test_several_files_align_models(tmp_path: Path) -> None:
    a, b = tmp_path / "A.csv", tmp_path / "B.csv"
    a.write_text("id,m1,m2\n1,1,0\n")
    b.write_text("id,m2,m3\nx,1,1\ny,0,1\n")
    p = read_wide([a, b])
    assert p.model_ids == ["m1", "m2", "m3"]
    assert p.item_keys == [("A", "1"), ("B", "x"), ("B", "y")]
    np.testing.assert_array_equal(p.scores, [[1, np.nan, np.nan], [0, 1, 0], [np.nan, 1, 1]])


def test_percent_matrix_rescaled(tmp_path: Path) -> None:
    f = tmp_path / "pct.csv"
    f.write_text("id,m1,m2\n1,100,50\n2,0,25\n")
    p = read_wide(f, benchmark="MMStar")
    np.testing.assert_allclose(p.scores, [[1.0, 0.0], [0.5, 0.25]])
    with pytest.raises(InputError, match="outside"):
        read_wide(f, benchmark="MMStar", rescale="known")


def test_xlsx_input(tmp_path: Path, fixtures: Path) -> None:
    import pandas as pd

    df = pd.read_csv(fixtures / "wide" / "mini_mmmu.csv")
    path = tmp_path / "mini.xlsx"
    df.to_excel(path, index=False)
    p = read_wide(path, benchmark="MMMU")
    assert p.item_keys[0] == ("MMMU", "1")
    assert np.nansum(p.scores) == 7


def test_repeated_model_columns(tmp_path: Path) -> None:
    f = tmp_path / "dup.csv"
    f.write_text("index,m1,m2,m1\n1,1,0,1\n2,0,1,0\n")
    notes: list[str] = []
    p = read_wide(f, notes=notes)  # the repeated column is identical: one model, and said (before: silent)
    assert p.model_ids == ["m1", "m2"]
    np.testing.assert_array_equal(p.scores, [[1, 0], [0, 1]])
    assert f"{f}: collapsed 1 identical repeated model column(s)" in notes
    # models as rows: a repeated item column
    f.write_text("model,1,2,1\nm1,1,0,1\nm2,0,1,0\n")
    notes = []
    p = read_wide(f, orient="models-rows", notes=notes)
    assert [k[1] for k in p.item_keys] == ["1", "2"]
    assert f"{f}: collapsed 1 identical repeated item column(s)" in notes
    f.write_text("index,m1,m2,m1\n1,1,0,1\n2,0,1,0\n")
    f.write_text("index,m1,m2,m1\n1,1,0,1\n2,0,1,1\n")
    with pytest.raises(
        InputError, match=r"dup\.csv, column 4: conflicting duplicate model 'm1' \(differs from column 2\)"
    ):
        read_wide(f)


def test_trailing_empty_columns_without_header_are_left_out(tmp_path: Path) -> None:
    # a spreadsheet's CSV export often ends every line with empty cells under an empty header: before, they
    # became a model named "" with no score at all
    f = tmp_path / "excel.csv"
    f.write_text("index,m1,m2,,\r\n1,1,0,,\r\n2,0,1,,\r\n3,1,1,,\r\n")
    notes: list[str] = []
    p = read_wide(f, notes=notes)
    assert p.model_ids == ["m1", "m2"]
    np.testing.assert_array_equal(p.scores, [[1, 0, 1], [0, 1, 1]])
    assert notes == [f"{f}: left out 2 empty column(s) without a header (column 4, 5)"]
    q = read_wide(f, orient="models-rows")  # the transpose: no item named ""
    assert [k[1] for k in q.item_keys] == ["m1", "m2"]


def test_empty_columns_of_a_workbook_are_left_out(tmp_path: Path) -> None:
    import pandas as pd

    df = pd.DataFrame({"index": [1, 2], "m1": [1, 0], "m2": [0, 0]})
    df[" "] = None  # a header cell holding a blank; pandas reads it back as "Unnamed: 3"
    df["  "] = None
    path = tmp_path / "book.xlsx"
    df.to_excel(path, index=False)
    notes: list[str] = []
    p = read_wide(path, notes=notes)
    assert p.model_ids == ["m1", "m2"]
    np.testing.assert_array_equal(p.scores, [[1, 0], [0, 0]])
    assert notes == [f"{path}: left out 2 empty column(s) without a header (column 4, 5)"]


def test_a_score_under_no_header_is_refused(tmp_path: Path) -> None:
    f = tmp_path / "gap.csv"
    f.write_text("index,m1,,m2\n1,1,,0\n2,0,1,1\n")
    with pytest.raises(
        InputError, match=r"gap\.csv, line 3, column 3: a value \('1\.0'\) in a column without a header; "
    ):
        read_wide(f)


def test_a_spreadsheet_summary_row_or_column_is_refused(tmp_path: Path) -> None:
    import pandas as pd

    body = "index,m1,m2,m3\n1,1,0,1\n2,0,0,1\n3,1,1,1\n4,1,0,0\n"
    f = tmp_path / "avg.csv"
    # an "Average" row as a spreadsheet writes it (two decimals): before, it was imported as an item
    f.write_text(body + "Average,0.75,0.25,0.75\n")
    with pytest.raises(
        InputError,
        match=r"avg\.csv: the row 'Average' holds the mean of the other rows in every column: a summary row",
    ):
        read_wide(f)
    f.write_text(body + "Total,3,1,3\n")  # sums
    with pytest.raises(InputError, match=r"the row 'Total' holds the sum of the other rows"):
        read_wide(f)
    # a workbook on a percentage scale with a rounded "Avg Score" column
    pct = pd.DataFrame(
        {"index": [1, 2, 3, 4], "m1": [100, 0, 100, 100], "m2": [0, 0, 100, 0], "m3": [100, 100, 100, 0]}
    )
    pct["Avg Score"] = [67, 33, 100, 33]
    book = tmp_path / "pct.xlsx"
    pct.to_excel(book, index=False)
    with pytest.raises(
        InputError, match=r"the column 'Avg Score' holds the mean of the other columns in every row"
    ):
        read_wide(book)
    # models as rows: the summary row is not a model
    f.write_text("model,1,2,3,4\nm1,1,0,1,1\nm2,0,0,1,0\nm3,1,1,1,0\nMean,0.67,0.33,1,0.33\n")
    with pytest.raises(InputError, match=r"the row 'Mean' holds the mean .* not a model; remove it"):
        read_wide(f, orient="models-rows")
    # an empty first row before the summary: every score above it is missing, which used to raise numpy's
    # "All-NaN slice" RuntimeWarning (an internal error under warnings-as-errors) before the refusal
    f.write_text("index,m1,m2,m3\n0,,,\nAverage,0.5,0.5,1\n1,1,0,1\n2,0,1,1\n")
    with pytest.raises(InputError, match=r"the row 'Average' holds the mean of the other rows"):
        read_wide(f)


def test_a_line_named_like_a_summary_is_kept_when_it_is_not_one(tmp_path: Path) -> None:
    f = tmp_path / "named.csv"
    # a model called "Overall" and an item called "total" whose scores are not the others' mean or sum
    f.write_text("index,m1,Overall,m3\n1,1,0,1\n2,0,0,1\ntotal,1,1,0\n")
    p = read_wide(f)
    assert p.model_ids == ["m1", "Overall", "m3"]
    assert [k[1] for k in p.item_keys] == ["1", "2", "total"]
    np.testing.assert_array_equal(p.scores, [[1, 0, 1], [0, 0, 1], [1, 1, 0]])


def test_empty_rows_at_the_end_are_left_out_with_a_note(tmp_path: Path) -> None:
    # a spreadsheet's CSV export often ends with lines of empty cells (",,,"): they were refused as an empty
    # item id; now they are left out, said in a note; an empty row between data rows is still refused
    body = "index,m1,m2,m3\n1,1,0,1\n2,0,1,0\n3,1,1,1\n"
    f = tmp_path / "tail.csv"
    f.write_text(body + ",,,\n,,,\n")  # read by the fast (pyarrow) path
    notes: list[str] = []
    p = read_wide(f, notes=notes)
    assert [k[1] for k in p.item_keys] == ["1", "2", "3"]
    np.testing.assert_array_equal(p.scores, [[1, 0, 1], [0, 1, 1], [1, 0, 1]])
    assert f"{f}: left out 2 empty row(s) at the end (no id and no score)" in notes
    # models as rows, and through the general reader (a cell that is not a plain number: "TRUE")
    g = tmp_path / "models.csv"
    g.write_text("model,1,2\nm1,TRUE,0\nm2,0,1\n , ,\n")
    notes = []
    q = read_wide(g, orient="models-rows", notes=notes)
    assert q.model_ids == ["m1", "m2"]
    np.testing.assert_array_equal(q.scores, [[1, 0], [0, 1]])
    assert f"{g}: left out 1 empty row(s) at the end (no id and no score)" in notes
    # between data rows: still an error naming its line
    f.write_text("index,m1,m2,m3\n1,1,0,1\n,,,\n3,1,1,1\n")
    with pytest.raises(InputError, match=r"tail\.csv, line 3: empty item id"):
        read_wide(f)
