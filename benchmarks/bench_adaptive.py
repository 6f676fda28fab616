"""Adaptive testing against a static suite and random items at the same budget, on held-out models.

Run (from the repository root)::

    .venv/bin/python benchmarks/bench_adaptive.py --panel mmmu.parquet --splits 5
    .venv/bin/python benchmarks/bench_adaptive.py --budgets 0.02,0.05,0.1

Protocol: :func:`benchsift.adaptive.simulate_adaptive` (40 % of the models held out per split; the static
suite and the item bank built on the other 60 %; every method gets the static suite's number of items). It
prints, per panel and budget, the mean (sd) over splits of the rank Spearman between held-out models'
estimated and true full overall scores and of the mean absolute error, for adaptive, static and random, and
the seconds the replay took. Panels: ``--panel`` (optional, a real one) and a simulated one
(``simulate_panel`` with 160 models, 8 benchmarks).
"""

from __future__ import annotations

import argparse
import time

from _timing import load_average, machine_line

from benchsift.adaptive import simulate_adaptive
from benchsift.panel import Panel
from benchsift.simulate import SimulationConfig, simulate_panel


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--panel", default=None)
    ap.add_argument("--splits", type=int, default=5)
    ap.add_argument("--budgets", default="0.05")
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args(argv)
    print(machine_line())
    panels: list[tuple[str, Panel]] = []
    if args.panel:
        panels.append((args.panel, Panel.load(args.panel)))
    sim = simulate_panel(SimulationConfig(n_models=160), random_state=1).panel
    panels.append(("simulated, 160 models x 8 benchmarks", sim))
    for name, panel in panels:
        for budget in (float(b) for b in args.budgets.split(",")):
            t0 = time.perf_counter()
            res = simulate_adaptive(panel, holdout=0.4, budget=budget, seed=args.seed, n_splits=args.splits)
            secs = time.perf_counter() - t0
            rows = res.rows()
            print(
                f"\n{name}: {panel.image_panel().n_models} models x {panel.n_items} items, budget {budget:g} "
                f"({rows[0]['n_items']:.0f} items on average), {args.splits} splits, {secs:.0f} s, "
                f"load {load_average()}"
            )
            print(f"  {'method':<9} {'rank Spearman (sd)':>20} {'score MAE (sd)':>18}")
            for r in rows:
                print(
                    f"  {r['method']:<9} {r['rho_mean']:>11.3f} ({r['rho_sd']:.3f}) "
                    f"{r['mae_mean']:>10.4f} ({r['mae_sd']:.4f})"
                )
    print(f"\nload average at the end: {load_average()}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
