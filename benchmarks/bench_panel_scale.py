"""Panel at the PRIMEBench scale: building, saving and loading time and peak memory.

Issue target: ``benchmarks/`` prints building, saving and loading time and peak memory of a panel at the
PRIMEBench scale (30 models x ~386k items; here plus 6 text-only runs, 64-dim embeddings).

Steps, all in this one process:

* ``simulate``: :func:`benchsift.simulate.simulate_panel` with the ``primebench`` preset (scores, text-only
  runs, embeddings, question text, and the Panel construction inside it);
* ``Panel(...)``: constructing (validating) a Panel again from the simulated arrays and tables;
* ``panel.save`` / ``Panel.load``: the benchsift parquet layout (one row per item, one column per model);
* baselines on the same data: the strongest simple one, the same wide layout (item columns, then one
  float column per model run) as a pandas DataFrame through ``DataFrame.to_parquet`` (zstd, as benchsift)
  / ``pd.read_parquet``: the headline ratio, printed under the table; a strawman (a weaker layout,
  labelled as such, not the comparison to quote): a long table (model, condition, benchmark, item as
  categoricals, score; one row per scored cell) through ``to_parquet`` / ``read_parquet``; and
  ``np.save`` / ``np.load`` of the bare float64 matrix (the floor: no metadata at all). Every round trip
  is asserted to give the same scores.

Each comparison goes through ``_timing.timed_pair`` (benchsift and the baseline alternate, ``--repeats``
calls each, min and median of the wall time); ``simulate_panel`` runs once (setup, not a comparison).
Then one more call of each step under tracemalloc for memory: ``traced peak`` is the tracemalloc peak of
the step (numpy and Python allocations; Arrow's own memory pool is not traced), ``arrow peak`` the Arrow
pool's high-water mark so far, ``RSS high-water`` the process's maximum resident set so far
(``resource.getrusage``; it only grows, so read it in step order).

Usage: ``python benchmarks/bench_panel_scale.py [--preset primebench] [--items-per-benchmark N] [--seed 0]
[--repeats 3] [--json FILE]``.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import sys
import tempfile
import tracemalloc
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa
from _timing import Timing, load_average, machine_line, ratio_cell, timed, timed_pair
from rich.console import Console
from rich.table import Table

from benchsift.panel import Panel
from benchsift.simulate import SimulationConfig, simulate_panel


def _rss_gb() -> float:
    scale = 1 if sys.platform == "darwin" else 1024  # ru_maxrss is bytes on macOS, KiB on Linux
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * scale / 1e9


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
    """The strawman layout (weaker than the wide one): one row per scored cell, keys as categoricals."""
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


def wide_frame(panel: Panel) -> pd.DataFrame:
    """The strongest simple baseline layout: benchsift's own (item columns, then one column per model run)."""
    scores = pd.DataFrame(panel.scores.T, columns=[f"score:{m}" for m in range(panel.n_models)])
    return pd.concat([panel.items.reset_index(drop=True), scores], axis=1)


def wide_save(panel: Panel, path: Path) -> None:
    wide_frame(panel).to_parquet(path, index=False, compression="zstd")


def wide_load(path: Path, n_models: int) -> tuple[pd.DataFrame, np.ndarray]:
    df = pd.read_parquet(path)
    cols = [f"score:{m}" for m in range(n_models)]
    return df.drop(columns=cols), df[cols].to_numpy().T


def traced(fn: Callable[[], Any]) -> tuple[float, float, float]:
    """One more call under tracemalloc: (traced peak GB, arrow pool peak GB so far, RSS high-water GB)."""
    tracemalloc.start()
    out = fn()
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    del out
    return peak / 1e9, pa.default_memory_pool().max_memory() / 1e9, _rss_gb()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--preset", default="primebench", choices=SimulationConfig.PRESETS)
    parser.add_argument("--items-per-benchmark", type=int, default=None, help="override (quick runs)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--repeats", type=int, default=3, help="timed calls of each side (alternated)")
    parser.add_argument("--json", default=None, help="also write the rows (all repeat times) to this file")
    args = parser.parse_args()
    overrides: dict[str, Any] = {}
    if args.items_per_benchmark is not None:
        overrides = {"items_per_benchmark": args.items_per_benchmark, "min_items_per_benchmark": 1}
    config = SimulationConfig.preset(args.preset, **overrides)
    console = Console(width=max(Console().width, 160))
    console.print(machine_line())
    console.print(machine_info())
    reps = args.repeats

    sim_t = timed(lambda: simulate_panel(config, random_state=args.seed), 1)
    sim = sim_t.result
    panel = sim.panel
    n_img = sim.truth.n_models
    console.print(
        f"Panel at the {args.preset} scale: {n_img} image models + {panel.n_models - n_img} text-only runs x "
        f"{panel.n_items:,} items, {len(panel.benchmarks)} benchmarks, {len(panel.categories)} categories, "
        f"{config.embedding_dim}-dim embeddings (seed {args.seed}); simulate_panel (incl. Panel, once, "
        f"not a comparison): {sim_t.min:.2f} s; min / median of {reps} alternated calls below"
    )
    # (step, benchsift, baseline, ours, base, note)
    rows: list[tuple[str, str, str, Timing, Timing | None, str]] = []
    memory: list[tuple[str, tuple[float, float, float]]] = []
    build_t = timed(lambda: Panel(panel.scores, panel.models, panel.items), reps)
    rows.append(("build", "Panel(scores, models, items)", "-", build_t, None, "validation"))
    long_t = timed(lambda: long_table(panel), reps)
    long_df = long_t.result
    rows.append(("build", "strawman: long table (categoricals)", "-", long_t, None, f"{len(long_df):,} rows"))

    with tempfile.TemporaryDirectory() as tmp:
        tmpdir = Path(tmp)
        path, wide, lpq, npy = (
            tmpdir / f for f in ("panel.parquet", "wide.parquet", "long.parquet", "s.npy")
        )
        savers: list[tuple[str, Callable[[], Any], Path]] = [
            ("pandas wide DataFrame.to_parquet", partial(wide_save, panel, wide), wide),
            ("strawman: long DataFrame.to_parquet", partial(long_df.to_parquet, lpq, index=False), lpq),
            ("np.save (floor: matrix only)", partial(np.save, npy, panel.scores), npy),
        ]
        for name, fn, target in savers:
            ours, base = timed_pair(lambda: panel.save(path), fn, reps)
            note = f"{path.stat().st_size / 1e6:.1f} MB vs {target.stat().st_size / 1e6:.1f} MB"
            rows.append(("save", "panel.save (parquet)", name, ours, base, note))
        loaders: list[tuple[str, Callable[[], Any], Callable[[Any], np.ndarray]]] = [
            ("pandas read_parquet (wide)", partial(wide_load, wide, panel.n_models), lambda r: r[1]),
            (
                "strawman: pd.read_parquet (long)",
                partial(pd.read_parquet, lpq),
                lambda r: _long_scores(r, panel),
            ),
            ("np.load (floor: matrix only)", partial(np.load, npy), lambda r: r),
        ]
        for name, fn, scores_of in loaders:
            ours, base = timed_pair(lambda: Panel.load(path), fn, reps)
            same = np.array_equal(ours.result.scores, panel.scores, equal_nan=True)
            same_base = np.array_equal(scores_of(base.result), panel.scores, equal_nan=True)
            assert same and same_base, f"round trip differs: benchsift {same}, {name} {same_base}"
            rows.append(("load", "Panel.load", name, ours, base, "round trips equal"))
        for what, fn in (
            ("Panel(scores, models, items)", lambda: Panel(panel.scores, panel.models, panel.items)),
            ("panel.save", lambda: panel.save(path)),
            ("Panel.load", lambda: Panel.load(path)),
            ("baseline wide to_parquet", partial(wide_save, panel, wide)),
            ("baseline wide read_parquet", partial(wide_load, wide, panel.n_models)),
            ("strawman long to_parquet", partial(long_df.to_parquet, lpq, index=False)),
            ("strawman long read_parquet", partial(pd.read_parquet, lpq)),
        ):
            memory.append((what, traced(fn)))
    del long_df

    table = Table(
        title="panel build / save / load: benchsift against baselines in the same run (wall seconds)"
    )
    for col in ("step", "benchsift", "baseline", "benchsift s", "baseline s", "speed-up", "", "note"):
        table.add_column(col, justify="left" if col in ("step", "benchsift", "baseline", "note") else "right")
    records: list[dict[str, object]] = []
    for step, what, name, o_t, b_t, note in rows:
        slower = "[bold red]benchsift SLOWER[/]" if b_t is not None and b_t.median < o_t.median else ""
        table.add_row(
            step,
            what,
            name,
            o_t.cell(),
            "-" if b_t is None else b_t.cell(),
            "-" if b_t is None else ratio_cell(o_t, b_t),
            slower,
            note,
        )
        records.append(
            {
                "workload": f"{step}: {what}",
                "baseline": name,
                "ours": o_t.seconds,
                "base": b_t and b_t.seconds,
            }
        )
    console.print(table)
    for step, what, name, o_t, b_t, _ in rows:
        if name.startswith("pandas") and b_t is not None:
            console.print(
                f"headline, {step}: {what} against the strongest simple baseline ({name}): "
                f"{ratio_cell(o_t, b_t)} (min / median)"
            )
    mtable = Table(title="memory (one more call of each under tracemalloc, after the timings)")
    for col in ("what", "traced peak GB", "arrow pool peak GB (so far)", "RSS high-water GB (so far)"):
        mtable.add_column(col, justify="left" if col == "what" else "right")
    for what, (peak, arrow, rss) in memory:
        mtable.add_row(what, f"{peak:.2f}", f"{arrow:.2f}", f"{rss:.2f}")
    console.print(mtable)
    console.print(
        f"speed-up = baseline / benchsift (min-ratio / median-ratio); load average after: {load_average()}"
    )
    if args.json:
        with open(args.json, "w") as fh:
            json.dump({"script": "bench_panel_scale", "rows": records, "rss_gb": _rss_gb()}, fh)


def _long_scores(df: pd.DataFrame, panel: Panel) -> np.ndarray:
    """The (models, items) matrix back from the long table (the categorical codes are the positions)."""
    out = np.full(panel.shape, np.nan)
    out[df["model_run"].cat.codes.to_numpy(), df["item"].cat.codes.to_numpy()] = df["score"].to_numpy()
    return out


if __name__ == "__main__":
    main()
