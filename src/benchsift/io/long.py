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

Memory: a CSV / TSV / parquet file is read by pyarrow as integer codes and assembled with numpy
(:mod:`benchsift.io._coded`; the metadata rules above run on the codes, :mod:`benchsift.io._coded_meta`): no
Python object per row, about 20 bytes per row while reading plus 4 per metadata column, then the panel's
matrix; a 10-million-row CSV (80 MB panel) peaks at about 0.4 GB, below pandas' plain ``read_csv`` of the
same file (``benchmarks/bench_import_memory.py``). A file the lean reader cannot take (a parse error, an
empty id, a score that is not a number, a parquet metadata column of lists or structs, ...) takes the
general reader (pandas, every id cell as text), which names an offending cell; both give the same panel.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from benchsift.errors import InputError
from benchsift.io._coded import CodedLong, assemble_coded, long_keys, read_coded, split_metadata
from benchsift.io._common import (
    ANSWER_COL,
    FILE_COL,
    ROW_COL,
    TABLE_PATTERNS,
    PathLike,
    Paths,
    as_paths,
    assemble_panel,
    dropped_columns_note,
    id_strings,
    numeric_scores,
    read_table,
    require_columns,
    source_label,
)
from benchsift.io._rows import RowNames
from benchsift.io._walk import walk_inputs
from benchsift.io.rescale import RescaleMode, ScaleMap
from benchsift.panel import Panel
from benchsift.panel.dates import parse_release_dates
from benchsift.panel.long import MODEL_META

REQUIRED = ("model", "benchmark", "item", "score")
MODEL_FIELDS = MODEL_META  # family, release_date, params


def _fast_one(path: Path, condition: str | None) -> pd.DataFrame | None:
    """The lean reader's table of one file as the general reader's long DataFrame (None: not plain)."""
    coded = read_coded(path, condition)
    return None if coded is None else coded.to_frame()


def _read_one(
    path: Path, condition: str | None, lean: bool = True, keep_answers: bool = True
) -> CodedLong | pd.DataFrame:
    """One file: as codes (:mod:`benchsift.io._coded`) when it is a plain table and ``lean``, else as the
    long DataFrame of the general reader (pandas), which names any offending cell. ``keep_answers=False``:
    the answers are only counted (the lean reader then keeps no answer text)."""
    if lean:
        coded = read_coded(path, condition, keep_answers)
        if coded is not None:
            return coded
    df = read_table(path, numeric=lambda header: ["score"])
    require_columns(df, REQUIRED, path, "the long format")
    rows = RowNames(path, len(df))
    out = pd.DataFrame(
        {
            "model": id_strings(df["model"], path, "model", rows),
            "benchmark": id_strings(df["benchmark"], path, "benchmark", rows),
            "item": id_strings(df["item"], path, "item", rows),
            "score": numeric_scores(df["score"], path, "score", rows),
        }
    )
    if "condition" in df.columns:
        cond = df["condition"].reset_index(drop=True)
        out["condition"] = cond.where(cond.notna(), condition or "image").astype(str).str.strip()
    else:
        out["condition"] = condition or "image"
    out["category"] = df["category"].reset_index(drop=True) if "category" in df.columns else pd.NA
    if "prediction" in df.columns:
        out[ANSWER_COL] = df["prediction"].reset_index(drop=True).astype(object)
    extras = [c for c in df.columns if c not in (*REQUIRED, "condition", "category", "prediction")]
    for c in extras:
        out[c] = df[c].reset_index(drop=True)
    out[FILE_COL] = str(path)
    out[ROW_COL] = np.arange(len(df))
    return out


def _constant_within(df: pd.DataFrame, column: str, key: list[str]) -> bool:
    return bool((df.groupby(key, sort=False)[column].nunique(dropna=False) <= 1).all())


def split_extra_columns(
    long: pd.DataFrame, extras: list[str], notes: list[str] | None
) -> tuple[pd.DataFrame, pd.DataFrame | None]:
    """Sort extra columns into item metadata (kept in ``long``) and model metadata (returned table)."""
    model_cols: list[str] = []
    dropped: list[str] = []
    for c in extras:
        if c in MODEL_FIELDS and _constant_within(long, c, ["model", "condition"]):
            model_cols.append(c)
            continue
        if _constant_within(long, c, ["benchmark", "item"]):
            continue
        if _constant_within(long, c, ["model", "condition"]):
            model_cols.append(c)
        else:
            dropped.append(c)
    models = None
    if model_cols:
        models = long.drop_duplicates(["model", "condition"])[["model", *model_cols]].reset_index(drop=True)
        models = models.drop_duplicates("model")
    if dropped and notes is not None:
        notes.append(dropped_columns_note(dropped))
    return long.drop(columns=model_cols + dropped), models


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
    return _read_long(
        paths,
        models=models,
        items=items,
        condition=condition,
        rescale=rescale,
        scales=scales,
        notes=notes,
        answers=answers,
        lean=True,
    )


def _models_table(
    model_meta: pd.DataFrame | None, models: PathLike | None, notes: list[str] | None
) -> pd.DataFrame | None:
    """The long table's model metadata (:func:`split_extra_columns`) outer-joined with the models side
    file, if any."""
    models_table = read_models_table(models, notes) if models is not None else None
    if model_meta is None:
        return models_table
    return model_meta if models_table is None else model_meta.merge(models_table, on="model", how="outer")


def _read_long(
    paths: Paths,
    *,
    models: PathLike | None,
    items: PathLike | None,
    condition: str | None,
    rescale: RescaleMode,
    scales: ScaleMap | None,
    notes: list[str] | None,
    answers: list[pd.DataFrame] | None,
    lean: bool,
) -> Panel:
    """:func:`read_long`; ``lean=False`` reads every file with the general (pandas) reader and assembles
    the panel from the long DataFrame (the reference the lean path is tested against)."""
    parts, files = walk_inputs(
        as_paths(paths),
        TABLE_PATTERNS,
        lambda p, _notes: _read_one(p, condition, lean, keep_answers=answers is not None),
        notes=notes,
        what="long table",
    )
    coded = None
    if all(isinstance(part, CodedLong) for part in parts):
        coded = CodedLong.concat([part for part in parts if isinstance(part, CodedLong)])
    if coded is not None:
        del parts
        keys = long_keys(coded)
        model_meta = split_metadata(coded, keys, notes)
        return assemble_coded(
            coded,
            source=source_label(files),
            keys=keys,
            models=_models_table(model_meta, models, notes),
            items=read_items_table(items) if items is not None else None,
            rescale=rescale,
            scales=scales,
            notes=notes,
            answers=answers,
        )
    frames = [part.to_frame() if isinstance(part, CodedLong) else part for part in parts]
    del parts
    long = pd.concat(frames, ignore_index=True) if len(frames) > 1 else frames[0]
    fixed = (*REQUIRED, "condition", "category", FILE_COL, ROW_COL, ANSWER_COL)
    extras = [c for c in long.columns if c not in fixed]
    long, model_meta = split_extra_columns(long, extras, notes)
    items_table = read_items_table(items) if items is not None else None
    return assemble_panel(
        long,
        source=source_label(files),
        models=_models_table(model_meta, models, notes),
        items=items_table,
        rescale=rescale,
        scales=scales,
        notes=notes,
        answers=answers,
    )
