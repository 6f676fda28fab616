"""The importers check a parquet file's footer before a row is read (``benchsift.io._common.check_parquet``):
a forged table declaring GBs of one repeated value in under 1 MB is refused in one line naming the file,
its counts and the bound, by the long importer (which preallocated from the footer's row count), the
table reader under every table importer, ``read_scores`` and the readers that make a Python object of every
cell (lm-eval's and lighteval's details parquet). Every pyarrow / pandas data read is replaced by one that
fails the test, so a refusal can only come from the footer.
"""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from hostile import write_repeated

from benchsift.errors import FormatError
from benchsift.io import _common, read_lighteval, read_lm_eval, read_long, read_scores

CHUNK = 1 << 22
ROWS = 9 * CHUNK  # 37,748,736 rows x 4 columns x 8 bytes = 1.21 GB declared, over the 1 GiB floor


def forged_long(path: Path, rows: int = ROWS, chunk: int = CHUNK) -> Path:
    """A long table (model, benchmark, item, score) whose ``rows`` rows all hold one value, dictionary
    encoded, ``chunk`` rows per row group: a few hundred kB on disk."""
    idx = pa.array(np.zeros(chunk, dtype=np.int32))
    names = ["model", "benchmark", "item"]
    columns = [pa.DictionaryArray.from_arrays(idx, pa.array([v])) for v in ("m", "B", "i")]
    table = pa.table([*columns, pa.DictionaryArray.from_arrays(idx, pa.array([1.0]))], [*names, "score"])
    return write_repeated(path, table, rows // chunk)


@pytest.fixture(scope="module")
def bomb(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return forged_long(tmp_path_factory.mktemp("bomb") / "long.parquet")


def expected(path: Path, rows: int, columns: int, decoded: int) -> str:
    size = path.stat().st_size
    return (
        f"{path}: the parquet footer declares {rows:,} rows x {columns:,} columns, {decoded:,} bytes once "
        f"read, in a {size:,}-byte file ({decoded / size:,.0f}x); expected at most 1024x the file size above "
        "1,073,741,824 bytes for a parquet table (a forged or damaged file?)"
    )


def test_the_forged_table_is_small(bomb: Path) -> None:
    assert bomb.stat().st_size < 1 << 20
    assert pq.ParquetFile(bomb).metadata.num_rows == ROWS


@pytest.mark.parametrize("reader", [read_long, read_scores, _common.read_table], ids=lambda f: f.__name__)
def test_a_forged_long_table_is_refused_from_its_footer(
    bomb: Path, no_data_reads: None, reader: object
) -> None:
    message = expected(bomb, ROWS, 4, 8 * 4 * ROWS)
    with pytest.raises(FormatError, match=re.escape(message)) as info:
        reader(bomb)  # type: ignore[operator]
    assert "\n" not in str(info.value)


def test_a_long_table_under_the_floor_is_read(tmp_path: Path) -> None:
    """The same kind of file (one value, 125x its size) under the 1 GiB floor passes the check, and a
    plain long table is read as before."""
    small = forged_long(tmp_path / "small.parquet", rows=1 << 20, chunk=1 << 20)
    _common.check_parquet(small)
    path = tmp_path / "plain.parquet"
    pd.DataFrame(
        {
            "model": ["a", "a", "b", "b"],
            "benchmark": "B",
            "item": ["1", "2", "1", "2"],
            "score": [1.0, 0, 0, 1],
        }
    ).to_parquet(path)
    panel = read_long(path)
    assert panel.shape == (2, 2)
    np.testing.assert_array_equal(panel.scores, [[1.0, 0.0], [0.0, 1.0]])


def test_a_list_column_counts_its_values(tmp_path: Path, no_data_reads: None) -> None:
    """An lm-eval details parquet of one row whose list holds 12,000,000 values: a Python object each once
    read (``to_pylist``, 100 bytes a value), 1.2 GB: refused, counted from the list's values."""
    n = 12_000_000
    path = tmp_path / "samples_arc_2024-01-01T00-00-00.parquet"
    values = pa.array(np.zeros(n))
    table = pa.table({"doc_id": [0], "resps": pa.ListArray.from_arrays(pa.array([0, n], pa.int32()), values)})
    pq.write_table(table, path, compression="zstd")
    assert path.stat().st_size < 1 << 20
    with pytest.raises(FormatError, match=re.escape(expected(path, 1, 2, 100 * (n + 1)))):
        read_lm_eval(path, model="m")


def test_a_lighteval_details_file_is_bounded(tmp_path: Path, no_data_reads: None) -> None:
    """lighteval's details (doc, metric, model_response structs) of 4 x 2**20 rows of one value: 3 leaf
    values a row, a Python object each (to_pylist): 1.26 GB declared in a few kB."""
    rows, chunk = 4 << 20, 1 << 20
    zeros = pa.array(np.zeros(chunk))
    table = pa.table(
        {
            "doc": pa.StructArray.from_arrays([pa.array(["q"] * chunk)], ["query"]),
            "metric": pa.StructArray.from_arrays([zeros], ["acc"]),
            "model_response": pa.StructArray.from_arrays([zeros], ["logprob"]),
        }
    )
    path = tmp_path / "details" / "m" / "2024" / "details_arc_2024.parquet"
    path.parent.mkdir(parents=True)
    with pq.ParquetWriter(path, table.schema, compression="zstd") as writer:
        for _ in range(rows // chunk):
            writer.write_table(table)
    with pytest.raises(FormatError, match=re.escape(expected(path, rows, 3, 100 * 3 * rows))):
        read_lighteval(path)


def test_the_verdict_and_embedding_readers_check_the_footer_too(bomb: Path, no_data_reads: None) -> None:
    # the same forged file given as a verdict table (prism score) or an embedding file (compress
    # --embeddings): refused from its footer, the verdicts with the table bound, embeddings with a panel's
    from benchsift.compression.embeddings import _read_table as read_embeddings
    from benchsift.io.verdicts import read_table as read_verdicts

    with pytest.raises(FormatError, match=re.escape(expected(bomb, ROWS, 4, 8 * 4 * ROWS))):
        read_verdicts(bomb)
    with pytest.raises(
        FormatError, match=r"x\); expected at most 256x the file size above 1,073,741,824 bytes "
    ):
        read_embeddings(bomb, "embeddings")
