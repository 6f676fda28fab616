"""The long-to-dense pivot is bounded (benchsift.panel.long._coded.check_density): a long table whose
matrix its rows cannot nearly fill (over MAX_DENSE_CELLS = 2**28 cells and over MAX_CELLS_PER_ROW = 100
cells per row) is refused in one line before the matrix, or any array of its cells, is allocated; a sparse
panel within the rule still imports, with the values of a pandas pivot.

A table of N rows, each a new model and a new item, asks for N x N cells: 20,000 rows (350 KB) ask for
400,000,000 (3.2 GB). The boundary tests lower the two limits (monkeypatch) to keep the tables small."""

from __future__ import annotations

import re
import tracemalloc
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest
from hostile import run_capped

from benchsift.errors import FormatError
from benchsift.io import read_long, read_scores
from benchsift.panel import Panel
from benchsift.panel.long import _coded

HEADER = "model,benchmark,item,score\n"


def _diagonal(path: Path, n: int) -> Path:
    """A long CSV of ``n`` rows, row i: model ``m<i>``, item ``i<i>`` (a new model and item each row)."""
    path.write_text(HEADER + "".join(f"m{i},B,i{i},1\n" for i in range(n)))
    return path


def _message(source: object, models: int, items: int, rows: int, cap: int, per_row: int, runs: str) -> str:
    return (
        f"{source}: {models:,} {runs} x {items:,} items = {models * items:,} cells for {rows:,} rows; "
        f"refused before allocating them (damaged or hostile?): expected at most {cap:,} cells, or at least "
        f"one row per {per_row} cells"
    )


def _from_long(path: Path) -> Panel:
    df = pd.read_csv(path, dtype={"model": str, "benchmark": str, "item": str})
    return Panel.from_long(df, source=str(path))


#: every long-format path: the ``long`` importer, ``read_scores`` (compress, estimate, adaptive, ...) and
#: ``Panel.from_long``; all build the panel with ``assemble_coded``
READERS: dict[str, Callable[[Path], Panel]] = {
    "read_long": read_long,
    "read_scores": read_scores,
    "from_long": _from_long,
}


def _limits(monkeypatch: pytest.MonkeyPatch, cap: int, per_row: int) -> None:
    # raising=False: on a tree without the limits the tables are read as before (the refusals then fail)
    monkeypatch.setattr(_coded, "MAX_DENSE_CELLS", cap, raising=False)
    monkeypatch.setattr(_coded, "MAX_CELLS_PER_ROW", per_row, raising=False)


def _no_matrix(*args: Any, **kwargs: Any) -> Any:
    raise AssertionError("the panel's matrix was allocated")


def _check_values(panel: Panel, df: pd.DataFrame) -> None:
    """The panel equals the pandas pivot of ``df`` (models x (benchmark, item), NaN where no row)."""
    pivot = df.pivot(index="model", columns=["benchmark", "item"], values="score")
    items = pd.MultiIndex.from_frame(panel.items[["benchmark", "item"]].astype(str))
    expected = pivot.reindex(index=panel.models["model"].astype(str), columns=items).to_numpy()
    assert panel.scores.shape == (df["model"].nunique(), len(df[["benchmark", "item"]].drop_duplicates()))
    np.testing.assert_array_equal(panel.scores, expected)


@pytest.mark.parametrize("reader", list(READERS))
def test_hostile_sparse_table_refused_before_any_large_allocation(
    reader: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # the real limits: 20,000 rows ask for 400,000,000 cells (3.2 GB), over 2**28 and 100 per row
    path = _diagonal(tmp_path / "sparse.csv", 20_000)
    message = _message(path, 20_000, 20_000, 20_000, 1 << 28, 100, "models")
    monkeypatch.setattr(_coded, "owned_matrix", _no_matrix)
    tracemalloc.start()
    try:
        with pytest.raises(FormatError, match=re.escape(message) + "$"):
            READERS[reader](path)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    # numpy's allocations are traced: no array of the cells (the 400 MB one of seen cells) was made
    assert peak < 64 << 20, peak


def test_import_long_refuses_hostile_file_in_one_line_under_a_memory_cap(tmp_path: Path) -> None:
    # a real `benchsift import long` in a process whose address space is capped at 1.5 GiB: the 3.2 GB
    # matrix cannot be made there, so a read that tried ends in ENOMEM (the CLI's "not enough memory" line,
    # naming no file; exit 70 before that line), not in this refusal
    _diagonal(tmp_path / "sparse.csv", 20_000)
    res = run_capped(["import", "long", "sparse.csv", "-o", "out.parquet"], tmp_path, 3 << 29)
    where = f"exit={res.returncode}\nstderr={res.stderr[-2000:]!r}"
    assert res.returncode == 2, where
    message = _message("sparse.csv", 20_000, 20_000, 20_000, 1 << 28, 100, "models")
    assert res.stderr.strip() == f"benchsift: error: {message}", where
    assert res.stdout == ""
    assert not (tmp_path / "out.parquet").exists()


@pytest.mark.parametrize("reader", list(READERS))
def test_cap_boundary(reader: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # cap 2,500 cells, 10 per row: a diagonal of 50 (2,500 cells, 50 per row) is at the cap and imports;
    # one of 51 (2,601 cells, 51 per row) is over both and refused
    _limits(monkeypatch, 2_500, 10)
    path = _diagonal(tmp_path / "at.csv", 50)
    panel = READERS[reader](path)
    _check_values(panel, pd.read_csv(path, dtype={"model": str, "item": str}))
    over = _diagonal(tmp_path / "over.csv", 51)
    monkeypatch.setattr(_coded, "owned_matrix", _no_matrix)
    with pytest.raises(FormatError, match=re.escape(_message(over, 51, 51, 51, 2_500, 10, "models"))):
        READERS[reader](over)


def _sparse(n_models: int, n_items: int, per_model: int, seed: int) -> pd.DataFrame:
    """Model m scored on ``per_model`` items in a row from ``m * per_model`` (wrapping), two benchmarks,
    random scores (a tenth missing: a row with an empty score is a row)."""
    rng = np.random.default_rng(seed)
    rows = [(m, (m * per_model + k) % n_items) for m in range(n_models) for k in range(per_model)]
    score = rng.random(len(rows)).round(3)
    score[rng.random(len(rows)) < 0.1] = np.nan
    return pd.DataFrame(
        {
            "model": [f"model-{m}" for m, _ in rows],
            "benchmark": [f"B{i % 2}" for _, i in rows],
            "item": [f"q{i}" for _, i in rows],
            "score": score,
        }
    )


@pytest.mark.parametrize("reader", list(READERS))
def test_ratio_boundary(reader: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # cap 100 cells, 10 per row: 20 models x 30 items with 60 rows (10 % filled) is exactly 10 cells a
    # row and imports with the pivot's values; one more row with a new item (20 x 31 = 620 cells for 61
    # rows, over 610) is refused
    _limits(monkeypatch, 100, 10)
    df = _sparse(20, 30, 3, seed=1)
    path = tmp_path / "sparse.csv"
    df.to_csv(path, index=False)
    _check_values(READERS[reader](path), df)
    more = pd.concat([df, pd.DataFrame([["model-0", "B0", "q-new", 0.5]], columns=df.columns)])
    more.to_csv(path, index=False)
    with pytest.raises(FormatError, match=re.escape(_message(path, 20, 31, 61, 100, 10, "models"))):
        READERS[reader](path)


def test_model_runs_named_with_conditions(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # 51 models each in both conditions, every row a new item: 102 runs x 102 items for 102 rows
    _limits(monkeypatch, 2_500, 10)
    path = tmp_path / "cond.csv"
    rows = [f"m{i // 2},B,i{i},1,{('image', 'text-only')[i % 2]}\n" for i in range(102)]
    path.write_text("model,benchmark,item,score,condition\n" + "".join(rows))
    message = _message(path, 102, 102, 102, 2_500, 10, "model runs (model, condition)")
    with pytest.raises(FormatError, match=re.escape(message)):
        read_long(path)


@pytest.mark.parametrize("reader", list(READERS))
def test_real_sparse_panel_imports(reader: str, tmp_path: Path) -> None:
    # the real limits: 168 models x 1,050 items with 10 % of the scores (17,640 rows) is far below the cap
    df = _sparse(168, 1_050, 105, seed=2)
    path = tmp_path / "sparse.csv"
    df.to_csv(path, index=False)
    panel = READERS[reader](path)
    assert panel.shape == (168, 1_050)
    _check_values(panel, df)


def test_wide_files_of_other_models_each_are_refused_before_their_join(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # ten wide files (items as rows), each of two models of its own on five items: the joined matrix is
    # 20 models x 50 items = 1,000 cells for the files' 100 cells; with the cap at 500 cells and 5 cells a
    # row it is refused before it is allocated; at 10 cells a row it is read, equal to the files
    from benchsift.io import read_wide

    folder = tmp_path / "wide"
    folder.mkdir()
    rng = np.random.default_rng(0)
    for f in range(10):
        df = pd.DataFrame({"item": [f"q{j}" for j in range(5)]})
        for m in range(2):
            df[f"m{f}_{m}"] = rng.integers(0, 2, 5).astype(float)
        df.to_csv(folder / f"B{f}.csv", index=False)
    _limits(monkeypatch, 500, 5)
    with pytest.raises(
        FormatError, match=r"\(the 10 wide files together\): 20 models x 50 items = 1,000 cells "
    ):
        read_wide(folder)
    _limits(monkeypatch, 500, 10)
    panel = read_wide(folder)
    assert panel.scores.shape == (20, 50) and int(np.isfinite(panel.scores).sum()) == 100
    b3 = pd.read_csv(folder / "B3.csv")
    rows = [panel.model_ids.index(m) for m in ("m3_0", "m3_1")]
    cols = [panel.item_keys.index(("B3", f"q{j}")) for j in range(5)]
    np.testing.assert_array_equal(panel.scores[np.ix_(rows, cols)], b3[["m3_0", "m3_1"]].to_numpy().T)
