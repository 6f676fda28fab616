"""Conversion between a :class:`~benchsift.panel.Panel` and a long table (one row per score)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

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
) -> Panel:
    """See :meth:`Panel.from_long`."""
    if len(df) == 0:
        raise InputError(f"{source}: no rows")
    missing = [c for c in LONG_REQUIRED if c not in df.columns]
    if missing:
        raise InputError(f"{source}: missing column(s) {missing}; expected at least {list(LONG_REQUIRED)}")
    df = df.reset_index(drop=True).copy()
    for col in ("model", "benchmark", "item"):
        empty = df[col].isna()
        if empty.any():
            raise InputError(f"{source}, row {int(empty.to_numpy().argmax())}: empty {col!r}")
        df[col] = df[col].astype(str)
    if "condition" not in df.columns:
        df["condition"] = "image"
    df["condition"] = df["condition"].fillna("image").astype(str)
    raw = df["score"]
    score = pd.to_numeric(raw, errors="coerce")
    bad = score.isna() & raw.notna() & (raw.astype(str).str.strip().str.lower().isin(["", "nan", "na"]) == False)  # noqa: E712
    if bad.any():
        row = int(bad.to_numpy().argmax())
        raise InputError(f"{source}, row {row}: score {raw.iloc[row]!r} is not a number")
    df["score"] = score.astype(float)

    key = MODEL_KEY + ITEM_KEY
    dup = df.duplicated(key, keep=False)
    if dup.any():
        groups = df.loc[dup].groupby(key, sort=False)["score"]
        conflicting = groups.nunique(dropna=False) > 1
        if conflicting.any():
            k = conflicting[conflicting].index[0]
            rows = df.index[dup & (df[key].apply(tuple, axis=1) == k)].tolist()
            raise InputError(
                f"{source}: conflicting scores for model {k[0]!r} ({k[1]}), benchmark {k[2]!r}, item {k[3]!r} "
                f"in rows {rows[:5]}"
            )
        df = df.drop_duplicates(key).reset_index(drop=True)

    model_codes, model_uniques = pd.factorize(pd.MultiIndex.from_frame(df[MODEL_KEY]), sort=False)
    item_codes, item_uniques = pd.factorize(pd.MultiIndex.from_frame(df[ITEM_KEY]), sort=False)
    scores = np.full((len(model_uniques), len(item_uniques)), np.nan)
    scores[model_codes, item_codes] = df["score"].to_numpy()

    model_table = pd.DataFrame(list(model_uniques), columns=MODEL_KEY)
    item_table = pd.DataFrame(list(item_uniques), columns=ITEM_KEY)
    item_cols, model_cols = _split_metadata(df)
    if item_cols:
        first = df.drop_duplicates(ITEM_KEY)[ITEM_KEY + item_cols]
        item_table = item_table.merge(first, on=ITEM_KEY, how="left")
    if model_cols:
        first = df.drop_duplicates(MODEL_KEY)[MODEL_KEY + model_cols]
        model_table = model_table.merge(first, on=MODEL_KEY, how="left")

    if models is not None:
        model_table = _merge_side(model_table, models, ["model"], "models side table", source)
    if items is not None:
        item_table = _merge_side(item_table, items, ITEM_KEY, "items side table", source)
    return cls(scores, model_table, item_table)


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


def _merge_side(
    base: pd.DataFrame, side: pd.DataFrame, key: list[str], what: str, source: str
) -> pd.DataFrame:
    missing = [c for c in key if c not in side.columns]
    if missing:
        raise InputError(f"{source}: {what} is missing column(s) {missing}")
    side = side.copy()
    for c in key:
        side[c] = side[c].astype(str)
    if side.duplicated(key).any():
        row = int(side.duplicated(key).to_numpy().argmax())
        raise InputError(f"{source}: {what} row {row} repeats key {side.loc[row, key].tolist()}")
    side = side.drop(columns=[c for c in ("condition",) if c in side.columns and "condition" not in key])
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
