r"""An interval for an adaptive test's full-score estimate: a model-based error calibrated out of fold.

The estimate of :meth:`~benchsift.adaptive.bank.ItemBank.full_scores` for benchmark ``G`` fills the items
``U_G`` a model did not run with their expected scores :math:`p_i` at its ability :math:`\hat\theta` and adds
the composite correction :math:`\lambda_G u_G \bar r_G` (:mod:`benchsift.adaptive.design`; :math:`u_G =
|U_G| / |G|`). Its error is the unanswered items' mean residual minus the correction; with the misfit
:math:`\delta_G` (variance :math:`\tau^2_G`), the sample's mean residual :math:`\bar r_G = \delta_G + e`
(variance :math:`V_G = s^2_G / k_G` over its ``k_G`` answered sample items) and the items' 0/1 noise, three
parts (:func:`estimate_variance`):

.. math:: \operatorname{Var}(\hat Z_G - Z_G) \approx \frac{1}{|G|^2} \sum_{i \in U_G} p_i (1 - p_i)
          \;+\; u_G^2\, m_G \;+\; d_G^2\, \sigma_\theta^2, \qquad
          m_G = \begin{cases} \lambda_G V_G = \dfrac{\tau^2_G V_G}{\tau^2_G + V_G} & k_G > 0 \\
          \tau^2_G & k_G = 0 \end{cases}, \qquad
          d_G = \frac{1}{|G|} \sum_{i \in U_G} \frac{\partial p_i}{\partial \theta}:

the Bernoulli variance of the items not run (the largest variance of a score in [0, 1] with that mean, for
graded items too), the misfit left after the correction (:math:`(1 - \lambda)^2 \tau^2 + \lambda^2 V =
\lambda V`, the composite's mean squared error; Rao and Molina 2015, *Small Area Estimation*, 2nd ed.,
section 3.3), and the ability's posterior variance :math:`\sigma_\theta^2` carried through the filled curve
(the delta method; the derivative by a central difference of step :data:`DERIVATIVE_STEP`). A model at the
bank's edge (:meth:`~benchsift.adaptive.bank.ItemBank.at_edge`) takes :math:`\max(\tau^2_G, \rho^2_{edge})`
as its misfit, as its correction does. ``overall``, the mean over the ``B`` benchmarks, adds the
benchmarks' first two parts as independent and the third as shared (one ability):
:math:`\frac{1}{B^2}\sum_G (\cdot) + \big(\frac1B \sum_G d_G\big)^2 \sigma_\theta^2`.

That standard error is a model's, and the model is wrong where it matters (the misfit out of fold is a mean,
a model far from the bank's curve errs more, and a model stronger than the bank's is where the curve was
never checked), so the interval's width is calibrated by split-conformal prediction on normalised residuals
(Lei, G'Sell, Rinaldo, Tibshirani and Wasserman 2018, "Distribution-free predictive inference for
regression", JASA 113(523), section 5.2, locally weighted conformal): the bank's fold banks
(:func:`benchsift.adaptive.design.fold_banks`, each given the bank's measured misfit and edge error) replay
their held-out models at each of :data:`INTERVAL_BUDGETS` of the items (in batches of a fifth of the budget),
and each model's score is :math:`|\hat Z - Z| / \widehat{\mathrm{se}}` (``Z`` its full overall score;
:func:`calibration_scores`). The
models inside the fold bank's range give the *inner* scores; the *edge* scores come from the models at their
fold bank's edge and from the edge fold (a bank fitted on the weakest 80 % of the reference models, with its
own edge error measured on its own strongest 20 %, replaying the strongest 20 % at every budget: new models
stronger than every model the bank was fitted on). The scores are kept per budget: how far the model-based
error is off depends on the budget (below 5 % of the items an edge model's budget is not spread and its
estimate not corrected, :data:`~benchsift.adaptive.design.EDGE_SPREAD_FROM`), and a model answered on ``k``
items takes the scores of the measured budget nearest to ``k`` (on a log scale,
:func:`~benchsift.adaptive.design.nearest_budget`).
A new model's interval at level :math:`1 - \alpha` is

.. math:: \hat Z \pm c\, \widehat{\mathrm{se}}, \qquad c = \text{the } \lceil (n + 1)(1 - \alpha)\rceil
          \text{-th smallest of the } n \text{ scores}

(:func:`~benchsift.stats.conformal.conformal_quantile`; the inner scores for a model inside the range, the
larger of the two quantiles for one at the edge; :func:`interval_scale`), clipped to [0, 1]. Fold replays
are not new models (the fold banks are fitted on 80 % of the models, and the edge fold's bank takes the
bank's misfit, measured with the edge models among the folds), and scores pooled over the budgets hold one
model three times, so the guarantee is approximate; measured in docs/ADAPTIVE.md (*An interval for the
adaptive estimate*).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from benchsift.adaptive.design import budget_items, observed_groups
from benchsift.stats.conformal import conformal_quantile
from benchsift.stats.means import nan_mean

__all__ = [
    "INTERVAL_BUDGETS",
    "calibration_scores",
    "estimate_variance",
    "interval_scale",
]

#: Budgets, as fractions of the bank's items, at which the fold banks replay their held-out models to
#: calibrate the interval (:func:`calibration_scores`).
INTERVAL_BUDGETS = (0.02, 0.05, 0.1)
#: Step of the central difference of the expected scores in the ability (:func:`estimate_variance`'s ``d_G``).
DERIVATIVE_STEP = 1e-3


def estimate_variance(
    expected: np.ndarray,
    slope: np.ndarray,
    X: np.ndarray,
    groups: Sequence[np.ndarray],
    theta_sd: np.ndarray,
    sample: np.ndarray | None = None,
    misfit_var: np.ndarray | None = None,
    residual_var: np.ndarray | None = None,
) -> np.ndarray:
    r"""``(n, n_groups + 1)`` model-based variances of the full-score estimates (module docstring; last column
    ``overall``, the mean over the groups).

    ``expected``: ``(n, n_items)`` the expected scores the estimate fills the unanswered items with;
    ``slope``: their derivatives in the ability; ``X``: responses (NaN = not answered); ``groups``: the
    benchmarks' item positions; ``theta_sd``: ``(n,)`` the abilities' posterior sds; ``sample``: an
    ``(n, n_items)`` mask of each model's composite-correction sample (``None``: no correction);
    ``misfit_var``: ``(n, n_groups)`` per model (an edge model's already raised) and ``residual_var`` per
    group, the bank's :math:`\tau^2` and :math:`s^2` (``None``: not measured, no misfit part)."""
    X = np.atleast_2d(np.asarray(X, dtype=np.float64))
    n = X.shape[0]
    unanswered = np.isnan(X)
    sd = np.asarray(theta_sd, dtype=np.float64).reshape(n)
    own = np.zeros((n, len(groups)))  # the Bernoulli and misfit parts: independent across groups
    shared = np.zeros((n, len(groups)))  # d_G, through the one ability
    for g, cols in enumerate(groups):
        cols = np.asarray(cols, dtype=np.int64)
        # the items the estimate's mean counts: a graded item without a fit has no expected score (NaN) and
        # is left out of it when not answered, as here
        counted = np.isfinite(np.where(unanswered[:, cols], expected[:, cols], X[:, cols]))
        size = np.maximum(counted.sum(axis=1), 1)
        U = unanswered[:, cols] & counted
        p = np.clip(expected[:, cols], 0.0, 1.0)
        own[:, g] = np.where(U, p * (1.0 - p), 0.0).sum(axis=1) / size**2
        shared[:, g] = np.where(U & np.isfinite(slope[:, cols]), slope[:, cols], 0.0).sum(axis=1) / size
        if misfit_var is None or residual_var is None:
            continue
        u = U.sum(axis=1) / size
        tau2 = np.asarray(misfit_var, dtype=np.float64)[:, g]
        k = np.zeros(n) if sample is None else (np.asarray(sample, dtype=bool)[:, cols] & ~U).sum(axis=1)
        v = float(residual_var[g]) / np.maximum(k, 1)
        left = np.where((k > 0) & (tau2 > 0), tau2 * v / np.where(tau2 + v > 0, tau2 + v, 1.0), tau2)
        own[:, g] += u**2 * np.where(k > 0, left, tau2)
    per = own + shared**2 * sd[:, None] ** 2
    n_groups = len(groups)
    overall = own.sum(axis=1) / n_groups**2 + shared.mean(axis=1) ** 2 * sd**2
    return np.column_stack([per, overall])


def _scale(scores: Sequence[np.ndarray], at: int, level: float) -> tuple[float, bool]:
    """The conformal quantile at ``level`` of ``scores[at]``; with too few there, of every budget's scores
    pooled; with too few still, the largest times ``(n + 1) / n`` (the second value True: ``level`` is then
    not guaranteed); ``inf`` without any score."""
    here = conformal_quantile(scores[at], level)
    if np.isfinite(here):
        return here, False
    pooled = np.concatenate([np.asarray(v, dtype=np.float64) for v in scores])
    both = conformal_quantile(pooled, level)
    if np.isfinite(both) or pooled.size == 0:
        return both, False
    return float(pooled.max()) * (pooled.size + 1) / pooled.size, True


def interval_scale(
    inner: Sequence[np.ndarray], edge: Sequence[np.ndarray], at: int, level: float
) -> tuple[tuple[float, bool], tuple[float, bool]]:
    """``((c_inner, short), (c_edge, short))``: the split-conformal quantiles at ``level`` of the inner and
    the edge calibration scores of budget ``at`` (module docstring). A set with too few scores for
    ``level`` at that budget (fewer than 19 at 95 %) is pooled over the budgets, and with too few still its
    largest score is widened by ``(n + 1) / n`` (the split-conformal interval at level ``n / (n + 1)``, as
    the static estimate's; ``short`` True: ``level`` is not guaranteed). ``c_edge`` is at least ``c_inner``
    (and ``c_inner`` without edge scores)."""
    c_inner, short = _scale(inner, at, level)
    if not any(np.size(v) for v in edge):
        return (c_inner, short), (c_inner, short)
    c_edge, short_edge = _scale(edge, at, level)
    return (c_inner, short), (max(c_inner, c_edge), short if c_inner >= c_edge else short_edge)


def calibration_scores(
    replays: Sequence[tuple[Any, Any, bool, Sequence[int]]],
    budgets: Sequence[float],
    n_items: int,
    replay: Callable[[Any, Any, int], Any],
) -> tuple[list[np.ndarray], list[np.ndarray]]:
    """``(inner, edge)``: per budget, the sorted normalised residuals ``|estimate - truth| / se`` of the
    replayed models inside their bank's range and at its edge (module docstring).

    ``replays``: ``(bank, held-out panel, beyond, at)`` per replayed group of models, replayed at the budgets
    ``budgets[k]`` for ``k`` in ``at``; ``beyond`` True: every model's score goes to the edge set (the edge
    fold's models, stronger than every model of their bank), False: each model's by its ``at_edge`` at the
    end of its test. ``replay(bank, panel, n)`` replays a panel's models through ``n`` items and returns the
    last :class:`~benchsift.adaptive.select.NextItems`. ``budgets``: fractions of ``n_items``. Only models
    with a score on every benchmark give a score: the interval is about the overall over every benchmark,
    and a model that lacks one has no truth there (:func:`benchsift.adaptive.design.overall_on_observed`)."""
    inner: list[list[np.ndarray]] = [[np.empty(0)] for _ in budgets]
    edge: list[list[np.ndarray]] = [[np.empty(0)] for _ in budgets]
    for bank, held, beyond, at in replays:
        truth = nan_mean(held.benchmark_means().means, axis=1)
        complete = observed_groups(held.scores, held.benchmark_positions()).all(axis=1)
        for k in at:
            final = replay(bank, held, budget_items(budgets[k], n_items))
            se = np.asarray(final.estimate_se, dtype=np.float64)
            with np.errstate(divide="ignore", invalid="ignore"):
                z = np.abs(final.estimates[:, -1] - truth) / se
            ok = np.isfinite(z) & complete
            flag = np.ones(z.size, dtype=bool) if beyond else np.asarray(final.at_edge, dtype=bool)
            inner[k].append(z[ok & ~flag])
            edge[k].append(z[ok & flag])
    return [np.sort(np.concatenate(v)) for v in inner], [np.sort(np.concatenate(v)) for v in edge]
