"""The wide reader's pyarrow path gives the panel pandas gives; files written by pandas' ``to_csv``.

Expected values come from ``pandas.read_csv`` on the same file (ids as text, pandas' default missing-value
texts), not from benchsift. ``_fast_csv`` is called directly to show each edge-case file takes the pyarrow
path (or, for cells it does not read as plain numbers, falls back to the general reader).
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from typer.testing import CliRunner

from benchsift.cli.main import app
from benchsift.errors import InputError
from benchsift.io._csv_ranges import line_ends
from benchsift.io.wide import _fast_csv, _raw_header, read_wide

runner = CliRunner()


def _pandas_expected(path: Path, id_col: str, sep: str = ",", div: float = 1.0) -> tuple[list, np.ndarray]:
    df = pd.read_csv(path, sep=sep, dtype={id_col: str}, encoding="utf-8-sig")
    models = [c for c in df.columns if c != id_col]
    return models, df[models].to_numpy(dtype=np.float64).T / div


def _takes_fast_path(path: Path) -> bool:
    raw = _raw_header(path)
    assert raw is not None
    return _fast_csv(path, raw, {0}, rows_first=False) is not None


def _check(path: Path, sep: str = ",", div: float = 1.0, fast: bool = True) -> None:
    models, expected = _pandas_expected(path, "item", sep, div)
    panel = read_wide(path)
    assert panel.model_ids == models
    np.testing.assert_array_equal(panel.scores, expected)  # NaN where pandas has NaN, same bits elsewhere
    ids = pd.read_csv(path, sep=sep, dtype=str, encoding="utf-8-sig")["item"].str.strip().tolist()
    assert panel.items["item"].tolist() == ids
    assert _takes_fast_path(path) is fast


def test_missing_cells_and_pandas_missing_texts(tmp_path: Path) -> None:
    p = tmp_path / "b.csv"
    p.write_text("item,m1,m2,m3\nq1,1,,0\nq2,NA,0.5,None\nq3,<NA>,null,1\nq4,n/a,NaN,0.25\nq5,,,\n")
    _check(p)
    assert np.isnan(read_wide(p).scores[:, 4]).all()  # an all-empty item row: missing, never 0


def test_full_precision_floats_and_scientific_notation(tmp_path: Path) -> None:
    rng = np.random.default_rng(0)
    vals = rng.random((40, 3))
    lines = ["item,a,b,c"] + [f"i{k}," + ",".join(repr(float(v)) for v in row) for k, row in enumerate(vals)]
    lines.append("tiny,1e-5,2.5E-1,0")
    p = tmp_path / "f.csv"
    p.write_text("\n".join(lines) + "\n")
    _check(p)
    np.testing.assert_array_equal(read_wide(p).scores[:, :40], vals.T)


def test_percentage_columns_are_rescaled_alike(tmp_path: Path) -> None:
    p = tmp_path / "pct.csv"
    p.write_text("item,m1,m2\nq1,85,100\nq2,12.5,\nq3,0,50\n")
    notes: list[str] = []
    read_wide(p, notes=notes)
    assert any("divided by 100" in n for n in notes)
    _check(p, div=100.0)


def test_quoting_bom_and_tsv(tmp_path: Path) -> None:
    p = tmp_path / "q.csv"
    body = 'item,"model, with comma",m2\n"q,1","1",0\n"007",0,"0.5"\n"multi\nline",1,1\n'
    p.write_bytes(b"\xef\xbb\xbf" + body.encode())
    models, _ = _pandas_expected(p, "item")
    panel = read_wide(p)
    assert panel.model_ids == ["model, with comma", "m2"] == models
    assert panel.items["item"].tolist() == ["q,1", "007", "multi\nline"]
    np.testing.assert_array_equal(panel.scores, [[1, 0, 1], [0, 0.5, 1]])
    assert _takes_fast_path(p)
    t = tmp_path / "t.tsv"
    t.write_text("item\tm1\tm2\nq1\t1\t\nq2\t0\t0.5\n")
    _check(t, sep="\t")


def test_cells_pyarrow_does_not_read_take_the_general_reader(tmp_path: Path) -> None:
    p = tmp_path / "b.csv"
    p.write_text("item,m1,m2\nq1,true,1\nq2,FALSE, 0.5 \n")
    panel = read_wide(p)
    np.testing.assert_array_equal(panel.scores, [[1, 0], [1, 0.5]])
    assert not _takes_fast_path(p)
    bad = tmp_path / "bad.csv"
    bad.write_text("item,m1\nq1,1\nq2,maybe\n")
    with pytest.raises(InputError, match=r"bad.csv, line 3: score in column 'm1' 'maybe' is not a number"):
        read_wide(bad)
    inf = tmp_path / "inf.csv"
    inf.write_text("item,m1\nq1,1\nq2,inf\n")
    with pytest.raises(InputError, match="infinite"):
        read_wide(inf)


def test_models_rows_is_the_transpose(tmp_path: Path) -> None:
    a = tmp_path / "a.csv"
    a.write_text("item,m1,m2,m3\nq1,1,,0\nq2,0,0.5,1\n")
    b = tmp_path / "b.csv"
    b.write_text("model,q1,q2\nm1,1,0\nm2,,0.5\nm3,0,1\n")
    pa_, pb = read_wide(a, benchmark="x"), read_wide(b, benchmark="x", orient="models-rows")
    assert pa_.model_ids == pb.model_ids and pa_.items["item"].tolist() == pb.items["item"].tolist()
    np.testing.assert_array_equal(pa_.scores, pb.scores)


def test_repeated_item_rows_collapse_or_conflict(tmp_path: Path) -> None:
    p = tmp_path / "r.csv"
    p.write_text("item,m1\nq1,1\nq1,1\nq2,0\n")
    notes: list[str] = []
    assert read_wide(p, notes=notes).items["item"].tolist() == ["q1", "q2"]
    assert any("collapsed 1 identical repeated item" in n for n in notes)
    p.write_text("item,m1\nq1,1\nq1,0\n")
    with pytest.raises(InputError, match="conflicting duplicate item 'q1'"):
        read_wide(p)


@pytest.mark.parametrize("seed", range(6))
def test_line_ends_blank_lines_and_breaks_in_cells_random(tmp_path: Path, seed: int) -> None:
    """The pyarrow path sizes its matrix by the file's line ends: random tables whose lines end in
    ``\\n``, ``\\r\\n`` or ``\\r``, with blank lines and line breaks inside quoted ids (fewer rows than
    line ends), with and without a last line end, in both orients, give the panel pandas reads."""
    rng = np.random.default_rng(seed)
    n_rows, n_cols = int(rng.integers(1, 40)), int(rng.integers(1, 12))
    cells = np.where(rng.random((n_rows, n_cols)) < 0.2, np.nan, rng.random((n_rows, n_cols)).round(3))
    end = ["\n", "\r\n", "\r"][seed % 3]
    ids = [f'"id {k}{end}part"' if rng.random() < 0.3 else f"id{k}" for k in range(n_rows)]
    lines = ["id," + ",".join(f"c{j}" for j in range(n_cols))]
    for k in range(n_rows):
        lines.append(ids[k] + "," + ",".join("" if np.isnan(v) else repr(float(v)) for v in cells[k]))
        if rng.random() < 0.2:
            lines.append("")  # a blank line: skipped by pandas and pyarrow alike
    text = end.join(lines) + (end if seed % 2 else "")
    path = tmp_path / "t.csv"
    path.write_bytes(text.encode())
    orient = "items-rows" if seed < 3 else "models-rows"
    expected = pd.read_csv(path, dtype={"id": str}, lineterminator="\r" if end == "\r" else None)
    panel = read_wide(path, benchmark="b", orient=orient)  # type: ignore[arg-type]
    matrix = expected[[f"c{j}" for j in range(n_cols)]].to_numpy(dtype=np.float64)
    assert _takes_fast_path(path)
    if orient == "items-rows":
        assert panel.model_ids == [f"c{j}" for j in range(n_cols)]
        assert panel.items["item"].tolist() == expected["id"].str.strip().tolist()
        np.testing.assert_array_equal(panel.scores, matrix.T)
    else:
        assert panel.model_ids == expected["id"].str.strip().tolist()
        np.testing.assert_array_equal(panel.scores, matrix)


@pytest.mark.parametrize("end", ["\n", "\r\n", "\r"])
@pytest.mark.parametrize("last_end", [True, False])
@pytest.mark.parametrize("n_rows", [0, 1, 7])
def test_line_bound_is_the_data_rows(tmp_path: Path, end: str, last_end: bool, n_rows: int) -> None:
    """Issue 36: without blank lines or breaks in cells the matrix is sized to the data rows exactly (the
    header's line is not one of them), so the read never moves the matrix afterwards, and a file without
    quotes is marked exact (its matrix mapped whole); with them the bound stays at or above the rows pandas
    reads."""
    lines = ["item,a,b"] + [f"q{k},1,0" for k in range(n_rows)]
    path = tmp_path / "t.csv"
    path.write_bytes((end.join(lines) + (end if last_end else "")).encode())
    ends = line_ends(path)
    assert (ends.data_rows_bound, ends.quote) == (n_rows, False)
    path.write_bytes((end.join(lines) + end + end + '"q x' + end + 'y",0,1' + end).encode())
    ends = line_ends(path)
    bound, quote = ends.data_rows_bound, ends.quote
    assert quote  # a quote: a cell may hold a line break, so the matrix is not mapped whole
    assert bound >= len(pd.read_csv(path, lineterminator="\r" if end == "\r" else None)) == n_rows + 1


@pytest.fixture
def pandas_csv(tmp_path: Path) -> tuple[Path, pd.DataFrame]:
    """A wide table written by pandas' own ``DataFrame.to_csv`` with its (unnamed) index."""
    df = pd.DataFrame({"GPT4o": [1.0, 0.0, np.nan], "InternVL2-8B": [0.0, 1.0, 1.0]}, index=[10, 11, 12])
    path = tmp_path / "MMB.csv"
    df.to_csv(path)  # header ",GPT4o,InternVL2-8B"
    assert path.read_text().splitlines()[0] == ",GPT4o,InternVL2-8B"
    return path, df


def test_pandas_to_csv_with_index_imports(pandas_csv: tuple[Path, pd.DataFrame]) -> None:
    path, df = pandas_csv
    for item_column in (None, "Unnamed: 0"):
        notes: list[str] = []
        panel = read_wide(path, item_column=item_column, notes=notes)
        assert panel.model_ids == ["GPT4o", "InternVL2-8B"]
        assert panel.items["item"].tolist() == ["10", "11", "12"]
        np.testing.assert_array_equal(panel.scores, df.to_numpy().T)
        assert any("empty header" in n and "pandas' to_csv" in n for n in notes)


def test_pandas_to_csv_with_index_and_an_item_column(tmp_path: Path) -> None:
    df = pd.DataFrame({"item": ["a", "b"], "m1": [1.0, 0.0], "m2": [0.5, np.nan]})
    path = tmp_path / "x.csv"
    df.to_csv(path)  # ",item,m1,m2"
    notes: list[str] = []
    panel = read_wide(path, item_column="item", notes=notes)
    assert panel.model_ids == ["m1", "m2"]  # the index column is not a model
    assert panel.items["item"].tolist() == ["a", "b"]
    np.testing.assert_array_equal(panel.scores, [[1, 0], [0.5, np.nan]])
    assert any("left out the first column" in n for n in notes)


def test_cli_imports_a_pandas_to_csv_file(pandas_csv: tuple[Path, pd.DataFrame], tmp_path: Path) -> None:
    path, _ = pandas_csv
    out = tmp_path / "p.parquet"
    for extra in ([], ["--item-column", "Unnamed: 0"]):
        r = runner.invoke(app, ["import", "wide", str(path), "-o", str(out), "--json", *extra])
        assert r.exit_code == 0, r.output
        data = json.loads(r.stdout)
        assert data["n_models"] == 2 and data["n_items"] == 3
        assert any("empty header" in n for n in data["notes"])
