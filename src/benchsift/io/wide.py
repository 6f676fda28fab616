"""Importer ``wide``: a score matrix as a table, one benchmark per file.

Default orient ``items-rows`` (the layout of VLMEvalKit-derived per-item tables such as AutoJudger's
``MMMU_DEV_VAL.csv``): one row per item, the first column (or ``item_column``) holds the item id and every
other column is a model, named by its header. An optional ``category_column`` is taken out of the model
columns. Example::

    index,GPT4o,InternVL2-8B
    1,1,0
    2,0,

Orient ``models-rows`` is the transpose: one row per model, the first column (or ``model_column``) holds the
model id and every other column header is an item id.

Empty cells are missing scores (NaN), never zero. A repeated item (or model) row is collapsed when identical
and an error when it disagrees. A column without a header (a spreadsheet's trailing empty columns) is left
out, with a note, when all its cells are empty, and is an error when it holds a value. A spreadsheet's summary
row or column (named ``Average``, ``Total``, ``Mean``, ... and holding the mean or sum of the others) is an
error naming it.

A CSV written by ``pandas.DataFrame.to_csv`` with its index has an empty first header: that column (pandas
reads it as ``Unnamed: 0``) is the id column by default (noted), ``item_column="Unnamed: 0"`` names it
too, and with another ``item_column`` it is left out of the model columns (noted).

Memory and CPU: a CSV / TSV is read in one pass straight into the panel's float64 matrix (sized by the
file's line ends, on plain 4 KiB pages, mapped whole at the start when the file holds no quote:
:func:`benchsift.io._common.owned_matrix`). A file whose score cells are each one digit or empty (a 0/1
correctness table) is read as bytes by numpy passes over blocks of lines
(:mod:`benchsift.io._digit_csv`); any other by pyarrow's streaming CSV reader, each block's score columns
converted in one call (a large file without quotes in byte ranges parsed on as many threads as cores,
:mod:`benchsift.io._csv_ranges`). 2,000 x 50,000 0/1 cells: peak 1.0 GB, 1.25x the panel's own size
(pandas' is 2.7x), and ``import wide`` 3.6 s of CPU where ``pandas.read_csv`` alone takes 3.1-7.9 s
(``benchmarks/bench_import_memory.py``). A cell pyarrow does not read as a plain number (``true``, `` 1``
with blanks, ``inf``, text) sends the file to the general reader (pandas, every cell as text), which
accepts the same inputs as before and names the offending cell; all three give the same panel.
"""

from __future__ import annotations

import csv
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Literal

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.csv as pacsv

from benchsift._params import Options, validate_params
from benchsift._schema import Rule, check_frame, check_rules
from benchsift.errors import FormatError, InputError
from benchsift.io import _csv_ranges
from benchsift.io._coded import PANDAS_NA
from benchsift.io._common import (
    TABLE_PATTERNS,
    PathLike,
    Paths,
    as_paths,
    blank,
    check_file,
    check_separator,
    id_strings,
    numeric_scores,
    owned_matrix,
    read_table,
    require_columns,
)
from benchsift.io._csv_ranges import line_ends
from benchsift.io._digit_csv import fill_digits
from benchsift.io._rows import RowNames
from benchsift.io._spreadsheet import (
    UNNAMED,
    empty_tail,
    headerless_columns,
    summary_line,
    tail_note,
)
from benchsift.io._walk import walk_inputs
from benchsift.io.long import read_items_table, read_models_table
from benchsift.io.notes import raises_uncollected
from benchsift.io.rescale import RescaleMode, ScaleMap, matrix_affine
from benchsift.panel import CONDITIONS, Panel
from benchsift.panel.long import check_density, merge_side

Orient = Literal["items-rows", "models-rows"]
ORIENTS: tuple[str, ...] = ("items-rows", "models-rows")


def _collapse_repeats(
    ids: pd.Series,
    scores: np.ndarray,
    path: Path,
    rows: Sequence[str],
    what: str,
    notes: list[str] | None,
    line: str = "row",
) -> tuple[pd.Series, np.ndarray, np.ndarray]:
    """Drop identical repeated rows of ``scores`` (the file's rows, or its columns: ``line``), noted; a
    repeated id with different scores is an error naming both."""
    dup = ids.duplicated(keep=False).to_numpy()
    keep = ~ids.duplicated(keep="first").to_numpy()
    if not dup.any():
        return ids, scores, keep  # no copy of the matrix
    if dup.any():
        filled = np.where(np.isnan(scores), -1.0, scores)
        first_pos = (
            pd.Series(np.arange(len(ids))).groupby(ids.to_numpy(), sort=False).transform("first").to_numpy()
        )
        differs = (filled != filled[first_pos]).any(axis=1)
        if differs.any():
            i = int(np.flatnonzero(differs)[0])
            raise InputError(
                f"{path}, {rows[i]}: conflicting duplicate {what} {ids.iloc[i]!r} "
                f"(differs from {rows[first_pos[i]]})"
            )
        if notes is not None:
            notes.append(f"{path}: collapsed {int((~keep).sum())} identical repeated {what} {line}(s)")
    return ids[keep].reset_index(drop=True), scores[keep], keep


def _header(path: Path, df: pd.DataFrame) -> list[str]:
    """Column names as written (pandas renames a repeated CSV header ``m`` to ``m.1``; the raw line not)."""
    if path.suffix.lower() in (".csv", ".tsv"):
        with open(path, encoding="utf-8-sig", newline="") as fh:
            first = next(csv.reader(fh, delimiter="\t" if path.suffix.lower() == ".tsv" else ","), [])
        if len(first) == df.shape[1]:
            return [c.strip() for c in first]
    return [str(c) for c in df.columns]


def _block(
    df: pd.DataFrame,
    header: list[str],
    skip: tuple[str | None, ...],
    path: Path,
    rows: Sequence[str],
    what: str,
    notes: list[str] | None,
) -> tuple[list[str], np.ndarray]:
    """The score columns (all but ``skip``) as a float matrix; repeated headers collapse when identical
    (noted)."""
    positions = [j for j, c in enumerate(header) if c not in skip]
    if not positions:
        raise InputError(f"{path}: no {what} columns besides {[c for c in skip if c]}")
    block = np.empty((len(df), len(positions)), dtype=np.float64)
    for k, j in enumerate(positions):
        block[:, k] = numeric_scores(df.iloc[:, j], path, f"score in column {header[j]!r}", rows)
    names = pd.Series([header[j] for j in positions])
    labels = [f"column {j + 1}" for j in positions]
    names, columns, _ = _collapse_repeats(names, block.T, path, labels, what, notes, line="column")
    return [str(n) for n in names], columns.T


#: most columns a wide CSV / TSV may have (``max_columns`` raises it): far more than any benchmark's items or
#: any leaderboard's models, far fewer than a hostile header of a million fields (issue 32)
MAX_COLUMNS = 200_000
_HEADER_CHUNK = 1 << 20
#: bytes per block of pyarrow's CSV reader (``use_threads=False``: pyarrow's own threads within one reader
#: cost CPU on a loaded machine and gained no time; a large file without quotes is read instead in byte
#: ranges, one reader per range and thread, :mod:`benchsift.io._csv_ranges`: 2,000 x 50,000 partial-credit
#: cells 4.8-5.3 -> 3.4-3.5 s wall on 2 idle cores for 5-10 % more CPU). 4 MiB: as fast to parse as 8 MiB,
#: and the reader's own buffers (held while the matrix, mapped whole at the start, already counts in full)
#: 120 MB smaller on 2,000 columns: peak RSS of a 2,000 x 50,000 read 1.19 GB where 8 MiB blocks took
#: 1.31 GB (issue 36); the readers of the ranges share it
BLOCK = 4 << 20


def check_columns(path: Path, sep: str, max_columns: int) -> None:
    """Refuse a CSV / TSV whose header line has more than ``max_columns`` fields, counting them 1 MiB at a
    time (quotes respected) and stopping at the end of the header or at the first field over the limit: the
    refusal costs a few MB and milliseconds whatever the header's size, where parsing it whole did not."""
    fields, quoted = 1, False
    token = re.compile('["\n\r' + re.escape(sep) + "]")
    with open(path, encoding="utf-8-sig", newline="", errors="replace") as fh:
        for chunk in iter(lambda: fh.read(_HEADER_CHUNK), ""):
            for m in token.finditer(chunk):
                c = m.group()
                if c == '"':
                    quoted = not quoted
                elif quoted:
                    continue
                elif c == sep:
                    fields += 1
                    if fields > max_columns:
                        raise FormatError(
                            f"{path}: the header has more than {max_columns:,} columns; refused (damaged or "
                            "hostile? raise the limit with `max_columns`)"
                        )
                else:
                    return


def _raw_header(path: Path, max_columns: int = MAX_COLUMNS) -> list[str] | None:
    """The CSV / TSV header as written (stripped), or None for other tables; at most ``max_columns``."""
    if path.suffix.lower() not in (".csv", ".tsv"):
        return None
    sep = "\t" if path.suffix.lower() == ".tsv" else ","
    check_columns(path, sep, max_columns)
    with open(path, encoding="utf-8-sig", newline="") as fh:
        first = next(csv.reader(fh, delimiter=sep), [])
    check_separator(path, sep, first)
    return [c.strip() for c in first]


def _to_matrix(batch: pa.RecordBatch, rows_first: bool) -> np.ndarray:
    """The float64 columns of ``batch`` as ``(n_rows, n_columns)``, nulls as NaN, F-ordered unless
    ``rows_first``: one call (pyarrow >= 16), else a column at a time."""
    if hasattr(batch, "to_tensor"):
        return np.asarray(batch.to_tensor(null_to_nan=True, row_major=rows_first))
    columns = [c.to_numpy(zero_copy_only=False) for c in batch.columns]
    return np.stack(columns, axis=1) if rows_first else np.asfortranarray(np.stack(columns, axis=1))


def _fill(
    reader: pacsv.CSVStreamingReader,
    scores: np.ndarray,
    text_cols: set[int],
    score_names: list[str],
    rows_first: bool,
) -> tuple[dict[int, list], int] | None:
    """Fill ``scores`` (rows along its first axis when ``rows_first``, else its second) batch by batch
    from ``reader``; the text columns and the number of rows, or None when a cell is not a number, is
    infinite, or the rows outrun the matrix."""
    texts: dict[int, list] = {j: [] for j in text_cols}
    row, cap = 0, scores.shape[0 if rows_first else 1]
    try:
        for batch in reader:
            stop = row + batch.num_rows
            if stop > cap:
                return None
            for j in text_cols:
                texts[j].extend(batch.column(j).to_pylist())
            block = _to_matrix(batch.select(score_names), rows_first)
            del batch
            if np.isinf(block).any():
                return None
            if rows_first:
                scores[row:stop] = block
            else:
                scores[:, row:stop] = block.T
            row = stop
    except (pa.ArrowInvalid, pa.ArrowTypeError):
        return None
    return texts, row


def _arrow_columns(
    header: list[str], text_cols: set[int]
) -> tuple[list[str], list[str], dict[str, pa.DataType]]:
    """The column names pyarrow reads the file with (``c0``, ``c1``, ...), those of the score columns, and
    every column's type (text for ``text_cols``, float64 else)."""
    names = [f"c{j}" for j in range(len(header))]
    score_names = [names[j] for j in range(len(header)) if j not in text_cols]
    types = {names[j]: (pa.string() if j in text_cols else pa.float64()) for j in range(len(header))}
    return names, score_names, types


def _convert(types: dict[str, pa.DataType], nulls: list[str]) -> pacsv.ConvertOptions:
    return pacsv.ConvertOptions(
        column_types=types, null_values=nulls, strings_can_be_null=True, quoted_strings_can_be_null=True
    )


def _arrow_fill(
    path: Path, header: list[str], text_cols: set[int], sep: str, scores: np.ndarray, rows_first: bool
) -> tuple[dict[int, list], int] | None:
    """Fill ``scores`` with pyarrow's streaming CSV reader (:func:`_fill`): one parse, two when a cell holds
    one of pandas' missing texts but the empty one (whose look-up costs a quarter more); None as
    :func:`_fill` says."""
    names, score_names, types = _arrow_columns(header, text_cols)
    read = pacsv.ReadOptions(column_names=names, skip_rows=1, block_size=BLOCK, use_threads=False)
    parse = pacsv.ParseOptions(delimiter=sep, newlines_in_values=True)
    for nulls in ([""], list(PANDAS_NA)):
        try:  # open_csv reads the first block already
            reader = pacsv.open_csv(
                path, read_options=read, parse_options=parse, convert_options=_convert(types, nulls)
            )
        except (pa.ArrowInvalid, pa.ArrowTypeError):
            continue
        got = _fill(reader, scores, text_cols, score_names, rows_first)
        if got is not None:
            return got
    return None


def _arrow_range_reader(
    path: Path, header: list[str], text_cols: set[int], sep: str, rows_first: bool, n_ranges: int
) -> _csv_ranges.RangeReader:
    """:func:`_arrow_fill`'s parse for one byte range of a file without quotes (a range after the first
    starts at a row, and has no header): its own streaming reader on the range's bytes; only the empty cell
    is missing here (a file with pandas' other missing texts is read again in one stream). The readers of
    the ``n_ranges`` ranges share one reader's blocks: ``BLOCK / n_ranges`` bytes each, at least 1 MiB (two
    ranges of 4 MiB held 0.18 GB more at the peak on 2,000 x 50,000 cells)."""
    names, score_names, types = _arrow_columns(header, text_cols)
    parse = pacsv.ParseOptions(delimiter=sep)
    convert = _convert(types, [""])
    block = max(1 << 20, BLOCK // n_ranges)

    def read(k: int, start: int, stop: int, view: np.ndarray) -> tuple[dict[int, list], int] | None:
        options = pacsv.ReadOptions(
            column_names=names, skip_rows=int(k == 0), block_size=block, use_threads=False
        )
        with _csv_ranges.RangeFile(path, start, stop) as stream:
            try:
                reader = pacsv.open_csv(
                    stream, read_options=options, parse_options=parse, convert_options=convert
                )
            except (pa.ArrowInvalid, pa.ArrowTypeError):
                return None
            return _fill(reader, view, text_cols, score_names, rows_first)

    return read


def _digit_range_reader(
    path: Path, n_columns: int, text_cols: set[int], sep: str, rows_first: bool
) -> _csv_ranges.RangeReader:
    """The byte path (:func:`benchsift.io._digit_csv.fill_digits`) on one byte range."""

    def read(k: int, start: int, stop: int, view: np.ndarray) -> tuple[dict[int, list], int] | None:
        return fill_digits(path, view, text_cols, n_columns, sep, rows_first, start=start, stop=stop)

    return read


def _fast_csv(
    path: Path, header: list[str], text_cols: set[int], rows_first: bool
) -> tuple[dict[int, list], np.ndarray] | None:
    """Read a CSV / TSV into ``(text columns, scores)``: ``scores`` is float64 ``(n_score_columns, n_rows)``
    (``(n_rows, n_score_columns)`` with ``rows_first``), the columns not in ``text_cols`` in file order;
    None when a score cell is not a plain number (or is infinite), or the file is not well-formed for
    pyarrow: the general reader decides.

    The matrix is made for the file's lines but the header (:func:`_csv_ranges.line_ends`; pages never
    written cost no memory; when the file holds no quote, so that the bound is exact up to blank lines, all
    its pages are mapped in one call, ``MAP_POPULATE``, instead of one fault per page: 0.5-1 s less CPU for
    800 MB on a loaded machine). A file without quotes whose score cells are each one digit or empty (a
    correctness table) is read by the byte path (:func:`benchsift.io._digit_csv.fill_digits`: 2,000 x
    50,000 cells in about half pyarrow's parse time); any other by pyarrow's streaming reader, batch by
    batch, each batch's score columns converted in one call (:func:`_to_matrix`). A file of at least
    :data:`~benchsift.io._csv_ranges.MIN_BYTES` without quotes or lone ``\\r`` is read in byte ranges, one
    reader per range on its own thread (:func:`benchsift.io._csv_ranges.fill_in_ranges`; on 2 cores, 2,000 x
    50,000 cells, the reader's process: 0/1 2.3-2.4 -> 1.8-1.9 s, partial credit 4.8-5.3 -> 3.4-3.5 s, at
    about the same peak memory),
    else in one stream (:func:`_arrow_fill`); when fewer rows came (blank lines, line breaks in cells) the
    rows are moved together in place.
    """
    n_scores = len(header) - len(text_cols)
    cuts = _csv_ranges.split_points(path, _csv_ranges.range_count(path.stat().st_size))
    ends = line_ends(path, cuts)
    cap, exact = ends.data_rows_bound, not ends.quote
    shape = (cap, n_scores) if rows_first else (n_scores, cap)
    scores = owned_matrix(shape, populate=exact)
    sep = "\t" if path.suffix.lower() == ".tsv" else ","
    got = None
    if exact and cuts and not ends.lone_cr:  # one thread per byte range (benchsift.io._csv_ranges)
        for reader in (
            _digit_range_reader(path, len(header), text_cols, sep, rows_first),
            _arrow_range_reader(path, header, text_cols, sep, rows_first, len(cuts) + 1),
        ):
            got = _csv_ranges.fill_in_ranges(path, scores, rows_first, cuts, ends, reader)
            if got is not None:
                break
    elif exact:
        got = fill_digits(path, scores, text_cols, len(header), sep, rows_first)
    if got is None:
        got = _arrow_fill(path, header, text_cols, sep, scores, rows_first)
    if got is None:
        return None
    texts, row = got
    if rows_first:
        return texts, scores[:row]  # a contiguous view: the rows never written were never paged in
    if row == cap:
        return texts, scores
    flat = scores.reshape(-1)
    for k in range(1, n_scores):  # the rows' places move down: each move's source lies ahead
        flat[k * row : (k + 1) * row] = flat[k * cap : k * cap + row]
    return texts, flat[: n_scores * row].reshape(n_scores, row)


def _index_column(path: Path, orient: Orient, id_column: str | None, notes: list[str] | None) -> str | None:
    """The id column of a CSV whose first header is empty (an index written by pandas' ``to_csv``): that
    column (``""``) unless ``id_column`` names another, which leaves it out; noted either way."""
    what = "item" if orient == "items-rows" else "model"
    if id_column is None or UNNAMED.fullmatch(id_column) or id_column == "":
        if notes is not None:
            notes.append(
                f"{path}: the first column has an empty header (an index written by pandas' to_csv):"
                f" its values are the {what} ids; pass --{what}-column NAME to take them from another"
                " column"
            )
        return ""
    if notes is not None:
        notes.append(f"{path}: left out the first column (empty header: an index written by pandas' to_csv)")
    return id_column


def _refuse_summary_lines(
    path: Path, orient: Orient, model_ids: list[str], item_ids: list[str], scores: np.ndarray
) -> None:
    """Refuse a spreadsheet's summary row or column (:func:`~benchsift.io._spreadsheet.summary_line`)."""
    if orient == "items-rows":
        lines = ((item_ids, scores.T, "row", "item", "column"), (model_ids, scores, "column", "model", "row"))
    else:
        lines = ((model_ids, scores, "row", "model", "column"), (item_ids, scores.T, "column", "item", "row"))
    for ids, matrix, line, what, across in lines:
        found = summary_line(ids, matrix)
        if found is not None:
            name, kind = found
            article = "an" if what == "item" else "a"
            raise InputError(
                f"{path}: the {line} {name!r} holds the {kind} of the other {line}s in every {across}: a "
                f"summary {line} (a spreadsheet's total), not {article} {what}; remove it"
            )


def _read_one(
    path: Path,
    *,
    benchmark: str | None,
    orient: Orient,
    id_column: str | None,
    category_column: str | None,
    rescale: RescaleMode,
    scales: ScaleMap | None,
    notes: list[str] | None,
    max_columns: int = MAX_COLUMNS,
) -> tuple[np.ndarray, list[str], pd.DataFrame]:
    check_file(path)
    raw = _raw_header(path, max_columns)
    index_col = raw is not None and len(raw) > 1 and raw[0] == ""
    if index_col:
        id_column = _index_column(path, orient, id_column, notes)
    bench = benchmark if benchmark is not None else path.stem
    fast = None
    if raw is not None and len(set(raw)) == len(raw) and "" not in raw[1:]:
        id_col = id_column if id_column is not None else raw[0]
        need = [c for c in (id_col, category_column) if c is not None]
        if all(c in raw for c in need):
            text_cols = {raw.index(c) for c in need}
            if index_col:
                text_cols.add(0)
            fast = _fast_csv(path, raw, text_cols, rows_first=orient == "models-rows")
    if fast is not None:
        assert raw is not None
        texts, block = fast
        header = raw
        rows = RowNames(path, block.shape[0] if orient == "models-rows" else block.shape[1])
        if len(rows) == 0:
            raise FormatError(f"{path}: no data rows (only a header)")  # as read_table says it
        id_pos = header.index(id_col)
        cells = block.T if orient == "items-rows" else block  # (n_rows, n_score_columns)
        tail = empty_tail(
            cells.shape[0],
            lambda i: bool(np.isnan(cells[i]).all()) and all(blank(t[i]) for t in texts.values()),
        )
        if tail:  # blank rows at the end: left out, so that they are not refused as empty ids
            n_keep = cells.shape[0] - tail
            block = block[:, :n_keep] if orient == "items-rows" else block[:n_keep]
            texts = {j: t[:n_keep] for j, t in texts.items()}
            rows = RowNames(path, n_keep)
            tail_note(path, tail, notes)
        id_values = pd.Series(texts[id_pos], dtype=object)
        score_names = [c for j, c in enumerate(header) if j not in texts]
        if orient == "items-rows":
            model_ids = score_names
            ids = id_strings(id_values, path, f"item id ({id_col!r})", rows)
            ids, scores_t, keep = _collapse_repeats(ids, block.T, path, rows, "item", notes)
            items = pd.DataFrame({"benchmark": bench, "item": ids.to_numpy()})
            if category_column is not None:
                items["category"] = np.asarray(texts[header.index(category_column)], dtype=object)[keep]
            scores = scores_t.T
        else:
            ids = id_strings(id_values, path, f"model id ({id_col!r})", rows)
            ids, scores, _ = _collapse_repeats(ids, block, path, rows, "model", notes)
            items = pd.DataFrame({"benchmark": bench, "item": score_names})
            model_ids = [str(m) for m in ids]
    else:

        def numeric(header: list[str]) -> list[str]:
            first = id_column if id_column is not None else header[0]
            if index_col:
                first = header[0] if id_column == "" else first
            return [c for c in header[int(index_col) :] if c not in (first, category_column)]

        df = read_table(path, numeric=numeric)
        tail = empty_tail(len(df), lambda i: all(blank(v) for v in df.iloc[i].tolist()))
        if tail:
            df = df.iloc[: len(df) - tail]
            tail_note(path, tail, notes)
        header = _header(path, df)
        if index_col:
            header[0] = str(df.columns[0]) if id_column == "" else ""
            id_col = header[0] if id_column == "" else str(id_column)
        else:
            id_col = id_column if id_column is not None else header[0]
        rows = RowNames(path, len(df))
        require_columns(df, [id_col], path, "the id column")
        what = "model" if orient == "items-rows" else "item"
        headerless = headerless_columns(df, header, (id_col, category_column), raw is None, path, what, notes)
        skip = (id_col, category_column, "") if index_col or headerless else (id_col, category_column)
        if orient == "items-rows":
            if category_column is not None:
                require_columns(df, [category_column], path, "the category column")
            model_ids, block = _block(df, header, skip, path, rows, "model", notes)
            ids = id_strings(df[id_col], path, f"item id ({id_col!r})", rows)
            ids, scores, keep = _collapse_repeats(ids, block, path, rows, "item", notes)
            items = pd.DataFrame({"benchmark": bench, "item": ids.to_numpy()})
            if category_column is not None:
                items["category"] = df[category_column].to_numpy()[keep]
            scores = scores.T
        else:
            item_ids, block = _block(df, header, skip[:1] + skip[2:], path, rows, "item", notes)
            ids = id_strings(df[id_col], path, f"model id ({id_col!r})", rows)
            ids, scores, _ = _collapse_repeats(ids, block, path, rows, "model", notes)
            items = pd.DataFrame({"benchmark": bench, "item": item_ids})
            model_ids = [str(m) for m in ids]
    _refuse_summary_lines(path, orient, model_ids, [str(i) for i in items["item"]], scores)
    scores = _rescale_in_place(scores, bench, where=str(path), mode=rescale, scales=scales, notes=notes)
    return scores, model_ids, items


def _rescale_in_place(
    scores: np.ndarray,
    benchmark: str,
    *,
    where: str,
    mode: RescaleMode,
    scales: ScaleMap | None,
    notes: list[str] | None,
) -> np.ndarray:
    """:func:`benchsift.io.rescale.rescale_matrix`'s rule (the same decision, note and error), dividing the
    reader's own matrix in place instead of copying it."""
    zero, div = matrix_affine(scores, benchmark, where=where, mode=mode, scales=scales, notes=notes)
    if div == 1.0 and zero == 0.0:
        return scores
    if zero != 0.0:
        scores -= zero  # the reader's own matrix (or a view of it): nobody else holds it
    scores /= div
    return scores


#: which column options go with which orientation
_RULES = (
    Rule(
        ("model_column", "orient"),
        lambda column, orient: column is None or orient == "models-rows",
        "`model_column` only with `orient` 'models-rows' (use `item_column` for 'items-rows')",
    ),
    Rule(
        ("item_column", "orient"),
        lambda column, orient: column is None or orient == "items-rows",
        "`item_column` only with `orient` 'items-rows' (use `model_column` for 'models-rows')",
    ),
    Rule(
        ("category_column", "orient"),
        lambda column, orient: column is None or orient == "items-rows",
        "`category_column` only with `orient` 'items-rows' (a category belongs to an item row)",
    ),
)


@validate_params(
    {
        "orient": [Options(ORIENTS)],
        "condition": [Options(CONDITIONS), None],
    }
)
@raises_uncollected
def read_wide(
    paths: Paths,
    *,
    benchmark: str | None = None,
    orient: Orient = "items-rows",
    item_column: str | None = None,
    model_column: str | None = None,
    category_column: str | None = None,
    models: PathLike | None = None,
    items: PathLike | None = None,
    condition: str | None = None,
    rescale: RescaleMode = "auto",
    scales: ScaleMap | None = None,
    notes: list[str] | None = None,
    max_columns: int | None = None,
) -> Panel:
    """Read one or more wide score tables (see the module docstring) into a panel.

    ``max_columns`` (default :data:`MAX_COLUMNS`, 200,000): a CSV / TSV whose header has more columns is
    refused before it is parsed.

    ``benchmark`` names the benchmark (default: the file name without extension). With several files,
    each is one benchmark; their models are matched by id and a model missing from a file has NaN there.
    ``condition`` applies to every model (default ``image``).
    """
    if max_columns is None:
        max_columns = MAX_COLUMNS
    elif isinstance(max_columns, bool) or not isinstance(max_columns, int) or max_columns < 2:
        raise InputError(f"`max_columns` must be an integer of at least 2, got {max_columns!r}")
    check_rules(_RULES, locals())
    given = as_paths(paths)
    if benchmark is not None and (len(given) > 1 or given[0].is_dir()):
        raise InputError(
            "benchmark names one file's benchmark; give one file per call or let file names name them"
        )
    id_column = item_column if orient == "items-rows" else model_column

    def one(p: Path, file_notes: list[str] | None, _root: Path) -> tuple[np.ndarray, list[str], pd.DataFrame]:
        return _read_one(
            p,
            benchmark=benchmark,
            orient=orient,
            id_column=id_column,
            category_column=category_column,
            rescale=rescale,
            scales=scales,
            notes=file_notes,
            max_columns=max_columns,
        )

    parts, files = walk_inputs(given, TABLE_PATTERNS, one, notes=notes, what="wide table")
    all_models = list(dict.fromkeys(m for _, ids, _ in parts for m in ids))
    if len(parts) == 1:
        scores = parts[0][0]
    else:
        position = {m: i for i, m in enumerate(all_models)}
        n_items = sum(part_items.shape[0] for _, _, part_items in parts)
        # files of other models each: the joined matrix grows as their product (refused where the files'
        # cells fill under 1 % of it, past 2**28 cells: check_density, counting each file's cells as rows)
        check_density(
            f"{files[-1]} (the {len(files)} wide files together)",
            f"{len(all_models):,} models x {n_items:,} items",
            len(all_models) * n_items,
            sum(part_scores.size for part_scores, _, _ in parts),
        )
        scores = np.full((len(all_models), n_items), np.nan)
        col = 0
        for part_scores, ids, part_items in parts:
            rows_idx = np.fromiter((position[m] for m in ids), dtype=np.intp, count=len(ids))
            scores[rows_idx, col : col + part_items.shape[0]] = part_scores
            col += part_items.shape[0]
    item_table = pd.concat([it for _, _, it in parts], ignore_index=True)
    # a (benchmark, item) in more than one file
    check_frame(item_table, {}, where=f"{files[-1]} (the items of all files)", key=["benchmark", "item"])
    model_table = pd.DataFrame({"model": all_models, "condition": condition or "image"})
    model_table = merge_side(
        model_table, read_models_table(models, notes) if models is not None else None, ["model"]
    )
    item_table = merge_side(
        item_table, read_items_table(items) if items is not None else None, ["benchmark", "item"]
    )
    return Panel._from_owned(scores, model_table, item_table)
