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
in its own fresh subprocess that builds the table and then runs the step; its peak is the child's maximum
resident set (``getrusage(RUSAGE_CHILDREN)`` through a one-child wrapper), its CPU time user + system. The
step ``table only`` (the table built, nothing run) is the floor to read the others against.
``--before-src DIR`` runs ``from_long`` with ``PYTHONPATH=DIR`` too (``git archive 7acdf7f src | tar -x -C
/tmp/before`` gives ``/tmp/before/src``), right after the current code's, so both see the same load.

Run: ``python benchmarks/bench_from_long.py [--models 1000] [--items 20000] [--object] [--repeats 1]
[--before-src DIR]``.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
from pathlib import Path

from _timing import machine_line

WRAP = """
import resource, subprocess, sys, time
t = time.perf_counter()
rc = subprocess.run([sys.executable, "-c", sys.argv[1]]).returncode
wall = time.perf_counter() - t
r = resource.getrusage(resource.RUSAGE_CHILDREN)
print(r.ru_maxrss * 1024, wall, r.ru_utime + r.ru_stime, rc)
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
    "table only": "",
    "numpy factorize + scatter": (
        "r, _ = pd.factorize(df['model']); b, _ = pd.factorize(df['benchmark']);"
        " q, _ = pd.factorize(df['item']); i, u = pd.factorize(b.astype(np.int64) * (q.max() + 1) + q);"
        " m = np.full((r.max() + 1, len(u)), np.nan); m[r, i] = df['score'].to_numpy()"
    ),
    "Panel.from_long": (
        "from benchsift.panel import Panel; p = Panel.from_long(df); assert p.shape == (n_m, n_i)"
    ),
}


def run(code: str, src: str | None) -> tuple[float, float, float]:
    env = dict(os.environ)
    if src is not None:
        env["PYTHONPATH"] = src
    out = subprocess.run(
        [sys.executable, "-c", WRAP, code], env=env, capture_output=True, text=True, check=True
    ).stdout.split()
    peak, wall, cpu, rc = float(out[0]), float(out[1]), float(out[2]), int(out[3])
    if rc != 0:
        raise SystemExit(f"step failed: {code[-200:]}")
    return peak, wall, cpu


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--models", type=int, default=1000)
    ap.add_argument("--items", type=int, default=20000)
    ap.add_argument("--object", action="store_true", help="ids as object columns of Python strings")
    ap.add_argument("--repeats", type=int, default=1)
    ap.add_argument("--before-src", type=str, default=None)
    args = ap.parse_args()
    here = str(Path(__file__).resolve().parents[1] / "src")
    table = TABLE.format(models=args.models, items=args.items, object=args.object)
    print(machine_line())
    print(
        f"table: {args.models} x {args.items} = {args.models * args.items:,} rows, ids "
        f"{'object' if args.object else 'pandas default text'}"
    )
    print(f"{'step':40s} {'peak GB':>8s} {'wall s':>8s} {'cpu s':>8s}")
    for name, step in STEPS.items():
        sides = [("", here)] + (
            [(" [before]", args.before_src)] if name == "Panel.from_long" and args.before_src else []
        )
        for _ in range(args.repeats):
            for suffix, src in sides:
                peak, wall, cpu = run(table + step, src)
                print(f"{name + suffix:40s} {peak / 1e9:8.2f} {wall:8.1f} {cpu:8.1f}", flush=True)
    print(machine_line())


if __name__ == "__main__":
    main()
