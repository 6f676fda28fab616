"""Demo section ``panel``: simulate a small panel with ground truth, save it, summarise it."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pandas as pd
from rich.console import Console

from benchsift._fileio import atomic_path, spreadsheet_frame
from benchsift.compression.pipeline import panel_fingerprint
from benchsift.report.panel_summary import panel_summary, summary_table
from benchsift.simulate import SimulationConfig, simulate_panel
from benchsift.workflows.result import WorkflowResult, section_result


def run_demo_section(
    out_dir: Path, seed: int, console: Console, long_csv: bool = False
) -> WorkflowResult[Any]:
    """Simulate ``SimulationConfig.small()``, write ``panel/panel.parquet`` (and, with ``long_csv``, the
    23 MB ``panel/long.csv``) and ``panel/benchmarks.csv`` (per-benchmark sizes, means, coverage)."""
    folder = out_dir / "panel"
    folder.mkdir(parents=True, exist_ok=True)
    sim = simulate_panel(SimulationConfig.small(), random_state=seed)
    panel = sim.panel
    panel.save(folder / "panel.parquet")
    files = [str(folder / "panel.parquet")]
    if long_csv:
        with atomic_path(folder / "long.csv") as tmp:
            panel.to_long().to_csv(tmp, index=False)  # a long table: data for `import long`, kept raw
        files.append(str(folder / "long.csv"))
    summary = panel_summary(panel)
    rows = [{"benchmark": b, **v} for b, v in summary["benchmarks"].items()]
    with atomic_path(folder / "benchmarks.csv") as tmp:
        spreadsheet_frame(pd.DataFrame(rows)).to_csv(tmp, index=False, lineterminator="\n")
    files.append(str(folder / "benchmarks.csv"))
    console.print(summary_table(summary, title="simulated panel"))
    payload = {
        "run": {
            "call": f"simulate_panel(SimulationConfig.small(), random_state={seed})",
            "input": "simulated panel (no input file)",
            "fingerprint_sha256": panel_fingerprint(panel),
            "sizes": (
                f"{panel.n_models} model runs x {panel.n_items} items, {len(panel.benchmarks)} benchmarks"
            ),
        },
        "files": files,
        "n_models": summary["n_models"],
        "n_items": summary["n_items"],
        "n_benchmarks": summary["n_benchmarks"],
        "mean_score": summary["mean_score"],
        "coverage": summary["coverage"],
    }
    return section_result(sim, payload)
