"""The one builder of a panel from a long table: the table held as integer codes, assembled with numpy.

Every long table, whatever its source, arrives here as a :class:`CodedLong`: one int32 code per row for the
model, benchmark, item, condition and category (into their distinct values, each a Python string once), the
scores as float64, and the metadata columns coded the same way
(:class:`~benchsift.panel.long._coded_meta.Extra`). The column coder (:mod:`benchsift.panel.long._columns`)
codes pyarrow record batches: those of a CSV, TSV, parquet or Excel file (the ``long`` importer,
:mod:`benchsift.io._long_sources`), of each sample file's long frame (:mod:`benchsift.io._coded_frames`) and
of an in-memory DataFrame (:meth:`benchsift.panel.Panel.from_long`). No Python object is made per row. Then,
on those arrays:

1. :func:`long_keys` numbers the model runs ``(model, condition)`` and the items ``(benchmark, item)`` in
   order of first appearance, and finds the first row whose ``condition`` is not ``image`` / ``text-only``;
2. :func:`split_metadata` sorts the metadata columns into item and model metadata
   (:mod:`benchsift.panel.long._coded_meta`);
3. :func:`assemble_coded` refuses a bad condition and a table far sparser than its matrix
   (:func:`check_density`: over :data:`MAX_DENSE_CELLS` cells and under one row per
   :data:`MAX_CELLS_PER_ROW` of them, before the matrix or any array of its cells is allocated),
   rescales out-of-range benchmarks (the caller's ``rescale`` step: the importers pass
   :func:`benchsift.io.rescale.rescale_codes`), collapses an identical repeated cell (the first row kept;
   a conflicting one is an error naming both rows), scatters the scores into the dense float64 matrix,
   takes the item metadata (``category`` and the item columns) from each item's first row, hands the
   ``prediction`` column out as the answers table and joins the side tables (:func:`panel_from_parts`).

Memory: about 20 bytes per row (three int32 codes, the float64 score) plus 4 per metadata column while the
table is read, then the panel's matrix and a byte array of its cells (at most
``max(MAX_DENSE_CELLS, MAX_CELLS_PER_ROW * rows)`` cells: :func:`check_density`); everything per row is
processed in blocks of :data:`CHUNK` rows. The distinct values of a column are Python objects, once
each: a column with a different text in every row (a free-text ``prediction``) costs a few hundred bytes
per row (about 350 for 40-character answers, docs/SCALING.md), unless the answers are only counted.
"""

from __future__ import annotations

import mmap
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from benchsift._schema import Col, check_frame
from benchsift.errors import FormatError, InputError
from benchsift.panel._panel import CONDITIONS, Panel
from benchsift.panel.long._coded_meta import (
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

if TYPE_CHECKING:
    #: a rescaling step: ``(scores, benchmark codes, benchmark names, where(row))`` -> the scores in [0, 1]
    #: (the same array when nothing is rescaled); it raises an error naming ``where(row)`` of a bad score
    Rescale = Callable[[np.ndarray, np.ndarray, list[str], Callable[[int], str]], np.ndarray]

#: the one value of a ``prediction`` column read for its count only (``_Column(presence=True)``)
ANSWER_PRESENT = "<answer>"

#: The columns a long table must have; any column besides these, ``condition`` and ``category`` is metadata.
REQUIRED = ("model", "benchmark", "item", "score")
IDS = ("model", "benchmark", "item")
ITEM_KEY = ["benchmark", "item"]
#: Rows per block of the per-row passes (keys, scatter): bounds their temporaries to a few MB.
CHUNK = 1 << 20
#: Cells a dense result built from a table of rows (a panel's matrix, a verdict table's arrays) may always
#: hold, however few rows fill it (:func:`check_density`): 2**28 = 268,435,456 float64 cells, 2 GiB. The
#: largest real panels benchsift is meant for are about 2,000 models x 50,000 items = 1e8 cells (800 MB);
#: the cap is 2.7 times that and holds such a panel with every model in both conditions (2e8 cells), so no
#: panel of that size is refused however sparse it is, while a small file never asks for over 2 GiB of cells.
MAX_DENSE_CELLS = 1 << 28
#: Above :data:`MAX_DENSE_CELLS`, the most cells a dense result may hold per row of its table: at least 1 %
#: of the cells filled. Sparse panels leave many cells missing (168 models x 1,050 items with 10 % of the
#: scores: 10 cells a row; a leaderboard of models each run on one benchmark of 50: 50); a file that fills
#: less than 1 % of over 2**28 cells is taken as damaged or hostile (a row of 17 bytes, a new model and a
#: new item, asking for a new row and column). Past the cap the matrix then costs at most 800 bytes per row
#: of the table (a fixed ratio above a floor, as :mod:`benchsift.io._zipmembers` bounds a member by its
#: compressed size above 1 MiB).
MAX_CELLS_PER_ROW = 100


def owned_matrix(shape: tuple[int, int], fill: float | None = None, *, populate: bool = False) -> np.ndarray:
    """A float64 matrix for a reader to fill (uninitialised unless ``fill``), on anonymous 4 KiB pages when
    large: numpy asks the kernel for huge pages for large arrays (``madvise``), and a kernel whose
    transparent huge pages defragment on ``madvise`` (Debian's and Ubuntu's default) then compacts memory
    on each first write, which on a busy machine cost 3-4 s of system time for an 800 MB matrix where
    plain pages cost 0.6 s (``benchmarks/bench_import_memory.py``). ``populate``: map every page at once
    (``MAP_POPULATE``, where the platform has it) instead of one page fault per page at its first write,
    for a reader that writes them all (issue 36: the wide reader's CPU 4.6 -> 3.6 s at load 15)."""
    size = int(np.prod(shape)) * 8
    if size < 1 << 24:
        return np.empty(shape) if fill is None else np.full(shape, fill)
    flags = getattr(mmap, "MAP_POPULATE", 0) if populate else 0
    if flags:
        flags |= mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS
        buf = mmap.mmap(-1, size, flags=flags)
    else:
        buf = mmap.mmap(-1, size)
    out = np.frombuffer(buf, dtype=np.float64).reshape(shape)
    if fill is not None:
        out.fill(fill)
    return out


def check_density(source: str, shape: str, cells: int, rows: int) -> None:
    """Refuse a table whose dense result would be far larger than its rows can fill, before allocating it.

    ``shape``: the result's dimensions in words (``"30,000 models x 30,000 items"``); ``cells``: the float64
    cells it holds; ``rows``: the table's rows (all of them: a duplicate or a missing score counts). The
    rule: refused (:class:`FormatError` naming ``source``, the counts and what was expected) when ``cells``
    is over :data:`MAX_DENSE_CELLS` (2**28) *and* over :data:`MAX_CELLS_PER_ROW` (100) times ``rows``. So a
    result of up to 2**28 cells is always built (every real panel, however sparse: the absolute cap), and a
    larger one when the rows fill at least 1 % of it (a large table that is dense enough); what a table of
    ``rows`` rows can make the reader allocate is at most ``8 * max(2**28, 100 * rows)`` bytes. A long CSV
    of 30,000 rows (518 KB), each a new model and a new item, asked for 900,000,000 cells (7.2 GB)."""
    if cells <= MAX_DENSE_CELLS or cells <= MAX_CELLS_PER_ROW * rows:
        return
    raise FormatError(
        f"{source}: {shape} = {cells:,} cells for {rows:,} rows; refused before allocating them (damaged or "
        f"hostile?): expected at most {MAX_DENSE_CELLS:,} cells, or at least one row per {MAX_CELLS_PER_ROW} "
        "cells"
    )


def data_row(file: str, index: int) -> str:
    """How a message names data row ``index`` of a table that is not a file: ``"row <index>"``."""
    return f"row {index}"


@dataclass
class Coded:
    """One text column: ``codes`` (int32 per row, an index into ``values``; -1 = missing) and ``values``
    (the distinct texts). A constant column is a broadcast view (no memory per row)."""

    codes: np.ndarray
    values: list[str]


def constant_codes(n: int, code: int) -> np.ndarray:
    """``n`` rows of one code, as a broadcast view (no memory per row)."""
    return np.broadcast_to(np.int32(code), (n,))


@dataclass
class CodedLong:
    """A long table as codes (see the module docstring); ``starts[k]`` is the first row of ``files[k]``.

    ``row_numbers`` / ``row_formats``: how messages name a row when it is not the data-row index in its file
    (the sample importers', :mod:`benchsift.io._coded_frames`): each row's number and, per file, None (the
    number is a data-row index), a prefix (``"line "``: the row is ``"line <number>"``) or a sequence of
    labels (the number indexes it). ``label(file, index)``: the name of a data-row index (the importers':
    ``"line 7"`` of a CSV; default ``"row <index>"``). ``id_dtypes``: the dtypes of the answers table's id
    columns (:func:`~benchsift.panel.long._coded_meta.answers_table`; None: the long reader's).
    ``answers_column``: the column read as the models' logged answers (None: none, as for
    :meth:`~benchsift.panel.Panel.from_long`, where ``prediction`` is metadata like any column)."""

    model: Coded
    benchmark: Coded
    item: Coded
    condition: Coded
    category: Coded
    score: np.ndarray
    files: list[str]
    starts: np.ndarray
    extras: list[Extra] = field(default_factory=list)
    row_numbers: np.ndarray | None = None
    row_formats: Sequence[str | Sequence[str] | None] | None = None
    id_dtypes: dict[str, object] | None = None
    label: Callable[[str, int], str] = data_row
    answers_column: str | None = PREDICTION
    _n: int = field(init=False, repr=False)

    def __post_init__(self) -> None:
        self._n = len(self.score)

    def __len__(self) -> int:
        return self._n

    @property
    def prediction(self) -> Extra | None:
        """The ``prediction`` column (the models' logged answers), if any."""
        return next((e for e in self.extras if e.name == self.answers_column), None)

    @property
    def metadata(self) -> list[Extra]:
        """The extra columns but ``prediction``, in the file's order."""
        return [e for e in self.extras if e.name != self.answers_column]

    def where(self, i: int) -> tuple[str, object]:
        """The file and the data-row index of row ``i`` (what ``_file`` and ``_row`` hold)."""
        k = int(np.searchsorted(self.starts, i, side="right")) - 1
        number = i - int(self.starts[k]) if self.row_numbers is None else int(self.row_numbers[i])
        fmt = None if self.row_formats is None else self.row_formats[k]
        if fmt is None:
            return self.files[k], number
        return self.files[k], f"{fmt}{number}" if isinstance(fmt, str) else fmt[number]

    def place(self, i: int) -> str:
        """``"FILE, line N"`` of row ``i``, as the importers' messages name a place."""
        file, row = self.where(i)
        return f"{file}, {self.label(file, row) if isinstance(row, int) else row}"

    @classmethod
    def concat(cls, parts: Sequence[CodedLong]) -> CodedLong:
        """The rows of several files, one after the other, their codes renumbered over the union of values;
        a metadata column that a file lacks is missing in its rows
        (:func:`~benchsift.panel.long._coded_meta.merge_extras`)."""
        if len(parts) == 1:
            return parts[0]
        sizes = np.array([len(p) for p in parts], dtype=np.int64)
        extras = merge_extras([p.extras for p in parts], sizes.tolist())

        def merge(columns: list[Coded]) -> Coded:
            index: dict[str, int] = {}
            codes = [remap(index, col.values, col.codes) for col in columns]  # -1 (missing) stays -1
            return Coded(np.concatenate(codes), list(index))

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
            label=parts[0].label,
        )


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
    latter (:func:`benchsift.panel.long._coded_meta.split_coded_extras`, the rule of the ``long`` importer).
    ``panel_rule``: the rule of :meth:`benchsift.panel.Panel.from_long` alone
    (:func:`~benchsift.panel.long._coded_meta.panel_roles`; no models table). Only the per-row codes of
    ``prediction`` stay: an item (run) column keeps the code of each item's (run's) first row, the others are
    released."""
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
    coded.extras = [e for e in coded.extras if e.role in ("item", "run") or e.name == coded.answers_column]
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
    rescale: Rescale | None = None,
    notes: list[str] | None = None,
    answers: list[pd.DataFrame] | None = None,
) -> Panel:
    """Check a coded long table, rescale, collapse duplicates and build the panel (module docstring); a
    table whose matrix its rows cannot nearly fill is refused first (:func:`check_density`, the rows counted
    with their duplicates).

    ``keys``: the table's :func:`long_keys`, if made already (and its metadata sorted by
    :func:`split_metadata`; else the metadata columns are left out). ``rescale``: the step that brings the
    scores into [0, 1] (None: they are taken as they are; the panel refuses one outside). ``answers``: a
    list that receives the long answers table of the ``prediction`` column, if any. ``coded`` is consumed:
    its per-row arrays are released as soon as they are no longer needed.
    """
    n = len(coded)
    if n == 0:
        raise FormatError(f"{source}: no scores found")
    if keys is None:
        keys = long_keys(coded)
    if keys.bad_condition is not None:
        i, value = keys.bad_condition
        raise InputError(f"{coded.place(i)}: condition {value!r} is not one of {list(CONDITIONS)}")
    n_runs, n_items = len(keys.run_pairs), len(keys.item_pairs)
    n_models = len(np.unique(keys.run_pairs // len(coded.condition.values)))
    runs_named = "models" if n_runs == n_models else "model runs (model, condition)"
    check_density(source, f"{n_runs:,} {runs_named} x {n_items:,} items", n_runs * n_items, n)
    model, cond, bench, item, category = (
        coded.model,
        coded.condition,
        coded.benchmark,
        coded.item,
        coded.category,
    )
    score = coded.score
    if rescale is not None:
        score = rescale(score, bench.codes, list(bench.values), coded.place)
    coded.score = np.empty(0)
    bench.codes = _EMPTY
    runs, items_of_rows, run_pairs, item_pairs = keys.runs, keys.items, keys.run_pairs, keys.item_pairs

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
    return panel_from_parts(matrix, model_table, item_table, models=models, items=items, source=source)


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
    from its first row's (NaN equals NaN) is an error naming both rows, the first such row in file order."""
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


def panel_from_parts(
    scores: np.ndarray,
    model_table: pd.DataFrame,
    item_table: pd.DataFrame,
    *,
    models: pd.DataFrame | None,
    items: pd.DataFrame | None,
    source: str,
) -> Panel:
    """The last step of :func:`assemble_coded` (and of the importers that build the matrix themselves):
    join the side tables onto the model and item tables and build the panel. ``scores`` is a float64 matrix
    the caller made for this panel: it is handed over (made read-only), not copied."""
    if models is not None:
        model_table = merge_side(
            model_table, _check_side(models, ["model"], "models side table", source), ["model"]
        )
    if items is not None:
        item_table = merge_side(
            item_table, _check_side(items, ITEM_KEY, "items side table", source), ITEM_KEY
        )
    return Panel._from_owned(scores, model_table, item_table)


def _check_side(side: pd.DataFrame, key: list[str], what: str, source: str) -> pd.DataFrame:
    # key cells read as names (an empty one as "nan", as before); one row per key
    return check_frame(side, {c: Col("name", empty=True) for c in key}, where=f"{source}: {what}", key=key)


def merge_side(base: pd.DataFrame, side: pd.DataFrame | None, key: list[str]) -> pd.DataFrame:
    """Left-join side metadata onto ``base`` by ``key``; where both have a column, the side value wins."""
    if side is None:
        return base
    side = side.drop(columns=[c for c in ("condition",) if c in side.columns and c not in key])
    overlap = [c for c in side.columns if c in base.columns and c not in key]
    merged = base.merge(side, on=key, how="left", suffixes=("", "__side"))
    for c in overlap:
        merged[c] = merged[f"{c}__side"].combine_first(merged[c])
        merged = merged.drop(columns=f"{c}__side")
    return merged


def panel_to_long(panel: Panel, dropna: bool = True) -> pd.DataFrame:
    """One row per (model run, item): model metadata, item metadata and ``score``
    (:meth:`~benchsift.panel.Panel.to_long`)."""
    n_m, n_i = panel.shape
    mi = np.repeat(np.arange(n_m), n_i)
    ii = np.tile(np.arange(n_i), n_m)
    scores = panel.scores.ravel()
    if dropna:
        keep = ~np.isnan(scores)
        mi, ii, scores = mi[keep], ii[keep], scores[keep]
    models = panel.models.iloc[mi].reset_index(drop=True)
    items = panel.items.iloc[ii].reset_index(drop=True)
    out = pd.concat([models, items], axis=1)
    out["score"] = scores
    lead = ["model", "condition", "benchmark", "item", "category", "score"]
    return out[lead + [c for c in out.columns if c not in lead]]
