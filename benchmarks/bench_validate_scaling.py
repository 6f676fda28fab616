"""How the Stage 2 held-out protocol (PRIMEBench D.3) grows with the number of items, at the paper's scale.

Run (from the repository root)::

    .venv/bin/python benchmarks/bench_validate_scaling.py                    # 1 split, 1/4, 1/2, all items
    .venv/bin/python benchmarks/bench_validate_scaling.py --splits 2 --repeats 5
    .venv/bin/python benchmarks/bench_validate_scaling.py --fractions 0.5,1 --selectors vaw

Data: ``simulate_panel(SimulationConfig.primebench())`` -- 30 image models (+ 6 text-only runs), 43
benchmarks in 18 categories, ~386k items, 64-dim vision-text and text-only embeddings. The 1/4 and 1/2 sizes
are *nested seeded subsamples of the items* of that one panel (every benchmark keeps the same fraction of its
items, so the category and benchmark mix, the models and the embedding geometry are the same at every size;
re-simulating with a smaller ``items_per_benchmark`` would also redraw the benchmark sizes and the latent
structure, mixing a change of panel into a change of size).

What it prints: machine line and load average, then each timed run of
``stage2_heldout(selectors=random,variance,vaw, the paper's six retentions)`` with the load average after it
(the sizes are interleaved run by run, so a burst of load from other processes hits every size), then per
size the items, the wall time (min / median over ``--repeats``, default 3) and the per-selector seconds of
the last run; finally the full/half and half/quarter time ratios of the minima and of the medians (2.0 =
linear in items; issue 14 asks for full/half <= 2.2), in wall time and in process CPU time. The hot loops run
on one thread, so CPU time is the work done; on a machine other processes load, wall time adds the waiting,
which moves with the load rather than with the items.

Baseline (beside the random selector only: the other selectors have no ten-line equivalent): right after
each benchsift run, :func:`random_heldout_baseline`, the held-out evaluation of the random selector a numpy
programmer would write for the same protocol: the same balanced random splits, per category pool and
(split, retention) a uniform draw of ``K_C = max(floor(r n_C), min(n_C, floor))`` items as one 0/1 column,
every model's NaN-aware mean on the kept items of all splits and retentions as one pair of products
(zero-filled scores and the observed mask), then Spearman (average ranks, ``scipy.stats.rankdata``) of the
held-out models' kept-item means against their full-pool means, vectorised over splits and retentions. It
draws with the seeds benchsift gives each selection (``task_seed``), so both sides keep the same items and
the per-category rho are compared (max |difference| printed). The comparison is benchsift's per-selector
seconds of ``random`` (``HeldoutResult.seconds``: its selections and scoring, without the run's shared set-up
of pools and splits) against the baseline's whole call (its splits and full-pool means included), min /
median over the repeats, and the speed-up baseline / benchsift (below 1: benchsift is slower).
"""

from __future__ import annotations

import argparse
import math
import zlib
from collections.abc import Sequence

import numpy as np
import pandas as pd
from _data import primebench_panel
from _timing import Timing, load_average, machine_line, ratio_cell, timed
from scipy.stats import rankdata

from benchsift.compression.protocols import stage2_heldout
from benchsift.compression.protocols.seeds import task_seed
from benchsift.compression.protocols.specs import DEFAULT_RETENTIONS
from benchsift.panel import Panel
from benchsift.panel.categories import category_or_benchmark


def random_heldout_baseline(
    scores: np.ndarray,
    categories: Sequence[str],
    retentions: Sequence[float],
    n_splits: int,
    floor: int = 100,
    seed: int = 0,
    min_heldout: int = 10,
) -> np.ndarray:
    """The random selector's held-out rho, ``(n_splits, n_retentions, n_categories)`` (module docstring).

    ``scores``: the image-condition models x items (NaN = missing); ``categories``: each item's pool (in
    order of first appearance, as the protocol orders them). The draws are benchsift's: its run seed, split
    permutations and per-selection seeds (``task_seed``), so the two sides can be compared value by value.
    """
    codes, _ = pd.factorize(np.asarray(categories, dtype=object))
    n, n_ret = scores.shape[0], len(retentions)
    base = int(np.random.default_rng(seed).integers(0, 2**31 - 1))
    perms = np.argsort(np.random.default_rng(base).random((n_splits, n)), axis=1)
    held = np.sort(perms[:, n // 2 :], axis=1).T  # (n_heldout, n_splits)
    obs = ~np.isnan(scores)
    zero, seen = np.where(obs, scores, 0.0), obs.astype(np.float64)
    key = zlib.crc32(b"random")
    rho = np.full((n_splits, n_ret, codes.max() + 1), np.nan)
    for c in range(codes.max() + 1):
        cols = np.flatnonzero(codes == c)
        n_c = cols.size
        full = zero[:, cols].sum(axis=1) / seen[:, cols].sum(axis=1)
        S3 = np.zeros((n_c, n_splits, n_ret))  # one 0/1 column per (split, retention)
        for j, r in enumerate(retentions):
            k = max(math.floor(r * n_c + 1e-9), min(n_c, floor))
            for i in range(n_splits):
                if k >= n_c:
                    S3[:, i, j] = 1.0
                else:
                    rng = np.random.default_rng(task_seed(base, i, key, round(r * 1e9), c))
                    S3[rng.permutation(n_c)[:k], i, j] = 1.0
        S = S3.reshape(n_c, -1)
        kept = ((zero[:, cols] @ S) / (seen[:, cols] @ S)).reshape(n, n_splits, n_ret)
        x = rankdata(kept[held, np.arange(n_splits)[None, :], :], axis=0)  # (n_heldout, n_splits, n_ret)
        y = rankdata(full[held], axis=0)[:, :, None]
        x, y = x - x.mean(axis=0), y - y.mean(axis=0)
        with np.errstate(invalid="ignore", divide="ignore"):
            rho[:, :, c] = (x * y).sum(axis=0) / np.sqrt((x * x).sum(axis=0) * (y * y).sum(axis=0))
    if held.shape[0] < min_heldout:
        rho[:] = np.nan
    return rho


def nested_item_subsets(panel: Panel, fractions: list[float], seed: int) -> dict[float, np.ndarray]:
    """Sorted item positions per fraction: in every benchmark, the first ``round(f n_b)`` items of one
    seeded permutation, so a smaller fraction's items are a subset of a larger one's."""

    rng = np.random.default_rng(seed)
    bench = panel.items["benchmark"].to_numpy()
    out: dict[float, list[np.ndarray]] = {f: [] for f in fractions}
    for name in np.unique(bench):
        pos = np.flatnonzero(bench == name)
        perm = pos[rng.permutation(pos.shape[0])]
        for f in fractions:
            out[f].append(perm[: max(1, int(round(f * pos.shape[0])))])
    return {f: np.sort(np.concatenate(parts)) for f, parts in out.items()}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--fractions", default="0.25,0.5,1", help="comma list of item fractions")
    ap.add_argument("--selectors", default="random,variance,vaw")
    ap.add_argument("--splits", type=int, default=1, help="random splits per validate run")
    ap.add_argument("--repeats", type=int, default=3, help="timed runs per size (min / median)")
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args(argv)
    fractions = sorted(float(f) for f in args.fractions.split(","))
    selectors = [s.strip() for s in args.selectors.split(",") if s.strip()]

    sim, emb = primebench_panel(args.seed)
    panel = sim.panel
    subsets = nested_item_subsets(panel, fractions, args.seed)
    print(f"data: PRIMEBench-scale simulation, {panel.n_models} model rows x {panel.n_items:,} items")
    print(
        f"protocol: {args.splits} random split(s) x {len(DEFAULT_RETENTIONS)} retentions x selectors "
        f"{','.join(selectors)}; {args.repeats} timed run(s) per size"
    )
    print(machine_line())
    subs = {f: panel.subset(items=subsets[f]) for f in fractions}
    image = np.asarray(panel.image_rows, dtype=bool)
    base_in: dict[float, tuple[np.ndarray, Sequence[str]]] = {
        f: (subs[f].scores[image], list(category_or_benchmark(subs[f].items))) for f in fractions
    }
    with_base = "random" in selectors
    seconds: dict[float, list[float]] = {f: [] for f in fractions}
    cpu: dict[float, list[float]] = {f: [] for f in fractions}
    rand: dict[float, list[float]] = {f: [] for f in fractions}
    base_s: dict[float, list[float]] = {f: [] for f in fractions}
    diff: dict[float, float] = dict.fromkeys(fractions, 0.0)
    last: dict[float, dict[str, float]] = {}
    for rep in range(max(1, args.repeats)):  # sizes interleaved, so a burst of load hits every size
        for f in fractions:
            t = timed(
                lambda f=f: stage2_heldout(  # type: ignore[misc]
                    subs[f], selectors=selectors, n_splits=args.splits, embeddings=emb, random_state=args.seed
                ),
                1,
            )
            seconds[f].append(t.seconds[0])
            cpu[f].append(t.cpu_seconds[0])
            last[f] = t.result.seconds
            extra = ""
            if with_base:
                b = timed(
                    lambda f=f: random_heldout_baseline(  # type: ignore[misc]
                        *base_in[f], DEFAULT_RETENTIONS, args.splits, seed=args.seed
                    ),
                    1,
                )
                rand[f].append(t.result.seconds["random"])
                base_s[f].append(b.seconds[0])
                ours = t.result.rho[:, t.result.selectors.index("random")]
                both = np.isfinite(ours) & np.isfinite(b.result)
                assert np.array_equal(np.isfinite(ours), np.isfinite(b.result)), "undefined rho differ"
                diff[f] = max(diff[f], float(np.max(np.abs(ours[both] - b.result[both]), initial=0.0)))
                extra = f"; random {rand[f][-1]:.2f} s, baseline {b.seconds[0]:.2f} s"
            print(
                f"  run {rep + 1}, items x {f:<5g}: {t.seconds[0]:6.1f} s wall, "
                f"{t.cpu_seconds[0]:6.1f} s CPU{extra}  load {load_average()}"
            )
    times = {f: Timing(tuple(v), None) for f, v in seconds.items()}
    cpus = {f: Timing(tuple(v), None) for f, v in cpu.items()}
    for f in fractions:
        per = ", ".join(f"{k} {v:.1f} s" for k, v in last[f].items())
        print(
            f"items x {f:<5g} {subs[f].n_items:>8,}: wall {times[f].cell()} s, CPU {cpus[f].cell()} s "
            f"(min / median)  [last run, wall: {per}]"
        )
    if with_base:
        print("random selector: benchsift (its selections + scoring) against the numpy baseline (whole call)")
        for f in fractions:
            ours_t, base_t = Timing(tuple(rand[f]), None), Timing(tuple(base_s[f]), None)
            slower = "  benchsift SLOWER (median)" if base_t.median < ours_t.median else ""
            print(
                f"items x {f:<5g} {subs[f].n_items:>8,}: random {ours_t.cell()} s, baseline "
                f"{base_t.cell()} s (min / median), speed-up {ratio_cell(ours_t, base_t)}, "
                f"max |rho diff| {diff[f]:.1e}{slower}"
            )
    else:
        print("no baseline: it is the random selector's, and `random` is not among --selectors")
    for lo, hi in zip(fractions[:-1], fractions[1:], strict=True):
        print(
            f"ratio {hi:g}/{lo:g} (items x {hi / lo:.2f}): wall x {times[hi].min / times[lo].min:.2f} (min), "
            f"x {times[hi].median / times[lo].median:.2f} (median); "
            f"CPU x {cpus[hi].min / cpus[lo].min:.2f} (min), "
            f"x {cpus[hi].median / cpus[lo].median:.2f} (median)"
        )
    print(f"load average at the end: {load_average()}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
