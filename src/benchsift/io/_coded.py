"""The ``long`` importer's lean path: a long table held as integer codes, assembled into a panel with numpy.

A long CSV / TSV / parquet file (``model, benchmark, item, score``, optionally ``condition``, ``category``,
and any metadata columns) is read by pyarrow batch by batch: each text column is dictionary-encoded and
kept as one int32 code per row plus its distinct values (each converted, stripped and checked once), the
scores as float64. No Python object is made per row. The metadata columns (``question``, ``family``,
``prediction``, ...) are coded the same way and sorted by the general path's rules on the codes
(:mod:`benchsift.io._coded_meta`, called between :func:`long_keys` and :func:`assemble_coded`).
:func:`assemble_coded` then does on those arrays what :func:`benchsift.io._common.assemble_panel` and
:meth:`benchsift.panel.Panel.from_long` do on a long DataFrame, in the same order and with the same
messages:

1. every ``condition`` is ``image`` or ``text-only`` (:func:`~benchsift.io._common.check_conditions`);
2. out-of-range benchmarks are rescaled (:func:`benchsift.io.rescale.rescale_codes`, the code of
   :func:`~benchsift.io.rescale.rescale_long`);
3. the model runs ``(model, condition)`` and the items ``(benchmark, item)`` are numbered in order of first
   appearance, each row's cell is ``run * n_items + item``; an identical repeated cell is collapsed (the
   first row kept), a conflicting one is an error naming both rows
   (:func:`~benchsift.io._common.collapse_duplicates`);
4. the scores are scattered into the dense float64 matrix, the item metadata (``category`` and the item
   metadata columns) is taken from each item's first row, the ``prediction`` column becomes the answers
   table, and :func:`benchsift.panel.long.panel_from_parts` joins the side tables.

Memory: about 20 bytes per row (three int32 codes, the float64 score) plus 4 per metadata column while the
file is read, then the panel's matrix and a bit array of its cells; everything per row is processed in
blocks of :data:`CHUNK` rows. The distinct values of a column are Python objects, once each: a column with
a different text in every row (a free-text ``prediction``) costs a few hundred bytes per row (about 350
for 40-character answers, docs/SCALING.md). A
file the lean reader does not take (a score pyarrow does not read as a number, an empty id, a parse error,
a column named like the general reader's bookkeeping, a parquet metadata column that is not text (plain
or a categorical), numbers, dates nor timestamps) returns None from the readers and takes the general
reader, which names the offending cell.
"""

from __future__ import annotations

import csv
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.csv as pacsv
import pyarrow.parquet as pq

from benchsift.errors import FormatError, InputError
from benchsift.io._coded_meta import (
    PREDICTION,
    Extra,
    answers_table,
    count_answers,
    merge_extras,
    panel_roles,
    remap,
    split_coded_extras,
    text_dtype,
)
from benchsift.io._common import ANSWER_COL, FILE_COL, ROW_COL, answer_labels, check_file, owned_matrix
from benchsift.io._rows import row_label
from benchsift.io.rescale import RescaleMode, ScaleMap, rescale_codes
from benchsift.panel import CONDITIONS, Panel
from benchsift.panel.long import panel_from_parts

#: the one value of a ``prediction`` column read for its count only (``_Column(presence=True)``)
ANSWER_PRESENT = "<answer>"

#: The columns the lean path reads; any other one is a metadata column (:mod:`benchsift.io._coded_meta`).
REQUIRED = ("model", "benchmark", "item", "score")
COLUMNS = frozenset({*REQUIRED, "condition", "category"})
#: Column names the general reader uses for its bookkeeping: a file with one takes that reader.
RESERVED = frozenset({FILE_COL, ROW_COL, ANSWER_COL})
IDS = ("model", "benchmark", "item")
#: Bytes per block of pyarrow's CSV reader, which runs on one thread: its buffers stay about 40 MB (4 MB
#: blocks: 130 MB), and on the 2-core machine one thread read a 2M-row file faster than two.
BLOCK = 1 << 20
#: Rows per block of the per-row passes (keys, scatter): bounds their temporaries to a few MB.
CHUNK = 1 << 20

#: pandas' default missing-value texts (``read_csv(keep_default_na=True)``, documented in its ``na_values``).
PANDAS_NA = (
    "",
    "#N/A",
    "#N/A N/A",
    "#NA",
    "-1.#IND",
    "-1.#QNAN",
    "-NaN",
    "-nan",
    "1.#IND",
    "1.#QNAN",
    "<NA>",
    "N/A",
    "NA",
    "NULL",
    "NaN",
    "None",
    "n/a",
    "nan",
    "null",
)


@dataclass
class Coded:
    """One text column: ``codes`` (int32 per row, an index into ``values``; -1 = missing) and ``values``
    (the distinct texts). A constant column is a broadcast view (no memory per row)."""

    codes: np.ndarray
    values: list[str]


def _constant(n: int, code: int) -> np.ndarray:
    return np.broadcast_to(np.int32(code), (n,))


@dataclass
class CodedLong:
    """A long table as codes (see the module docstring); ``starts[k]`` is the first row of ``files[k]``.

    ``has_condition`` / ``has_category``: whether the (one) file had those columns, which decides how
    :meth:`to_frame` spells them. ``row_numbers`` / ``row_formats``: how messages name a row when it is not
    the data-row index in its file (the sample importers', :mod:`benchsift.io._coded_frames`): each row's
    number and, per file, None (the number is a data-row index), a prefix (``"line "``: the row is
    ``"line <number>"``) or a list of labels (the number indexes it). ``id_dtypes``: the dtypes of the
    answers table's id columns (:func:`~benchsift.io._coded_meta.answers_table`; None: the long reader's)."""

    model: Coded
    benchmark: Coded
    item: Coded
    condition: Coded
    category: Coded
    score: np.ndarray
    files: list[str]
    starts: np.ndarray
    has_condition: bool = False
    has_category: bool = False
    fill: str = "image"
    extras: list[Extra] = field(default_factory=list)
    row_numbers: np.ndarray | None = None
    row_formats: list[str | list[str] | None] | None = None
    id_dtypes: dict[str, object] | None = None
    _n: int = field(init=False, repr=False)

    def __post_init__(self) -> None:
        self._n = len(self.score)

    def __len__(self) -> int:
        return self._n

    @property
    def prediction(self) -> Extra | None:
        """The ``prediction`` column (the models' logged answers), if any."""
        return next((e for e in self.extras if e.name == PREDICTION), None)

    @property
    def metadata(self) -> list[Extra]:
        """The extra columns but ``prediction``, in the file's order."""
        return [e for e in self.extras if e.name != PREDICTION]

    def where(self, i: int) -> tuple[str, object]:
        """The file and the data-row index of row ``i`` (what ``_file`` and ``_row`` hold)."""
        k = int(np.searchsorted(self.starts, i, side="right")) - 1
        if self.row_numbers is None or self.row_formats is None:
            return self.files[k], i - int(self.starts[k])
        number, fmt = int(self.row_numbers[i]), self.row_formats[k]
        if fmt is None:
            return self.files[k], number
        return self.files[k], f"{fmt}{number}" if isinstance(fmt, str) else fmt[number]

    def place(self, i: int) -> str:
        """``"FILE, line N"`` of row ``i``, as the importers' messages name a place."""
        file, row = self.where(i)
        return f"{file}, {row_label(file, row)}"

    @classmethod
    def concat(cls, parts: Sequence[CodedLong]) -> CodedLong | None:
        """The rows of several files, one after the other, their codes renumbered over the union of values;
        None when their extra columns differ (:func:`~benchsift.io._coded_meta.merge_extras`)."""
        if len(parts) == 1:
            return parts[0]
        extras = merge_extras([p.extras for p in parts])
        if extras is None:
            return None

        def merge(columns: list[Coded]) -> Coded:
            index: dict[str, int] = {}
            codes = [remap(index, col.values, col.codes) for col in columns]  # -1 (missing) stays -1
            return Coded(np.concatenate(codes), list(index))

        sizes = np.array([len(p) for p in parts], dtype=np.int64)
        return cls(
            model=merge([p.model for p in parts]),
            benchmark=merge([p.benchmark for p in parts]),
            item=merge([p.item for p in parts]),
            condition=merge([p.condition for p in parts]),
            category=merge([p.category for p in parts]),
            score=np.concatenate([p.score for p in parts]),
            files=[f for p in parts for f in p.files],
            starts=np.concatenate([[0], np.cumsum(sizes)[:-1]]),
            extras=extras,
        )

    def to_frame(self) -> pd.DataFrame:
        """The long DataFrame the general path reads (one file's part), for inputs that mix both paths."""
        out: dict[str, object] = {}
        for name in IDS:
            col: Coded = getattr(self, name)
            out[name] = pd.Series(np.asarray(col.values, dtype=object).take(col.codes), dtype=object)
        out["score"] = self.score
        text = text_dtype()
        if self.has_condition:
            cond = np.asarray(self.condition.values, dtype=object).take(self.condition.codes)
            out["condition"] = pd.Series(pd.array(cond, dtype=text))
        else:
            out["condition"] = self.fill
        if self.has_category:
            cats = np.append(np.asarray(self.category.values, dtype=object), np.nan).astype(object)
            out["category"] = pd.Series(pd.array(cats.take(self.category.codes), dtype=text))
        else:
            out["category"] = pd.NA
        prediction = self.prediction
        if prediction is not None:
            out[ANSWER_COL] = prediction.series(prediction.codes).astype(object)
        for e in self.metadata:
            out[e.name] = e.series(e.codes)
        frame = pd.DataFrame(out)
        frame[FILE_COL] = self.files[0]
        frame[ROW_COL] = np.arange(len(frame))
        return frame


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


def _temporal(t: pa.DataType) -> bool:
    """A date or timestamp type (coded by value, as numbers are)."""
    return pa.types.is_timestamp(t) or pa.types.is_date(t)


class _Column:
    """Collects one dictionary-encoded column batch by batch: each batch's dictionary is mapped onto
    the values seen so far (one Python dict look-up per distinct value per batch, none per row).

    ``numbers``: a parquet metadata column of integers, floats, dates or timestamps, coded by value (a NaN
    is missing, as in pandas; a -0.0, which pandas counts equal to 0.0 but keeps apart, takes the general
    reader); otherwise
    text (integers become their text: ids). ``presence``: only whether each cell holds an answer (the
    ``prediction`` column when the answers are counted, not kept): code 0 (the one value
    :data:`ANSWER_PRESENT`) where :func:`~benchsift.io._common.answer_labels` gives a label, -1 where it
    gives None; each batch's distinct texts are dropped after that test, so a free-text answer per row costs
    4 bytes, not a Python string."""

    def __init__(self, capacity: int, numbers: bool = False, presence: bool = False) -> None:
        self.index: dict[object, int] = {ANSWER_PRESENT: 0} if presence else {}
        self.codes = _Buffer(np.int32, capacity)
        self.nulls = False
        self.numbers = numbers
        self.presence = presence

    def _encode_numbers(self, arr: pa.Array) -> pa.Array | None:
        if pa.types.is_floating(arr.type):
            arr = pc.if_else(pc.is_nan(arr), pa.scalar(None, arr.type), arr)
        elif not (pa.types.is_integer(arr.type) or _temporal(arr.type)):
            return None
        arr = pc.dictionary_encode(arr)
        if pa.types.is_floating(arr.type.value_type):
            d = arr.dictionary.to_numpy(zero_copy_only=False)
            if np.any((d == 0) & np.signbit(d)):
                return None
        return arr

    def add(self, arr: pa.Array) -> bool:
        """Add a batch's column; False when it cannot be coded (not text, or not numbers)."""
        if self.numbers:
            encoded = self._encode_numbers(arr)
            if encoded is None:
                return False
            arr = encoded
        else:
            if pa.types.is_integer(arr.type):
                arr = pc.cast(arr, pa.string())
            if pa.types.is_string(arr.type) or pa.types.is_large_string(arr.type):
                arr = pc.dictionary_encode(arr)
            if not pa.types.is_dictionary(arr.type):
                return False
            if not (pa.types.is_string(arr.type.value_type) or pa.types.is_large_string(arr.type.value_type)):
                return False
        dictionary = arr.dictionary
        index = self.index
        if self.presence:
            labels = answer_labels(dictionary.to_pylist())
            lut = np.where(labels.notna().to_numpy(), 0, -1).astype(np.int32)
            self.nulls = self.nulls or bool((lut < 0).any())  # a blank answer; a null cell: below
        else:
            lut = np.fromiter((index.setdefault(v, len(index)) for v in dictionary.to_pylist()), np.int32)
        out = self.codes.slot(len(arr))
        if arr.null_count:
            self.nulls = True
            positions = pc.fill_null(arr.indices, len(lut)).to_numpy(zero_copy_only=False)
            np.take(np.append(lut, np.int32(-1)), positions, out=out, mode="clip")
        else:
            np.take(lut, arr.indices.to_numpy(zero_copy_only=False), out=out, mode="clip")
        return True

    def result(self) -> Coded:
        return Coded(self.codes.result(), [str(v) for v in self.index])

    def extra(self, name: str, fld: pa.Field | None, pandas_meta: dict[str, object] | None) -> Extra:
        return Extra(name, self.codes.result(), list(self.index), self.nulls, fld, pandas_meta)


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


def _finish(
    columns: dict[str, _Column],
    scores: _Buffer,
    path: Path,
    condition: str | None,
    fields: dict[str, pa.Field] | None = None,
    pandas_meta: dict[str, object] | None = None,
) -> CodedLong | None:
    # the reader's blocks are freed: give back the memory pyarrow's allocator keeps for reuse
    pa.default_memory_pool().release_unused()
    score = scores.result()
    n = len(score)
    if n == 0 or np.isinf(score).any():
        return None
    coded: dict[str, Coded] = {}
    for name in IDS:
        col = columns[name]
        if col.nulls:
            return None
        c = _restrip(col.result())
        if any(v == "" for v in c.values):
            return None
        coded[name] = c
    fill = condition or "image"
    if "condition" in columns:
        cond = _restrip(columns["condition"].result(), extra=fill)
    else:
        cond = Coded(_constant(n, 0), [fill])
    if "category" in columns:
        cat = columns["category"].result()
    else:
        cat = Coded(_constant(n, -1), [])
    return CodedLong(
        model=coded["model"],
        benchmark=coded["benchmark"],
        item=coded["item"],
        condition=cond,
        category=cat,
        score=score,
        files=[str(path)],
        starts=np.zeros(1, dtype=np.int64),
        has_condition="condition" in columns,
        has_category="category" in columns,
        fill=fill,
        extras=[
            col.extra(h, None if fields is None else fields[h], pandas_meta)
            for h, col in columns.items()
            if h not in COLUMNS
        ],
    )


def read_coded(path: Path, condition: str | None, keep_answers: bool = True) -> CodedLong | None:
    """Read a long CSV / TSV / parquet file as codes, or None (the general reader decides).
    ``keep_answers=False``: the ``prediction`` column is read for its count only (``_Column``'s
    ``presence``)."""
    suffix = path.suffix.lower()
    if suffix in (".csv", ".tsv"):
        return _read_csv(path, condition, keep_answers)
    if suffix == ".parquet":
        return _read_parquet(path, condition, keep_answers)
    return None


def _lean_header(header: list[str]) -> bool:
    """The required columns, no name twice, none empty nor one of the general reader's own."""
    names = set(header)
    return set(REQUIRED) <= names and len(names) == len(header) and "" not in names and not names & RESERVED


def _read_csv(path: Path, condition: str | None, keep_answers: bool = True) -> CodedLong | None:
    check_file(path)
    sep = "\t" if path.suffix.lower() == ".tsv" else ","
    with open(path, encoding="utf-8-sig", newline="") as fh:
        header = [c.strip() for c in next(csv.reader(fh, delimiter=sep), [])]
    if not _lean_header(header):
        return None
    names = [f"c{j}" for j in range(len(header))]
    dict_type = pa.dictionary(pa.int32(), pa.string())
    types = {n: (pa.float64() if h == "score" else dict_type) for n, h in zip(names, header, strict=True)}
    columns: dict[str, _Column] = {}
    scores = _Buffer(np.float64, 0)
    try:
        reader = pacsv.open_csv(
            path,
            read_options=pacsv.ReadOptions(
                column_names=names, skip_rows=1, block_size=BLOCK, use_threads=False
            ),
            parse_options=pacsv.ParseOptions(delimiter=sep, newlines_in_values=True),
            convert_options=pacsv.ConvertOptions(
                column_types=types,
                null_values=list(PANDAS_NA),
                strings_can_be_null=True,
                quoted_strings_can_be_null=True,
            ),
        )
        for batch in reader:
            if not columns:  # the rows of a block of BLOCK bytes: the file's rows, about
                guess = batch.num_rows * path.stat().st_size // BLOCK * 21 // 20 + batch.num_rows
                counted = not keep_answers
                columns = {
                    h: _Column(guess, presence=counted and h == PREDICTION) for h in header if h != "score"
                }
                scores = _Buffer(np.float64, guess)
            for n, h in zip(names, header, strict=True):
                if h == "score":
                    scores.slot(batch.num_rows)[:] = batch.column(n).to_numpy(zero_copy_only=False)
                else:
                    columns[h].add(batch.column(n))
            del batch
    except (pa.ArrowInvalid, pa.ArrowTypeError):
        return None
    if not columns:
        return None
    return _finish(columns, scores, path, condition)


def _read_parquet(path: Path, condition: str | None, keep_answers: bool = True) -> CodedLong | None:
    check_file(path)
    try:
        pf = pq.ParquetFile(path)
        schema = pf.schema_arrow
    except (pa.ArrowInvalid, OSError):
        return None
    index_columns = {c for c in (schema.pandas_metadata or {}).get("index_columns", []) if isinstance(c, str)}
    fields = [f for f in schema if f.name not in index_columns]
    header = [f.name.strip() for f in fields]
    if not _lean_header(header):
        return None
    numbers = set()
    for f, h in zip(fields, header, strict=True):
        t = f.type.value_type if pa.types.is_dictionary(f.type) else f.type
        text = pa.types.is_string(t) or pa.types.is_large_string(t)
        if h == "score":
            ok = pa.types.is_floating(f.type) or pa.types.is_integer(f.type)
        elif h in IDS:
            ok = text or (pa.types.is_integer(f.type) and not pa.types.is_dictionary(f.type))
        elif h in COLUMNS:
            ok = text
        else:  # metadata: text (a dictionary one is a categorical), numbers, dates; others: general path
            ok = text and not (h == PREDICTION and pa.types.is_dictionary(f.type))
            numeric = pa.types.is_integer(f.type) or pa.types.is_floating(f.type) or _temporal(f.type)
            if h != PREDICTION and numeric:
                ok = True
                numbers.add(h)
        if not ok:
            return None
    n_rows = pf.metadata.num_rows
    counted = not keep_answers
    columns = {
        h: _Column(n_rows, numbers=h in numbers, presence=counted and h == PREDICTION)
        for h in header
        if h != "score"
    }
    scores = _Buffer(np.float64, n_rows)
    try:
        for batch in pf.iter_batches(batch_size=CHUNK, columns=[f.name for f in fields]):
            for f, h in zip(fields, header, strict=True):
                arr = batch.column(f.name)
                if h == "score":
                    if pa.types.is_integer(arr.type) and arr.null_count:
                        return None  # pandas reads it as floats; leave that to it
                    scores.slot(len(arr))[:] = arr.to_numpy(zero_copy_only=False)
                elif not columns[h].add(arr):
                    return None
            del batch
    except (pa.ArrowInvalid, pa.ArrowTypeError, OSError):
        return None
    by_name = dict(zip(header, fields, strict=True))
    return _finish(columns, scores, path, condition, by_name, schema.pandas_metadata)


def _first_rows(codes: np.ndarray, n_codes: int) -> np.ndarray:
    """The first row of each code 0 .. n_codes - 1 (n when a code does not occur)."""
    n = len(codes)
    first = np.full(n_codes, n, dtype=np.int64)
    for s in range(0, n, CHUNK):
        e = min(n, s + CHUNK)
        np.minimum.at(first, codes[s:e], np.arange(s, e, dtype=np.int64))
    return first


def _pair_codes(a: np.ndarray, n_a: int, b: np.ndarray, n_b: int) -> tuple[np.ndarray, np.ndarray]:
    """The code (int32) of each row's pair ``(a, b)``, numbered in order of first appearance, and each
    code's pair as ``a * n_b + b``. Codes by a table of first rows when the pair space is small (no hash,
    blocks of rows), else by :func:`pandas.factorize` of the combined key."""
    n = len(a)
    space = n_a * n_b
    if space <= max(n // 2, CHUNK):
        first = np.full(space, n, dtype=np.int64)
        for s in range(0, n, CHUNK):
            e = min(n, s + CHUNK)
            key = a[s:e].astype(np.int64) * n_b + b[s:e]
            np.minimum.at(first, key, np.arange(s, e, dtype=np.int64))
        present = np.flatnonzero(first < n)
        pairs = present[np.argsort(first[present], kind="stable")]
        del first
        rank = np.full(space, -1, dtype=np.int32)
        rank[pairs] = np.arange(len(pairs), dtype=np.int32)
        out = np.empty(n, dtype=np.int32)
        for s in range(0, n, CHUNK):
            e = min(n, s + CHUNK)
            out[s:e] = rank[a[s:e].astype(np.int64) * n_b + b[s:e]]
        return out, pairs.astype(np.int64)
    codes, uniques = pd.factorize(a.astype(np.int64) * n_b + b)
    return codes.astype(np.int32), np.asarray(uniques, dtype=np.int64)


@dataclass
class Keys:
    """Each row's model run and item, numbered in order of first appearance (:func:`long_keys`).

    ``run_pairs[r]`` is run ``r``'s ``model * n_conditions + condition`` and ``item_pairs[i]`` item ``i``'s
    ``benchmark * n_items + item`` (value codes); ``run_first`` / ``item_first`` / ``model_first``: the first
    row of each run, item and model (runs and models: only for a table with metadata columns);
    ``bad_condition``: the first row whose condition is not one of
    :data:`~benchsift.panel._panel.CONDITIONS` and
    that condition (raised by :func:`assemble_coded`, after the metadata notes, as the general path does)."""

    runs: np.ndarray
    run_pairs: np.ndarray
    items: np.ndarray
    item_pairs: np.ndarray
    run_first: np.ndarray
    item_first: np.ndarray
    model_first: np.ndarray
    bad_condition: tuple[int, str] | None


def long_keys(coded: CodedLong) -> Keys:
    """Number the runs and items of ``coded`` (and renumber its benchmarks in order of first appearance:
    the order of rescale_long's groups and notes). The per-row model, condition and item codes are released;
    the benchmark codes stay (rescaling reads them)."""
    n = len(coded)
    model, cond, bench, item = coded.model, coded.condition, coded.benchmark, coded.item
    bad_condition = None
    bad_values = [k for k, v in enumerate(cond.values) if v not in CONDITIONS]
    if bad_values:
        bad = np.isin(cond.codes, bad_values)
        if bad.any():
            i = int(np.flatnonzero(bad)[0])
            bad_condition = (i, cond.values[int(cond.codes[i])])
        del bad
    meta = bool(coded.metadata)  # the first rows of models and runs serve the metadata columns only
    model_first = _first_rows(model.codes, len(model.values)) if meta else np.empty(0, dtype=np.int64)
    model_first = np.sort(model_first[model_first < n])
    runs, run_pairs = _pair_codes(model.codes, len(model.values), cond.codes, len(cond.values))
    model.codes = cond.codes = _EMPTY

    first_bench = _first_rows(bench.codes, len(bench.values))
    by_first = np.argsort(first_bench, kind="stable")
    by_first = by_first[first_bench[by_first] < n]
    rank = np.full(len(bench.values), -1, dtype=np.int32)
    rank[by_first] = np.arange(len(by_first), dtype=np.int32)
    bench = Coded(rank[bench.codes], [bench.values[k] for k in by_first])
    coded.benchmark = bench

    items, item_pairs = _pair_codes(bench.codes, len(bench.values), item.codes, len(item.values))
    item.codes = _EMPTY
    return Keys(
        runs=runs,
        run_pairs=run_pairs,
        items=items,
        item_pairs=item_pairs,
        run_first=_first_rows(runs, len(run_pairs)) if meta else np.empty(0, dtype=np.int64),
        item_first=_first_rows(items, len(item_pairs)),
        model_first=model_first,
        bad_condition=bad_condition,
    )


def split_metadata(
    coded: CodedLong, keys: Keys, notes: list[str] | None, panel_rule: bool = False
) -> pd.DataFrame | None:
    """Sort the metadata columns of ``coded`` into item and model metadata and give the models table of the
    latter (:func:`benchsift.io._coded_meta.split_coded_extras`, the rule of
    :func:`benchsift.io.long.split_extra_columns`). ``panel_rule``: the rule of
    :meth:`benchsift.panel.Panel.from_long` alone (:func:`~benchsift.io._coded_meta.panel_roles`; no models
    table). Only the per-row codes of ``prediction`` stay: an item (run) column keeps the code of each
    item's (run's) first row, the others are released."""
    table = None
    if panel_rule:
        panel_roles(
            coded.metadata,
            runs=keys.runs,
            run_first=keys.run_first,
            items=keys.items,
            item_first=keys.item_first,
        )
    else:
        n_cond = len(coded.condition.values)
        names = np.asarray(coded.model.values, dtype=object)
        model_of_run = keys.run_pairs[keys.runs[keys.model_first]] // n_cond
        table = split_coded_extras(
            coded.metadata,
            runs=keys.runs,
            run_first=keys.run_first,
            items=keys.items,
            item_first=keys.item_first,
            model_first=keys.model_first,
            model_names=names[model_of_run],
            notes=notes,
        )
    coded.extras = [e for e in coded.extras if e.role in ("item", "run") or e.name == PREDICTION]
    for e in coded.extras:
        if e.role:
            e.codes = np.ascontiguousarray(e.codes[keys.item_first if e.role == "item" else keys.run_first])
    return table


def assemble_coded(
    coded: CodedLong,
    *,
    source: str,
    keys: Keys | None = None,
    models: pd.DataFrame | None = None,
    items: pd.DataFrame | None = None,
    rescale: RescaleMode = "auto",
    scales: ScaleMap | None = None,
    notes: list[str] | None = None,
    answers: list[pd.DataFrame] | None = None,
) -> Panel:
    """Check a coded long table, rescale, collapse duplicates and build the panel (module docstring).

    Gives the panel, notes and errors of :func:`benchsift.io._common.assemble_panel` on the same table as a
    DataFrame. ``keys``: the table's :func:`long_keys`, if made already (and its metadata sorted by
    :func:`split_metadata`; else the metadata columns are left out). ``answers``: a list that receives the
    long answers table of the ``prediction`` column, if any. ``coded`` is consumed: its per-row arrays are
    released as soon as they are no longer needed.
    """
    n = len(coded)
    if n == 0:
        raise FormatError(f"{source}: no scores found")
    if keys is None:
        keys = long_keys(coded)
    if keys.bad_condition is not None:
        i, value = keys.bad_condition
        raise InputError(f"{coded.place(i)}: condition {value!r} is not one of {list(CONDITIONS)}")
    model, cond, bench, item, category = (
        coded.model,
        coded.condition,
        coded.benchmark,
        coded.item,
        coded.category,
    )
    score = rescale_codes(
        coded.score,
        bench.codes,
        list(bench.values),
        where=coded.place,
        mode=rescale,
        scales=scales,
        notes=notes,
    )
    coded.score = np.empty(0)
    bench.codes = _EMPTY
    runs, items_of_rows, run_pairs, item_pairs = keys.runs, keys.items, keys.run_pairs, keys.item_pairs
    n_runs, n_items = len(run_pairs), len(item_pairs)

    def cells(s: int, e: int) -> np.ndarray:
        return runs[s:e].astype(np.int64) * n_items + items_of_rows[s:e]

    seen = np.zeros(n_runs * n_items, dtype=bool)
    for s in range(0, n, CHUNK):
        seen[cells(s, min(n, s + CHUNK))] = True
    n_distinct = int(np.count_nonzero(seen))
    del seen
    keep: np.ndarray | None = None
    if n_distinct < n:
        names = _Names(model.values, cond.values, bench.values, item.values, run_pairs, item_pairs)
        keep = _collapse(coded, score, cells, n_runs * n_items, names)
        if notes is not None:
            notes.append(f"collapsed {n - n_distinct} identical duplicate row(s)")
    matrix = owned_matrix((n_runs, n_items), np.nan)
    flat = matrix.reshape(-1)
    for s in range(0, n, CHUNK):
        e = min(n, s + CHUNK)
        if keep is None:
            flat[cells(s, e)] = score[s:e]
        else:
            k = keep[s:e]
            flat[cells(s, e)[k]] = score[s:e][k]
    del score
    prediction = coded.prediction
    if prediction is not None:
        rows = None if keep is None else np.flatnonzero(keep)
        if answers is not None:
            answers.append(answers_table(prediction, rows, _row_ids(coded, keys, rows), coded.id_dtypes))
        elif notes is not None:
            count = count_answers(prediction, rows)
            if count:
                notes.append(
                    f"{count} logged model answers not kept (a panel holds scores; "
                    "--answers-out FILE writes them for DISCO)"
                )
        prediction.codes = _EMPTY
    del keep
    keys.runs = keys.items = runs = items_of_rows = _EMPTY  # the closure's arrays, released

    cat_codes = np.asarray(category.codes)[keys.item_first]
    category.codes = _EMPTY
    n_cond, n_item_values = len(cond.values), len(item.values)
    model_table = pd.DataFrame(
        {
            "model": np.asarray(model.values, dtype=object)[run_pairs // n_cond],
            "condition": np.asarray(cond.values, dtype=object)[run_pairs % n_cond],
        },
        dtype=object,
    ).astype(str)
    item_table = pd.DataFrame(
        {
            "benchmark": np.asarray(bench.values, dtype=object)[item_pairs // n_item_values],
            "item": np.asarray(item.values, dtype=object)[item_pairs % n_item_values],
        },
        dtype=object,
    ).astype(str)
    if category.values:
        cats = np.append(np.asarray(category.values, dtype=object), np.nan).astype(object)
        item_table["category"] = pd.Series(pd.array(cats.take(cat_codes), dtype=text_dtype()))
    else:
        item_table["category"] = pd.Series([pd.NA] * n_items, dtype=object)
    for extra in coded.metadata:  # after split_metadata: codes per item / per run
        if extra.role == "item":
            item_table[extra.name] = extra.series(extra.codes)
        elif extra.role == "run":
            model_table[extra.name] = extra.series(extra.codes)
        extra.codes = _EMPTY
    return panel_from_parts(Panel, matrix, model_table, item_table, models=models, items=items, source=source)


def _row_ids(coded: CodedLong, keys: Keys, rows: np.ndarray | None) -> dict[str, np.ndarray]:
    """The ``model, condition, benchmark, item`` texts of ``rows`` (None: all) as object arrays."""
    runs = keys.runs if rows is None else keys.runs[rows]
    items = keys.items if rows is None else keys.items[rows]
    run_pairs, item_pairs = keys.run_pairs[runs], keys.item_pairs[items]
    n_cond, n_item = len(coded.condition.values), len(coded.item.values)
    return {
        "model": np.asarray(coded.model.values, dtype=object)[run_pairs // n_cond],
        "condition": np.asarray(coded.condition.values, dtype=object)[run_pairs % n_cond],
        "benchmark": np.asarray(coded.benchmark.values, dtype=object)[item_pairs // n_item],
        "item": np.asarray(coded.item.values, dtype=object)[item_pairs % n_item],
    }


_EMPTY = np.empty(0, dtype=np.int32)


@dataclass(frozen=True)
class _Names:
    """Decodes a cell (``run * n_items + item``) into its model, condition, benchmark and item texts."""

    models: list[str]
    conditions: list[str]
    benchmarks: list[str]
    items: list[str]
    run_pairs: np.ndarray
    item_pairs: np.ndarray

    def of(self, cell: int) -> tuple[str, str, str, str]:
        run = int(self.run_pairs[cell // len(self.item_pairs)])
        it = int(self.item_pairs[cell % len(self.item_pairs)])
        n_c, n_i = len(self.conditions), len(self.items)
        return (
            self.models[run // n_c],
            self.conditions[run % n_c],
            self.benchmarks[it // n_i],
            self.items[it % n_i],
        )


def _collapse(
    coded: CodedLong,
    score: np.ndarray,
    cells: Callable[[int, int], np.ndarray],
    n_cells: int,
    names: _Names,
) -> np.ndarray:
    """Rows to keep (the first of each cell) when some cell repeats; a repeated cell whose score differs
    from its first row's (NaN equals NaN) is an error naming both rows, the first such row in file order
    (:func:`benchsift.io._common.collapse_duplicates`)."""
    n = len(score)
    first = np.full(n_cells, n, dtype=np.int64)
    for s in range(0, n, CHUNK):
        e = min(n, s + CHUNK)
        np.minimum.at(first, cells(s, e), np.arange(s, e, dtype=np.int64))
    filled = np.where(np.isnan(score), -1.0, score)  # scores are >= 0 here; -1 stands for "missing"
    keep = np.empty(n, dtype=bool)
    for s in range(0, n, CHUNK):
        e = min(n, s + CHUNK)
        other = first[cells(s, e)]
        keep[s:e] = other == np.arange(s, e)
        differs = filled[s:e] != filled[other]
        if differs.any():
            i = s + int(np.flatnonzero(differs)[0])
            j = int(other[i - s])
            m, _, b, q = names.of(int(cells(i, i + 1)[0]))
            raise InputError(
                f"{coded.place(i)}: conflicting duplicate scores for model {m!r}, benchmark {b!r}, "
                f"item {q!r}: {float(score[i])!r} here and {float(score[j])!r} at {coded.place(j)}"
            )
    return keep
