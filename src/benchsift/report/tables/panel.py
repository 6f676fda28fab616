"""Tables of ``benchsift info`` (per-model coverage), ``simulate`` (the panel made) and ``export``."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any

from rich.table import Table

from benchsift.report.console import DataTable

if TYPE_CHECKING:  # only for the annotation: `info` and `simulate` need not import compression
    from benchsift.compression.export import ExportResult

__all__ = ["render_export", "render_model_coverage", "render_simulation"]

#: the ``simulate`` summary entries shown, in order
SIMULATION_ROWS = (
    "n_models",
    "n_text_only_runs",
    "n_items",
    "n_benchmarks",
    "n_categories",
    "n_all_correct",
    "n_blind_solvable",
    "missing_fraction",
    "mean_score",
    "seconds",
)
#: the audit plants' rows, shown when planted
PLANT_ROWS = ("n_mislabelled", "n_contaminated", "n_contaminated_models")


def render_model_coverage(models: list[dict[str, Any]]) -> Table:
    """One row per model run: condition, items scored, coverage and mean score
    (:func:`benchsift.report.panel_summary.model_coverage`)."""
    table = DataTable(title="models")
    for col in ("model", "condition", "scored", "coverage", "mean score"):
        table.add_column(col, justify="left" if col in ("model", "condition") else "right")
    for run in models:
        cov = "n/a" if run["coverage"] is None else f"{run['coverage']:.4f}"
        mean = "n/a" if run["mean_score"] is None else f"{run['mean_score']:.4f}"
        table.add_row(run["model"], run["condition"], str(run["n_scored"]), cov, mean)
    return table


def render_simulation(
    summary: dict[str, Any], output: os.PathLike[str] | str, truth: os.PathLike[str] | str | None
) -> Table:
    """The simulated panel's sizes (:meth:`benchsift.simulate.SimulatedPanel.summary` plus ``seconds``)."""
    table = DataTable(title=f"simulated panel -> {output}")
    table.add_column("quantity")
    table.add_column("value", justify="right")
    for key in SIMULATION_ROWS:
        value = summary[key]
        table.add_row(key, f"{value:.3f}" if isinstance(value, float) else f"{value:,}")
    for key in PLANT_ROWS:
        if key in summary:
            table.add_row(key, f"{summary[key]:,}")
    central = summary["central_benchmark"]
    table.add_row("central benchmarks", ", ".join(f"{c}: {b}" for c, b in central.items()))
    if truth is not None:
        table.add_row("truth", str(truth))
    return table


def render_export(res: ExportResult, to: str) -> Table:
    """Per benchmark of an exported suite: the name the harness logs it under and the items."""
    table = DataTable(
        title=f"Exported for {to} to {res.out_dir}: {res.n_items} items, {len(res.files)} files"
    )
    for col in ("benchmark", "logged as", "items"):
        table.add_column(col)
    for bench, ids in res.items.items():
        table.add_row(bench, res.harness_names[bench], str(len(ids)))
    return table
