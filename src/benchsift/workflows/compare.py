"""``benchsift compare``: an honest leaderboard of a panel, or new models' differences on a suite, and the
``--out`` folder of either."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from benchsift.workflows.result import WorkflowResult

if TYPE_CHECKING:
    from benchsift.leaderboard import ComparisonResult, SuiteComparison
    from benchsift.panel import Panel

__all__ = ["compare_panel", "compare_on_suite"]


def compare_panel(
    panel: Panel,
    *,
    out: Path | None = None,
    run: dict[str, Any] | None = None,
    data: str = "the panel given",
    **options: Any,
) -> WorkflowResult[ComparisonResult]:
    """:func:`~benchsift.leaderboard.compare` of ``panel`` (``options`` passed on), then with ``out`` its CSV
    tables, rank figures and ``index.html`` (:func:`~benchsift.report.leaderboard.write_compare`; ``run``
    and ``data`` describe the input there). The payload is the comparison's JSON; the warnings are its."""
    from benchsift.leaderboard import compare

    result = compare(panel, **options)
    files = []
    if out is not None:  # matplotlib and the HTML writer on use: without --out they are never loaded
        from benchsift.report.leaderboard import write_compare

        files.append(write_compare(result, out, run=run, data=data))
    return WorkflowResult(result, result.to_dict(), files, [], list(result.warnings))


def compare_on_suite(
    suite: Path,
    scores: Path,
    *,
    out: Path | None = None,
    run: dict[str, Any] | None = None,
    **options: Any,
) -> WorkflowResult[SuiteComparison]:
    """:func:`~benchsift.leaderboard.compare_suite` of the new models' ``scores`` on ``suite`` (``options``
    passed on), then with ``out`` its JSON, CSV tables and ``index.html``
    (:func:`~benchsift.report.leaderboard.write_suite_compare`). Notes and warnings are the comparison's."""
    from benchsift.leaderboard import compare_suite
    from benchsift.report.leaderboard import write_suite_compare

    result = compare_suite(suite, scores, **options)
    files = [write_suite_compare(result, out, run=run)] if out is not None else []
    return WorkflowResult(result, result.to_dict(), files, list(result.notes), list(result.warnings))
