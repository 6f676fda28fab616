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

from collections.abc import Callable
from pathlib import Path
from typing import Any

import typer

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
from benchsift.errors import InputError
from benchsift.panel import Panel
from benchsift.redundancy import (
    DEFAULT_RATIOS,
    benchmark_redundancy,
    compare_instance_redundancy,
    dimension_redundancy,
    instance_redundancy,
    instance_redundancy_by_benchmark,
    undefined_values,
)
from benchsift.report.outputs import write_analysis_dir
from benchsift.report.progress import progress_bar
from benchsift.report.redundancy_figures import (
    write_benchmark_figures,
    write_dimension_figures,
    write_each_benchmark_figures,
    write_instance_figures,
)
from benchsift.report.tables.redundancy import (
    render_benchmarks,
    render_dimension_pairs,
    render_dimensions,
    render_each_benchmark,
    render_instances,
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
        write_analysis_dir(out, name, result, figures)
    if json_output:
        print_json(result)
    return json_output


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
    console.print(render_dimensions(res, benchmark or panel.name))
    console.print(render_dimension_pairs(res))
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
    if each_benchmark and benchmark is not None:
        raise InputError(
            "give either --each-benchmark (every benchmark on its own, averaged) or --benchmark NAME (one"
            " benchmark), not both; use --benchmarks a,b to choose the benchmarks of --each-benchmark"
        )
    if benchmarks is not None and not each_benchmark:
        raise InputError("--benchmarks needs --each-benchmark (for one benchmark use --benchmark NAME)")
    data = Panel.load(panel)
    n_jobs = sweep_workers(ctx, backend, address, n_jobs)
    common: dict[str, Any] = dict(
        ratios=_ratios(ratios),
        repeats=repeats,
        metrics=metric,
        threshold=threshold,
        random_state=seed,
        condition=_condition(condition),
        progress=progress_bar("instance redundancy", not json_output),
        n_jobs=n_jobs,
    )
    res: Any
    if compare_k is not None:
        res = compare_instance_redundancy(
            data,
            compare_k,
            each_benchmark=each_benchmark,
            benchmark=benchmark,
            benchmarks=split_list(benchmarks),
            **common,
        )
        results, undefined = res.results, res.undefined
    elif each_benchmark:
        res = instance_redundancy_by_benchmark(
            data, benchmarks=split_list(benchmarks), top_k=top_k, bottom_k=bottom_k, **common
        )
        results, undefined = {res.selection: res}, undefined_values(res)
    else:
        res = instance_redundancy(data, benchmark=benchmark, top_k=top_k, bottom_k=bottom_k, **common)
        results, undefined = {res.selection.label: res}, undefined_values(res)
    if each_benchmark:
        name, figures = "instances_each", lambda d: write_each_benchmark_figures(results, d, data=panel.name)
    else:
        name = "instances"
        figures = lambda d: write_instance_figures(results, d, name=benchmark or panel.stem, data=panel.name)  # noqa: E731
    if _emit(res.to_dict(), out, name, figures, json_output):
        return
    for r in results.values():
        console.print(
            render_each_benchmark(r) if each_benchmark else render_instances(r, benchmark or panel.name)
        )
    _finish(undefined, res.notes, out)


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
    console.print(render_benchmarks(res))
    _finish(res.undefined, res.notes, out)
