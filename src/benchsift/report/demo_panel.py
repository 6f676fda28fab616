"""Demo section ``panel``: simulate a small panel with ground truth, save it, summarise it."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from rich.console import Console

from benchsift._fileio import atomic_path
from benchsift.report.panel_summary import panel_summary, summary_table
from benchsift.simulate import SimulationConfig, simulate_panel


def run_demo_section(out_dir: Path, seed: int, console: Console) -> dict[str, Any]:
    """Simulate ``SimulationConfig.small()``, write ``panel/panel.parquet`` and ``panel/long.csv``."""
    folder = out_dir / "panel"
    folder.mkdir(parents=True, exist_ok=True)
    sim = simulate_panel(SimulationConfig.small(), random_state=seed)
    panel = sim.panel
    panel.save(folder / "panel.parquet")
    long = panel.to_long()
    with atomic_path(folder / "long.csv") as tmp:
        long.to_csv(tmp, index=False)
    summary = panel_summary(panel)
    console.print(summary_table(summary, title="simulated panel"))
    return {
        "files": [str(folder / "panel.parquet"), str(folder / "long.csv")],
        "n_models": summary["n_models"],
        "n_items": summary["n_items"],
        "n_benchmarks": summary["n_benchmarks"],
        "mean_score": summary["mean_score"],
        "coverage": summary["coverage"],
    }
