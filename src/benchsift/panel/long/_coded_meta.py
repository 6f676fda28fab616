"""The metadata columns of a coded long table (:mod:`benchsift.panel.long._coded`): codes, rules, answers.

A long table's columns other than ``model, benchmark, item, score, condition, category`` (``question``,
``family``, ``release_date``, a per-score ``prediction``, ...) are read like the id columns: one int32 code
per row (-1 = missing) and the list of distinct values, each value a Python object once (:class:`Extra`).
The rules run on the codes:

* :func:`split_coded_extras`, the ``long`` importer's rule: a column is "constant within" a key when every
  row holds the code of its group's first row (missing counts as one value); ``family``, ``release_date``,
  ``params`` constant per model run, or other columns constant per run but not per item, go to the models
  table (the values of each model's first row); columns constant per item stay item metadata (each item's
  first row) except ``family``/``release_date``/``params``, which the panel puts in its model table (each
  run's first row); the rest is dropped with a note.
* :func:`panel_roles`, the rule of :meth:`benchsift.panel.Panel.from_long` and the sample importers.
* ``prediction`` becomes the answers table (:func:`answers_table`) or the "not kept" note.

Values come out as pandas Series: text columns of a CSV with the dtype of ``read_csv(dtype=str)``; parquet
columns through ``pandas.read_parquet`` of a one-column parquet buffer holding just the values needed, with
the file's field type and pandas metadata (and a missing value when the column has one, which decides e.g.
``int64`` against ``float64``), so the dtype is the one ``read_parquet`` gives the whole column; a column of
an in-memory DataFrame (:meth:`~benchsift.panel.Panel.from_long`) is coded by :func:`pandas.factorize` and
keeps its dtype (``Extra.uniques``).
"""

from __future__ import annotations

import io
import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

#: The column read as the models' logged answers (``_answer`` of the general reader).
PREDICTION = "prediction"
#: A model run's and an item's key columns (the answers table's id columns).
KEY = ["model", "condition", "benchmark", "item"]
#: Columns that are model metadata whatever their values, and columns that are item metadata.
MODEL_META = ("family", "release_date", "params")
ITEM_META = ("category", "question", "answer", "answers", "image")
#: Rows per block of the per-row passes.
CHUNK = 1 << 20


def answer_labels(values: Any) -> pd.Series:
    """Logged answers as stripped text labels (``str`` of each value); missing (None, NaN, ``pd.NA``) or
    empty answers are None."""
    out: list[str | None] = []
    for v in values:
        text = None if pd.api.types.is_scalar(v) and pd.isna(v) else str(v).strip()
        out.append(text or None)
    return pd.Series(out, dtype=object)


def dropped_columns_note(columns: Sequence[str]) -> str:
    """The note of a long table's per-score columns that no panel table can hold."""
    return f"dropped per-score column(s) {list(columns)} (a panel keeps item and model metadata only)"


def text_dtype() -> Any:
    """The dtype :func:`benchsift.io._common.read_table` gives a text column (``str`` on pandas 3)."""
    return pd.read_csv(io.StringIO("a\nx\n"), dtype=str)["a"].dtype


@dataclass
class Extra:
    """One metadata column: ``codes`` (int32 per row, an index into ``values``; -1 = missing), ``values``
    (the distinct values as Python objects), ``has_null`` (some cell is missing).

    ``arrow_field`` / ``pandas_meta``: the parquet field and the file's pandas metadata (None for a CSV / TSV
    column, which is text). ``uniques``: the distinct values as :func:`pandas.factorize` gives them (a
    DataFrame's column, whose dtype they keep; ``values`` is then empty). ``role`` is set by
    :func:`split_coded_extras` or :func:`panel_roles`: ``"item"`` (item metadata), ``"run"`` (the panel's
    model table, each run's first row), ``"model"`` (the models table), ``"drop"``.
    """

    name: str
    codes: np.ndarray
    values: list[Any]
    has_null: bool
    arrow_field: pa.Field | None = None
    pandas_meta: dict[str, Any] | None = None
    role: str = ""
    uniques: Any = None
    _dtype: Any = field(default=None, init=False, repr=False)
    _table: np.ndarray | None = field(default=None, init=False, repr=False)

    def series(self, positions: np.ndarray) -> pd.Series:
        """The values at ``positions`` (codes; -1 = missing) as the general reader's column holds them."""
        positions = np.asarray(positions)
        if self.uniques is not None:
            return pd.Series(pd.api.extensions.take(self.uniques, positions, allow_fill=True))
        if self.arrow_field is None:
            if self._table is None or len(self._table) != len(self.values) + 1:
                self._table = np.empty(len(self.values) + 1, dtype=object)
                self._table[:-1] = self.values
                self._table[-1] = np.nan
            return pd.Series(pd.array(self._table[positions], dtype=text_dtype()))
        if pa.types.is_dictionary(self.arrow_field.type):
            # a categorical: its categories are all the column's values (the file's dictionary, in order)
            base = _parquet_series([*self.values, None], self.arrow_field, self.pandas_meta)
            return base.take(np.where(positions < 0, len(self.values), positions)).reset_index(drop=True)
        uniq, inverse = np.unique(positions, return_inverse=True)
        picked = [None if u < 0 else self.values[u] for u in uniq.tolist()]
        padded = self.has_null and not (len(uniq) and uniq[0] < 0)
        base = _parquet_series(picked + [None] * padded, self.arrow_field, self.pandas_meta)
        return base.take(inverse.reshape(-1)).reset_index(drop=True)

    @property
    def dtype(self) -> Any:
        """The dtype of the whole column as the general reader reads it."""
        if self._dtype is None:
            self._dtype = self.series(np.full(int(self.has_null), -1, dtype=np.int32)).dtype
        return self._dtype


def _parquet_series(values: list[Any], fld: pa.Field, pandas_meta: dict[str, Any] | None) -> pd.Series:
    """``values`` (Python objects of ``fld``'s type) as :func:`pandas.read_parquet` reads that column."""
    table = pa.table([pa.array(values, type=fld.type)], names=[fld.name])
    if pandas_meta is not None:
        meta = dict(pandas_meta)
        meta["index_columns"] = []
        meta["columns"] = [c for c in pandas_meta.get("columns", []) if c.get("field_name") == fld.name]
        table = table.replace_schema_metadata({b"pandas": json.dumps(meta).encode()})
    sink = io.BytesIO()
    pq.write_table(table, sink)
    sink.seek(0)
    out = pd.read_parquet(sink).iloc[:, 0]
    out.name = None
    return out.reset_index(drop=True)


def remap(index: dict[Any, int], values: Sequence[Any], codes: np.ndarray) -> np.ndarray:
    """``codes`` (into ``values``; -1 = missing) renumbered into ``index``, the union of values seen so far
    (each new value is added to it): one dict look-up per distinct value, none per row."""
    lut = np.fromiter((index.setdefault(v, len(index)) for v in values), np.int32, len(values))
    return np.append(lut, np.int32(-1))[codes]


def merge_extras(parts: Sequence[Sequence[Extra]], sizes: Sequence[int]) -> list[Extra]:
    """The extra columns of several files' rows (``sizes[k]`` rows in file ``k``) one after the other, their
    codes renumbered over the union of values; the columns in order of first appearance (as
    :func:`pandas.concat` orders them), a column a file lacks missing in its rows. A column whose files
    give it different types is kept as text (the ``str`` of each value)."""
    names = list(dict.fromkeys(e.name for part in parts for e in part))
    out = []
    for name in names:
        cols = [next((e for e in part if e.name == name), None) for part in parts]
        present = [c for c in cols if c is not None]
        first = present[0]
        same = all(c.dtype == first.dtype for c in present)
        index: dict[Any, int] = {}
        values: list[Any] = []
        codes = []
        for col, n in zip(cols, sizes, strict=True):
            if col is None:
                codes.append(np.full(n, -1, dtype=np.int32))
                continue
            lut = np.empty(len(col.values) + 1, dtype=np.int32)
            lut[-1] = -1
            for k, v in enumerate(col.values):
                key = _key(v) if same else str(v)
                code = index.get(key)
                if code is None:
                    code = index[key] = len(values)
                    values.append(v if same else str(v))
                lut[k] = code
            codes.append(lut[col.codes])
        has_null = len(present) < len(cols) or any(c.has_null for c in present)
        fld, meta = (first.arrow_field, first.pandas_meta) if same else (None, None)
        out.append(Extra(name, np.concatenate(codes), values, has_null, fld, meta))
    return out


def _key(value: Any) -> Any:
    """A dict key for a value (a list or dict by its ``repr``)."""
    try:
        hash(value)
    except TypeError:
        return repr(value)
    return value


def constant_within(codes: np.ndarray, groups: np.ndarray, first: np.ndarray) -> bool:
    """Whether every row's code equals the code of its group's first row (``first[group]``)."""
    for s in range(0, len(groups), CHUNK):
        e = min(len(groups), s + CHUNK)
        if np.any(codes[s:e] != codes[first[groups[s:e]]]):
            return False
    return True


def split_coded_extras(
    extras: Sequence[Extra],
    *,
    runs: np.ndarray,
    run_first: np.ndarray,
    items: np.ndarray,
    item_first: np.ndarray,
    model_first: np.ndarray,
    model_names: np.ndarray,
    notes: list[str] | None,
) -> pd.DataFrame | None:
    """Set each column's ``role`` (module docstring) and return the models table of the ``"model"`` ones:
    ``model`` (each model's first row, models in order of first appearance) and those columns, as
    the ``long`` importer joins onto its models side table; None when there is none.

    ``runs`` / ``items``: each row's model run and item; ``run_first`` / ``item_first``: each one's first
    row; ``model_first``: the first row of each model; ``model_names``: their ids. The per-row codes of the
    columns that are not needed any more (all but ``"item"`` / ``"run"`` ones' first rows) are released.
    """
    dropped: list[str] = []
    for e in extras:
        per_run = None
        if e.name in MODEL_META:
            per_run = constant_within(e.codes, runs, run_first)
            if per_run:
                e.role = "model"
                continue
        if constant_within(e.codes, items, item_first):
            e.role = "run" if e.name in MODEL_META else "item"
            continue
        if per_run is None:
            per_run = constant_within(e.codes, runs, run_first)
        e.role = "model" if per_run else "drop"
        if not per_run:
            dropped.append(e.name)
    if dropped and notes is not None:
        notes.append(dropped_columns_note(dropped))
    model_cols = [e for e in extras if e.role == "model"]
    table = None
    if model_cols:
        # long.drop_duplicates(["model", "condition"]).reset_index(drop=True).drop_duplicates("model"): the
        # first run of each model (the run of its first row), indexed by its run number
        table = pd.DataFrame({"model": pd.Series(model_names, dtype=object)})
        for e in model_cols:
            table[e.name] = e.series(e.codes[model_first])
        table.index = pd.Index(runs[model_first].astype(np.int64))
    return table


def panel_roles(
    extras: Sequence[Extra],
    *,
    runs: np.ndarray,
    run_first: np.ndarray,
    items: np.ndarray,
    item_first: np.ndarray,
) -> None:
    """Set each column's ``role`` by the rule of :meth:`benchsift.panel.Panel.from_long` (which the sample
    importers' long tables follow too): ``family``/``release_date``/``params`` are model metadata (each
    run's first row, ``"run"``), ``category``/``question``/``answer``/``answers``/``image`` item metadata
    (``"item"``); another column is item metadata when constant within every item, else model metadata when
    constant within every run, else left out (``"drop"``, without a note, as there)."""
    for e in extras:
        if e.name in MODEL_META:
            e.role = "run"
        elif e.name in ITEM_META or constant_within(e.codes, items, item_first):
            e.role = "item"
        else:
            e.role = "run" if constant_within(e.codes, runs, run_first) else "drop"


def answers_table(
    prediction: Extra,
    rows: np.ndarray | None,
    ids: dict[str, np.ndarray],
    dtypes: dict[str, Any] | None = None,
) -> pd.DataFrame:
    """The long answers table: ``model, condition, benchmark, item`` of the kept rows (``ids``: object arrays
    of those rows) and the stripped answer label of each (:func:`answer_labels`). ``rows``: the kept rows
    (None: all). ``dtypes``: the dtypes of the id columns in the importer's long table (default: the
    ``long`` reader's, ``model``/``benchmark``/``item`` object and ``condition`` text)."""
    codes = prediction.codes if rows is None else prediction.codes[rows]
    labels = _labels(prediction)
    if dtypes is None:
        dtypes = {"model": object, "condition": text_dtype(), "benchmark": object, "item": object}
    frame = pd.DataFrame({c: pd.Series(ids[c], dtype=dtypes[c]) for c in KEY})
    with_missing = np.empty(len(labels) + 1, dtype=object)
    with_missing[:-1] = labels
    return frame[KEY].assign(answer=with_missing[codes])


def _labels(prediction: Extra) -> np.ndarray:
    """The answer label (stripped text, None when empty) of each distinct value, as an object array."""
    out = np.empty(len(prediction.values), dtype=object)
    for s in range(0, len(out), CHUNK):
        chunk = prediction.series(np.arange(s, min(len(out), s + CHUNK), dtype=np.int64))
        out[s : s + len(chunk)] = answer_labels(chunk.astype(object)).to_numpy()
    return out


def count_answers(prediction: Extra, rows: np.ndarray | None) -> int:
    """How many of the kept rows (``rows``; None: all) hold a non-empty answer label."""
    present = np.append(np.array([v is not None for v in _labels(prediction)], dtype=bool), False)
    codes = prediction.codes if rows is None else prediction.codes[rows]
    return int(np.count_nonzero(present[codes]))
