"""The ``long`` importer's sources: every long table file becomes pyarrow record batches, coded by column.

One reader for every source: a CSV / TSV is read by pyarrow's CSV reader (each column dictionary-encoded text,
block by block), a parquet file by pyarrow row group by row group, and an Excel sheet (or a CSV / TSV pyarrow
cannot parse) by pandas (:func:`benchsift.io._common.read_table`, which names a parse error) and converted to
a pyarrow table. The record batches then take the one path of every long table, the column coder
:func:`benchsift.panel.long._columns.code_batches` (ids stripped, an empty id, a score that is not a number
and an infinite score refused naming the file and the row), and the one builder
:func:`benchsift.panel.long._coded.assemble_coded`. Memory: about 20 bytes per row (three int32 codes, the
float64 score) plus 4 per metadata column while the file is read, in blocks of :data:`BLOCK` bytes.
"""

from __future__ import annotations

import csv
from collections.abc import Iterator
from pathlib import Path

import pandas as pd
import pyarrow as pa
import pyarrow.csv as pacsv
import pyarrow.parquet as pq

from benchsift.errors import FormatError
from benchsift.io._coded import PANDAS_NA
from benchsift.io._common import check_file, check_parquet, check_separator, read_table, require_columns
from benchsift.io._rows import row_name
from benchsift.panel.long import BATCH, REQUIRED, CodedLong, arrow_column, code_batches

#: Bytes per block of pyarrow's CSV reader, which runs on one thread: its buffers stay about 40 MB (4 MB
#: blocks: 130 MB), and on the 2-core machine one thread read a 2M-row file faster than two.
BLOCK = 1 << 20


def _check_header(header: list[str], path: Path) -> None:
    """The required columns, and no name twice (after stripping blanks)."""
    twice = sorted({h for h in header if header.count(h) > 1})
    if twice:
        raise FormatError(f"{path}: column(s) {twice} appear more than once (after stripping blanks)")
    require_columns(pd.DataFrame(columns=header), REQUIRED, path, "the long format")


def _pandas_names(raw: list[str]) -> list[str]:
    """The column names pandas gives a CSV header (``read_csv``'s ``dedup_names``): an empty one
    ``Unnamed: j``, a repeated one ``x.1``, ``x.2``; then stripped, as :func:`read_table` does."""
    names = [h if h != "" else f"Unnamed: {j}" for j, h in enumerate(raw)]
    counts: dict[str, int] = {}
    for j, col in enumerate(names):
        cur = counts.get(col, 0)
        while cur > 0:
            counts[col] = cur + 1
            col = f"{col}.{cur}"
            cur = counts.get(col, 0)
        names[j] = col
        counts[col] = cur + 1
    return [h.strip() for h in names]


def _csv_batches(path: Path, sep: str, header: list[str]) -> tuple[Iterator[pa.RecordBatch], int]:
    """pyarrow's streaming reader of a CSV / TSV (every column dictionary-encoded text, pandas' missing
    texts null) and a guess of its rows."""
    names = [f"c{j}" for j in range(len(header))]
    dict_type = pa.dictionary(pa.int32(), pa.string())
    reader = pacsv.open_csv(
        path,
        read_options=pacsv.ReadOptions(column_names=names, skip_rows=1, block_size=BLOCK, use_threads=False),
        parse_options=pacsv.ParseOptions(delimiter=sep, newlines_in_values=True),
        convert_options=pacsv.ConvertOptions(
            column_types=dict.fromkeys(names, dict_type),
            null_values=list(PANDAS_NA),
            strings_can_be_null=True,
            quoted_strings_can_be_null=True,
        ),
    )
    first = next(iter(reader), None)
    if first is None:
        return iter(()), 0
    guess = first.num_rows * path.stat().st_size // BLOCK * 21 // 20 + first.num_rows

    def batches() -> Iterator[pa.RecordBatch]:
        yield first
        yield from reader

    return batches(), guess


def _read_csv(path: Path, condition: str | None, keep_answers: bool) -> CodedLong | None:
    """A CSV / TSV by pyarrow; None when pyarrow cannot parse it (pandas then reads it or names the
    error)."""
    sep = "\t" if path.suffix.lower() == ".tsv" else ","
    with open(path, encoding="utf-8-sig", newline="") as fh:
        try:
            raw = next(csv.reader(fh, delimiter=sep), None)
        except (csv.Error, UnicodeDecodeError):
            return None
    if not raw:
        raise FormatError(f"{path}: empty file (no header)")
    check_separator(path, sep, raw)
    header = _pandas_names(raw)
    try:
        batches, guess = _csv_batches(path, sep, header)
        if guess == 0:
            raise FormatError(f"{path}: no data rows (only a header)")
        _check_header(header, path)
        return code_batches(
            batches,
            header,
            None,
            str(path),
            condition,
            keep_answers=keep_answers,
            capacity=guess,
            label=row_name,
        )
    except (pa.ArrowInvalid, pa.ArrowTypeError):
        return None


def _read_parquet(path: Path, condition: str | None, keep_answers: bool) -> CodedLong | None:
    """A parquet file by pyarrow, row group by row group (a stored pandas index left out); None when
    pyarrow cannot read it (pandas then names the error)."""
    try:
        pf = pq.ParquetFile(path)
        schema = pf.schema_arrow
    except (pa.ArrowInvalid, OSError):
        return None
    check_parquet(path, pf)  # the footer's counts, before a row is read or preallocated (capacity below)
    index_columns = {c for c in (schema.pandas_metadata or {}).get("index_columns", []) if isinstance(c, str)}
    fields = [f for f in schema if f.name not in index_columns]
    header = [f.name.strip() for f in fields]
    if pf.metadata.num_rows == 0:
        raise FormatError(f"{path}: no data rows (only a header)")
    _check_header(header, path)
    try:
        batches = pf.iter_batches(batch_size=BATCH, columns=[f.name for f in fields])
        return code_batches(
            batches,
            header,
            fields,
            str(path),
            condition,
            keep_answers=keep_answers,
            capacity=pf.metadata.num_rows,
            pandas_meta=schema.pandas_metadata,
            label=row_name,
        )
    except (pa.ArrowInvalid, OSError):
        return None


def _read_frame(path: Path, condition: str | None, keep_answers: bool) -> CodedLong:
    """An Excel sheet, or a CSV / TSV / parquet file pyarrow could not read, by pandas
    (:func:`~benchsift.io._common.read_table`, which names a parse error), as a pyarrow table."""
    frame = read_table(path, numeric=lambda header: ["score"])
    header = [str(c) for c in frame.columns]
    _check_header(header, path)
    table = pa.table([arrow_column(frame.iloc[:, j]) for j in range(len(header))], names=header)
    del frame
    return code_batches(
        table.to_batches(BATCH),
        header,
        list(table.schema),
        str(path),
        condition,
        keep_answers=keep_answers,
        capacity=table.num_rows,
        label=row_name,
    )


def read_long_file(path: Path, condition: str | None, keep_answers: bool = True) -> CodedLong:
    """One long table file (CSV, TSV, parquet, Excel) as codes (module docstring). ``condition`` fills
    rows without one (default ``image``); ``keep_answers=False``: a ``prediction`` column is read for its
    count only."""
    check_file(path)
    suffix = path.suffix.lower()
    coded = None
    if suffix in (".csv", ".tsv"):
        coded = _read_csv(path, condition, keep_answers)
    elif suffix == ".parquet":
        coded = _read_parquet(path, condition, keep_answers)
    if coded is None:
        coded = _read_frame(path, condition, keep_answers)
    return coded
