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
and an error when it disagrees.
"""

from __future__ import annotations

import csv
from collections.abc import Sequence
from pathlib import Path
from typing import Literal

import numpy as np
import pandas as pd

from benchsift.errors import InputError
from benchsift.io._common import (
    PathLike,
    Paths,
    as_paths,
    id_strings,
    numeric_scores,
    read_table,
    require_columns,
)
from benchsift.io._rows import RowNames
from benchsift.io.long import read_items_table, read_models_table
from benchsift.io.rescale import RescaleMode, rescale_matrix
from benchsift.panel import CONDITIONS, Panel
from benchsift.panel._long import merge_side

Orient = Literal["items-rows", "models-rows"]
ORIENTS: tuple[str, ...] = ("items-rows", "models-rows")


def _collapse_repeats(
    ids: pd.Series, scores: np.ndarray, path: Path, rows: Sequence[str], what: str, notes: list[str] | None
) -> tuple[pd.Series, np.ndarray, np.ndarray]:
    """Drop identical repeated rows; a repeated id with different scores is an error naming both rows."""
    dup = ids.duplicated(keep=False).to_numpy()
    keep = ~ids.duplicated(keep="first").to_numpy()
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
            notes.append(f"{path}: collapsed {int((~keep).sum())} identical repeated {what} row(s)")
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
) -> tuple[list[str], np.ndarray]:
    """The score columns (all but ``skip``) as a float matrix; repeated headers collapse when identical."""
    positions = [j for j, c in enumerate(header) if c not in skip]
    if not positions:
        raise InputError(f"{path}: no {what} columns besides {[c for c in skip if c]}")
    block = np.empty((len(df), len(positions)), dtype=np.float64)
    for k, j in enumerate(positions):
        block[:, k] = numeric_scores(df.iloc[:, j], path, f"score in column {header[j]!r}", rows)
    names = pd.Series([header[j] for j in positions])
    labels = [f"column {j + 1}" for j in positions]
    names, columns, _ = _collapse_repeats(names, block.T, path, labels, what, None)
    return [str(n) for n in names], columns.T


def _read_one(
    path: Path,
    *,
    benchmark: str | None,
    orient: Orient,
    id_column: str | None,
    category_column: str | None,
    rescale: RescaleMode,
    scales: dict[str, float] | None,
    notes: list[str] | None,
) -> tuple[np.ndarray, list[str], pd.DataFrame]:
    def numeric(header: list[str]) -> list[str]:
        first = id_column if id_column is not None else header[0]
        return [c for c in header if c not in (first, category_column)]

    df = read_table(path, numeric=numeric)
    header = _header(path, df)
    rows = RowNames(path, len(df))
    id_col = id_column if id_column is not None else header[0]
    require_columns(df, [id_col], path, "the id column")
    bench = benchmark if benchmark is not None else path.stem
    if orient == "items-rows":
        if category_column is not None:
            require_columns(df, [category_column], path, "the category column")
        model_ids, block = _block(df, header, (id_col, category_column), path, rows, "model")
        ids = id_strings(df[id_col], path, f"item id ({id_col!r})", rows)
        ids, scores, keep = _collapse_repeats(ids, block, path, rows, "item", notes)
        items = pd.DataFrame({"benchmark": bench, "item": ids.to_numpy()})
        if category_column is not None:
            items["category"] = df[category_column].to_numpy()[keep]
        scores = scores.T
    else:
        if category_column is not None:
            raise InputError(f"{path}: category_column only applies to orient 'items-rows'")
        item_ids, block = _block(df, header, (id_col,), path, rows, "item")
        ids = id_strings(df[id_col], path, f"model id ({id_col!r})", rows)
        ids, scores, _ = _collapse_repeats(ids, block, path, rows, "model", notes)
        items = pd.DataFrame({"benchmark": bench, "item": item_ids})
        model_ids = [str(m) for m in ids]
    scores = rescale_matrix(scores, bench, where=str(path), mode=rescale, scales=scales, notes=notes)
    return scores, model_ids, items


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
    scales: dict[str, float] | None = None,
    notes: list[str] | None = None,
) -> Panel:
    """Read one or more wide score tables (see the module docstring) into a panel.

    ``benchmark`` names the benchmark (default: the file name without extension). With several files,
    each is one benchmark; their models are matched by id and a model missing from a file has NaN there.
    ``condition`` applies to every model (default ``image``).
    """
    if orient not in ORIENTS:
        raise InputError(f"orient {orient!r} is not one of {list(ORIENTS)}")
    if condition is not None and condition not in CONDITIONS:
        raise InputError(f"condition {condition!r} is not one of {list(CONDITIONS)}")
    if orient == "items-rows" and model_column is not None:
        raise InputError("model_column applies to orient 'models-rows'; use item_column for 'items-rows'")
    if orient == "models-rows" and item_column is not None:
        raise InputError("item_column applies to orient 'items-rows'; use model_column for 'models-rows'")
    files = as_paths(paths)
    if benchmark is not None and len(files) > 1:
        raise InputError(
            "benchmark names one file's benchmark; give one file per call or let file names name them"
        )
    id_column = item_column if orient == "items-rows" else model_column
    parts = [
        _read_one(
            p,
            benchmark=benchmark,
            orient=orient,
            id_column=id_column,
            category_column=category_column,
            rescale=rescale,
            scales=scales,
            notes=notes,
        )
        for p in files
    ]
    all_models = list(dict.fromkeys(m for _, ids, _ in parts for m in ids))
    position = {m: i for i, m in enumerate(all_models)}
    n_items = sum(part_items.shape[0] for _, _, part_items in parts)
    scores = np.full((len(all_models), n_items), np.nan)
    col = 0
    for part_scores, ids, part_items in parts:
        rows_idx = np.fromiter((position[m] for m in ids), dtype=np.intp, count=len(ids))
        scores[rows_idx, col : col + part_items.shape[0]] = part_scores
        col += part_items.shape[0]
    item_table = pd.concat([it for _, _, it in parts], ignore_index=True)
    dup = item_table.duplicated(["benchmark", "item"])
    if dup.any():
        i = int(np.flatnonzero(dup.to_numpy())[0])
        raise InputError(
            f"{files[-1]}: benchmark {item_table['benchmark'].iloc[i]!r} item {item_table['item'].iloc[i]!r} "
            "appears in more than one file"
        )
    model_table = pd.DataFrame({"model": all_models, "condition": condition or "image"})
    model_table = merge_side(
        model_table, read_models_table(models) if models is not None else None, ["model"]
    )
    item_table = merge_side(
        item_table, read_items_table(items) if items is not None else None, ["benchmark", "item"]
    )
    return Panel(scores, model_table, item_table)
