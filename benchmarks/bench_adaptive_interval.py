"""The adaptive estimate's interval against what a user would do instead, on held-out models.

Run (from the repository root)::

    .venv/bin/python benchmarks/bench_adaptive_interval.py --panel mmmu.parquet --splits 3
    .venv/bin/python benchmarks/bench_adaptive_interval.py --panel mmmu.parquet --split strongest
    .venv/bin/python benchmarks/bench_adaptive_interval.py --panel mmmu.parquet --split weakest --no-static

Per split (``random``: the image models split at random, ``SeedSequence([seed, split])``, 40 % held out;
``strongest``: the strongest 40 % by full score held out, the bank fitted on the weakest 60 %, every split the
same partition; ``weakest``: the weakest 40 % held out, the bank fitted on the strongest 60 %) and budget
``b`` (fractions of the items, ``--budgets``), each held-out model gets ``n = round(b N)`` items three ways,
and each gives a 95 % interval of its full overall score (the mean of its benchmark means over every item):

* ``adaptive``: the default bank of the build models (:func:`benchsift.adaptive.fit_bank`, which calibrates
  the interval on its folds, :mod:`benchsift.adaptive.interval`) and the replayed adaptive test
  (:func:`benchsift.adaptive.replay_final`); its interval, and for reference the model-based one
  (estimate +- 1.96 se, ``adaptive, 1.96 se``) that the calibration widens or narrows;
* ``random``: ``n`` items drawn at random per model (an equal share per benchmark), their mean and the Wald
  interval with the finite-population correction, ``mean +- 1.96 sqrt(sum_b p_b (1 - p_b) / n_b (N_b - n_b) /
  (N_b - 1)) / B`` over the ``B`` benchmarks: what a user does without benchsift, valid by design;
* ``static``: the PRIMEBench suite of the same size (:func:`benchsift.compression.run_pipeline`, Stages
  0-2) with the full-score estimator and its split-conformal interval
  (:func:`benchsift.compression.fit_full_score`, the method it chose), benchsift's non-adaptive answer.

Printed per budget: coverage of the true score (pooled over splits and models), mean width and MAE of the
estimate; for the strongest split the coverage is the one that matters (new models stronger than every
model the bank or suite was built on). On a panel of several benchmarks the coverage and width are over the
models that ran every benchmark (the intervals are about the overall over all of them), the MAE over every
model, each estimate taken over the benchmarks of its truth
(:func:`benchsift.adaptive.design.overall_on_observed`).
"""

from __future__ import annotations

import argparse
import os
import sys
import time
import warnings
from typing import Any

import numpy as np

from benchsift.adaptive import fit_bank, replay_final
from benchsift.adaptive.design import (
    budget_items,
    observed_groups,
    overall_on_observed,
    weakest_first,
)
from benchsift.compression.full_score import fit_full_score
from benchsift.compression.pipeline import CompressionConfig, run_pipeline
from benchsift.panel import Panel
from benchsift.stats.means import nan_mean

METHODS = ("adaptive", "adaptive, 1.96 se", "random", "static")

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))  # the random items of bench_adaptive.py
from bench_adaptive import _random_items  # noqa: E402


def _cell(
    est: np.ndarray, low: np.ndarray, high: np.ndarray, truth: np.ndarray, truth_complete: np.ndarray
) -> dict[str, np.ndarray]:
    """Coverage and width over the models with a score on every benchmark (``truth_complete`` finite: the
    intervals are about the overall over every benchmark), the error over every model (``est`` on the
    benchmarks of its truth)."""
    complete = np.isfinite(truth_complete)
    covered = np.where(complete, (truth_complete >= low) & (truth_complete <= high), np.nan)
    return {"covered": covered, "width": np.where(complete, high - low, np.nan), "error": np.abs(est - truth)}


def run_split(
    image: Panel,
    budgets: list[float],
    seed: int,
    split: int,
    kind: str,
    static: bool,
) -> dict[float, dict[str, dict[str, np.ndarray]]]:
    """One split of ``kind`` (``"random"``, ``"strongest"``, ``"weakest"``: module docstring)."""
    rng = np.random.default_rng(np.random.SeedSequence([seed, split]))
    truth_all = nan_mean(image.benchmark_means().means, axis=1)
    if kind == "random":
        perm = rng.permutation(image.n_models)
    else:  # the build models are the first 60 %: the weakest, or (strongest first) the strongest
        perm = weakest_first(truth_all if kind == "strongest" else -truth_all)
    n_build = image.n_models - int(round(0.4 * image.n_models))
    build = image.subset(models=np.sort(perm[:n_build]))
    held = image.subset(models=np.sort(perm[n_build:]))
    truth = nan_mean(held.benchmark_means().means, axis=1)
    groups = held.benchmark_positions()
    # point estimates on the benchmarks of each model's truth; coverage, about the overall over every
    # benchmark, on the models that have them all
    observed = observed_groups(held.scores, groups)
    truth_complete = np.where(observed.all(axis=1), truth, np.nan)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        bank = fit_bank(build, random_state=seed)
    out: dict[float, dict[str, dict[str, np.ndarray]]] = {}
    for b in budgets:
        n = budget_items(b, image.n_items)
        cells: dict[str, dict[str, np.ndarray]] = {}
        final = replay_final(bank, held.scores, held.model_ids, n, random_state=seed + split)
        est = overall_on_observed(final.estimates[:, -1], final.estimates[:, :-1], observed)
        assert final.interval is not None and final.estimate_se is not None
        tt = (truth, truth_complete)
        cells["adaptive"] = _cell(est, final.interval[:, 0], final.interval[:, 1], *tt)
        half = 1.96 * final.estimate_se
        cells["adaptive, 1.96 se"] = _cell(est, np.clip(est - half, 0, 1), np.clip(est + half, 0, 1), *tt)
        draws = np.random.default_rng(np.random.SeedSequence([seed, split, int(round(b * 1e6))]))
        r_est, r_half = _random_items(held.scores, groups, n, draws)
        cells["random"] = _cell(r_est, np.clip(r_est - r_half, 0, 1), np.clip(r_est + r_half, 0, 1), *tt)
        if static:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                cfg = CompressionConfig(
                    retention=float(b), floor=0, k=None, random_state=seed, full_score=False
                )
                suite = run_pipeline(build, cfg).suite_items
                fs = fit_full_score(build, suite, random_state=seed)
                pred = fs.predict(held.scores[:, suite], held.model_ids)
            per = pred.benchmark_scores(held.benchmarks)
            s_est = overall_on_observed(pred.score[fs.method][:, -1], per, observed)
            cells["static"] = _cell(s_est, pred.low[fs.method][:, -1], pred.high[fs.method][:, -1], *tt)
        out[b] = cells
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--panel", required=True)
    ap.add_argument("--budgets", default="0.02,0.05,0.1")
    ap.add_argument("--splits", type=int, default=3)
    ap.add_argument("--split", choices=("random", "strongest", "weakest"), default="random")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument(
        "--no-static", action="store_true", help="leave out the static suite (its pipeline is slow)"
    )
    args = ap.parse_args(argv)
    image = Panel.load(args.panel).image_panel()
    budgets = [float(v) for v in args.budgets.split(",")]
    fixed = args.split != "random"  # the strongest or weakest 40 %: one partition
    splits = 1 if fixed else args.splits
    pooled: dict[float, dict[str, dict[str, list[np.ndarray]]]] = {}
    t0 = time.perf_counter()
    for split in range(splits):
        res = run_split(image, budgets, args.seed, split, args.split, not args.no_static)
        for b, cells in res.items():
            for m, c in cells.items():
                d = pooled.setdefault(b, {}).setdefault(m, {})
                for k, v in c.items():
                    d.setdefault(k, []).append(v)
        print(f"split {split} done ({time.perf_counter() - t0:.0f} s)", file=sys.stderr, flush=True)
    print(
        f"{args.panel} ({image.n_models} models x {image.n_items} items), {args.split} split"
        f"{'' if fixed else f's x {splits}'}, seed {args.seed}; 95 % intervals of the full "
        "overall score"
    )
    print(f"{'budget':>8} {'items':>6}  {'method':<18} {'coverage':>9} {'width':>7} {'MAE':>7}")
    for b in budgets:
        for m in METHODS:
            if m not in pooled[b]:
                continue
            cell: dict[str, Any] = {k: np.concatenate(v) for k, v in pooled[b][m].items()}
            print(
                f"{b:>8.2f} {budget_items(b, image.n_items):>6}  {m:<18} {np.nanmean(cell['covered']):>9.3f} "
                f"{np.nanmean(cell['width']):>7.3f} {np.nanmean(cell['error']):>7.4f}"
            )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
