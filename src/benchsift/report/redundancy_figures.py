"""Figures of the redundancy analyses (redundancy paper Figs. 3-6 and 8), PNG and SVG.

* :func:`heatmap_figure`: labelled correlation heatmap of dimensions (Fig. 3) or benchmarks (Fig. 8);
* :func:`bar_figure`: per-dimension (or per-benchmark) redundancy :math:`\\rho(X_i)` (Fig. 4);
* :func:`curves_figure`: :math:`\\rho(A\\%)` curves with +-1 sd bands for all / top-K / bottom-K models
  (Figs. 5-6);
* :func:`each_benchmark_figure`: benchmark-specific :math:`\\rho(A\\%)` curves (Fig. 6) with their average
  across benchmarks (Fig. 5).

Figures are built on :class:`matplotlib.figure.Figure` with the Agg canvas (no pyplot state, no display
needed) and written atomically by :func:`save_figure`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path

import numpy as np
from matplotlib import colormaps
from matplotlib.axes import Axes
from matplotlib.colors import Colormap
from matplotlib.figure import Figure
from matplotlib.patches import Patch

from benchsift.redundancy import (
    METRIC_LABELS,
    BenchmarkRedundancy,
    DimensionRedundancy,
    InstanceRedundancy,
    InstanceRedundancyByBenchmark,
)
from benchsift.report.figures import new_figure, save_figure

CURVE_FLOOR = -1.0
"""Lowest value shown on the y-axis of the rho(A%) curves (R^2 can be far below it at small ratios)."""
_MAX_LABEL = 28


def heatmap_caption(metric: str, kind: str, data: str, who: str = "models") -> str:
    """Caption of :func:`heatmap_figure`: what a cell, the colours and "n/a" mean, and the data."""
    label = METRIC_LABELS.get(metric, metric)
    what = "dimensions of the benchmark" if kind == "dimension" else "benchmarks"
    return (
        f"Each cell: the {label} between the {who}' scores on two {what} (redundancy paper "
        f"{'Eq. 1' if kind == 'dimension' else 'Eq. 4'}), printed in the cell; colour from -1 (blue) "
        f"through 0 (white) to 1 (red); grey cells marked n/a are undefined (a constant score column or "
        f"too few models). Data: {data}."
    )


def bars_caption(metric: str, kind: str, data: str) -> str:
    """Caption of :func:`bar_figure` for a dimension (rho(X_i), Eq. 1) or benchmark (rho(Y_i)) analysis."""
    label = METRIC_LABELS.get(metric, metric)
    sym = "ρ(X_i)" if kind == "dimension" else "ρ(Y_i)"
    return (
        f"Bars: {sym}, the mean {label} of each {kind} with every other {kind} (redundancy paper Eq. 1), "
        f"highest first; a high value means the {kind} ranks models like the others (redundant); n/a: "
        f"undefined. Data: {data}."
    )


def curves_caption(metric: str, groups: Sequence[str], data: str, threshold: float = 0.95) -> str:
    """Caption of :func:`curves_figure`: lines, bands, dashed threshold, the model groups, the data."""
    label = METRIC_LABELS.get(metric, metric)
    return (
        f"ρ(A%) (redundancy paper Eq. 3): the {label} between models' scores on a random A % of the "
        f"benchmark's items and on all of them. Line and dots: mean over the random draws; shaded band: "
        f"±1 sd over the draws; dashed grey line: the saturation threshold {threshold:g} (a subset above it "
        f"ranks models as the whole benchmark does). Model groups: {', '.join(groups)} (top-K / bottom-K: "
        f"the K models with the highest / lowest overall score). Data: {data}."
    )


def _short(label: str) -> str:
    return label if len(label) <= _MAX_LABEL else label[: _MAX_LABEL - 1] + "…"


def heatmap_figure(
    matrix: np.ndarray, labels: Sequence[str], title: str, value_label: str = "correlation"
) -> Figure:
    """Labelled heatmap of an m x m correlation matrix; undefined (NaN) cells are grey and marked "n/a".

    The colour scale is fixed to [-1, 1] (values below -1, possible for R^2, are clipped in colour only);
    every cell is annotated with its value when m <= 20.
    """
    m = len(labels)
    size = max(4.0, 0.45 * m + 2.5)
    fig = new_figure(size + 1.0, size)
    ax = fig.add_subplot()
    data = np.ma.masked_invalid(np.asarray(matrix, dtype=np.float64))
    cmap = _cmap()
    im = ax.imshow(data, cmap=cmap, vmin=-1.0, vmax=1.0, interpolation="nearest")
    ax.set_xticks(np.arange(m), labels=[_short(s) for s in labels], rotation=60, ha="right", fontsize=8)
    ax.set_yticks(np.arange(m), labels=[_short(s) for s in labels], fontsize=8)
    ax.set_title(title, fontsize=10)
    if m <= 20:
        for i in range(m):
            for j in range(m):
                v = matrix[i][j]
                text = "n/a" if not np.isfinite(v) else f"{v:.2f}"
                dark = np.isfinite(v) and abs(v) > 0.6
                ax.text(j, i, text, ha="center", va="center", fontsize=7, color="white" if dark else "black")
    bar = fig.colorbar(im, ax=ax, shrink=0.8)
    missing = not np.isfinite(np.asarray(matrix, dtype=np.float64)).all()
    bar.set_label(value_label + ("; grey = n/a (undefined)" if missing else ""), fontsize=8)
    return fig


def _cmap() -> Colormap:
    """Diverging map with undefined (masked) cells in light grey."""
    return colormaps["RdBu_r"].with_extremes(bad="#d9d9d9")


def bar_figure(values: np.ndarray, labels: Sequence[str], title: str, xlabel: str) -> Figure:
    """Horizontal bars of per-dimension redundancy, highest first; undefined values are listed as "n/a"."""
    vals = np.asarray(values, dtype=np.float64)
    order = np.argsort(np.where(np.isfinite(vals), -vals, np.inf), kind="stable")
    m = len(labels)
    fig = new_figure(6.5, max(2.5, 0.32 * m + 1.2))
    ax = fig.add_subplot()
    y = np.arange(m)
    shown = np.where(np.isfinite(vals[order]), vals[order], 0.0)
    ax.barh(y, shown, color="#4c72b0")
    for yy, v in zip(y, vals[order], strict=True):
        if not np.isfinite(v):
            ax.text(0.0, float(yy), " n/a", va="center", fontsize=8)
    ax.set_yticks(y, labels=[_short(labels[i]) for i in order], fontsize=8)
    ax.invert_yaxis()
    ax.set_xlabel(xlabel)
    ax.set_title(title, fontsize=10)
    ax.axvline(0.0, color="black", linewidth=0.6)
    return fig


def curves_figure(
    results: Mapping[str, InstanceRedundancy], metric: str, title: str, floor: float = CURVE_FLOOR
) -> Figure:
    """:math:`\\rho(A\\%)` against the ratio (in %), one line with a +-1 sd band per model group.

    ``results`` maps a legend label (e.g. ``"all"``, ``"top-50"``) to an :class:`InstanceRedundancy`; the
    saturation threshold of the first result is drawn as a dashed line. R^2 of a few sampled items can be far
    below 0 (e.g. -8 at 1 % of MMMU for the top-50 models), which would squash the rest of the curve: the
    y-axis is cut at ``floor`` (default -1) and a note in the plot names the lowest mean left out (the JSON
    result keeps every value).
    """
    fig = new_figure(6.0, 4.0)
    ax = fig.add_subplot()
    threshold = None
    lowest: tuple[float, float, str] | None = None
    highest = -np.inf
    for label, res in results.items():
        if metric not in res.mean:
            continue
        x = res.ratios * 100.0
        mu, sd = res.mean[metric], res.sd[metric]
        (line,) = ax.plot(x, mu, marker="o", markersize=3, label=label)
        band = np.where(np.isfinite(sd), sd, 0.0)
        ax.fill_between(x, mu - band, mu + band, color=line.get_color(), alpha=0.2, linewidth=0)
        threshold = res.threshold if threshold is None else threshold
        if np.isfinite(mu).any():
            highest = max(highest, float(np.nanmax(mu + band)))
            i = int(np.nanargmin(mu))
            if lowest is None or mu[i] < lowest[0]:
                lowest = (float(mu[i]), float(x[i]), label)
    if threshold is not None:
        ax.axhline(
            threshold,
            color="grey",
            linestyle="--",
            linewidth=0.8,
            label=f"saturation threshold {threshold:g}",
        )
    ymin, _ = ax.get_ylim()
    if ymin < floor:
        top = max(highest, threshold if threshold is not None else floor, floor + 0.1)
        ax.set_ylim(floor, top + 0.05 * (top - floor))
        if lowest is not None and lowest[0] < floor:
            ax.text(
                0.98,
                0.02,
                f"cut at {floor:g}; lowest mean {lowest[0]:.2f} ({lowest[2]}, A = {lowest[1]:g} %)",
                transform=ax.transAxes,
                ha="right",
                va="bottom",
                fontsize=7,
                color="dimgrey",
            )
    ax.set_xlabel("sampled instances A (%)")
    ax.set_ylabel(f"ρ(A%) ({METRIC_LABELS.get(metric, metric)})")
    ax.set_title(title, fontsize=10)
    ax.grid(alpha=0.3)
    handles, _ = ax.get_legend_handles_labels()
    band_key = Patch(facecolor="grey", alpha=0.25, label="shaded: ±1 sd over random draws")
    ax.legend(handles=[*handles, band_key], fontsize=8)
    return fig


def _write_matrix_figures(
    result: DimensionRedundancy | BenchmarkRedundancy,
    labels: Sequence[str],
    name: str,
    kind: str,
    symbol: str,
    out_dir: Path,
    prefix: str,
    data: str = "the panel given",
) -> list[Path]:
    """Heatmap and bar plot of :math:`\\rho` per metric of a dimension or cross-benchmark analysis."""
    paths: list[Path] = []
    who = result.selection.label
    for m in result.metrics:
        label = METRIC_LABELS.get(m, m)
        fig = heatmap_figure(result.matrix[m], labels, f"{name}: {label} {kind} redundancy ({who})", label)
        paths += save_figure(
            fig, out_dir / f"{prefix}_heatmap_{m}", caption=heatmap_caption(m, kind, data), data=data
        )
        fig = bar_figure(
            result.redundancy[m], labels, f"{name}: {symbol}, {label} ({who})", f"{symbol} ({label})"
        )
        paths += save_figure(
            fig, out_dir / f"{prefix}_bars_{m}", caption=bars_caption(m, kind, data), data=data
        )
    return paths


def write_dimension_figures(
    result: DimensionRedundancy, out_dir: Path, prefix: str = "dimensions", data: str = "the panel given"
) -> list[Path]:
    """Heatmap and bar plot per metric of a dimension analysis (Figs. 3-4) into ``out_dir``; ``data``
    names the input on the figures and in their captions."""
    name = result.benchmark or "panel"
    return _write_matrix_figures(
        result, result.dimensions, name, "dimension", "ρ(X_i)", out_dir, prefix, data
    )


def write_benchmark_figures(
    result: BenchmarkRedundancy, out_dir: Path, prefix: str = "benchmarks", data: str = "the panel given"
) -> list[Path]:
    """Cross-benchmark heatmap and bar plot per metric (Fig. 8) into ``out_dir``."""
    return _write_matrix_figures(
        result, result.benchmarks, "Cross-benchmark", "benchmark", "ρ(Y_i)", out_dir, prefix, data
    )


def write_instance_figures(
    results: Mapping[str, InstanceRedundancy],
    out_dir: Path,
    prefix: str = "instances",
    name: str | None = None,
    data: str = "the panel given",
) -> list[Path]:
    """One :math:`\\rho(A\\%)` curve figure per metric (Figs. 5-6), all model groups overlaid.

    ``name`` titles the figures (default: the analysed benchmark, else ``"panel"``).
    """
    paths: list[Path] = []
    metrics: list[str] = []
    for res in results.values():
        metrics += [m for m in res.metrics if m not in metrics]
    first = next(iter(results.values()), None)
    name = name or (first.benchmark if first is not None else None) or "panel"
    for m in metrics:
        fig = curves_figure(results, m, f"{name}: instance redundancy, {METRIC_LABELS.get(m, m)}")
        caption = curves_caption(m, list(results), data)
        paths += save_figure(fig, out_dir / f"{prefix}_curve_{m}", caption=caption, data=data)
    return paths


def _cut_floor(ax: Axes, floor: float, top: float, lowest: tuple[float, float, str] | None) -> None:
    """Cut the y-axis at ``floor`` when a curve goes below it, naming the lowest mean left out."""
    ymin, _ = ax.get_ylim()
    if ymin >= floor:
        return
    top = max(top, floor + 0.1)
    ax.set_ylim(floor, top + 0.05 * (top - floor))
    if lowest is not None and lowest[0] < floor:
        ax.text(
            0.98,
            0.02,
            f"cut at {floor:g}; lowest mean {lowest[0]:.2f} ({lowest[2]}, A = {lowest[1]:g} %)",
            transform=ax.transAxes,
            ha="right",
            va="bottom",
            fontsize=7,
            color="dimgrey",
        )


def each_benchmark_figure(
    result: InstanceRedundancyByBenchmark, metric: str, title: str, floor: float = CURVE_FLOOR
) -> Figure:
    """Benchmark-specific :math:`\\rho(A\\%)` curves (Fig. 6) and their average (Fig. 5) for one metric.

    Thin lines: each benchmark's mean curve (its own top/bottom-K models); thick black line with a band: the
    average over the benchmarks whose curve is defined, +-1 sd across those benchmarks. The saturation
    threshold is dashed; the y-axis is cut at ``floor`` as in :func:`curves_figure`.
    """
    fig = new_figure(7.5, 4.2)
    ax = fig.add_subplot()
    x = result.ratios * 100.0
    lowest: tuple[float, float, str] | None = None
    highest = float(result.threshold)
    for b in result.benchmarks:
        mu = result.per_benchmark[b].mean[metric]
        if not np.isfinite(mu).any():
            continue
        ax.plot(x, mu, linewidth=1.0, alpha=0.75, marker="o", markersize=2, label=_short(b))
        highest = max(highest, float(np.nanmax(mu)))
        i = int(np.nanargmin(mu))
        if lowest is None or mu[i] < lowest[0]:
            lowest = (float(mu[i]), float(x[i]), b)
    avg, sd = result.mean[metric], result.sd[metric]
    n_avg = len(result.included[metric])
    if np.isfinite(avg).any():
        ax.plot(x, avg, color="black", linewidth=2.4, marker="o", markersize=3, label=f"average ({n_avg})")
        band = np.where(np.isfinite(sd), sd, 0.0)
        ax.fill_between(x, avg - band, avg + band, color="black", alpha=0.12, linewidth=0)
        highest = max(highest, float(np.nanmax(avg + band)))
    ax.axhline(
        result.threshold,
        color="grey",
        linestyle="--",
        linewidth=0.8,
        label=f"saturation threshold {result.threshold:g}",
    )
    _cut_floor(ax, floor, highest, lowest)
    ax.set_xlabel("sampled instances A (%)")
    ax.set_ylabel(f"ρ(A%) ({METRIC_LABELS.get(metric, metric)})")
    ax.set_title(title, fontsize=10)
    ax.grid(alpha=0.3)
    handles, _ = ax.get_legend_handles_labels()
    band_key = Patch(facecolor="black", alpha=0.12, label="shaded: ±1 sd across benchmarks")
    ax.legend(
        handles=[*handles, band_key],
        fontsize=7,
        loc="upper left",
        bbox_to_anchor=(1.01, 1.0),
        ncol=1 if len(result.benchmarks) <= 14 else 2,
    )
    return fig


def write_each_benchmark_figures(
    results: Mapping[str, InstanceRedundancyByBenchmark],
    out_dir: Path,
    prefix: str = "instances_each",
    data: str = "the panel given",
) -> list[Path]:
    """One figure per model group and metric: benchmark-specific curves and their average (Figs. 5-6).

    ``results`` maps a model-group label (``"all"``, ``"top-50"``, ...) to a result; files are
    ``<prefix>_curve_<metric>`` for a single group, ``<prefix>_<label>_curve_<metric>`` for several.
    """
    paths: list[Path] = []
    for label, res in results.items():
        stem = prefix if len(results) == 1 else f"{prefix}_{label}"
        for m in res.metrics:
            title = (
                f"instance redundancy per benchmark and average, {METRIC_LABELS.get(m, m)} "
                f"({'all models' if res.selection == 'all' else res.selection + ' models per benchmark'})"
            )
            caption = (
                f"Thin lines: each benchmark's mean ρ(A%) curve (redundancy paper Eq. 3, Fig. 6); thick "
                f"black line: their average (Fig. 5), shaded ±1 sd across benchmarks; dashed grey: "
                f"saturation threshold {res.threshold:g}. Data: {data}."
            )
            paths += save_figure(
                each_benchmark_figure(res, m, title),
                out_dir / f"{stem}_curve_{m}",
                caption=caption,
                data=data,
            )
    return paths
