"""Figures of the compression pipeline (PRIMEBench Table 2 and the Stage 3 k-sweep), PNG and SVG.

* :func:`k_sweep_figure`: Stage 3 :math:`\\rho` of the best k-subset against the all-category ranking for
  every k (PRIMEBench section 4.4), exhaustive and greedy points marked apart, the chosen k highlighted;
* :func:`stage_table_figure`: the stage table (items in / out, change, :math:`\\rho`) rendered as a figure;
* :func:`stage_rich_table`: the same table for the terminal.

Figures use :class:`matplotlib.figure.Figure` on the Agg canvas (no pyplot state) and are written atomically.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from matplotlib.figure import Figure
from rich.table import Table

from benchsift.report.console import DataTable
from benchsift.report.figures import new_figure, save_figure

__all__ = [
    "k_sweep_caption",
    "k_sweep_figure",
    "save_figure",
    "stage_rich_table",
    "stage_table_caption",
    "stage_table_figure",
]


def k_sweep_caption(data: str, chosen_k: int | None = None) -> str:
    """Caption of :func:`k_sweep_figure`: what the points, the ring and the dotted line mean, the data."""
    chosen = f" Red ring: the k kept (k = {chosen_k})." if chosen_k is not None else ""
    return (
        "Stage 3 (PRIMEBench section 4.4): for each number of categories k, the Spearman rho between the "
        "models' ranking on the best k-category subset and on all categories. Blue circles: best subset by "
        "exhaustive search; orange squares: by greedy search (too many subsets to try all); grey line joins "
        f"them.{chosen} Dotted red line: rho = 0.95. Data: {data}."
    )


def stage_table_caption(data: str) -> str:
    """Caption of :func:`stage_table_figure`: the columns of the stage table."""
    return (
        "The PRIMEBench stage table (Table 2): items_in / items_out of each stage, change relative to the "
        "stage's input (the suite rows: to all items), rho_vs_stage0 = Spearman rho of the model ranking "
        "after "
        "the row against the Stage 0 ranking, rho_stage = the stage's own Table 2 rho; '-' = not defined. "
        f"Data: {data}."
    )


def k_sweep_figure(
    sweep: pd.DataFrame, chosen_k: int | None = None, title: str = "Stage 3 k-sweep"
) -> Figure:
    """:math:`\\rho` of the best k-subset for every k (``Stage3Result.sweep``: columns ``k, rho, method``)."""
    fig = new_figure(6.0, 3.6)
    ax = fig.add_subplot()
    k = sweep["k"].to_numpy()
    rho = sweep["rho"].to_numpy(dtype=float)
    ax.plot(k, rho, color="0.6", lw=1, zorder=1)
    for method, marker, color in (("exhaustive", "o", "tab:blue"), ("greedy", "s", "tab:orange")):
        m = (sweep["method"] == method).to_numpy()
        if m.any():
            ax.scatter(k[m], rho[m], marker=marker, color=color, label=method, zorder=2)
    if chosen_k is not None and chosen_k in set(k.tolist()):
        j = int(np.flatnonzero(k == chosen_k)[0])
        ax.scatter(
            [k[j]],
            [rho[j]],
            s=140,
            facecolors="none",
            edgecolors="crimson",
            lw=2,
            zorder=3,
            label=f"chosen k = {chosen_k} (rho = {rho[j]:.3f})",
        )
    ax.axhline(0.95, color="crimson", ls=":", lw=1, label="rho = 0.95")
    ax.set_xlabel("number of categories k")
    ax.set_ylabel("Spearman rho vs all categories")
    finite = rho[np.isfinite(rho)]
    low = float(finite.min()) if finite.size else 0.0
    ax.set_ylim(min(low - 0.02, 0.9), 1.005)
    ax.set_xticks(k)
    ax.set_title(title)
    ax.legend(loc="lower right", fontsize=8)
    ax.grid(alpha=0.3)
    return fig


def _cell(v: object) -> str:
    if isinstance(v, float):
        return "-" if np.isnan(v) else f"{v:.3f}"
    return str(v)


def stage_table_figure(table: pd.DataFrame, title: str = "PRIMEBench stages") -> Figure:
    """The stage table (``benchsift.compression.suite.stage_table``) as a figure."""
    cols = ["stage", "name", "items_in", "items_out", "change", "rho_vs_stage0", "rho_stage"]
    shown = table[cols].copy()
    shown["change"] = [("-" if np.isnan(v) else f"{100 * v:+.1f}%") for v in shown["change"].astype(float)]
    fig = new_figure(9.0, 0.32 * (len(shown) + 2))
    ax = fig.add_subplot()
    ax.axis("off")
    cells = [[_cell(v) for v in row] for row in shown.itertuples(index=False)]
    widths = [0.07, 0.31, 0.11, 0.11, 0.1, 0.16, 0.14]
    tab = ax.table(cellText=cells, colLabels=cols, colWidths=widths, loc="center", cellLoc="center")
    tab.auto_set_font_size(False)
    tab.set_fontsize(8)
    tab.scale(1.0, 1.2)
    ax.set_title(title)
    return fig


def stage_rich_table(table: pd.DataFrame, title: str = "PRIMEBench stages") -> Table:
    """The stage table for the terminal; what each ``rho (stage)`` measures and the notes are the caption."""
    out = DataTable(title=title, caption_justify="left")
    for col in ("stage", "name", "items in", "items out", "change", "rho vs Stage 0", "rho (stage)"):
        out.add_column(col)
    defs: list[str] = []
    notes: list[str] = []
    for row in table.to_dict(orient="records"):
        change = float(row["change"])
        out.add_row(
            str(row["stage"]),
            str(row["name"]),
            str(row["items_in"]),
            str(row["items_out"]),
            "-" if np.isnan(change) else f"{100 * change:+.1f}%",
            _cell(float(row["rho_vs_stage0"])),
            _cell(float(row["rho_stage"])),
        )
        what, note = row.get("rho_stage_is"), row.get("note")
        if isinstance(what, str) and what and what != "vs Stage 0 reference":
            defs.append(f"{row['stage']}: {what}")
        if isinstance(note, str) and note:
            notes.append(f"{row['stage']}: {note}")
    lines = []
    if defs:
        lines.append("rho (stage) = " + "; ".join(defs))
    if notes:
        lines.append("notes: " + "; ".join(notes))
    out.caption = "\n".join(lines) or None
    return out
