"""``benchsift redundancy dimensions|instances|benchmarks PANEL``: the redundancy paper's three analyses.

Each command prints rich tables, or with ``--json`` one JSON object on stdout (shapes in
:meth:`DimensionRedundancy.to_dict`, :meth:`InstanceRedundancy.to_dict`, :meth:`BenchmarkRedundancy.to_dict`).
``--out DIR`` also writes the JSON result and the figures (PNG and SVG) into DIR.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import typer
from rich.table import Table

from benchsift._fileio import atomic_path
from benchsift.cli._common import console, err_console, print_json
from benchsift.errors import InputError
from benchsift.panel import Panel
from benchsift.redundancy import (
    DEFAULT_RATIOS,
    METRIC_LABELS,
    benchmark_redundancy,
    dimension_redundancy,
    instance_redundancy,
)
from benchsift.report.redundancy_figures import (
    write_benchmark_figures,
    write_dimension_figures,
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
OUT_OPT = typer.Option(None, "--out", help="Also write <command>.json and PNG + SVG figures here.")


def _fmt(v: Any, digits: int = 3) -> str:
    if v is None:
        return "n/a"
    f = float(v)
    return "n/a" if not np.isfinite(f) else f"{f:.{digits}f}"


def _write_json(result: dict[str, Any], out: Path, name: str) -> Path:
    out.mkdir(parents=True, exist_ok=True)
    target = out / name
    with atomic_path(target) as tmp:
        tmp.write_text(json.dumps(result, indent=2))
    return target


def _notes(undefined: list[str], notes: list[str]) -> None:
    for n in notes:
        err_console.print(f"[dim]note: {n}[/]")
    for n in undefined:
        err_console.print(f"[yellow]undefined: {n}[/]")


def _split(value: str | None) -> list[str] | None:
    if value is None:
        return None
    parts = [p.strip() for p in value.split(",") if p.strip()]
    if not parts:
        raise InputError(f"expected a comma-separated list, got {value!r}")
    return parts


def _ratios(value: str | None) -> list[float]:
    if value is None:
        return list(DEFAULT_RATIOS)
    out: list[float] = []
    for part in _split(value) or []:
        try:
            out.append(float(part.rstrip("%")) / (100.0 if part.endswith("%") else 1.0))
        except ValueError:
            raise InputError(f"--ratios: {part!r} is not a number (use fractions like 0.05,0.5)") from None
    return out


@app.command("dimensions")
def dimensions_command(
    panel: Path = PANEL_ARG,
    benchmark: str | None = typer.Option(
        None, "--benchmark", help="Benchmark to analyse (default: all items)."
    ),
    dimension_column: str = typer.Option(
        "category", "--dimension-column", help="Item column of the dimensions."
    ),
    metric: str = METRIC_OPT,
    top_k: int | None = TOP_OPT,
    bottom_k: int | None = BOTTOM_OPT,
    json_output: bool = JSON_OPT,
    out: Path | None = OUT_OPT,
) -> None:
    """Dimension redundancy (Eq. 1-2): correlation heatmap, rho(X_i) and internal redundancy rho_BI."""
    res = dimension_redundancy(
        Panel.load(panel),
        benchmark=benchmark,
        column=dimension_column,
        metrics=metric,
        top_k=top_k,
        bottom_k=bottom_k,
    )
    result = res.to_dict()
    if out is not None:
        _write_json(result, out, "dimensions.json")
        write_dimension_figures(res, out)
    if json_output:
        print_json(result)
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
    _notes(res.undefined, res.notes)
    if out is not None:
        console.print(f"results and figures written to {out}/")


@app.command("instances")
def instances_command(
    panel: Path = PANEL_ARG,
    benchmark: str | None = typer.Option(
        None, "--benchmark", help="Benchmark to analyse (default: all items)."
    ),
    metric: str = METRIC_OPT,
    top_k: int | None = TOP_OPT,
    bottom_k: int | None = BOTTOM_OPT,
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
    json_output: bool = JSON_OPT,
    out: Path | None = OUT_OPT,
) -> None:
    """Instance redundancy (Eq. 3): rho(A%) per sampling ratio (mean and sd over T repeats), saturation."""
    res = instance_redundancy(
        Panel.load(panel),
        benchmark=benchmark,
        ratios=_ratios(ratios),
        repeats=repeats,
        metrics=metric,
        threshold=threshold,
        top_k=top_k,
        bottom_k=bottom_k,
        random_state=seed,
        progress=not json_output,
    )
    result = res.to_dict()
    if out is not None:
        _write_json(result, out, "instances.json")
        write_instance_figures({res.selection.label: res}, out)
    if json_output:
        print_json(result)
        return
    table = Table(
        title=f"instance redundancy ρ(A%) of {benchmark or panel.name} ({res.selection.label}: "
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
    console.print(table)
    _notes(res.undefined, res.notes)
    if out is not None:
        console.print(f"results and figures written to {out}/")


@app.command("benchmarks")
def benchmarks_command(
    panel: Path = PANEL_ARG,
    benchmarks: str | None = typer.Option(
        None, "--benchmarks", help="Comma-separated benchmarks (default: all)."
    ),
    domain: str | None = typer.Option(None, "--domain", help="Only items of this category (a domain)."),
    level: str = typer.Option(
        "auto",
        "--level",
        help="benchmark (item-level panel), item (aggregate panel: a column per benchmark), auto.",
    ),
    metric: str = METRIC_OPT,
    top_k: int | None = TOP_OPT,
    bottom_k: int | None = BOTTOM_OPT,
    json_output: bool = JSON_OPT,
    out: Path | None = OUT_OPT,
) -> None:
    """Cross-benchmark redundancy (Eq. 4): rho(Y_i) per benchmark and the anchor benchmark (Appendix C)."""
    if level not in ("auto", "benchmark", "item"):
        raise InputError(f"--level must be auto, benchmark or item, got {level!r}")
    res = benchmark_redundancy(
        Panel.load(panel),
        benchmarks=_split(benchmarks),
        category=domain,
        metrics=metric,
        top_k=top_k,
        bottom_k=bottom_k,
        level=level,  # type: ignore[arg-type]
    )
    result = res.to_dict()
    if out is not None:
        _write_json(result, out, "benchmarks.json")
        write_benchmark_figures(res, out)
    if json_output:
        print_json(result)
        return
    table = Table(title=f"cross-benchmark redundancy ρ(Y_i) ({res.selection.label}, {res.n_models} models)")
    table.add_column("benchmark")
    for m in res.metrics:
        table.add_column(METRIC_LABELS[m], justify="right")
    for i, b in enumerate(res.benchmarks):
        table.add_row(b, *[_fmt(res.redundancy[m][i]) for m in res.metrics])
    table.add_section()
    table.add_row("anchor", *[res.anchor[m] or "n/a" for m in res.metrics])
    console.print(table)
    _notes(res.undefined, res.notes)
    if out is not None:
        console.print(f"results and figures written to {out}/")
