"""``benchsift simulate``: write a simulated panel (and optionally its ground truth) to disk."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Annotated

import typer

from benchsift.cli._common import ForceOpt, console, err_console, outputs, print_json
from benchsift.report.tables.panel import render_simulation
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
    config = SimulationConfig.sized(
        preset,
        models=models,
        benchmarks=benchmarks,
        categories=categories,
        items_per_benchmark=items_per_benchmark,
    )
    config.validate()

    start = time.perf_counter()
    with err_console.status(f"simulating {config.n_models} models x {config.n_items:,} items ..."):
        sim = simulate_panel(config, random_state=seed)
        sim.panel.save(output)
        if truth is not None:
            sim.truth.save(truth)
    seconds = time.perf_counter() - start

    summary = {
        "panel": str(output),
        "truth": str(truth) if truth is not None else None,
        "preset": preset,
        "seed": seed,
        **sim.summary(),
        "seconds": round(seconds, 3),
    }
    if json_output:
        print_json(summary)
        return
    table = render_simulation(summary, output, truth)
    console.print(table)
