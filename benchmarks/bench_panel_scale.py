"""Panel at the PRIMEBench scale: building, saving and loading time and peak memory.

Issue target: ``benchmarks/`` prints building, saving and loading time and peak memory of a panel at the
PRIMEBench scale (30 models x ~386k items; here plus 6 text-only runs, 64-dim embeddings).

Steps, all in this one process:

* ``simulate``: :func:`benchsift.simulate.simulate_panel` with the ``primebench`` preset (scores, text-only
  runs, embeddings, question text, and the Panel construction inside it);
* ``Panel(...)``: constructing (validating) a Panel again from the simulated arrays and tables;
* ``panel.save`` / ``Panel.load``: the benchsift parquet layout (one row per item, one column per model);
* baselines on the same scores: ``np.save`` / ``np.load`` of the bare float64 matrix, and a long table
  (model, condition, benchmark, item as categoricals, score; one row per scored cell) through
  ``DataFrame.to_parquet`` / ``pd.read_parquet``.

Each step runs twice: untraced for ``wall s`` (elapsed) and ``CPU s`` (process CPU time, all threads; less
noisy on a shared machine), then under tracemalloc for the memory peak.
Memory columns: ``traced peak`` is the tracemalloc peak of the step (numpy and Python allocations; Arrow's
own memory pool is not traced), ``arrow peak`` the Arrow pool's high-water mark so far, ``RSS high-water``
the process's maximum resident set so far (``resource.getrusage``; it only grows, so read it in step order).

Usage: ``python benchmarks/bench_panel_scale.py [--preset primebench] [--items-per-benchmark N] [--seed 0]``.
"""

from __future__ import annotations

import argparse
import os
import platform
import resource
import sys
import tempfile
import time
import tracemalloc
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa
from rich.console import Console
from rich.table import Table

from benchsift.panel import Panel
from benchsift.simulate import SimulationConfig, simulate_panel


def _rss_gb() -> float:
    scale = 1 if sys.platform == "darwin" else 1024  # ru_maxrss is bytes on macOS, KiB on Linux
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * scale / 1e9


def measure(fn: Callable[[], Any]) -> tuple[Any, tuple[float, float, float, float, float]]:
    """Run ``fn`` twice: once untraced for the times (tracemalloc slows allocation-heavy code several-fold),
    once under tracemalloc for the peak. Return (result, (wall s, CPU s, traced peak GB, arrow peak GB,
    RSS high-water GB))."""
    t0, c0 = time.perf_counter(), time.process_time()
    out = fn()
    seconds, cpu = time.perf_counter() - t0, time.process_time() - c0
    del out
    tracemalloc.start()
    out = fn()
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    return out, (seconds, cpu, peak / 1e9, pa.default_memory_pool().max_memory() / 1e9, _rss_gb())


def machine_info() -> str:
    try:
        mem_gb = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 1e9
    except (ValueError, OSError, AttributeError):
        mem_gb = float("nan")
    return (
        f"{platform.platform()} | {platform.processor() or platform.machine()} | {os.cpu_count()} CPUs | "
        f"{mem_gb:.1f} GB RAM | Python {platform.python_version()} | numpy {np.__version__} | "
        f"pandas {pd.__version__} | pyarrow {pa.__version__}"
    )


def long_table(panel: Panel) -> pd.DataFrame:
    """The baseline layout: one row per scored cell, keys as categoricals."""
    n_m, n_i = panel.shape
    scores = panel.scores.ravel()
    keep = ~np.isnan(scores)
    mi = np.repeat(np.arange(n_m), n_i)[keep]
    ii = np.tile(np.arange(n_i), n_m)[keep]
    labels = [f"{m}|{c}" for m, c in zip(panel.models["model"], panel.models["condition"], strict=True)]
    bench_codes, bench_names = pd.factorize(panel.items["benchmark"])
    return pd.DataFrame(
        {
            "model_run": pd.Categorical.from_codes(mi, labels),
            "benchmark": pd.Categorical.from_codes(bench_codes[ii], bench_names),
            "item": pd.Categorical.from_codes(
                ii, panel.items["item"].to_numpy() + "@" + bench_codes.astype(str)
            ),
            "score": scores[keep],
        }
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--preset", default="primebench", choices=SimulationConfig.PRESETS)
    parser.add_argument("--items-per-benchmark", type=int, default=None, help="override (quick runs)")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    overrides: dict[str, Any] = {}
    if args.items_per_benchmark is not None:
        overrides = {"items_per_benchmark": args.items_per_benchmark, "min_items_per_benchmark": 1}
    config = SimulationConfig.preset(args.preset, **overrides)

    rows: list[tuple[str, str, tuple[float, ...], str]] = []
    sim, stats = measure(lambda: simulate_panel(config, random_state=args.seed))
    panel = sim.panel
    rows.append(("build", "simulate_panel (incl. Panel)", stats, ""))
    _, stats = measure(lambda: Panel(panel.scores, panel.models, panel.items))
    rows.append(("build", "Panel(scores, models, items)", stats, ""))

    with tempfile.TemporaryDirectory() as tmp:
        tmpdir = Path(tmp)
        path = tmpdir / "panel.parquet"
        _, stats = measure(lambda: panel.save(path))
        rows.append(("save", "panel.save (parquet)", stats, f"{path.stat().st_size / 1e6:.1f} MB"))
        loaded, stats = measure(lambda: Panel.load(path))
        same = np.array_equal(loaded.scores, panel.scores, equal_nan=True)
        rows.append(("load", "Panel.load", stats, f"round trip equal: {same}"))
        del loaded

        npy = tmpdir / "scores.npy"
        _, stats = measure(lambda: np.save(npy, panel.scores))
        rows.append(("save", "baseline np.save (matrix only)", stats, f"{npy.stat().st_size / 1e6:.1f} MB"))
        _, stats = measure(lambda: np.load(npy))
        rows.append(("load", "baseline np.load (matrix only)", stats, ""))

        long_df, stats = measure(lambda: long_table(panel))
        rows.append(("build", "baseline long table (categoricals)", stats, f"{len(long_df):,} rows"))
        lpq = tmpdir / "long.parquet"
        _, stats = measure(partial(long_df.to_parquet, lpq, index=False))
        rows.append(
            ("save", "baseline DataFrame.to_parquet (long)", stats, f"{lpq.stat().st_size / 1e6:.1f} MB")
        )
        del long_df
        _, stats = measure(lambda: pd.read_parquet(lpq))
        rows.append(("load", "baseline pd.read_parquet (long)", stats, ""))

    console = Console(width=max(Console().width, 160))
    n_img = sim.truth.n_models
    title = (
        f"Panel at the {args.preset} scale: {n_img} image models + {panel.n_models - n_img} text-only runs x "
        f"{panel.n_items:,} items, {len(panel.benchmarks)} benchmarks, {len(panel.categories)} categories, "
        f"{config.embedding_dim}-dim embeddings (seed {args.seed})"
    )
    table = Table(title=title, caption=machine_info())
    for col in (
        "step",
        "what",
        "wall s",
        "CPU s",
        "traced peak GB",
        "arrow peak GB",
        "RSS high-water GB",
        "note",
    ):
        table.add_column(col, justify="left" if col in ("step", "what", "note") else "right")
    for step, what, numbers, note in rows:
        table.add_row(step, what, *(f"{v:.2f}" for v in numbers), note)
    console.print(table)


if __name__ == "__main__":
    main()
