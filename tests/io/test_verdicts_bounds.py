"""The verdict table's dense arrays are bounded (benchsift.io.verdicts._check_size, the rule of
benchsift.panel.long.check_density): a table whose (model x item x axis) scores and per-item arrays its
rows cannot nearly fill (over 2**28 cells and over 100 cells per row) is refused in one line naming the
file before any of them is allocated; a sparse table within the rule builds the arrays of a pandas pivot.

A table of N rows, each a new model, item and axis, asks for N**3 cells: 1,000 rows (27 KB) ask for 1e9
(7.45 GiB). The boundary tests lower the two limits (monkeypatch) to keep the tables small."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hostile import run_capped

from benchsift.errors import FormatError
from benchsift.io.verdicts import build_arrays, load_verdicts
from benchsift.panel.long import _coded

COLUMNS = ["model", "benchmark", "item", "domain", "axis", "score", "answered"]


def _cubic(n: int) -> pd.DataFrame:
    """``n`` rows, row i: model ``m<i>``, item ``i<i>``, axis ``ax<i>`` (a new model, item and axis)."""
    return pd.DataFrame(
        {
            "model": [f"m{i}" for i in range(n)],
            "benchmark": "B",
            "item": [f"i{i}" for i in range(n)],
            "domain": "d",
            "axis": [f"ax{i}" for i in range(n)],
            "score": 1.0,
            "answered": True,
        }
    )


def _message(source: object, shape: str, cells: int, rows: int, cap: int, per_row: int) -> str:
    return (
        f"{source}: {shape} = {cells:,} cells for {rows:,} rows; refused before allocating them (damaged "
        f"or hostile?): expected at most {cap:,} cells, or at least one row per {per_row} cells"
    )


def _limits(monkeypatch: pytest.MonkeyPatch, cap: int, per_row: int) -> None:
    # raising=False: on a tree without the limits the tables are read as before (the refusals then fail)
    monkeypatch.setattr(_coded, "MAX_DENSE_CELLS", cap, raising=False)
    monkeypatch.setattr(_coded, "MAX_CELLS_PER_ROW", per_row, raising=False)


def test_cubic_table_refused_naming_the_file(tmp_path: Path) -> None:
    # the real limits; load_verdicts allocates no array of the cells, so this is safe on any tree
    path = tmp_path / "verdicts.csv"
    _cubic(1_000).to_csv(path, index=False)
    shape = "1,000 models x 1,000 items x 1,000 axes"
    with pytest.raises(FormatError, match=re.escape(_message(path, shape, 10**9, 1_000, 1 << 28, 100)) + "$"):
        load_verdicts(path)


def test_sc_arrays_are_counted(tmp_path: Path) -> None:
    # one axis, sc: the scores (9,000 x 9,000 x 1 = 8.1e7 cells, under 2**28) and the three sc arrays
    # beside them make 3.24e8 cells, over the cap: refused (the real limits; load_verdicts allocates none)
    n = 9_000
    df = _cubic(n).assign(axis="sc", sc_turn0_correct=True, sc_flip_turn=pd.NA, sc_adopted=pd.NA)
    path = tmp_path / "sc.csv"
    df.to_csv(path, index=False)
    shape = "9,000 models x 9,000 items x (1 axis + 3 per-item arrays)"
    with pytest.raises(FormatError, match=re.escape(_message(path, shape, 4 * n * n, n, 1 << 28, 100))):
        load_verdicts(path)


def test_prism_score_refuses_cubic_table_in_one_line_under_a_memory_cap(tmp_path: Path) -> None:
    # a real `benchsift prism score` in a process whose address space is capped at 1.5 GiB: the 7.45 GiB
    # array cannot be made there, so a build that tried ends in MemoryError (the CLI's "not enough memory"
    # line, naming no file; exit 70 before that line), not in this refusal
    _cubic(1_000).to_csv(tmp_path / "verdicts.csv", index=False)
    res = run_capped(["prism", "score", "verdicts.csv"], tmp_path, 3 << 29)
    where = f"exit={res.returncode}\nstderr={res.stderr[-2000:]!r}"
    assert res.returncode == 2, where
    shape = "1,000 models x 1,000 items x 1,000 axes"
    message = _message("verdicts.csv", shape, 10**9, 1_000, 1 << 28, 100)
    assert res.stderr.strip() == f"benchsift: error: {message}", where
    assert res.stdout == ""


def _diagonal(n: int, axes: tuple[str, ...]) -> pd.DataFrame:
    """Model i scored on item i only, on every axis of ``axes``: ``n * len(axes)`` rows."""
    rows = [
        (f"m{i}", "B", f"i{i}", "d", a, round(0.1 + 0.8 * i / n, 3), True) for a in axes for i in range(n)
    ]
    return pd.DataFrame(rows, columns=COLUMNS)


@pytest.mark.parametrize("validated", [False, True])
def test_boundary(validated: bool, monkeypatch: pytest.MonkeyPatch) -> None:
    # cap 100 cells, 10 per row: 10 models x 10 items x 2 axes (200 cells) for 20 rows is exactly 10 a row
    # and builds the pivot's arrays; one more row with a new model (220 cells for 21 rows) is refused
    _limits(monkeypatch, 100, 10)
    df = _diagonal(10, ("q", "h"))
    arrays = build_arrays(df, validated=validated)
    assert arrays.scores.shape == (10, 10, 2)
    for k, axis in enumerate(arrays.axes):
        pivot = df[df["axis"] == axis].pivot(index="model", columns="item", values="score")
        expected = pivot.reindex(index=arrays.models, columns=list(arrays.item_ids)).to_numpy()
        np.testing.assert_array_equal(arrays.scores[:, :, k], expected)
    more = pd.concat([df, pd.DataFrame([["m-new", "B", "i0", "d", "q", 0.5, True]], columns=COLUMNS)])
    source = "verdict table" if validated else "<verdict table>"
    message = _message(source, "11 models x 10 items x 2 axes", 220, 21, 100, 10)
    with pytest.raises(FormatError, match=re.escape(message)):
        build_arrays(more.reset_index(drop=True), validated=validated)


def test_partial_counted(monkeypatch: pytest.MonkeyPatch) -> None:
    # mq with partial credit: the scores and the partial array, 30 x 30 x (1 + 1) = 1,800 cells for 30 rows
    _limits(monkeypatch, 1_000, 50)
    df = _diagonal(30, ("mq",)).assign(partial=0.5)
    message = _message(
        "<verdict table>", "30 models x 30 items x (1 axis + 1 per-item array)", 1_800, 30, 1_000, 50
    )
    with pytest.raises(FormatError, match=re.escape(message)):
        build_arrays(df)
    assert build_arrays(df.drop(columns="partial")).scores.shape == (30, 30, 1)  # 900 cells: under the cap
