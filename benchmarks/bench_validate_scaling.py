"""How the Stage 2 held-out protocol (PRIMEBench D.3) grows with the number of items, at the paper's scale.

Run (from the repository root)::

    .venv/bin/python benchmarks/bench_validate_scaling.py                    # 1 split, 1/4, 1/2, all items
    .venv/bin/python benchmarks/bench_validate_scaling.py --splits 2 --repeats 2
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
size the items, the wall time (min / median over ``--repeats``) and the per-selector seconds of the last
run; finally the full/half and half/quarter time ratios of the minima and of the medians (2.0 = linear in
items; issue 14 asks for full/half <= 2.2), in wall time and in process CPU time. The hot loops run on one
thread, so CPU time is the work done; on a machine other processes load, wall time adds the waiting, which
moves with the load rather than with the items.
"""

from __future__ import annotations

import argparse

import numpy as np
from _data import primebench_panel
from _timing import Timing, load_average, machine_line, timed

from benchsift.compression.protocols import stage2_heldout
from benchsift.compression.protocols.specs import DEFAULT_RETENTIONS
from benchsift.panel import Panel


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
    ap.add_argument("--repeats", type=int, default=1, help="timed runs per size (min / median)")
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
    seconds: dict[float, list[float]] = {f: [] for f in fractions}
    cpu: dict[float, list[float]] = {f: [] for f in fractions}
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
            print(
                f"  run {rep + 1}, items x {f:<5g}: {t.seconds[0]:6.1f} s wall, "
                f"{t.cpu_seconds[0]:6.1f} s CPU  load {load_average()}"
            )
    times = {f: Timing(tuple(v), None) for f, v in seconds.items()}
    cpus = {f: Timing(tuple(v), None) for f, v in cpu.items()}
    for f in fractions:
        per = ", ".join(f"{k} {v:.1f} s" for k, v in last[f].items())
        print(
            f"items x {f:<5g} {subs[f].n_items:>8,}: wall {times[f].cell()} s, CPU {cpus[f].cell()} s "
            f"(min / median)  [last run, wall: {per}]"
        )
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
