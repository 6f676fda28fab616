"""Demo section ``compression``: PRIMEBench Stages 0-3 on a small simulated panel -> a released suite.

Writes into ``out_dir/compression/``: ``suite/`` (the suite directory, with the Capability Frontier),
``stages.png/.svg`` (the stage table), ``k_sweep.png/.svg`` (Stage 3 rho for every k) and ``estimate.csv``
(estimates for three held-back models scored on the suite items only).
"""

from __future__ import annotations

import warnings
from pathlib import Path
from typing import Any

import numpy as np
from rich.console import Console
from rich.text import Text

from benchsift._fileio import atomic_path, spreadsheet_frame
from benchsift.compression.embeddings import ItemEmbeddings
from benchsift.compression.estimate import estimate_new_models
from benchsift.compression.frontier import capability_frontier
from benchsift.compression.pipeline import CompressionConfig, panel_fingerprint, run_pipeline
from benchsift.compression.suite import load_suite, stage_table, write_suite
from benchsift.errors import EstimateWarning, FloorWarning
from benchsift.report.compression_figures import (
    k_sweep_caption,
    k_sweep_figure,
    save_figure,
    stage_rich_table,
    stage_table_caption,
    stage_table_figure,
)
from benchsift.simulate import SimulationConfig, simulate_panel
from benchsift.workflows.result import WorkflowResult, section_result

#: The demo panel: the small preset with more benchmarks and categories so that Stages 1 and 3 have work.
DEMO_CONFIG = SimulationConfig.small(n_benchmarks=12, n_categories=6, items_per_benchmark=400)
N_HELD_BACK = 3


def run_demo_section(out_dir: Path, seed: int, console: Console) -> WorkflowResult[Any]:
    """Compress a simulated panel (r = 5 %, k = 3), write the suite, the figures and a new-model estimate."""
    folder = Path(out_dir) / "compression"
    folder.mkdir(parents=True, exist_ok=True)
    sim = simulate_panel(DEMO_CONFIG, random_state=seed)
    panel = sim.panel
    # Hold back the last image models (and their text-only runs) to play "new models" for `estimate`.
    models = panel.models
    image_ids = models.loc[panel.image_rows, "model"].tolist()
    held = image_ids[-N_HELD_BACK:]
    build = panel.subset(models=~models["model"].isin(held).to_numpy())
    new = panel.subset(models=models["model"].isin(held).to_numpy() & panel.image_rows)
    emb = ItemEmbeddings(
        panel.items[["benchmark", "item"]],
        vision_text=sim.truth.embeddings_vl,
        text=sim.truth.embeddings_text,
        source="simulated",
    )
    cfg = CompressionConfig(retention=0.05, k=3, random_state=seed)
    with warnings.catch_warnings():  # the floor warning is printed below from result.warnings
        warnings.simplefilter("ignore", FloorWarning)
        result = run_pipeline(build, cfg, embeddings=emb)
    frontier = capability_frontier(result.stage0.panel)
    suite_dir = folder / "suite"
    write_suite(result, build, suite_dir, frontier=frontier)
    table = stage_table(result, build.n_items)
    files = [str(suite_dir), str(build.save(folder / "panel.parquet"))]  # (the item views' panel)
    data = (
        f"simulated panel ({build.n_models} model runs x {build.n_items} items, seed {seed}; "
        f"{N_HELD_BACK} models held back)"
    )
    fig = stage_table_figure(table)
    files += [
        str(p) for p in save_figure(fig, folder / "stages", caption=stage_table_caption(data), data=data)
    ]
    if result.stage3 is not None and result.stage3.sweep is not None:
        fig = k_sweep_figure(result.stage3.sweep, chosen_k=cfg.k)
        cap = k_sweep_caption(data, cfg.k)
        files += [str(p) for p in save_figure(fig, folder / "k_sweep", caption=cap, data=data)]
    with warnings.catch_warnings():  # printed below from est.warnings
        warnings.simplefilter("ignore", EstimateWarning)
        est = estimate_new_models(load_suite(suite_dir), new, n_boot=500, random_state=seed)
    with atomic_path(folder / "estimate.csv") as tmp:
        spreadsheet_frame(est.table()).to_csv(tmp, index=False, lineterminator="\n")
    files.append(str(folder / "estimate.csv"))
    console.print(stage_rich_table(table, title="PRIMEBench compression (simulated panel)"))
    for w in [*result.warnings, *est.warnings]:  # the suite's also in suite/suite.json, and so in the page
        console.print(Text(f"warning: {w}", style="yellow"), soft_wrap=True)
    console.print(
        f"suite: {result.n_items_suite} of {build.n_items} items, categories "
        f"{', '.join(result.selected_categories)}; rho vs Stage 0 = {result.rho_suite_vs_stage0:.3f}; "
        f"Frontier: {frontier.items.size} items"
    )
    payload = {
        "run": {
            "call": "run_pipeline(panel, CompressionConfig(retention=0.05, k=3), embeddings=simulated)",
            "parameters": {"retention": cfg.retention, "k": cfg.k, "floor": cfg.floor, "seed": seed},
            "input": (
                f"simulated panel (SimulationConfig.small(n_benchmarks=12, n_categories=6), seed {seed})"
            ),
            "fingerprint_sha256": panel_fingerprint(build),
            "sizes": f"{build.n_models} model runs x {build.n_items} items; {N_HELD_BACK} held-back models",
        },
        "notes": list(result.notes),
        "files": files,
        "n_items_panel": build.n_items,
        "n_items_suite": result.n_items_suite,
        "categories_selected": result.selected_categories,
        "rho_suite_vs_stage0": result.rho_suite_vs_stage0,
        "stages": result.summary()["stages"],
        "frontier_items": int(frontier.items.size),
        "new_model_ranks": {m: float(r) for m, r in zip(est.models, np.asarray(est.rank), strict=True)},
    }
    return section_result(result, payload)
