"""DIF of the health audit (issue 18, part 2): empirical false discovery rate and recall on planted panels.

The audit flags ``dif`` where the Benjamini-Hochberg q-value is at most ``alpha``, so the expected share of
false flags among the flagged items should be at most ``alpha``. This script measures it: for every seed it
simulates a panel with planted contaminated items (the newest half of the models gets +2.5 on their logit;
``SimulationConfig.contamination_*``), runs :func:`benchsift.audit.audit` and counts the flagged items that
are not planted (false discovery proportion, FDP; 0 when nothing is flagged) and the planted items found
(recall). It prints, per panel, method and nominal ``alpha``, the mean FDP over the seeds with its standard
error (sd / sqrt(seeds)), the mean recall, and the mean number of flags.

Panels: ``standard`` is the audit test bed of tests/audit (80 binary models, 4 benchmarks x ~400 items,
2 % mislabelled, 3 % contaminated items, release dates drifting 0.6 logit per year); ``large`` is the same
with 8 benchmarks x ~500 items. Methods (``--methods``, ``matching/test``): ``irt/rstar`` is the default
(2PL matching ability, modified signed root r*), ``rest-score/lr`` the method before it (logit of the rest
score, plain signed likelihood root); the other two pairs isolate each change. The question text is dropped
from the panels so the audit does not spend time on text duplicates (DIF does not use it).

Usage: ``python benchmarks/bench_audit_dif.py [--seeds 20] [--panels standard,large] [--alphas 0.05,0.1]
[--methods irt/rstar,rest-score/lr]``.
"""

from __future__ import annotations

import argparse
import time

import numpy as np
from _timing import load_average, machine_line
from rich.console import Console
from rich.table import Table

from benchsift.audit import audit
from benchsift.panel import Panel
from benchsift.simulate import SimulationConfig, simulate_panel

STANDARD = dict(
    n_models=80,
    n_benchmarks=4,
    n_categories=2,
    items_per_benchmark=400,
    n_dimensions=0,
    graded_fraction=0.0,
    mislabel_rate=0.02,
    contamination_rate=0.03,
)
PANELS = {"standard": STANDARD, "large": {**STANDARD, "n_benchmarks": 8, "items_per_benchmark": 500}}


def _panel(name: str, seed: int) -> tuple[Panel, np.ndarray]:
    sim = simulate_panel(SimulationConfig.small(**PANELS[name]), random_state=seed)
    p = sim.panel
    items = p.items.drop(columns=["question"], errors="ignore")
    return Panel(p.scores, p.models, items), sim.truth.contaminated


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seeds", type=int, default=20)
    ap.add_argument("--panels", default="standard,large")
    ap.add_argument("--alphas", default="0.05,0.1")
    ap.add_argument("--methods", default="irt/rstar,rest-score/lr,irt/lr,rest-score/rstar")
    args = ap.parse_args()
    con = Console(width=150)
    con.print(machine_line())
    alphas = [float(a) for a in args.alphas.split(",")]
    methods = [tuple(m.split("/")) for m in args.methods.split(",")]
    table = Table(title=f"DIF on planted panels: {args.seeds} seeds (0..{args.seeds - 1})")
    for col in ("panel", "matching", "test", "alpha", "FDR mean", "SE", "max FDP", "recall", "flags"):
        table.add_column(col, justify="right")
    for name in args.panels.split(","):
        fdp: dict[tuple[str, str, float], list[float]] = {}
        rec: dict[tuple[str, str, float], list[float]] = {}
        nfl: dict[tuple[str, str, float], list[int]] = {}
        start = time.perf_counter()
        for seed in range(args.seeds):
            panel, truth = _panel(name, seed)
            for matching, test in methods:
                for alpha in alphas:
                    res = audit(panel, alpha=alpha, dif_matching=matching, dif_test=test)
                    hit = res.items["flags"].map(lambda f: "dif" in f).to_numpy()
                    key = (matching, test, alpha)
                    fdp.setdefault(key, []).append(float((hit & ~truth).sum() / max(hit.sum(), 1)))
                    rec.setdefault(key, []).append(float((hit & truth).sum() / truth.sum()))
                    nfl.setdefault(key, []).append(int(hit.sum()))
        con.print(f"{name}: {time.perf_counter() - start:.0f} s, load average {load_average()}")
        for key in fdp:
            f = np.asarray(fdp[key])
            table.add_row(
                name,
                key[0],
                key[1],
                f"{key[2]:g}",
                f"{f.mean():.3f}",
                f"{f.std(ddof=1) / np.sqrt(f.size):.3f}",
                f"{f.max():.3f}",
                f"{np.mean(rec[key]):.3f}",
                f"{np.mean(nfl[key]):.1f}",
            )
    con.print(table)


if __name__ == "__main__":
    main()
