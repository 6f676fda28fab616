"""Tables and files of a benchmark health audit (:func:`benchsift.audit.audit`).

:func:`audit_tables` turns an :class:`~benchsift.audit.AuditResult` into rich tables (per benchmark, the
flag counts, the items ranked by confidence of negative discrimination); :func:`write_audit` writes the
result into a folder (``audit.json``, ``benchmarks.csv``, ``items.csv``, ``duplicates.csv``) with its
``index.html`` (:func:`benchsift.report.html.write_report`), the audit's section of the HTML report.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

from rich.markup import escape
from rich.table import Table

from benchsift._fileio import atomic_dir
from benchsift.audit import AuditResult
from benchsift.report.html import write_report

__all__ = ["audit_tables", "write_audit", "write_audit_files"]

_BENCH_COLUMNS = (
    ("n_items", "items", 0),
    ("n_models", "models", 0),
    ("mean_score", "mean", 3),
    ("snr", "SNR", 1),
    ("reliability", "reliability", 3),
    ("mdd", "MDD", 3),
    ("share_all_correct", "all-correct", 3),
    ("share_near_ceiling", "near-ceiling", 3),
    ("share_all_wrong", "all-wrong", 3),
    ("share_blind_solvable", "blind-solvable", 3),
    ("n_flagged", "flagged", 0),
)


def _fmt(v: Any, digits: int) -> str:
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return "n/a"
    if digits == 0:
        return str(int(v))
    if isinstance(v, float) and 0 < abs(v) < 10 ** (-digits):
        return f"{v:.2e}"
    return f"{float(v):.{digits}f}"


def audit_tables(result: AuditResult, top: int = 20) -> list[Table]:
    """The audit as rich tables: per benchmark (sizes, SNR, MDD, saturation shares), flag counts, and the
    ``top`` items most confidently negative in discrimination."""
    bench = Table(title="benchmark health")
    bench.add_column("benchmark", justify="left")
    for _, label, _ in _BENCH_COLUMNS:
        bench.add_column(label, justify="right")
    for row in result.benchmarks.to_dict(orient="records"):
        bench.add_row(escape(str(row["benchmark"])), *(_fmt(row.get(k), d) for k, _, d in _BENCH_COLUMNS))
    counts = Table(title="flagged items")
    counts.add_column("flag", justify="left")
    counts.add_column("items", justify="right")
    for flag, n in result.flag_counts.items():
        counts.add_row(flag, str(n))
    tables = [bench, counts]
    ranked = result.ranked("negative-discrimination").head(top)
    if len(ranked):
        neg = Table(title=f"negative discrimination (top {len(ranked)}, most confident first)")
        for col in ("benchmark", "item", "mean", "r (item-rest)", "95% CI", "p", "q"):
            neg.add_column(col, justify="left" if col in ("benchmark", "item") else "right")
        for row in ranked.to_dict(orient="records"):
            ci = f"[{_fmt(row['discrimination_low'], 3)}, {_fmt(row['discrimination_high'], 3)}]"
            neg.add_row(
                escape(str(row["benchmark"])),
                escape(str(row["item"])),
                _fmt(row["mean_score"], 3),
                _fmt(row["discrimination"], 3),
                ci,
                _fmt(row["p_negative"], 4),
                _fmt(row["q_negative"], 4),
            )
        tables.append(neg)
    return tables


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
        result.benchmarks.to_csv(tmp / "benchmarks.csv", index=False, lineterminator="\n")
        flagged.to_csv(tmp / "items.csv", index=False, lineterminator="\n")
        result.duplicates.to_csv(tmp / "duplicates.csv", index=False, lineterminator="\n")
    return [target / n for n in ("audit.json", "benchmarks.csv", "items.csv", "duplicates.csv")]


def write_audit(result: AuditResult, out: str | Path, run: dict[str, Any] | None = None) -> Path:
    """:func:`write_audit_files` into folder ``out``, then ``out/index.html``; return the folder."""
    write_audit_files(result, out, run)
    write_report(out, title="benchsift audit")
    return Path(out)
