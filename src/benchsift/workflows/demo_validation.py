"""Demo section ``validation``: the Stage 2 held-out protocol on a small simulated panel (PRIMEBench Fig. 3).

A 40-model, 3-category simulated panel; four selectors (Random, Variance, VAW, DatBench point-biserial) at
four retentions over five random balanced splits. The item floor is lowered to 20 (the paper's 100 would
keep these small pools almost whole at every retention). Writes ``validation/selector_retention.png|svg``,
``validation/heldout_summary.csv`` and ``validation/heldout.json``; prints the Table 10 layout.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from rich.console import Console

from benchsift._fileio import atomic_path, spreadsheet_frame
from benchsift._jsonutil import to_jsonable
from benchsift.compression.pipeline import panel_fingerprint
from benchsift.compression.protocols import stage2_heldout
from benchsift.report.figures import save_figure
from benchsift.report.validation_figures import (
    retention_table,
    selector_retention_caption,
    selector_retention_figure,
)
from benchsift.simulate import SimulationConfig, simulate_panel
from benchsift.workflows.result import WorkflowResult, section_result

SELECTORS: tuple[str, ...] = ("random", "variance", "vaw", "pointbiserial")
RETENTIONS: tuple[float, ...] = (0.02, 0.05, 0.10, 0.20)
N_SPLITS = 5
FLOOR = 20


def run_demo_section(out_dir: Path, seed: int, console: Console) -> WorkflowResult[Any]:
    """Run the held-out protocol on simulated data, write figure and tables to ``out_dir/validation``."""
    target = Path(out_dir) / "validation"
    target.mkdir(parents=True, exist_ok=True)
    sim = simulate_panel(
        SimulationConfig.small(items_per_benchmark=250, n_text_only_models=0, blind_solvable_rate=0.0), seed
    )
    result = stage2_heldout(
        sim.panel,
        selectors=SELECTORS,
        retentions=RETENTIONS,
        n_splits=N_SPLITS,
        floor=FLOOR,
        random_state=seed,
    )
    summary = result.summary()
    data = f"simulated panel ({sim.panel.n_models} models x {sim.panel.n_items} items, seed {seed})"
    files = [
        str(p)
        for p in save_figure(
            selector_retention_figure(summary),
            target / "selector_retention",
            caption=selector_retention_caption(data, N_SPLITS),
            data=data,
        )
    ]
    with atomic_path(target / "heldout_summary.csv") as tmp:
        spreadsheet_frame(summary).to_csv(tmp, index=False)
    with atomic_path(target / "heldout.json") as tmp:
        tmp.write_text(json.dumps(to_jsonable(result.to_dict()), indent=2))
    files += [str(target / "heldout_summary.csv"), str(target / "heldout.json")]
    console.print(
        retention_table(summary, f"Held-out rho, {N_SPLITS} random splits (simulated, floor {FLOOR})")
    )
    best = summary.loc[summary.groupby("retention")["rho_mean"].idxmax(), ["retention", "selector"]]
    payload = {
        "run": {
            "call": (
                f"stage2_heldout(panel, selectors={list(SELECTORS)}, retentions={list(RETENTIONS)}, "
                f"n_splits={N_SPLITS}, floor={FLOOR})"
            ),
            "input": f"simulated panel (SimulationConfig.small(items_per_benchmark=250), seed {seed})",
            "fingerprint_sha256": panel_fingerprint(sim.panel),
            "sizes": f"{sim.panel.n_models} models x {sim.panel.n_items} items",
        },
        "notes": list(result.notes),
        "panel": {"models": sim.panel.n_models, "items": sim.panel.n_items},
        "splits": N_SPLITS,
        "best_selector": {f"{r:g}": s for r, s in zip(best["retention"], best["selector"], strict=True)},
        "results": result.results(),
        "files": files,
    }
    return section_result(result, payload)
