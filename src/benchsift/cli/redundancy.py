"""``benchsift redundancy dimensions|instances|benchmarks PANEL``: the redundancy paper's three analyses.

Each command prints rich tables, or with ``--json`` one JSON object on stdout (shapes in
:meth:`DimensionRedundancy.to_dict`, :meth:`InstanceRedundancy.to_dict`, :meth:`BenchmarkRedundancy.to_dict`).
``--out DIR`` also writes the JSON result and the figures (PNG and SVG) into DIR. ``instances --compare-k K``
runs all models, the top-K and the bottom-K and prints ``{"all": ..., "top-K": ..., "bottom-K": ...}`` (each
the shape above) with one overlaid curve figure per metric, as the paper's Figs. 5-6. ``instances
--each-benchmark`` analyses every benchmark (or ``--benchmarks a,b``) on its own, top/bottom-K chosen per
benchmark, and averages the curves (Fig. 5; benchmark-specific curves: Fig. 6); shape in
:meth:`InstanceRedundancyByBenchmark.to_dict` (with ``--compare-k``: ``{label: that shape}``).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import typer
from rich.table import Table

from benchsift._fileio import atomic_dir
from benchsift.cli._common import (
    ADDRESS_OPT,
    BACKEND_OPT,
    FORCE,
    N_JOBS_OPT,
    console,
    err_console,
    outputs,
    print_json,
    split_list,
    sweep_workers,
)
from benchsift.cli._progress import progress_bar
from benchsift.errors import InputError
from benchsift.panel import Panel
from benchsift.redundancy import (
    DEFAULT_RATIOS,
    METRIC_LABELS,
    InstanceRedundancy,
    InstanceRedundancyByBenchmark,
    benchmark_redundancy,
    dimension_redundancy,
    instance_redundancy,
    instance_redundancy_by_benchmark,
)
from benchsift.report.html import write_report
from benchsift.report.redundancy_figures import (
    write_benchmark_figures,
    write_dimension_figures,
    write_each_benchmark_figures,
    write_instance_figures,
)

app = typer.Typer(
    help="Redundancy analysis: dimensions (Eq. 1-2), instances (Eq. 3), benchmarks (Eq. 4).",
    no_args_is_help=True,
)

PANEL_ARG = typer.Argument(..., help="A panel file (parquet) written by `benchsift import` or `simulate`.")
METRIC_OPT = typer.Option(
    "srcc,plcc,r2,kendall", "--metric", help="Comma-separated: srcc, plcc, r2, kendall."
)
TOP_OPT = typer.Option(None, "--top-k", help="Only the K models with the highest overall score.")
BOTTOM_OPT = typer.Option(None, "--bottom-k", help="Only the K models with the lowest overall score.")
JSON_OPT = typer.Option(False, "--json", help="Print one JSON object instead of tables.")
BENCHMARK_OPT = typer.Option(
    None, "--benchmark", help="Benchmark to analyse (default: all items, pooled; noted)."
)
CONDITION_OPT = typer.Option(
    "image", "--condition", help="Model runs analysed: image (default), text-only, or all."
)
OUT_OPT = typer.Option(None, "--out", help="Also write <command>.json and PNG + SVG figures here.")


def _fmt(v: Any, digits: int = 3) -> str:
    if v is None:
        return "n/a"
    f = float(v)
    return "n/a" if not np.isfinite(f) else f"{f:.{digits}f}"


def _emit(
    result: dict[str, Any],
    out: Path | None,
    name: str,
    figures: Callable[[Path], object],
    json_output: bool,
) -> bool:
    """Write ``out/<name>.json`` and the figures (with ``--out``), print the JSON (with ``--json``).

    Returns whether the JSON was printed (then the command prints nothing else on stdout).
    """
    if out is not None:
        with atomic_dir(out, prune=False) as tmp:
            (tmp / f"{name}.json").write_text(json.dumps(result, indent=2))
            figures(tmp)
        write_report(out)
    if json_output:
        print_json(result)
    return json_output


def _lowest(labels: list[str], values: np.ndarray) -> str:
    """Label of the smallest defined value (Appendix C: the most specialised benchmark), or ``n/a``."""
    return labels[int(np.nanargmin(values))] if np.isfinite(values).any() else "n/a"


def _finish(undefined: list[str], notes: list[str], out: Path | None) -> None:
    """Notes and undefined values on stderr, then where the files went (table mode only)."""
    for n in notes:
        err_console.print(f"[dim]note: {n}[/]")
    for n in undefined:
        err_console.print(f"[yellow]undefined: {n}[/]")
    if out is not None:
        console.print(f"results and figures written to {out}/")


def _condition(value: str) -> str | None:
    """``--condition``: ``image`` / ``text-only`` as given, ``all`` -> ``None`` (every run kept)."""
    if value not in ("image", "text-only", "all"):
        raise InputError(f"--condition must be image, text-only or all, got {value!r}")
    return None if value == "all" else value


def _ratios(value: str | None) -> list[float]:
    if value is None:
        return list(DEFAULT_RATIOS)
    out: list[float] = []
    for part in split_list(value) or []:
        try:
            out.append(float(part.rstrip("%")) / (100.0 if part.endswith("%") else 1.0))
        except ValueError:
            raise InputError(f"--ratios: {part!r} is not a number (use fractions like 0.05,0.5)") from None
    return out


@app.command("dimensions")
def dimensions_command(
    panel: Path = PANEL_ARG,
    benchmark: str | None = BENCHMARK_OPT,
    dimension_column: str = typer.Option(
        "category", "--dimension-column", help="Item column of the dimensions."
    ),
    metric: str = METRIC_OPT,
    top_k: int | None = TOP_OPT,
    bottom_k: int | None = BOTTOM_OPT,
    condition: str = CONDITION_OPT,
    json_output: bool = JSON_OPT,
    out: Path | None = OUT_OPT,
    force: bool = FORCE,
) -> None:
    """Dimension redundancy (Eq. 1-2): correlation heatmap, rho(X_i) and internal redundancy rho_BI."""
    outputs(force, dirs=[out])
    res = dimension_redundancy(
        Panel.load(panel),
        benchmark=benchmark,
        column=dimension_column,
        metrics=metric,
        top_k=top_k,
        bottom_k=bottom_k,
        condition=_condition(condition),
    )
    if _emit(
        res.to_dict(),
        out,
        "dimensions",
        lambda folder: write_dimension_figures(res, folder, data=panel.name),
        json_output,
    ):
        return
    table = Table(
        title=f"dimension redundancy ρ(X_i) of {benchmark or panel.name} ({res.selection.label}, "
        f"{res.n_models} models)"
    )
    table.add_column("dimension")
    table.add_column("items", justify="right")
    for m in res.metrics:
        table.add_column(METRIC_LABELS[m], justify="right")
    for i, d in enumerate(res.dimensions):
        table.add_row(d, str(int(res.n_items[i])), *[_fmt(res.redundancy[m][i]) for m in res.metrics])
    table.add_section()
    table.add_row("ρ_BI (internal)", "", *[_fmt(res.internal_redundancy[m]) for m in res.metrics])
    console.print(table)
    first = res.metrics[0]
    pairs = res.pairs(first).head(5)
    ptable = Table(title=f"most redundant dimension pairs ({METRIC_LABELS[first]})")
    ptable.add_column("dimension a")
    ptable.add_column("dimension b")
    ptable.add_column(METRIC_LABELS[first], justify="right")
    for row in pairs.itertuples(index=False):
        ptable.add_row(str(row[0]), str(row[1]), _fmt(row[2]))
    console.print(ptable)
    _finish(res.undefined, res.notes, out)


@app.command("instances")
def instances_command(
    ctx: typer.Context,
    panel: Path = PANEL_ARG,
    benchmark: str | None = BENCHMARK_OPT,
    metric: str = METRIC_OPT,
    top_k: int | None = TOP_OPT,
    bottom_k: int | None = BOTTOM_OPT,
    compare_k: int | None = typer.Option(
        None,
        "--compare-k",
        help="Run all models, the top-K and the bottom-K (as the paper's Figs. 5-6) and overlay the curves;"
        " --json then prints {label: result}.",
    ),
    ratios: str | None = typer.Option(
        None,
        "--ratios",
        help="Comma-separated sampling ratios in (0, 1] (default 0.01,0.02,0.05,0.1,...,0.9).",
    ),
    repeats: int = typer.Option(100, "--repeats", help="T: samples per ratio."),
    seed: int = typer.Option(0, "--seed", help="Seed of the item sampling."),
    threshold: float = typer.Option(
        0.95, "--threshold", help="Saturation threshold on the mean correlation."
    ),
    condition: str = CONDITION_OPT,
    each_benchmark: bool = typer.Option(
        False,
        "--each-benchmark",
        help="Analyse each benchmark on its own (top/bottom-K per benchmark) and average the curves"
        " (the paper's Figs. 5-6); not with --benchmark.",
    ),
    benchmarks: str | None = typer.Option(
        None, "--benchmarks", help="With --each-benchmark: comma-separated benchmarks (default: all)."
    ),
    json_output: bool = JSON_OPT,
    out: Path | None = OUT_OPT,
    force: bool = FORCE,
    n_jobs: int | None = N_JOBS_OPT,
    backend: str | None = BACKEND_OPT,
    address: str | None = ADDRESS_OPT,
) -> None:
    """Instance redundancy (Eq. 3): rho(A%) per sampling ratio (mean and sd over T repeats), saturation."""
    outputs(force, dirs=[out])
    if compare_k is not None and (top_k is not None or bottom_k is not None):
        raise InputError("give either --compare-k or --top-k / --bottom-k, not both")
    groups: list[tuple[int | None, int | None]] = [(top_k, bottom_k)]
    if compare_k is not None:
        groups = [(None, None), (compare_k, None), (None, compare_k)]
    if each_benchmark and benchmark is not None:
        raise InputError(
            "give either --each-benchmark (every benchmark on its own, averaged) or --benchmark NAME (one"
            " benchmark), not both; use --benchmarks a,b to choose the benchmarks of --each-benchmark"
        )
    if benchmarks is not None and not each_benchmark:
        raise InputError("--benchmarks needs --each-benchmark (for one benchmark use --benchmark NAME)")
    data = Panel.load(panel)
    n_jobs = sweep_workers(ctx, backend, address, n_jobs)
    if each_benchmark:
        _each_benchmark(
            data,
            groups,
            compare=compare_k is not None,
            benchmarks=split_list(benchmarks),
            ratios=_ratios(ratios),
            repeats=repeats,
            metric=metric,
            threshold=threshold,
            seed=seed,
            condition=_condition(condition),
            json_output=json_output,
            out=out,
            source=panel.name,
            n_jobs=n_jobs,
        )
        return
    results = {}
    for top, bottom in groups:
        res = instance_redundancy(
            data,
            benchmark=benchmark,
            ratios=_ratios(ratios),
            repeats=repeats,
            metrics=metric,
            threshold=threshold,
            top_k=top,
            bottom_k=bottom,
            random_state=seed,
            condition=_condition(condition),
            progress=progress_bar("instance redundancy", not json_output),
            n_jobs=n_jobs,
        )
        results[res.selection.label] = res
    first = next(iter(results.values()))
    result = first.to_dict() if compare_k is None else {k: r.to_dict() for k, r in results.items()}
    if _emit(
        result,
        out,
        "instances",
        lambda folder: write_instance_figures(results, folder, name=benchmark or panel.stem, data=panel.name),
        json_output,
    ):
        return
    for res in results.values():
        console.print(_instances_table(res, benchmark or panel.name))
    undefined = [f"{label}: {u}" if compare_k else u for label, r in results.items() for u in r.undefined]
    _finish(undefined, first.notes, out)


def _instances_table(res: InstanceRedundancy, name: str) -> Table:
    """Rich table of one rho(A%) curve: mean ± sd per ratio and metric, then the saturation ratios."""
    table = Table(
        title=f"instance redundancy ρ(A%) of {name} ({res.selection.label}: "
        f"{res.n_models} models, {res.n_items} items, T={res.repeats})"
    )
    table.add_column("A (%)", justify="right")
    table.add_column("items", justify="right")
    for m in res.metrics:
        table.add_column(f"{METRIC_LABELS[m]} mean ± sd", justify="right")
    for r, ratio in enumerate(res.ratios):
        cells = [f"{_fmt(res.mean[m][r])} ± {_fmt(res.sd[m][r])}" for m in res.metrics]
        table.add_row(f"{100 * ratio:g}", str(int(res.sample_sizes[r])), *cells)
    table.add_section()
    sat = [
        "not reached" if res.saturation[m] is None else f"{100 * float(res.saturation[m] or 0):g} %"
        for m in res.metrics
    ]
    table.add_row(f"saturation ≥ {res.threshold:g}", "", *sat)
    return table


def _each_benchmark(
    data: Panel,
    groups: list[tuple[int | None, int | None]],
    *,
    compare: bool,
    benchmarks: list[str] | None,
    ratios: list[float],
    repeats: int,
    metric: str,
    threshold: float,
    seed: int,
    condition: str | None,
    json_output: bool,
    out: Path | None,
    source: str = "the panel given",
    n_jobs: int | None = None,
) -> None:
    """``instances --each-benchmark``: per-benchmark curves and their average (Figs. 5-6), per model group."""
    results: dict[str, InstanceRedundancyByBenchmark] = {}
    for top, bottom in groups:
        res = instance_redundancy_by_benchmark(
            data,
            benchmarks=benchmarks,
            ratios=ratios,
            repeats=repeats,
            metrics=metric,
            threshold=threshold,
            top_k=top,
            bottom_k=bottom,
            random_state=seed,
            condition=condition,
            progress=progress_bar("instance redundancy", not json_output),
            n_jobs=n_jobs,
        )
        results[res.selection] = res
    first = next(iter(results.values()))
    result = first.to_dict() if not compare else {k: r.to_dict() for k, r in results.items()}
    if _emit(
        result,
        out,
        "instances_each",
        lambda folder: write_each_benchmark_figures(results, folder, data=source),
        json_output,
    ):
        return
    for res in results.values():
        console.print(_each_benchmark_table(res))
    undefined = [
        f"{label}: {u}" if compare else u
        for label, r in results.items()
        for u in r.undefined + [f"{b}: {x}" for b in r.benchmarks for x in r.per_benchmark[b].undefined]
    ]
    _finish(undefined, first.notes, out)


def _sat(value: float | None) -> str:
    return "not reached" if value is None else f"{100 * float(value):g} %"


def _each_benchmark_table(res: InstanceRedundancyByBenchmark) -> Table:
    """One row per benchmark (models, items, saturation ratio per metric), then the averaged curve's row."""
    table = Table(
        title=f"instance redundancy per benchmark: saturation ratio (ρ(A%) ≥ {res.threshold:g}; "
        f"{res.selection} per benchmark, T={res.repeats})"
    )
    table.add_column("benchmark")
    table.add_column("models", justify="right")
    table.add_column("items", justify="right")
    for m in res.metrics:
        table.add_column(METRIC_LABELS[m], justify="right")
    for b in res.benchmarks:
        r = res.per_benchmark[b]
        sat = [_sat(r.saturation[m]) if b in res.included[m] else "undefined" for m in res.metrics]
        table.add_row(b, str(r.n_models), str(r.n_items), *sat)
    table.add_section()
    counts = {len(res.included[m]) for m in res.metrics}
    n = str(counts.pop()) if len(counts) == 1 else "/".join(str(len(res.included[m])) for m in res.metrics)
    table.add_row(f"average ({n} benchmarks)", "", "", *[_sat(res.saturation[m]) for m in res.metrics])
    return table


@app.command("benchmarks")
def benchmarks_command(
    panel: Path = PANEL_ARG,
    benchmarks: str | None = typer.Option(
        None, "--benchmarks", help="Comma-separated benchmarks (default: all)."
    ),
    domain: str | None = typer.Option(
        None,
        "--domain",
        help="Only items of this category: on an aggregate panel the benchmarks of that domain; on an"
        " item-level panel each benchmark scored on its items of that category.",
    ),
    level: str = typer.Option(
        "auto",
        "--level",
        help="benchmark (item-level panel), item (aggregate panel: a column per benchmark), auto.",
    ),
    metric: str = METRIC_OPT,
    top_k: int | None = TOP_OPT,
    bottom_k: int | None = BOTTOM_OPT,
    condition: str = CONDITION_OPT,
    json_output: bool = JSON_OPT,
    out: Path | None = OUT_OPT,
    force: bool = FORCE,
) -> None:
    """Cross-benchmark redundancy (Eq. 4): rho(Y_i) per benchmark and the anchor benchmark (Appendix C)."""
    outputs(force, dirs=[out])
    if level not in ("auto", "benchmark", "item"):
        raise InputError(f"--level must be auto, benchmark or item, got {level!r}")
    res = benchmark_redundancy(
        Panel.load(panel),
        benchmarks=split_list(benchmarks),
        category=domain,
        metrics=metric,
        top_k=top_k,
        bottom_k=bottom_k,
        level=level,  # type: ignore[arg-type]
        condition=_condition(condition),
    )
    if _emit(
        res.to_dict(),
        out,
        "benchmarks",
        lambda folder: write_benchmark_figures(res, folder, data=panel.name),
        json_output,
    ):
        return
    table = Table(title=f"cross-benchmark redundancy ρ(Y_i) ({res.selection.label}, {res.n_models} models)")
    table.add_column("benchmark")
    for m in res.metrics:
        table.add_column(METRIC_LABELS[m], justify="right")
    for i, b in enumerate(res.benchmarks):
        table.add_row(b, *[_fmt(res.redundancy[m][i]) for m in res.metrics])
    table.add_section()
    table.add_row("anchor (highest ρ)", *[res.anchor[m] or "n/a" for m in res.metrics])
    table.add_row(
        "most distinct (lowest ρ)", *[_lowest(res.benchmarks, res.redundancy[m]) for m in res.metrics]
    )
    console.print(table)
    _finish(res.undefined, res.notes, out)
