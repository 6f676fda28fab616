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
from typing import Annotated, Any

import typer
from rich.text import Text

from benchsift._params import Options, check_param
from benchsift.cli._common import (
    AddressOpt,
    BackendOpt,
    ForceOpt,
    JsonOpt,
    NJobsOpt,
    PanelArg,
    emit,
    numbers,
    opt,
    outputs,
    split_list,
    sweep_workers,
)
from benchsift.io import read_scores
from benchsift.redundancy import analyse_instances, benchmark_redundancy, dimension_redundancy
from benchsift.redundancy.comparison import undefined_values
from benchsift.redundancy.instance_analysis import curves
from benchsift.redundancy.instances import DEFAULT_RATIOS
from benchsift.report import redundancy_figures as figs
from benchsift.report.progress import progress_bar
from benchsift.report.tables import redundancy as tables
from benchsift.workflows.redundancy import redundancy_outputs

app = typer.Typer(
    help="Redundancy analysis: dimensions (Eq. 1-2), instances (Eq. 3), benchmarks (Eq. 4).",
    no_args_is_help=True,
)

Metric = Annotated[str, opt("Comma-separated: srcc, plcc, r2, kendall.", "--metric")]
TopK = Annotated[int | None, opt("Only the K models with the highest overall score.", "--top-k")]
BottomK = Annotated[int | None, opt("Only the K models with the lowest overall score.", "--bottom-k")]
Benchmark = Annotated[
    str | None, opt("Benchmark to analyse (default: all items, pooled; noted).", "--benchmark")
]
Condition = Annotated[str, opt("Model runs analysed: image (default), text-only, or all.", "--condition")]
Out = Annotated[Path | None, opt("Also write <command>.json and PNG + SVG figures here.", "--out")]
METRICS = "srcc,plcc,r2,kendall"


def _show(
    res: Any,
    undefined: list[str],
    out: Path | None,
    name: str,
    figures: Callable[[Path], object],
    as_json: bool,
    *shown: Callable[[], Any],
) -> None:
    """Write ``out/<name>.json`` and the figures (with ``--out``), then print the JSON (``--json``), or the
    tables, the notes, the undefined values and where the files went (all on stdout, as :func:`emit`)."""
    run = redundancy_outputs(res, name, figures, out)
    after = [Text(f"undefined: {n}", style="yellow") for n in undefined]
    if out is not None:
        after.append(Text(f"results and figures written to {out}/"))
    emit(as_json, run, *shown, notes=run.notes, after=after)


def _condition(value: str) -> str | None:
    """``--condition``: ``image`` / ``text-only`` as given, ``all`` -> ``None`` (every run kept)."""
    check_param("--condition", value, [Options(("image", "text-only", "all"))], quote=False)
    return None if value == "all" else value


@app.command("dimensions")
def dimensions_command(
    panel: PanelArg,
    benchmark: Benchmark = None,
    dimension_column: Annotated[str, opt("Item column of the dimensions.")] = "category",
    metric: Metric = METRICS,
    top_k: TopK = None,
    bottom_k: BottomK = None,
    condition: Condition = "image",
    json_output: JsonOpt = False,
    out: Out = None,
    force: ForceOpt = False,
) -> None:
    """Dimension redundancy (Eq. 1-2): correlation heatmap, rho(X_i) and internal redundancy rho_BI."""
    outputs(force, dirs=[out])
    res = dimension_redundancy(
        read_scores(panel),
        benchmark=benchmark,
        column=dimension_column,
        metrics=metric,
        top_k=top_k,
        bottom_k=bottom_k,
        condition=_condition(condition),
    )
    figures = lambda d: figs.write_dimension_figures(res, d, data=panel.name)  # noqa: E731
    title = benchmark or panel.name
    shown = (lambda: tables.render_dimensions(res, title), lambda: tables.render_dimension_pairs(res))
    _show(res, res.undefined, out, "dimensions", figures, json_output, *shown)


@app.command("instances")
def instances_command(
    ctx: typer.Context,
    panel: PanelArg,
    benchmark: Benchmark = None,
    metric: Metric = METRICS,
    top_k: TopK = None,
    bottom_k: BottomK = None,
    compare_k: Annotated[
        int | None,
        opt(
            "Run all models, the top-K and the bottom-K (as the paper's Figs. 5-6) and overlay the curves;"
            " --json then prints {label: result}."
        ),
    ] = None,
    ratios: Annotated[
        str | None, opt("Comma-separated sampling ratios in (0, 1] (default 0.01,0.02,0.05,0.1,...,0.9).")
    ] = None,
    repeats: Annotated[int, opt("T: samples per ratio.")] = 100,
    seed: Annotated[int, opt("Seed of the item sampling.")] = 0,
    threshold: Annotated[float, opt("Saturation threshold on the mean correlation.")] = 0.95,
    condition: Condition = "image",
    each_benchmark: Annotated[
        bool,
        opt(
            "Analyse each benchmark on its own (top/bottom-K per benchmark) and average the curves"
            " (the paper's Figs. 5-6); not with --benchmark.",
            "--each-benchmark",
        ),
    ] = False,
    benchmarks: Annotated[
        str | None, opt("With --each-benchmark: comma-separated benchmarks (default: all).")
    ] = None,
    json_output: JsonOpt = False,
    out: Out = None,
    force: ForceOpt = False,
    n_jobs: NJobsOpt = None,
    backend: BackendOpt = None,
    address: AddressOpt = None,
) -> None:
    """Instance redundancy (Eq. 3): rho(A%) per sampling ratio (mean and sd over T repeats), saturation."""
    outputs(force, dirs=[out])
    res = analyse_instances(
        read_scores(panel),
        benchmark=benchmark,
        each_benchmark=each_benchmark,
        benchmarks=split_list(benchmarks),
        compare_k=compare_k,
        top_k=top_k,
        bottom_k=bottom_k,
        ratios=numbers(ratios, "--ratios", percent=True) if ratios is not None else DEFAULT_RATIOS,
        repeats=repeats,
        metrics=metric,
        threshold=threshold,
        random_state=seed,
        condition=_condition(condition),
        progress=progress_bar("instance redundancy", not json_output),
        n_jobs=sweep_workers(ctx, backend, address, n_jobs),
    )
    results: dict[str, Any] = curves(res)  # one kind of result: by_benchmark with --each-benchmark
    name = "instances_each" if each_benchmark else "instances"

    def figures(folder: Path) -> object:
        if each_benchmark:
            return figs.write_each_benchmark_figures(results, folder, data=panel.name)
        return figs.write_instance_figures(results, folder, name=benchmark or panel.stem, data=panel.name)

    title = benchmark or panel.name
    shown = [
        (lambda r=r: tables.render_each_benchmark(r) if each_benchmark else tables.render_instances(r, title))
        for r in results.values()
    ]
    _show(res, undefined_values(res), out, name, figures, json_output, *shown)


@app.command("benchmarks")
def benchmarks_command(
    panel: PanelArg,
    benchmarks: Annotated[str | None, opt("Comma-separated benchmarks (default: all).")] = None,
    domain: Annotated[
        str | None,
        opt(
            "Only items of this category: on an aggregate panel the benchmarks of that domain; on an"
            " item-level panel each benchmark scored on its items of that category."
        ),
    ] = None,
    level: Annotated[
        str,
        opt(
            "benchmark (benchmark means), item (each item column a benchmark's score), auto (benchmark;"
            " a one-benchmark panel is refused: pass item if its columns are benchmarks)."
        ),
    ] = "auto",
    metric: Metric = METRICS,
    top_k: TopK = None,
    bottom_k: BottomK = None,
    condition: Condition = "image",
    json_output: JsonOpt = False,
    out: Out = None,
    force: ForceOpt = False,
) -> None:
    """Cross-benchmark redundancy (Eq. 4): rho(Y_i) per benchmark and the anchor benchmark (Appendix C)."""
    outputs(force, dirs=[out])
    res = benchmark_redundancy(
        read_scores(panel),
        benchmarks=split_list(benchmarks),
        category=domain,
        metrics=metric,
        top_k=top_k,
        bottom_k=bottom_k,
        level=level,  # type: ignore[arg-type]
        condition=_condition(condition),
    )
    figures = lambda d: figs.write_benchmark_figures(res, d, data=panel.name)  # noqa: E731
    _show(res, res.undefined, out, "benchmarks", figures, json_output, lambda: tables.render_benchmarks(res))
