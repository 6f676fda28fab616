"""Demo section ``audit``: the benchmark health audit on a simulated panel with planted defects.

Data: :func:`benchsift.simulate.simulate_panel` with ``SimulationConfig.small()`` plus 2 % mislabelled items
(key flipped: stronger models answer them less often) and 3 % contaminated items (easier for the newest half
of the models than their ability says), binary scores. Writes ``out_dir/audit/`` (``audit.json``,
``benchmarks.csv``, ``items.csv``, ``duplicates.csv``) and reports the precision and recall of the
``negative-discrimination`` and ``dif`` flags against the planted items.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
from rich.console import Console

from benchsift.audit import audit
from benchsift.compression.pipeline import panel_fingerprint
from benchsift.report.tables.audit import render_audit
from benchsift.simulate import SimulationConfig, simulate_panel
from benchsift.workflows.audit import write_audit_files
from benchsift.workflows.result import WorkflowResult, section_result

PLANTS = {"mislabel_rate": 0.02, "contamination_rate": 0.03, "graded_fraction": 0.0, "n_dimensions": 0}


def _precision_recall(flagged: np.ndarray, planted: np.ndarray) -> dict[str, float]:
    hits = int((flagged & planted).sum())
    return {
        "planted": int(planted.sum()),
        "flagged": int(flagged.sum()),
        "precision": hits / max(int(flagged.sum()), 1),
        "recall": hits / max(int(planted.sum()), 1),
    }


def run_demo_section(out_dir: Path, seed: int, console: Console) -> WorkflowResult[Any]:
    """Audit a simulated panel with planted mislabelled and contaminated items; score the flags."""
    folder = out_dir / "audit"
    sim = simulate_panel(SimulationConfig.small(**PLANTS), random_state=seed)
    panel = sim.panel
    result = audit(panel)
    files = write_audit_files(result, folder)
    # the panel the audit ran on, so that the page's item views are this panel's (the report links a table
    # to the panel of the fingerprint its files record)
    files.append(panel.save(folder / "panel.parquet"))
    for table in render_audit(result, top=10):
        console.print(table)
    flags = result.items["flags"]
    neg = flags.map(lambda f: "negative-discrimination" in f).to_numpy()
    dif = flags.map(lambda f: "dif" in f).to_numpy()
    plants = ", ".join(f"{k}={v}" for k, v in PLANTS.items())
    payload = {
        "run": {
            "call": "audit(panel)",
            "input": f"simulated panel (SimulationConfig.small({plants}), seed {seed})",
            "fingerprint_sha256": panel_fingerprint(panel),
            "sizes": (
                f"{panel.n_models} model runs x {panel.n_items} items, {len(panel.benchmarks)} benchmarks"
            ),
        },
        "files": [str(f) for f in files],
        "flag_counts": result.flag_counts,
        "mislabelled": _precision_recall(neg, sim.truth.mislabelled),
        "contaminated": _precision_recall(dif, sim.truth.contaminated),
        "warnings": result.warnings,
    }
    return section_result(result, payload)
