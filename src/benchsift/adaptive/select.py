"""The stateless step of adaptive testing: given a model's responses so far, which items to run next.

Item choice: maximum Fisher information averaged over the model's ability posterior
(``criterion="posterior"``, the default: the posterior-weighted information of van der Linden 1998,
:meth:`ItemBank.posterior_information`) or at the current ability estimate (``criterion="point"``: EAP on the
items answered so far; Lord 1980, ch. 9), with *randomesque* exposure control (Kingsbury and Zara 1989,
"Procedures for selecting items for computerized adaptive tests", Applied Measurement in Education 2(4)): the
``batch`` items are drawn at random, without replacement, from the ``exposure * batch`` most informative items
not yet answered, so that every model does not see the same few items. The draw is seeded by ``(seed, model
name, number of items answered)``, so the same responses give the same next items on any machine, and the step
needs no state: it runs through any harness (export the chosen items, run them, append the results, call it
again).

Content balancing (``balance=True``, the default; the same paper's quotas): on a bank of several benchmarks
each step's items are split among the benchmarks furthest below an equal share of the model's items
(:func:`benchmark_quotas`) and chosen by information within each (:func:`pick_balanced`), so that every
benchmark mean in the overall score is measured; by information over the whole bank the items go to the most
discriminating benchmarks (docs/ADAPTIVE.md, "Several benchmarks in one bank").

Static start (``start_items``; :func:`next_items_for` by default a quarter of a ``max_items`` budget of at
least 60 items, or the whole budget where the bank measured that design to err less out of fold,
:func:`static_start_items`): given items come first, in order, while any is still open to a
model, e.g. items spread over the bank's difficulty (:meth:`ItemBank.spread_items`). They are also the
sample of the composite correction of the full-score estimates (:mod:`benchsift.adaptive.design`).

Stopping rules (checked before choosing; the first that holds is reported): the ability's posterior sd is at
most ``se_target``, or out of its reach even with every item left answered (:func:`reachable_sd`, said in a
warning naming the model); the rank interval among the bank's reference models (ability +- ``z`` sd) is at
most ``rank_width`` wide; ``max_items`` items have been answered; no item is left.
"""

from __future__ import annotations

import dataclasses
import math
import os
import warnings as _warnings
import zlib
from collections.abc import Sequence
from dataclasses import dataclass, field
from numbers import Integral, Real
from typing import Any, ClassVar

import numpy as np
import pandas as pd
from scipy.stats import norm

from benchsift._inputs import check_array, check_distinct, check_shape
from benchsift._jsonutil import to_jsonable
from benchsift._params import (
    ConstraintLike,
    Interval,
    Options,
    check_params,
    renamed_params,
    validate_params,
)
from benchsift._schema import Rule, check_rules
from benchsift.adaptive.bank import MIN_FACTOR_MODELS, ItemBank
from benchsift.adaptive.design import (
    EDGE_SHARE,
    EDGE_SPREAD_FROM,
    LOW_EDGE_SHARE,
    budget_items,
    nearest_budget,
)
from benchsift.adaptive.prior import fit_covariate_prior
from benchsift.errors import EstimateWarning, InputError, listed
from benchsift.irt import AbilityEstimate
from benchsift.panel import Panel
from benchsift.panel.keys import numeric_twins, twins_text
from benchsift.results import Result

__all__ = [
    "CRITERIA",
    "EDGE_SPREAD_DEFAULT",
    "STATIC_START",
    "NextItems",
    "StopRule",
    "benchmark_codes",
    "benchmark_quotas",
    "edge_spread_for",
    "next_items",
    "pick_balanced",
    "pick_batch",
    "spread_rest",
    "static_start_items",
]

#: The default static start (docs/ADAPTIVE.md, benchmarks/bench_adaptive.py): a quarter of a budget of at
#: least ``STATIC_START_MIN`` items is given first, spread over the bank's difficulty; smaller budgets none.
STATIC_START = 0.25
STATIC_START_MIN = 60

#: item-choice criteria of :func:`next_items`: information averaged over the ability posterior, or at the EAP
CRITERIA = ("posterior", "point")


def static_start_items(n_items: int, bank: ItemBank | None = None) -> int:
    """How many of a budget of ``n_items`` the default static start gives first: all of them when ``bank``
    measured that the whole budget spread over the difficulty errs less than the adaptive test there
    (:meth:`ItemBank.spread_wins`, :mod:`benchsift.adaptive.design`: both designs replayed out of fold on
    the bank's own models), else ``floor(0.25 n)`` from
    :data:`STATIC_START_MIN` items, else 0. Measured against the covariate prior alone on six real panels
    (5 splits): at 62-156 items it lowered the MAE in all five cells (AI2D 0.91 -> 0.86 and 1.01 -> 0.89 x
    the reference CAT's, MMT 0.97 -> 0.93 and 0.92 -> 0.83, GSM8K 0.97 -> 0.94); below 60 items it was
    mixed and lost on MMMU (21 and 52 items: 0.96 -> 0.99, 0.92 -> 0.96) and CRUXEval. The max-information
    items of a large budget cluster near the model's ability, so the estimate of the other items rests on
    the 2PL curves far from it; items spread over the difficulty observe them instead, at the price of
    information, which a small budget cannot pay. The threshold was chosen on those runs."""
    n = int(n_items)
    if bank is not None and bank.spread_wins(n):
        return n
    return int(STATIC_START * n) if n >= STATIC_START_MIN else 0


def spread_rest(bank: ItemBank, n_items: int, start: np.ndarray | None = None) -> np.ndarray:
    """What a model at the bank's edge is given (``edge_items`` of :func:`next_items`): the static start
    ``start``, then the items of a budget of ``n_items`` spread over the difficulty
    (:meth:`ItemBank.spread_items`) that are not in it, in their order."""
    first = np.empty(0, dtype=np.int64) if start is None else np.asarray(start, dtype=np.int64)
    rest = bank.spread_items(int(n_items))
    return np.concatenate([first, rest[~np.isin(rest, first)]])


#: How the edge spread's default is named in the warnings and notes that say it applied
#: (:func:`edge_spread_for`).
EDGE_SPREAD_DEFAULT = (
    f"the default from {EDGE_SPREAD_FROM:.0%} of the items of a bank of at least {MIN_FACTOR_MODELS} models"
)


def edge_spread_for(bank: ItemBank, n_items: int | None, edge_spread: bool | None = None) -> bool:
    """Whether a model at the bank's edge gets the rest of a budget of ``n_items`` spread over the difficulty
    (:func:`spread_rest`; ``edge_items`` of :func:`next_items`): ``edge_spread`` when it is given; ``None``
    (the default of :func:`next_items_for`, :func:`~benchsift.adaptive.replay_adaptive` and
    :func:`~benchsift.adaptive.simulate_adaptive`): a budget of at least :data:`EDGE_SPREAD_FROM` of the
    bank's items (:func:`~benchsift.adaptive.design.budget_items`) on a bank of at least
    :data:`~benchsift.adaptive.bank.MIN_FACTOR_MODELS` reference models that measured its misfit and its
    error at the edge (the misfit folds of :func:`~benchsift.adaptive.fit_bank`). Never without a budget.

    Measured (docs/ADAPTIVE.md, *New models stronger than the bank*): on banks of 54-101 VLMs it lowered the
    MAE of the strongest 40 % at 5 and 10 % of the items on every panel (by 9-47 %) and moved random splits by
    -0.0023 to +0.0010; on banks of 24-29 LLMs it raised the MAE of random splits at 5 % (CRUX 0.0227 ->
    0.0282) and of GSM8K's strongest models (0.0069 -> 0.0178), hence the bank size (the residual factors'
    and the empirical prior's threshold)."""
    if not n_items:
        return False
    if edge_spread is not None:
        return bool(edge_spread)
    if bank.edge_error is None or bank.misfit_var is None:
        return False
    if len(bank.reference_models) < MIN_FACTOR_MODELS:
        return False
    return int(n_items) >= budget_items(EDGE_SPREAD_FROM, bank.n_items)


def _given_items(
    bank: ItemBank,
    start_items: Sequence[int] | np.ndarray | None,
    edge_items: Sequence[int] | np.ndarray | None,
    at_edge: np.ndarray,
) -> tuple[np.ndarray, np.ndarray | None, np.ndarray]:
    """The static start and the edge models' items of :func:`next_items` (checked; ``None`` without), and the
    composite correction's sample: the static start, or per model (``(n, n_items)``) an edge model's own."""
    start = check_array(
        "start_items", [] if start_items is None else list(start_items), ndim=1, dtype=np.int64, low=0,
        high=bank.n_items - 1,
    )  # fmt: skip
    if edge_items is None:
        return start, None, start
    edge = check_array("edge_items", list(edge_items), ndim=1, dtype=np.int64, low=0, high=bank.n_items - 1)
    sample = np.zeros((at_edge.size, bank.n_items), dtype=bool)
    sample[:, start] = True
    sample[at_edge] = np.isin(np.arange(bank.n_items), edge)
    return start, edge, sample


def _default_start(bank: ItemBank, stop: StopRule | None, warnings: list[str]) -> int:
    """The default static start of :func:`next_items_for`: :func:`static_start_items` of ``stop.max_items``
    (none without it); when that is the whole budget, a warning saying why joins ``warnings``."""
    n = int(stop.max_items) if stop is not None and stop.max_items else 0
    n_start = static_start_items(n, bank) if n else 0
    if n_start and n_start == n:
        assert bank.design_budgets is not None  # spread_wins held: the designs were measured
        row = bank.designs()[nearest_budget(n, bank.n_items, bank.design_budgets)]  # the row that decided
        warnings.append(
            f"out of fold, at {row['items']} items ({row['budget']:.1%} of the bank) the whole budget spread "
            f"over the difficulty erred {row['spread_mae']:.3f} on average and the adaptive test "
            f"{row['adaptive_mae']:.3f} (standard error of the difference {row['se']:.3f}): all {n} items "
            "are given spread (a static test, estimated with the composite correction), not a quarter and "
            "then maximum information; --static-start K (static_start=K) to choose"
        )
    return n_start


#: run_step's inputs: what has been answered so far, or whom to start with
_RESULTS_OR_START = Rule(
    ("responses", "start"),
    lambda responses, start: responses is not None or bool(start),
    "`responses` (the results so far) or `start` (models to start)",
)


#: a count of items: "an int >= 1", the words the messages had before the declaration
_POSITIVE_INT = Interval(Integral, 1, None, desc="an int >= 1")


@dataclass(frozen=True)
class StopRule:
    """When to stop: any rule that is set and holds stops the test (``None`` = not used)."""

    se_target: float | None = None
    rank_width: float | None = None
    max_items: int | None = None
    level: float = 0.95

    _parameter_constraints: ClassVar[dict[str, list[ConstraintLike]]] = {
        "se_target": [Interval(Real, 0, None, closed="neither", desc="a positive number"), None],
        "rank_width": [Interval(Real, 0, None), None],
        "max_items": [_POSITIVE_INT, None],
        "level": [Interval(Real, 0, 1, closed="neither")],
    }

    def __post_init__(self) -> None:
        check_params(self._parameter_constraints, vars(self))


@dataclass(frozen=True, repr=False)
class NextItems(Result):
    """The next step for each model (rows in ``models`` order)."""

    models: list[str]
    items: list[list[int]]  # bank positions of the next items (empty when stopped)
    stop: list[str | None]  # the rule that stopped the test, or None
    n_answered: np.ndarray
    theta: np.ndarray
    se: np.ndarray
    rank: np.ndarray
    rank_interval: np.ndarray  # (n, 2)
    estimates: np.ndarray  # (n, n_benchmarks + 1) full-score estimates
    estimate_names: list[str]
    keys: list[tuple[str, str]] = field(default_factory=list)  # (benchmark, item) of the bank positions
    n_ignored_items: int = 0  # items of the responses given that are not in the bank (left out)
    warnings: list[str] = field(default_factory=list)  # responses left out, models restarted because of it
    prior: dict[str, Any] | None = None  # the covariate prior used (CovariatePrior.to_dict), if any
    prior_mean: np.ndarray | None = None  # per model, NaN = the bank's own prior
    prior_sd: np.ndarray | None = None  # per model, the prediction sd; NaN = the bank's own prior
    #: per model, whether its ability is at the bank's edge (:meth:`ItemBank.at_edge`)
    at_edge: np.ndarray | None = None
    #: per model, whether its ability is at the bank's lower edge (:meth:`ItemBank.below_edge`; treated as
    #: one at the edge, ``next_items``' ``low_edge``)
    below_edge: np.ndarray | None = None
    #: per model, the model-based standard error of the overall estimate (:meth:`ItemBank.full_score_se`)
    estimate_se: np.ndarray | None = None
    #: ``(n, 2)`` the overall estimate's calibrated interval at ``interval_level``
    #: (:meth:`ItemBank.full_score_interval`; NaN: the bank was not calibrated)
    interval: np.ndarray | None = None
    interval_level: float = 0.95
    #: per model, the weight of the bank's EM curves in the estimates (:meth:`ItemBank.beyond_weight`;
    #: ``None``: a bank without them, the polished or EM curves alone)
    beyond_weight: np.ndarray | None = None

    def _overall_se_interval(self) -> tuple[np.ndarray, np.ndarray]:
        """The overall estimate's standard errors ``(n,)`` and intervals ``(n, 2)``, NaN where not set."""
        n = len(self.models)
        se = self.estimate_se if self.estimate_se is not None else np.full(n, np.nan)
        return se, self.interval if self.interval is not None else np.full((n, 2), np.nan)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready: ``{"models": [{"model", "next": [{"benchmark", "item"}], "stop", "n_answered",
        "theta", "se", "rank", "rank_interval", "at_edge", "below_edge", "estimates": {NAME: score},
        "overall_se",
        "overall_interval": [low, high]}], "interval_level", "n_ignored_items", "warnings"}`` (the interval
        ``null`` when the bank was not calibrated); with a covariate prior also ``"prior"`` and each model's
        ``"prior_mean"`` and ``"prior_sd"``; with a bank that keeps its EM curves each model's
        ``"beyond_weight"``."""
        se, iv = self._overall_se_interval()
        doc = {
            "models": [
                {
                    "model": m,
                    "next": [{"benchmark": self.keys[i][0], "item": self.keys[i][1]} for i in self.items[j]],
                    "stop": self.stop[j],
                    "n_answered": int(self.n_answered[j]),
                    "theta": self.theta[j],
                    "se": self.se[j],
                    "rank": self.rank[j],
                    "rank_interval": [self.rank_interval[j, 0], self.rank_interval[j, 1]],
                    "at_edge": None if self.at_edge is None else bool(self.at_edge[j]),
                    "below_edge": None if self.below_edge is None else bool(self.below_edge[j]),
                    "estimates": {n: self.estimates[j, c] for c, n in enumerate(self.estimate_names)},
                    "overall_se": se[j],
                    "overall_interval": None if not np.isfinite(iv[j]).all() else [iv[j, 0], iv[j, 1]],
                }
                for j, m in enumerate(self.models)
            ],
            "interval_level": self.interval_level,
            "n_ignored_items": int(self.n_ignored_items),
            "warnings": list(self.warnings),
        }
        if self.prior is not None:
            doc["prior"] = dict(self.prior)
        if self.prior_mean is not None:
            rows: list[dict[str, Any]] = doc["models"]  # type: ignore[assignment]
            sds = self.prior_sd if self.prior_sd is not None else np.full(len(rows), np.nan)
            for row, mu, sd in zip(rows, self.prior_mean, sds, strict=True):
                row["prior_mean"] = mu  # NaN (None in JSON): the bank's own prior
                row["prior_sd"] = sd
        if self.beyond_weight is not None:
            for row, w in zip(doc["models"], self.beyond_weight, strict=True):  # type: ignore[call-overload]
                row["beyond_weight"] = w
        return to_jsonable(doc)  # numpy floats to floats, NaN and inf to None

    def to_frame(self) -> pd.DataFrame:
        """One row per model: answered items, ability, rank and its interval, whether it is at the bank's
        edge (and the weight of the EM curves, :attr:`beyond_weight`), full-score estimates, the overall
        estimate's standard error and interval (``overall_se``, ``overall_low``, ``overall_high``; NaN without
        a calibrated bank), the number of next items and the stop rule."""
        frame = pd.DataFrame(
            {
                "model": self.models,
                "n_answered": np.asarray(self.n_answered, dtype=int),
                "theta": self.theta,
                "se": self.se,
                "rank": self.rank,
                "rank_low": self.rank_interval[:, 0],
                "rank_high": self.rank_interval[:, 1],
            }
        )
        if self.at_edge is not None:
            frame["at_edge"] = np.asarray(self.at_edge, dtype=bool)
        if self.below_edge is not None:
            frame["below_edge"] = np.asarray(self.below_edge, dtype=bool)
        if self.beyond_weight is not None:
            frame["beyond_weight"] = np.asarray(self.beyond_weight, dtype=np.float64)
        for c, name in enumerate(self.estimate_names):
            frame[name] = self.estimates[:, c]
        frame["overall_se"], iv = self._overall_se_interval()
        frame["overall_low"], frame["overall_high"] = iv[:, 0], iv[:, 1]
        frame["n_next"] = [len(i) for i in self.items]
        frame["stop"] = self.stop
        return frame.set_index("model")


def _stop_reason(
    rule: StopRule, exhausted: bool, n_answered: int, se: float, rank_iv: np.ndarray
) -> str | None:
    """The first rule of ``rule`` that stops a model's test (module docstring), or None."""
    if exhausted:
        return "bank exhausted"
    if rule.max_items is not None and n_answered >= int(rule.max_items):
        return f"max_items {int(rule.max_items)} reached"
    if rule.se_target is not None and n_answered > 0 and se <= rule.se_target:
        return f"ability sd {se:.3f} <= se_target {rule.se_target}"
    width = rank_iv[1] - rank_iv[0]
    if rule.rank_width is not None and n_answered > 0 and width <= rule.rank_width:
        return f"rank interval width {width:.0f} <= rank_width {rule.rank_width}"
    return None


#: half-width, in posterior sds, of the abilities over which :func:`reachable_sd` takes the posterior's
#: curvature at its largest
REACH_WIDTH = 3.0


def reachable_sd(
    bank: ItemBank,
    theta: float,
    se: float,
    items: np.ndarray,
    prior: tuple[float, float] | None = None,
) -> float:
    """About the smallest ability sd a model can reach with every item of ``items`` (a mask of the bank's
    items: those answered and those still open to it) answered, from its posterior (``theta``, ``se``):
    ``1 / sqrt(max c)``, ``c`` the curvature of the log posterior with all of them answered (the log prior's,
    ``-(log p)''``, plus each item's Fisher information, a 2PL item's ``a^2 P (1 - P)`` whatever the answer)
    at its largest over ``theta +- 3 se`` (:data:`REACH_WIDTH`), where the final ability lies. By the
    Cramér-Rao inequality for a location (Stam 1959) a posterior's variance is at least one over its Fisher
    information, the mean of that curvature over the posterior, hence at least ``1 / max c`` where the
    posterior lies. ``prior``: a model's own Gaussian prior ``(mean, sd)`` (curvature ``1 / sd^2``); else
    the bank's. On the held-out models of an MMMU bank (1,050 items; strongest, median, weakest, all right,
    all wrong, after 50-600 random items or the adaptive loop's) it was 2-47 % below the sd with every item
    answered, never above: a target below it is out of reach (the prior's tails and the bank's items bound
    the sd of a model beyond them)."""
    grid = float(theta) + float(se) * np.linspace(-REACH_WIDTH, REACH_WIDTH, 61)
    if prior is not None:
        curvature = np.full(grid.size, 1.0 / float(prior[1]) ** 2)
    else:
        h = 1e-3  # the log prior is smooth: a central second difference
        lp = bank.log_prior(np.concatenate([grid - h, grid, grid + h])).reshape(3, -1)
        curvature = -(lp[0] - 2.0 * lp[1] + lp[2]) / h**2
    total = curvature + bank.information(grid)[:, np.asarray(items, dtype=bool)].sum(axis=1)
    best = float(np.max(total))
    return float(1.0 / math.sqrt(best)) if best > 0 else math.inf


def _out_of_reach(
    bank: ItemBank,
    rule: StopRule,
    models: Sequence[str],
    reasons: list[str | None],
    est: AbilityEstimate,
    masks: tuple[np.ndarray, np.ndarray],
    prior: tuple[np.ndarray | None, np.ndarray | float | None],
) -> str | None:
    """Stop the tests whose ``se_target`` is out of reach (:func:`reachable_sd` above it; models not stopped
    by another rule, with an answer; ``masks``: the answered and the blocked items; ``prior``: the models'
    own priors ``(prior_mean, prior_sd)``, as in :func:`next_items`) with a reason saying so, in
    ``reasons``; the warning that names them, their sds and the smallest reachable (``None`` for none)."""
    (answered, blocked), (prior_mean, prior_sd) = masks, prior
    n_answered = answered.sum(axis=1)
    target = rule.se_target
    if target is None:
        return None
    named = []
    for j, m in enumerate(models):
        if reasons[j] is not None or n_answered[j] == 0 or not est.se[j] > target:
            continue
        own = None
        if prior_mean is not None and np.isfinite(prior_mean[j]):
            sds = np.broadcast_to(np.asarray(prior_sd, dtype=np.float64), (len(models),))
            own = (float(prior_mean[j]), float(sds[j]))
        best = reachable_sd(bank, float(est.theta[j]), float(est.se[j]), answered[j] | ~blocked[j], own)
        if best > target:
            reasons[j] = (
                f"se_target {target} out of reach: ability sd {est.se[j]:.3f}, at best about {best:.3f} with "
                f"all {int((~blocked[j]).sum())} items left"
            )
            named.append(f"{m} (sd {est.se[j]:.3f}, at best about {best:.3f})")
    if not named:
        return None
    more = f", ... {len(named) - 5} more" if len(named) > 5 else ""
    return (
        f"{len(named)} model(s) cannot reach se_target {target} even with every item left answered (their "
        f"ability sd, now and at best): {', '.join(named[:5])}{more}; their tests stop (the prior's tails "
        "and the bank's items bound the sd of a model beyond most of them): a larger se_target, max_items or "
        "rank_width to go on"
    )


def _step_seed(seed: int, model: str, n_answered: int) -> np.random.Generator:
    key = [int(seed), zlib.crc32(model.encode("utf-8")), int(n_answered)]
    return np.random.default_rng(np.random.SeedSequence(key))


def pick_batch(
    info: np.ndarray, answered: np.ndarray, batch: int, exposure: float, rng: np.random.Generator
) -> np.ndarray:
    """``batch`` positions drawn at random from the ``ceil(exposure * batch)`` most informative unanswered
    items (randomesque); fewer when fewer are left (an infinite ``exposure``: from every unanswered item).
    Ties in information are broken by position."""
    free = np.flatnonzero(~answered)
    if free.size == 0 or batch <= 0:
        return np.empty(0, dtype=np.int64)
    pool_size = min(free.size, max(int(batch), math.ceil(min(float(exposure) * int(batch), free.size))))
    order = free[np.argsort(-info[free], kind="stable")[:pool_size]]
    take = min(int(batch), order.size)
    return np.sort(rng.choice(order, size=take, replace=False)).astype(np.int64)


def benchmark_quotas(answered: np.ndarray, free: np.ndarray, room: int) -> np.ndarray:
    """How many of the next ``room`` items go to each benchmark: one at a time, to the benchmark furthest
    below an equal share of the items given so far (``answered``, per benchmark, counting the ones already
    given in this step) among those with an item left (``free``, per benchmark); ties to the first.

    Content balancing by quotas (Kingsbury and Zara 1989, "Procedures for selecting items for computerized
    adaptive tests", Applied Measurement in Education 2(4)): the item choice by information is then made
    within each benchmark. The share is equal because the overall score is the mean of the benchmark means
    (:meth:`ItemBank.full_scores`), each measured from its own items.
    """
    count = np.asarray(answered, dtype=np.float64).copy()
    left = np.asarray(free, dtype=np.int64).copy()
    quota = np.zeros(count.size, dtype=np.int64)
    total = float(count.sum())
    for k in range(int(room)):
        if not (left > 0).any():
            break
        deficit = np.where(left > 0, (total + k + 1) / count.size - count, -np.inf)
        g = int(np.argmax(deficit))
        quota[g] += 1
        count[g] += 1
        left[g] -= 1
    return quota


def benchmark_codes(bank: ItemBank) -> np.ndarray | None:
    """Each bank item's benchmark as a code 0..G-1, or None for a bank of one benchmark."""
    codes = np.unique(bank.items["benchmark"].astype(str), return_inverse=True)[1].astype(np.int64)
    return codes if codes.size and int(codes.max()) > 0 else None


def pick_balanced(
    info: np.ndarray,
    blocked: np.ndarray,
    answered: np.ndarray,
    groups: np.ndarray | None,
    batch: int,
    exposure: float,
    rng: np.random.Generator,
) -> np.ndarray:
    """:func:`pick_batch` within each benchmark (``groups``: its code per item, 0..G-1, from
    :func:`benchmark_codes`), ``batch`` items in all, split by :func:`benchmark_quotas` of the model's
    ``answered`` items; the benchmarks drawn in order. ``groups=None``: :func:`pick_batch` over all items
    (content balancing off, or a bank of one benchmark: the same items as before it existed)."""
    if groups is None:
        return pick_batch(info, blocked, batch, exposure, rng)
    n_groups = int(groups.max()) + 1
    quota = benchmark_quotas(
        np.bincount(groups[answered], minlength=n_groups),
        np.bincount(groups[~blocked], minlength=n_groups),
        batch,
    )
    picked = [
        pick_batch(info, blocked | (groups != g), int(q), exposure, rng) for g, q in enumerate(quota) if q > 0
    ]
    return np.sort(np.concatenate(picked)) if picked else np.empty(0, dtype=np.int64)


@renamed_params({"seed": "random_state"}, until="0.3")
@validate_params(
    {
        "batch": [_POSITIVE_INT],
        "exposure": [Interval(Real, 1, None)],
        # the exposure draw's SeedSequence takes no negative seed (a ValueError from numpy before)
        "random_state": [Interval(Integral, 0, None, desc="an int >= 0")],
        "criterion": [Options(CRITERIA)],
        "prior_in_choice": ["boolean"],
        "balance": ["boolean"],
        "low_edge": ["boolean"],
    }
)
def next_items(
    bank: ItemBank,
    X: np.ndarray,
    models: list[str],
    *,
    batch: int = 10,
    prior_mean: np.ndarray | None = None,
    prior_sd: np.ndarray | float | None = None,
    exposure: float = 3.0,
    stop: StopRule | None = None,
    random_state: int = 0,
    available: np.ndarray | None = None,
    start_items: Sequence[int] | np.ndarray | None = None,
    criterion: str = "posterior",
    prior_in_choice: bool = False,
    balance: bool = True,
    edge_items: Sequence[int] | np.ndarray | None = None,
    low_edge: bool = True,
) -> NextItems:
    """The next ``batch`` items for each model given its responses ``X`` (``(n, bank.n_items)``, NaN = not
    answered), or the stopping rule that ends its test.

    Parameters
    ----------
    batch:
        Items per step (a harness run is cheaper in batches).
    prior_mean, prior_sd:
        Optional per-model Gaussian ability prior (``(n,)`` means, NaN = the bank's prior; sd per model or
        one for all), e.g. from the models' other benchmarks
        (:func:`benchsift.adaptive.prior.fit_covariate_prior`); it drives the ability and the full-score
        estimates (:meth:`ItemBank.score`), and the item choice only with ``prior_in_choice``.
    prior_in_choice:
        Choose the items under the per-model prior too (``False``, default: under the bank's own prior, from
        the responses alone, so that a prior that is wrong about a model does not also steer which items
        it is asked; the estimate still uses it). Measured in docs/ADAPTIVE.md.
    exposure:
        Randomesque pool as a multiple of ``batch`` (1 = pure maximum information).
    stop:
        :class:`StopRule` (default: none set; the test stops only when the bank is exhausted).
    random_state:
        Seed of the exposure draw, with the model name and the items answered (``seed`` until 0.3).
    available:
        Optional ``(n, bank.n_items)`` mask of the items each model can still be given (a replay of logged
        runs offers only the items a model was run on); default: every item.
    start_items:
        Optional bank positions every model is given first, in this order (a static start, e.g.
        :meth:`ItemBank.spread_items`), while one is still open (not answered, available); then maximum
        information. Stateless like the rest: it depends only on what was answered.
    edge_items:
        What a model at the bank's edge (:meth:`ItemBank.at_edge`) is given instead of ``start_items`` (e.g.
        :func:`spread_rest`), and its composite correction's sample (:func:`_given_items`; docs/ADAPTIVE.md).
    criterion:
        ``"posterior"`` (default): each item's Fisher information averaged over the model's ability
        posterior (:meth:`ItemBank.posterior_information`); ``"point"``: at the EAP alone, the classical
        rule (and the reference CAT's), which with a wide posterior picks the items steepest at a guess,
        where a bank's slopes err most (van der Linden and Glas 2000, "Capitalization on item calibration
        error in adaptive testing", Applied Measurement in Education 13(1)). Measured: docs/ADAPTIVE.md.
    balance:
        On a bank of several benchmarks, an equal share of a model's items per benchmark, chosen by
        information within each (default; :func:`benchmark_quotas`); ``False``: over the whole bank, which
        sends the items to the most discriminating benchmarks (docs/ADAPTIVE.md). No effect on a bank of one
        benchmark.
    low_edge:
        A model at the bank's lower edge (:meth:`ItemBank.below_edge`) is treated as one at its top edge
        (default; docs/ADAPTIVE.md, *Models weaker than the bank*); ``False``: as the calibration replays.
    """
    X = check_array("responses", np.atleast_2d(np.asarray(X, dtype=np.float64)), ndim=2, low=0.0, high=1.0)
    check_shape("responses", X.shape, (len(models), bank.n_items))
    rule = stop if stop is not None else StopRule()
    answered = ~np.isnan(X)
    n_answered = answered.sum(axis=1)
    blocked = answered if available is None else answered | ~np.asarray(available, dtype=bool)
    est = bank.score(X, prior_mean, prior_sd)
    theta, se = est.theta, est.se
    rank, rank_iv = _ranks(bank, theta, se, rule.level)
    at_edge = bank.at_edge(theta)
    below = bank.below_edge(theta) if low_edge else np.zeros(theta.size, dtype=bool)
    edged = at_edge | below  # either edge: the edge's items, misfit and interval width
    start, edge, sample = _given_items(bank, start_items, edge_items, edged)
    estimates = _estimates(bank, X, est, sample, edge is not None, edged, n_answered, rule.level,
                           prior_mean, prior_sd)  # fmt: skip
    guide = est if prior_mean is None or prior_in_choice else bank.score(X)  # the ability the items target
    point = criterion == "point"
    info = bank.information(guide.theta) if point else bank.posterior_information(guide.theta, guide.se)
    groups = benchmark_codes(bank) if balance else None
    reasons = [_stop_reason(rule, bool(b.all()), int(n), float(s), iv)
               for b, n, s, iv in zip(blocked, n_answered, se, rank_iv, strict=True)]  # fmt: skip
    said = _out_of_reach(bank, rule, models, reasons, est, (answered, blocked), (prior_mean, prior_sd))
    estimates["warnings"] = [*estimates["warnings"], *([said] if said is not None else [])]
    givens = [edge if edge is not None and edged[j] else start for j in range(len(models))]
    chosen = _choose(models, reasons, givens, (int(batch), rule.max_items, exposure, random_state),
                     n_answered, blocked, answered, info, groups)  # fmt: skip
    keys = list(zip(bank.items["benchmark"].astype(str), bank.items["item"].astype(str), strict=True))
    return NextItems(
        models=list(models),
        items=chosen,
        stop=reasons,
        n_answered=n_answered,
        theta=theta,
        se=se,
        rank=rank,
        rank_interval=rank_iv,
        keys=keys,
        at_edge=at_edge,
        below_edge=below,
        **estimates,
    )


def _ranks(bank: ItemBank, theta: np.ndarray, se: np.ndarray, level: float) -> tuple[np.ndarray, np.ndarray]:
    """Each model's rank among the bank's reference models by ability, and its interval (ability +- z sd)."""
    z = float(norm.ppf(0.5 + level / 2))
    rank_iv = np.column_stack([bank.rank_of_theta(theta + z * se), bank.rank_of_theta(theta - z * se)])
    return bank.rank_of_theta(theta), rank_iv


def _choose(
    models: Sequence[str],
    reasons: list[str | None],
    givens: list[np.ndarray],
    step: tuple[int, int | None, float, int],
    n_answered: np.ndarray,
    blocked: np.ndarray,
    answered: np.ndarray,
    info: np.ndarray,
    groups: np.ndarray | None,
) -> list[list[int]]:
    """:func:`next_items`' choice for each model: none once stopped (``reasons``), else its own given items
    still open (``givens``: the static start, an edge model's spread), else by information
    (:func:`pick_balanced`); ``step`` is ``(batch, max_items, exposure, random_state)``."""
    batch, cap, exposure, random_state = step
    chosen: list[list[int]] = []
    for j, m in enumerate(models):
        room = batch if cap is None else min(batch, int(cap) - int(n_answered[j]))
        first = givens[j][~blocked[j, givens[j]]][:room]
        if reasons[j] is not None or first.size:
            chosen.append([] if reasons[j] is not None else first.tolist())
            continue
        rng = _step_seed(random_state, m, int(n_answered[j]))
        chosen.append(pick_balanced(info[j], blocked[j], answered[j], groups, room, exposure, rng).tolist())
    return chosen


def _estimates(
    bank: ItemBank,
    X: np.ndarray,
    est: AbilityEstimate,
    sample: np.ndarray,
    spread: bool,
    at_edge: np.ndarray,
    n_answered: np.ndarray,
    level: float,
    prior_mean: np.ndarray | None = None,
    prior_sd: np.ndarray | float | None = None,
) -> dict[str, Any]:
    """:func:`next_items`' full-score estimates and their names (:meth:`ItemBank.full_scores`; with
    ``spread`` the correction of a model at the edge takes the edge's misfit), the overall estimate's
    model-based standard error and calibrated interval at ``level`` (:meth:`ItemBank.full_score_se`,
    :meth:`ItemBank.full_score_interval`; every model at the edge takes the edge's misfit there), and a
    warning when the calibration was too small for ``level``: :class:`NextItems`' fields; with the bank's
    EM curves, mixed with theirs (:func:`_with_beyond`; ``prior_mean``, ``prior_sd``: the per-model prior of
    ``est``)."""
    exp = bank.filled_expected(X, est.theta)  # once for both
    full, names = bank.full_scores(
        X, est.theta, sample=sample, edge=at_edge if spread else None, expected=exp
    )
    full_se = bank.full_score_se(X, est.theta, est.se, sample=sample, edge=at_edge, expected=exp)[:, -1]
    interval, short = bank.full_score_interval(full[:, -1], full_se, at_edge, n_answered, level)
    notes = []
    if short:
        notes.append(
            f"the full-score interval: the bank holds too few calibration scores for level {level:g} "
            "(fewer than 19 at 0.95, of its models replayed out of fold): the largest widened by "
            "(n + 1) / n, which guarantees only n / (n + 1)"
        )
    out = {
        "estimates": full,
        "estimate_names": names,
        "estimate_se": full_se,
        "interval": interval,
        "interval_level": float(level),
        "warnings": notes,
    }
    if bank.beyond is None:
        return out
    em = bank.beyond
    return _with_beyond(bank, em, X, prior_mean, prior_sd, sample, spread, at_edge, n_answered, level, out)


def _with_beyond(
    bank: ItemBank,
    em: ItemBank,
    X: np.ndarray,
    prior_mean: np.ndarray | None,
    prior_sd: np.ndarray | float | None,
    sample: np.ndarray,
    spread: bool,
    at_edge: np.ndarray,
    n_answered: np.ndarray,
    level: float,
    own: dict[str, Any],
) -> dict[str, Any]:
    """``own`` (:func:`_estimates` of ``bank``) mixed with the estimates of its EM curves ``em``
    (:attr:`ItemBank.beyond`) on the same responses and sample: per model ``(1 - w) own + w em`` for the
    estimates and their standard errors, ``w`` = :meth:`ItemBank.beyond_weight` (``"beyond_weight"``); the
    interval from ``bank``'s calibration, whose replays mixed the same way (module docstring of
    :mod:`benchsift.adaptive.bank`). A per-model prior (``prior_mean``, ``prior_sd``, on ``bank``'s ability
    scale) is carried to the EM curves' scale first (:func:`_em_prior`)."""
    if prior_mean is not None:
        prior_mean, prior_sd = _em_prior(bank, em, prior_mean, prior_sd)
    est = em.score(X, prior_mean, prior_sd)
    other = _estimates(em, X, est, sample, spread, at_edge, n_answered, level)
    w = bank.beyond_weight(X)
    full = np.where(w[:, None] > 0, own["estimates"] + w[:, None] * (other["estimates"] - own["estimates"]),
                    own["estimates"])  # fmt: skip
    se = np.where(
        w > 0, own["estimate_se"] + w * (other["estimate_se"] - own["estimate_se"]), own["estimate_se"]
    )
    interval, _ = bank.full_score_interval(full[:, -1], se, at_edge, n_answered, level)
    return {**own, "estimates": full, "estimate_se": se, "interval": interval, "beyond_weight": w}


def _em_prior(
    bank: ItemBank, em: ItemBank, prior_mean: np.ndarray, prior_sd: np.ndarray | float | None
) -> tuple[np.ndarray, np.ndarray]:
    """A per-model Gaussian ability prior on ``bank``'s scale carried to ``em``'s (the same reference models,
    other curves): by the least-squares line of the reference models' abilities under ``em`` on theirs under
    ``bank``, ``em_theta = alpha + beta theta + e``, the mean ``alpha + beta mu`` and the sd
    ``sqrt(beta^2 sd^2 + s_e^2)`` with ``s_e^2`` the line's residual variance (the polish widens the
    abilities: on MMMU's and MMT's banks beta 0.84 and 0.80, r 0.99 and 0.98). NaN means stay NaN (the bank's
    own prior)."""
    x = np.asarray(bank.reference_theta, dtype=np.float64)
    y = np.asarray(em.reference_theta, dtype=np.float64)
    beta, alpha = np.polyfit(x, y, 1)
    resid = y - (alpha + beta * x)
    s2 = float(resid @ resid) / max(x.size - 2, 1)
    mu = np.asarray(prior_mean, dtype=np.float64)
    sd = np.broadcast_to(np.asarray(prior_sd if prior_sd is not None else np.nan, dtype=np.float64), mu.shape)
    return alpha + beta * mu, np.sqrt(beta**2 * sd**2 + s2)


def _bank_responses(
    bank: ItemBank, responses: str | os.PathLike[str] | Panel, warnings: list[str]
) -> tuple[list[str], np.ndarray, int]:
    """The responses of :func:`next_items_for` on the bank's items: ``(models, X, items left out)``; what was
    left out is said in ``warnings``, bank items written another way are refused."""
    from benchsift.io import read_scores

    panel = responses if isinstance(responses, Panel) else read_scores(responses)
    models, X, ignored = bank.responses(panel)
    source = "responses" if isinstance(responses, Panel) else str(responses)
    if not models:
        raise InputError(f"{source}: no image-condition model rows")
    twins = numeric_twins(panel.image_panel().item_keys, list(bank.key_index()))
    if twins:  # else those items would count as unanswered and be asked again
        raise InputError(
            f"{source}: {len(twins)} item id(s) of the responses are bank items written another way "
            f"({twins_text(twins)}); ids are compared as text: write them as the bank's item ids (as "
            "the next items are named)"
        )
    if ignored:
        image, index = panel.image_panel(), bank.key_index()
        outside = [f"{b}/{i}" for b, i in image.item_keys if (str(b), str(i)) not in index]
        warnings.append(
            f"{ignored} item(s) of the responses are not in the bank and were ignored: {listed(outside, 5)}"
        )
        # a model whose every response was left out starts again from a first batch: say so by name
        answered = (~np.isnan(image.scores)).any(axis=1)
        lost = [m for j, m in enumerate(models) if answered[j] and not np.isfinite(X[j]).any()]
        if lost:
            warnings.append(
                f"{len(lost)} model(s) have no response on a bank item, so they get a first batch: "
                f"{listed(lost, 5)} (are the benchmark and item ids the bank's?)"
            )
    return models, X, ignored


@renamed_params({"seed": "random_state"}, until="0.3")
@validate_params({"static_start": [Interval(Integral, 0, None, desc="an int >= 0"), None]})
def next_items_for(
    bank: ItemBank,
    responses: str | os.PathLike[str] | Panel | None = None,
    start: Sequence[str] = (),
    *,
    batch: int = 10,
    exposure: float = 3.0,
    stop: StopRule | None = None,
    random_state: int = 0,
    covariates: pd.DataFrame | None = None,
    static_start: int | None = None,
    criterion: str = "posterior",
    prior_in_choice: bool = False,
    balance: bool = True,
    edge_spread: bool | None = None,
) -> NextItems:
    """:func:`next_items` for the models of a results file (or panel) and new models with no results yet.

    Parameters
    ----------
    responses:
        The results so far: a panel, or a file :func:`benchsift.io.read_scores` reads (long CSV with
        ``model, benchmark, item, score``, a panel file); its image-condition rows are the models, its items
        not in the bank are left out (counted in ``n_ignored_items``).
    start:
        Models to start (their first batch): each one not already in ``responses`` is added with no
        responses.
    batch, exposure, stop, random_state, criterion, prior_in_choice, balance:
        As in :func:`next_items` (``random_state`` was ``seed``, accepted until 0.3).
    covariates:
        Optional models x features table (index: model ids) of what else is known about the models, e.g.
        their means on other benchmarks (:func:`benchmark_covariates`, :func:`other_benchmarks`); it must
        hold the bank's reference models (the regression is fitted on them) and the models tested. Each
        model's ability prior is then regressed on its covariates
        (:func:`benchsift.adaptive.prior.fit_covariate_prior`); a model with none keeps the bank's prior
        (named in a warning).
    static_start:
        Every model first gets the bank's ``static_start`` items spread over its difficulty
        (:meth:`ItemBank.spread_items`, ``start_items`` of :func:`next_items`), then adaptive ones.
        ``None`` (default): :func:`static_start_items` of ``stop.max_items`` (a quarter of a budget of at
        least 60 items, or all of it where the bank measured that design to err less out of fold, with a
        warning), none without ``max_items``; 0 = none.
    edge_spread:
        With a ``max_items`` budget, a model at the bank's edge is given the static start and then the rest
        of its budget spread over the difficulty, and its estimate corrected from them
        (:func:`spread_rest`, ``edge_items`` of :func:`next_items`; docs/ADAPTIVE.md, *New models stronger
        than the bank*). ``None`` (default): from 5 % of the bank's items on a bank of at least 60 models that
        measured its edge error (:func:`edge_spread_for`: it lowered the error on the strongest models of
        five VLM panels at 5-10 % and raised it on most at 1-2 % and on the small LLM banks), said in the
        warning that names the models at the edge.
    """
    check_rules([_RESULTS_OR_START], {"responses": responses, "start": start})
    models: list[str] = []
    X = np.empty((0, bank.n_items))
    ignored = 0
    warnings: list[str] = []
    if responses is not None:
        models, X, ignored = _bank_responses(bank, responses, warnings)
        for text in warnings:  # responses left out, models restarted: shown by a notebook too
            _warnings.warn(text, EstimateWarning, stacklevel=2)
    if start:  # a model named twice would get two identical rows
        check_distinct("`start`", list(start), what="model")
    fresh = [m for m in start if m not in models]
    models = [*models, *fresh]
    reference = set(bank.reference_models)
    known = [m for m in models if m in reference]
    if known:  # as estimate says of a suite's reference models
        warnings.append(
            f"{len(known)} of these models are among the bank's {len(bank.reference_models)} reference "
            f"models {listed(known, 5)}: the bank was fitted on their responses, so their abilities and "
            "ranks are in-sample (optimistic)"
        )
    X = np.vstack([X, np.full((len(fresh), bank.n_items), np.nan)])
    n_start = _default_start(bank, stop, warnings) if static_start is None else static_start
    mu: np.ndarray | None = None
    sd: np.ndarray | None = None
    prior_doc: dict[str, Any] | None = None
    if covariates is not None:
        cp = fit_covariate_prior(bank, covariates)
        mu, sd = cp.predict(covariates, models)
        prior_doc = cp.to_dict()
        warnings.extend(cp.warnings)
        bare = [m for j, m in enumerate(models) if not np.isfinite(mu[j])]
        if bare:
            warnings.append(
                f"{len(bare)} model(s) have none of the prior's covariates ({', '.join(cp.features)}) "
                f"and keep the bank's {bank.prior} prior: {listed(bare, 5)}"
            )
    first = bank.spread_items(n_start) if n_start > 0 else None
    budget = None if stop is None or not stop.max_items else int(stop.max_items)
    spread = edge_spread_for(bank, budget, edge_spread)
    res = next_items(
        bank,
        X,
        models,
        batch=batch,
        prior_mean=mu,
        prior_sd=sd,
        exposure=exposure,
        stop=stop,
        random_state=random_state,
        start_items=first,
        edge_items=spread_rest(bank, budget, first) if spread and budget else None,
        criterion=criterion,
        prior_in_choice=prior_in_choice,
        balance=balance,
    )
    flagged = [m for j, m in enumerate(models) if res.at_edge is not None and res.at_edge[j]]
    edge = _edge_warning(bank, flagged, spread, edge_spread is None)
    weak = [m for j, m in enumerate(models) if res.below_edge is not None and res.below_edge[j]]
    # then next_items' own (an se_target out of reach, the interval's level not guaranteed)
    for said in (edge, _low_edge_warning(bank, weak, spread), _all_alike_warning(X, models), *res.warnings):
        if said is not None:  # shown by a notebook too, not only stored in the result
            warnings.append(said)
            _warnings.warn(said, EstimateWarning, stacklevel=2)
    return dataclasses.replace(
        res, n_ignored_items=ignored, warnings=warnings, prior=prior_doc, prior_mean=mu, prior_sd=sd
    )


#: Fewest answered items from which a model that answered every one wrong (or every one right) is warned of
ALIKE_FROM = 20


def _all_alike_warning(X: np.ndarray, models: Sequence[str]) -> str | None:
    """The warning for models that answered :data:`ALIKE_FROM` items or more, every one scored 0 (or every one
    1): what a harness or answer-format failure looks like; their estimate is the bank's floor (or ceiling),
    not a measurement of it (audit s32: 300 wrong answers gave 0.127 [0.089, 0.164], unflagged)."""
    answered = ~np.isnan(X)
    n = answered.sum(axis=1)
    lines = []
    for value, word in ((0.0, "wrong"), (1.0, "right")):
        alike = (n >= ALIKE_FROM) & np.all(np.where(answered, X == value, True), axis=1)
        if alike.any():
            named = [models[int(j)] for j in np.flatnonzero(alike)]
            least = int(n[alike].min())
            lines.append(
                f"{len(named)} model(s) answered every one of their {least} or more items {word}: "
                f"{listed(named, 5)}"
            )
    if not lines:
        return None
    return (
        "; ".join(lines) + ": a harness or answer-format failure looks like this (check the run's logs); "
        "their estimates are the bank's floor or ceiling, not a measurement"
    )


def _low_edge_warning(bank: ItemBank, models: Sequence[str], spread: bool) -> str | None:
    """The warning for ``models`` at the bank's lower edge (:meth:`ItemBank.below_edge`; ``None`` for none):
    the curves overestimate a model weaker than the bank's models, what was done about it, and what not."""
    if not models:
        return None
    text = (
        f"{len(models)} model(s) at the lower edge of the bank, as weak as its weakest {LOW_EDGE_SHARE:.0%} "
        f"of reference models or weaker: {listed(models, 5)}; the bank's curves overestimate a model weaker "
        "than the models they were fitted on (docs/ADAPTIVE.md, *Models weaker than the bank*)"
    )
    if spread:
        text += (
            "; the rest of their budget is spread over the bank's difficulty and their estimates corrected "
            "from those items (edge spread)"
        )
    else:
        text += (
            f"; without the edge spread ({EDGE_SPREAD_DEFAULT}, with a budget: --max-items) their estimates "
            "are not corrected"
        )
    if bank.interval_budgets is not None:
        text += "; their intervals are as wide as at the bank's top edge"
    return text


def _edge_warning(
    bank: ItemBank, models: Sequence[str], spread: bool = False, by_default: bool = False
) -> str | None:
    """The warning for ``models`` at the bank's edge (:meth:`ItemBank.at_edge`; ``None`` for none): their
    full-score estimates extrapolate the curves, and what the bank measured there
    (:attr:`ItemBank.edge_error`, and its EM curves' where it keeps them); with ``spread``, that their
    budgets are spread (the edge spread, by default when ``by_default``: how to turn it off)."""
    if not models:
        return None
    share = f"{EDGE_SHARE:.0%}"
    text = (
        f"{len(models)} model(s) at the edge of the bank, as able as its strongest {share} of reference "
        f"models: {listed(models, 5)}; a model stronger than every reference model gets a full-score "
        "estimate from curves no model that strong was fitted on"
    )
    err = bank.edge_error
    if err is None:
        return text + " (the bank did not measure how far off that is: refit it with misfit folds)"
    way = "too low" if err < 0 else "too high"
    text = (
        f"{text}: fitted on its weakest {1 - EDGE_SHARE:.0%}, the bank's estimates for its strongest {share} "
        f"were {abs(err):.3f} {way} on average: a model stronger than every reference model may be "
        f"estimated {way} (its ability cannot tell it apart from one as strong as the strongest reference "
        "models)"
    )
    em = bank.beyond
    if em is not None and em.edge_error is not None:  # the curves mixed in for a model beyond the bank
        em_way = "too low" if em.edge_error < 0 else "too high"
        text += (
            f"; its EM curves, mixed into the estimate of a model beyond every reference model "
            f"(beyond_weight), were {abs(em.edge_error):.3f} {em_way} there"
        )
    if spread:
        how = (
            f", {EDGE_SPREAD_DEFAULT}; edge_spread=False or --no-edge-spread to turn it off"
            if by_default
            else ""
        )
        text += (
            "; the rest of their budget is spread over the bank's difficulty and their estimates corrected "
            f"from those items (edge spread{how})"
        )
    if bank.interval_budgets is not None:
        text += (
            "; their intervals are as wide as the bank's own strongest models needed when a bank without "
            "them estimated them, and a model far beyond every reference model can still fall outside"
        )
    return text
