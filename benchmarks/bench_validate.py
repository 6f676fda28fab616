"""Speed of the Stage 2 held-out protocol (PRIMEBench D.3) at the issue's scale, with a baseline side by side.

Run (from the repository root)::

    .venv/bin/python benchmarks/bench_validate.py                 # 169 x 3,088, 20 splits x 6 r x 7 selectors
    .venv/bin/python benchmarks/bench_validate.py --splits 4      # a quicker run

What it prints:

1. data size (one simulated binary benchmark, one category pool) and machine info;
2. the full protocol with ``n_jobs=1`` and ``n_jobs=2`` (wall time; target <= 5 min on 2 cores) and the
   per-selector time (selection + scoring summed over its tasks, from the ``n_jobs=1`` run), checked to
   give identical rho arrays;
3. baseline, scoring: the protocol's vectorised scoring (one pair of matrix products per (split,
   selector) task for every retention and category) against a per-selection loop of ``np.nanmean`` +
   ``scipy.stats.spearmanr``, on the same kept-item masks, checked to agree.

Timings are wall-clock on whatever else runs on the machine: rerun on a quiet machine for numbers to quote.
"""

from __future__ import annotations

import argparse
import os
import platform
import sys
import time

import numpy as np
from scipy import stats

from benchsift.compression.protocols import (
    DEFAULT_RETENTIONS,
    DEFAULT_SELECTORS,
    random_splits,
    stage2_heldout,
)
from benchsift.compression.protocols._pools import weighted_group_means
from benchsift.compression.protocols.stage2_heldout import per_category_rho
from benchsift.compression.selectors._budget import category_budget
from benchsift.simulate import SimulationConfig, simulate_panel


def _machine() -> str:
    threads = {k: os.environ.get(k, "-") for k in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS")}
    return (
        f"python {sys.version.split()[0]}, numpy {np.__version__}, {platform.machine()}, "
        f"{os.cpu_count()} CPUs, load avg {os.getloadavg()[0]:.1f}, threads {threads}"
    )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--models", type=int, default=169)
    ap.add_argument("--items", type=int, default=3088)
    ap.add_argument("--splits", type=int, default=20)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--skip-parallel", action="store_true", help="Only run n_jobs=1.")
    args = ap.parse_args()

    cfg = SimulationConfig.unidimensional(n_models=args.models, n_items=args.items)
    panel = simulate_panel(cfg, args.seed).panel
    sels, rets = list(DEFAULT_SELECTORS), list(DEFAULT_RETENTIONS)
    print(f"data: {panel.n_models} models x {panel.n_items} items (one benchmark, one category pool)")
    print(f"protocol: {args.splits} random splits x {len(rets)} retentions x {len(sels)} selectors")
    print(f"machine: {_machine()}\n")

    runs = {}
    for n_jobs in (1,) if args.skip_parallel else (1, 2):
        t0 = time.perf_counter()
        runs[n_jobs] = stage2_heldout(
            panel,
            selectors=sels,
            retentions=rets,
            n_splits=args.splits,
            random_state=args.seed,
            n_jobs=n_jobs,
        )
        print(f"stage2_heldout n_jobs={n_jobs}: {time.perf_counter() - t0:8.1f} s")
    if 2 in runs:
        same = np.array_equal(runs[1].rho, runs[2].rho, equal_nan=True)
        print(f"n_jobs=1 and n_jobs=2 give identical rho: {same}")
    print("\nper selector (n_jobs=1; selection + scoring summed over tasks):")
    total = sum(runs[1].seconds.values())
    for name, sec in runs[1].seconds.items():
        print(f"  {name:14s} {sec:8.2f} s  ({100 * sec / total:5.1f} %)")
    print("\nmean held-out rho per selector at r = 5 %:")
    summ = runs[1].summary()
    for _, row in summ[np.isclose(summ["retention"], 0.05)].iterrows():
        print(f"  {row['selector']:14s} {row['rho_mean']:.4f} (sd {row['rho_sd']:.4f}, wins {row['wins']})")

    # baseline, scoring only, on random kept-item masks of the protocol's budgets
    rng = np.random.default_rng(args.seed)
    splits = random_splits(panel.n_models, args.splits, random_state=args.seed)
    S = panel.scores
    n = S.shape[1]
    masks = np.zeros((len(sels), n, len(rets)))
    for s in range(len(sels)):
        for j, r in enumerate(rets):
            masks[s, rng.choice(n, category_budget(n, r), replace=False), j] = 1.0
    full = np.nanmean(S, axis=1, keepdims=True)
    t0 = time.perf_counter()
    fast = np.array(
        [
            [
                per_category_rho(
                    np.repeat(full[sp.heldout], len(rets), axis=1),
                    weighted_group_means(S[sp.heldout], masks[s]),
                )
                for s in range(len(sels))
            ]
            for sp in splits
        ]
    )
    t_fast = time.perf_counter() - t0
    t0 = time.perf_counter()
    slow = np.empty_like(fast)
    for i, sp in enumerate(splits):
        H = S[sp.heldout]
        f = np.nanmean(H, axis=1)
        for s in range(len(sels)):
            for j in range(len(rets)):
                kept = np.flatnonzero(masks[s, :, j])
                slow[i, s, j] = stats.spearmanr(f, np.nanmean(H[:, kept], axis=1)).statistic
    t_slow = time.perf_counter() - t0
    print(f"\nbaseline, scoring {len(splits) * len(sels) * len(rets)} selections (same masks):")
    print(f"  vectorised matrix products : {t_fast:8.3f} s")
    print(f"  nanmean + scipy.spearmanr  : {t_slow:8.3f} s  ({t_slow / max(t_fast, 1e-9):.1f}x)")
    print(f"  max |difference|           : {np.nanmax(np.abs(fast - slow)):.2e}")


if __name__ == "__main__":
    main()
