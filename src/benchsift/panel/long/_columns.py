"""The column coder of the one long-table builder: pyarrow record batches coded column by column.

Every long table becomes pyarrow record batches: a CSV / TSV file read by pyarrow's CSV reader, a parquet
file row group by row group, an Excel sheet through pandas (:mod:`benchsift.io._long_sources`), a sample
importer's long frame (:mod:`benchsift.io._coded_frames`) and the DataFrame given to
:meth:`benchsift.panel.Panel.from_long` (:func:`panel_from_frame`, block by block of rows). The batches then
take one path, :func:`code_batches`:

* ``model``, ``benchmark``, ``item`` (and ``condition``, ``category``): each batch's column is
  dictionary-encoded and its distinct values mapped onto the values seen so far (one Python dict look-up per
  distinct value per batch, none per row); a number is its text (``7``, an integral float ``3.0`` is
  ``3``), ids are stripped; an empty id is an error naming its row;
* ``score``: numbers as float64; a text column is converted once per distinct text (blank and NA texts
  missing, ``true``/``false`` 1/0); a text that is not a number and an infinite score are errors naming the
  first such row;
* any other column is metadata (:mod:`benchsift.panel.long._coded_meta`): text, or (parquet, Excel) coded by
  value; ``prediction`` is the models' logged answers, kept as presence only when they are only counted.

The result is a :class:`~benchsift.panel.long._coded.CodedLong` (int32 codes per row, float64 scores),
assembled into the panel by :func:`benchsift.panel.long._coded.assemble_coded`. Memory: about 20 bytes per row
(three int32 codes, the float64 score) plus 4 per metadata column while the table is read, in blocks.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from benchsift._schema import Col, check_frame
from benchsift.errors import FormatError, InputError
from benchsift.panel.long._coded import (
    ANSWER_PRESENT,
    IDS,
    REQUIRED,
    Coded,
    CodedLong,
    assemble_coded,
    constant_codes,
    data_row,
    long_keys,
    split_metadata,
)
from benchsift.panel.long._coded_meta import PREDICTION, Extra, answer_labels

if TYPE_CHECKING:
    from benchsift.panel._panel import Panel

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
    """A logged answer's text (``str``, as :func:`~benchsift.panel.long._coded_meta.answer_labels` makes its
    label)."""
    if value is None or (isinstance(value, float) and value != value):
        return None
    return value if isinstance(value, str) else str(value)


class Column:
    """Collects one column batch by batch as int32 codes (-1 = missing) into its distinct values.

    ``mode``: ``"text"`` (each distinct value as text, :func:`as_text`), ``"answer"`` (``str`` of each value),
    ``"presence"`` (the ``prediction`` column when the answers are only counted: code 0, the one value
    :data:`~benchsift.panel.long._coded.ANSWER_PRESENT`, where
    :func:`~benchsift.panel.long._coded_meta.answer_labels` gives a label, else -1; a free-text answer per row
    then costs 4 bytes, not a Python string) or ``"value"`` (a parquet / Excel metadata column of numbers,
    dates, booleans, ...: coded by value, NaN missing and -0.0 read as 0.0, as pandas counts them; lists and
    structs as their JSON text)."""

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
                out[k] = index.setdefault(_json(v), len(index))

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

    def add(self, arr: pa.Array, source: str) -> None:
        start = self.buffer.n
        out = self.buffer.slot(len(arr))
        if _is_number(arr.type) or pa.types.is_null(arr.type):
            out[:] = pc.cast(arr, pa.float64()).to_numpy(zero_copy_only=False)
            return
        if not pa.types.is_dictionary(arr.type):
            try:
                arr = pc.dictionary_encode(arr)
            except pa.ArrowNotImplementedError:
                raise FormatError(f"{source}: column 'score' holds {arr.type}; expected numbers") from None
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
    source: str,
    condition: str | None,
    *,
    keep_answers: bool,
    capacity: int,
    pandas_meta: dict[str, object] | None = None,
    label: Callable[[str, int], str] = data_row,
    answers_column: str | None = PREDICTION,
) -> CodedLong:
    """The long table of one file (or DataFrame) from its record batches (module docstring): ``header``
    names the batches' columns, ``fields`` their types (None: a CSV, every column text); the checks of the
    ids and the scores raise an :class:`InputError` naming ``source`` and the row (``label(source, i)``
    names data row ``i``: ``"line 7"`` of a CSV). ``answers_column``: the column read as the logged
    answers (None: none)."""

    def place(i: int) -> str:
        return f"{source}, {label(source, i)}"

    columns: dict[str, Column] = {}
    for j, h in enumerate(header):
        if h == "score":
            continue
        if h == answers_column:
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
                scores.add(batch.column(j), source)
                continue
            try:
                columns[h].add(batch.column(j))
            except TypeError as exc:
                raise FormatError(f"{source}: column {h!r} holds {exc}; expected text or numbers") from None
        del batch
    pa.default_memory_pool().release_unused()  # the reader's blocks, kept by pyarrow's allocator for reuse
    score = scores.buffer.result()
    n = len(score)
    if n == 0:
        raise FormatError(f"{source}: no data rows (only a header)")
    ids: dict[str, Coded] = {}
    for name in IDS:
        c = _restrip(columns[name].coded())
        empty = [k for k, v in enumerate(c.values) if v == ""]
        i = _first((c.codes < 0) | np.isin(c.codes, empty)) if columns[name].nulls or empty else None
        if i is not None:
            raise InputError(f"{place(i)}: empty {name}")
        ids[name] = c
    if scores.bad is not None:
        i, raw = scores.bad
        raise InputError(f"{place(i)}: score {raw!r} is not a number")
    inf = _first(np.isinf(score))
    if inf is not None:
        raise InputError(f"{place(inf)}: score is infinite")
    fill = condition or "image"
    if "condition" in columns:
        cond = _restrip(columns["condition"].coded(), extra=fill)
    else:
        cond = Coded(constant_codes(n, 0), [fill])
    cat = columns["category"].coded() if "category" in columns else Coded(constant_codes(n, -1), [])
    by_name = dict(zip(header, fields, strict=True)) if fields is not None else {}
    extras = [
        col.extra(h, None if h == answers_column else by_name.get(h), pandas_meta)
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
        files=[source],
        starts=np.zeros(1, dtype=np.int64),
        extras=extras,
        label=label,
        answers_column=answers_column,
    )


def arrow_column(values: pd.Series) -> pa.Array:
    """A pandas column as a pyarrow array; a column of mixed Python objects (an Excel column of numbers
    and texts) as the text of each cell (:func:`as_text`)."""
    try:
        return pa.array(values, from_pandas=True)
    except (pa.ArrowInvalid, pa.ArrowTypeError, pa.ArrowNotImplementedError):
        cells = [None if pd.api.types.is_scalar(v) and pd.isna(v) else as_text(v) for v in values]
        return pa.array(cells, type=pa.string())


def _frame_extra(name: str, values: pd.Series) -> Extra:
    """A metadata column of a DataFrame coded by :func:`pandas.factorize` (its values keep their dtype;
    unhashable cells, lists or dicts, are their JSON text)."""
    try:
        codes, uniques = pd.factorize(values, use_na_sentinel=True)
    except TypeError:
        text = values.map(lambda v: None if pd.api.types.is_scalar(v) and pd.isna(v) else _json(v))
        codes, uniques = pd.factorize(text.astype(object), use_na_sentinel=True)
    codes = codes.astype(np.int32)
    return Extra(name, codes, [], bool((codes < 0).any()), uniques=uniques)


def _array(arr: pa.Array | pa.ChunkedArray) -> pa.Array:
    """One array (pandas' pyarrow-backed text column converts to a chunked one)."""
    return arr.combine_chunks() if isinstance(arr, pa.ChunkedArray) else arr


def _json(value: object) -> str:
    return json.dumps(value, default=str, ensure_ascii=False)


def _check_unit_range(coded: CodedLong) -> None:
    """Refuse a score outside [0, 1] (a DataFrame is not rescaled), naming its row, model, benchmark and
    item, and saying when the scores look like percentages."""
    score = coded.score
    with np.errstate(invalid="ignore"):
        outside = (score < 0) | (score > 1)
    if not outside.any():
        return
    i = int(np.flatnonzero(outside)[0])
    top = float(np.nanmax(score))
    hint = (
        f"; the scores reach {top:g}: percentages? `benchsift import long` rescales them (and known scales "
        "such as MME's)"
        if 1 < top <= 100
        else ""
    )
    model, bench, item = (col.values[int(col.codes[i])] for col in (coded.model, coded.benchmark, coded.item))
    raise InputError(
        f"{coded.place(i)}: score {float(score[i]):g} of model {model!r}, benchmark {bench!r}, item "
        f"{item!r} is outside [0, 1] (NaN = missing){hint}"
    )


def panel_from_frame(
    df: pd.DataFrame,
    *,
    models: pd.DataFrame | None,
    items: pd.DataFrame | None,
    source: str,
    rows: Sequence[str] | None = None,
) -> Panel:
    """:meth:`benchsift.panel.Panel.from_long`: the DataFrame's ids, conditions, categories and scores
    converted to pyarrow :data:`BATCH` rows at a time and coded by :func:`code_batches` (as a file's), its
    other columns by :func:`_frame_extra`; the scores must lie in [0, 1]; then the one builder with the
    metadata rule of :func:`~benchsift.panel.long._coded_meta.panel_roles`."""
    # the required columns and at least one row, with check_frame's messages (on one row: no copy)
    check_frame(df.iloc[:1], {c: Col(empty=True) for c in REQUIRED}, where=source, nonempty=True)
    n = len(df)
    fixed = [c for c in df.columns if c == "score" or c in TEXT]
    header = [str(c) for c in fixed]

    def batches() -> Iterator[pa.RecordBatch]:
        for s in range(0, n, BATCH):
            part = df.iloc[s : s + BATCH]
            yield pa.record_batch([_array(arrow_column(part[c])) for c in fixed], names=header)

    def label(_source: str, i: int) -> str:
        return f"row {i}" if rows is None else rows[i]

    coded = code_batches(
        batches(),
        header,
        None,
        source,
        None,
        keep_answers=False,
        capacity=n,
        label=label,
        answers_column=None,
    )
    coded.extras = [_frame_extra(str(c), df[c]) for c in df.columns if c not in fixed]
    _check_unit_range(coded)
    keys = long_keys(coded)
    split_metadata(coded, keys, None, panel_rule=True)
    return assemble_coded(coded, source=source, keys=keys, models=models, items=items)
