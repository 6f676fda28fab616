"""``benchsift simulate``: write a simulated panel (and optionally its ground truth) to disk."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Annotated, Any

import numpy as np
import typer
from rich.table import Table

from benchsift.cli._common import ForceOpt, console, err_console, outputs, print_json
from benchsift.simulate import SimulationConfig, simulate_panel


def simulate_command(
    output: Annotated[Path, typer.Option("-o", "--output", help="Panel file to write (parquet).")],
    preset: Annotated[str, typer.Option("--preset", help="small | primebench | openvlm.")] = "small",
    models: Annotated[int | None, typer.Option("--models", help="Number of image-condition models.")] = None,
    benchmarks: Annotated[int | None, typer.Option("--benchmarks", help="Number of benchmarks.")] = None,
    categories: Annotated[int | None, typer.Option("--categories", help="Number of categories.")] = None,
    items_per_benchmark: Annotated[
        int | None, typer.Option("--items-per-benchmark", help="Mean number of items per benchmark.")
    ] = None,
    seed: Annotated[int, typer.Option("--seed", help="Random seed; the same seed gives the same panel.")] = 0,
    truth: Annotated[Path | None, typer.Option("--truth", help="Also write the ground truth (.npz).")] = None,
    json_output: Annotated[
        bool, typer.Option("--json", help="Print one JSON object instead of a table.")
    ] = False,
    force: ForceOpt = False,
) -> None:
    """Simulate a panel with known ground truth (multidimensional 2PL; see benchsift.simulate)."""
    outputs(force, files=[output, truth])
    config = SimulationConfig.preset(preset)
    overrides: dict[str, Any] = {}
    if models is not None:
        overrides["n_models"] = models
        overrides["n_text_only_models"] = min(config.n_text_only_models, max(models, 0))
    if benchmarks is not None:
        overrides["n_benchmarks"] = benchmarks
        if categories is None:
            overrides["n_categories"] = min(config.n_categories, max(benchmarks, 1))
    if categories is not None:
        overrides["n_categories"] = categories
    if items_per_benchmark is not None:
        overrides["items_per_benchmark"] = items_per_benchmark
        overrides["min_items_per_benchmark"] = min(
            config.min_items_per_benchmark, max(items_per_benchmark, 1)
        )
    config = SimulationConfig.preset(preset, **overrides)
    config.validate()

    start = time.perf_counter()
    with err_console.status(f"simulating {config.n_models} models x {config.n_items:,} items ..."):
        sim = simulate_panel(config, random_state=seed)
        sim.panel.save(output)
        if truth is not None:
            sim.truth.save(truth)
    seconds = time.perf_counter() - start

    panel, gt = sim.panel, sim.truth
    image = panel.scores[: gt.n_models]
    summary = {
        "panel": str(output),
        "truth": str(truth) if truth is not None else None,
        "preset": preset,
        "seed": seed,
        "n_models": gt.n_models,
        "n_text_only_runs": len(gt.text_only_models),
        "n_items": panel.n_items,
        "n_benchmarks": len(panel.benchmarks),
        "n_categories": len(panel.categories),
        "n_all_correct": int(gt.all_correct.sum()),
        "n_blind_solvable": int(gt.blind_solvable.sum()),
        "graded_benchmarks": gt.graded_benchmarks,
        "missing_fraction": float(np.isnan(image).mean()),
        "mean_score": float(np.nanmean(image)),
        "central_benchmark": gt.central_benchmark,
        "seconds": round(seconds, 3),
    }
    if json_output:
        print_json(summary)
        return
    table = Table(title=f"simulated panel -> {output}")
    table.add_column("quantity")
    table.add_column("value", justify="right")
    for key in (
        "n_models",
        "n_text_only_runs",
        "n_items",
        "n_benchmarks",
        "n_categories",
        "n_all_correct",
        "n_blind_solvable",
        "missing_fraction",
        "mean_score",
        "seconds",
    ):
        value = summary[key]
        table.add_row(key, f"{value:.3f}" if isinstance(value, float) else f"{value:,}")
    table.add_row("central benchmarks", ", ".join(f"{c}: {b}" for c, b in gt.central_benchmark.items()))
    if truth is not None:
        table.add_row("truth", str(truth))
    console.print(table)
