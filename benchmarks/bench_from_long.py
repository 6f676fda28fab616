"""CPU time and peak memory of ``Panel.from_long`` on a big in-memory long table, before and after issue 37.

``Panel.from_long`` had its own pandas builder (the former ``panel/long.py``: ``check_frame`` copy of the
table, ``pd.factorize`` of the keys, a stable argsort of the cells for duplicates, ``groupby().nunique()`` for
the metadata rule); it now converts the DataFrame to pyarrow a block of rows at a time and runs the importers'
one builder (:mod:`benchsift.panel.long._columns`, :mod:`benchsift.panel.long._coded`). The baseline a good
numpy programmer would write: ``pd.factorize`` of the run and item keys and a scatter into a NaN matrix (no
checks, no duplicate detection).

The table: ``--models`` x ``--items`` rows (default 1,000 x 20,000 = 20 million), model by model, items in
two benchmarks, scores 0/1 with 3 % NaN; ids as pandas' default text columns (what ``read_csv`` gives:
``str``, pyarrow-backed on pandas 3) or, ``--object``, as object columns of Python strings. Each step runs
in its own fresh subprocess that builds the table, resets its peak resident set (``/proc/self/clear_refs``,
Linux) and runs the step: ``table GB`` is the resident set with the table built, ``peak GB`` the peak during
the step (``VmHWM``), ``added GB`` the difference (what the step needs on top of the table), ``cpu s`` the
step's CPU time (``time.process_time``: user + system, all threads), ``wall s`` its wall time (benchsift is
imported before the measured part, so neither side's time holds an import).
``--before-src DIR`` runs ``from_long`` with ``PYTHONPATH=DIR`` too (``git archive 7acdf7f src | tar -x -C
/tmp/before`` gives ``/tmp/before/src``), right after the current code's, so both see the same load.

Both sides run ``--repeats`` times (default 3), alternated (table only, baseline, ``from_long``, [before]
in every repeat, so a burst of load hits each), each run printed as it ends; the summary table then gives per
step the CPU and wall seconds as min / median of the repeats, the largest peak and added memory, and the
speed-up of ``Panel.from_long`` over the baseline (baseline / ``from_long``, of the minima / of the medians;
below 1: benchsift is slower). Before timing, both sides run in this process on a small table of the same
layout and the baseline matrix is checked equal to the panel's scores, cell by cell (the max difference is
printed). The baseline does less: no checks of the ids or scores, no duplicate detection, no metadata.

Run: ``python benchmarks/bench_from_long.py [--models 1000] [--items 20000] [--object] [--repeats 3]
[--before-src DIR]``.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
from _timing import Timing, machine_line, ratio_cell

#: around the step, in the child: the peak resident set reset (``/proc/self/clear_refs``) once the table is
#: built, then the step's CPU time, wall time and the peak reached (``VmHWM``)
MEASURE = """
import gc, time
def _kb(key):
    return next(int(x.split()[1]) for x in open("/proc/self/status") if x.startswith(key)) * 1024
gc.collect()
open("/proc/self/clear_refs", "w").write("5")
_base, _t, _w = _kb("VmRSS:"), time.process_time(), time.perf_counter()
{step}
print("STEP", _base, _kb("VmHWM:"), time.process_time() - _t, time.perf_counter() - _w)
"""

TABLE = """
import numpy as np, pandas as pd
n_m, n_i, obj = {models}, {items}, {object}
rng = np.random.default_rng(0)
names = np.array([f"model-{{m:04d}}" for m in range(n_m)], dtype=object)
items = np.array([f"q{{i}}" for i in range(n_i)], dtype=object)
bench = np.array(["MMStar" if i < n_i // 2 else "MMMU" for i in range(n_i)], dtype=object)
score = (rng.random(n_m * n_i) < 0.6).astype(float)
score[rng.random(score.size) < 0.03] = np.nan
cols = {{"model": np.repeat(names, n_i), "benchmark": np.tile(bench, n_m), "item": np.tile(items, n_m)}}
df = pd.DataFrame({{k: pd.Series(v, dtype=object if obj else None) for k, v in cols.items()}})
df["score"] = score
del cols, score
"""

STEPS = {
    "table only": "pass",
    "numpy factorize + scatter": (
        "r, _ = pd.factorize(df['model']); b, _ = pd.factorize(df['benchmark']);"
        " q, _ = pd.factorize(df['item']); i, u = pd.factorize(b.astype(np.int64) * (q.max() + 1) + q);"
        " m = np.full((r.max() + 1, len(u)), np.nan); m[r, i] = df['score'].to_numpy()"
    ),
    "Panel.from_long": "p = Panel.from_long(df); assert p.shape == (n_m, n_i)",
}
#: imports a step needs, run before the measured part (so the step's time is the work, not the import)
SETUP = {"Panel.from_long": "from benchsift.panel import Panel\n"}


def run(code: str, src: str | None) -> tuple[float, float, float, float]:
    """The table's resident set, the step's peak, CPU and wall seconds, in a fresh child."""
    env = dict(os.environ)
    if src is not None:
        env["PYTHONPATH"] = src
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
    line = next(x for x in out.stdout.splitlines() if x.startswith("STEP")).split()
    return float(line[1]), float(line[2]), float(line[3]), float(line[4])


def check_same(models: int = 30, items: int = 200, obj: bool = False) -> float:
    """Max |difference| between the baseline's matrix and ``Panel.from_long``'s scores on a small table of the
    benchmark's layout (rows and columns matched by model id and (benchmark, item)); raises if they differ."""
    from benchsift.panel import Panel

    ns: dict = {}
    exec(TABLE.format(models=models, items=items, object=obj), ns)
    exec(STEPS["numpy factorize + scatter"], ns)
    df, m, i = ns["df"], ns["m"], ns["i"]
    panel = Panel.from_long(df)
    first = np.unique(i, return_index=True)[1]  # a row of each item column, in column order
    cols = pd.MultiIndex.from_arrays([df["benchmark"].to_numpy()[first], df["item"].to_numpy()[first]])
    base = pd.DataFrame(m, index=pd.unique(df["model"]), columns=cols)
    want = pd.MultiIndex.from_frame(panel.items[["benchmark", "item"]])
    aligned = base.reindex(index=panel.model_ids, columns=want).to_numpy()
    same_nan = np.array_equal(np.isnan(aligned), np.isnan(panel.scores))
    diff = float(np.nanmax(np.abs(aligned - panel.scores)))
    assert same_nan and diff == 0.0, f"baseline and Panel.from_long differ (NaN pattern {same_nan}, {diff})"
    return diff


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--models", type=int, default=1000)
    ap.add_argument("--items", type=int, default=20000)
    ap.add_argument("--object", action="store_true", help="ids as object columns of Python strings")
    ap.add_argument("--repeats", type=int, default=3, help="runs of each step (alternated; min / median)")
    ap.add_argument("--before-src", type=str, default=None)
    args = ap.parse_args()
    here = str(Path(__file__).resolve().parents[1] / "src")
    table = TABLE.format(models=args.models, items=args.items, object=args.object)
    print(machine_line())
    print(
        f"table: {args.models} x {args.items} = {args.models * args.items:,} rows, ids "
        f"{'object' if args.object else 'pandas default text'}"
    )
    print(f"check: baseline matrix equals Panel.from_long's scores, max |diff| {check_same(obj=args.object)}")
    runs: dict[str, list[tuple[float, float, float, float]]] = {}
    head = f"{'step':32s} {'table GB':>9s} {'peak GB':>8s} {'added GB':>9s} {'cpu s':>7s} {'wall s':>7s}"
    print("  each run: " + head)
    for rep in range(max(1, args.repeats)):  # steps alternated within each repeat
        for name, step in STEPS.items():
            sides = [("", here)] + (
                [(" [before]", args.before_src)] if name == "Panel.from_long" and args.before_src else []
            )
            for suffix, src in sides:
                base, peak, cpu, wall = run(table + SETUP.get(name, "") + MEASURE.format(step=step), src)
                runs.setdefault(name + suffix, []).append((base, peak, cpu, wall))
                print(
                    f"  run {rep + 1:<6d} {name + suffix:32s} {base / 1e9:9.2f} {peak / 1e9:8.2f} "
                    f"{(peak - base) / 1e9:9.2f} {cpu:7.2f} {wall:7.2f}",
                    flush=True,
                )
    print(f"min / median of {max(1, args.repeats)} runs per step; peak and added GB: the largest run")
    print(f"{'step':32s} {'table GB':>9s} {'peak GB':>8s} {'added GB':>9s} {'cpu s':>15s} {'wall s':>15s}")
    cpu_t: dict[str, Timing] = {}
    wall_t: dict[str, Timing] = {}
    for label, rs in runs.items():
        cpu_t[label] = Timing(tuple(r[2] for r in rs), None)
        wall_t[label] = Timing(tuple(r[3] for r in rs), None)
        print(
            f"{label:32s} {max(r[0] for r in rs) / 1e9:9.2f} {max(r[1] for r in rs) / 1e9:8.2f} "
            f"{max(r[1] - r[0] for r in rs) / 1e9:9.2f} {cpu_t[label].cell():>15s} "
            f"{wall_t[label].cell():>15s}"
        )
    ours, base_name = "Panel.from_long", "numpy factorize + scatter"
    for label in [ours] + ([f"{ours} [before]"] if args.before_src else []):
        cpu_r = ratio_cell(cpu_t[label], cpu_t[base_name])
        wall_r = ratio_cell(wall_t[label], wall_t[base_name])
        print(f"speed-up of {label} over the baseline (min-ratio / median-ratio): cpu {cpu_r}, wall {wall_r}")
    if wall_t[ours].median > wall_t[base_name].median:
        print("Panel.from_long is SLOWER than the baseline (median wall) in this run")
    print(machine_line())


if __name__ == "__main__":
    main()
