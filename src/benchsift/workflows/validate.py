"""``benchsift validate``: a held-out validation protocol, its selector figure and ``--out`` folder."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from benchsift.workflows.result import WorkflowResult, with_warnings, wrote_figure

if TYPE_CHECKING:
    from benchsift.compression.protocols.validation import ValidationReport
    from benchsift.panel import Panel

__all__ = ["validate_panel"]

NO_FIGURE = "--figure: the end-to-end protocol has no selector-vs-retention figure; nothing written"


def validate_panel(
    panel: Panel,
    *,
    protocol: str = "random",
    figure: Path | None = None,
    out: Path | None = None,
    data: str = "panel",
    **options: Any,
) -> WorkflowResult[ValidationReport]:
    """:func:`~benchsift.compression.protocols.validate` of ``panel`` (``protocol`` and ``options`` passed
    on), then the selector-vs-retention figure to ``figure.png`` / ``figure.svg`` (not for the end-to-end
    protocol: a warning says so) and the ``out`` folder (``validate.json``, ``results.csv``, the figure and
    ``index.html``, :func:`~benchsift.workflows.outputs.write_validate_dir`). ``data`` names the input in the
    figure captions (the CLI: the panel file's name).

    The payload is the report's JSON with the figure's line among its warnings."""
    from benchsift.compression.protocols.validation import validate
    from benchsift.report.validation_figures import save_selector_figure
    from benchsift.workflows.outputs import write_validate_dir

    report = validate(panel, protocol=protocol, **options)
    result: Any = report.result
    summary = result.summary()
    n_splits = len(result.splits) if figure is not None or out is not None else 0  # same-model: no splits
    warnings, files = list(report.warnings), []
    if figure is not None and protocol == "end-to-end":
        warnings.append(NO_FIGURE)
    elif figure is not None:
        paths = save_selector_figure(summary, figure, protocol, data, n_splits)
        files += paths
        warnings.append(wrote_figure(paths))
    payload = with_warnings(report.to_dict(), warnings)
    if out is not None:
        files.append(write_validate_dir(out, payload, summary, protocol, data, n_splits))
    return WorkflowResult(report, payload, files, list(report.notes), warnings)
