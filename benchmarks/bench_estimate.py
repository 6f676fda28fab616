"""How well ``estimate`` recovers held-out models' full-benchmark scores from a 5 % suite, vs random items.

Run (from the repository root)::

    .venv/bin/python benchmarks/bench_estimate.py --panel mmmu.parquet        # real panel + simulated ones
    .venv/bin/python benchmarks/bench_estimate.py --seeds 5 --retention 0.05

(``mmmu.parquet``: ``benchsift import wide MMMU_DEV_VAL.csv --benchmark MMMU -o mmmu.parquet``.)

Protocol, per panel and seed: the image models are split 60 / 40 at random into build and held-out models. The
suite is built on the build models only (``run_pipeline`` with each of ``--selectors``, default the ranking
suite of VAW and the estimation suite of ``estimate``, at ``--retention``, floor 0 so the suite holds that
fraction, Stage 3 off; ``--split strongest`` builds on the weakest 60 % instead); the full-score estimators
are fitted on the build models (:func:`benchsift.compression.full_score.fit_full_score`) and applied to the
held-out models' responses on the suite items. Truth: each held-out model's full overall score (mean of its
benchmark means over every item). Printed per panel, mean over seeds: the mean absolute error of each
estimator, the share of held-out models whose 95 % interval covers the truth, the mean interval width, and the
Spearman correlation of estimated and true scores; beside them, in the same run and split, a **random subset**
of the same number of items: its plain mean (the unbiased baseline the acceptance compares with) and the same
estimators fitted on it (what a random anchor set would give instead of the compressed suite).

With ``--incomplete 0.5,0.25,0.1``, a second table per panel: each held-out model keeps only that share of
the suite items (a random subset per model and seed, as a run that failed or skipped the others), and the
chosen estimator's 95 % interval is taken two ways: as before the fix, the complete run's conformal
half-width (``predict`` without ``reference``), and widened by the spread the missing items add on the
reference models (``predict(..., reference=...)``, what ``estimate`` does); printed: coverage, mean width
and MAE.

Panels: ``--panel`` (a real one, optional) and simulated ones (``simulate_panel`` defaults: 40 models,
8 benchmarks; and 160 models, 8 benchmarks).
"""

from __future__ import annotations

import argparse
import time

import numpy as np
from _timing import load_average, machine_line

from benchsift.compression.full_score import METHODS, fit_full_score
from benchsift.compression.pipeline import CompressionConfig, run_pipeline
from benchsift.panel import Panel
from benchsift.simulate import SimulationConfig, simulate_panel
from benchsift.stats import spearman
from benchsift.stats.means import nan_mean


def full_overall(panel: Panel) -> np.ndarray:
    """Each model's mean over benchmarks of its mean over the benchmark's items."""
    return nan_mean(panel.benchmark_means().means, axis=1)


def one_split(
    panel: Panel,
    retention: float,
    seed: int,
    keeps: tuple[float, ...] = (),
    split: str = "random",
    selectors: tuple[str, ...] = ("vaw", "estimate"),
) -> dict[str, tuple[float, float, float, float]]:
    """``{row: (mae, coverage, width, spearman)}`` for one build / held-out split (with ``keeps``, the rows
    ``incomplete <keep>: <how>`` too, spearman left NaN). ``split="strongest"``: build on the weakest 60 %
    of the models by full score, estimate the strongest 40 % (a row ``<suite>: extrapolating`` gives the
    share flagged in its MAE column)."""
    rng = np.random.default_rng(seed)
    n_build = int(round(0.6 * panel.n_models))
    if split == "strongest":
        perm = np.argsort(full_overall(panel), kind="stable")
    else:
        perm = rng.permutation(panel.n_models)
    build = panel.subset(models=np.sort(perm[:n_build]))
    held = panel.subset(models=np.sort(perm[n_build:]))
    truth = full_overall(held)
    suites = {}
    for sel in selectors:
        res = run_pipeline(
            build,
            CompressionConfig(
                retention=retention, floor=0, k=None, random_state=seed, full_score=False, selector=sel
            ),
        )
        suites[f"{sel} suite"] = res.suite_items
    suite = next(iter(suites.values()))
    rand = np.sort(rng.choice(panel.n_items, size=suite.size, replace=False))
    out: dict[str, tuple[float, float, float, float]] = {}
    for label, items in (*suites.items(), ("random subset", rand)):
        fs = fit_full_score(build, items, random_state=seed)
        est = fs.predict(held.scores[:, items], held.model_ids)
        for m in METHODS:
            s, lo, hi = est.score[m][:, -1], est.low[m][:, -1], est.high[m][:, -1]
            tag = f"{label}: {m}" + (" (chosen)" if m == fs.method else "")
            out[f"{label}: {m}"] = (
                float(np.mean(np.abs(s - truth))),
                float(np.mean((lo <= truth) & (truth <= hi))),
                float(np.mean(hi - lo)),
                float(spearman(s, truth)),
            )
            if m == fs.method:
                out[f"{label}: chosen"] = out[f"{label}: {m}"]
                out[tag] = out[f"{label}: {m}"]
        ext = est.extrapolating if est.extrapolating is not None else np.zeros(1)
        out[f"{label}: extrapolating (share)"] = (float(np.mean(ext)), np.nan, np.nan, np.nan)
    fs = fit_full_score(build, suite, random_state=seed)
    X = held.scores[:, suite]
    for keep in keeps:
        drop = np.ones(X.shape, dtype=bool)
        for i in range(X.shape[0]):  # each model keeps its own random share of the suite
            drop[i, rng.choice(X.shape[1], size=max(1, int(round(keep * X.shape[1]))), replace=False)] = False
        part = np.where(drop, np.nan, X)
        for how, ref in (("complete-run width", None), ("widened", build.scores[:, suite])):
            est = fs.predict(part, held.model_ids, reference=ref)
            s, lo, hi = (v[fs.method][:, -1] for v in (est.score, est.low, est.high))
            out[f"incomplete {keep:.0%}: {how}"] = (
                float(np.mean(np.abs(s - truth))),
                float(np.mean((lo <= truth) & (truth <= hi))),
                float(np.mean(hi - lo)),
                float("nan"),
            )
    plain = np.nanmean(held.scores[:, rand], axis=1)
    out["random subset: plain mean"] = (
        float(np.mean(np.abs(plain - truth))),
        float("nan"),
        float("nan"),
        float(spearman(plain, truth)),
    )
    out["_size"] = (float(suite.size), float(n_build), float(held.n_models), 0.0)
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--panel", default=None, help="a real panel (benchsift parquet)")
    ap.add_argument("--seeds", type=int, default=5)
    ap.add_argument("--retention", type=float, default=0.05)
    ap.add_argument(
        "--incomplete", default="", help="shares of the suite each held-out model keeps, e.g. 0.5,0.25,0.1"
    )
    ap.add_argument("--split", choices=("random", "strongest"), default="random")
    ap.add_argument("--selectors", default="vaw,estimate", help="Stage 2 selectors whose suites are compared")
    ap.add_argument("--no-simulated", action="store_true", help="only the --panel")
    args = ap.parse_args(argv)
    print(machine_line())
    panels: list[tuple[str, Panel]] = []
    if args.panel:
        panels.append((args.panel, Panel.load(args.panel).image_panel()))
    if not args.no_simulated:
        panels.append(
            ("simulated, 40 models", simulate_panel(SimulationConfig(), random_state=0).panel.image_panel())
        )
        panels.append(
            (
                "simulated, 160 models",
                simulate_panel(SimulationConfig(n_models=160), random_state=1).panel.image_panel(),
            )
        )
    sels = tuple(v.strip() for v in args.selectors.split(",") if v.strip())
    keeps = tuple(float(v) for v in args.incomplete.split(",") if v.strip())
    for name, panel in panels:
        t0 = time.perf_counter()
        runs = [one_split(panel, args.retention, seed, keeps, args.split, sels) for seed in range(args.seeds)]
        size = runs[0]["_size"]
        print(
            f"\n{name}: {panel.n_models} models x {panel.n_items} items; suite {int(size[0])} items "
            f"({args.retention:.0%}), {int(size[1])} build / {int(size[2])} held-out models, "
            f"{args.seeds} seeds, {args.split} split "
            f"({time.perf_counter() - t0:.0f} s, load {load_average()})"
        )
        print(f"  {'estimator':<34} {'MAE':>7} {'95% cover':>10} {'width':>7} {'spearman':>9}")
        rows = [k for k in runs[0] if not k.startswith("_") and "(chosen)" not in k]
        for key in rows:
            vals = np.array([r[key] for r in runs if key in r])
            mae, cov, wid, rho = (
                float(np.mean(c[np.isfinite(c)])) if np.isfinite(c).any() else np.nan for c in vals.T
            )
            cov_s = "-" if np.isnan(cov) else f"{cov:.3f}"
            wid_s = "-" if np.isnan(wid) else f"{wid:.3f}"
            print(f"  {key:<34} {mae:7.4f} {cov_s:>10} {wid_s:>7} {rho:9.3f}")
        first = f"{sels[0]} suite"
        chosen = [next(k for k in r if "(chosen)" in k and k.startswith(first)) for r in runs]
        print(
            f"  chosen on the {first} per seed: {', '.join(c.split(': ')[1].split(' ')[0] for c in chosen)}"
        )
    print(f"\nload average at the end: {load_average()}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
