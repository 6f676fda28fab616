"""``benchsift audit``: a benchmark health audit (:func:`benchsift.audit.audit`) and its files; its tables
are :func:`benchsift.report.tables.audit.render_audit`.

:func:`audit_panel` runs the audit and, with ``out``, writes its folder (a :class:`~benchsift.workflows.
result.WorkflowResult`).
:func:`write_audit` writes an :class:`~benchsift.audit.AuditResult` into a folder (``audit.json``,
``benchmarks.csv``, ``items.csv``, ``duplicates.csv``) with its ``index.html``
(:func:`benchsift.report.html.write_report`), the audit's section of the HTML report.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

from benchsift._fileio import atomic_dir, spreadsheet_frame
from benchsift.audit import AuditResult
from benchsift.report.html import check_page, write_report
from benchsift.workflows.result import WorkflowResult

if TYPE_CHECKING:
    from benchsift.panel import Panel

__all__ = ["audit_panel", "write_audit", "write_audit_files"]


def write_audit_files(
    result: AuditResult, folder: str | Path, run: dict[str, Any] | None = None
) -> list[Path]:
    """Write ``audit.json`` (:meth:`AuditResult.to_dict`, with ``run`` when given), ``benchmarks.csv``,
    ``items.csv`` (the flagged items) and ``duplicates.csv`` into ``folder`` (atomically); return them."""
    target = Path(folder)
    doc = result.to_dict()
    if run:
        doc = {"run": run, **doc}
    flagged = result.to_frame()
    flagged = flagged[flagged["flags"] != ""]
    with atomic_dir(target, prune=False) as tmp:
        (tmp / "audit.json").write_text(json.dumps(doc, indent=2))
        for name, df in (
            ("benchmarks", result.benchmarks),
            ("items", flagged),
            ("duplicates", result.duplicates),
        ):
            spreadsheet_frame(df).to_csv(tmp / f"{name}.csv", index=False, lineterminator="\n")
    return [target / n for n in ("audit.json", "benchmarks.csv", "items.csv", "duplicates.csv")]


def write_audit(
    result: AuditResult, out: str | Path, run: dict[str, Any] | None = None, panel: Panel | None = None
) -> Path:
    """:func:`write_audit_files` into folder ``out``, then ``out/index.html`` (with a view of every flagged
    item when ``panel``, the audited panel, is given); return the folder."""
    check_page(out)  # a page benchsift did not write: refused before any file is written
    write_audit_files(result, out, run)
    write_report(out, title="benchsift audit", panel=panel)
    return Path(out)


def audit_panel(
    panel: Panel, *, out: Path | None = None, run: dict[str, Any] | None = None, **options: Any
) -> WorkflowResult[AuditResult]:
    """:func:`benchsift.audit.audit` of ``panel`` (``options`` passed on), then with ``out`` its folder
    (:func:`write_audit`: the files with ``run`` in ``audit.json``, and ``index.html`` with a view of every
    flagged item). The payload is :meth:`AuditResult.to_dict`."""
    from benchsift.audit import audit

    result = audit(panel, **options)
    files = []
    if out is not None:
        check_page(out)  # a page benchsift did not write: refused before any file is written
        files = [
            *write_audit_files(result, out, run),
            write_report(out, title="benchsift audit", panel=panel),
        ]
    return WorkflowResult(result, result.to_dict(), files, [], list(result.warnings))
