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
from benchsift.report.panel_summary import describe_panel, summary_table
from benchsift.report.tables.panel import render_model_coverage


def info_command(
    panel: Path = typer.Argument(..., help="A panel file written by `benchsift import` or `simulate`."),
    models: Path | None = typer.Option(
        None, "--models", help="A models side file (model, family, ...): report rows that match no model."
    ),
    json_output: bool = typer.Option(False, "--json", help="Print one JSON object instead of tables."),
) -> None:
    """Describe a panel: models, items, benchmarks, mean score and coverage, per benchmark and per model."""
    try:
        loaded = Panel.load(panel)
        side = read_models_table(models) if models is not None else None
        summary = describe_panel(loaded, side, str(models))
    except BenchsiftError as exc:
        raise fail(str(exc)) from None
    if json_output:
        print_json(summary)
        return
    console.print(summary_table(summary, title=str(panel)))
    table = render_model_coverage(summary["models"])
    console.print(table)
    for w in summary["warnings"]:
        console.print(f"  [yellow]warning:[/yellow] {escape(w)}")
