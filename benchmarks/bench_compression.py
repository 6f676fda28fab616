"""Speed and memory of PRIMEBench Stages 0-3 on a paper-scale simulated panel, with baselines side by side.

Run (from the repository root)::

    OMP_NUM_THREADS=2 OPENBLAS_NUM_THREADS=2 .venv/bin/python benchmarks/bench_compression.py
    .venv/bin/python benchmarks/bench_compression.py --items-per-benchmark 2000   # a quicker, smaller panel

What it prints:

1. data size and machine info;
2. per-stage wall time of ``run_pipeline`` (r = 5 %, k = 5, VAW, seeded) and per-stage peak traced memory
   (a second pass under ``tracemalloc``; ``--no-memory`` skips it), the process's peak RSS, and the suite's
   Spearman rho against the Stage 0 reference (target: <= 60 s, <= 4 GB, rho >= 0.95);
3. baseline, Stage 1 supplementation: the incremental running sums (ours) against recomputing every prefix
   from scratch, on the same candidates of the category with the most candidates (the first ``--prefixes``
   prefixes, both checked to give the same correlations);
4. baseline, Stage 3: exhaustive search against greedy forward selection at k = 5, and the full k-sweep.

Timings are wall-clock on whatever else runs on the machine: rerun on a quiet machine for numbers to quote.
"""

from __future__ import annotations

import argparse
import os
import platform
import resource
import sys
import time
import tracemalloc
from typing import Any

import numpy as np

from benchsift.compression.embeddings import ItemEmbeddings
from benchsift.compression.pipeline import CompressionConfig, pooled_category_means, run_pipeline
from benchsift.compression.stages.categories import exhaustive_search, greedy_path, reference_scores
from benchsift.compression.stages.representatives import (
    _candidate_order,
    category_z_mean,
    item_categories,
    stage1_select,
    supplement_pool,
)
from benchsift.simulate import SimulationConfig, simulate_panel
from benchsift.stats import corr_with_vector


def _machine() -> str:
    blas = ""
    try:
        cfg = np.show_config(mode="dicts")
        blas = cfg.get("Build Dependencies", {}).get("blas", {}).get("name", "")
    except (TypeError, AttributeError):
        blas = "?"
    threads = {
        k: os.environ.get(k, "-") for k in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")
    }
    return (
        f"python {sys.version.split()[0]}, numpy {np.__version__} ({blas}), {platform.machine()}, "
        f"{os.cpu_count()} CPUs, load avg {os.getloadavg()[0]:.1f}, threads {threads}"
    )


def _timed_pipeline(panel, cfg, emb, trace_memory: bool) -> tuple[dict[str, float], dict[str, float], Any]:
    times: dict[str, float] = {}
    peaks: dict[str, float] = {}
    state: dict[str, Any] = {"label": "setup", "t": time.perf_counter()}

    def mark(label: str) -> None:
        now = time.perf_counter()
        times[state["label"]] = now - state["t"]
        if trace_memory:
            peaks[state["label"]] = tracemalloc.get_traced_memory()[1] / 2**20
            tracemalloc.reset_peak()
        state["label"], state["t"] = label, now

    if trace_memory:
        tracemalloc.start()
    result = run_pipeline(panel, cfg, embeddings=emb, progress=mark)
    mark("done")
    if trace_memory:
        tracemalloc.stop()
    return times, peaks, result


def _naive_prefix_rhos(X: np.ndarray, base: np.ndarray, cands: np.ndarray, s_c: np.ndarray) -> np.ndarray:
    """Baseline: re-average the whole pool for every prefix (O(models x pool) per prefix)."""
    out = np.empty(cands.size + 1)
    for j in range(cands.size + 1):
        pool = X[:, np.concatenate([base, cands[:j]])]
        obs = ~np.isnan(pool)
        n = obs.sum(axis=1)
        pooled = np.full(X.shape[0], np.nan)
        np.divide(np.where(obs, pool, 0.0).sum(axis=1), n, out=pooled, where=n > 0)
        out[j] = corr_with_vector(np.round(pooled, 12)[:, None], s_c, "srcc")[0]
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--items-per-benchmark", type=int, default=8984, help="8984 = the paper's ~386k items")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--prefixes", type=int, default=1500, help="prefixes timed in the Stage 1 baseline")
    ap.add_argument("--no-memory", action="store_true", help="skip the tracemalloc pass")
    args = ap.parse_args()

    t0 = time.perf_counter()
    sim = simulate_panel(SimulationConfig.primebench(items_per_benchmark=args.items_per_benchmark), args.seed)
    t_sim = time.perf_counter() - t0
    panel = sim.panel
    emb = ItemEmbeddings(
        panel.items[["benchmark", "item"]],
        vision_text=sim.truth.embeddings_vl,
        text=sim.truth.embeddings_text,
        source="simulated",
    )
    n_img = int((panel.conditions == "image").sum())
    print("== PRIMEBench compression benchmark ==")
    print(f"machine: {_machine()}")
    print(
        f"panel:   {n_img} image models + {panel.n_models - n_img} text-only runs, {panel.n_items:,} items, "
        f"{len(panel.benchmarks)} benchmarks, {len(panel.categories)} categories, "
        f"embeddings {sim.truth.embeddings_vl.shape[1]}-dim (simulated in {t_sim:.1f} s, not counted)"
    )
    cfg = CompressionConfig(retention=0.05, k=5, seed=args.seed)

    times, _, result = _timed_pipeline(panel, cfg, emb, trace_memory=False)
    peaks: dict[str, float] = {}
    if not args.no_memory:
        _, peaks, _ = _timed_pipeline(panel, cfg, emb, trace_memory=True)
    rss_gb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20  # Linux: KiB
    print("\n-- run_pipeline, r = 5 %, k = 5, VAW --")
    print(f"{'stage':<44}{'seconds':>10}{'peak traced MiB':>18}")
    total = 0.0
    for label, sec in times.items():
        if label == "setup":
            label_shown = "setup (fingerprint, categories)"
        else:
            label_shown = label
        total += sec
        peak = f"{peaks[label]:.0f}" if label in peaks else "-"
        print(f"{label_shown:<44}{sec:>10.2f}{peak:>18}")
    print(f"{'total':<44}{total:>10.2f}")
    print(
        f"peak RSS of the process (simulation, panel, every pass): {rss_gb:.2f} GiB (target <= 60 s, 4 GiB)"
    )
    print(
        f"suite: {result.n_items_suite:,} items, categories {result.selected_categories}, "
        f"Spearman rho vs Stage 0 = {result.rho_suite_vs_stage0:.4f} (target >= 0.95)"
    )
    for s in result.stages:
        print(
            f"  stage {s.stage} {s.name:<30} {s.items_in:>9,} -> {s.items_out:>9,}  rho {s.rho:.4f}  "
            f"(stage figure {s.rho_stage:.4f})"
        )
    s0 = result.stage0
    planted_ok = bool(
        np.array_equal(s0.all_correct, sim.truth.all_correct)
        and np.array_equal(s0.blind_solvable, sim.truth.blind_solvable)
    )
    reps = result.stage1.categories
    multi = [c for c in reps if len(c.benchmarks) >= 3]
    central = sum(c.representative == sim.truth.central_benchmark[c.category] for c in multi)
    central_all = sum(c.representative == sim.truth.central_benchmark[c.category] for c in reps)
    print(
        f"ground truth: Stage 0 removes exactly the planted items: {planted_ok}; Stage 1 picks the planted "
        f"central benchmark in {central} of {len(multi)} categories with >= 3 benchmarks "
        f"({central_all} of {len(reps)} overall)"
    )

    # ---- Stage 1 baseline: incremental vs recompute-every-prefix
    clean = result.stage0.panel
    X = clean.scores
    s1 = stage1_select(clean)
    cats = item_categories(clean)
    bench = clean.items["benchmark"].to_numpy(dtype=object)
    order_b = {b: i for i, b in enumerate(clean.benchmarks)}
    bench_rank = np.array([order_b[b] for b in bench])
    biggest = max(s1.categories, key=lambda c: c.n_candidates)
    in_cat = cats == biggest.category
    rep_items = np.flatnonzero(in_cat & (bench == biggest.representative))
    cands = _candidate_order(X, np.flatnonzero(in_cat & (bench != biggest.representative)), bench_rank)
    names = biggest.benchmarks
    means = np.column_stack([np.nanmean(X[:, np.flatnonzero(in_cat & (bench == b))], axis=1) for b in names])
    s_c = category_z_mean(np.round(means, 12))
    n_pref = min(args.prefixes, cands.size)
    t = time.perf_counter()
    _, inc_trace = supplement_pool(X, rep_items, cands[:n_pref], s_c, target=2.0)
    t_inc = time.perf_counter() - t
    t = time.perf_counter()
    naive = _naive_prefix_rhos(X, rep_items, cands[:n_pref], s_c)
    t_naive = time.perf_counter() - t
    t = time.perf_counter()
    _, full_trace = supplement_pool(X, rep_items, cands, s_c, target=2.0)
    t_full = time.perf_counter() - t
    same = np.allclose(inc_trace, naive, atol=1e-9, equal_nan=True)
    print(
        f"\n-- Stage 1 supplementation, category {biggest.category} "
        f"({rep_items.size:,} representative items, "
        f"{cands.size:,} candidates) --"
    )
    print(f"{'method':<44}{'prefixes':>10}{'seconds':>10}{'ms/prefix':>12}")
    print(
        f"{'incremental running sums (ours)':<44}{n_pref:>10,}{t_inc:>10.3f}"
        f"{1e3 * t_inc / max(n_pref, 1):>12.4f}"
    )
    print(
        f"{'recompute every prefix (baseline)':<44}{n_pref:>10,}{t_naive:>10.3f}"
        f"{1e3 * t_naive / max(n_pref, 1):>12.4f}"
    )
    print(
        f"{'incremental, all candidates':<44}{cands.size:>10,}{t_full:>10.3f}"
        f"{1e3 * t_full / max(cands.size, 1):>12.4f}"
    )
    # the baseline's cost per prefix grows with the pool (base + j items): extrapolate per item-column
    per_column = t_naive / float(np.sum(rep_items.size + 1 + np.arange(n_pref)))
    full_naive = per_column * float(np.sum(rep_items.size + 1 + np.arange(cands.size)))
    print(
        f"same correlations on the common prefixes: {same}; speed-up {t_naive / max(t_inc, 1e-9):.0f}x; "
        f"the baseline on all {cands.size:,} prefixes would take about {full_naive:.0f} s "
        f"(extrapolated from its cost per pooled item-column)"
    )

    # ---- Stage 3 baseline: exhaustive vs greedy
    Xc, cat_names = pooled_category_means(clean)
    ref = reference_scores(Xc)
    t = time.perf_counter()
    exh = exhaustive_search(Xc, 5, ref)
    t_exh = time.perf_counter() - t
    t = time.perf_counter()
    gr = greedy_path(Xc, 5, ref)[-1]
    t_gr = time.perf_counter() - t
    t = time.perf_counter()
    for k in range(1, len(cat_names) + 1):
        exhaustive_search(Xc, k, ref)
    t_sweep = time.perf_counter() - t
    print(f"\n-- Stage 3 on the {len(cat_names)} cleaned category means, k = 5 --")
    print(f"{'method':<44}{'subsets':>10}{'seconds':>10}{'rho':>10}")
    print(f"{'exhaustive (vectorised chunks)':<44}{exh.n_evaluated:>10,}{t_exh:>10.3f}{exh.rho:>10.4f}")
    print(f"{'greedy forward selection':<44}{gr.n_evaluated:>10,}{t_gr:>10.3f}{gr.rho:>10.4f}")
    print(f"{'exhaustive k-sweep, every k':<44}{2 ** len(cat_names) - 1:>10,}{t_sweep:>10.3f}{'':>10}")


if __name__ == "__main__":
    main()
