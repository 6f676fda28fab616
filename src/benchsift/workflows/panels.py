"""The panel-making and panel-reading commands: ``benchsift import FORMAT``, ``simulate`` and ``info``.

Each function reads or makes a panel, writes its files (``Panel.save``: atomic) and returns a
:class:`~benchsift.workflows.result.WorkflowResult` whose payload is the command's ``--json`` object.
"""

from __future__ import annotations

import os
import time
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from benchsift.workflows.result import WorkflowResult

if TYPE_CHECKING:
    from benchsift.io.importing import ImportResult
    from benchsift.io.rescale import ScaleMap
    from benchsift.panel import Panel
    from benchsift.simulate import SimulationConfig
    from benchsift.simulate.panel import SimulatedPanel

__all__ = ["import_panel", "panel_info", "simulate_to_files"]

PathLike = str | os.PathLike[str]


def import_panel(
    fmt: str,
    inputs: PathLike | Sequence[PathLike],
    output: Path,
    *,
    rescale: str = "auto",
    scales: ScaleMap | None = None,
    answers_out: Path | None = None,
    **options: Any,
) -> WorkflowResult[ImportResult]:
    """:func:`~benchsift.io.importing.import_files` (the arguments passed on: the panel file ``output``
    and, with ``answers_out``, the logged answers are written), summarised.

    The payload is ``{"output", "format", **panel_summary, "notes", "warnings"}``
    (:func:`~benchsift.report.panel_summary.panel_summary`; with the answers also ``answers_output`` and
    ``n_answers``); ``notes`` are the importer's notes that are not warnings."""
    from benchsift.io.importing import WARNING, import_files
    from benchsift.report.panel_summary import panel_summary

    res = import_files(
        fmt, inputs, output, rescale=rescale, scales=scales, answers_out=answers_out, **options
    )
    summary = panel_summary(res.panel)
    files = [output]
    if res.answers is not None:
        summary.update(answers_output=str(answers_out), n_answers=res.n_answers)
        files.append(Path(str(answers_out)))
    payload = {"output": str(output), "format": fmt, **summary, "notes": res.notes, "warnings": res.warnings}
    notes = [n for n in res.notes if not n.startswith(WARNING)]
    return WorkflowResult(res, payload, files, notes, list(res.warnings))


def simulate_to_files(
    config: SimulationConfig,
    output: Path,
    *,
    truth: Path | None = None,
    random_state: int = 0,
    preset: str = "custom",
) -> WorkflowResult[SimulatedPanel]:
    """:func:`~benchsift.simulate.simulate_panel` of ``config``; the panel saved to ``output`` and, with
    ``truth``, the ground truth to ``truth`` (.npz). The payload is ``{"panel", "truth", "preset", "seed",
    **summary, "seconds"}`` (``preset`` names the config there; ``seconds`` includes the writing)."""
    from benchsift.simulate import simulate_panel

    start = time.perf_counter()
    sim = simulate_panel(config, random_state=random_state)
    sim.panel.save(output)
    if truth is not None:
        sim.truth.save(truth)
    payload = {
        "panel": str(output),
        "truth": str(truth) if truth is not None else None,
        "preset": preset,
        "seed": random_state,
        **sim.summary(),
        "seconds": round(time.perf_counter() - start, 3),
    }
    return WorkflowResult(sim, payload, [output, *([truth] if truth is not None else [])], [], [])


def panel_info(panel: Panel | PathLike, models: PathLike | None = None) -> WorkflowResult[dict[str, Any]]:
    """What ``benchsift info`` prints (:func:`~benchsift.report.panel_summary.describe_panel`) for
    ``panel`` (a :class:`~benchsift.panel.Panel`, or a file :func:`~benchsift.io.read_scores` reads),
    with the models side file ``models`` matched against it (read first). The value and the payload are
    the summary; its warnings are the result's."""
    from benchsift.io import read_scores
    from benchsift.io.long import read_models_table
    from benchsift.panel import Panel
    from benchsift.report.panel_summary import describe_panel

    side = read_models_table(models) if models is not None else None
    data = panel if isinstance(panel, Panel) else read_scores(panel)
    summary = describe_panel(data, side, str(models))
    return WorkflowResult(summary, summary, [], [], list(summary["warnings"]))
