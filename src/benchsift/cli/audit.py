"""``benchsift audit PANEL``: the benchmark health audit (:func:`benchsift.audit.audit`).

Prints the per-benchmark table, the flag counts and the items most confidently negative in
discrimination, or with ``--json`` one object ``{"benchmarks": {...}, "items": [one entry per flagged
item], "duplicates": [...], "flag_counts": {...}, "warnings": [...], "parameters": {...}}``
(:meth:`benchsift.audit.AuditResult.to_dict`). ``--out DIR`` also writes the files and ``DIR/index.html``
(:func:`benchsift.report.audit.write_audit`).
"""

from __future__ import annotations

from pathlib import Path

import typer

from benchsift.cli._common import FORCE, console, outputs, print_json, split_list
from benchsift.cli._output import print_warnings


def audit_command(
    panel: Path = typer.Argument(
        ..., help="A panel file (parquet) written by `benchsift import` or `simulate`."
    ),
    benchmarks: str | None = typer.Option(
        None, "--benchmarks", help="Comma-separated benchmarks (default all)."
    ),
    alpha: float = typer.Option(
        0.05, "--alpha", help="False discovery rate of the flags; test level of MDD."
    ),
    power: float = typer.Option(0.8, "--power", help="Power of the minimum detectable difference."),
    min_discrimination: float = typer.Option(
        0.1, "--min-discrimination", help="Flag low-discrimination when the CI lies below this correlation."
    ),
    ceiling: float = typer.Option(0.95, "--ceiling", help="Mean score from which an item is near-ceiling."),
    dif_by: str = typer.Option(
        "auto", "--dif-by", help="DIF groups: auto, release_date, family or none (auto: era, else family)."
    ),
    era_cutoff: str | None = typer.Option(
        None, "--era-cutoff", help="Release date (YYYY-MM-DD) from which a model is newer (default: median)."
    ),
    top: int = typer.Option(20, "--top", help="Negative-discrimination items listed in the table."),
    out: Path | None = typer.Option(
        None, "--out", help="Also write audit.json, CSV tables and index.html here."
    ),
    json_output: bool = typer.Option(False, "--json", help="Print one JSON object instead of tables."),
    force: bool = FORCE,
) -> None:
    """Audit every benchmark of a panel: discrimination, saturation, signal-to-noise, duplicates, DIF."""
    from benchsift.audit import audit
    from benchsift.panel import Panel
    from benchsift.report.audit import write_audit
    from benchsift.report.tables.audit import render_audit

    outputs(force, dirs=[out])
    result = audit(
        Panel.load(panel),
        benchmarks=split_list(benchmarks),
        alpha=alpha,
        power=power,
        min_discrimination=min_discrimination,
        ceiling=ceiling,
        dif_by=dif_by,
        era_cutoff=era_cutoff,
    )
    if out is not None:
        write_audit(result, out, run={"command": "benchsift audit", "panel": str(panel)})
    if json_output:
        print_json(result.to_dict())
        return
    for table in render_audit(result, top=top):
        console.print(table)
    print_warnings(result.warnings)
    if out is not None:
        console.print(f"audit written to {out}/ (open {out}/index.html)")
