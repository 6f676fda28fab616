"""``benchsift diagnose leftout|checkpoints``: a PRIMEBench diagnostic and its Figure 4 panel."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from benchsift.workflows.result import WorkflowResult, with_warnings, wrote_figure

if TYPE_CHECKING:
    from benchsift.compression.diagnostics import CheckpointResult, LeftoutResult
    from benchsift.panel import Panel

__all__ = ["checkpoint_ranking", "leftout_prediction"]


def _done(res: Any, paths: list[Path] | None) -> WorkflowResult[Any]:
    warnings = [wrote_figure(paths)] if paths is not None else []
    return WorkflowResult(res, with_warnings(res.to_dict(), warnings), list(paths or []), [], warnings)


def leftout_prediction(
    panel: Panel, *, figure: Path | None = None, data: str = "panel", **options: Any
) -> WorkflowResult[LeftoutResult]:
    """:func:`~benchsift.compression.diagnostics.leftout_prediction` of ``panel`` (``options`` passed on),
    then Figure 4(a) to ``figure.png`` / ``figure.svg`` (``data`` names the input in its caption); the
    payload is the result's JSON with the figure's line among its warnings (PRIMEBench I.3, Table 22)."""
    from benchsift.compression import diagnostics as diag
    from benchsift.report.figures import save_figure
    from benchsift.report.validation_figures import leftout_figure

    res = diag.leftout_prediction(panel, **options)
    paths = save_figure(leftout_figure(res.table()), figure, data=data) if figure is not None else None
    return _done(res, paths)


def checkpoint_ranking(
    panel: Panel, variants: str, *, figure: Path | None = None, data: str = "panel", **options: Any
) -> WorkflowResult[CheckpointResult]:
    """:func:`~benchsift.compression.diagnostics.checkpoint_ranking_by_pattern` of ``panel`` (the models
    matching ``variants`` are ranked; ``options`` passed on), then Figure 4(b) at the first retention to
    ``figure.png`` / ``figure.svg`` (PRIMEBench I.4, Table 23)."""
    from benchsift.compression import diagnostics as diag
    from benchsift.report.figures import save_figure
    from benchsift.report.validation_figures import checkpoint_figure

    res = diag.checkpoint_ranking_by_pattern(panel, variants, **options)
    paths = None
    if figure is not None:
        paths = save_figure(checkpoint_figure(res.table(), res.retentions[0]), figure, data=data)
    return _done(res, paths)
