"""``benchsift simulate``: write a simulated panel (and optionally its ground truth) to disk."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

from benchsift.cli import _common
from benchsift.cli._common import ForceOpt, JsonOpt, emit, opt, outputs
from benchsift.report.tables.panel import render_simulation
from benchsift.simulate import SimulationConfig
from benchsift.workflows.panels import simulate_to_files


def simulate_command(
    output: Annotated[Path, opt("Panel file to write (parquet).", "-o", "--output")],
    preset: Annotated[str, opt("small | primebench | openvlm.")] = "small",
    models: Annotated[int | None, opt("Number of image-condition models.")] = None,
    benchmarks: Annotated[int | None, opt("Number of benchmarks.")] = None,
    categories: Annotated[int | None, opt("Number of categories.")] = None,
    items_per_benchmark: Annotated[int | None, opt("Mean number of items per benchmark.")] = None,
    seed: Annotated[int, opt("Random seed; the same seed gives the same panel.")] = 0,
    truth: Annotated[Path | None, opt("Also write the ground truth (.npz).")] = None,
    mislabel_rate: Annotated[
        float, opt("Audit plant: share of items with a flipped key (stronger models fail them more).")
    ] = 0.0,
    contamination_rate: Annotated[
        float, opt("Audit plant: share of items the contaminated models find easier than their ability.")
    ] = 0.0,
    contamination_boost: Annotated[
        float, opt("Logit advantage of the contaminated models on those items.")
    ] = 2.5,
    contamination_by: Annotated[
        str, opt("Who is contaminated: era (the newest models) or family (the largest family).")
    ] = "era",
    json_output: JsonOpt = False,
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
        mislabel_rate=mislabel_rate,
        contamination_rate=contamination_rate,
        contamination_boost=contamination_boost,
        contamination_by=contamination_by,
    )
    config.validate()
    with _common.err_console.status(f"simulating {config.n_models} models x {config.n_items:,} items ..."):
        run = simulate_to_files(config, output, truth=truth, random_state=seed, preset=preset)
    emit(json_output, run, lambda: render_simulation(run.payload, output, truth))
