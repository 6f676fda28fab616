"""``benchsift prism score|analyze|audit``: PRISM-VLM scoring with its ``--out`` folder."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from benchsift.workflows.result import WorkflowResult

if TYPE_CHECKING:
    from benchsift.prism.scoring import AuditReport, MeansReport, ScoreReport

__all__ = ["audit_judges", "score_axis_means", "score_verdicts"]


def _written(out: Path | None) -> list[Path]:
    return [out] if out is not None else []


def score_verdicts(
    verdicts: Path, *, out: Path | None = None, data: str | None = None, **options: Any
) -> WorkflowResult[ScoreReport]:
    """:func:`~benchsift.prism.scoring.score_report` of the verdict table ``verdicts`` (``options`` passed
    on), then the ``out`` folder (:func:`~benchsift.workflows.outputs.write_score_dir`: ``result.json``, the
    tables as CSV, the profile, axis-correlation, forest and domain figures, ``index.html``); ``data`` names
    the input in the captions (default: the file's name and B)."""
    from benchsift.prism.scoring import score_report
    from benchsift.workflows.outputs import write_score_dir

    report = score_report(verdicts, **options)
    if out is not None:
        caption = data if data is not None else f"{verdicts.name}, B = {options.get('n_boot', 2000)}"
        write_score_dir(out, report, caption)
    summary = report.summary
    return WorkflowResult(report, summary, _written(out), [], list(summary.get("warnings", [])))


def score_axis_means(
    axis_means: Path, *, out: Path | None = None, **options: Any
) -> WorkflowResult[MeansReport]:
    """:func:`~benchsift.prism.scoring.means_report` of the axis-means table (``options`` passed on), then
    the ``out`` folder (:func:`~benchsift.workflows.outputs.write_means_dir`: ``result.json``,
    ``axis_means.csv``, the profile and axis-correlation figures, ``index.html``)."""
    from benchsift.prism.scoring import means_report
    from benchsift.workflows.outputs import write_means_dir

    report = means_report(axis_means, **options)
    if out is not None:
        write_means_dir(out, report, axis_means.name)
    summary = report.summary
    return WorkflowResult(report, summary, _written(out), [], list(summary.get("warnings", [])))


def audit_judges(
    primary: Path | None, secondary: Path | None, *, out: Path | None = None, **options: Any
) -> WorkflowResult[AuditReport]:
    """:func:`~benchsift.prism.scoring.audit_report` (``options`` passed on), then the ``out`` folder
    (``result.json``, the tables as CSV, ``index.html``)."""
    from benchsift.prism.scoring import audit_report
    from benchsift.workflows.outputs import write_result_dir

    report = audit_report(primary, secondary, **options)
    summary = report.to_dict()
    if out is not None:
        write_result_dir(out, summary, report.tables)
    return WorkflowResult(report, summary, _written(out), [], list(summary.get("warnings", [])))
