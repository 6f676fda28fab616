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

``--null-calibration`` prints instead the calibration of the test itself: every non-contaminated item of the
``standard`` panels tested on the models' *true* abilities (the simulator's latent trait of the benchmark,
so the null model is exactly right), the share of p-values below 0.001, 0.01 and 0.05 for the plain signed
likelihood root and for r* (a calibrated test gives the threshold itself).

Usage: ``python benchmarks/bench_audit_dif.py [--seeds 20] [--panels standard,large] [--alphas 0.05,0.1]
[--methods irt/rstar,rest-score/lr] [--null-calibration]``.
"""

from __future__ import annotations

import argparse
import time

import numpy as np
from _timing import load_average, machine_line
from rich.console import Console
from rich.table import Table

from benchsift.audit import audit, logistic_dif
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


def null_calibration(con: Console, seeds: int) -> None:
    """The share of null p-values below each threshold, matched on the true abilities (module docstring)."""
    thresholds = (0.001, 0.01, 0.05)
    pvals: dict[str, list[np.ndarray]] = {"lr": [], "rstar": []}
    for seed in range(seeds):
        sim = simulate_panel(SimulationConfig.small(**STANDARD), random_state=seed)
        image, truth = sim.panel.image_panel(), sim.truth
        dates = image.models["release_date"]
        group = (dates >= dates.median()).to_numpy().astype(np.float64)
        for b in image.benchmarks:
            cols = np.flatnonzero((image.items["benchmark"] == b).to_numpy())
            X = image.scores[:, cols]
            idx, load = truth.item_trait_index[cols], truth.item_trait_loading[cols]
            eta = (truth.abilities[:, idx] * load[None]).sum(axis=-1)  # (M, n) true latent trait
            theta = np.where(np.isnan(X), np.nan, eta)
            null = ~truth.contaminated[cols]
            for test, out in pvals.items():
                p = logistic_dif(X, theta, group, test=test).p_greater[null]
                out.append(p[np.isfinite(p)])
    table = Table(title=f"null p-values on the true abilities: {seeds} seeds of the standard panel")
    for col in ("test", "null items", *(f"share p < {t:g}" for t in thresholds)):
        table.add_column(col, justify="right")
    for test, parts in pvals.items():
        p = np.concatenate(parts)
        table.add_row(test, str(p.size), *(f"{(p < t).mean():.4f}" for t in thresholds))
    con.print(table)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seeds", type=int, default=20)
    ap.add_argument("--panels", default="standard,large")
    ap.add_argument("--alphas", default="0.05,0.1")
    ap.add_argument("--methods", default="irt/rstar,rest-score/lr,irt/lr,rest-score/rstar")
    ap.add_argument("--null-calibration", action="store_true")
    args = ap.parse_args()
    con = Console(width=150)
    con.print(machine_line())
    if args.null_calibration:
        null_calibration(con, args.seeds)
        return
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
