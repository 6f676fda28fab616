"""Tables of ``benchsift redundancy dimensions|instances|benchmarks`` (the redundancy paper's Eqs. 1-4)."""

from __future__ import annotations

import numpy as np
from rich.table import Table

from benchsift.redundancy import (
    METRIC_LABELS,
    BenchmarkRedundancy,
    DimensionRedundancy,
    InstanceRedundancy,
    InstanceRedundancyByBenchmark,
)
from benchsift.report.console import DataTable
from benchsift.report.tables.format import fmt

__all__ = [
    "render_benchmarks",
    "render_dimension_pairs",
    "render_dimensions",
    "render_each_benchmark",
    "render_instances",
]


def render_dimensions(res: DimensionRedundancy, name: str) -> Table:
    """rho(X_i) per dimension and metric, then the internal redundancy rho_BI (Eqs. 1-2)."""
    table = DataTable(
        title=f"dimension redundancy ρ(X_i) of {name} ({res.selection.label}, {res.n_models} models)"
    )
    table.add_column("dimension")
    table.add_column("items", justify="right")
    for m in res.metrics:
        table.add_column(METRIC_LABELS[m], justify="right")
    for i, d in enumerate(res.dimensions):
        table.add_row(d, str(int(res.n_items[i])), *[fmt(res.redundancy[m][i]) for m in res.metrics])
    table.add_section()
    table.add_row("ρ_BI (internal)", "", *[fmt(res.internal_redundancy[m]) for m in res.metrics])
    return table


def render_dimension_pairs(res: DimensionRedundancy, n: int = 5) -> Table:
    """The ``n`` most correlated dimension pairs under the first metric."""
    first = res.metrics[0]
    table = DataTable(title=f"most redundant dimension pairs ({METRIC_LABELS[first]})")
    table.add_column("dimension a")
    table.add_column("dimension b")
    table.add_column(METRIC_LABELS[first], justify="right")
    for row in res.pairs(first).head(n).itertuples(index=False):
        table.add_row(str(row[0]), str(row[1]), fmt(row[2]))
    return table


def _sat(value: float | None) -> str:
    return "not reached" if value is None else f"{100 * float(value):g} %"


def render_instances(res: InstanceRedundancy, name: str) -> Table:
    """One rho(A%) curve (Eq. 3): mean ± sd per ratio and metric, then the saturation ratios."""
    table = DataTable(
        title=f"instance redundancy ρ(A%) of {name} ({res.selection.label}: "
        f"{res.n_models} models, {res.n_items} items, T={res.repeats})"
    )
    table.add_column("A (%)", justify="right")
    table.add_column("items", justify="right")
    for m in res.metrics:
        table.add_column(f"{METRIC_LABELS[m]} mean ± sd", justify="right")
    for r, ratio in enumerate(res.ratios):
        cells = [f"{fmt(res.mean[m][r])} ± {fmt(res.sd[m][r])}" for m in res.metrics]
        table.add_row(f"{100 * ratio:g}", str(int(res.sample_sizes[r])), *cells)
    table.add_section()
    table.add_row(f"saturation ≥ {res.threshold:g}", "", *[_sat(res.saturation[m]) for m in res.metrics])
    return table


def render_each_benchmark(res: InstanceRedundancyByBenchmark) -> Table:
    """One row per benchmark (models, items, saturation ratio per metric), then the averaged curve's row."""
    table = DataTable(
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


def _lowest(labels: list[str], values: np.ndarray) -> str:
    """Label of the smallest defined value (Appendix C: the most specialised benchmark), or ``n/a``."""
    return labels[int(np.nanargmin(values))] if np.isfinite(values).any() else "n/a"


def render_benchmarks(res: BenchmarkRedundancy) -> Table:
    """rho(Y_i) per benchmark (Eq. 4), the anchor (highest) and the most distinct (lowest) benchmark."""
    table = DataTable(
        title=f"cross-benchmark redundancy ρ(Y_i) ({res.selection.label}, {res.n_models} models)"
    )
    table.add_column("benchmark")
    for m in res.metrics:
        table.add_column(METRIC_LABELS[m], justify="right")
    for i, b in enumerate(res.benchmarks):
        table.add_row(b, *[fmt(res.redundancy[m][i]) for m in res.metrics])
    table.add_section()
    table.add_row("anchor (highest ρ)", *[res.anchor[m] or "n/a" for m in res.metrics])
    table.add_row(
        "most distinct (lowest ρ)", *[_lowest(res.benchmarks, res.redundancy[m]) for m in res.metrics]
    )
    return table
