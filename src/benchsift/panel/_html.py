"""The notebook view of a panel (``Panel._repr_html_``): a short summary and the first rows of its tables.

The view is bounded whatever the panel's size: at most :data:`HEAD_ROWS` rows of each table, at most
:data:`MAX_COLUMNS` columns, :data:`MAX_BENCHMARKS` benchmarks named and every text cut to :data:`MAX_TEXT`
characters; every name is HTML-escaped (model and item names come from the user's files).
"""

from __future__ import annotations

import html
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

if TYPE_CHECKING:
    from benchsift.panel._panel import Panel

HEAD_ROWS = 5
MAX_COLUMNS = 8
MAX_BENCHMARKS = 10
MAX_TEXT = 60


def _cut(text: object) -> object:
    if isinstance(text, str) and len(text) > MAX_TEXT:
        return text[: MAX_TEXT - 3] + "..."
    return text


def _head_html(frame: pd.DataFrame, total: int, what: str) -> str:
    shown = frame.iloc[:HEAD_ROWS, :MAX_COLUMNS].copy()  # the head alone is copied
    shown.columns = [str(_cut(str(c))) for c in shown.columns]
    for col in shown.columns:
        if shown[col].dtype == object:
            shown[col] = shown[col].map(_cut)
    more = []
    if total > HEAD_ROWS:
        more.append(f"first {HEAD_ROWS} of {total:,} rows")
    if frame.shape[1] > MAX_COLUMNS:
        more.append(f"first {MAX_COLUMNS} of {frame.shape[1]} columns")
    caption = html.escape(what + (f" ({', '.join(more)})" if more else ""))
    table = shown.to_html(index=False, escape=True, na_rep="NA", border=0)
    return f"<p><b>{caption}</b></p>{table}"


def panel_html(panel: Panel) -> str:
    """The HTML summary of ``panel``: models x items, benchmarks, coverage, score range, table heads."""
    scores = panel.scores
    obs = panel.observed
    if obs.any():
        lo, hi = float(np.min(scores[obs])), float(np.max(scores[obs]))
        score_text = f"scores from {lo:.3g} to {hi:.3g}, mean {panel.mean_score:.3g}"
    else:
        score_text = "no scores (every cell missing)"
    coverage = "coverage NA" if np.isnan(panel.coverage) else f"coverage {100 * panel.coverage:.1f} %"
    items = panel._items  # read only: no copy of a large items table (question text and all)
    counts = items.groupby("benchmark", sort=False).size()
    named = [f"{_cut(str(b))} ({int(n):,})" for b, n in counts.iloc[:MAX_BENCHMARKS].items()]
    if len(counts) > MAX_BENCHMARKS:
        named.append(f"and {len(counts) - MAX_BENCHMARKS:,} more")
    head = (
        f"Panel: {panel.n_models:,} models x {panel.n_items:,} items, {len(counts):,} benchmark(s), "
        f"{coverage} of the cells scored, {score_text}"
    )
    parts = [
        "<div>",
        f"<p><b>{html.escape(head)}</b></p>",
        f"<p>Benchmarks (items): {html.escape(', '.join(named))}</p>",
        _head_html(panel._models, panel.n_models, "models"),
        _head_html(items, panel.n_items, "items"),
        "</div>",
    ]
    return "".join(parts)
