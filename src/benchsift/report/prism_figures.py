"""Figures of the multi-axis analyses (PRISM-VLM Table 5 / Fig. 3 / Table 14 / Fig. 19), PNG and SVG.

* :func:`profile_figure`: per-axis profile of selected models as grouped bars (the "same PScore,
  different strengths" view of Table 5);
* :func:`correlation_figure`: inter-axis correlation heatmap with PScore as the last row / column (Fig. 3);
* :func:`forest_figure`: PScore with its 95 % bootstrap CI per model, sorted (Table 14 as a forest plot);
* the same heatmap for the Spearman matrix of per-domain PScore rankings (Fig. 19).

Built on :class:`matplotlib.figure.Figure` with the Agg canvas (no pyplot state) and written atomically.
"""

from __future__ import annotations

import textwrap
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pandas as pd
from matplotlib import colormaps
from matplotlib.figure import Figure

from benchsift.report.figures import new_figure, save_figure

__all__ = [
    "AXIS_NAMES",
    "axis_legend",
    "correlation_figure",
    "forest_figure",
    "profile_figure",
    "save_figure",
    "write_prism_figures",
]

#: What the axis abbreviations stand for (PRISM-VLM Sec. 3).
AXIS_NAMES: dict[str, str] = {
    "q": "quality",
    "if": "instruction following",
    "h": "hallucination resistance",
    "mq": "multi-question robustness",
    "sc": "sycophancy resistance",
    "c": "counting",
    "vis": "visual discrimination",
    "pscore": "PScore (harmonic mean of the axes)",
}


def axis_legend(axes: Sequence[str]) -> str:
    """``q = quality, if = instruction following, ...`` for the abbreviations in ``axes``."""
    return ", ".join(f"{a} = {AXIS_NAMES[a]}" for a in axes if a in AXIS_NAMES)


_WORDS = ("no", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten")


def _axes_count(axes: Sequence[str]) -> str:
    """``six axis means (q, if, mq, vis, h, c)``: how many axes the PScore averages, and which."""
    n = len(axes)
    count = _WORDS[n] if n < len(_WORDS) else str(n)
    return f"{count} axis mean{'' if n == 1 else 's'} ({', '.join(axes)})"


def profile_figure(
    means: pd.DataFrame, models: Sequence[str] | None = None, max_models: int = 8, why: str | None = None
) -> Figure:
    """Grouped bars: one group per axis, one bar per model (the named ``models`` or the first
    ``max_models`` rows); each axis is named under its abbreviation, ``why`` (why these models) is printed
    under the title."""
    sel = means.loc[list(models)] if models is not None else means.iloc[:max_models]
    axes = [str(a) for a in sel.columns]
    n_m = len(sel)
    fig = new_figure(max(6.0, 0.9 * len(axes) + 0.25 * n_m * len(axes) / 2), 4.0)
    ax = fig.add_subplot()
    width = 0.8 / max(n_m, 1)
    x = np.arange(len(axes))
    cmap = colormaps["tab10"]
    for k, (name, row) in enumerate(sel.iterrows()):
        ax.bar(x - 0.4 + width * (k + 0.5), row.to_numpy(float), width, label=str(name), color=cmap(k % 10))
    ax.set_xticks(
        x,
        ["\n".join([a, *textwrap.wrap(AXIS_NAMES.get(a, ""), 14, break_long_words=False)]) for a in axes],
        fontsize=8,
    )
    ax.set_ylim(0, 1)
    ax.set_ylabel("axis mean (answered items; 1 = best)")
    reason = why or f"the first {n_m} models of the table"
    ax.set_title("Per-axis profile\n" + "\n".join(textwrap.wrap(f"shown: {reason}", 80)), fontsize=9)
    ax.legend(fontsize=7, ncols=2, loc="upper left", bbox_to_anchor=(1.0, 1.0))
    return fig


def correlation_figure(corr: pd.DataFrame, title: str = "Inter-axis Pearson correlation") -> Figure:
    """Heatmap of a correlation matrix on [-1, 1]; NaN cells grey and marked "n/a"."""
    C = corr.to_numpy(float)
    labels = [str(c) for c in corr.columns]
    k = len(labels)
    fig = new_figure(1.0 + 0.6 * k, 0.8 + 0.55 * k)
    ax = fig.add_subplot()
    cmap = colormaps["RdBu_r"].with_extremes(bad="lightgrey")
    im = ax.imshow(np.ma.masked_invalid(C), cmap=cmap, vmin=-1.0, vmax=1.0)
    ax.set_xticks(range(k), labels, rotation=45, ha="right")
    ax.set_yticks(range(k), labels)
    for i in range(k):
        for j in range(k):
            v = C[i, j]
            ax.text(
                j,
                i,
                "n/a" if np.isnan(v) else f"{v:.2f}",
                ha="center",
                va="center",
                fontsize=7,
                color="white" if np.isfinite(v) and abs(v) > 0.6 else "black",
            )
    bar = fig.colorbar(im, ax=ax, shrink=0.8)
    bar.set_label("correlation" + ("; grey = n/a (undefined)" if np.isnan(C).any() else ""), fontsize=8)
    ax.set_title(title)
    return fig


def forest_figure(table: pd.DataFrame, value: str = "pscore", lo: str = "ci_lo", hi: str = "ci_hi") -> Figure:
    """Forest plot: one row per model (sorted by ``value``), point and CI whiskers."""
    t = table.sort_values(value, ascending=True, kind="stable")
    n = len(t)
    fig = new_figure(6.0, 0.8 + 0.22 * n)
    ax = fig.add_subplot()
    y = np.arange(n)
    v = t[value].to_numpy(float)
    err = np.vstack([v - t[lo].to_numpy(float), t[hi].to_numpy(float) - v])
    ax.errorbar(
        v,
        y,
        xerr=np.clip(err, 0, None),
        fmt="o",
        ms=3,
        capsize=2,
        color="tab:red",
        label="dot: PScore; bar: 95 % item-bootstrap CI",
    )
    ax.legend(fontsize=7, loc="lower right")
    ax.set_yticks(y, [str(m) for m in t.index], fontsize=7)
    ax.set_xlabel("PScore (95 % item-bootstrap CI)")
    ax.set_title("PScore with bootstrap CIs")
    return fig


def write_prism_figures(
    out_dir: Path,
    means: pd.DataFrame,
    corr: pd.DataFrame,
    table: pd.DataFrame | None = None,
    profile_models: Sequence[str] | None = None,
    domain_corr: pd.DataFrame | None = None,
    data: str = "the verdict table given",
    profile_why: str | None = None,
) -> list[Path]:
    """Write profile, correlation heatmap, (when ``table`` has CIs) the forest plot and (when given) the
    inter-domain PScore Spearman heatmap (Fig. 19) into ``out_dir``, each with its caption.

    ``data`` names the data (a file or "simulated ..."); ``profile_why`` says why the profile shows these
    models (default: the first eight rows).
    """
    out_dir.mkdir(parents=True, exist_ok=True)
    axes = [str(a) for a in means.columns]
    legend = axis_legend(axes)
    shown = list(profile_models) if profile_models is not None else [str(m) for m in means.index[:8]]
    why = profile_why or "the first eight models of the table"
    foot = f"{data}. Axes: {legend}"
    paths = save_figure(
        profile_figure(means, profile_models, why=why),
        out_dir / "profile",
        data=data,
        caption=(
            f"Bars: each model's mean score on each axis (answered items only; 1 = best). Models shown: "
            f"{', '.join(shown)}; why these: {why}. Axes: {legend}. Data: {data}."
        ),
    )
    paths += save_figure(
        correlation_figure(corr),
        out_dir / "axis_correlation",
        data=foot,
        caption=(
            "Each cell: the Pearson correlation across models between two axes' means (PRISM-VLM Fig. 3), "
            "PScore as the last row and column; colour from -1 (blue) to 1 (red); n/a: undefined. "
            f"Axes: {legend}. Data: {data}."
        ),
    )
    if table is not None:
        paths += save_figure(
            forest_figure(table),
            out_dir / "pscore_forest",
            data=data,
            caption=(
                f"Dots: each model's PScore (harmonic mean of its {_axes_count(axes)}, PRISM-VLM Eq. 1); "
                "whiskers: "
                "the 95 % paired item-bootstrap interval (App. E); models sorted by PScore, best at the top. "
                f"Axes: {legend}. Data: {data}."
            ),
        )
    if domain_corr is not None:
        fig = correlation_figure(domain_corr, "Inter-domain PScore Spearman correlation")
        paths += save_figure(
            fig,
            out_dir / "domain_correlation",
            data=data,
            caption=(
                "Each cell: the Spearman correlation between the model rankings by PScore computed on two "
                "domains' items only (PRISM-VLM Fig. 19); colour from -1 (blue) to 1 (red); n/a: undefined. "
                f"Data: {data}."
            ),
        )
    return paths
