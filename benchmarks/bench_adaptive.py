"""Adaptive testing against a Fluid-style CAT, a static suite and random items at the same budget.

Run (from the repository root)::

    .venv/bin/python benchmarks/bench_adaptive.py --panel mmmu.parquet --splits 5
    .venv/bin/python benchmarks/bench_adaptive.py --panel mmmu.parquet --reference ../shared/reference \\
        --budgets 0.01,0.02,0.05 --splits 10 --no-simulate
    .venv/bin/python benchmarks/bench_adaptive.py --panel mmmu.parquet --reference ../shared/reference \\
        --budgets 0.01,0.02,0.05 --splits 5 --no-simulate --no-normal --covariates vlm3.parquet \\
        --covariate-benchmarks AI2D_TEST,MMT-Bench_VAL

Two protocols, both on held-out models (40 % of the image models per split):

* **Against the reference CAT** (with ``--reference DIR``, the folder of ``tinybench_ref.py``, loaded by
  path): per split (``SeedSequence([seed, split])``, the same splits for every method) and budget ``b``, every
  method gives each held-out model ``n = round(b N)`` items. ``CAT (reference)``: the independent Fluid-style
  CAT (joint-MAP 2PL of the build models, one item at a time by maximum Fisher information, EAP ability with a
  N(0, 1) prior, observed plus expected scores). ``benchsift``: benchsift's adaptive testing with the default
  bank (:func:`benchsift.adaptive.fit_bank`: the EM fit, with at least 60 build models refined by the joint
  polish, keeping the EM curves for models beyond the bank, and given three residual factors and the
  empirical ability prior; the out-of-fold misfit and designs,
  :mod:`benchsift.adaptive.bank`, :mod:`benchsift.adaptive.design`), then
  :func:`benchsift.adaptive.replay_adaptive` (batches of ``n / 10`` items chosen by their Fisher information
  averaged over the ability posterior, randomesque exposure 3; from 60 items the default static start, a
  quarter of them spread over the bank's difficulty first, or the whole budget where a bank fitted with
  ``design_budgets`` measured that design to err less out of fold; the composite correction from them).
  ``benchsift, N(0,1)``: the same with the N(0, 1) prior, the default before the empirical prior became one
  for 60 models and more (``prior="normal"``; the residual factors kept; the same bank as the default one
  under 60 models; ``--no-normal`` leaves it out). ``benchsift + other bench.`` (with ``--covariates PANEL
  --covariate-benchmarks A,B``: the same models' other benchmarks, e.g. ``vlm3.parquet``): the default bank,
  each held-out model's ability prior regressed on its means on those benchmarks
  (:func:`benchsift.adaptive.prior.fit_covariate_prior` on the build models; a model with none of them keeps
  the bank's prior; the prior moves the ability and the estimate, the items are chosen from the responses
  alone). ``--try A,B`` adds experimental variants on top of it (or of the default bank without
  ``--covariates``), measured on the same splits: ``no-start`` (no static start: the default before it; the
  default gives a quarter of a budget of at least 60 items first,
  :func:`benchsift.adaptive.select.static_start_items`), ``spread-start`` / ``spread-quarter`` /
  ``spread-eighth`` (a static start of ``n/2``, ``n/4``, ``n/8`` items spread over the bank's difficulty,
  ``replay_adaptive(static_start=...)``, then adaptive), ``uniform-factor`` (one more residual factor of
  constant loading: a shrunk model-level shift of every unanswered item's expected score, the observed-items
  correction of tinyBenchmarks' gp-IRT), ``no-factors`` (the bank without its residual factors),
  ``measured-designs`` (the bank with its two designs measured out of fold at the budgets replayed,
  ``fit_bank(design_budgets=...)``: the whole budget spread where that measured better by 2 SE,
  :mod:`benchsift.adaptive.design`), ``point-information`` (items chosen by their information at the ability's
  EAP, ``criterion="point"``, the classical rule and the default before the posterior-weighted information),
  ``prior-in-choice`` (with ``--covariates``: the items chosen under each model's covariate prior too,
  ``prior_in_choice=True``, the default before; by default the prior moves the ability and the estimate, and
  the items are chosen from the responses alone), ``no-balance`` (on a panel of several benchmarks, items
  chosen by information over the whole bank, ``balance=False``, the default before; by default each benchmark
  gets an equal share of a model's items), ``no-offsets`` (one ability for every benchmark of a bank, the
  default before; by default a bank of several benchmarks gives each model an ability offset per benchmark,
  :mod:`benchsift.adaptive.offsets`), ``edge-spread`` (a model at the bank's edge given the rest of its budget
  spread over the difficulty and its estimate corrected from them, ``replay_adaptive(edge_spread=True)``; by
  default from 5 % of the items of a bank of at least 60 models), ``no-edge-spread`` (never,
  ``edge_spread=False``: the default below 5 % or 60 bank models, and everywhere before), ``no-beyond`` (a
  polished bank's estimates from its polished curves alone, the default before; by default its EM curves weigh
  in for a model whose answers say it is beyond the strongest reference model,
  :meth:`benchsift.adaptive.ItemBank.beyond_weight`), ``no-low-edge`` (a model at the bank's lower edge
  treated as one inside it, ``replay_adaptive(low_edge=False)``, the default before; docs/ADAPTIVE.md,
  *Models weaker than the bank*). ``random items``:
  what a user would do instead, each held-out model's ``n`` items drawn at random among those it has a score
  on (an equal share per benchmark) and the mean of its benchmark means over them.
  ``--split strongest``: the bank is built on the weakest 60 % of the models by their full score and the
  strongest 40 % are the new models (every split the same partition, the seeds moving only the randomised item
  choices), where each model's estimate extrapolates the curves (at the bank's edge:
  :meth:`benchsift.adaptive.ItemBank.at_edge`). Printed per panel and budget: MAE and Spearman (mean over
  splits, with the standard error of the MAE), and whether benchsift's MAE is at most the reference CAT's with
  a Spearman no worse (issue 31's acceptance, within 0.005), with the standard error of the Spearman
  difference paired by split.
* **simulate** (unless ``--no-simulate``): :func:`benchsift.adaptive.simulate_adaptive` -- adaptive vs the
  static suite vs random items, rank Spearman and MAE (mean and sd over splits) per budget; with ``--try
  no-balance`` also adaptive testing without the per-benchmark shares (``no bal.``), with ``--try
  no-offsets`` without the per-benchmark ability offsets (``no offs.``).

Panels: ``--panel`` (repeatable; a panel with several benchmarks is taken as it is: the truth is the mean of
its benchmark means over the benchmarks each model ran, and every method's overall is taken over the same
ones, :func:`benchsift.adaptive.design.overall_on_observed`) and, for ``simulate``, a simulated one (160
models, 8 benchmarks).
"""

from __future__ import annotations

import argparse
import dataclasses
import time
import warnings
from types import ModuleType
from typing import Any

import numpy as np
import pandas as pd
from _data import load_reference
from _timing import load_average, machine_line

from benchsift.adaptive import fit_bank, replay_adaptive, simulate_adaptive
from benchsift.adaptive.design import (
    budget_items,
    observed_groups,
    overall_on_observed,
    weakest_first,
)
from benchsift.adaptive.prior import benchmark_covariates, fit_covariate_prior
from benchsift.panel import Panel
from benchsift.simulate import SimulationConfig, simulate_panel
from benchsift.stats import spearman
from benchsift.stats.means import nan_mean

VARIANTS = ("CAT (reference)", "benchsift, N(0,1)", "benchsift")
#: what a user would do instead: the same number of items drawn at random (an equal share per benchmark)
RANDOM = "random items"
COVARIATE = "benchsift + other bench."
#: the static-start trials: the fraction of the items given first, spread over the bank's difficulty
#: (``no-start``: none, the default before the static start; the default is a quarter from 60 items)
SPREAD = {"spread-start": 0.5, "spread-quarter": 0.25, "spread-eighth": 0.125, "no-start": 0.0}
#: experimental variants on top of the covariate prior (or the default bank without covariates): ``--try``
TRIALS = (
    "no-start",
    "spread-start",
    "spread-quarter",
    "spread-eighth",
    "uniform-factor",
    "no-factors",
    "measured-designs",
    "point-information",
    "prior-in-choice",
    "no-balance",
    "no-offsets",
    "edge-spread",
    "no-edge-spread",
    "no-beyond",
    "no-low-edge",
)


def _uniform_factor_bank(bank: Any, build: Panel) -> Any:
    """The bank with one more residual factor of constant loading ``s``: a model-level shift of every item's
    expected score (the observed-items correction of tinyBenchmarks' gp-IRT, shrunk by the factor's N(0, 1)
    prior); ``s`` is the sd over the build models of their mean residual."""
    P = bank.expected(np.asarray(bank.reference_theta))
    s = float(np.nanstd(np.nanmean(build.scores - P, axis=1)))
    col = np.full((bank.n_items, 1), max(s, 1e-3))
    L = col if bank.residual_loadings is None else np.column_stack([bank.residual_loadings, col])
    return dataclasses.replace(bank, residual_loadings=L)


def _random_items(
    scores: np.ndarray, groups: list[np.ndarray], n: int, rng: np.random.Generator
) -> tuple[np.ndarray, np.ndarray]:
    """Per model, ``n`` items drawn at random among those it has a score on, an equal share (at least one)
    per benchmark, and the mean of its benchmark means over them: the design-based estimate of the truth;
    and the half-width of its 95 % Wald interval with the finite-population correction,
    ``1.96 sqrt(sum_b p_b (1 - p_b) / n_b (N_b - n_b) / (N_b - 1)) / B`` (bench_adaptive_interval.py)."""
    share = max(1, int(round(n / len(groups))))
    est = np.full(scores.shape[0], np.nan)
    half = np.full(scores.shape[0], np.nan)
    for j in range(scores.shape[0]):
        means, variances = [], []
        for g in groups:
            seen = g[np.isfinite(scores[j, g])]
            if seen.size:
                k = min(share, seen.size)
                p = float(np.mean(scores[j, rng.choice(seen, k, replace=False)]))
                means.append(p)
                variances.append(
                    p * (1.0 - p) / k * ((seen.size - k) / (seen.size - 1) if seen.size > 1 else 0.0)
                )
        if means:
            est[j] = np.mean(means)
            half[j] = 1.96 * np.sqrt(np.sum(variances)) / len(means)
    return est, half


def _metrics(est: np.ndarray, truth: np.ndarray) -> tuple[float, float]:
    ok = np.isfinite(est) & np.isfinite(truth)
    return float(np.mean(np.abs(est[ok] - truth[ok]))), float(spearman(est[ok], truth[ok]))


def versus_reference(
    panel: Panel,
    ref: ModuleType,
    budgets: list[float],
    splits: int,
    seed: int,
    exposure: float = 3.0,
    covariates: pd.DataFrame | None = None,
    variants: tuple[str, ...] = VARIANTS,
    trials: tuple[str, ...] = (),
    strongest: bool = False,
) -> dict[float, dict[str, list[tuple[float, float]]]]:
    """``{budget: {variant: [(mae, rho) per split]}}`` on the same splits and item counts (``strongest``:
    the bank built on the weakest 60 % of the models, the strongest 40 % held out, in every split). With
    ``covariates`` (models x features, e.g. the models' other benchmark means) also ``COVARIATE``: the
    default bank with each held-out model's ability prior regressed on its covariates
    (:func:`benchsift.adaptive.prior.fit_covariate_prior`, fitted on the build models)."""
    image = panel.image_panel()
    n_build = image.n_models - int(round(0.4 * image.n_models))
    # the strongest split: the weakest 60 % build the bank, the strongest 40 % are the new models (by their
    # full-run score, the mean of their benchmark means); the same partition in every split, whose seed then
    # moves only the randomised item choice
    strength = weakest_first(nan_mean(image.benchmark_means().means, axis=1))
    base = COVARIATE if covariates is not None else "benchsift"
    names = [*variants, *([COVARIATE] if covariates is not None else []), *(f"+ {t}" for t in trials), RANDOM]
    out: dict[float, dict[str, list[tuple[float, float]]]] = {b: {v: [] for v in names} for b in budgets}
    for split in range(splits):
        rng = np.random.default_rng(np.random.SeedSequence([seed, split]))
        perm = strength if strongest else rng.permutation(image.n_models)
        build = image.subset(models=np.sort(perm[:n_build]))
        held = image.subset(models=np.sort(perm[n_build:]))
        truth = nan_mean(held.benchmark_means().means, axis=1)
        # every method is scored on the benchmarks of each model's truth (a model may lack one)
        groups = held.benchmark_positions()
        observed = observed_groups(held.scores, groups)
        a, d, _ = ref.fit_2pl(build.scores)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            banks = {"benchsift": fit_bank(build)}
            if "benchsift, N(0,1)" in variants:
                banks["benchsift, N(0,1)"] = fit_bank(build, prior="normal")

        priors: dict[str, tuple[np.ndarray | None, np.ndarray | None]] = {n: (None, None) for n in banks}
        if covariates is not None:
            cp = fit_covariate_prior(banks["benchsift"], covariates)
            banks[COVARIATE] = banks["benchsift"]
            priors[COVARIATE] = cp.predict(covariates, held.model_ids)
        for t in trials:
            banks[f"+ {t}"] = banks["benchsift"]
            if t == "uniform-factor":
                banks[f"+ {t}"] = _uniform_factor_bank(banks["benchsift"], build)
            if t == "no-factors":
                banks[f"+ {t}"] = dataclasses.replace(banks["benchsift"], residual_loadings=None)
            if t == "measured-designs":  # the opt-in designs, measured at the budgets replayed only
                banks[f"+ {t}"] = fit_bank(build, design_budgets=tuple(budgets))
            if t == "no-offsets":  # one ability for every benchmark (the default before)
                banks[f"+ {t}"] = dataclasses.replace(banks["benchsift"], offset_var=None)
            if t == "no-beyond":  # the polished curves alone (the default before)
                banks[f"+ {t}"] = dataclasses.replace(banks["benchsift"], beyond=None)
            priors[f"+ {t}"] = priors[base]
        for b in budgets:
            n = budget_items(b, image.n_items)
            th, given = ref.cat_run(held.scores, a, d, n)
            P = ref.full_from_theta  # observed + expected; per benchmark when the panel has several
            if len(groups) == 1:
                est = P(held.scores, a, d, th, given)
            else:
                per = np.column_stack([P(held.scores[:, g], a[g], d[g], th, given[:, g]) for g in groups])
                est = overall_on_observed(per.mean(axis=1), per, observed)
            out[b]["CAT (reference)"].append(_metrics(est, truth))
            draws = np.random.default_rng(np.random.SeedSequence([seed, split, int(round(b * 1e6))]))
            out[b][RANDOM].append(_metrics(_random_items(held.scores, groups, n, draws)[0], truth))
            for name, bank in banks.items():
                mu, sd = priors[name]
                kw: dict[str, Any] = {
                    "prior_mean": mu,
                    "prior_sd": sd,
                    "exposure": exposure,
                    "random_state": seed + split,
                }
                frac = SPREAD.get(name[2:])  # None: the library's default static start
                if name == "+ point-information":  # the classical rule: information at the EAP alone
                    kw["criterion"] = "point"
                if name == "+ prior-in-choice":  # the covariate prior steers the item choice too
                    kw["prior_in_choice"] = True
                if name == "+ no-balance":  # by information over the whole bank, not per benchmark
                    kw["balance"] = False
                if name == "+ edge-spread":  # an edge model given the rest of its budget spread
                    kw["edge_spread"] = True
                if name == "+ no-edge-spread":  # never spread (the default below 5 % of the items)
                    kw["edge_spread"] = False
                if name == "+ no-low-edge":  # a model below the bank as one inside it (the default before)
                    kw["low_edge"] = False
                full, _ = replay_adaptive(bank, held.scores, held.model_ids, n, static_start=frac, **kw)
                out[b][name].append(_metrics(overall_on_observed(full[:, -1], full[:, :-1], observed), truth))
    return out


def render_versus(name: str, panel: Panel, res: dict[float, dict[str, list[tuple[float, float]]]]) -> str:
    image = panel.image_panel()
    lines = [f"\n{name}: {image.n_models} models x {image.n_items} items, vs the reference CAT"]
    lines.append(f"  {'budget':>6} {'n':>4}  {'method':<23} {'MAE (SE)':>17} {'Spearman':>9}  verdict")
    for b, per in res.items():
        n = budget_items(b, image.n_items)
        summ = {}
        for v in per:
            vals = np.array(per[v])
            se = np.std(vals[:, 0], ddof=1) / np.sqrt(len(vals)) if len(vals) > 1 else float("nan")
            summ[v] = (float(np.mean(vals[:, 0])), float(se), float(np.nanmean(vals[:, 1])))
        ref_mae, _, ref_rho = summ["CAT (reference)"]
        cat_rho = np.array(per["CAT (reference)"])[:, 1]
        for v in per:
            mae, se, rho = summ[v]
            verdict = ""
            if v != "CAT (reference)":
                ok = mae <= ref_mae and rho >= ref_rho - 0.005
                word = "beats" if ok else "loses to"
                diff = np.array(per[v])[:, 1] - cat_rho  # paired by split
                rho_se = np.std(diff, ddof=1) / np.sqrt(len(diff)) if len(diff) > 1 else float("nan")
                verdict = f"{word} CAT ({mae / ref_mae:.2f} x MAE, rho {rho - ref_rho:+.3f} SE {rho_se:.3f})"
            lines.append(f"  {b:>6.0%} {n:>4}  {v:<23} {mae:.4f} ({se:.4f}) {rho:9.3f}  {verdict}")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--panel", action="append", default=[])
    ap.add_argument("--splits", type=int, default=5)
    ap.add_argument("--budgets", default="0.05")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--reference", default=None, help="folder holding tinybench_ref.py (CAT comparison)")
    ap.add_argument(
        "--exposure",
        type=float,
        default=3.0,
        help="benchsift's randomesque exposure (1 = pure max information)",
    )
    ap.add_argument("--no-simulate", action="store_true", help="skip the simulate_adaptive tables")
    ap.add_argument(
        "--covariates",
        default=None,
        help="panel with the same models' other benchmarks (e.g. vlm3.parquet): adds the variant whose "
        "ability prior is regressed on them",
    )
    ap.add_argument("--covariate-benchmarks", default=None, help="comma-separated benchmarks of --covariates")
    ap.add_argument("--try", dest="trials", default="", help="experimental variants: " + ",".join(TRIALS))
    ap.add_argument("--no-normal", action="store_true", help="skip the N(0,1) variant (saves time)")
    ap.add_argument(
        "--split",
        choices=("random", "strongest"),
        default="random",
        help="vs the CAT: random 60/40 splits, or the bank built on the weakest 60 %% and the strongest "
        "40 %% held out (new models stronger than every bank model)",
    )
    args = ap.parse_args(argv)
    print(machine_line())
    budgets = [float(b) for b in args.budgets.split(",")]
    panels: list[tuple[str, Panel]] = [(p, Panel.load(p)) for p in args.panel]
    if args.reference:
        ref = load_reference(args.reference)
        cov = None
        if args.covariates:
            picked = args.covariate_benchmarks.split(",") if args.covariate_benchmarks else None
            cov = benchmark_covariates(Panel.load(args.covariates), picked)
            print(f"covariates: {list(cov.columns)} of {args.covariates}")
        variants = tuple(v for v in VARIANTS if not (args.no_normal and v == "benchsift, N(0,1)"))
        for name, panel in panels:
            t0 = time.perf_counter()
            trials = tuple(t for t in args.trials.split(",") if t)
            res = versus_reference(
                panel,
                ref,
                budgets,
                args.splits,
                args.seed,
                args.exposure,
                cov,
                variants,
                trials,
                strongest=args.split == "strongest",
            )
            print(render_versus(f"{name} ({args.split} split)", panel, res))
            print(f"  ({args.splits} splits, {time.perf_counter() - t0:.0f} s, load {load_average()})")
    if not args.no_simulate:
        sim = simulate_panel(SimulationConfig(n_models=160), random_state=1).panel
        trials = tuple(t for t in args.trials.split(",") if t)
        for name, panel in [*panels, ("simulated, 160 models x 8 benchmarks", sim)]:
            for budget in budgets:
                t0 = time.perf_counter()
                res_s = simulate_adaptive(
                    panel, holdout=0.4, budget=budget, random_state=args.seed, n_splits=args.splits
                )
                rows = res_s.rows()
                # the adaptive row again: items by information over the bank; one ability for every
                # benchmark
                for trial, label in (("no-balance", "no bal."), ("no-offsets", "no offs.")):
                    if trial in trials:
                        again = simulate_adaptive(
                            panel,
                            holdout=0.4,
                            budget=budget,
                            random_state=args.seed,
                            n_splits=args.splits,
                            balance=trial != "no-balance",
                            benchmark_offsets=False if trial == "no-offsets" else None,
                        ).rows()
                        rows += [{**r, "method": label} for r in again if r["method"] == "adaptive"]
                secs = time.perf_counter() - t0
                print(
                    f"\n{name}: {panel.image_panel().n_models} models x {panel.n_items} items, budget "
                    f"{budget:g} ({rows[0]['n_items']:.0f} items on average), {args.splits} splits, "
                    f"{secs:.0f} s, load {load_average()}"
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
