"""The ``long`` importer's sources: every long table file becomes pyarrow record batches, coded by column.

One reader for every source: a CSV / TSV is read by pyarrow's CSV reader (each column dictionary-encoded
text, block by block), a parquet file by pyarrow row group by row group, and an Excel sheet (or a CSV /
TSV pyarrow cannot parse) by pandas (:func:`benchsift.io._common.read_table`, which names a parse error)
and converted to a pyarrow table. The record batches then take one path, :func:`code_batches`:

* ``model``, ``benchmark``, ``item`` (and ``condition``, ``category``): each batch's column is
  dictionary-encoded and its distinct values mapped onto the values seen so far (one Python dict look-up per
  distinct value per batch, none per row); a number is its text (``7``, an integral float ``3.0`` is
  ``3``), ids are stripped; an empty id is an error naming its row;
* ``score``: numbers as float64; a text column is converted once per distinct text (blank and NA texts
  missing, ``true``/``false`` 1/0, :func:`benchsift.io._common.numeric_scores`' rules); a text that is not
  a number and an infinite score are errors naming the first such row;
* any other column is metadata (:mod:`benchsift.io._coded_meta`): text, or (parquet, Excel) coded by value;
  ``prediction`` is the models' logged answers, kept as presence only when they are only counted.

The result is a :class:`~benchsift.io._coded.CodedLong` (int32 codes per row, float64 scores), assembled into
the panel by :func:`benchsift.io._coded.assemble_coded`. Memory: about 20 bytes per row (three int32 codes,
the float64 score) plus 4 per metadata column while the file is read, in blocks of :data:`BLOCK` bytes.
"""

from __future__ import annotations

import csv
import json
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.csv as pacsv
import pyarrow.parquet as pq

from benchsift.errors import FormatError, InputError
from benchsift.io._coded import ANSWER_PRESENT, IDS, PANDAS_NA, REQUIRED, Coded, CodedLong, constant_codes
from benchsift.io._coded_meta import PREDICTION, Extra
from benchsift.io._common import answer_labels, check_file, check_separator, read_table, require_columns
from benchsift.io._rows import row_name

#: Bytes per block of pyarrow's CSV reader, which runs on one thread: its buffers stay about 40 MB (4 MB
#: blocks: 130 MB), and on the 2-core machine one thread read a 2M-row file faster than two.
BLOCK = 1 << 20
#: Rows per batch of a parquet file or a pandas-read table.
BATCH = 1 << 20
#: The fixed columns besides the ids: coded as text.
TEXT = frozenset({*IDS, "condition", "category"})
_BOOL_TEXT = {"true": 1.0, "false": 0.0}
_BLANK_TEXT = frozenset({"", "nan", "na", "n/a", "none", "null"})


class _Buffer:
    """A 1-D array filled batch by batch, without a list of chunks to concatenate (which would hold the
    column twice). ``capacity`` is a guess of the rows (exact for parquet); when short it grows by a
    quarter. Pages of ``np.empty`` are given memory only when written, so a generous guess costs nothing."""

    def __init__(self, dtype: type, capacity: int) -> None:
        self.data: np.ndarray = np.empty(max(capacity, 1), dtype=dtype)
        self.n = 0

    def slot(self, k: int) -> np.ndarray:
        """The next ``k`` places, to be written."""
        if self.n + k > len(self.data):
            grown = np.empty(max(len(self.data), self.n + k) * 5 // 4 + 1024, dtype=self.data.dtype)
            grown[: self.n] = self.data[: self.n]
            self.data = grown
        out = self.data[self.n : self.n + k]
        self.n += k
        return out

    def result(self) -> np.ndarray:
        out = self.data[: self.n]
        self.data = np.empty(0, dtype=self.data.dtype)
        return out


def is_text(t: pa.DataType) -> bool:
    if pa.types.is_dictionary(t):
        t = t.value_type
    return bool(pa.types.is_string(t) or pa.types.is_large_string(t))


def _is_number(t: pa.DataType) -> bool:
    return bool(pa.types.is_integer(t) or pa.types.is_floating(t) or pa.types.is_boolean(t))


def as_text(value: object) -> str | None:
    """A cell as an id's text (:func:`benchsift.io._common.id_strings`): None / NaN missing, an integral
    float ``3.0`` is ``"3"``, anything else its ``str``."""
    if value is None or isinstance(value, str):
        return value
    if isinstance(value, float):
        if value != value:
            return None
        return str(int(value)) if value.is_integer() else str(value)
    return str(value)


def _answer_text(value: object) -> str | None:
    """A logged answer's text (``str``, as :func:`~benchsift.io._common.answer_labels` makes its label)."""
    if value is None or (isinstance(value, float) and value != value):
        return None
    return value if isinstance(value, str) else str(value)


class Column:
    """Collects one column batch by batch as int32 codes (-1 = missing) into its distinct values.

    ``mode``: ``"text"`` (each distinct value as text, :func:`as_text`), ``"answer"`` (``str`` of each value),
    ``"presence"`` (the ``prediction`` column when the answers are only counted: code 0, the one value
    :data:`~benchsift.io._coded.ANSWER_PRESENT`, where :func:`~benchsift.io._common.answer_labels` gives a
    label, else -1; a free-text answer per row then costs 4 bytes, not a Python string) or ``"value"`` (a
    parquet / Excel metadata column of numbers, dates, booleans, ...: coded by value, NaN missing and -0.0
    read as 0.0, as pandas counts them; lists and structs as their JSON text)."""

    def __init__(self, capacity: int, mode: str) -> None:
        self.mode = mode
        self.index: dict[Any, int] = {ANSWER_PRESENT: 0} if mode == "presence" else {}
        self.objects: list[Any] | None = None  # set when the column holds lists / structs (JSON text)
        self.codes = _Buffer(np.int32, capacity)
        self.nulls = False

    def _encoded(self, arr: pa.Array) -> pa.Array | None:
        if pa.types.is_dictionary(arr.type):
            return arr
        if self.mode == "value" and pa.types.is_floating(arr.type):
            arr = pc.if_else(pc.is_nan(arr), pa.scalar(None, arr.type), pc.add(arr, pa.scalar(0.0, arr.type)))
        try:
            return pc.dictionary_encode(arr)
        except pa.ArrowNotImplementedError:  # lists, structs, maps
            return None

    def add(self, arr: pa.Array) -> None:
        """Add a batch's column."""
        encoded = self._encoded(arr)
        if encoded is None:
            self._add_objects(arr)
            return
        values = encoded.dictionary.to_pylist()
        if self.mode == "presence":
            lut = np.where(answer_labels(values).notna().to_numpy(), 0, -1).astype(np.int32)
        else:
            if self.mode == "text" and not is_text(encoded.type):
                values = [as_text(v) for v in values]
            elif self.mode == "answer":
                values = [_answer_text(v) for v in values]
            index = self.index
            lut = np.fromiter(
                (-1 if v is None else index.setdefault(v, len(index)) for v in values), np.int32, len(values)
            )
        self.nulls = self.nulls or bool((lut < 0).any()) or bool(encoded.null_count)
        out = self.codes.slot(len(encoded))
        positions = pc.fill_null(encoded.indices, len(lut)).to_numpy(zero_copy_only=False)
        np.take(np.append(lut, np.int32(-1)), positions, out=out, mode="clip")

    def _add_objects(self, arr: pa.Array) -> None:
        """Lists, structs and maps (which pyarrow does not dictionary-encode): each cell as its JSON text,
        a Python loop over the rows (a panel's metadata table holds text, not nested values)."""
        if self.mode != "value":
            raise TypeError(arr.type)
        self.objects = []  # marks the column as text
        out = self.codes.slot(len(arr))
        index = self.index
        for k, v in enumerate(arr.to_pylist()):
            if v is None:
                out[k], self.nulls = -1, True
            else:
                out[k] = index.setdefault(json.dumps(v, default=str, ensure_ascii=False), len(index))

    def pad(self, n: int) -> None:
        """``n`` rows without this column (missing)."""
        if n:
            self.codes.slot(n)[:] = -1
            self.nulls = True

    def coded(self) -> Coded:
        return Coded(self.codes.result(), [str(v) for v in self.index])

    def extra(self, name: str, fld: pa.Field | None, pandas_meta: dict[str, object] | None) -> Extra:
        if self.objects is not None:  # nested values as their JSON text
            fld, pandas_meta = None, None
        return Extra(name, self.codes.result(), list(self.index), self.nulls, fld, pandas_meta)


def _score_texts(texts: list[Any]) -> tuple[np.ndarray, np.ndarray]:
    """Distinct score texts as numbers (the rules of :func:`~benchsift.io._common.numeric_scores`) and
    which of them are not numbers."""
    low = [v.strip().lower() if isinstance(v, str) else v for v in texts]
    fixed = [(_BOOL_TEXT.get(v, np.nan if v in _BLANK_TEXT else v) if isinstance(v, str) else v) for v in low]
    series = pd.Series(fixed, dtype=object)
    num = pd.to_numeric(series, errors="coerce")
    bad = (num.isna() & series.notna()).to_numpy()
    return num.to_numpy(dtype=np.float64), bad


class _Scores:
    """Collects the ``score`` column as float64 (NaN = missing) and the first cell that is not a number."""

    def __init__(self, capacity: int) -> None:
        self.buffer = _Buffer(np.float64, capacity)
        self.bad: tuple[int, object] | None = None  # (row, the cell as read)

    def add(self, arr: pa.Array, path: Path) -> None:
        start = self.buffer.n
        out = self.buffer.slot(len(arr))
        if _is_number(arr.type) or pa.types.is_null(arr.type):
            out[:] = pc.cast(arr, pa.float64()).to_numpy(zero_copy_only=False)
            return
        if not pa.types.is_dictionary(arr.type):
            try:
                arr = pc.dictionary_encode(arr)
            except pa.ArrowNotImplementedError:
                raise FormatError(f"{path}: column 'score' holds {arr.type}; expected numbers") from None
        values = arr.dictionary
        if _is_number(values.type):
            numbers, bad = pc.cast(values, pa.float64()).to_numpy(zero_copy_only=False), None
        elif is_text(values.type):
            try:
                numbers, bad = pc.cast(values, pa.float64()).to_numpy(zero_copy_only=False), None
            except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
                numbers, bad = _score_texts(values.to_pylist())
        else:
            numbers, bad = _score_texts([as_text(v) for v in values.to_pylist()])
        positions = pc.fill_null(arr.indices, len(numbers)).to_numpy(zero_copy_only=False)
        np.take(np.append(numbers, np.nan), positions, out=out, mode="clip")
        if bad is not None and bad.any() and self.bad is None:
            j = int(np.flatnonzero(np.append(bad, False)[positions])[0])
            self.bad = (start + j, values[int(positions[j])].as_py())


def _restrip(col: Coded, extra: str | None = None) -> Coded:
    """Strip the distinct values and merge those that become equal; ``extra``: a value for the missing
    code (-1), appended (the ``condition`` fill)."""
    values = [v.strip() for v in col.values]
    if extra is not None:
        values.append(extra.strip())
    codes, uniques = pd.factorize(np.asarray(values, dtype=object))
    if extra is None and len(uniques) == len(values):
        return Coded(col.codes, values)  # nothing merged: the codes stand
    lut = codes.astype(np.int32)
    return Coded(lut[col.codes], [str(u) for u in uniques])  # -1 takes the last entry: the fill


def _first(mask: np.ndarray) -> int | None:
    hits = np.flatnonzero(mask)
    return int(hits[0]) if len(hits) else None


def code_batches(
    batches: Iterable[pa.RecordBatch],
    header: list[str],
    fields: list[pa.Field] | None,
    path: Path,
    condition: str | None,
    *,
    keep_answers: bool,
    capacity: int,
    pandas_meta: dict[str, object] | None = None,
) -> CodedLong:
    """The long table of one file from its record batches (module docstring): ``header`` names the
    batches' columns, ``fields`` their types (None: a CSV, every column text); the checks of the ids and
    the scores raise an :class:`InputError` naming the file and the row."""
    columns: dict[str, Column] = {}
    for j, h in enumerate(header):
        if h == "score":
            continue
        if h == PREDICTION:
            mode = "answer" if keep_answers else "presence"
        elif h in TEXT or fields is None or is_text(fields[j].type):
            mode = "text"
        else:
            mode = "value"
        columns[h] = Column(capacity, mode)
    scores = _Scores(capacity)
    for batch in batches:
        for j, h in enumerate(header):
            if h == "score":
                scores.add(batch.column(j), path)
                continue
            try:
                columns[h].add(batch.column(j))
            except TypeError as exc:
                raise FormatError(f"{path}: column {h!r} holds {exc}; expected text or numbers") from None
        del batch
    pa.default_memory_pool().release_unused()  # the reader's blocks, kept by pyarrow's allocator for reuse
    score = scores.buffer.result()
    n = len(score)
    if n == 0:
        raise FormatError(f"{path}: no data rows (only a header)")
    ids: dict[str, Coded] = {}
    for name in IDS:
        c = _restrip(columns[name].coded())
        empty = [k for k, v in enumerate(c.values) if v == ""]
        i = _first((c.codes < 0) | np.isin(c.codes, empty)) if columns[name].nulls or empty else None
        if i is not None:
            raise InputError(f"{path}, {row_name(path, i)}: empty {name}")
        ids[name] = c
    if scores.bad is not None:
        i, raw = scores.bad
        raise InputError(f"{path}, {row_name(path, i)}: score {raw!r} is not a number")
    inf = _first(np.isinf(score))
    if inf is not None:
        raise InputError(f"{path}, {row_name(path, inf)}: score is infinite")
    fill = condition or "image"
    if "condition" in columns:
        cond = _restrip(columns["condition"].coded(), extra=fill)
    else:
        cond = Coded(constant_codes(n, 0), [fill])
    cat = columns["category"].coded() if "category" in columns else Coded(constant_codes(n, -1), [])
    by_name = dict(zip(header, fields, strict=True)) if fields is not None else {}
    extras = [
        col.extra(h, None if h == PREDICTION else by_name.get(h), pandas_meta)
        for h, col in columns.items()
        if h not in TEXT
    ]
    return CodedLong(
        model=ids["model"],
        benchmark=ids["benchmark"],
        item=ids["item"],
        condition=cond,
        category=cat,
        score=score,
        files=[str(path)],
        starts=np.zeros(1, dtype=np.int64),
        extras=extras,
    )


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
        return code_batches(batches, header, None, path, condition, keep_answers=keep_answers, capacity=guess)
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
            path,
            condition,
            keep_answers=keep_answers,
            capacity=pf.metadata.num_rows,
            pandas_meta=schema.pandas_metadata,
        )
    except (pa.ArrowInvalid, OSError):
        return None


def arrow_column(values: pd.Series) -> pa.Array:
    """A pandas column as a pyarrow array; a column of mixed Python objects (an Excel column of numbers
    and texts) as the text of each cell (:func:`as_text`)."""
    try:
        return pa.array(values, from_pandas=True)
    except (pa.ArrowInvalid, pa.ArrowTypeError, pa.ArrowNotImplementedError):
        cells = [None if pd.api.types.is_scalar(v) and pd.isna(v) else as_text(v) for v in values]
        return pa.array(cells, type=pa.string())


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
        path,
        condition,
        keep_answers=keep_answers,
        capacity=table.num_rows,
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
