"""Conversion between a :class:`~benchsift.panel.Panel` and a long table (one row per score)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from benchsift._schema import Col, check_frame
from benchsift.errors import InputError

if TYPE_CHECKING:
    from benchsift.panel._panel import Panel

LONG_REQUIRED = ("model", "benchmark", "item", "score")
MODEL_KEY = ["model", "condition"]
ITEM_KEY = ["benchmark", "item"]
MODEL_META = ("family", "release_date", "params")
ITEM_META = ("category", "question", "answer", "answers", "image")


def panel_from_long(
    cls: type[Panel],
    df: pd.DataFrame,
    *,
    models: pd.DataFrame | None,
    items: pd.DataFrame | None,
    source: str,
    rows: Sequence[str] | None = None,
) -> Panel:
    """See :meth:`Panel.from_long`."""

    def row(i: int) -> str:  # the name of df's i-th row in a message
        return rows[i] if rows is not None else f"row {i}"

    # the required columns, at least one row; the cells are checked below, where a row has its file's name
    df = check_frame(df, {c: Col(empty=True) for c in LONG_REQUIRED}, where=source, nonempty=True)
    for col in ("model", "benchmark", "item"):
        empty = df[col].isna()
        if empty.any():
            raise InputError(f"{source}, {row(int(empty.to_numpy().argmax()))}: empty {col!r}")
        df[col] = df[col].astype(str)
    if "condition" not in df.columns:
        df["condition"] = "image"
    df["condition"] = df["condition"].fillna("image").astype(str)
    raw = df["score"]
    score = pd.to_numeric(raw, errors="coerce")
    suspect = score.isna() & raw.notna()
    if suspect.any():
        text = raw[suspect].astype(str).str.strip().str.lower()
        bad = ~text.isin(["", "nan", "na", "none"])
        if bad.any():
            i = int(bad.index[bad.to_numpy().argmax()])
            raise InputError(f"{source}, {row(i)}: score {raw.iloc[i]!r} is not a number")
    df["score"] = score.astype(float)
    outside = ((df["score"] < 0) | (df["score"] > 1)).to_numpy()
    if outside.any():
        i = int(np.flatnonzero(outside)[0])
        r = df.iloc[i]
        top = float(df["score"].max())
        hint = (
            f"; the scores reach {top:g}: percentages? `benchsift import long` rescales them (and known "
            "scales such as MME's)"
            if 1 < top <= 100
            else ""
        )
        raise InputError(
            f"{source}, {row(i)}: score {float(r['score']):g} of model {r['model']!r}, benchmark "
            f"{r['benchmark']!r}, item {r['item']!r} is outside [0, 1] (NaN = missing){hint}"
        )

    model_codes, model_first = key_codes(df["model"], df["condition"])
    item_codes, item_first = key_codes(df["benchmark"], df["item"])
    n_items = len(item_first)
    cell = model_codes * n_items + item_codes
    score_values = df["score"].to_numpy()
    order = np.argsort(cell, kind="stable")
    sorted_cell = cell[order]
    repeat = np.flatnonzero(sorted_cell[1:] == sorted_cell[:-1])
    if repeat.size:
        a, b = score_values[order[repeat]], score_values[order[repeat + 1]]
        differs = ~((a == b) | (np.isnan(a) & np.isnan(b)))
        if differs.any():
            first_bad = repeat[np.argmax(differs)]
            where = sorted(order[sorted_cell == sorted_cell[first_bad]].tolist())
            r = df.iloc[where[0]]
            named = f"rows {where[:5]}" if rows is None else ", ".join(rows[i] for i in where[:5])
            raise InputError(
                f"{source}: conflicting scores for model {r['model']!r} ({r['condition']}), benchmark "
                f"{r['benchmark']!r}, item {r['item']!r} in {named}"
            )
    scores = np.full((len(model_first), n_items), np.nan)
    scores[model_codes, item_codes] = score_values

    item_cols, model_cols = _split_metadata(df)
    model_table = df.iloc[model_first][MODEL_KEY + model_cols].reset_index(drop=True)
    item_table = df.iloc[item_first][ITEM_KEY + item_cols].reset_index(drop=True)
    return panel_from_parts(cls, scores, model_table, item_table, models=models, items=items, source=source)


def panel_from_parts(
    cls: type[Panel],
    scores: np.ndarray,
    model_table: pd.DataFrame,
    item_table: pd.DataFrame,
    *,
    models: pd.DataFrame | None,
    items: pd.DataFrame | None,
    source: str,
) -> Panel:
    """The last step of :func:`panel_from_long` (and of the importers that build the matrix themselves):
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
    return cls._from_owned(scores, model_table, item_table)


def _split_metadata(df: pd.DataFrame) -> tuple[list[str], list[str]]:
    """Sort the extra columns of a long table into item metadata and model metadata.

    ``family``, ``release_date`` and ``params`` are model metadata; ``category``, ``question``, ``answer`` and
    ``image`` are item metadata. Any other column is item metadata if it is constant within every item,
    else model metadata if constant within every model run; a column that varies per cell (a raw
    prediction, say) is not panel metadata and is left out.
    """
    item_cols: list[str] = []
    model_cols: list[str] = []
    for col in df.columns:
        if col in LONG_REQUIRED or col == "condition":
            continue
        if col in MODEL_META:
            model_cols.append(col)
        elif col in ITEM_META or (df.groupby(ITEM_KEY, sort=False)[col].nunique(dropna=False) <= 1).all():
            item_cols.append(col)
        elif (df.groupby(MODEL_KEY, sort=False)[col].nunique(dropna=False) <= 1).all():
            model_cols.append(col)
    return item_cols, model_cols


def key_codes(*columns: pd.Series) -> tuple[np.ndarray, np.ndarray]:
    """Integer code of each row's key (the tuple of ``columns``), numbered in order of first appearance,
    and the row position of each key's first occurrence.

    Each column is factorised on its own and the codes are combined arithmetically, which is much faster
    than factorising tuples (a MultiIndex) on millions of rows.
    """
    combined = np.zeros(len(columns[0]), dtype=np.int64)
    for col in columns:
        codes, uniques = pd.factorize(col, use_na_sentinel=False)
        combined = combined * len(uniques) + codes
    codes, _ = pd.factorize(combined)
    first = np.unique(codes, return_index=True)[1]
    return codes.astype(np.int64), first


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
    """One row per (model run, item): model metadata, item metadata and ``score``."""
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
