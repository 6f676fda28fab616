"""Demo section ``loop``: the new-model loop -- compress, export for the harness, read the run, estimate.

A simulated panel with 0/1 scores (a multiple-choice benchmark as a harness logs it) whose item ids are
document indices, so the suite can be exported for lm-eval (``--samples``) and inspect-ai (``--sample-id``).
Five image models are held out. The suite is compressed from the others; the held-out models' logged
responses on the exported items play the harness run (``runs.csv``, a long table, what
``benchsift import lm-eval`` makes of the logs); ``estimate`` maps them to full-benchmark scores with
intervals, compared here with the held-out models' true full-benchmark means (known in a simulation).

Writes into ``out_dir/loop/``: ``suite/``, ``export-lm-eval/``, ``export-inspect/``, ``runs.csv`` and
``estimate.csv`` (model, benchmark, estimate, interval, suite mean, truth).
"""

from __future__ import annotations

import warnings
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
from rich.console import Console

from benchsift._fileio import atomic_path, spreadsheet_frame
from benchsift.compression.estimate import estimate_new_models
from benchsift.compression.export import export_suite
from benchsift.compression.pipeline import CompressionConfig, panel_fingerprint, run_pipeline
from benchsift.compression.suite import write_suite
from benchsift.errors import EstimateWarning
from benchsift.panel import Panel
from benchsift.report.console import DataTable
from benchsift.simulate import SimulationConfig, simulate_panel
from benchsift.workflows.result import WorkflowResult, section_result

LOOP_CONFIG = SimulationConfig.small(
    n_benchmarks=6,
    n_categories=3,
    items_per_benchmark=250,
    benchmark_size_spread=0.0,
    graded_fraction=0.0,
    missing_rate=0.0,
)
N_HELD_OUT = 5


def run_demo_section(out_dir: Path, seed: int, console: Console) -> WorkflowResult[Any]:
    """Compress (r = 8 %, k = 2, floor 0), export for lm-eval and inspect, estimate five held-out models."""
    folder = Path(out_dir) / "loop"
    folder.mkdir(parents=True, exist_ok=True)
    sim = simulate_panel(LOOP_CONFIG, random_state=seed)
    items = sim.panel.items.copy()
    items["item"] = items.groupby("benchmark").cumcount().astype(str)  # document indices, as lm-eval logs
    panel = Panel(sim.panel.scores, sim.panel.models, items)
    models = panel.models
    held = models.loc[panel.image_rows, "model"].to_numpy()[-N_HELD_OUT:]
    is_held = models["model"].isin(held).to_numpy()
    build = panel.subset(models=~is_held)
    cfg = CompressionConfig(retention=0.08, k=2, floor=0, random_state=seed)
    result = run_pipeline(build, cfg)
    suite_dir = folder / "suite"
    write_suite(result, build, suite_dir)
    build.save(folder / "panel.parquet")  # the panel of the suite's item views on the page
    # a simulated panel records no harness: its ids are document indices, as both tools number them
    exports = {
        tool: export_suite(suite_dir, tool, folder / f"export-{tool}", ids_from=tool)
        for tool in ("lm-eval", "inspect")
    }

    # the harness run: the held-out models' responses on exactly the exported items
    new = panel.subset(models=is_held & panel.image_rows)
    keys = set(zip(panel.items["benchmark"], panel.items["item"], strict=True))
    run_keys = {(b, i) for b, ids in exports["lm-eval"].items.items() for i in ids}
    assert run_keys <= keys
    cols = np.flatnonzero(
        [k in run_keys for k in zip(new.items["benchmark"], new.items["item"], strict=True)]
    )
    rows = [
        {"model": m, "benchmark": new.items["benchmark"].iat[c], "item": new.items["item"].iat[c], "score": s}
        for r, m in enumerate(new.models["model"])
        for c, s in zip(cols, new.scores[r, cols], strict=True)
    ]
    with atomic_path(folder / "runs.csv") as tmp:
        spreadsheet_frame(pd.DataFrame(rows)).to_csv(tmp, index=False, lineterminator="\n")
    with warnings.catch_warnings():  # est.warnings go into the section's "warnings" below
        warnings.simplefilter("ignore", EstimateWarning)
        est = estimate_new_models(suite_dir, folder / "runs.csv", n_boot=500, random_state=seed)
    assert est.full is not None
    full = est.full
    bench = new.items["benchmark"].to_numpy()
    truth = {b: np.nanmean(new.scores[:, bench == b], axis=1) for b in np.unique(bench)}
    m = full.method
    out = []
    for j, name in enumerate(full.models):
        row = new.models["model"].tolist().index(name)
        for c, g in enumerate(full.groups):
            if full.kinds[c] != "benchmark":
                continue
            t = float(truth[g][row])
            lo, hi = float(full.low[m][j, c]), float(full.high[m][j, c])
            out.append(
                {
                    "model": name,
                    "benchmark": g,
                    "estimate": float(full.score[m][j, c]),
                    "low": lo,
                    "high": hi,
                    "suite_mean": float(full.suite_mean[j, c]),
                    "truth": t,
                    "covered": bool(lo <= t <= hi),
                }
            )
    table = pd.DataFrame(out)
    with atomic_path(folder / "estimate.csv") as tmp:
        spreadsheet_frame(table).to_csv(tmp, index=False, lineterminator="\n")
    has = table["suite_mean"].notna()  # benchmarks of the categories Stage 3 dropped have no suite item
    err = (table["estimate"] - table["truth"]).abs()
    mae_est = float(err[has].mean())
    mae_suite = float((table["suite_mean"] - table["truth"]).abs()[has].mean())
    mae_unseen = float(err[~has].mean()) if (~has).any() else float("nan")
    coverage = float(table["covered"].mean())

    shown = DataTable(title=f"Full-benchmark estimates of {N_HELD_OUT} held-out models (method {m})")
    for col in ("model", "benchmark", "estimate", "95% interval", "suite mean", "truth"):
        shown.add_column(col)
    for r in table.itertuples():
        shown.add_row(
            r.model,
            r.benchmark,
            f"{r.estimate:.3f}",
            f"[{r.low:.3f}, {r.high:.3f}]",
            "no item" if np.isnan(r.suite_mean) else f"{r.suite_mean:.3f}",
            f"{r.truth:.3f}",
        )
    console.print(shown)
    console.print(
        f"suite {result.n_items_suite} of {build.n_items} items; exported for lm-eval and inspect; "
        f"MAE vs truth on benchmarks with suite items: estimate {mae_est:.3f}, suite mean {mae_suite:.3f}; "
        f"on benchmarks without: estimate {mae_unseen:.3f}; 95% interval coverage {coverage:.2f}"
    )
    payload = {
        "run": {
            "call": (
                "run_pipeline -> write_suite -> export_suite(suite, 'lm-eval' | 'inspect') -> "
                "estimate_new_models(suite, runs.csv)"
            ),
            "parameters": {"retention": cfg.retention, "k": cfg.k, "floor": cfg.floor, "seed": seed},
            "input": f"simulated panel (0/1 scores, item ids = document indices), seed {seed}",
            "fingerprint_sha256": panel_fingerprint(build),
            "sizes": f"{build.n_models} model runs x {build.n_items} items; {N_HELD_OUT} held-out models",
        },
        "notes": [
            "runs.csv holds the held-out models' simulated responses on exactly the exported items: what a "
            "harness run of the export logs (run it for real with the commands in export-*/export.json)",
            *result.notes,
        ],
        "warnings": list(result.warnings) + list(est.warnings),
        "files": [str(suite_dir), *(str(e.out_dir) for e in exports.values()), str(folder / "runs.csv")],
        "n_items_suite": result.n_items_suite,
        "method": m,
        "mae_estimate": mae_est,
        "mae_suite_mean": mae_suite,
        "mae_estimate_benchmarks_without_suite_items": mae_unseen,
        "interval_coverage": coverage,
    }
    return section_result(result, payload)
