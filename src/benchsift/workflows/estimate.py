"""``benchsift estimate`` and ``benchsift adaptive simulate`` with their ``--out`` folders."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from benchsift.workflows.result import WorkflowResult

if TYPE_CHECKING:
    from benchsift.adaptive import AdaptiveSimulation
    from benchsift.compression.estimate import EstimateResult
    from benchsift.panel import Panel

__all__ = ["estimate_scores", "simulate_adaptive_replay"]


def estimate_scores(
    suite: Any, new_scores: Any, *, out: Path | None = None, **options: Any
) -> WorkflowResult[EstimateResult]:
    """:func:`~benchsift.compression.estimate.estimate_new_models` of ``new_scores`` on ``suite``
    (``options`` passed on), then the ``out`` folder: ``estimate.json``, ``estimate.csv``, the full-score
    table ``full_scores.csv`` when the suite has a full-score model, and ``index.html``."""
    from benchsift.compression.estimate import estimate_new_models
    from benchsift.workflows.outputs import write_command_dir

    res = estimate_new_models(suite, new_scores, **options)
    files = []
    if out is not None:
        frames = {"estimate": res.to_frame()}
        if res.full is not None:
            frames["full_scores"] = res.full_table()
        files.append(write_command_dir(out, "estimate", res.to_dict(), frames))
    return WorkflowResult(res, res.to_dict(), files, list(res.notes), list(res.warnings))


def simulate_adaptive_replay(
    panel: Panel, *, out: Path | None = None, **options: Any
) -> WorkflowResult[AdaptiveSimulation]:
    """:func:`~benchsift.adaptive.simulate_adaptive` on ``panel`` (``options`` passed on), then the ``out``
    folder: ``adaptive.json``, ``results.csv`` and ``index.html``."""
    from benchsift.adaptive import simulate_adaptive
    from benchsift.workflows.outputs import write_command_dir

    res = simulate_adaptive(panel, **options)
    files = []
    if out is not None:
        frames = {"results": res.to_frame()}
        files.append(write_command_dir(out, "adaptive", res.to_dict(), frames, index=True))
    return WorkflowResult(res, res.to_dict(), files, list(res.notes), [])
