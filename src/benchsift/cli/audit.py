"""``benchsift audit PANEL``: the benchmark health audit (:func:`benchsift.audit.audit`).

Prints the per-benchmark table, the flag counts and the items most confidently negative in
discrimination, or with ``--json`` one object ``{"benchmarks": {...}, "items": [one entry per flagged
item], "duplicates": [...], "flag_counts": {...}, "warnings": [...], "parameters": {...}}``
(:meth:`benchsift.audit.AuditResult.to_dict`). ``--out DIR`` also writes the files and ``DIR/index.html``
(:func:`benchsift.workflows.audit.audit_panel`).
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

from benchsift.cli._common import ForceOpt, JsonOpt, PanelArg, emit, opt, outputs, split_list


def audit_command(
    panel: PanelArg,
    benchmarks: Annotated[str | None, opt("Comma-separated benchmarks (default all).")] = None,
    alpha: Annotated[float, opt("False discovery rate of the flags; test level of MDD.")] = 0.05,
    power: Annotated[float, opt("Power of the minimum detectable difference.")] = 0.8,
    discrimination: Annotated[
        str, opt("Discrimination measure: item-rest (correlation) or 2pl (fitted 2PL slope, Wald interval).")
    ] = "item-rest",
    min_discrimination: Annotated[
        float, opt("Flag low-discrimination when the CI lies below this correlation.")
    ] = 0.1,
    min_slope: Annotated[
        float, opt("With --discrimination 2pl: flag low-discrimination when the slope's CI lies below this.")
    ] = 0.3,
    ceiling: Annotated[float, opt("Mean score from which an item is near-ceiling.")] = 0.95,
    dif_by: Annotated[
        str, opt("DIF groups: auto, release_date, family or none (auto: era, else family).")
    ] = "auto",
    dif_matching: Annotated[
        str, opt("DIF matching ability: irt (2PL EAP ability) or rest-score (logit of the rest score).")
    ] = "irt",
    dif_test: Annotated[
        str, opt("DIF test: rstar (modified signed likelihood root, calibrated with few models) or lr.")
    ] = "rstar",
    era_cutoff: Annotated[
        str | None, opt("Release date (YYYY-MM-DD) from which a model is newer (default: median).")
    ] = None,
    top: Annotated[int, opt("Negative-discrimination items listed in the table.")] = 20,
    out: Annotated[Path | None, opt("Also write audit.json, CSV tables and index.html here.")] = None,
    json_output: JsonOpt = False,
    force: ForceOpt = False,
) -> None:
    """Audit every benchmark of a panel: discrimination, saturation, signal-to-noise, duplicates, DIF."""
    from benchsift.io import read_scores
    from benchsift.report.tables.audit import render_audit
    from benchsift.workflows.audit import audit_panel

    outputs(force, dirs=[out])
    run = audit_panel(
        read_scores(panel),
        out=out,
        run={"command": "benchsift audit", "panel": str(panel)},
        benchmarks=split_list(benchmarks),
        alpha=alpha,
        power=power,
        discrimination=discrimination,
        min_discrimination=min_discrimination,
        min_slope=min_slope,
        dif_matching=dif_matching,
        dif_test=dif_test,
        ceiling=ceiling,
        dif_by=dif_by,
        era_cutoff=era_cutoff,
    )
    written = [f"audit written to {out}/ (open {out}/index.html)"] if out is not None else []
    emit(
        json_output, run.value, lambda: render_audit(run.value, top=top), warnings=run.warnings, after=written
    )
