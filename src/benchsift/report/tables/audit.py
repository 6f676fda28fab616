"""``benchsift audit``: the tables of a benchmark health audit (:func:`benchsift.audit.audit`)."""

from __future__ import annotations

import math
from typing import Any

from rich.table import Table

from benchsift.audit import AuditResult
from benchsift.report.console import DataTable

__all__ = ["render_audit"]

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


def render_audit(result: AuditResult, top: int = 20) -> list[Table]:
    """The audit as rich tables: per benchmark (sizes, SNR, MDD, saturation shares), flag counts, and the
    ``top`` items most confidently negative in discrimination."""
    bench = DataTable(title="benchmark health")
    bench.add_column("benchmark", justify="left")
    for _, label, _ in _BENCH_COLUMNS:
        bench.add_column(label, justify="right")
    for row in result.benchmarks.to_dict(orient="records"):
        bench.add_row(str(row["benchmark"]), *(_fmt(row.get(k), d) for k, _, d in _BENCH_COLUMNS))
    counts = DataTable(title="flagged items")
    counts.add_column("flag", justify="left")
    counts.add_column("items", justify="right")
    for flag, n in result.flag_counts.items():
        counts.add_row(flag, str(n))
    tables: list[Table] = [bench, counts]
    ranked = result.ranked("negative-discrimination").head(top)
    if len(ranked):
        neg = DataTable(title=f"negative discrimination (top {len(ranked)}, most confident first)")
        measure = "a (2PL slope)" if result.parameters.get("discrimination") == "2pl" else "r (item-rest)"
        level = f"{100 * (1 - float(result.parameters.get('alpha', 0.05))):g}% CI"
        for col in ("benchmark", "item", "mean", measure, level, "p", "q"):
            neg.add_column(col, justify="left" if col in ("benchmark", "item") else "right")
        for row in ranked.to_dict(orient="records"):
            ci = f"[{_fmt(row['discrimination_low'], 3)}, {_fmt(row['discrimination_high'], 3)}]"
            neg.add_row(
                str(row["benchmark"]),
                str(row["item"]),
                _fmt(row["mean_score"], 3),
                _fmt(row["discrimination"], 3),
                ci,
                _fmt(row["p_negative"], 4),
                _fmt(row["q_negative"], 4),
            )
        tables.append(neg)
    return tables
