"""Benchmark health audit (issue 18, part 2): time ``benchsift.audit.audit`` and say what it flags.

Acceptance: on MMMU (168 models x 1,050 items) the audit runs in under 10 s. The script times the whole
audit (every signal) beside the simplest baseline a user would write for one of its signals alone, the
item-rest correlation by a per-item ``scipy.stats.pearsonr`` loop (both sides alternated, min / median of
``--repeats``; load average shown), then prints the flag counts and the most confident negative-
discrimination items. Without ``--panel`` it runs on a simulated panel of the same size with planted
mislabelled and contaminated items and prints the precision and recall of those two flags.

Usage: ``python benchmarks/bench_audit.py [--panel FILE] [--repeats 5]``; the MMMU panel with release dates
comes from ``benchsift import wide MMMU_DEV_VAL.csv --benchmark MMMU --models models.csv -o mmmu.parquet``.
"""

from __future__ import annotations

import argparse
from typing import Any

import numpy as np
from _timing import load_average, machine_line, timed_pair
from rich.console import Console
from rich.table import Table
from scipy import stats

from benchsift.audit import audit
from benchsift.panel import Panel
from benchsift.simulate import SimulationConfig, simulate_panel


def _pearson_loop(X: np.ndarray) -> np.ndarray:
    out = np.full(X.shape[1], np.nan)
    for i in range(X.shape[1]):
        rest = np.nanmean(np.delete(X, i, axis=1), axis=1)
        ok = ~np.isnan(X[:, i]) & ~np.isnan(rest)
        if np.ptp(X[ok, i]) > 0:
            out[i] = stats.pearsonr(X[ok, i], rest[ok])[0]
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--panel", default=None, help="A panel file (default: a simulated 168 x 1,050 panel).")
    ap.add_argument("--repeats", type=int, default=5)
    args = ap.parse_args()
    con = Console()
    truth: Any = None
    if args.panel:
        panel = Panel.load(args.panel)
        label = args.panel
    else:
        cfg = SimulationConfig.small(
            n_models=168,
            n_benchmarks=1,
            n_categories=1,
            items_per_benchmark=1050,
            n_dimensions=0,
            graded_fraction=0.0,
            mislabel_rate=0.02,
            contamination_rate=0.03,
            n_text_only_models=0,
            blind_solvable_rate=0.0,
        )
        sim = simulate_panel(cfg, random_state=0)
        panel, truth, label = sim.panel, sim.truth, "simulated 168 x 1,050 (planted defects)"
    con.print(machine_line())
    first = panel.image_panel().select_benchmarks(panel.benchmarks[0]).scores
    ours, base = timed_pair(lambda: audit(panel), lambda: _pearson_loop(first), args.repeats)
    table = Table(title=f"audit of {label}: {panel.n_models} model runs x {panel.n_items} items")
    for col in ("what", "seconds (min / median)"):
        table.add_column(col)
    table.add_row("benchsift.audit.audit (every signal, every benchmark)", ours.cell())
    table.add_row("baseline: item-rest pearsonr loop (one signal, first benchmark)", base.cell())
    con.print(table)
    con.print(f"load average after: {load_average()}")
    res = ours.result
    counts = Table(title="flag counts")
    counts.add_column("flag")
    counts.add_column("items", justify="right")
    for flag, n in res.flag_counts.items():
        counts.add_row(flag, str(n))
    con.print(counts)
    top = res.ranked("negative-discrimination").head(10)
    neg = Table(title="top negative-discrimination items")
    for col in ("benchmark", "item", "mean", "r", "CI high", "q"):
        neg.add_column(col)
    for row in top.to_dict(orient="records"):
        neg.add_row(
            str(row["benchmark"]),
            str(row["item"]),
            f"{row['mean_score']:.3f}",
            f"{row['discrimination']:.3f}",
            f"{row['discrimination_high']:.3f}",
            f"{row['q_negative']:.2g}",
        )
    con.print(neg)
    # one row per measure, one column per benchmark: the wide frame wraps into an unreadable block
    con.print(res.benchmarks.set_index("benchmark").astype(object).T.to_string(), soft_wrap=True)
    for w in res.warnings:
        con.print(f"warning: {w}")
    if truth is not None:
        flags = res.items["flags"]
        for flag, planted in (("negative-discrimination", truth.mislabelled), ("dif", truth.contaminated)):
            hit = flags.map(lambda f, flag=flag: flag in f).to_numpy()
            prec = (hit & planted).sum() / max(hit.sum(), 1)
            con.print(f"{flag}: precision {prec:.3f}, recall {(hit & planted).sum() / planted.sum():.3f}")


if __name__ == "__main__":
    main()
