"""``benchsift info PANEL``: sizes, coverage and per-benchmark means of a panel (or a long table); per-model
coverage; with ``--models FILE``, which rows of a models side file match no model of the panel."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

from benchsift.cli._common import JsonOpt, PanelArg, emit, opt
from benchsift.report.panel_summary import summary_table
from benchsift.report.tables.panel import render_model_coverage
from benchsift.workflows.panels import panel_info


def info_command(
    panel: PanelArg,
    models: Annotated[
        Path | None, opt("A models side file (model, family, ...): report rows that match no model.")
    ] = None,
    json_output: JsonOpt = False,
) -> None:
    """Describe a panel: models, items, benchmarks, mean score and coverage, per benchmark and per model."""
    run = panel_info(panel, models)
    summary = run.value
    emit(
        json_output,
        run,
        lambda: [summary_table(summary, title=str(panel)), render_model_coverage(summary["models"])],
        warnings=run.warnings,
    )
