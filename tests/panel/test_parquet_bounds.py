"""A panel file's parquet footer is checked before a row is read: a forged panel declaring GBs of rows of one
value (RLE / dictionary encoded: under 1 MB on disk) is refused in one line naming the file, its counts and
the bound (``benchsift.panel._storage.check_parquet_bounds``); a legitimate panel is read as before.

The forged file here declares 50,331,648 rows x 3 columns (1.2 GB once read) in about 0.5 MB; the code
before the check read every row of it (the audit's 400,000,000-row file: 3.4 GB, then ArrowMemoryError).
The refusal is from the footer alone: every pyarrow data read is replaced by one that fails the test.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from hostile import write_repeated
from typer.testing import CliRunner

from benchsift._fileio import parquet_footer_counts
from benchsift.cli.main import app
from benchsift.errors import FormatError
from benchsift.io import _common as io_common
from benchsift.io import read_scores
from benchsift.panel import Panel, _storage

CHUNK = 1 << 22  # rows per row group of the forged files
ROWS = 12 * CHUNK  # 50,331,648 rows: 8 bytes x 3 columns = 1.21 GB declared, over the 1 GiB floor
META = {
    "format": "benchsift-panel/1",
    "models": [{"model": "m0", "condition": "image"}],
    "item_columns": ["benchmark", "item"],
}


def forged_panel(path: Path, rows: int = ROWS, chunk: int = CHUNK) -> Path:
    """A panel file with valid benchsift metadata (one model) whose ``rows`` rows all hold one value:
    dictionary-encoded item columns and a dictionary-encoded score column, ``chunk`` rows per row group
    (one small table written again and again: a few hundred kB on disk)."""
    idx = pa.array(np.zeros(chunk, dtype=np.int32))
    bench = pa.DictionaryArray.from_arrays(idx, pa.array(["B"]))
    item = pa.DictionaryArray.from_arrays(idx, pa.array(["i"]))
    score = pa.DictionaryArray.from_arrays(idx, pa.array([0.0]))
    fields = [pa.field("benchmark", bench.type), pa.field("item", item.type), pa.field("score:0", score.type)]
    schema = pa.schema(fields, metadata={b"benchsift": json.dumps(META).encode()})
    return write_repeated(path, pa.Table.from_arrays([bench, item, score], schema=schema), rows // chunk)


@pytest.fixture(scope="module")
def bomb(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return forged_panel(tmp_path_factory.mktemp("bomb") / "panel.parquet")


def expected(path: Path, rows: int, columns: int, ratio: float = 256, what: str = "a panel file") -> str:
    size = path.stat().st_size
    decoded = 8 * rows * columns
    return (
        f"{path}: the parquet footer declares {rows:,} rows x {columns:,} columns, {decoded:,} bytes once "
        f"read, in a {size:,}-byte file ({decoded / size:,.0f}x); expected at most {ratio:g}x the file size "
        f"above 1,073,741,824 bytes for {what} (a forged or damaged file?)"
    )


def small_panel() -> Panel:
    scores = np.array([[1.0, 0.0, np.nan, 0.5], [0.0, -0.0, 1.0, np.nan]])
    models = pd.DataFrame({"model": ["m1", "m2"], "condition": ["image", "text-only"], "family": ["A", None]})
    items = pd.DataFrame({"benchmark": ["B1", "B1", "B2", "B2"], "item": ["1", "2", "1", "2"]})
    return Panel(scores, models, items)


def test_the_forged_panel_is_small_and_declares_gigabytes(bomb: Path) -> None:
    md = pq.ParquetFile(bomb).metadata
    assert (md.num_rows, md.num_columns) == (ROWS, 3)
    assert bomb.stat().st_size < 2 << 20  # a few hundred kB on disk
    assert 8 * md.num_rows * md.num_columns > _storage.PARQUET_RATIO_FLOOR
    # what the row groups declare uncompressed is no help (RLE'd dictionary indices): the rows are
    assert sum(md.row_group(g).total_byte_size for g in range(md.num_row_groups)) < 8 << 20


def test_load_refuses_the_forged_panel_from_its_footer(bomb: Path, no_data_reads: None) -> None:
    with pytest.raises(FormatError, match=re.escape(expected(bomb, ROWS, 3))) as info:
        Panel.load(bomb)
    assert "\n" not in str(info.value)


def test_read_scores_refuses_the_forged_panel(bomb: Path, no_data_reads: None) -> None:
    with pytest.raises(FormatError, match=re.escape(expected(bomb, ROWS, 3))):
        read_scores(bomb)


def test_cli_info_refuses_it_in_one_line(bomb: Path, no_data_reads: None) -> None:
    r = CliRunner().invoke(app, ["info", str(bomb)])
    assert r.exit_code == 2, r.output
    assert r.stderr.strip() == f"benchsift: error: {expected(bomb, ROWS, 3)}"
    assert r.stdout == ""


def test_a_legitimate_panel_round_trips(tmp_path: Path) -> None:
    panel = small_panel()
    back = Panel.load(panel.save(tmp_path / "panel.parquet"))
    np.testing.assert_array_equal(back.scores, panel.scores)
    assert np.signbit(back.scores[1, 1])  # -0.0 stays -0.0: the same bytes
    pd.testing.assert_frame_equal(back.items, panel.items)
    pd.testing.assert_frame_equal(back.models, panel.models)


def test_an_all_missing_panel_compresses_most_and_is_still_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The writer's lz4 keeps even an all-NaN panel under 256x; with the floor at 0 it is still read."""
    n_models, n_items = 40, 20_000
    items = pd.DataFrame({"benchmark": "B", "item": [str(i) for i in range(n_items)]})
    panel = Panel(np.full((n_models, n_items), np.nan), [f"m{i}" for i in range(n_models)], items)
    path = panel.save(tmp_path / "empty.parquet")
    ratio = 8 * n_items * (n_models + 2) / path.stat().st_size
    assert 50 < ratio < 256
    monkeypatch.setattr(_storage, "PARQUET_RATIO_FLOOR", 0)
    assert Panel.load(path).shape == (n_models, n_items)


def test_the_ratio_and_the_cap_bite_on_small_files(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    small = forged_panel(tmp_path / "small.parquet", rows=1 << 20, chunk=1 << 20)  # 25 MB declared
    _storage.check_parquet_bounds(pq.ParquetFile(small), small)  # under the 1 GiB floor: passes
    monkeypatch.setattr(_storage, "PARQUET_RATIO_FLOOR", 1 << 20)
    with pytest.raises(FormatError, match=r"x\); expected at most 256x the file size above 1,048,576 bytes"):
        Panel.load(small)
    legit = small_panel().save(tmp_path / "legit.parquet")
    monkeypatch.setattr(_storage, "PARQUET_MAX_BYTES", 100)
    with pytest.raises(FormatError, match=re.escape("x); expected at most 100 bytes for a panel file")):
        Panel.load(legit)


def test_the_panel_and_the_importers_count_a_footer_alike(bomb: Path, tmp_path: Path) -> None:
    """One rule (benchsift._fileio.check_parquet_footer) with the same floor; a table's ratio looser."""
    rows, columns, values, declared = parquet_footer_counts(pq.ParquetFile(bomb), bomb)
    assert (rows, columns, values) == (ROWS, 3, 3 * ROWS) and declared < 8 << 20
    legit = small_panel().save(tmp_path / "legit.parquet")
    md = pq.ParquetFile(legit).metadata
    assert parquet_footer_counts(pq.ParquetFile(legit), legit)[:3] == (
        md.num_rows,
        md.num_columns,
        md.num_rows * md.num_columns,
    )
    assert io_common.TABLE_RATIO_FLOOR == _storage.PARQUET_RATIO_FLOOR
    assert io_common.TABLE_MAX_RATIO >= _storage.PANEL_MAX_RATIO
