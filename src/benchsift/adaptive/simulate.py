"""Replay held-out models' real responses through adaptive testing, beside a static suite and random items.

Protocol (:func:`simulate_adaptive`), per split: the image models are split at random into build models
(``1 - holdout``) and held-out models. On the build models only: the static suite (PRIMEBench Stages 0-2,
:func:`benchsift.compression.run_pipeline` at retention ``budget``, floor 0, no Stage 3) with its full-score
estimator (:func:`benchsift.compression.fit_full_score`, the method chosen by cross-validation), and the
item bank (:func:`benchsift.adaptive.fit_bank`). Every method then gets the same number of items per
held-out model, the static suite's size ``n``:

* ``static`` -- the suite's items; the full-score estimate of the chosen method;
* ``random`` -- ``n`` items drawn at random (seeded, one draw per split, the same for every model), an
  equal share from each benchmark; the mean of the model's benchmark means over them
  (:func:`benchsift.stats.means.random_subset_means`; until 2026-12-07 a draw from the pool as a whole and
  its plain mean, which weighs a panel's benchmarks by their size);
* ``adaptive`` -- from 60 items a static start (a quarter of them spread over the bank's difficulty,
  :func:`benchsift.adaptive.select.static_start_items`), then batches of maximum-information items with
  randomesque exposure control (:func:`benchsift.adaptive.next_items`, ``batch`` items a step, default
  ``n / 10``) until ``n`` items, answered from the model's logged scores; the bank's full-score estimate
  (observed scores plus the expected scores of the items not given, corrected by the bank's residual factors
  when it has them).

Reported per method, mean and sample sd (``ddof=1``; NaN with one split) over splits: the Spearman
correlation between held-out models' estimated and true full overall scores (mean of benchmark means over
every item), and the mean absolute error. A held-out model that lacks a benchmark has a truth over the
benchmarks it ran, and every method's estimate is taken over the same ones
(:func:`benchsift.adaptive.design.overall_on_observed`; until 2026-12-07 the adaptive and static estimates
were taken over every benchmark, so on vlm3, where 19 % of the models lack one, those models were scored
against a different target). The intervals' coverage and width are over the models that ran every benchmark
(the intervals are about the overall over all of them).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from numbers import Integral, Real
from typing import Any

import numpy as np
import pandas as pd
from joblib import delayed

from benchsift._jsonutil import to_jsonable
from benchsift._params import Interval, check_param, renamed_attribute, renamed_params, validate_params
from benchsift.adaptive.bank import ItemBank, fit_bank
from benchsift.adaptive.design import observed_groups, overall_on_observed, weakest_first
from benchsift.adaptive.interval import INTERVAL_BUDGETS
from benchsift.adaptive.prior import fit_covariate_prior
from benchsift.adaptive.select import (
    EDGE_SPREAD_DEFAULT,
    NextItems,
    StopRule,
    edge_spread_for,
    next_items,
    spread_rest,
    static_start_items,
)
from benchsift.compression.full_score import fit_full_score
from benchsift.compression.pipeline import CompressionConfig, pipeline_result
from benchsift.errors import DegenerateError
from benchsift.panel import Panel
from benchsift.parallel import ordered_parallel, sweep_backend
from benchsift.progress import ProgressFn
from benchsift.results import Result
from benchsift.stats import spearman
from benchsift.stats.means import nan_mean, random_subset_means

__all__ = ["AdaptiveSimulation", "replay_adaptive", "replay_final", "simulate_adaptive"]

METHODS = ("adaptive", "static", "random")


@dataclass(frozen=True, repr=False)
class AdaptiveSimulation(Result):
    """Per-split metrics (``per_split[method]``: list of ``(rho, mae)``; ``intervals[method]``: list of the
    95 % intervals' ``(coverage, mean width)`` of the held-out models' full overall scores, for ``adaptive``
    (:mod:`benchsift.adaptive.interval`; NaN when its bank has none) and ``static`` (the full-score
    estimator's split-conformal interval); none for ``random``) and their summary rows.

    ``random_state`` is the seed the simulation ran with (``"seed"`` in :meth:`to_dict`, as the CLI's
    ``--seed``; the attribute ``seed`` is its old name, read with a :class:`FutureWarning` until 0.3)."""

    holdout: float
    budget: float
    random_state: int
    n_items: list[int]
    per_split: dict[str, list[tuple[float, float]]]
    notes: list[str] = field(default_factory=list)
    intervals: dict[str, list[tuple[float, float]]] = field(default_factory=dict)

    def rows(self) -> list[dict[str, Any]]:
        out = []
        for m in METHODS:
            vals = np.array(self.per_split[m], dtype=np.float64)
            iv = np.array(self.intervals.get(m) or [(np.nan, np.nan)], dtype=np.float64)
            out.append(
                {
                    "method": m,
                    "budget": self.budget,
                    "n_items": int(round(float(np.mean(self.n_items)))),  # the same in every split
                    "n_splits": int(vals.shape[0]),
                    "rho_mean": float(np.nanmean(vals[:, 0])),
                    "rho_sd": _split_sd(vals[:, 0]),
                    "mae_mean": float(np.nanmean(vals[:, 1])),
                    "mae_sd": _split_sd(vals[:, 1]),
                    "coverage": float(np.nanmean(iv[:, 0])) if np.isfinite(iv[:, 0]).any() else math.nan,
                    "width": float(np.nanmean(iv[:, 1])) if np.isfinite(iv[:, 1]).any() else math.nan,
                }
            )
        return out

    def to_dict(self) -> dict[str, Any]:
        """``{"results": [{"method", "budget", "n_items", "n_splits", "rho_mean", "rho_sd", "mae_mean",
        "mae_sd", "coverage", "width"}], "holdout", "seed", "notes"}`` (``rho_sd``, ``mae_sd``: the sample sd
        over splits, ``ddof=1``, ``null`` with one split; ``coverage`` and ``width``: the 95 % intervals' mean
        over splits, ``null`` for a method without one)."""
        return {
            "results": to_jsonable(self.rows()),
            "holdout": self.holdout,
            "seed": self.random_state,
            "notes": list(self.notes),
        }

    seed = renamed_attribute("AdaptiveSimulation", "seed", "random_state", until="0.3")

    def to_frame(self) -> pd.DataFrame:
        """One row per method: :meth:`rows` as a table indexed by ``method``."""
        return pd.DataFrame(self.rows()).set_index("method")


def _split_sd(values: np.ndarray) -> float:
    """The sample sd (``ddof=1``) of a metric over the splits where it is finite; NaN (undefined, never 0)
    with fewer than two."""
    ok = np.asarray(values, dtype=np.float64)
    ok = ok[np.isfinite(ok)]
    return float(np.std(ok, ddof=1)) if ok.size >= 2 else math.nan


def _full_overall(panel: Panel) -> np.ndarray:
    """Each model's full overall score: the mean of its benchmark means over every item."""
    return nan_mean(panel.benchmark_means().means, axis=1)


def _metrics(est: np.ndarray, truth: np.ndarray) -> tuple[float, float]:
    ok = np.isfinite(est) & np.isfinite(truth)
    return float(spearman(est[ok], truth[ok])), float(np.mean(np.abs(est[ok] - truth[ok])))


#: a static start: a fraction of the items, or None for the default (:func:`static_start_items`)
_STATIC_START = [Interval(Real, 0, 1, closed="both", noun="a fraction"), None]


@renamed_params({"seed": "random_state"}, until="0.3")
def replay_adaptive(
    bank: ItemBank,
    scores: np.ndarray,
    models: list[str],
    n_items: int,
    *,
    batch: int | None = None,
    prior_mean: np.ndarray | None = None,
    prior_sd: np.ndarray | float | None = None,
    exposure: float = 3.0,
    random_state: int = 0,
    static_start: float | None = None,
    criterion: str = "posterior",
    prior_in_choice: bool = False,
    balance: bool = True,
    edge_spread: bool | None = None,
    low_edge: bool = True,
) -> tuple[np.ndarray, np.ndarray]:
    """Replay logged runs through adaptive testing: ``n_items`` items per model chosen by :func:`next_items`
    (``batch`` a step, default ``n_items / 10``), each answered from ``scores`` (``(n, bank.n_items)``, the
    models' logged scores on the bank's items; NaN = not run, never offered). ``prior_mean`` / ``prior_sd``:
    an optional per-model ability prior, as in :func:`next_items`. ``static_start``: the fraction of the
    ``n_items`` given first as a static start, ``int(static_start * n_items)`` items spread over the
    bank's difficulty (:meth:`ItemBank.spread_items`), then adaptive; ``None`` (default): a quarter from 60
    items, none below, all where the bank measured that design to err less out of fold
    (:func:`benchsift.adaptive.select.static_start_items`, measured there). ``criterion``,
    ``prior_in_choice``, ``balance``: the item choice, as in :func:`next_items`. ``edge_spread``: a model at
    the bank's edge is given the static start and then the rest of its budget spread over the difficulty
    (:func:`benchsift.adaptive.select.spread_rest`, ``edge_items`` of :func:`next_items`; docs/ADAPTIVE.md,
    *New models stronger than the bank*); ``None`` (default): from 5 % of the items of a bank of at least 60
    models that measured its edge error (:func:`benchsift.adaptive.select.edge_spread_for`). ``low_edge``: a
    model at the bank's lower edge is treated as one at its top (``next_items``' ``low_edge``). Returns the
    full-score estimates ``(n, n_benchmarks + 1)`` (last column ``overall``; with the composite correction
    from the static start's items, or an edge model's spread items, :mod:`benchsift.adaptive.design`) and the
    answered mask; :func:`replay_final` gives the last step whole (the estimates' intervals, the
    abilities)."""
    final, X = _replay(
        bank,
        scores,
        models,
        n_items,
        batch=batch,
        prior_mean=prior_mean,
        prior_sd=prior_sd,
        exposure=exposure,
        random_state=random_state,
        static_start=static_start,
        criterion=criterion,
        prior_in_choice=prior_in_choice,
        balance=balance,
        edge_spread=edge_spread,
        low_edge=low_edge,
    )
    return final.estimates, ~np.isnan(X)


def replay_final(
    bank: ItemBank,
    scores: np.ndarray,
    models: list[str],
    n_items: int,
    *,
    batch: int | None = None,
    prior_mean: np.ndarray | None = None,
    prior_sd: np.ndarray | float | None = None,
    exposure: float = 3.0,
    random_state: int = 0,
    static_start: float | None = None,
    criterion: str = "posterior",
    prior_in_choice: bool = False,
    balance: bool = True,
    edge_spread: bool | None = None,
    level: float = 0.95,
    low_edge: bool = True,
) -> NextItems:
    """:func:`replay_adaptive`, returning its last step whole: the :class:`~benchsift.adaptive.NextItems` of
    the answers to all ``n_items`` items (``estimates``, their model-based ``estimate_se`` and their
    ``interval`` at ``level``, :mod:`benchsift.adaptive.interval`; the abilities; ``at_edge``,
    ``below_edge``); ``low_edge`` as in :func:`replay_adaptive`."""
    return _replay(
        bank,
        scores,
        models,
        n_items,
        batch=batch,
        prior_mean=prior_mean,
        prior_sd=prior_sd,
        exposure=exposure,
        random_state=random_state,
        static_start=static_start,
        criterion=criterion,
        prior_in_choice=prior_in_choice,
        balance=balance,
        edge_spread=edge_spread,
        level=level,
        low_edge=low_edge,
    )[0]


def _replay(
    bank: ItemBank,
    scores: np.ndarray,
    models: list[str],
    n_items: int,
    *,
    batch: int | None,
    prior_mean: np.ndarray | None,
    prior_sd: np.ndarray | float | None,
    exposure: float,
    random_state: int,
    static_start: float | None,
    criterion: str,
    prior_in_choice: bool,
    balance: bool,
    edge_spread: bool | None,
    level: float = 0.95,
    low_edge: bool = True,
) -> tuple[NextItems, np.ndarray]:
    """The replay of :func:`replay_adaptive`: the last step and the responses given."""
    if static_start is None:
        n_start = static_start_items(int(n_items), bank)
    else:
        check_param("static_start", static_start, _STATIC_START)
        n_start = int(float(static_start) * int(n_items))
    start = bank.spread_items(n_start)
    spread = edge_spread_for(bank, int(n_items), edge_spread)
    edge = spread_rest(bank, int(n_items), start) if spread else None
    step = int(batch) if batch is not None else max(1, int(n_items) // 10)
    X = np.full(scores.shape, np.nan)
    available = ~np.isnan(scores)
    rule = StopRule(max_items=int(n_items), level=float(level))
    while True:
        nxt = next_items(
            bank,
            X,
            models,
            batch=step,
            prior_mean=prior_mean,
            prior_sd=prior_sd,
            exposure=exposure,
            stop=rule,
            random_state=int(random_state),
            available=available,
            start_items=start,
            criterion=criterion,
            prior_in_choice=prior_in_choice,
            balance=balance,
            edge_items=edge,
            low_edge=low_edge,
        )
        if all(not items for items in nxt.items):
            break
        for j, items in enumerate(nxt.items):
            X[j, items] = scores[j, items]
    # the last step saw every answer: its estimates are the final ones (ability under the same prior, the
    # same composite sample)
    return nxt, X


def _interval_metrics(low: np.ndarray, high: np.ndarray, truth: np.ndarray) -> tuple[float, float]:
    """``(coverage, mean width)`` of intervals of the models with a truth and an interval (NaN for none)."""
    ok = np.isfinite(low) & np.isfinite(high) & np.isfinite(truth)
    if not ok.any():
        return math.nan, math.nan
    return float(np.mean((truth[ok] >= low[ok]) & (truth[ok] <= high[ok]))), float(
        np.mean(high[ok] - low[ok])
    )


def _split_task(
    image: Panel,
    split: int,
    seed: int,
    n_build: int,
    budget: float,
    batch: int | None,
    exposure: float,
    covariates: pd.DataFrame | None = None,
    static_start: float | None = None,
    balance: bool = True,
    benchmark_offsets: bool | None = None,
    strongest: bool = False,
    edge_spread: bool | None = None,
    interval: bool = True,
    beyond_curve: bool | None = None,
) -> tuple[int, dict[str, tuple[float, float]], bool, dict[str, tuple[float, float]]]:
    """One build / held-out split: ``(suite size, {method: (rho, mae)}, whether the adaptive method spread
    the edge models' budgets, {method: (coverage, width)} of the 95 % intervals)``. Its own seed
    (``SeedSequence([seed, split])``), so the result does not depend on where or in what order it runs;
    ``strongest``: the strongest models by full score held out (the seed moves the rest)."""
    rng = np.random.default_rng(np.random.SeedSequence([int(seed), int(split)]))
    perm = rng.permutation(image.n_models)
    if strongest:
        perm = weakest_first(_full_overall(image))
    build = image.subset(models=np.sort(perm[:n_build]))
    held = image.subset(models=np.sort(perm[n_build:]))
    truth = _full_overall(held)
    # every method is scored on the benchmarks of each model's truth (overall_on_observed); an interval,
    # about the overall over every benchmark, only on the models that have them all
    groups = held.benchmark_positions()
    observed = observed_groups(held.scores, groups)
    truth_complete = np.where(observed.all(axis=1), truth, np.nan)
    cfg = CompressionConfig(
        retention=float(budget), floor=0, k=None, random_state=int(seed), full_score=False
    )
    suite = pipeline_result(build, cfg).suite_items  # (its warnings: about an internal comparator)
    n = int(suite.size)
    out: dict[str, tuple[float, float]] = {}
    fs = fit_full_score(build, suite, random_state=int(seed))
    pred = fs.predict(held.scores[:, suite], held.model_ids)
    per = pred.benchmark_scores(held.benchmarks)
    out["static"] = _metrics(overall_on_observed(pred.score[fs.method][:, -1], per, observed), truth)
    static_iv = (pred.low[fs.method][:, -1], pred.high[fs.method][:, -1])
    intervals = {"static": _interval_metrics(*static_iv, truth_complete)}
    out["random"] = _metrics(random_subset_means(held.scores, groups, n, rng), truth)
    bank = fit_bank(
        build,
        benchmark_offsets=benchmark_offsets,
        interval_budgets=INTERVAL_BUDGETS if interval else (),
        beyond_curve=beyond_curve,
    )
    mu = sd = None
    if covariates is not None:  # the regression on the build models only; the held-out models' covariates
        mu, sd = fit_covariate_prior(bank, covariates).predict(covariates, held.model_ids)
    last = replay_final(
        bank,
        held.scores,
        held.model_ids,
        n,
        batch=batch,
        prior_mean=mu,
        prior_sd=sd,
        exposure=exposure,
        random_state=seed,
        static_start=static_start,
        balance=balance,
        edge_spread=edge_spread,
    )
    out["adaptive"] = _metrics(
        overall_on_observed(last.estimates[:, -1], last.estimates[:, :-1], observed), truth
    )
    iv = last.interval if last.interval is not None else np.full((truth.size, 2), np.nan)
    intervals["adaptive"] = _interval_metrics(iv[:, 0], iv[:, 1], truth_complete)
    return n, out, edge_spread_for(bank, n, edge_spread), intervals


_FRACTION = Interval(Real, 0, 1, closed="neither", noun="a fraction")
_POSITIVE_INT = Interval(Integral, 1, None, desc="an int >= 1")


@renamed_params({"seed": "random_state"}, until="0.3")
@validate_params(
    {
        "holdout": [_FRACTION],
        "budget": [_FRACTION],
        "n_splits": [_POSITIVE_INT],
        "batch": [_POSITIVE_INT, None],
        "static_start": _STATIC_START,
        "balance": ["boolean"],
        "benchmark_offsets": ["boolean", None],
        "strongest": ["boolean"],
        "edge_spread": ["boolean", None],
        "interval": ["boolean"],
        "beyond_curve": ["boolean", None],
    }
)
def simulate_adaptive(
    panel: Panel,
    *,
    holdout: float = 0.4,
    budget: float = 0.05,
    random_state: int = 0,
    n_splits: int = 5,
    batch: int | None = None,
    exposure: float = 3.0,
    covariates: pd.DataFrame | None = None,
    static_start: float | None = None,
    balance: bool = True,
    benchmark_offsets: bool | None = None,
    strongest: bool = False,
    edge_spread: bool | None = None,
    interval: bool = True,
    beyond_curve: bool | None = None,
    progress: ProgressFn | None = None,
    n_jobs: int | None = None,
    backend: str | None = None,
    address: str | None = None,
) -> AdaptiveSimulation:
    """Run the protocol of the module docstring; ``progress(done, total)`` is called after each split.

    The splits are independent tasks sent through ``joblib.Parallel`` on ``backend`` / ``address`` /
    ``n_jobs`` (:func:`benchsift.parallel.sweep_backend`; default: in this process); each carries its own
    seed, so the same ``random_state`` (the seed; was ``seed``, accepted until 0.3) gives the same numbers
    on every backend. ``covariates``: optional models x features table (e.g. the models' means on other
    benchmarks, :func:`benchsift.adaptive.prior.other_benchmarks`); the adaptive method's ability prior is
    then regressed on them (:func:`benchsift.adaptive.prior.fit_covariate_prior`, fitted on each split's
    build models). ``static_start``: the adaptive method's static start, a fraction of its items
    (:func:`replay_adaptive`; ``None``: a quarter from 60 items). ``balance``: equal shares of the items
    per benchmark (:func:`benchsift.adaptive.next_items`). ``benchmark_offsets``: the banks' per-benchmark
    ability offsets (:func:`benchsift.adaptive.fit_bank`; ``None``: its default). ``strongest``: hold out the
    strongest ``holdout`` share of the models by full score instead of a random one (every split the same
    models; the seeds move the suite, the random items and the exposure draws): new models stronger than
    every build model, where the bank's curves extrapolate (docs/ADAPTIVE.md, *New models stronger than the
    bank*). ``edge_spread``: the adaptive method's :func:`replay_adaptive` option (``None``: its default, from
    5 % of the items of a bank of at least 60 models). ``interval``: each split's bank calibrates the adaptive
    estimate's interval (:mod:`benchsift.adaptive.interval`; its coverage and width are reported); ``False``
    leaves it out (the banks fit 4-6x faster; the adaptive coverage is then NaN). ``beyond_curve``: the
    banks' EM curves (:func:`benchsift.adaptive.fit_bank`; ``None``: with every polished bank).
    """
    image = panel.image_panel()
    n_hold = int(round(float(holdout) * image.n_models))
    n_build = image.n_models - n_hold
    if n_hold < 3 or n_build < 5:
        raise DegenerateError(
            f"adaptive simulate needs at least 5 build and 3 held-out models; {image.n_models} image models "
            f"with holdout {holdout} give {n_build} and {n_hold}"
        )
    per: dict[str, list[tuple[float, float]]] = {m: [] for m in METHODS}
    intervals: dict[str, list[tuple[float, float]]] = {}
    sizes: list[int] = []
    spread: list[bool] = []
    notes: list[str] = []
    with sweep_backend(backend, address, n_jobs) as workers:
        results = ordered_parallel(workers)(
            delayed(_split_task)(
                image,
                split,
                int(random_state),
                n_build,
                float(budget),
                batch,
                float(exposure),
                covariates,
                None if static_start is None else float(static_start),
                bool(balance),
                benchmark_offsets,
                bool(strongest),
                None if edge_spread is None else bool(edge_spread),
                bool(interval),
                beyond_curve,
            )
            for split in range(int(n_splits))
        )
        for done, (n, metrics, spread_here, covered) in enumerate(results, start=1):
            sizes.append(n)
            spread.append(spread_here)
            for m in METHODS:
                per[m].append(metrics[m])
            for m, c in covered.items():
                intervals.setdefault(m, []).append(c)
            if progress is not None:
                progress(done, int(n_splits))
    if strongest:
        notes.append(
            f"held out: the strongest {n_hold} models by full score, in every split (new models stronger "
            "than the build models)"
        )
    if any(spread):
        how = "" if edge_spread else f", {EDGE_SPREAD_DEFAULT}"
        notes.append(
            f"adaptive: a model at the bank's edge got the rest of its budget spread (edge spread{how}; "
            f"{sum(spread)} of {len(spread)} splits)"
        )
    if covariates is not None:
        notes.append(
            "adaptive: ability prior regressed on the models' " + ", ".join(map(str, covariates.columns))
        )
    if min(sizes) < 10:
        notes.append(f"the static suite holds only {min(sizes)} items at budget {budget}: metrics are noisy")
    return AdaptiveSimulation(float(holdout), float(budget), int(random_state), sizes, per, notes, intervals)
