"""``benchsift info PANEL``: sizes, coverage and per-benchmark means of a saved panel; per-model coverage;
with ``--models FILE``, which rows of a models side file match no model of the panel."""

from __future__ import annotations

from pathlib import Path

import typer
from rich.markup import escape

from benchsift.cli._common import console, fail, print_json
from benchsift.errors import BenchsiftError
from benchsift.io.long import read_models_table
from benchsift.panel import Panel
from benchsift.report.panel_summary import match_models_table, model_coverage, panel_summary, summary_table
from benchsift.report.tables.panel import render_model_coverage


def info_command(
    panel: Path = typer.Argument(..., help="A panel file written by `benchsift import` or `simulate`."),
    models: Path | None = typer.Option(
        None, "--models", help="A models side file (model, family, ...): report rows that match no model."
    ),
    json_output: bool = typer.Option(False, "--json", help="Print one JSON object instead of tables."),
) -> None:
    """Describe a panel: models, items, benchmarks, mean score and coverage, per benchmark and per model."""
    warnings: list[str] = []
    try:
        loaded = Panel.load(panel)
        summary = panel_summary(loaded)
        summary["models"] = model_coverage(loaded)
        if models is not None:
            match = match_models_table(loaded, read_models_table(models))
            summary["models_file"] = {"path": str(models), **match}
            if match["unmatched_rows"]:
                names = [r["model"] for r in match["unmatched_rows"]]
                warnings.append(f"{models}: {len(names)} row(s) match no model of the panel: {names}")
    except BenchsiftError as exc:
        raise fail(str(exc)) from None
    for run in summary["models"]:
        if run["benchmarks_without_scores"]:
            where = run["benchmarks_without_scores"]
            warnings.append(f"model {run['model']!r} ({run['condition']}) has no score on {where}")
    if json_output:
        print_json({**summary, "warnings": warnings})
        return
    console.print(summary_table(summary, title=str(panel)))
    table = render_model_coverage(summary["models"])
    console.print(table)
    for w in warnings:
        console.print(f"  [yellow]warning:[/yellow] {escape(w)}")
