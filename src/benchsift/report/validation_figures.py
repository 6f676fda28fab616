"""Tables and figures of the validation protocols and diagnostics (PRIMEBench Tables 10-12, 17-23, Figs. 3-4).

Tables (rich, for the terminal) are built from the pandas frames the protocols return:

* :func:`retention_table` -- selector x retention mean rho (Table 10 / Table 17 layout), best in bold and
  second best underlined per column;
* :func:`split_table` -- mean, sd, min, max and wins over splits at one retention (Table 11);
* :func:`end_to_end_table` -- Table 12: end-to-end rho per retention, no Stage 3, wins against Stage 3 only;
* :func:`frame_table` -- any diagnostic frame (Tables 18-23) with optional highlighted columns.

Figures (matplotlib ``Figure`` on the Agg canvas, written with
:func:`benchsift.report.compression_figures.save_figure`):

* :func:`selector_retention_figure` -- Figure 3: held-out rho against retention, one line per selector with
  its split-to-split sd band;
* :func:`leftout_figure` -- Figure 4(a): left-out MAE against the number of training models;
* :func:`checkpoint_figure` -- Figure 4(b): checkpoint-ranking fidelity per variant set, ceiling marked.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pandas as pd
from matplotlib.figure import Figure
from matplotlib.patches import Patch
from rich.table import Table
from rich.text import Text

from benchsift.report.console import DataTable
from benchsift.report.figures import new_figure, save_figure

__all__ = [
    "checkpoint_figure",
    "end_to_end_table",
    "frame_table",
    "leftout_figure",
    "retention_table",
    "save_selector_figure",
    "selector_retention_figure",
    "split_table",
]


def _fmt(v: object, digits: int = 3) -> str:
    if isinstance(v, bool | np.bool_):
        return "yes" if v else "no"
    if isinstance(v, int | np.integer):
        return str(int(v))
    if isinstance(v, float | np.floating):
        return "-" if not np.isfinite(v) else f"{float(v):.{digits}f}"
    if isinstance(v, list | tuple):
        return ", ".join(str(x) for x in v)
    return str(v)


def _ranks(values: Sequence[float]) -> tuple[float, float]:
    """The best and second-best distinct finite values (NaN when missing)."""
    vals = sorted({round(float(v), 12) for v in values if np.isfinite(v)}, reverse=True)
    best = vals[0] if vals else float("nan")
    second = vals[1] if len(vals) > 1 else float("nan")
    return best, second


def _styled(v: float, best: float, second: float, digits: int = 3) -> Text | str:
    text = _fmt(v, digits)
    if np.isfinite(v) and round(float(v), 12) == best:
        return Text(text, style="bold")
    if np.isfinite(v) and round(float(v), 12) == second:
        return Text(text, style="underline")
    return text


def frame_table(
    frame: pd.DataFrame,
    title: str,
    *,
    caption: str | None = None,
    highlight: Sequence[str] = (),
    row_highlight: Sequence[str] = (),
    lower_is_better: bool = False,
    digits: int = 3,
) -> Table:
    """A rich table of ``frame``; in ``highlight`` columns the best is bold, the second underlined.

    ``row_highlight`` marks the best and second best across those columns within each row instead.
    """
    table = DataTable(title=title, caption=caption, caption_justify="left")
    for col in frame.columns:
        numeric = pd.api.types.is_numeric_dtype(frame[col]) and not pd.api.types.is_bool_dtype(frame[col])
        table.add_column(str(col), justify="right" if numeric else "left")
    marks: dict[str, tuple[float, float]] = {}
    for col in highlight:
        vals = frame[col].to_numpy(dtype=float)
        if lower_is_better:
            b, s = _ranks(-vals)
            marks[col] = (-b, -s)
        else:
            marks[col] = _ranks(vals)
    for _, row in frame.iterrows():
        cells: list[Text | str] = []
        here = dict(marks)
        if row_highlight:  # best / second best across these columns, per row
            vals = row[list(row_highlight)].to_numpy(dtype=float)
            b, s = _ranks(-vals) if lower_is_better else _ranks(vals)
            here.update({c: ((-b, -s) if lower_is_better else (b, s)) for c in row_highlight})
        for col in frame.columns:
            v = row[col]
            if col in here and isinstance(v, float | np.floating):
                best, second = (round(m, 12) for m in here[col])
                cells.append(_styled(float(v), best, second, digits=digits))
            else:
                cells.append(_fmt(v, digits))
        table.add_row(*cells)
    return table


def _pct(r: float) -> str:
    return f"r={100 * r:g}%"


def retention_table(
    summary: pd.DataFrame, title: str, *, extra: pd.Series | None = None, extra_name: str = "chronological"
) -> Table:
    """Selector x retention mean rho (PRIMEBench Table 10 / 17). ``extra`` (indexed by selector) adds one
    more highlighted column, e.g. the chronological split at r = 5 %."""
    wide = summary.pivot(index="selector", columns="retention", values="rho_mean")
    wide = wide.reindex(pd.unique(summary["selector"]))
    wide.columns = [_pct(float(r)) for r in wide.columns]
    if extra is not None:
        wide[extra_name] = extra.reindex(wide.index).to_numpy(dtype=float)
    frame = wide.reset_index()
    return frame_table(frame, title, highlight=[c for c in frame.columns if c != "selector"])


def split_table(
    summary: pd.DataFrame,
    retention: float,
    title: str,
    *,
    extra: pd.Series | None = None,
    extra_name: str = "chronological",
) -> Table:
    """Mean, sd, min, max and wins over splits at one retention (PRIMEBench Table 11, left); ``extra``
    (indexed by selector) adds the right part, e.g. the chronological split at the same retention."""
    rows = summary[np.isclose(summary["retention"].to_numpy(dtype=float), retention)]
    frame = rows[["selector", "rho_mean", "rho_sd", "rho_min", "rho_max", "wins"]].rename(
        columns={"rho_mean": "mean", "rho_sd": "sd", "rho_min": "min", "rho_max": "max"}
    )
    frame = frame.reset_index(drop=True)
    highlight = ["mean", "min", "max"]
    if extra is not None:
        frame[extra_name] = extra.reindex(frame["selector"]).to_numpy(dtype=float)
        highlight.append(extra_name)
    return frame_table(frame, title, highlight=highlight)


def end_to_end_table(
    summary: pd.DataFrame, stage3_only: dict[str, float], retention: float, title: str
) -> Table:
    """PRIMEBench Table 12: end-to-end rho per retention, then at ``retention`` the no-Stage-3 rho and the
    number of splits beating Stage 3 only; the caption gives Stage 3 only."""
    wide = summary.pivot(index="selector", columns="retention", values="rho_mean")
    wide = wide.reindex(pd.unique(summary["selector"]))
    wide.columns = [_pct(float(r)) for r in wide.columns]
    at = summary[np.isclose(summary["retention"].to_numpy(dtype=float), retention)].set_index("selector")
    wide[f"sd ({_pct(retention)})"] = at["rho_sd"].reindex(wide.index).to_numpy(dtype=float)
    wide[f"no Stage 3 ({_pct(retention)})"] = at["no_stage3"].reindex(wide.index).to_numpy(dtype=float)
    wide["beats Stage 3 only"] = at["beats_stage3_only"].reindex(wide.index).to_numpy()
    frame = wide.reset_index()
    caption = (
        f"Stage 3 only (no Stage 2 pruning): mean {_fmt(stage3_only['mean'])}, sd {_fmt(stage3_only['sd'])}"
    )
    hl = [c for c in frame.columns if c.startswith("r=") or c.startswith("no Stage 3")]
    return frame_table(frame, title, caption=caption, highlight=hl)


def selector_retention_caption(data: str, n_splits: int | None = None) -> str:
    """Caption of :func:`selector_retention_figure`: lines, bands, axes, the data."""
    over = f"the {n_splits} splits" if n_splits else "the splits"
    return (
        "PRIMEBench Figure 3: for each Stage 2 selector, the Spearman rho between the held-out models' "
        "ranking on the items it keeps and on all items, against the retention r (log scale). Line and dots: "
        f"mean over {over}; shaded band: ±1 sd over {over}. Every selector keeps the same number of items "
        f"per category. Data: {data}."
    )


def selector_retention_figure(summary: pd.DataFrame, title: str = "Held-out ranking fidelity") -> Figure:
    """PRIMEBench Figure 3: mean held-out rho against retention per selector, shaded +- one split sd.

    ``summary`` has columns ``selector, retention, rho_mean, rho_sd`` (``HeldoutResult.summary()``).
    """
    fig = new_figure(6.4, 4.0)
    ax = fig.add_subplot()
    for name in pd.unique(summary["selector"]):
        rows = summary[summary["selector"] == name].sort_values("retention")
        x = 100.0 * rows["retention"].to_numpy(dtype=float)
        y = rows["rho_mean"].to_numpy(dtype=float)
        sd = np.nan_to_num(rows["rho_sd"].to_numpy(dtype=float))
        (line,) = ax.plot(x, y, marker="o", ms=4, lw=1.5, label=str(name))
        ax.fill_between(x, y - sd, y + sd, color=line.get_color(), alpha=0.12, lw=0)
    ax.set_xscale("log")
    ticks = sorted({float(v) for v in 100.0 * summary["retention"].to_numpy(dtype=float)})
    ax.set_xticks(ticks)
    ax.set_xticklabels([f"{t:g}" for t in ticks])
    ax.minorticks_off()
    ax.set_xlabel("retention r (%)")
    ax.set_ylabel("Spearman rho on held-out models")
    ax.set_title(title)
    ax.grid(alpha=0.3)
    handles, _ = ax.get_legend_handles_labels()
    band_key = Patch(facecolor="grey", alpha=0.2, label="shaded: ±1 sd over splits")
    ax.legend(handles=[*handles, band_key], fontsize=8, ncols=2)
    return fig


def save_selector_figure(
    summary: pd.DataFrame, stem: Path, protocol: str, data: str, n_splits: int | None = None
) -> list[Path]:
    """Figure 3 of a validation protocol's ``summary`` (over ``n_splits`` splits of the panel ``data``)
    written to ``stem.png`` / ``stem.svg`` with its caption; returns the paths written."""
    where = f"{data}, {protocol} protocol"
    return save_figure(
        selector_retention_figure(summary, title=f"{protocol} protocol"),
        stem,
        caption=selector_retention_caption(where, n_splits),
        data=where,
    )


def leftout_figure(table: pd.DataFrame, title: str = "Left-out benchmark prediction") -> Figure:
    """PRIMEBench Figure 4(a): mean MAE against the number of training models ``M``, one line per target.

    ``table`` is ``LeftoutResult.table()`` (columns ``target, models, M=1, M=2, ...``).
    """
    fig = new_figure(5.6, 3.8)
    ax = fig.add_subplot()
    cols = [c for c in table.columns if str(c).startswith("M=")]
    sizes = np.array([int(str(c)[2:]) for c in cols])
    for _, row in table.iterrows():
        y = row[cols].to_numpy(dtype=float)
        ok = np.isfinite(y)
        ax.plot(sizes[ok], y[ok], marker="o", ms=4, label=f"{row['target']} ({row['models']})")
    ax.set_xscale("log", base=2)
    ax.set_xticks(sizes)
    ax.set_xticklabels([str(s) for s in sizes])
    ax.minorticks_off()
    ax.set_xlabel("training models M")
    ax.set_ylabel("MAE (30 random splits)")
    ax.set_title(title)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8)
    return fig


def checkpoint_figure(table: pd.DataFrame, retention: float, title: str = "Checkpoint ranking") -> Figure:
    """PRIMEBench Figure 4(b): fidelity per variant set and selector at ``retention``; the bootstrap ceiling
    as a black tick, failing sets hatched."""
    cols = [c for c in table.columns if "@" in str(c) and np.isclose(float(str(c).split("@")[1]), retention)]
    fig = new_figure(max(6.0, 0.9 * len(table) + 3.0), 3.8)
    ax = fig.add_subplot()
    x = np.arange(len(table))
    width = 0.8 / max(len(cols), 1)
    for i, col in enumerate(cols):
        bars = ax.bar(
            x + (i - (len(cols) - 1) / 2) * width,
            table[col].to_numpy(dtype=float),
            width,
            label=str(col).split("@")[0],
        )
        for bar, ok in zip(bars, table["passes"], strict=True):
            if not ok:
                bar.set_hatch("//")
    ax.scatter(x, table["ceiling"].to_numpy(dtype=float), marker="_", s=400, color="black", label="ceiling")
    ax.set_xticks(x)
    ax.set_xticklabels(
        [f"{v} (n={n})" for v, n in zip(table["variant_set"], table["n"], strict=True)],
        rotation=20,
        ha="right",
        fontsize=8,
    )
    ax.set_ylabel(f"Spearman rho vs full test (r={100 * retention:g}%)")
    ax.set_title(title)
    ax.grid(alpha=0.3, axis="y")
    ax.set_ylim(top=1.05)
    fig.legend(fontsize=8, loc="outside right upper")
    return fig
