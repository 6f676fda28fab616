r"""What a bank's 2PL cannot say about a new model, measured on its own models, and a sample that says it.

The adaptive estimate of a full benchmark score fills every item a model did not run with its expected
score at the model's ability (:meth:`~benchsift.adaptive.bank.ItemBank.full_scores`, the p-IRT estimator).
However precisely the ability is known, a model's real mean differs from that curve: the *misfit*. On a bank
fitted on few models it can be large (MMLU-Pro, 17 models, 12,032 items: with the jointly polished curve a
held-out model's mean is off it at its full-run ability by 0.034 in root mean square, more than the sampling
error of 241 items spread over the difficulty, 0.025), and a plain random subset of the items beat both
adaptive tests (docs/ADAPTIVE.md). This module measures the misfit, corrects for it, and measures which design
serves a budget better.

**Out-of-fold misfit** (:func:`out_of_fold_misfit`). The bank's reference models are split into ``k``
folds (a seeded permutation); a bank is fitted on the other folds with the same options, each held-out
model is scored on all its items (EAP ability :math:`\hat\theta_m`), and for each benchmark ``G``

.. math:: \tau^2_G = \operatorname{mean}_m \Big(\frac{1}{|G_m|}\sum_{i \in G_m} (y_{mi} - p_i(\hat\theta_m))
          \Big)^2, \qquad
          s^2_G = \operatorname{mean}_m \frac{1}{|G_m|}\sum_{i \in G_m} (y_{mi} - p_i(\hat\theta_m))^2,

(:math:`G_m`: the items of ``G`` model ``m`` has a score on): the mean squared misfit of the curve and the
mean squared item residual. The abilities come from every item, so :math:`\tau^2_G` is the misfit of the
best case; residual factors (a bank of 60+ models) remove part of it, so there it is an upper bound.

**Composite estimate** (:func:`composite_correction`). Items spread over the bank's difficulty
(:meth:`~benchsift.adaptive.bank.ItemBank.spread_items`, the static start) are a balanced sample of the
bank: the mean residual :math:`\bar r_{G} = \operatorname{mean}_{i \in S_G}(y_i - \hat y_i)` of a model on
the ``k`` sample items of ``G`` it answered estimates its mean residual on the items it did not run, with
sampling variance about :math:`s^2_G / k`. Adding it gives the model-assisted difference estimator
(Särndal, Swensson and Wretman 1992, *Model Assisted Survey Sampling*, ch. 6); adding none gives the
p-IRT (synthetic) one, whose error is the misfit. The composite of the two (Rao and Molina 2015, *Small
Area Estimation*, 2nd ed., section 3.3, composite estimation, with the weight that minimises the mean
squared error of two independent errors) adds the shrunk correction

.. math:: \hat Z_G \mathrel{+}= \lambda_G\, \frac{|G \setminus O|}{|G|}\, \bar r_G, \qquad
          \lambda_G = \frac{\tau^2_G}{\tau^2_G + s^2_G / k},

to the p-IRT estimate of benchmark ``G`` (:math:`O`: the items answered; only the unanswered share is
estimated). With a small misfit or a small sample :math:`\lambda \to 0` (the p-IRT estimate); with a large
misfit and many sample items :math:`\lambda \to 1`.

**Error at the edge** (:func:`edge_error`). The folds above are random, so they measure the curve where the
reference models are; a new model stronger than all of them is where the curve was never checked. A bank is
fitted on the weakest :math:`1 - e` of the reference models (by their full score; :data:`EDGE_SHARE`
:math:`= e`), each of the strongest :math:`e` is scored on all its items, and the error of its p-IRT estimate
at that ability, averaged over the benchmarks, is averaged over them:

.. math:: e_m = \operatorname{mean}_G \frac{1}{|G_m|}\sum_{i \in G_m} (p_i(\hat\theta_m) - y_{mi}), \qquad
          \epsilon_{edge} = \operatorname{mean}_m e_m, \qquad \rho_{edge} = \sqrt{\operatorname{mean}_m e_m^2}

(:math:`\epsilon_{edge}` negative: too low; :math:`\rho_{edge}`, the root mean square, also counts how much
the edge models' errors differ from each other). It is what the bank's estimate did for models stronger than
the ones it was fitted on, the situation of a new model at the edge of the bank
(:meth:`~benchsift.adaptive.bank.ItemBank.at_edge`), which its ability cannot tell apart from a model inside
the range: on MMMU, banks fitted on random 60 % of the models measure -0.036 to -0.064 while their own
strongest held-out models err by -0.012 to +0.009, and the bank fitted on the weakest 60 % measures -0.047
where the strongest 40 % err by -0.065 (docs/ADAPTIVE.md). So it is reported with a warning, not subtracted.

**Edge spread** (:func:`benchsift.adaptive.select.edge_spread_for`). A model at the edge is given, after the
static start, the rest of its budget spread over the difficulty, and its composite correction takes those
items as its sample with :math:`\max(\tau^2_G, \rho_{edge}^2)` as the misfit: the curve's mean squared error
out there, which the spread sample observes and corrects. The composite weight needs the misfit's second
moment (as :math:`\tau^2_G`, a mean of squares): the squared mean error :math:`\epsilon_{edge}^2`, used
before, left out the spread of the edge models' errors and shrank the correction too far (docs/ADAPTIVE.md,
*New models stronger than the bank*: on the strongest 40 % of AI2D at 5 % of the items, MAE 0.0278 -> 0.0262).
By default from :data:`EDGE_SPREAD_FROM` of the bank's items on a bank of at least 60 models that measured its
misfit and its edge error; below that budget the spread items cost more information than their sample
corrects, and on smaller banks the edge error of a handful of models is too noisy a misfit (docs/ADAPTIVE.md,
*New models stronger than the bank*).

**Whole budget spread** (:func:`design_errors`, :func:`spread_wins`). Whether a budget is better spent
adaptively (a quarter spread, then maximum information) or spread whole over the difficulty (a static,
stratified test) depends on the bank: the spread items' estimate errs by their sampling error, the adaptive
one by the curve's error far from the model's ability, which the best-case misfit above does not see. So the
fold banks (each given the measured misfit, for the composite correction) replay their held-out models with
both designs at a few budgets (:data:`DESIGN_BUDGETS`, fractions of the items), and a budget is spread whole
where, at the nearest measured budget, the spread design's mean absolute error is lower by more than
:data:`DESIGN_SE` standard errors of the paired difference (:func:`spread_wins`). Opt-in
(``fit_bank(design_budgets=...)``): against the reference CAT on seven real panels it changed one cell of 21
(MMLU-Pro 2 %: 0.67 -> 0.69 x the CAT's MAE), at 3-40 s a bank (docs/ADAPTIVE.md).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from benchsift.panel import Panel
from benchsift.stats.means import group_nan_means, nan_mean

__all__ = [
    "DESIGN_BUDGETS",
    "budget_items",
    "composite_correction",
    "design_errors",
    "edge_error",
    "edge_error_of",
    "edge_fold",
    "fold_banks",
    "misfit_from_folds",
    "nearest_budget",
    "out_of_fold_misfit",
    "spread_wins",
    "weakest_first",
]

#: Folds of the out-of-fold misfit, by default.
MISFIT_FOLDS = 5
#: Budgets, as fractions of the bank's items, at which :func:`design_errors` replays both designs.
DESIGN_BUDGETS = (0.01, 0.02, 0.05, 0.1)
#: The whole budget is spread only when that lowers the out-of-fold error by more than this many standard
#: errors of the paired difference, as the static suite's design choice
#: (:data:`benchsift.compression.pipeline.DESIGN_SE`). One standard error (Breiman et al. 1984's rule) spread
#: GSM8K's 66-item budget in some splits and cost its Spearman (docs/ADAPTIVE.md).
DESIGN_SE = 2.0

#: The share of the reference models, the strongest by full score, that :func:`edge_error` holds out; a new
#: model as able as the strongest this share of the reference models is at the bank's edge.
EDGE_SHARE = 0.2
#: A new model as weak as the weakest this share of the reference models is at the bank's lower edge
#: (:meth:`benchsift.adaptive.ItemBank.below_edge`): 0.1 rather than :data:`EDGE_SHARE`, which cost more on
#: random splits (MMMU at 5 %: MAE 0.0250 -> 0.0284 against 0.0265) for little more on the weakest models
#: (docs/ADAPTIVE.md, *Models weaker than the bank*).
LOW_EDGE_SHARE = 0.1
#: Fewest models :func:`edge_error` holds out (with fewer the error is not measured).
MIN_EDGE_MODELS = 3
#: From this share of the bank's items (:func:`budget_items`), a model at the edge of a bank of at least 60
#: models gets the rest of its budget spread over the difficulty by default (the edge spread,
#: :func:`benchsift.adaptive.select.edge_spread_for`): at 5 and 10 % it lowered the MAE on the strongest
#: 40 % of four VLM panels (banks of 82-101 models) by 21-47 % and moved it on random splits by -0.0006 to
#: +0.0010 (with the mean squared edge error, session 23); at 1-2 % it lost on most, and on banks of 24-29
#: LLMs on random splits (docs/ADAPTIVE.md, *New models stronger than the bank*).
EDGE_SPREAD_FROM = 0.05

#: a fold: the bank fitted on the other folds' models and the positions of the fold's own models
Fold = tuple[Any, np.ndarray]


def fold_banks(
    panel: Panel,
    fit: Callable[[Panel], Any],
    n_folds: int = MISFIT_FOLDS,
    random_state: int = 0,
    min_train: int = 5,
) -> list[Fold] | None:
    """``[(bank fitted on the other folds, the fold's model positions)]`` (module docstring), or ``None``
    when a fold's training part would hold fewer than ``min_train`` models or ``n_folds < 2``. Folds:
    ``np.random.default_rng(random_state).permutation(n) % n_folds``; ``fit(panel)`` fits a bank with the
    caller's options."""
    n = panel.n_models
    k = int(n_folds)
    if k < 2 or n - -(-n // k) < int(min_train):
        return None
    folds = np.random.default_rng(int(random_state)).permutation(n) % k
    return [
        (fit(panel.subset(models=np.flatnonzero(folds != f))), np.flatnonzero(folds == f)) for f in range(k)
    ]


def misfit_from_folds(
    panel: Panel, folds: Sequence[Fold], groups: Sequence[np.ndarray]
) -> tuple[np.ndarray, np.ndarray] | None:
    """``(tau2, s2)`` per group of item positions (module docstring) from :func:`fold_banks`' folds (each
    bank must have ``score(X).theta`` and ``expected(theta)``); ``None`` when a group has no scores."""
    n = panel.n_models
    means = np.full((n, len(groups)), np.nan)
    squares = np.full((n, len(groups)), np.nan)
    for bank, held in folds:
        X = panel.scores[held]
        resid = X - bank.expected(bank.score(X).theta)
        for g, cols in enumerate(groups):
            r = resid[:, cols]
            seen = (~np.isnan(r)).sum(axis=1)
            ok = seen > 0
            means[held[ok], g] = np.nansum(r[ok], axis=1) / seen[ok]
            squares[held[ok], g] = np.nansum(r[ok] ** 2, axis=1) / seen[ok]
    if not np.isfinite(means).any(axis=0).all():
        return None
    return np.nanmean(means**2, axis=0), np.nanmean(squares, axis=0)


def out_of_fold_misfit(
    panel: Panel,
    fit: Callable[[Panel], Any],
    groups: Sequence[np.ndarray],
    n_folds: int = MISFIT_FOLDS,
    random_state: int = 0,
    min_train: int = 5,
) -> tuple[np.ndarray, np.ndarray] | None:
    """:func:`misfit_from_folds` of :func:`fold_banks` (``None`` when either is)."""
    folds = fold_banks(panel, fit, n_folds, random_state, min_train)
    return None if folds is None else misfit_from_folds(panel, folds, groups)


def weakest_first(overall: np.ndarray) -> np.ndarray:
    """Model positions ordered by their full score ``overall``, weakest first (stable; a model without one,
    NaN, first: it never counts among the strongest). The order of :func:`edge_error` and of the strongest
    split (:func:`benchsift.adaptive.simulate_adaptive` ``strongest``)."""
    overall = np.asarray(overall, dtype=np.float64)
    return np.argsort(np.where(np.isfinite(overall), overall, -np.inf), kind="stable")


def edge_fold(
    panel: Panel, fit: Callable[[Panel], Any], share: float = EDGE_SHARE, min_train: int = 5
) -> Fold | None:
    """``(bank fitted on the weakest 1 - share of panel's models, the strongest share's positions)``, by the
    mean of their benchmark means (module docstring), or ``None`` when fewer than :data:`MIN_EDGE_MODELS`
    would be held out or fewer than ``min_train`` would fit the bank. ``fit(panel)`` fits a bank with the
    caller's options."""
    overall = nan_mean(panel.benchmark_means().means, axis=1)
    n_edge = int(round(float(share) * int(np.isfinite(overall).sum())))
    if n_edge < MIN_EDGE_MODELS or panel.n_models - n_edge < int(min_train):
        return None
    held = np.sort(weakest_first(overall)[panel.n_models - n_edge :])
    return fit(panel.subset(models=np.setdiff1d(np.arange(panel.n_models), held))), held


def edge_error_of(panel: Panel, fold: Fold, groups: Sequence[np.ndarray]) -> tuple[float, float] | None:
    """``(mean, root mean square)`` over the held-out models of an :func:`edge_fold` of their p-IRT
    estimates' errors (module docstring; the mean negative: too low), or ``None`` when none has a score.
    ``groups`` are the benchmarks' item positions."""
    bank, held = fold
    X = panel.scores[held]
    err = bank.expected(bank.score(X).theta) - X  # NaN where a model has no score
    by_model = nan_mean(group_nan_means(err, groups), axis=1)
    if not np.isfinite(by_model).any():
        return None
    return float(nan_mean(by_model)), float(np.sqrt(nan_mean(by_model**2)))


def edge_error(
    panel: Panel,
    fit: Callable[[Panel], Any],
    groups: Sequence[np.ndarray],
    share: float = EDGE_SHARE,
    min_train: int = 5,
) -> tuple[float, float] | None:
    """The error of the p-IRT estimate for the strongest ``share`` of ``panel``'s models (by the mean of their
    benchmark means) of a bank fitted on the others (module docstring), as ``(mean, root mean square)`` over
    those models (the mean negative: too low), or ``None`` when fewer than :data:`MIN_EDGE_MODELS` would be
    held out or fewer than ``min_train`` would fit the bank. ``fit(panel)`` fits a bank with the caller's
    options; ``groups`` are the benchmarks' item positions (:func:`edge_fold`, :func:`edge_error_of`)."""
    fold = edge_fold(panel, fit, share, min_train)
    return None if fold is None else edge_error_of(panel, fold, groups)


def observed_groups(X: np.ndarray, groups: Sequence[np.ndarray]) -> np.ndarray:
    """``(n, len(groups))`` whether each model has a score (not NaN) on any item of each group."""
    X = np.atleast_2d(np.asarray(X, dtype=np.float64))
    return np.column_stack([np.isfinite(X[:, g]).any(axis=1) for g in groups])


def overall_on_observed(overall: np.ndarray, per: np.ndarray, observed: np.ndarray) -> np.ndarray:
    """Each model's overall estimate on the benchmarks of its full-run truth.

    The truth of a held-out model is the mean of its benchmark means over the benchmarks it has scores on
    (``nan_mean(benchmark_means().means, axis=1)``), while an estimate's ``overall`` is the mean over every
    benchmark of the bank or the suite, a benchmark the model never ran estimated from its ability. Compared
    as they are, a model that lacks a benchmark is scored against a different target (issue found on the
    three-benchmark panels vlm3 and ZeroEval's, where 19 % and 45 % of the models lack one). So: ``overall``
    for a model with a score on every benchmark, else the mean of its per-benchmark estimates ``per``
    (``(n, n_groups)``) over the benchmarks it has a score on (``observed``, :func:`observed_groups`); NaN
    for a model with none, or without an estimate on one of them."""
    observed = np.asarray(observed, dtype=bool)
    per = np.asarray(per, dtype=np.float64)
    count = observed.sum(axis=1)
    total = np.where(observed, per, 0.0).sum(axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        mean = np.where((count > 0) & ~(observed & np.isnan(per)).any(axis=1), total / count, np.nan)
    return np.where(observed.all(axis=1), np.asarray(overall, dtype=np.float64), mean)


def budget_items(budget: float, n_items: int) -> int:
    """The items of a budget given as a fraction of ``n_items``: ``max(1, round(budget n_items))``."""
    return max(1, int(round(float(budget) * int(n_items))))


def design_errors(
    panel: Panel,
    folds: Sequence[Fold],
    budgets: Sequence[float],
    replay: Callable[..., np.ndarray],
    quarter: Callable[[int], int],
) -> np.ndarray:
    """``(len(budgets), 3)`` out of fold, per budget ``b`` (:func:`budget_items` of the panel): the mean
    absolute error of the overall estimate of the adaptive design (``quarter(n)`` spread items first, then
    maximum information), of the whole budget spread, and the standard error of their paired difference over
    the models (module docstring). ``replay(bank, scores, models, n, static_start=fraction)`` returns the
    full-score estimates (last column overall), as :func:`benchsift.adaptive.replay_adaptive`; each fold's
    bank is used as it is (give it the measured misfit first, for the composite correction). A model that
    lacks a benchmark is compared on the benchmarks it has (:func:`overall_on_observed`)."""
    truth = nan_mean(panel.benchmark_means().means, axis=1)
    observed = observed_groups(panel.scores, panel.benchmark_positions())
    out = np.full((len(budgets), 3), np.nan)
    for j, b in enumerate(budgets):
        n = budget_items(b, panel.n_items)
        err = np.full((panel.n_models, 2), np.nan)
        for c, frac in enumerate((quarter(n) / n, 1.0)):
            for bank, held in folds:
                sub = panel.subset(models=held)
                full = replay(bank, sub.scores, sub.model_ids, n, static_start=frac)
                est = overall_on_observed(full[:, -1], full[:, :-1], observed[held])
                err[held, c] = np.abs(est - truth[held])
        ok = np.isfinite(err).all(axis=1)
        if ok.sum() >= 2:
            diff = err[ok, 1] - err[ok, 0]
            out[j] = [err[ok, 0].mean(), err[ok, 1].mean(), diff.std(ddof=1) / np.sqrt(ok.sum())]
    return out


def composite_correction(
    X: np.ndarray,
    fill: np.ndarray,
    sample: np.ndarray,
    groups: Sequence[np.ndarray],
    misfit_var: np.ndarray,
    residual_var: np.ndarray,
) -> np.ndarray:
    r"""``(n, n_groups)`` additive corrections of the benchmark estimates (module docstring):
    :math:`\lambda_G \frac{|G \setminus O|}{|G|} \bar r_G` per model, 0 where a model answered none of the
    ``sample`` items of ``G``. ``X``: responses (NaN = not answered); ``fill``: the expected scores the
    estimate fills the unanswered items with; ``sample``: bank positions of the spread sample, or an
    ``(n, n_items)`` mask, each model's own; ``misfit_var``: per group, or ``(n, n_groups)`` per model."""
    n = X.shape[0]
    out = np.zeros((n, len(groups)))
    if np.asarray(sample).ndim == 2:
        in_sample = np.asarray(sample, dtype=bool)
    else:
        in_sample = np.zeros((1, X.shape[1]), dtype=bool)
        in_sample[0, np.asarray(sample, dtype=np.int64)] = True
    tau2_all = np.broadcast_to(np.asarray(misfit_var, dtype=np.float64), (n, len(groups)))
    answered = ~np.isnan(X)
    for g, cols in enumerate(groups):
        cols = np.asarray(cols, dtype=np.int64)
        tau2, s2 = tau2_all[:, g], float(residual_var[g])
        picked = np.broadcast_to(in_sample[:, cols], (n, cols.size))
        if not picked.any() or not (tau2 > 0).any():  # no sample, or no misfit: the p-IRT estimate as it is
            continue
        r = np.where(picked, X[:, cols] - fill[:, cols], np.nan)  # NaN where not answered or no fill
        k = np.isfinite(r).sum(axis=1)
        has = (k > 0) & (tau2 > 0)
        rbar = np.where(has, np.where(np.isfinite(r), r, 0.0).sum(axis=1) / np.maximum(k, 1), 0.0)
        lam = np.where(has, tau2 / np.where(has, tau2 + s2 / np.maximum(k, 1), 1.0), 0.0)
        unanswered = (~answered[:, cols]).sum(axis=1) / cols.size
        out[:, g] = lam * unanswered * rbar
    return out


def nearest_budget(n_items: int, n_bank: int, budgets: np.ndarray) -> int:
    """Index of the measured budget (a fraction of the bank's items) nearest to ``n_items / n_bank`` on a log
    scale: the row of :func:`design_errors` that speaks for a budget of ``n_items``."""
    return int(np.argmin(np.abs(np.log(np.asarray(budgets, dtype=np.float64)) - np.log(n_items / n_bank))))


def spread_wins(n_items: int, n_bank: int, budgets: np.ndarray, errors: np.ndarray) -> bool:
    """Whether a budget of ``n_items`` (of a bank of ``n_bank``) is better given whole as spread items
    (module docstring): at the measured budget nearest to ``n_items / n_bank`` (:func:`nearest_budget`), the
    spread design's out-of-fold mean absolute error (``errors[:, 1]``) is below the adaptive one's
    (``errors[:, 0]``) by more than :data:`DESIGN_SE` standard errors of their difference
    (``errors[:, 2]``); budgets outside the measured ones take the nearest end's verdict. False when that
    row is not finite."""
    if int(n_items) < 1 or not len(budgets):
        return False
    adaptive, spread, se = (float(v) for v in errors[nearest_budget(n_items, n_bank, budgets)])
    return bool(np.isfinite([adaptive, spread, se]).all() and spread + DESIGN_SE * se < adaptive)
