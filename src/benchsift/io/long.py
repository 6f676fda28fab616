"""Importer ``long``: one row per score, the panel's own exchange format.

Input: CSV, TSV, parquet or Excel with the columns ``model, benchmark, item, score`` and optionally
``category`` and ``condition`` (``image`` default, or ``text-only``). Any other column is kept as metadata:

* ``family``, ``release_date``, ``params`` (constant per model run) -> model metadata;
* constant within each ``(benchmark, item)`` -> an item metadata column (``question``, ``answer``, ...);
* otherwise constant within each ``(model, condition)`` -> a model metadata column;
* otherwise (it varies per score) it cannot live in a panel and is dropped, with a note saying so; the one
  exception is ``prediction``, read as the models' logged answers (DISCO's input): ``read_long(...,
  answers=[])`` / ``benchsift import long --answers-out FILE`` hand them out as a long answers table.

Side files: ``models`` (``model`` and any of ``family``, ``release_date``, ``params`` in billions, ...) and
``items`` (``benchmark, item`` and any of ``category``, ``question``, ``answer``, ``image``, ...). Example::

    model,benchmark,item,score,category
    llava-1.5-7b,MMStar,17,1,coarse perception
    llava-1.5-7b,MMStar,18,0,coarse perception

One reader for every source (:mod:`benchsift.io._long_sources`): a CSV / TSV / parquet file is read by pyarrow
as record batches (an Excel sheet, or a file pyarrow cannot parse, by pandas, then converted to pyarrow), each
column coded as int32 codes into its distinct values (:mod:`benchsift.panel.long._columns`), and the one
builder of every long table (:mod:`benchsift.panel.long._coded`, also behind
:meth:`benchsift.panel.Panel.from_long`; the metadata rules above run on the codes,
:mod:`benchsift.panel.long._coded_meta`) checks the ids, scores and conditions, naming the file and row of an
offending cell, and fills the panel with numpy: no Python object per row, about 20 bytes per row while reading
plus 4 per metadata column, then the panel's matrix; a 10-million-row CSV (80 MB panel) peaks at about 0.4 GB,
below pandas' plain ``read_csv`` of the same file (``benchmarks/bench_import_memory.py``).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from benchsift.errors import InputError
from benchsift.io._coded import rescaler
from benchsift.io._common import (
    TABLE_PATTERNS,
    PathLike,
    Paths,
    as_paths,
    id_strings,
    numeric_scores,
    read_table,
    require_columns,
    source_label,
)
from benchsift.io._long_sources import read_long_file
from benchsift.io._rows import RowNames
from benchsift.io._walk import walk_inputs
from benchsift.io.notes import raises_uncollected
from benchsift.io.rescale import RescaleMode, ScaleMap
from benchsift.panel import Panel
from benchsift.panel.dates import parse_release_dates
from benchsift.panel.long import CodedLong, assemble_coded, long_keys, split_metadata


def _read_side(path: PathLike, key: list[str], what: str, notes: list[str] | None = None) -> pd.DataFrame:
    p = Path(path)
    df = read_table(p)
    require_columns(df, key, p, f"the {what} side file")
    rows = RowNames(p, len(df))
    for c in key:
        df[c] = id_strings(df[c], p, c, rows).to_numpy()
    dup = df.duplicated(key)
    if dup.any():
        i = int(np.flatnonzero(dup.to_numpy())[0])
        raise InputError(f"{p}, {rows[i]}: repeats {what} {df.loc[i, key].tolist()}")
    if "params" in df.columns:
        df["params"] = numeric_scores(df["params"], p, "params", rows)
    if "release_date" in df.columns:
        df["release_date"], said = parse_release_dates(df["release_date"], str(p), rows)
        if notes is not None:
            notes.extend(f"warning: {n}" for n in said)
    return df


def read_models_table(path: PathLike, notes: list[str] | None = None) -> pd.DataFrame:
    """Read a models side file (``model`` + ``family``, ``release_date``, ``params``, ...); the dates'
    warnings (:func:`benchsift.panel.dates.parse_release_dates`) go to ``notes``."""
    return _read_side(path, ["model"], "models", notes)


def read_items_table(path: PathLike) -> pd.DataFrame:
    """Read an items side file (``benchmark, item`` + ``category``, ``question``, ...)."""
    return _read_side(path, ["benchmark", "item"], "items")


@raises_uncollected
def read_long(
    paths: Paths,
    *,
    models: PathLike | None = None,
    items: PathLike | None = None,
    condition: str | None = None,
    rescale: RescaleMode = "auto",
    scales: ScaleMap | None = None,
    notes: list[str] | None = None,
    answers: list[pd.DataFrame] | None = None,
) -> Panel:
    """Read one or more long tables (see the module docstring) into a panel.

    ``condition`` fills rows without a ``condition``. Several files are concatenated; an identical
    duplicate ``(model, condition, benchmark, item)`` row is collapsed, a conflicting one is an error naming
    both places. ``answers``: a list that receives the long table of the ``prediction`` column, if any.
    """
    parts, files = walk_inputs(
        as_paths(paths),
        TABLE_PATTERNS,
        lambda p, _notes, _root: read_long_file(p, condition, keep_answers=answers is not None),
        notes=notes,
        what="long table",
    )
    coded = CodedLong.concat(parts)
    del parts
    keys = long_keys(coded)
    model_meta = split_metadata(coded, keys, notes)
    models_table = read_models_table(models, notes) if models is not None else None
    if model_meta is not None and models_table is not None:
        models_table = model_meta.merge(models_table, on="model", how="outer")
    elif model_meta is not None:
        models_table = model_meta
    return assemble_coded(
        coded,
        source=source_label(files),
        keys=keys,
        models=models_table,
        items=read_items_table(items) if items is not None else None,
        rescale=rescaler(rescale, scales, notes),
        notes=notes,
        answers=answers,
    )
