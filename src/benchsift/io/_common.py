"""Shared plumbing of the importers: reading tables, naming rows in errors, assembling the panel.

Every importer turns its source files into one *long* table (one row per score) with the columns
``model, condition, benchmark, item, score`` (+ ``category`` and item metadata) and two bookkeeping columns,
``_file`` and ``_row`` (the file, and the data-row index or a ready label such as ``samples[3]``; see
:mod:`benchsift.io._rows`), which only serve error messages.
:func:`assemble_panel` then checks that table once, rescales out-of-range benchmarks
(:mod:`benchsift.io.rescale`) and builds the :class:`~benchsift.panel.Panel`. Importers whose sources log
the models' answers (VLMEvalKit's ``prediction``, the harnesses' ``filtered_resps``, inspect's score
``answer``) add them as the column ``_answer``; :func:`assemble_panel` hands them out as a long answers table
(``model, condition, benchmark, item, answer``, the input of :func:`benchsift.io.answers.read_answers`) when
asked, and never puts them in the panel.

Errors are :class:`~benchsift.errors.InputError` / :class:`~benchsift.errors.FormatError` with a one-line
message that starts with the file name and says what was expected.
"""

from __future__ import annotations

import csv
import os
import zipfile
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.csv as pacsv

from benchsift._fileio import PARQUET_RATIO_FLOOR, check_parquet_footer
from benchsift._params import Check, check_param
from benchsift.errors import FormatError, InputError, listed, wide_table_hint
from benchsift.io._rows import row_label, row_name
from benchsift.io._zipmembers import check_archive
from benchsift.io.rescale import RescaleMode, ScaleMap, rescale_long
from benchsift.panel import CONDITIONS, Panel
from benchsift.panel.long import answer_labels as answer_labels
from benchsift.panel.long import owned_matrix as owned_matrix

if TYPE_CHECKING:
    import pyarrow.parquet as pq

PathLike = str | os.PathLike[str]
Paths = PathLike | Sequence[PathLike]

FILE_COL = "_file"
ROW_COL = "_row"
ANSWER_COL = "_answer"  # an importer's logged model answer per score (the input of DISCO), optional
KEY = ["model", "condition", "benchmark", "item"]
TABLE_SUFFIXES = (".csv", ".tsv", ".parquet", ".xlsx", ".xls")
TABLE_PATTERNS = tuple(f"*{s}" for s in TABLE_SUFFIXES)  # what a folder walk of tables reads


def as_paths(paths: Paths) -> list[Path]:
    """Normalise one path or a sequence of paths; an empty list is an error."""
    if isinstance(paths, str | os.PathLike):
        out = [Path(paths)]
    else:
        out = [Path(p) for p in paths]
    check_param("paths", out, [Check(bool, "at least one input file")])
    return out


#: Bounds on what a parquet table's footer may declare, checked before a byte of its data is read
#: (:func:`check_parquet`). The rule and the floor are the panel reader's (``benchsift.panel._storage``;
#: both are :func:`benchsift._fileio.check_parquet_footer`): the decoded size (``value_bytes`` per
#: declared value, rows x columns or a list column's values where more, or the row groups' declared
#: uncompressed bytes where more) may exceed 1 GiB only within :data:`TABLE_MAX_RATIO` times the file
#: size, and never :data:`TABLE_MAX_BYTES`. A table's ratio is looser than a panel file's 256x: a long
#: table repeats its model, benchmark and metadata cells in runs that encode to almost nothing, and 0/1
#: scores to about a bit a row: 5,000,000 rows (100 models x 50,000 items) of model, benchmark, item,
#: score expand 109x (snappy) and 139x (zstd) with 60 % ones, 138x / 217x with 97 %, and each constant
#: column more adds 8 decoded bytes a row for no file bytes (~54x at a bit a row); 1024x leaves room for
#: ten such columns. The 64 GiB cap reads the largest real long table, 2,000 x 50,000 = 100,000,000 rows,
#: even with a logged answer of 200 bytes in every row (20 GB). The long table of 400,000,000 rows of one
#: value in ``benchmarks/bench_bombs.py`` (4.9 MiB, 12.8 GB once read) is refused.
TABLE_RATIO_FLOOR = PARQUET_RATIO_FLOOR
TABLE_MAX_RATIO = 1024.0
TABLE_MAX_BYTES = 64 << 30
#: decoded bytes per value for a reader that makes a Python object of every cell (``to_pylist``): 93-109
#: measured (pyarrow 26, CPython 3.11: ints, floats, short strings, a struct, a list of floats)
PYTHON_VALUE_BYTES = 100


def check_parquet(path: Path, pf: pq.ParquetFile | None = None, *, value_bytes: int = 8) -> None:
    """Refuse the parquet file ``path`` in one line when the decoded size its footer declares is over the
    bounds (:data:`TABLE_RATIO_FLOOR`); ``pf``: the file already open as a ``pyarrow.parquet.ParquetFile``.
    Only the footer is read. A file pyarrow cannot open passes: its reader then names the error."""
    import pyarrow.parquet

    if pf is None:
        try:
            pf = pyarrow.parquet.ParquetFile(path)
        except (pa.ArrowException, OSError, ValueError):
            return
    check_parquet_footer(
        pf,
        path,
        max_ratio=TABLE_MAX_RATIO,
        max_bytes=TABLE_MAX_BYTES,
        floor=TABLE_RATIO_FLOOR,
        value_bytes=value_bytes,
        what="a parquet table",
    )


def check_file(path: Path) -> None:
    """Raise a one-line error if ``path`` is missing, a directory or empty."""
    if not path.exists():
        raise InputError(f"{path}: file not found")
    if path.is_dir():
        raise InputError(f"{path}: is a directory, expected a file")
    if path.stat().st_size == 0:
        raise FormatError(f"{path}: empty file")


NumericColumns = Callable[[list[str]], Iterable[str]]


_SEPARATORS = {",": "commas", "\t": "tabs", ";": "semicolons", "|": "vertical bars"}


def check_separator(path: Path, sep: str, header: Sequence[str]) -> None:
    """Refuse a delimited table whose header is one field holding another separator (a semicolon-separated
    export of a European spreadsheet read as CSV would be one text column, and no scores)."""
    if len(header) != 1:
        return
    for other, name in _SEPARATORS.items():
        if other != sep and other in header[0]:
            kind = "comma-separated .csv" if sep == "," else "tab-separated .tsv"
            raise FormatError(
                f"{path}: the header {header[0][:60]!r} is split by {name}, not {_SEPARATORS[sep]}: expected "
                f"a {kind} file (save it comma-separated as .csv, or tab-separated as .tsv)"
            )


def check_field_counts(path: Path, sep: str) -> None:
    """Refuse a CSV/TSV row with fewer or more fields than the header, naming its line.

    pandas reads a short row's missing fields as missing scores (a silent NaN where the file is broken), so
    every delimited table is checked first: one streaming pass of pyarrow's parser (which counts the fields
    of every row, quoted newlines included) converting a single column; only when it finds a bad row is the
    file scanned again with the ``csv`` module to name the line. Other pyarrow parse errors are left to the
    reader; a ``csv`` error is a ``FormatError``; a file that is not UTF-8 raises ``UnicodeDecodeError``.
    """
    try:
        with open(path, encoding="utf-8-sig", newline="") as fh:
            header = next(csv.reader(fh, delimiter=sep), None)
        if not header:
            return
        check_separator(path, sep, header)
        try:
            reader = pacsv.open_csv(
                path,
                read_options=pacsv.ReadOptions(block_size=1 << 24),
                parse_options=pacsv.ParseOptions(delimiter=sep, newlines_in_values=True),
                convert_options=pacsv.ConvertOptions(
                    include_columns=[header[0]], column_types={header[0]: pa.string()}
                ),
            )
            for _ in reader:
                pass
        except pa.ArrowInvalid as exc:
            if "columns, got" not in str(exc):
                return
        else:
            return
        with open(path, encoding="utf-8-sig", newline="") as fh:
            rows = csv.reader(fh, delimiter=sep)
            head = next(rows)
            for row in rows:
                if len(row) != len(head) and any(cell.strip() for cell in row):
                    raise FormatError(
                        f"{path}, line {rows.line_num}: {len(row)} fields, the header has {len(head)} "
                        "(a missing or extra separator)"
                    )
    except csv.Error as err:
        raise FormatError(f"{path}: not a readable CSV ({err})") from None


def read_table(path: Path, *, numeric: NumericColumns | None = None) -> pd.DataFrame:
    """Read a CSV, TSV, parquet or Excel table; column names are stripped of surrounding blanks.

    CSV/TSV cells are read as text (empty cells as NaN) so ids keep their exact spelling (``"007"``),
    except the columns that ``numeric(header)`` names: those are left to the parser's type inference (much
    faster for large score blocks); :func:`numeric_scores` converts and checks them either way.
    """
    check_file(path)
    suffix = path.suffix.lower()
    try:
        if suffix in (".csv", ".tsv"):
            sep = "\t" if suffix == ".tsv" else ","
            check_field_counts(path, sep)
            dtype: Any = str
            if numeric is not None:
                header = pd.read_csv(path, sep=sep, nrows=0, encoding="utf-8-sig").columns
                inferred = set(numeric([str(c).strip() for c in header]))
                dtype = {c: str for c in header if str(c).strip() not in inferred}
            df = pd.read_csv(path, sep=sep, dtype=dtype, keep_default_na=True, encoding="utf-8-sig")
        elif suffix == ".parquet":
            check_parquet(path)  # the footer's counts, before pandas reads a row
            df = pd.read_parquet(path)
        elif suffix in (".xlsx", ".xls"):
            try:
                if suffix == ".xlsx":  # a zip read by openpyxl, each member whole: bounded first (issue 32)
                    with zipfile.ZipFile(path) as zf:
                        check_archive(
                            zf, path, hint="if the workbook is genuine, save it as .csv and import that"
                        )
                with pd.ExcelFile(path) as book:
                    sheets = [str(n) for n in book.sheet_names]
                    if len(sheets) > 1:
                        # the first sheet alone would be read, silently: which one holds the scores?
                        raise FormatError(
                            f"{path}: the workbook has {len(sheets)} sheets {listed(sheets, 5)}; benchsift "
                            "reads one table per file: save the sheet to import as its own .xlsx or .csv"
                        )
                    df = pd.read_excel(book, sheet_name=sheets[0])
            except (KeyError, zipfile.BadZipFile) as exc:  # openpyxl on a damaged archive (a member missing)
                raise ValueError(str(exc).strip("'\"")) from None
        else:
            raise FormatError(
                f"{path}: unsupported table type {suffix!r}; expected one of {list(TABLE_SUFFIXES)}"
            )
    except FormatError:
        raise
    except pd.errors.EmptyDataError:
        raise FormatError(f"{path}: empty file (no header)") from None
    except (pd.errors.ParserError, ValueError, OSError, UnicodeDecodeError, ImportError) as exc:
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise FormatError(f"{path}: cannot be read as a {suffix.lstrip('.')} table ({first})") from None
    df.columns = [str(c).strip() for c in df.columns]
    if len(df) == 0:
        raise FormatError(f"{path}: no data rows (only a header)")
    return df


def require_columns(df: pd.DataFrame, columns: Iterable[str], path: Path | str, what: str = "") -> None:
    """Raise ``FormatError`` naming the file and the missing column(s)."""
    missing = [c for c in columns if c not in df.columns]
    if missing:
        kind = f" for {what}" if what else ""
        names = ", ".join(repr(c) for c in missing)
        plural = "s" if len(missing) > 1 else ""
        raise FormatError(
            f"{path}: missing column{plural} {names}{kind} (columns are {listed(df.columns)})"
            + wide_table_hint(df.columns)
        )


_BOOL_TEXT = {"true": 1.0, "false": 0.0}


def numeric_scores(
    values: pd.Series, path: Path | str, column: str, rows: Sequence[str] | None = None
) -> np.ndarray:
    """Convert a score column to float64; empty cells become NaN (missing, never zero).

    Accepts numbers, booleans and the texts ``true``/``false`` (any case). Anything else is an
    :class:`InputError` naming the file, the row and the value.
    """
    raw = values.reset_index(drop=True)
    if raw.dtype == bool:
        return raw.to_numpy(dtype=np.float64)
    fast = pd.to_numeric(raw, errors="coerce")
    if not (fast.isna() & raw.notna()).any():
        out = fast.to_numpy(dtype=np.float64)
        if not np.isinf(out).any():
            return out
    as_obj = raw.astype(object)
    text = as_obj.map(lambda v: v.strip().lower() if isinstance(v, str) else v)
    text = text.map(lambda v: _BOOL_TEXT.get(v, v) if isinstance(v, str) else v)
    blank = text.map(lambda v: isinstance(v, str) and v in ("", "nan", "na", "n/a", "none", "null"))
    text = text.mask(blank, np.nan)
    text = text.map(lambda v: float(v) if isinstance(v, bool | np.bool_) else v)
    num = pd.to_numeric(text, errors="coerce")
    bad = num.isna() & text.notna()
    if bad.any():
        i = int(np.flatnonzero(bad.to_numpy())[0])
        where = rows[i] if rows is not None else row_name(path, i)
        raise InputError(f"{path}, {where}: {column} {raw.iloc[i]!r} is not a number")
    out = num.to_numpy(dtype=np.float64)
    if np.isinf(out).any():
        i = int(np.flatnonzero(np.isinf(out))[0])
        where = rows[i] if rows is not None else row_name(path, i)
        raise InputError(f"{path}, {where}: {column} is infinite")
    return out


def blank(value: object) -> bool:
    """An empty cell: missing (None, NaN, NaT, ``pd.NA``) or text of whitespace only."""
    if isinstance(value, str):
        return not value.strip()
    return bool(pd.api.types.is_scalar(value) and pd.isna(value))


def id_strings(
    values: pd.Series, path: Path | str, column: str, rows: Sequence[str] | None = None
) -> pd.Series:
    """Ids as strings: integral floats such as ``3.0`` become ``"3"``, text is stripped; empty is an error."""
    s = values.reset_index(drop=True)
    if pd.api.types.is_integer_dtype(s.dtype):
        return s.astype(str).astype(object)
    if pd.api.types.is_float_dtype(s.dtype):
        empty = s.isna()
        if not empty.any():
            integral = (s % 1 == 0).to_numpy()
            out = s.astype(str)
            if integral.any():
                out[integral] = s[integral].astype(np.int64).astype(str)
            return out.astype(object)
    else:
        text = s.astype(object)
        if pd.api.types.infer_dtype(text, skipna=True) == "string":
            # strip each distinct id once (ids repeat a lot in long tables)
            codes, uniques = pd.factorize(text)
            stripped = pd.Index(uniques, dtype=object).str.strip()
            empty = pd.Series((codes < 0) | (stripped == "")[np.maximum(codes, 0)])
            if not empty.any():
                return pd.Series(stripped.take(codes).to_numpy(dtype=object), dtype=object)
        else:
            empty = s.map(blank).astype(bool)
    if empty.any():
        i = int(np.flatnonzero(empty.to_numpy())[0])
        where = rows[i] if rows is not None else row_name(path, i)
        raise InputError(f"{path}, {where}: empty {column}")

    def norm(v: object) -> str:
        if isinstance(v, float) and v.is_integer():
            return str(int(v))
        return str(v).strip()

    return s.map(norm).astype(object)


def check_conditions(long: pd.DataFrame) -> None:
    """Every ``condition`` must be ``image`` or ``text-only``."""
    bad = ~long["condition"].isin(CONDITIONS)
    if bad.any():
        i = int(np.flatnonzero(bad.to_numpy())[0])
        file = long[FILE_COL].iloc[i]
        raise InputError(
            f"{file}, {row_label(file, long[ROW_COL].iloc[i])}: condition {long['condition'].iloc[i]!r} "
            f"is not one of {list(CONDITIONS)}"
        )


def collapse_duplicates(long: pd.DataFrame, notes: list[str] | None) -> pd.DataFrame:
    """Drop identical duplicate ``(model, condition, benchmark, item)`` rows; conflicting ones are an error.

    Two scores are identical when equal or both missing. The error names both places (file and row).
    """
    dup = long.duplicated(KEY, keep=False)
    if not dup.any():
        return long
    sub = long.loc[dup]
    score_key = sub["score"].fillna(-1.0)  # scores are >= 0 here; -1 stands for "missing" when comparing
    first_key = score_key.groupby([sub[c] for c in KEY], sort=False).transform("first")
    differs = score_key != first_key
    if differs.any():
        bad = sub.loc[differs].iloc[0]
        same = sub.loc[(sub[KEY] == bad[KEY]).all(axis=1)]
        other = same.iloc[0]
        raise InputError(
            f"{bad[FILE_COL]}, {row_label(bad[FILE_COL], bad[ROW_COL])}: conflicting duplicate scores for "
            f"model {bad['model']!r}, benchmark {bad['benchmark']!r}, item {bad['item']!r}: "
            f"{float(bad['score'])!r} here and {float(other['score'])!r} "
            f"at {other[FILE_COL]}, {row_label(other[FILE_COL], other[ROW_COL])}"
        )
    n_before = len(long)
    out = long.drop_duplicates(KEY, keep="first").reset_index(drop=True)
    if notes is not None:
        notes.append(f"collapsed {n_before - len(out)} identical duplicate row(s)")
    return out


def assemble_panel(
    long: pd.DataFrame,
    *,
    source: str,
    models: pd.DataFrame | None = None,
    items: pd.DataFrame | None = None,
    rescale: RescaleMode = "auto",
    scales: ScaleMap | None = None,
    notes: list[str] | None = None,
    answers: list[pd.DataFrame] | None = None,
) -> Panel:
    """Check a long table, rescale out-of-range benchmarks and build the panel.

    ``long`` needs ``model, condition, benchmark, item, score`` (float, NaN = missing) and the bookkeeping
    columns ``_file`` and ``_row``; ``category`` and other columns become item metadata. When ``answers``
    is a list and ``long`` has an ``_answer`` column, the long answers table is appended to it.
    """
    if len(long) == 0:
        raise FormatError(f"{source}: no scores found")
    long = long.reset_index(drop=True)
    check_conditions(long)
    long = rescale_long(long, mode=rescale, scales=scales, notes=notes)
    long = collapse_duplicates(long, notes)
    if "category" not in long.columns:
        long["category"] = pd.NA
    if ANSWER_COL in long.columns:
        labels = answer_labels(long[ANSWER_COL])
        if answers is not None:
            answers.append(long[KEY].assign(answer=labels.to_numpy()))
        elif notes is not None and labels.notna().any():
            notes.append(
                f"{int(labels.notna().sum())} logged model answers not kept (a panel holds scores; "
                "--answers-out FILE writes them for DISCO)"
            )
        long = long.drop(columns=ANSWER_COL)
    return Panel.from_long(long.drop(columns=[FILE_COL, ROW_COL]), models=models, items=items, source=source)


def source_label(paths: Sequence[Path]) -> str:
    """Short description of the inputs for messages: the file, or the first file and a count."""
    if len(paths) == 1:
        return str(paths[0])
    return f"{paths[0]} (+{len(paths) - 1} more file{'s' if len(paths) > 2 else ''})"
