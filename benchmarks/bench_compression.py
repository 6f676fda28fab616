"""Speed and memory of PRIMEBench Stages 0-3 on a paper-scale simulated panel, with baselines side by side.

Run (from the repository root)::

    OMP_NUM_THREADS=2 OPENBLAS_NUM_THREADS=2 .venv/bin/python benchmarks/bench_compression.py
    .venv/bin/python benchmarks/bench_compression.py --items-per-benchmark 2000   # a quicker, smaller panel

What it prints:

1. data size and machine info;
2. per-stage wall time of ``run_pipeline`` (r = 5 %, k = 5, VAW, seeded) and per-stage peak traced memory
   (a second pass under ``tracemalloc``; ``--no-memory`` skips it), the process's peak RSS, and the suite's
   Spearman rho against the Stage 0 reference (target: <= 60 s, <= 4 GB, rho >= 0.95);
3. Stage 1 supplementation on the category with the most candidates, every prefix's Spearman rho:
   benchsift's chunked running sums (``supplement_pool``) against the strongest simple baseline, one
   ``np.cumsum`` over all candidate columns then a vectorised rank correlation (``scipy.stats.rankdata``
   with ``nan_policy="omit"``, centred ``nansum`` moments), and against a strawman (labelled so in the
   output, not quoted in the README), recomputing every prefix from scratch, on the first ``--prefixes``
   prefixes (nothing extrapolated);
4. Stage 3 at k = 5: benchsift's exhaustive search (vectorised chunks) against vectorised numpy (every
   k-subset in one index array, the pooled means, one ``rankdata`` rank correlation) and a strawman
   per-subset loop (``itertools.combinations``, the subset mean, ``rankdata``, a centred dot product), both
   asserted to pick the same subset with the same rho; greedy forward selection and the full k-sweep are
   shown for information (no baseline).

Every comparison goes through ``_timing.timed_pair`` (alternating, ``--repeats`` calls each, min and
median), the baselines' numbers are asserted equal to benchsift's (``TOL``), and the machine line with the
load average is printed before and after. The pipeline itself runs ``--repeats`` times untraced (min and
median per stage) and once more under tracemalloc.
"""

from __future__ import annotations

import argparse
import itertools
import json
import resource
import time
import tracemalloc
from functools import partial
from typing import Any

import numpy as np
import scipy.stats
from _data import primebench_panel
from _timing import Timing, load_average, machine_line, ratio_cell, timed, timed_pair

from benchsift.compression.pipeline import CompressionConfig, pooled_category_means, run_pipeline
from benchsift.compression.stages.categories import exhaustive_search, greedy_path, reference_scores
from benchsift.compression.stages.representatives import (
    _candidate_order,
    category_z_mean,
    stage1_select,
    supplement_pool,
)
from benchsift.stats.correlation import corr_with_vector

TOL = 1e-9
ROUND = 12  # benchsift rounds pooled means to 12 decimals so that equal means tie exactly in the ranks


def _numpy_srcc(P: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Spearman rho of each column of P with y over the complete rows: rankdata, then centred moments."""
    ok = ~np.isnan(P) & ~np.isnan(y)[:, None]
    R = scipy.stats.rankdata(np.where(ok, P, np.nan), axis=0, nan_policy="omit")
    S = scipy.stats.rankdata(np.where(ok, y[:, None], np.nan), axis=0, nan_policy="omit")
    R = R - np.nanmean(R, axis=0)
    S = S - np.nanmean(S, axis=0)
    with np.errstate(invalid="ignore", divide="ignore"):
        r = np.nansum(R * S, axis=0) / np.sqrt(np.nansum(R * R, axis=0) * np.nansum(S * S, axis=0))
    return np.where(np.isfinite(r), np.clip(r, -1.0, 1.0), np.nan)


def _cumsum_prefix_rhos(X: np.ndarray, base: np.ndarray, cands: np.ndarray, s_c: np.ndarray) -> np.ndarray:
    """Strongest simple baseline: every prefix's pooled mean from one cumsum, then one rank correlation."""
    pool = X[:, np.concatenate([base, cands])]
    obs = ~np.isnan(pool)
    sums = np.cumsum(np.where(obs, pool, 0.0), axis=1)[:, base.size - 1 :]
    counts = np.cumsum(obs, axis=1)[:, base.size - 1 :]
    with np.errstate(invalid="ignore", divide="ignore"):
        pooled = np.round(np.where(counts > 0, sums / counts, np.nan), ROUND)
    return _numpy_srcc(pooled, s_c)


def _trace(X: np.ndarray, base: np.ndarray, cands: np.ndarray, s_c: np.ndarray) -> np.ndarray:
    """benchsift: every prefix's rho from ``supplement_pool`` (a target above 1 never stops early)."""
    return supplement_pool(X, base, cands, s_c, target=2.0)[1]


def _numpy_exhaustive(Xc: np.ndarray, k: int, ref: np.ndarray) -> tuple[tuple[int, ...], float]:
    """Vectorised numpy: all k-subsets as one index array, their pooled means, one rank correlation."""
    combos = np.array(list(itertools.combinations(range(Xc.shape[1]), k)), dtype=np.intp)
    obs = ~np.isnan(Xc)
    sums = np.where(obs, Xc, 0.0).T[combos].sum(axis=1)  # (n_subsets, n_models)
    counts = obs.T[combos].sum(axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        pooled = np.round(np.where(counts > 0, sums / counts, np.nan), ROUND)
    rho = _numpy_srcc(pooled.T, ref)
    j = int(np.argmax(np.where(np.isfinite(rho), np.round(rho, ROUND), -np.inf)))
    return tuple(int(v) for v in combos[j]), float(rho[j])


def _lean_exhaustive(Xc: np.ndarray, k: int, ref: np.ndarray) -> tuple[tuple[int, ...], float]:
    """Per-subset loop: the subset's NaN-aware mean, rankdata, a centred dot product; best rounded rho."""
    obs = ~np.isnan(Xc)
    Z, W = np.where(obs, Xc, 0.0), obs.astype(np.float64)
    best: tuple[tuple[int, ...], float, float] = ((), -np.inf, np.nan)
    for combo in itertools.combinations(range(Xc.shape[1]), k):
        cols = list(combo)
        counts = W[:, cols].sum(axis=1)
        with np.errstate(invalid="ignore", divide="ignore"):
            m = np.round(np.where(counts > 0, Z[:, cols].sum(axis=1) / counts, np.nan), ROUND)
        ok = ~(np.isnan(m) | np.isnan(ref))
        a, b = scipy.stats.rankdata(m[ok]), scipy.stats.rankdata(ref[ok])
        a -= a.mean()
        b -= b.mean()
        with np.errstate(invalid="ignore", divide="ignore"):
            rho = float(a @ b / np.sqrt((a @ a) * (b @ b)))
        val = round(rho, ROUND) if np.isfinite(rho) else -np.inf
        if val > best[1]:
            best = (combo, val, rho)
    return best[0], best[2]


#: The stages of a full run (r and k set, full-score estimators on), in the order the pipeline runs them.
STAGE_LABELS = (
    "Stage 0: cleaning",
    "Stage 1: category representatives",
    "Stage 2: item pruning",
    "Stage 3: category-count pruning",
    "full-score estimators",
)


def _timed_pipeline(panel, cfg, emb, trace_memory: bool) -> tuple[dict[str, float], dict[str, float], Any]:
    times: dict[str, float] = {}
    peaks: dict[str, float] = {}
    state: dict[str, Any] = {"label": "setup", "t": time.perf_counter()}

    def step(done: int, total: int) -> None:
        # progress(done, total) reports after each stage: name the stage that starts next
        if done < len(STAGE_LABELS):
            mark(STAGE_LABELS[done])

    def mark(label: str) -> None:
        now = time.perf_counter()
        times[state["label"]] = now - state["t"]
        if trace_memory:
            peaks[state["label"]] = tracemalloc.get_traced_memory()[1] / 2**20
            tracemalloc.reset_peak()
        state["label"], state["t"] = label, now

    if trace_memory:
        tracemalloc.start()
    result = run_pipeline(panel, cfg, embeddings=emb, progress=step)
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
    ap.add_argument("--repeats", type=int, default=3, help="timed calls of each side (alternated)")
    ap.add_argument("--json", default=None, help="also write the rows (all repeat times) to this file")
    args = ap.parse_args()
    print(machine_line())
    records: list[dict[str, object]] = []

    t0 = time.perf_counter()
    sim, emb = primebench_panel(args.seed, items_per_benchmark=args.items_per_benchmark)
    t_sim = time.perf_counter() - t0
    panel = sim.panel
    n_img = int(panel.image_rows.sum())
    print("== PRIMEBench compression benchmark ==")
    print(
        f"panel:   {n_img} image models + {panel.n_models - n_img} text-only runs, {panel.n_items:,} items, "
        f"{len(panel.benchmarks)} benchmarks, {len(panel.categories)} categories, "
        f"embeddings {sim.truth.embeddings_vl.shape[1]}-dim (simulated in {t_sim:.1f} s, not counted)"
    )
    cfg = CompressionConfig(retention=0.05, k=5, random_state=args.seed)

    runs = [_timed_pipeline(panel, cfg, emb, trace_memory=False) for _ in range(max(1, args.repeats))]
    result = runs[-1][2]
    stage_times = {label: Timing(tuple(r[0][label] for r in runs), None) for label in runs[0][0]}
    total_time = Timing(tuple(sum(r[0].values()) for r in runs), None)
    records.append({"workload": "run_pipeline total", "baseline": None, "ours": total_time.seconds})
    peaks: dict[str, float] = {}
    if not args.no_memory:
        _, peaks, _ = _timed_pipeline(panel, cfg, emb, trace_memory=True)
    rss_gb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20  # Linux: KiB
    print(f"\n-- run_pipeline, r = 5 %, k = 5, VAW; min / median of {len(runs)} runs --")
    print(f"{'stage':<44}{'seconds':>16}{'peak traced MiB':>18}")
    for label, tm in stage_times.items():
        label_shown = "setup (fingerprint, categories)" if label == "setup" else label
        peak = f"{peaks[label]:.0f}" if label in peaks else "-"
        print(f"{label_shown:<44}{tm.cell():>16}{peak:>18}")
    print(f"{'total':<44}{total_time.cell():>16}")
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
    cats = clean.category_or_benchmark
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
    print(
        f"\n-- Stage 1 supplementation, category {biggest.category} "
        f"({rep_items.size:,} representative items, {cands.size:,} candidates); every prefix's rho; "
        f"min / median of {args.repeats} alternated calls --"
    )
    print(
        f"{'benchsift vs baseline':<52}{'prefixes':>9}{'benchsift s':>18}{'baseline s':>18}{'speed-up':>18}"
    )
    comparisons = (
        ("np.cumsum + vectorised rank corr", cands, _cumsum_prefix_rhos),
        ("strawman: recompute every prefix", cands[:n_pref], _naive_prefix_rhos),
    )
    for name, cs, base_fn in comparisons:
        ours, base = timed_pair(
            partial(_trace, X, rep_items, cs, s_c),
            partial(base_fn, X, rep_items, cs, s_c),
            args.repeats,
        )
        assert ours.result.shape == base.result.shape == (cs.size + 1,)
        assert np.allclose(ours.result, base.result, rtol=0, atol=TOL, equal_nan=True), name
        slower = "  benchsift SLOWER" if base.median < ours.median else ""
        print(
            f"{name:<52}{cs.size:>9,}{ours.cell():>18}{base.cell():>18}{ratio_cell(ours, base):>18}{slower}"
        )
        records.append(
            {
                "workload": f"stage 1, {cs.size} prefixes",
                "baseline": name,
                "ours": ours.seconds,
                "base": base.seconds,
            }
        )
    print(f"same rho on every prefix (to {TOL:g}) for both baselines")

    # ---- Stage 3: exhaustive search against a lean per-subset loop
    Xc, cat_names = pooled_category_means(clean)
    ref = reference_scores(Xc)
    stage3: list[tuple[str, Timing, Timing]] = []
    for name, search_fn in (
        ("baseline: vectorised numpy (all subsets)", _numpy_exhaustive),
        ("strawman: per-subset loop (combinations)", _lean_exhaustive),
    ):
        exh_t, base_t = timed_pair(
            partial(exhaustive_search, Xc, 5, ref), partial(search_fn, Xc, 5, ref), args.repeats
        )
        pos, rho = base_t.result
        assert tuple(pos) == exh_t.result.positions and abs(rho - exh_t.result.rho) <= TOL, (name, pos)
        stage3.append((name, exh_t, base_t))
    exh = exh_t.result
    gr_t = timed(lambda: greedy_path(Xc, 5, ref)[-1], args.repeats)
    sweep_t = timed(
        lambda: [exhaustive_search(Xc, k, ref) for k in range(1, len(cat_names) + 1)], args.repeats
    )
    print(
        f"\n-- Stage 3 on the {len(cat_names)} cleaned category means, k = 5; min / median of "
        f"{args.repeats} calls --"
    )
    print(f"{'method':<44}{'subsets':>10}{'seconds':>18}{'rho':>10}{'speed-up':>18}")
    for name, exh_t, base_t in stage3:
        slower = "  benchsift SLOWER" if base_t.median < exh_t.median else ""
        print(
            f"{'exhaustive (vectorised chunks)':<44}{exh.n_evaluated:>10,}{exh_t.cell():>18}{exh.rho:>10.4f}"
            f"{ratio_cell(exh_t, base_t):>18}{slower}"
        )
        print(f"{name:<44}{exh.n_evaluated:>10,}{base_t.cell():>18}{base_t.result[1]:>10.4f}{'1x':>18}")
        records.append(
            {
                "workload": "stage 3 exhaustive k=5",
                "baseline": name,
                "ours": exh_t.seconds,
                "base": base_t.seconds,
            }
        )
    gr = gr_t.result
    print(
        f"{'greedy forward selection (no baseline)':<44}{gr.n_evaluated:>10,}{gr_t.cell():>18}{gr.rho:>10.4f}"
    )
    print(
        f"{'exhaustive k-sweep, every k (no baseline)':<44}{2 ** len(cat_names) - 1:>10,}{sweep_t.cell():>18}"
    )
    print(f"both baselines pick the same subset {exh.positions} with the same rho (to {TOL:g})")
    print(f"load average after: {load_average()}")
    if args.json:
        with open(args.json, "w") as fh:
            json.dump({"script": "bench_compression", "rows": records, "rss_gib": rss_gb}, fh)


if __name__ == "__main__":
    main()
