"""Logged model answers aligned with a panel: the input of DISCO's prediction disagreement.

PRIMEBench (section 5, H.2) runs DISCO on "prediction disagreement on the logged model answers": which
option or text each model gave, not whether it was right. A panel holds scores only, so the answers come
from a long table read against the panel:

* columns ``model``, ``item``, the answer column (``answer`` by default; ``prediction`` as VLMEvalKit and
  the long importer's raw files name it), and ``benchmark`` (required unless the panel has one benchmark)
  and ``condition`` (``image`` when absent);
* one row per (model run, item); an empty answer is a missing one (``None``), never a distinct answer;
* answers are compared as stripped text (``"B"`` and ``" B"`` are one answer; ``"1"`` and ``"1.0"`` two);
* rows for models or items the panel does not hold are skipped and counted in a note (an answer file
  usually covers more than a cleaned or subset panel); conflicting duplicates are an error naming both
  rows.

The same long file a panel was imported from (``benchsift import long``) can be read again here with
``column="prediction"``.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from benchsift.errors import InputError
from benchsift.io._common import PathLike, answer_labels, id_strings, read_table, require_columns
from benchsift.io._rows import RowNames, row_name
from benchsift.panel import Panel

__all__ = ["LoggedAnswers", "read_answers"]


@dataclass(frozen=True)
class LoggedAnswers:
    """``values``: ``(n_models, n_items)`` object array of answer labels aligned with ``panel.scores``
    (``None`` = no logged answer); ``coverage``: the share of the panel's scored cells with an answer."""

    values: np.ndarray
    coverage: float
    notes: tuple[str, ...]


def read_answers(path: PathLike, panel: Panel, *, column: str = "answer") -> LoggedAnswers:
    """Read a long table of logged answers (module docstring) and align it with ``panel``."""
    Panel.check(panel)
    p = Path(path)
    df = read_table(p)
    has_bench = "benchmark" in df.columns
    if not has_bench and len(panel.benchmarks) != 1:
        raise InputError(
            f"{p}: missing column 'benchmark' (the panel holds {len(panel.benchmarks)} benchmarks, so items "
            "are named by benchmark and item)"
        )
    require_columns(df, ["model", "item", column], p, "a logged-answers table")
    rows = RowNames(p, len(df))
    model = id_strings(df["model"], p, "model", rows)
    item = id_strings(df["item"], p, "item", rows)
    bench = (
        id_strings(df["benchmark"], p, "benchmark", rows)
        if has_bench
        else pd.Series(panel.benchmarks[0], index=model.index, dtype=object)
    )
    cond = (
        id_strings(df["condition"], p, "condition", rows)
        if "condition" in df.columns
        else pd.Series("image", index=model.index, dtype=object)
    )
    answer = answer_labels(df[column])

    row_of = {(m, c): r for r, (m, c) in enumerate(zip(panel.model_ids, panel.conditions, strict=True))}
    col_of = {key: j for j, key in enumerate(panel.item_keys)}
    r = np.fromiter((row_of.get(k, -1) for k in zip(model, cond, strict=True)), np.int64, len(df))
    c = np.fromiter((col_of.get(k, -1) for k in zip(bench, item, strict=True)), np.int64, len(df))
    notes: list[str] = []
    unknown_model, unknown_item = r < 0, (r >= 0) & (c < 0)
    if unknown_model.any():
        names = sorted(set(model[unknown_model]))
        notes.append(
            f"{p}: skipped {int(unknown_model.sum())} row(s) of {len(names)} model run(s) not in the panel "
            f"(e.g. {names[0]!r})"
        )
    if unknown_item.any():
        notes.append(f"{p}: skipped {int(unknown_item.sum())} row(s) of items not in the panel")
    keep = (r >= 0) & (c >= 0)
    cell = r * panel.n_items + c
    values = np.full(panel.shape, None, dtype=object)
    if keep.any():
        idx = np.flatnonzero(keep)
        first: dict[int, int] = {}
        for i in idx[pd.Series(cell[idx]).duplicated(keep=False).to_numpy()]:
            prev = first.setdefault(int(cell[i]), int(i))
            if prev != i and answer.iloc[prev] != answer.iloc[i]:
                raise InputError(
                    f"{p}, {row_name(p, int(i))}: conflicting duplicate answers for model {model.iloc[i]!r}, "
                    f"item {item.iloc[i]!r}: {answer.iloc[i]!r} here and {answer.iloc[prev]!r} at "
                    f"{row_name(p, prev)}"
                )
        values.reshape(-1)[cell[idx]] = answer.to_numpy(dtype=object)[idx]
    scored = panel.observed
    n_scored = int(scored.sum())
    answered = pd.notna(pd.DataFrame(values)).to_numpy() & scored
    coverage = float(answered.sum() / n_scored) if n_scored else float("nan")
    if n_scored and coverage < 1.0:
        notes.append(
            f"{p}: {n_scored - int(answered.sum())} of {n_scored} scored cells have no logged answer "
            "(DISCO skips them)"
        )
    return LoggedAnswers(values=values, coverage=coverage, notes=tuple(notes))
