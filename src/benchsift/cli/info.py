"""``benchsift info PANEL``: sizes, coverage and per-benchmark means of a saved panel."""

from __future__ import annotations

from pathlib import Path

import typer

from benchsift.cli._common import console, print_json
from benchsift.panel import Panel
from benchsift.report.panel_summary import panel_summary, summary_table


def info_command(
    panel: Path = typer.Argument(..., help="A panel file written by `benchsift import` or `simulate`."),
    json_output: bool = typer.Option(False, "--json", help="Print one JSON object instead of tables."),
) -> None:
    """Describe a panel: models, items, benchmarks, mean score and coverage."""
    loaded = Panel.load(panel)
    summary = panel_summary(loaded)
    if json_output:
        print_json(summary)
        return
    console.print(summary_table(summary, title=str(panel)))
