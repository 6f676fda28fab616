"""Speed of the Stage 2 held-out protocol (PRIMEBench D.3) at the issue's scale, with baselines side by side.

Run (from the repository root)::

    .venv/bin/python benchmarks/bench_validate.py                 # 169 x 3,088, 20 splits x 6 r x 7 selectors
    .venv/bin/python benchmarks/bench_validate.py --splits 4      # a quicker run
    .venv/bin/python benchmarks/bench_validate.py --scoring-only  # only the scoring comparison (3.)
    .venv/bin/python benchmarks/bench_validate.py --scoring-only --paper-scale   # scoring at 386k items

What it prints:

1. data size (one simulated binary benchmark, one category pool) and the machine line with load average;
2. the full protocol with ``n_jobs=1`` and ``n_jobs=2`` (wall time; target <= 5 min on 2 cores) and the
   per-selector time (selection + scoring summed over its tasks, from the ``n_jobs=1`` run), checked to
   give identical rho arrays;
3. scoring, benchsift against two baselines on the same kept-item masks (one call = the scoring of every
   (split, selector) task; min / median over ``--repeats`` calls, each side alternated with the baseline by
   ``timed_pair``, so load bursts hit both):

   * the held-out means: the protocol's path (``CategoryBlocks.kept_means``: one small matrix product per
     category and task, under the one-thread policy) against the strongest simple baseline, one 0/1
     indicator matrix per selector (retention x category rows, built once) and per split and selector
     one product of the filled held-out scores and one of their presence with it (a mean over present
     cells, as ``nanmean``; under the same BLAS thread policy); the ratio quoted is against it. A lean
     numpy loop (``np.nanmean(H[:, kept], axis=1)`` per retention and category, kept indices
     precomputed) is printed beside it, labelled strawman;
   * means + Spearman rho: the protocol's path plus ``per_category_rho`` against the strongest simple
     baseline, the indicator-product means above and a vectorised Spearman over the held-out models
     (``scipy.stats.rankdata`` along the models of every split, selector, retention and category at once,
     then Pearson of the centred ranks as column sums); the quoted ratio. A loop of ``np.nanmean`` +
     ``scipy.stats.spearmanr`` per selection is printed beside it, labelled strawman.

   Every baseline is checked to agree (max |diff| printed; the vectorised ones asserted to 1e-10 where
   the values are finite). Then the thread policy: one task's scoring (``kept_means``) and one
   ``weighted_group_means`` call with BLAS limited to one and to two threads (``threadpoolctl``; the two
   limits alternated call by call), beside the lean loop: the measurement behind ``HOT_LOOP_THREADS``
   (:mod:`benchsift._threads`). ``--paper-scale`` runs 3. on the PRIMEBench-scale simulation (30 image
   models, 15 held out, 386k items in 18 category pools) instead.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable
from typing import Any
from unittest.mock import patch

import numpy as np
from _timing import load_average, machine_line, ratio_cell, timed, timed_pair
from scipy import stats
from threadpoolctl import threadpool_limits

from benchsift import _threads
from benchsift._threads import HOT_LOOP_THREADS
from benchsift.compression.protocols import random_splits, stage2_heldout
from benchsift.compression.protocols.group_means import CategoryBlocks, weighted_group_means
from benchsift.compression.protocols.pools import prepare_pools
from benchsift.compression.protocols.specs import DEFAULT_RETENTIONS, DEFAULT_SELECTORS
from benchsift.compression.protocols.stage2_heldout import per_category_rho
from benchsift.compression.selectors.budget import category_budget
from benchsift.panel import Panel
from benchsift.simulate import SimulationConfig, simulate_panel


def protocol_run(panel: Panel, splits: int, seed: int, skip_parallel: bool) -> None:
    sels, rets = list(DEFAULT_SELECTORS), list(DEFAULT_RETENTIONS)
    print(f"protocol: {splits} random splits x {len(rets)} retentions x {len(sels)} selectors")
    runs = {}
    for n_jobs in (1,) if skip_parallel else (1, 2):
        t0 = time.perf_counter()
        runs[n_jobs] = stage2_heldout(
            panel, selectors=sels, retentions=rets, n_splits=splits, random_state=seed, n_jobs=n_jobs
        )
        print(f"stage2_heldout n_jobs={n_jobs}: {time.perf_counter() - t0:8.1f} s  (load {load_average()})")
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


def scoring_comparison(panel: Panel, n_splits: int, n_selectors: int, seed: int, repeats: int) -> None:
    """Section 3 of the module docstring: the scoring of every (split, selector) task, three ways."""
    pools = prepare_pools(panel)
    rets = list(DEFAULT_RETENTIONS)
    n_ret, n_cat = len(rets), pools.n_categories
    rng = np.random.default_rng(seed)
    splits = random_splits(pools.n_models, n_splits, random_state=seed)
    S = pools.scores
    # kept-item masks per selector: a random K_C items of every category pool at every retention
    masks = np.zeros((n_selectors, pools.n_items, n_ret))
    kept: list[list[list[np.ndarray]]] = []
    for s in range(n_selectors):
        kept.append([])
        for j, r in enumerate(rets):
            kept[s].append([])
            for c in range(n_cat):
                cols = pools.columns[c]
                pick = np.sort(
                    cols[rng.choice(cols.shape[0], category_budget(cols.shape[0], r), replace=False)]
                )
                masks[s, pick, j] = 1.0
                kept[s][j].append(pick)
    full = weighted_group_means(S, pools.onehot())
    blocks = CategoryBlocks.from_pools(pools)  # once per protocol run, as stage2_heldout does
    print(
        f"\nscoring {n_splits} splits x {n_selectors} selectors x {n_ret} retentions x {n_cat} categories "
        f"({pools.n_models} models, ~{splits[0].n_heldout} held out, {pools.n_items:,} items; "
        f"{n_splits * n_selectors * n_ret * n_cat:,} selections; hot-loop BLAS threads {HOT_LOOP_THREADS})"
    )

    def ours_means() -> np.ndarray:
        out = np.empty((n_splits, n_selectors, splits[0].n_heldout, n_ret, n_cat))
        for i, sp in enumerate(splits):
            for s in range(n_selectors):
                out[i, s] = blocks.kept_means(masks[s], sp.heldout)
        return out

    def lean_means() -> np.ndarray:
        out = np.empty((n_splits, n_selectors, splits[0].n_heldout, n_ret, n_cat))
        for i, sp in enumerate(splits):
            H = S[sp.heldout]
            for s in range(n_selectors):
                for j in range(n_ret):
                    for c in range(n_cat):
                        out[i, s, :, j, c] = np.nanmean(H[:, kept[s][j][c]], axis=1)
        return out

    # the strongest simple baseline: every selection of a selector as a 0/1 row of one indicator matrix B
    # (retention x category, items), built once; then per split and selector one product of the filled
    # held-out scores and one of their presence with B.T (a mean over present cells, as nanmean)
    indicators = []
    for s in range(n_selectors):
        B = np.zeros((n_ret * n_cat, pools.n_items))
        for j in range(n_ret):
            for c in range(n_cat):
                B[j * n_cat + c, kept[s][j][c]] = 1.0
        indicators.append(B)

    def product_means() -> np.ndarray:
        out = np.empty((n_splits, n_selectors, splits[0].n_heldout, n_ret, n_cat))
        # under benchsift's own BLAS thread policy: on a shared machine 2 BLAS threads were up to 100x
        # slower at the median for these small products (the thread-policy lines below)
        with threadpool_limits(HOT_LOOP_THREADS, user_api="blas"):
            return _product_means(out)

    def _product_means(out: np.ndarray) -> np.ndarray:
        for i, sp in enumerate(splits):
            H = S[sp.heldout]
            missing = np.isnan(H)
            filled, present = np.where(missing, 0.0, H), (~missing).astype(np.float64)  # BLAS: floats
            for s in range(n_selectors):
                with np.errstate(invalid="ignore", divide="ignore"):
                    m = (filled @ indicators[s].T) / (present @ indicators[s].T)
                out[i, s] = m.reshape(-1, n_ret, n_cat)
        return out

    def ours_rho() -> np.ndarray:
        means = ours_means()
        out = np.empty((n_splits, n_selectors, n_ret, n_cat))
        for i, sp in enumerate(splits):
            f = np.tile(full[sp.heldout], n_ret)
            for s in range(n_selectors):
                out[i, s] = per_category_rho(f, means[i, s].reshape(-1, n_ret * n_cat)).reshape(n_ret, n_cat)
        return out

    def product_rho() -> np.ndarray:
        """The strongest simple baseline: indicator-product means, then Spearman over the held-out models
        for every (split, selector, retention, category) at once (ranks, then Pearson of the ranks)."""
        means = product_means()  # (splits, selectors, held out, retentions, categories)
        rm = stats.rankdata(means, axis=2)
        rf = stats.rankdata(np.stack([full[sp.heldout] for sp in splits]), axis=1)[:, None, :, None, :]
        rm -= rm.mean(axis=2, keepdims=True)
        rf -= rf.mean(axis=2, keepdims=True)
        with np.errstate(invalid="ignore", divide="ignore"):
            return (rm * rf).sum(axis=2) / np.sqrt((rm * rm).sum(axis=2) * (rf * rf).sum(axis=2))

    def scipy_rho() -> np.ndarray:
        out = np.empty((n_splits, n_selectors, n_ret, n_cat))
        for i, sp in enumerate(splits):
            H = S[sp.heldout]
            f = full[sp.heldout]
            for s in range(n_selectors):
                for j in range(n_ret):
                    for c in range(n_cat):
                        m = np.nanmean(H[:, kept[s][j][c]], axis=1)
                        out[i, s, j, c] = stats.spearmanr(f[:, c], m).statistic
        return out

    ours_means(), lean_means(), product_means()  # warm-up, not timed (thread controller, caches)
    ours, best = timed_pair(ours_means, product_means, repeats)
    print(
        f"  held-out means, benchsift (a product per category and task): {ours.cell('ms')} ms (min / median)"
    )
    print(f"  held-out means, strongest baseline (one indicator product per task): {best.cell('ms')} ms")
    diff = np.nanmax(np.abs(ours.result - best.result))
    print(
        f"    benchsift vs strongest baseline: {ratio_cell(ours, best)} (min / median); max |diff| {diff:.1e}"
    )
    ours2, lean = timed_pair(ours_means, lean_means, repeats)
    print(f"  held-out means, strawman: numpy loop (nanmean per selection): {lean.cell('ms')} ms")
    diff = np.nanmax(np.abs(ours2.result - lean.result))
    print(f"    benchsift vs strawman loop: {ratio_cell(ours2, lean)} (min / median); max |diff| {diff:.1e}")
    print(f"    load {load_average()}")
    thread_policy(blocks, S, masks[0], splits[0].heldout, kept[0], repeats * 30)
    ours_rho(), product_rho()  # warm-up, not timed
    ours_r, fast = timed_pair(ours_rho, product_rho, repeats)
    print(f"  means + rho, benchsift (per_category_rho): {ours_r.cell('ms')} ms (min / median)")
    print(f"  means + rho, strongest baseline (indicator means + vectorised Spearman): {fast.cell('ms')} ms")
    diff = _agree(ours_r.result, fast.result, "means + rho, the vectorised baseline")
    slower = " (< 1: benchsift SLOWER)" if fast.median < ours_r.median else ""
    print(
        f"    benchsift vs strongest baseline: {ratio_cell(ours_r, fast)} (min / median){slower}; "
        f"max |diff| {diff:.1e}"
    )
    ours_r2, slow = timed_pair(ours_rho, scipy_rho, max(1, repeats // 2))
    print(f"  means + rho, strawman: nanmean + scipy.spearmanr loop: {slow.cell('ms')} ms")
    diff = np.nanmax(np.abs(ours_r2.result - slow.result))
    print(
        f"    benchsift vs strawman loop: {ratio_cell(ours_r2, slow)} (min / median); max |diff| {diff:.1e}"
    )
    print(f"    load {load_average()}")


def _agree(a: np.ndarray, b: np.ndarray, what: str) -> float:
    """Max |diff| where both are finite, asserted <= 1e-10 (NaN, e.g. a category with too few held-out
    models, may differ: per_category_rho drops incomplete models, the baseline gives NaN)."""
    both = np.isfinite(a) & np.isfinite(b)
    diff = float(np.max(np.abs(a[both] - b[both]))) if both.any() else 0.0
    assert diff <= 1e-10, f"{what}: differs from benchsift by {diff:.1e}"
    return diff


def thread_policy(
    blocks: CategoryBlocks,
    S: np.ndarray,
    W: np.ndarray,
    rows: np.ndarray,
    kept: list[list[np.ndarray]],
    repeats: int,
) -> None:
    """One task's scoring and one ``weighted_group_means`` call on 1 vs 2 BLAS threads, and the lean loop."""
    H = S[rows]

    def limited(n: int, fn: Callable[[], Any]) -> Callable[[], Any]:
        def run() -> Any:  # the functions enter the package policy themselves: set its limit to n
            with patch.object(_threads, "HOT_LOOP_THREADS", n):
                return fn()

        return run

    def lean() -> list[np.ndarray]:
        return [np.nanmean(H[:, cols], axis=1) for per_r in kept for cols in per_r]

    print("  thread policy (one task; min / median ms over alternated calls):")
    for label, fn in (
        ("kept_means (one task)", lambda: blocks.kept_means(W, rows)),
        ("weighted_group_means (held-out x retentions)", lambda: weighted_group_means(H, W)),
    ):
        one, two = timed_pair(limited(1, fn), limited(2, fn), repeats)
        print(f"    {label:46s}: 1 thread {one.cell('ms')}, 2 threads {two.cell('ms')}")
    base = timed(lean, repeats)
    print(f"    {'strawman: lean numpy loop (one task)':46s}: {base.cell('ms')}; load {load_average()}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--models", type=int, default=169)
    ap.add_argument("--items", type=int, default=3088)
    ap.add_argument("--splits", type=int, default=20)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--repeats", type=int, default=7, help="timed calls per side in the scoring comparison")
    ap.add_argument("--skip-parallel", action="store_true", help="Only run n_jobs=1.")
    ap.add_argument("--scoring-only", action="store_true", help="Only the scoring comparison (3.).")
    ap.add_argument("--paper-scale", action="store_true", help="Scoring on the PRIMEBench-scale panel.")
    args = ap.parse_args()

    if args.paper_scale:
        panel = simulate_panel(SimulationConfig.primebench(), args.seed).panel
        print(f"data: PRIMEBench-scale simulation, {panel.n_models} model rows x {panel.n_items:,} items")
    else:
        cfg = SimulationConfig.unidimensional(n_models=args.models, n_items=args.items)
        panel = simulate_panel(cfg, args.seed).panel
        print(f"data: {panel.n_models} models x {panel.n_items} items (one benchmark, one category pool)")
    print(machine_line())
    if not args.scoring_only:
        protocol_run(panel, args.splits, args.seed, args.skip_parallel)
    n_sel = 3 if args.paper_scale else len(DEFAULT_SELECTORS)
    scoring_comparison(panel, args.splits, n_sel, args.seed, args.repeats)
    print(f"load average at the end: {load_average()}")


if __name__ == "__main__":
    main()
