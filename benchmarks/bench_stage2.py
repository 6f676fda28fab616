"""Speed and memory of PRIMEBench Stage 2 (VAW item pruning) at the paper's scale, beside a baseline.

Run (from the repository root)::

    OMP_NUM_THREADS=2 OPENBLAS_NUM_THREADS=2 .venv/bin/python benchmarks/bench_stage2.py
    .venv/bin/python benchmarks/bench_stage2.py --items-per-benchmark 2000      # a quicker, smaller panel
    .venv/bin/python benchmarks/bench_stage2.py --variants cells,shares,random-cells,text-cells

Data: ``simulate_panel(SimulationConfig.primebench())`` -- 30 image models (+ 6 text-only runs), 43
benchmarks in 18 categories, ~386k items, 64-dim vision-text and text-only embeddings -- and Stage 2 runs
on every item (as if Stages 0-1 had kept them all, the worst case; the real Stage 2 input is smaller).

What it prints: data size and the machine line with load average, then one row per method with the wall time
(min / median over ``--repeats`` runs, :mod:`_timing`), its ratio to the baseline's (min / median), peak
traced memory (``tracemalloc``, one more run unless ``--no-memory``), items kept and the mean over categories
of the Spearman rho between the image models' full-pool category mean and their mean on the kept items (an
in-panel sanity check, not the held-out protocol), and the load average after each row. Methods:

* ``baseline: top variance`` -- the plain Variance selector (category-wide top ``K_C`` by plug-in
  variance, seeded random ties), vectorized in this script: the cheapest reasonable Stage 2;
* ``vaw/<variant>`` -- :func:`benchsift.compression.stages.prune.stage2_prune` with VAW (``cells`` by
  default; the D.4
  variants on request; ``dpp`` is O(n_b K_b^2) and slow at this scale, so it is not in the default list);
* ``built-in text embedding`` -- the TF-IDF + SVD fallback that Stage 2 builds from the question text when
  no embeddings are given (not included in the ``vaw/*`` rows, which use the simulated embeddings).

Target (issue 4): Stage 2 under ~25 s of the 60 s / 4 GB budget of Stages 0-3 on 2 cores. Timings are
wall-clock on whatever else runs on the machine: rerun on a quiet machine for numbers to quote.
"""

from __future__ import annotations

import argparse
import resource
import time
import tracemalloc
from collections.abc import Callable
from typing import Any

import numpy as np
from _data import primebench_panel
from _timing import Timing, load_average, machine_line, timed
from rich.console import Console
from rich.table import Table

from benchsift.compression import ItemEmbeddings
from benchsift.compression.selectors.base import item_variance, top_k_positions
from benchsift.compression.selectors.budget import category_budget
from benchsift.compression.stages.prune import stage2_prune
from benchsift.panel import Panel
from benchsift.panel.categories import category_or_benchmark
from benchsift.stats import check_random_state, spearman


def top_variance_baseline(panel: Panel, retention: float, floor: int = 100, seed: int = 0) -> np.ndarray:
    """Category-wide top-K_C items by plug-in variance over the image models (seeded random ties)."""
    scores = panel.scores[panel.image_rows]
    v, _ = item_variance(scores)
    cats = category_or_benchmark(panel.items)
    codes, names = np.unique(cats, return_inverse=True)
    order = np.argsort(names, kind="stable")
    bounds = np.concatenate([[0], np.cumsum(np.bincount(names))])
    rng = check_random_state(seed)
    kept = []
    for c in range(len(codes)):
        cols = order[bounds[c] : bounds[c + 1]]
        k = category_budget(cols.shape[0], retention, floor)
        kept.append(cols[top_k_positions(v[cols], k, rng)])
    return np.sort(np.concatenate(kept))


def category_fidelity(panel: Panel, kept: np.ndarray) -> float:
    """Mean over categories of Spearman rho(full-pool mean, kept-items mean) over the image models."""
    img = panel.image_panel()
    full = img.category_means().means
    pruned = img.subset(items=kept).category_means()
    part = pruned.means
    cats_full = img.category_means().groups
    idx = {g: j for j, g in enumerate(pruned.groups)}
    rhos = [spearman(full[:, j], part[:, idx[g]]) for j, g in enumerate(cats_full) if g in idx]
    return float(np.nanmean(rhos))


def _measure(fn: Callable[[], Any], repeats: int, memory: bool) -> tuple[Timing, float]:
    """Wall time of ``repeats`` runs (min / median) and, unless ``memory`` is off, the peak traced MiB of one
    more run (tracing slows the run down, so it is not timed)."""
    t = timed(fn, repeats)
    peak = float("nan")
    if memory:
        tracemalloc.start()
        fn()
        peak = tracemalloc.get_traced_memory()[1] / 2**20
        tracemalloc.stop()
    return t, peak


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--items-per-benchmark", type=int, default=None, help="default: the paper's 8,984")
    ap.add_argument("--retention", type=float, default=0.05)
    ap.add_argument("--variants", default="cells,shares", help="comma list of VAW variants to time")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--repeats", type=int, default=3, help="timed runs per method (min / median)")
    ap.add_argument("--no-memory", action="store_true", help="skip the tracemalloc pass")
    args = ap.parse_args(argv)
    console = Console(width=120)

    over: dict[str, Any] = {}
    if args.items_per_benchmark:
        over["items_per_benchmark"] = args.items_per_benchmark
    t0 = time.perf_counter()
    sim, emb = primebench_panel(args.seed, **over)
    t_sim = time.perf_counter() - t0
    panel, truth = sim.panel, sim.truth
    sizes = panel.items["benchmark"].value_counts()
    console.print(
        f"data: {int(panel.image_rows.sum())} image models "
        f"(+{int((panel.models['condition'] != 'image').sum())} text-only rows) x {panel.n_items:,} items, "
        f"{len(panel.benchmarks)} benchmarks (sizes {sizes.min():,}-{sizes.max():,}), "
        f"{len(panel.categories)} categories, embeddings {truth.embeddings_vl.shape[1]}-dim; "
        f"simulated in {t_sim:.1f} s; r = {args.retention}"
    )
    console.print(machine_line())

    table = Table(title=f"Stage 2 at the paper's scale ({args.repeats} timed runs per method)")
    cols = (
        "method",
        "wall s (min / median)",
        "x baseline",
        "peak traced MiB",
        "items kept",
        "mean cat. rho",
        "load",
    )
    for col in cols:
        table.add_column(col, justify="right" if col != "method" else "left")

    base, peak = _measure(
        lambda: top_variance_baseline(panel, args.retention, seed=args.seed), args.repeats, not args.no_memory
    )
    kept = base.result
    table.add_row(
        "baseline: top variance",
        base.cell(),
        "1",
        f"{peak:.0f}",
        f"{kept.shape[0]:,}",
        f"{category_fidelity(panel, kept):.3f}",
        load_average(),
    )
    for variant in [v.strip() for v in args.variants.split(",") if v.strip()]:
        t, peak = _measure(
            lambda v=variant: stage2_prune(  # type: ignore[misc]
                panel, retention=args.retention, embeddings=emb, variant=v, random_state=args.seed
            ),
            args.repeats,
            not args.no_memory,
        )
        res = t.result
        slower = f"{t.min / base.min:.1f} / {t.median / base.median:.1f}"
        table.add_row(
            f"vaw/{variant}",
            t.cell(),
            slower,
            f"{peak:.0f}",
            f"{res.n_kept:,}",
            f"{category_fidelity(panel, res.kept):.3f}",
            load_average(),
        )
    if "question" in panel.items.columns:
        t0 = time.perf_counter()
        ItemEmbeddings.from_text(panel.items)
        table.add_row("built-in text embedding (fallback)", f"{time.perf_counter() - t0:.2f}", "", "", "")
    console.print(table)
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    console.print(
        f"process peak RSS (simulation included): {rss:.0f} MiB; load average at the end {load_average()}"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
