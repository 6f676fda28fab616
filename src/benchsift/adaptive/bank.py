r"""An item bank for adaptive testing: IRT item parameters fitted on a panel, stored as one JSON file.

:func:`fit_bank` fits a 2PL model (:class:`benchsift.irt.TwoPL`) when every score is 0 or 1, and Samejima's
graded response model (:class:`benchsift.irt.GradedResponse`) when scores take other values in [0, 1]
(judge grades, partial credit). The bank keeps, beside the item parameters, the item keys (benchmark, item,
category) and the reference models' abilities and full benchmark scores, so that a new model's ability can be
placed among them (its rank).

Full-score estimate of a model that answered the items ``O`` of benchmark ``G`` (the p-IRT estimator of
tinyBenchmarks, Polo et al. 2024):

.. math:: \hat Z_G = \frac{1}{|G|}\Big(\sum_{i \in O \cap G} y_i + \sum_{i \in G \setminus O}
          E[y_i \mid \hat\theta]\Big),

with :math:`E[y_i \mid \theta] = \sigma(a_i \theta + d_i)` for the 2PL and the expected level value for the
graded model; ``overall`` is the mean over benchmarks.

**Joint polish of a 2PL bank** (``fit_bank(..., polish=True)``; by default with >= 60 models). The marginal
(EM) fit treats the abilities as a N(0, 1) population; the full-score estimate above needs more: for a model
of ability :math:`\theta` the expected item scores should add up to what such a model scores. On real panels
they do not (on MMMU the reference models' residual :math:`\bar y_m - \frac1N\sum_i \sigma(a_i\theta_m + d_i)`
correlates -0.8 with :math:`\theta_m`: the curve is too steep), which made the adaptive estimate's MAE
0.036-0.041 where a joint fit's was 0.026 (benchmarks/bench_adaptive.py). The polish maximises the joint
posterior of abilities and item parameters (Birnbaum's joint maximum likelihood with priors; Baker and Kim
2004, *Item Response Theory*, ch. 7) from the EM solution,

.. math:: \sum_{m,i} \big[y_{mi}\log p_{mi} + (1-y_{mi})\log(1-p_{mi})\big] - \sum_m \tfrac{\theta_m^2}{2}
          - \sum_i \Big[\tfrac{(a_i-a_i^0)^2}{2\sigma_a^2} + \tfrac{(d_i-d_i^0)^2}{2\sigma_d^2}\Big],
          \qquad p_{mi} = \sigma(a_i\theta_m + d_i),

by alternating Newton steps (abilities, then each item's ``(a, d)``; :func:`joint_polish`), with weak priors
centred on the EM estimates :math:`a^0, d^0` (:math:`\sigma_a = 1`, :math:`\sigma_d = 3`). At its optimum
each reference model's ability solves :math:`\sum_i a_i (y_{mi} - p_{mi}) = \theta_m`, so the expected scores
track the observed ones model by model. With few reference models the item parameters follow those few models
too closely: against the reference CAT (10 splits, 1 / 2 / 5 % of the items) the EM fit alone had the lower
MAE in 11 of the 12 cells of the four panels of 17-29 bank models (MMLU-Pro 0.69 / 0.65 / 0.60 x the CAT's
against 0.90 / 0.73 / 0.45 polished; GSM8K 0.76 / 0.94 / 0.91 against 0.80 / 1.01 / 0.98; MATH-L5 0.95 /
0.83 / 0.79 against 0.95 / 0.96 / 0.99; CRUX 0.87 / 0.79 / 0.68 against 0.96 / 0.93 / 0.93), with a higher
Spearman in 7 and a lower one in 5 (by 0.002-0.016). Hence the default (``polish=None``): polished from
:data:`MIN_FACTOR_MODELS` reference models, the EM fit below.

**Residual factors of a 2PL bank** (``fit_bank(..., residual_factors=3)``; by default with >= 60 models).
One ability does not say everything a model's answers say: on MMMU, a held-out model's full score differs from
:math:`\frac1N\sum_i p_i(\theta)` at its full-run ability by 0.018 on average (the 0/1 noise of
1,050 items alone, sd :math:`\sqrt{0.2/1050} = 0.014`, gives about 0.011), and the reference models' residuals
:math:`R_{mi} = y_{mi} - p_i(\theta_m)` are correlated across items (subjects, model families). The bank keeps
their first ``k`` principal directions (a truncated SVD :math:`R = U S V^\top`, missing cells 0), scaled as
loadings of unit-variance factors, :math:`L = V_k S_k / \sqrt{n_{\text{models}}}` (items x k). A model that
answered the items ``O`` gets factor scores by Bayesian ridge regression of its residuals on those items'
loadings (prior :math:`v \sim N(0, I)`, residual variance :math:`p_i(1-p_i)` floored at 0.05),

.. math:: \hat v = \big(L_O^\top W L_O + I\big)^{-1} L_O^\top W\, (y_O - p_O(\hat\theta)), \qquad
          W = \operatorname{diag}\big(1 / \max(p_i(1-p_i), 0.05)\big),

and each item it did not answer the expected score
:math:`\operatorname{clip}(p_i(\hat\theta) + L_i \hat v, 0, 1)` in :math:`\hat Z_G`: the 2PL's ability plus
``k`` factors of what it leaves, a multidimensional model (Reckase 2009, *Multidimensional Item Response
Theory*, ch. 4) linearised at :math:`\hat\theta`. With few items :math:`\hat v` stays near 0 (its prior), so
the estimate is the p-IRT one; it pays from a few percent of the items (numbers in docs/ADAPTIVE.md,
benchmarks/bench_adaptive.py). The directions need many reference models: by default a bank fitted on at
least 60 gets 3, a smaller one none (on CRUXEval, 29 build models, 3 factors made the MAE at 5 % of the items
0.92 x the reference CAT's where plain p-IRT had 0.86 x). ``residual_factors=0``, or a bank file written
before the option: plain p-IRT.

**Empirical ability prior** (``fit_bank(..., prior="empirical")``; by default with >= 60 reference models,
else ``"normal"``, N(0, 1)). A new
model's ability is then the posterior mean (EAP; Bock and Mislevy 1982, "Adaptive EAP estimation of ability in
a microcomputer environment", Applied Psychological Measurement 6(4)) under the distribution of the bank's own
reference models, a Gaussian kernel density estimate of their abilities :math:`\theta_1..\theta_R` (Silverman
1986, *Density Estimation*, eq. 3.31, bandwidth doubled):

.. math:: \pi(\theta) = \frac1R \sum_{r=1}^R \phi\Big(\frac{\theta - \theta_r}{h}\Big), \qquad
          h = 2 \times 1.06\, \hat\sigma_\theta R^{-1/5},

on an even grid (step 0.01, 8 kernel widths or sds beyond the reference abilities). Measured against the
reference CAT (5 splits, 1/2/5 % of the items): on MATH-L5 the MAE ratio went from 0.81/0.97/0.99 to
0.86/0.93/0.95 and on CRUXEval from 0.82/0.79/0.86 to 0.86/0.80/0.82, but the rank Spearman fell by up to
0.05 at 1-2 % (shrinking towards clusters of 24-29 models merges their ranks). With many reference models the
density is smooth and the trade goes the other way: on MMMU (101 bank models) 1.01/1.05/0.96 became
0.99/1.01/0.95 and on AI2D (101) 1.01/1.09/1.10 became 0.96/0.99/1.05 with the Spearman within 0.003 (MMT,
82: 1.05/1.05/0.96 to 1.04/1.08/0.96; dev replays on the benchmark's splits). Hence the default
(``prior=None``): empirical from :data:`MIN_FACTOR_MODELS` reference models, N(0, 1) below.
A bank file written before the option reads as ``"normal"``.

**Robust ability prior** (``prior="robust"``; the default under 60 reference models, where it was N(0, 1)
before). N(0, 1) contaminated by a wide normal,

.. math:: \pi(\theta) = (1 - \varepsilon)\, \phi(\theta)
          + \frac{\varepsilon}{w}\, \phi\Big(\frac{\theta}{w}\Big), \qquad \varepsilon = 0.1, \quad w = 3

(:data:`ROBUST_WEIGHT`, :data:`ROBUST_SD`; the epsilon-contamination class of Berger 1985, *Statistical
Decision Theory and Bayesian Analysis*, 2nd ed., section 4.7; Berger and Berliner 1986, "Robust Bayes and
empirical Bayes analysis with epsilon-contaminated priors", Annals of Statistics 14(2)), the EAP on an even
grid (step 0.02, 5 of the wide normal's sds beyond the reference abilities). The abilities are standardised on
the bank's own models, so a new model stronger than every one of them sits 2-3 sds out, where N(0, 1) pulls
its EAP, and the expected scores that fill its unanswered items, back towards the bank's middle: on CRUXEval,
a bank fitted on the weakest 60 % of the models and the strongest 40 % tested on 2 % of the items, the
full-score estimate was 0.084 too low on average and its calibrated interval covered 0.63 of them. Under the
wide tail the responses can move such a model; inside the bank's range the prior is nearly N(0, 1) (weight
0.9). The weight and width are the usual textbook choice, not tuned on the panels; measured against N(0, 1) in
docs/ADAPTIVE.md (*A prior for new models stronger than the bank*), with where it loses (GSM8K's and vlm3_90's
strongest models at 1-2 % of the items, and their rank order at a few items). A graded bank keeps N(0, 1).

**Per-benchmark ability offsets** (``fit_bank(..., benchmark_offsets=True)``; by default on a bank of several
benchmarks). A model's ability on benchmark ``b`` is :math:`\theta + \delta_b`, the offset shrunk towards 0 by
its spread among the reference models, and each benchmark's unanswered items are filled at it
(:mod:`benchsift.adaptive.offsets`), before the residual factors and the composite correction. A bank file
written before the option has none.

**The EM curves for models beyond the bank** (``fit_bank(..., beyond_curve=True)``; by default with every
polished bank). The polish makes the curves track the reference models' own scores, which flattens them
where those models are; a new model stronger than every one of them then has its unanswered items filled too
low (on the strongest 40 % of AI2D, a bank on the weakest 60 %: MAE 0.0507 at 2 % of the items, the EM curves
alone 0.0216), while on models inside the range the polished curves are the better ones (MMMU's random splits:
0.0286 against the EM curves' 0.0375). A polished bank therefore keeps the EM fit as a second bank
(:attr:`ItemBank.beyond`: the EM curves, their abilities, residual factors and offsets, with their own
out-of-fold misfit and edge error from the same fold fits), the items are chosen by the polished bank, and a
model's full-score estimates and their standard errors are the mix

.. math:: \hat Z = (1 - w)\, \hat Z_{\text{polished}} + w\, \hat Z_{\text{EM}}, \qquad
          w = \Phi(z), \quad z = \frac{\sum_{i \in O} (y_i - p_i(\theta_{\max}))}
          {\sqrt{\sum_{i \in O} p_i(\theta_{\max})(1 - p_i(\theta_{\max}))}},

``O`` the items it answered and :math:`\theta_{\max}` the strongest reference model's ability under the
polished curves (:meth:`ItemBank.beyond_weight`): the score statistic of "as strong as the strongest reference
model", free of the ability prior (the empirical prior's EAP can barely pass the strongest reference ability,
so "ability above it" flagged few of MMT's strongest models). ``w`` is about 0.5 for a model as strong as the
strongest reference model and near 0 for most models of a random split, whose estimates move little. The
interval is calibrated on replays that mix the same way (the fold banks keep their EM curves too); a
per-model prior (a covariate prior) is carried to the EM curves' ability scale first
(:func:`benchsift.adaptive.select._em_prior`).
Measured on the same splits (docs/ADAPTIVE.md, *The EM curves for models beyond the bank*): the strongest
40 % of AI2D, vlm3, MMMU and MMT 5-51 % lower MAE at 2 / 5 / 10 % of the items, random splits within 2 %; it
costs a polished bank's fit about a third more time (the replays score both curves). A bank file written
before it has none (the polished curves alone).
"""

from __future__ import annotations

import json
import math
import os
import warnings
from dataclasses import dataclass, replace
from numbers import Integral, Real
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
from scipy.special import logsumexp
from scipy.stats import norm

from benchsift._fileio import atomic_path
from benchsift._inputs import check_length, existing_file
from benchsift._jsonutil import loads_bounded
from benchsift._params import Check, ConstraintLike, Interval, check_param, check_params
from benchsift.adaptive.design import (
    EDGE_SHARE,
    LOW_EDGE_SHARE,
    MISFIT_FOLDS,
    budget_items,
    composite_correction,
    design_errors,
    edge_error_of,
    edge_fold,
    fold_banks,
    misfit_from_folds,
    nearest_budget,
    spread_wins,
)
from benchsift.adaptive.interval import (
    DERIVATIVE_STEP,
    INTERVAL_BUDGETS,
    calibration_scores,
    estimate_variance,
    interval_scale,
)
from benchsift.adaptive.offsets import offset_variances, offsets
from benchsift.errors import BenchsiftWarning, DegenerateError, FormatError, InputError
from benchsift.irt import AbilityEstimate, GradedResponse, TwoPL
from benchsift.panel import Panel
from benchsift.results import Result
from benchsift.stats.means import group_nan_means, nan_mean
from benchsift.stats.ranks import rank_among

__all__ = ["BANK_FORMAT", "PRIORS", "ItemBank", "fit_bank", "joint_polish", "load_bank", "residual_loadings"]

BANK_FORMAT = "benchsift-item-bank/1"
#: Fewest reference models a bank is fitted on.
MIN_BANK_MODELS = 5
#: Fewest items a bank is fitted on: an item's slope is identified only by how its answers covary with the
#: other items' (one item's marginal likelihood is flat in it: on one MMMU item the fit ran to slopes of 1e3
#: to 1e10, or overflowed)
MIN_BANK_ITEMS = 2
#: Residual factors of a 2PL bank by default, and the fewest reference models that get them (module doc).
DEFAULT_FACTORS = 3
MIN_FACTOR_MODELS = 60
#: Ability priors of a bank (module docstring).
PRIORS = ("empirical", "normal", "robust")
#: The robust prior's contamination: its weight on the wide normal, and that normal's sd (module docstring).
ROBUST_WEIGHT = 0.1
ROBUST_SD = 3.0
#: Step of the EAP grid under the empirical prior.
_GRID_STEP = 0.01
#: Step of the EAP grid under the robust prior: a smooth prior, and a grid twice as long (its wide normal's
#: tails); the posterior moments equal the 0.01 grid's to 2e-10 on CRUXEval's and vlm3_90's banks, down to a
#: posterior sd of 0.024, at a third of the time
_ROBUST_STEP = 0.02
#: quadrature nodes of :meth:`ItemBank.posterior_information`
POSTERIOR_NODES = 61


@dataclass(repr=False)
class ItemBank(Result):
    """Item parameters and keys of an adaptive-testing bank (see the module docstring).

    ``kind`` is ``"2pl"`` or ``"graded"``; ``model`` the fitted IRT model; ``items`` the item table
    (``benchmark``, ``item``, ``category``); ``reference_theta`` / ``reference_overall`` the abilities and
    full overall scores of the models the bank was fitted on; ``prior`` the ability prior of a new model,
    ``"empirical"`` (kernel density of ``reference_theta``, 2PL banks), ``"robust"`` (N(0, 1) with a wide
    tail, 2PL banks) or ``"normal"`` (N(0, 1));
    ``residual_loadings`` the ``(n_items, k)`` loadings of the 2PL residual factors (module docstring;
    ``None``: plain p-IRT); ``misfit_var`` / ``residual_var`` per benchmark (in :attr:`benchmarks` order) the
    out-of-fold mean squared misfit of the 2PL's curve and item residual
    (:func:`benchsift.adaptive.design.out_of_fold_misfit`; ``None``: not measured, no composite correction);
    ``design_budgets`` / ``design_mae`` the budgets (fractions of the items) at which the two designs were
    replayed out of fold and their mean absolute errors (``(n_budgets, 3)``: adaptive, whole budget spread,
    the standard error of their paired difference;
    :func:`benchsift.adaptive.design.design_errors`; ``None``: not measured, never spread whole);
    ``offset_var`` per benchmark the variance of a model's ability offset on it
    (:mod:`benchsift.adaptive.offsets`; ``None``: one ability for every benchmark); ``edge_error`` the mean
    error of the estimate of a bank fitted on the weakest 80 % of the reference models for the strongest 20 %
    (:func:`benchsift.adaptive.design.edge_error`; negative: too low; ``None``: not measured), ``edge_rms``
    the root mean square of those models' errors (the misfit of an edge model's composite correction;
    ``None``: not measured, and a bank written before it corrects with ``edge_error`` squared);
    ``interval_budgets`` the budgets (fractions of the items) at which the full-score interval was
    calibrated, and ``interval_inner`` / ``interval_edge`` per budget the sorted calibration scores,
    normalised out-of-fold errors of models inside the range of their bank and at or beyond its edge
    (:mod:`benchsift.adaptive.interval`; ``None``: not calibrated, no interval); ``beyond`` the bank of the
    EM curves of a polished bank (the EM fit before :func:`joint_polish`, on the same reference models, with
    its own misfit and edge error), whose estimate weighs in for a model whose answers say it is beyond the
    strongest reference model (:meth:`beyond_weight`, module docstring; ``None``: the polished curves alone).
    """

    kind: str
    model: TwoPL | GradedResponse
    items: pd.DataFrame
    reference_models: list[str]
    reference_theta: np.ndarray
    reference_overall: np.ndarray
    prior: str = "normal"
    residual_loadings: np.ndarray | None = None
    misfit_var: np.ndarray | None = None
    residual_var: np.ndarray | None = None
    design_budgets: np.ndarray | None = None
    design_mae: np.ndarray | None = None
    offset_var: np.ndarray | None = None
    edge_error: float | None = None
    edge_rms: float | None = None
    interval_budgets: np.ndarray | None = None
    interval_inner: list[np.ndarray] | None = None
    interval_edge: list[np.ndarray] | None = None
    beyond: ItemBank | None = None

    @property
    def n_items(self) -> int:
        return len(self.items)

    @property
    def benchmarks(self) -> list[str]:
        """Benchmark names in order of first appearance (``pd.unique``: vectorised, where iterating the column
        cost 4 ms a call on a 7,265-item bank, called several times per ``next_items``)."""
        return [str(b) for b in pd.unique(self.items["benchmark"].astype(str))]

    def key_index(self) -> dict[tuple[str, str], int]:
        """``(benchmark, item) -> position`` in the bank."""
        b = self.items["benchmark"].astype(str)
        i = self.items["item"].astype(str)
        return {k: j for j, k in enumerate(zip(b, i, strict=True))}

    def responses(self, panel: Panel) -> tuple[list[str], np.ndarray, int]:
        """A panel's image-condition scores on the bank's items: ``(models, X (n, n_items), n_ignored)``.

        ``X`` is NaN where a model has no score on a bank item; ``n_ignored`` counts the panel's items that
        are not in the bank (left out)."""
        image = panel.image_panel()
        index = self.key_index()
        cols = np.array([index.get((str(b), str(i)), -1) for b, i in image.item_keys], dtype=np.int64)
        hit = cols >= 0
        X = np.full((image.n_models, self.n_items), np.nan)
        X[:, cols[hit]] = image.scores[:, hit]
        return image.model_ids, X, int((~hit).sum())

    # ------------------------------------------------------------------ ability and information
    def prior_bandwidth(self) -> float:
        """Kernel bandwidth ``h`` of the empirical prior (module docstring): ``2 x 1.06 sd R^(-1/5)``."""
        th = np.asarray(self.reference_theta, dtype=np.float64)
        sd = float(np.std(th, ddof=1)) if th.size > 1 else 1.0
        return 2.0 * 1.06 * (sd if sd > 0 else 1.0) * th.size**-0.2

    def log_prior(self, grid: np.ndarray) -> np.ndarray:
        """Log density (up to a constant) of the ability prior on ``grid``."""
        grid = np.asarray(grid, dtype=np.float64)
        if self.prior == "normal":
            return -0.5 * grid**2
        if self.prior == "robust":
            wide = -0.5 * (grid / ROBUST_SD) ** 2 - np.log(ROBUST_SD)
            return np.logaddexp(np.log1p(-ROBUST_WEIGHT) - 0.5 * grid**2, np.log(ROBUST_WEIGHT) + wide)
        h = self.prior_bandwidth()
        z = (grid[:, None] - np.asarray(self.reference_theta, dtype=np.float64)[None, :]) / h
        return logsumexp(-0.5 * z * z, axis=1)

    def score(
        self, X: np.ndarray, prior_mean: np.ndarray | None = None, prior_sd: np.ndarray | float | None = None
    ) -> AbilityEstimate:
        """EAP ability and posterior sd of respondents ``X`` (``(n, n_items)``, NaN = not administered),
        under the bank's ``prior`` (module docstring), or, for each row with a finite ``prior_mean[j]``,
        under the Gaussian prior ``N(prior_mean[j], prior_sd[j]^2)`` (a 2PL bank; a covariate prior,
        :func:`benchsift.adaptive.prior.fit_covariate_prior`). Rows with a NaN ``prior_mean`` keep the bank's
        prior."""
        X = np.atleast_2d(np.asarray(X, dtype=np.float64))
        if prior_mean is None:
            if self.prior == "normal" or not isinstance(self.model, TwoPL):
                return self.model.score(X)
            return self._grid_eap(X, self._grid(), None)
        if not isinstance(self.model, TwoPL):
            raise InputError("a per-model ability prior needs a 2PL bank (this one is graded)")
        mu = np.asarray(prior_mean, dtype=np.float64).reshape(-1)
        check_length("prior_mean", mu, X.shape[0], "values (one per model)")
        given = Check(lambda s: s is not None, "a value with prior_mean")
        check_param("prior_sd", prior_sd, [given], quote=False)
        sd = np.broadcast_to(np.asarray(prior_sd, dtype=np.float64), mu.shape).copy()
        has = np.isfinite(mu)
        positive = Check(
            lambda s: bool((np.isfinite(s) & (s > 0)).all()),
            "positive finite values where prior_mean is given",
        )
        check_param("prior_sd", sd[has], [positive], quote=False)
        if not has.any():
            return self.score(X)
        grid = self._grid(np.concatenate([mu[has] - 8.0 * sd[has], mu[has] + 8.0 * sd[has]]))
        rows = np.tile(self.log_prior(grid), (X.shape[0], 1))
        rows[has] = -0.5 * ((grid[None, :] - mu[has, None]) / sd[has, None]) ** 2
        return self._grid_eap(X, grid, rows)

    def _grid(self, extra: np.ndarray | None = None) -> np.ndarray:
        """Even EAP grid (step 0.01; the robust prior's 0.02) over the reference abilities, 8 prior widths
        beyond (the robust prior's wide normal: 5 of its sds), and ``extra``."""
        th = np.asarray(self.reference_theta, dtype=np.float64)
        pad = 8.0 * max(1.0, self.prior_bandwidth(), float(np.std(th)))  # the prior's tails, 8 widths
        step = _GRID_STEP
        if self.prior == "robust":
            pad, step = max(pad, 5.0 * ROBUST_SD), _ROBUST_STEP
        lo, hi = float(th.min()) - pad, float(th.max()) + pad
        if extra is not None and extra.size:
            lo, hi = min(lo, float(extra.min())), max(hi, float(extra.max()))
        return np.arange(lo, hi + step, step)

    def _grid_eap(self, X: np.ndarray, grid: np.ndarray, log_prior: np.ndarray | None) -> AbilityEstimate:
        """Posterior mean and sd on ``grid`` under ``log_prior`` (``(n, G)``; ``None``: the bank's prior)."""
        assert isinstance(self.model, TwoPL)
        obs = ~np.isnan(X)
        cols = np.flatnonzero(obs.any(axis=0))  # only the administered items enter the likelihood
        a, d = self.model.discrimination_[cols], self.model.intercept_[cols]
        log_p = np.outer(grid, -a)
        log_p -= d
        log_p = -np.logaddexp(0.0, log_p, out=log_p)  # log P = -log(1 + exp(-z)), z = a q + d: (G, k)
        Y, M = np.where(obs[:, cols], X[:, cols], 0.0), obs[:, cols].astype(np.float64)
        prior = self.log_prior(grid) if log_prior is None else log_prior
        # sum_i M (y log P + (1 - y) log(1 - P)) with log(1 - P) = log P - z: the second product is rank one
        # in the grid, (1 - y) M z^T = ((1 - y) M a) q^T + (1 - y) M d (one logaddexp pass and one
        # (n, k) x (k, G) product instead of two of each)
        miss = (1.0 - Y) * M
        loglik = M @ log_p.T - np.outer(miss @ a, grid) - (miss @ d)[:, None] + prior  # (n, G)
        post = np.exp(loglik - loglik.max(axis=1, keepdims=True))
        post /= post.sum(axis=1, keepdims=True)
        mean = post @ grid
        sd = np.sqrt(np.maximum(post @ grid**2 - mean**2, 0.0))
        return AbilityEstimate(theta=mean, se=sd)

    def information(self, theta: np.ndarray) -> np.ndarray:
        """``(n, n_items)`` Fisher information of every item at abilities ``theta``."""
        return self.model.item_information(np.atleast_1d(np.asarray(theta, dtype=float)))

    def posterior_information(self, theta: np.ndarray, sd: np.ndarray) -> np.ndarray:
        r"""``(n, n_items)`` Fisher information of every item averaged over each model's ability posterior,
        taken as :math:`N(\hat\theta, \mathrm{sd}^2)` (the EAP and posterior sd of :meth:`score`):

        .. math:: \bar I_j = \int I_j(\theta)\, \phi\big((\theta - \hat\theta) / \mathrm{sd}\big)
                  / \mathrm{sd}\; d\theta \approx \sum_k w_k\, I_j(\hat\theta + \mathrm{sd}\, x_k),

        by the trapezoid rule on :data:`POSTERIOR_NODES` even nodes over :math:`\hat\theta \pm 6\,\mathrm{sd}`
        (weights :math:`\phi(x_k)`, summing to 1; within 0.1 % of adaptive quadrature for slopes up to 6 and
        sds up to 2, where 9-31 Gauss-Hermite nodes erred by 23-1 % on steep items). The posterior-weighted
        information criterion of van der Linden (1998, "Bayesian item selection criteria for adaptive
        testing", Psychometrika 63(2), 201-216), with the posterior in its normal approximation; with a sharp
        posterior (sd 0 or NaN) it is the information at the EAP."""
        theta = np.atleast_1d(np.asarray(theta, dtype=np.float64))
        sd = np.broadcast_to(np.asarray(sd, dtype=np.float64), theta.shape)
        sd = np.where(np.isfinite(sd), sd, 0.0)
        nodes = np.linspace(-6.0, 6.0, POSTERIOR_NODES)
        weights = np.exp(-0.5 * nodes**2)
        weights /= weights.sum()
        out = np.zeros((theta.size, self.n_items))
        for x, w in zip(nodes, weights, strict=True):
            out += w * self.model.item_information(theta + sd * x)
        return out

    def expected(self, theta: np.ndarray) -> np.ndarray:
        """``(n, n_items)`` expected score of every item at abilities ``theta``."""
        return self.expected_items(theta)

    def expected_items(self, theta: np.ndarray, cols: np.ndarray | None = None) -> np.ndarray:
        """``(n, len(cols))`` expected score of the bank items ``cols`` (``None``: every item) at abilities
        ``theta``."""
        theta = np.atleast_1d(np.asarray(theta, dtype=float))
        items = None if cols is None else np.asarray(cols, dtype=np.int64)
        if isinstance(self.model, TwoPL):
            return self.model.predict_proba(theta, items)
        return self.model.expected_score(theta, items)

    def full_scores(
        self,
        X: np.ndarray,
        theta: np.ndarray,
        sample: np.ndarray | None = None,
        edge: np.ndarray | None = None,
        expected: np.ndarray | None = None,
    ) -> tuple[np.ndarray, list[str]]:
        """``(n, n_benchmarks + 1)`` full-score estimates (observed scores plus expected ones for the items
        not administered; last column ``overall``, the mean over benchmarks) and the column names.

        ``sample``: bank positions of items spread over the difficulty that the models were given (the
        static start, :meth:`spread_items`); with a measured misfit (``misfit_var``) each benchmark's
        estimate adds the composite correction from the model's residuals on them
        (:func:`benchsift.adaptive.design.composite_correction`, clipped to [0, 1]); an ``(n, n_items)``
        mask gives each model its own. ``edge``: per model, whether it is at the bank's edge
        (:meth:`at_edge`): its correction takes the misfit as at least the bank's mean squared error at the
        edge (:attr:`edge_rms` squared; :attr:`edge_error` squared for a bank written before it), the curve's
        error measured out there. A bank with ``offset_var`` fills each benchmark's items at the model's
        ability plus its offset on that benchmark (:mod:`benchsift.adaptive.offsets`), before the residual
        factors and the composite correction (:meth:`filled_expected`; ``expected``: it, when already at
        hand)."""
        X = np.atleast_2d(np.asarray(X, dtype=np.float64))
        theta = np.atleast_1d(np.asarray(theta, dtype=np.float64))
        names = self.benchmarks
        groups = self._benchmark_groups()
        exp = self.filled_expected(X, theta) if expected is None else expected
        filled = np.where(np.isnan(X), exp, X)
        # graded items without a fit have no expected score: NaN, left out of the means
        per = group_nan_means(filled, groups)
        s2 = self.residual_var
        picked = None if sample is None else np.asarray(sample)
        has_sample = picked is not None and (picked.any() if picked.ndim == 2 else picked.size > 0)
        tau2 = self._model_misfit(theta.size, edge)
        if picked is not None and has_sample and tau2 is not None and s2 is not None:
            per = np.clip(per + composite_correction(X, exp, picked, groups, tau2, s2), 0.0, 1.0)
        overall = nan_mean(per, axis=1)
        return np.column_stack([per, overall]), [*names, "overall"]

    def filled_expected(self, X: np.ndarray, theta: np.ndarray) -> np.ndarray:
        """``(n, n_items)`` the expected scores :meth:`full_scores` fills the unanswered items with: at the
        ability (plus each benchmark's offset, with ``offset_var``), corrected by the residual factors. Pass
        it as ``expected`` to :meth:`full_scores` and :meth:`full_score_se` of the same responses and
        abilities to compute it once."""
        X = np.atleast_2d(np.asarray(X, dtype=np.float64))
        theta = np.atleast_1d(np.asarray(theta, dtype=np.float64))
        groups = self._benchmark_groups()
        if self.offset_var is None:
            exp = self.expected(theta)
        else:  # every item is in one benchmark: each group's expected scores at its own ability
            delta, _ = offsets(self.expected_items, theta, X, groups, self.offset_var)
            exp = np.full((theta.size, self.n_items), np.nan)
            for g, cols in enumerate(groups):
                exp[:, cols] = self.expected_items(theta + delta[:, g], cols)
        if self.residual_loadings is not None and self.residual_loadings.shape[1] > 0:
            exp = np.clip(exp + self.factor_scores(X, exp) @ self.residual_loadings.T, 0.0, 1.0)
        return exp

    def _model_misfit(self, n: int, edge: np.ndarray | None) -> np.ndarray | None:
        """``(n, n_benchmarks)`` each model's misfit variance: :attr:`misfit_var`, raised for a model at the
        edge (``edge``, per model) to the edge's mean squared error (:attr:`edge_rms` squared; a bank written
        before it has only :attr:`edge_error`); ``None`` when the misfit was not measured."""
        tau2 = self.misfit_var
        if tau2 is None:
            return None
        out = np.broadcast_to(tau2, (n, tau2.size)).copy()
        edge_size = self.edge_rms if self.edge_rms is not None else self.edge_error
        if edge is not None and edge_size is not None:
            out[np.asarray(edge, dtype=bool)] = np.maximum(tau2, edge_size**2)
        return out

    def full_score_se(
        self,
        X: np.ndarray,
        theta: np.ndarray,
        theta_sd: np.ndarray,
        sample: np.ndarray | None = None,
        edge: np.ndarray | None = None,
        expected: np.ndarray | None = None,
    ) -> np.ndarray:
        """``(n, n_benchmarks + 1)`` model-based standard errors of :meth:`full_scores`' estimates (last
        column ``overall``): the unanswered items' Bernoulli variance, the misfit left after the composite
        correction and the ability's posterior sd ``theta_sd`` through the curve
        (:func:`benchsift.adaptive.interval.estimate_variance`). ``sample`` as in :meth:`full_scores`;
        ``edge``: per model, whether it is at the bank's edge, whose misfit is then at least the edge's mean
        squared error (whether or not its budget was spread); ``expected``: :meth:`filled_expected` when
        already at hand. Calibrated into an interval by :meth:`full_score_interval`."""
        X = np.atleast_2d(np.asarray(X, dtype=np.float64))
        theta = np.atleast_1d(np.asarray(theta, dtype=np.float64))
        groups = self._benchmark_groups()
        step = DERIVATIVE_STEP
        slope = (self.expected(theta + step) - self.expected(theta - step)) / (2.0 * step)
        mask = None
        if sample is not None and self.misfit_var is not None:
            picked = np.asarray(sample)
            if picked.ndim == 2:
                mask = picked.astype(bool)
            else:
                mask = np.zeros(X.shape, dtype=bool)
                mask[:, picked.astype(np.int64)] = True
        var = estimate_variance(
            self.filled_expected(X, theta) if expected is None else expected,
            slope,
            X,
            groups,
            theta_sd,
            mask,
            self._model_misfit(theta.size, edge),
            self.residual_var,
        )
        return np.sqrt(var)

    def full_score_interval(
        self,
        estimate: np.ndarray,
        se: np.ndarray,
        edge: np.ndarray,
        n_answered: np.ndarray,
        level: float = 0.95,
    ) -> tuple[np.ndarray, bool]:
        """``(n, 2)`` interval of the overall estimates ``estimate`` with model-based standard errors ``se``
        (:meth:`full_score_se`'s last column): ``estimate +- c se`` clipped to [0, 1], ``c`` the
        split-conformal quantile at ``level`` of the calibration scores of the measured budget nearest to each
        model's ``n_answered`` items, the inner ones for a model inside the range and the larger of the inner
        and the edge ones for a model at the edge (``edge``;
        :func:`benchsift.adaptive.interval.interval_scale`), and whether a set of scores was too small for
        ``level`` (then pooled over the budgets, or its largest widened, and ``level`` not guaranteed). NaN
        when the bank was not calibrated (:attr:`interval_budgets` is ``None``)."""
        est = np.atleast_1d(np.asarray(estimate, dtype=np.float64))
        out = np.full((est.size, 2), np.nan)
        if self.interval_budgets is None or self.interval_inner is None or self.interval_edge is None:
            return out, False
        at_edge = np.asarray(edge, dtype=bool)
        se = np.asarray(se, dtype=np.float64)
        count = np.asarray(n_answered, dtype=np.int64)
        short = False
        scales: dict[int, tuple[tuple[float, bool], tuple[float, bool]]] = {}  # per budget, computed once
        for j in range(est.size):
            at = nearest_budget(max(int(count[j]), 1), self.n_items, self.interval_budgets)
            if at not in scales:
                scales[at] = interval_scale(self.interval_inner, self.interval_edge, at, float(level))
            c, thin = scales[at][1] if at_edge[j] else scales[at][0]
            short = short or thin
            half = c * se[j]
            if np.isfinite(half):
                out[j] = [max(est[j] - half, 0.0), min(est[j] + half, 1.0)]
        return out, short

    def factor_scores(self, X: np.ndarray, expected: np.ndarray) -> np.ndarray:
        """``(n, k)`` residual-factor scores (module docstring): Bayesian ridge regression of each model's
        residuals ``X - expected`` on its answered items' loadings, weights ``1 / max(p (1 - p), 0.05)``."""
        L = self.residual_loadings
        if L is None:
            raise InputError("this bank has no residual factors")
        k = L.shape[1]
        out = np.zeros((X.shape[0], k))
        for j in range(X.shape[0]):
            seen = ~np.isnan(X[j])
            if not seen.any():
                continue
            p = expected[j, seen]
            w = 1.0 / np.maximum(p * (1.0 - p), 0.05)
            Lo = L[seen]
            out[j] = np.linalg.solve(Lo.T @ (w[:, None] * Lo) + np.eye(k), Lo.T @ (w * (X[j, seen] - p)))
        return out

    def _benchmark_groups(self) -> list[np.ndarray]:
        """Bank positions of each benchmark's items, in :attr:`benchmarks` order."""
        bench = self.items["benchmark"].astype(str).to_numpy()
        return [np.flatnonzero(bench == b) for b in self.benchmarks]

    def spread_wins(self, n_items: int) -> bool:
        """Whether a budget of ``n_items`` is better given whole as items spread over the difficulty than
        as a quarter of them and maximum information: at the nearest measured budget, the whole-spread
        design's out-of-fold mean absolute error is the lower by more than
        :data:`~benchsift.adaptive.design.DESIGN_SE` standard errors
        (:func:`benchsift.adaptive.design.spread_wins`); False when the designs were not measured."""
        if self.design_budgets is None or self.design_mae is None:
            return False
        return spread_wins(int(n_items), self.n_items, self.design_budgets, self.design_mae)

    def designs(self) -> list[dict[str, Any]]:
        """The measured designs, one row per budget: ``budget`` (fraction), ``items``, ``adaptive_mae``,
        ``spread_mae`` (out of fold), ``se`` (of their paired difference) and ``spread`` (whether the whole
        budget is given spread there)."""
        if self.design_budgets is None or self.design_mae is None:
            return []
        rows = []
        for b, (adaptive, spread, se) in zip(self.design_budgets, self.design_mae, strict=True):
            n = budget_items(b, self.n_items)
            rows.append(
                {
                    "budget": float(b),
                    "items": n,
                    "adaptive_mae": float(adaptive),
                    "spread_mae": float(spread),
                    "se": float(se),
                    "spread": self.spread_wins(n),
                }
            )
        return rows

    def interval_scales(self, level: float = 0.95) -> list[dict[str, Any]]:
        """The calibrated interval, one row per measured budget: ``budget`` (fraction), ``items``, ``n_inner``
        and ``n_edge`` (calibration scores), ``scale_inner`` and ``scale_edge`` (the multiples of the
        model-based standard error at ``level``, :func:`benchsift.adaptive.interval.interval_scale`) and
        ``short`` (a set too small even pooled over the budgets: its largest score widened, ``level`` not
        guaranteed); ``[]`` when not calibrated."""
        if self.interval_budgets is None or self.interval_inner is None or self.interval_edge is None:
            return []
        rows = []
        for at, b in enumerate(self.interval_budgets):
            (c_inner, short_inner), (c_edge, short_edge) = interval_scale(
                self.interval_inner, self.interval_edge, at, float(level)
            )
            rows.append(
                {
                    "budget": float(b),
                    "items": budget_items(float(b), self.n_items),
                    "n_inner": int(self.interval_inner[at].size),
                    "n_edge": int(self.interval_edge[at].size),
                    "scale_inner": c_inner,
                    "scale_edge": c_edge,
                    "short": bool(short_inner or short_edge),
                }
            )
        return rows

    def spread_items(self, k: int) -> np.ndarray:
        r"""``k`` bank positions spread over the items' difficulty, a static start that represents the bank's
        items (not only those informative near one ability): the items ordered by their mean expected score
        over the reference models, :math:`\bar p_i = \frac1R\sum_r E[y_i \mid \theta_r]` (ties by
        position; hardest first), and the one at each quantile ``(j + 1/2) / k``, position
        ``floor((j + 1/2) N / k)`` of that order, taken. They are returned in the bit-reversed order of ``j``
        (the van der Corput sequence: 0, k/2, k/4, 3k/4, ...), so that every prefix is spread too: a test
        stopped early (``se_target``) has a sample of the whole difficulty range, not its hardest items.
        Deterministic; ``k`` is capped at the bank's size."""
        k = max(0, min(int(k), self.n_items))
        if k == 0:
            return np.empty(0, dtype=np.int64)
        pbar = nan_mean(self.expected(np.asarray(self.reference_theta, dtype=np.float64)), axis=0)
        order = np.argsort(np.where(np.isfinite(pbar), pbar, np.inf), kind="stable")
        at = np.minimum(((np.arange(k) + 0.5) * self.n_items / k).astype(np.int64), self.n_items - 1)
        bits = max(1, (k - 1).bit_length())
        reversed_j = [int(format(j, f"0{bits}b")[::-1], 2) for j in range(k)]
        return np.asarray(order[at[np.argsort(reversed_j, kind="stable")]], dtype=np.int64)

    def at_edge(self, theta: np.ndarray) -> np.ndarray:
        """Whether each ability is at the bank's edge: as high as the strongest :data:`EDGE_SHARE` of the
        reference models' (at least their ``1 - EDGE_SHARE`` quantile), where the curves were fitted on few
        models and a stronger model's full score is not checked (:attr:`edge_error`)."""
        theta = np.atleast_1d(np.asarray(theta, dtype=np.float64))
        edge = float(np.quantile(np.asarray(self.reference_theta, dtype=np.float64), 1.0 - EDGE_SHARE))
        return theta >= edge

    def below_edge(self, theta: np.ndarray) -> np.ndarray:
        """Whether each ability is at the bank's lower edge: as low as the weakest :data:`LOW_EDGE_SHARE` of
        the reference models' (at most their ``LOW_EDGE_SHARE`` quantile), where the curves were fitted on
        few models and overestimate a weaker model's full score (docs/ADAPTIVE.md, *Models weaker than the
        bank*). :func:`~benchsift.adaptive.next_items` treats such a model as one at the top edge
        (:meth:`at_edge`): its budget spread and its interval as wide as there."""
        theta = np.atleast_1d(np.asarray(theta, dtype=np.float64))
        low = float(np.quantile(np.asarray(self.reference_theta, dtype=np.float64), LOW_EDGE_SHARE))
        return theta <= low

    def beyond_weight(self, X: np.ndarray) -> np.ndarray:
        r"""Per model, the weight of the EM curves' estimate (:attr:`beyond`) in its full-score estimate:
        :math:`w = \Phi(z)` with

        .. math:: z = \frac{\sum_{i \in O} \big(y_i - p_i(\theta_{\max})\big)}
                  {\sqrt{\sum_{i \in O} p_i(\theta_{\max})\,(1 - p_i(\theta_{\max}))}},

        ``O`` the items the model answered, :math:`p_i` this bank's curves and :math:`\theta_{\max}` the
        highest reference ability: the standardised score statistic of the hypothesis that the model is as
        strong as the strongest reference model (for the Rasch model, the efficient score test of
        :math:`\theta = \theta_{\max}`; Rao 1948), read one-sided. It is 0.5 for a model that scores on its
        items what the strongest reference model would, tends to 1 for one beyond it and to 0 below; it is not
        a posterior probability (module docstring). All 0 without :attr:`beyond`; 0 for a model without
        answers."""
        X = np.atleast_2d(np.asarray(X, dtype=np.float64))
        w = np.zeros(X.shape[0])
        if self.beyond is None:
            return w
        top = self.expected(np.asarray([np.max(self.reference_theta)], dtype=np.float64))[0]
        obs = ~np.isnan(X) & np.isfinite(top)[None, :]
        dev = np.where(obs, X - top[None, :], 0.0).sum(axis=1)
        var = np.where(obs, (top * (1.0 - top))[None, :], 0.0).sum(axis=1)
        has = var > 0
        w[has] = norm.cdf(dev[has] / np.sqrt(var[has]))
        return w

    def rank_of_theta(self, theta: np.ndarray) -> np.ndarray:
        """Rank among the reference models by ability: ``1 + #(reference abilities above theta)``."""
        return rank_among(self.reference_theta, np.atleast_1d(np.asarray(theta, dtype=float)))

    # ------------------------------------------------------------------ storage
    def to_dict(self) -> dict[str, Any]:
        if isinstance(self.model, TwoPL):
            params: dict[str, Any] = {
                "discrimination": self.model.discrimination_.tolist(),
                "intercept": self.model.intercept_.tolist(),
            }
        else:
            params = self.model.to_dict()
        cat = self.items["category"] if "category" in self.items.columns else pd.Series([None] * self.n_items)
        return {
            "format": BANK_FORMAT,
            "kind": self.kind,
            "items": {
                "benchmark": self.items["benchmark"].astype(str).tolist(),
                "item": self.items["item"].astype(str).tolist(),
                "category": [None if pd.isna(c) else str(c) for c in cat],
            },
            "parameters": params,
            "reference_models": self.reference_models,
            "reference_theta": self.reference_theta.tolist(),
            "reference_overall": [None if not np.isfinite(v) else float(v) for v in self.reference_overall],
            "prior": self.prior,
            "residual_loadings": None if self.residual_loadings is None else self.residual_loadings.tolist(),
            "misfit_var": None if self.misfit_var is None else self.misfit_var.tolist(),
            "residual_var": None if self.residual_var is None else self.residual_var.tolist(),
            "design_budgets": None if self.design_budgets is None else self.design_budgets.tolist(),
            "design_mae": None if self.design_mae is None else self.design_mae.tolist(),
            "offset_var": None if self.offset_var is None else self.offset_var.tolist(),
            "edge_error": self.edge_error,
            "edge_rms": self.edge_rms,
            "interval_budgets": None if self.interval_budgets is None else self.interval_budgets.tolist(),
            "interval_inner": None
            if self.interval_inner is None
            else [v.tolist() for v in self.interval_inner],
            "interval_edge": None if self.interval_edge is None else [v.tolist() for v in self.interval_edge],
            "beyond": None if self.beyond is None else self.beyond.to_dict(),
        }

    def save(self, path: str | os.PathLike[str]) -> Path:
        """Write the bank as JSON (temporary file, then renamed), read back first by :func:`load_bank`'s own
        checks (:meth:`from_dict`): a bank they refuse (a degenerate fit: slopes past the file's bound,
        :data:`_PARAMETER_LIMIT`) is a :class:`~benchsift.errors.DegenerateError` naming ``path`` and the
        entry, and nothing is written."""
        out = Path(path)
        text = json.dumps(self.to_dict()) + "\n"
        try:
            ItemBank.from_dict(loads_bounded(text.encode("utf-8"), str(out)), source=str(out))
        except FormatError as exc:
            said, wrapped = str(exc), f"{out}: not a benchsift item bank ("
            detail = said[len(wrapped) : -1] if said.startswith(wrapped) else said.removeprefix(f"{out}: ")
            raise DegenerateError(
                f"{out}: not written: its reader would refuse this bank ({detail}); a degenerate fit (too "
                "few items or models, or items whose answers split the models perfectly)"
            ) from None
        with atomic_path(out) as tmp:
            tmp.write_text(text)
        return out

    @classmethod
    def from_dict(cls, d: dict[str, Any], source: str = "item bank") -> ItemBank:
        """Read back :meth:`to_dict` (a bank file), checked whole: every entry of the JSON type, the shape
        (the items, the reference models, the benchmarks) and the range a fitted bank gives it, so that a
        damaged or forged file is refused in one :class:`~benchsift.errors.FormatError` line naming
        ``source`` and the entry, not failed deep inside :func:`~benchsift.adaptive.select.next_items`, hung,
        or read as other numbers (:func:`_read_items`, :func:`_read_model`, :func:`_read_reference`,
        :func:`_read_measures`, :func:`_check_measures`). An optional entry set to null or absent reads as a
        bank written before it existed; a plausible forged number cannot be told apart."""
        if not isinstance(d, dict):
            raise FormatError(f"{source}: not a benchsift item bank (expected a JSON object, got {_got(d)})")
        if d.get("format") != BANK_FORMAT:
            raise FormatError(f"{source}: format {_shown(d.get('format'))}, expected {BANK_FORMAT!r}")
        kind = d.get("kind")
        if not isinstance(kind, str) or kind not in ("2pl", "graded"):
            raise FormatError(f"{source}: kind {_shown(kind)}, expected '2pl' or 'graded'")
        try:
            items = _read_items(d.get("items"))
            model = _read_model(kind, d.get("parameters"), len(items))
            models, theta, overall = _read_reference(d)
            loadings = None  # banks written before the option: plain p-IRT
            if d.get("residual_loadings") is not None:
                what = f"a row of factor loadings in [-1, 1] per item ({len(items)}), or null"
                loadings = _numbers(
                    d["residual_loadings"], "residual_loadings", (len(items), None), what, 1.0
                )
            stored = _read_measures(d)
            # banks written before the EM curves were kept: the polished curves alone
            beyond = None if d.get("beyond") is None else cls.from_dict(d["beyond"], f"{source} (beyond)")
        except FormatError:
            raise  # the EM curves' own, naming them
        except (TypeError, ValueError, InputError) as exc:
            raise FormatError(f"{source}: not a benchsift item bank ({exc})") from None
        prior = d.get("prior", "normal")  # banks written before the option: N(0, 1)
        if not isinstance(prior, str) or prior not in PRIORS:
            raise FormatError(f"{source}: prior {_shown(prior)}, expected one of {', '.join(PRIORS)}")
        if prior != "normal" and (kind != "2pl" or (prior == "empirical" and theta.size < 2)):
            raise FormatError(f"{source}: the {prior} prior needs a 2PL bank with finite reference abilities")
        if loadings is not None and kind != "2pl":
            raise FormatError(f"{source}: residual loadings need a 2PL bank and finite values")
        _check_measures(stored, len(dict.fromkeys(items["benchmark"])), source)
        bank = cls(kind, model, items, models, theta, overall, prior, loadings, **stored, beyond=beyond)
        bank._check_beyond(source)
        return bank

    def _check_beyond(self, source: str) -> None:
        """Refuse a :attr:`beyond` that is not a 2PL bank of the same items and reference models (without a
        beyond of its own) in one line naming ``source``."""
        em = self.beyond
        if em is not None and (
            self.kind != "2pl"
            or em.kind != "2pl"
            or em.beyond is not None
            or list(em.reference_models) != list(self.reference_models)
            or em.items[["benchmark", "item"]].astype(str).values.tolist()
            != self.items[["benchmark", "item"]].astype(str).values.tolist()
        ):
            raise FormatError(
                f"{source}: beyond needs a 2PL bank of the same items and reference models, without a beyond "
                "of its own"
            )
        if em is not None and np.ptp(em.reference_theta) == 0 < np.ptp(self.reference_theta):
            # the same responses spread the reference models under both curves: a prior carried from one
            # scale to the other needs a line between them (it was a prior_sd error naming no file, at use)
            raise FormatError(
                f"{source}: beyond's reference abilities are all equal where the bank's are not (the same "
                "models under the same responses; a forged or damaged file?)"
            )

    def to_frame(self) -> pd.DataFrame:
        """The bank's item table (benchmark, item, category)."""
        return self.items.reset_index(drop=True).copy()


def load_bank(path: str | os.PathLike[str]) -> ItemBank:
    """Read a bank written by :meth:`ItemBank.save`."""
    p = existing_file(path, "an item bank: the JSON file `benchsift adaptive bank` writes")
    try:
        doc = loads_bounded(p.read_bytes(), str(p))
    except FormatError:
        raise  # nested too deep
    except ValueError as exc:  # not JSON, not UTF-8, or an integer too long to read (Python's 4,300 digits)
        raise FormatError(f"{p}: not valid JSON ({exc})") from None
    return ItemBank.from_dict(doc, source=str(p))


#: The largest reference ability a bank file may hold, in absolute value: the abilities are on the N(0, 1)
#: scale of the fit (the 2PL's MAP abilities are clipped at 10), and the EAP grid spans them (forged, 1e300
#: made it empty; abilities spread over +-1e3 took 14 s on 60 items, over +-1e5 more memory than there was)
_ABILITY_LIMIT = 20.0
#: The largest item slope, intercept or threshold a bank file may hold, in absolute value: a fitted bank's are
#: a few units (their priors), and sums of products of far larger ones overflow
_PARAMETER_LIMIT = 1e3


def _shown(v: object) -> str:
    """A value as a refusal shows it: a string quoted (its first 40 characters), anything else in words."""
    return repr(v[:40]) if isinstance(v, str) else _got(v)


def _got(v: object) -> str:
    """A JSON value in a few words, for a refusal: ``null``, ``true``, ``1.5``, ``the string 'x'``, ``an
    object``, ``a list of shape (2,)``, ``a ragged list of 3``."""
    if v is None:
        return "null"
    if isinstance(v, (bool, np.bool_)):
        return "true" if v else "false"
    if isinstance(v, Real):
        return repr(_float(v))
    if isinstance(v, str):
        return f"the string {v[:40]!r}"
    if isinstance(v, dict):
        return "an object"
    obj = _array(v)
    if obj is None:
        return type(v).__name__
    if any(isinstance(x, (list, tuple)) for x in obj.flat):
        return f"a ragged list of {len(obj)}"
    return f"a list of shape {obj.shape}"


def _array(v: object) -> np.ndarray | None:
    """A JSON list as an object array, as many dimensions as its nesting is regular (``None``: not a list)."""
    if not isinstance(v, (list, tuple, np.ndarray)):
        return None
    try:
        return np.array(v, dtype=object)
    except ValueError:  # a nesting numpy cannot lay out: as a flat list of its entries
        out = np.empty(len(v), dtype=object)
        out[:] = list(v)
        return out


def _is_number(x: object) -> bool:
    return isinstance(x, Real) and not isinstance(x, (bool, np.bool_))


def _float(x: Any) -> float:
    """``float(x)``; an integer too large for a float is infinite (refused as not finite)."""
    try:
        return float(x)
    except OverflowError:
        return math.copysign(math.inf, x)


def _numbers(
    v: object,
    entry: str,
    shape: tuple[int | None, ...],
    what: str,
    bound: float | None = None,
    *,
    low: float | None = None,
    null: bool = False,
) -> np.ndarray:
    """``v``, a JSON list of ``shape`` (``None``: any size on that axis) whose entries are numbers (and nulls,
    read as NaN, where ``null``), as a float array; with ``bound``, every number (not a null) also finite and
    in ``[low, bound]`` (``low`` default ``-bound``). Else ``ValueError("<entry>: expected <what>, got
    ...")``, naming the first wrong entry."""
    obj = _array(v)
    if (
        obj is None
        or obj.ndim != len(shape)
        or any(w is not None and n != w for n, w in zip(obj.shape, shape, strict=True))
    ):
        raise ValueError(f"{entry}: expected {what}, got {_got(v)}")
    flat = obj.ravel()
    bad = [j for j, x in enumerate(flat) if not (_is_number(x) or (null and x is None))][:1]
    if not bad:
        arr = np.array([math.nan if x is None else _float(x) for x in flat], dtype=np.float64)
        if bound is not None:
            lo = -bound if low is None else low
            out = ~(np.isfinite(arr) & (arr >= lo) & (arr <= bound)) & ~(null & np.isnan(arr))
            bad = np.flatnonzero(out)[:1].tolist()
    if bad:
        at = ", ".join(str(int(i)) for i in np.unravel_index(bad[0], obj.shape))
        raise ValueError(f"{entry}: expected {what}, got {_got(flat[bad[0]])} at [{at}]")
    return arr.reshape(obj.shape)


def _strings(v: object, entry: str, n: int | None, what: str, *, null: bool = False) -> list[Any]:
    """``v``, a JSON list of strings (and nulls where ``null``), ``n`` of them (``None``: at least one); else
    ``ValueError("<entry>: expected <what>, got ...")``."""
    if not isinstance(v, list) or (len(v) != n if n is not None else not v):
        raise ValueError(f"{entry}: expected {what}, got {_got(v)}")
    for j, s in enumerate(v):
        if not (isinstance(s, str) or (null and s is None)):
            raise ValueError(f"{entry}: expected {what}, got {_got(s)} at [{j}]")
    return list(v)


def _read_items(v: object) -> pd.DataFrame:
    """The item table of a bank file: ``items`` an object of ``benchmark`` and ``item`` lists of strings, one
    per item (at least one), distinct pairs, and ``category`` one string or null per item (null: none known;
    absent: no column, as written before it); ``ValueError`` naming the entry otherwise."""
    if not isinstance(v, dict):
        raise ValueError(f"items: expected an object of benchmark, item and category lists, got {_got(v)}")
    item = _strings(v.get("item"), "items.item", None, "a list of item ids (strings), at least one")
    n = len(item)
    bench = _strings(v.get("benchmark"), "items.benchmark", n, f"{n} benchmark names (strings), one per item")
    cols: dict[str, list[Any]] = {"benchmark": bench, "item": item}
    if "category" in v:
        cat = v["category"]
        what = f"{n} category names (strings or null), one per item, or null"
        cols["category"] = [None] * n if cat is None else _strings(cat, "items.category", n, what, null=True)
    seen: set[tuple[str, str]] = set()
    for key in zip(bench, item, strict=True):
        if key in seen:
            raise ValueError(f"items: expected one entry per (benchmark, item), got {'/'.join(key)!r} twice")
        seen.add(key)
    return pd.DataFrame(cols)


def _read_model(kind: str, params: object, n: int) -> TwoPL | GradedResponse:
    """The IRT model of a bank file of ``kind`` and ``n`` items from its ``parameters``: a 2PL bank's
    ``discrimination`` and ``intercept``, a graded bank's :meth:`GradedResponse.to_dict` (one fitted item at
    least, each fitted item's thresholds decreasing, as the fit keeps them, and null past its last level), all
    finite within :data:`_PARAMETER_LIMIT` (null: an item the graded fit left out); ``ValueError`` or
    ``InputError`` naming the entry otherwise."""
    if not isinstance(params, dict):
        raise ValueError(f"parameters: expected an object of item parameters, got {_got(params)}")
    lim = _PARAMETER_LIMIT
    if kind == "2pl":
        what = f"{n} finite numbers in [-{lim:g}, {lim:g}], one per item"
        a = _numbers(params.get("discrimination"), "parameters.discrimination", (n,), what, lim)
        d = _numbers(params.get("intercept"), "parameters.intercept", (n,), what, lim)
        return TwoPL.from_parameters(a, d)
    k = params.get("max_categories")
    if not isinstance(k, Integral) or isinstance(k, bool) or k < 2:
        raise ValueError(f"parameters.max_categories: expected an int >= 2, got {_got(k)}")
    what = f"{n} slopes in (0, {lim:g}] or null (an item not fitted), one per item"
    a = _numbers(
        params.get("discrimination"), "parameters.discrimination", (n,), what, lim, low=0.0, null=True
    )
    if (a == 0).any():
        raise ValueError(f"parameters.discrimination: expected {what}, got 0.0 at [{int(np.argmax(a == 0))}]")
    what = f"{n} rows of {int(k) - 1} thresholds in [-{lim:g}, {lim:g}] or null (past an item's last level)"
    thr = _numbers(params.get("thresholds"), "parameters.thresholds", (n, int(k) - 1), what, lim, null=True)
    levels = params.get("levels")
    if not isinstance(levels, list) or len(levels) != n:
        what = f"{n} lists of level values, one per item"
        raise ValueError(f"parameters.levels: expected {what}, got {_got(levels)}")
    for j, lv in enumerate(levels):
        _numbers(lv, f"parameters.levels[{j}]", (None,), "a list of level values in [0, 1]", 1.0, low=0.0)
    model = GradedResponse.from_dict({**params, "discrimination": a, "thresholds": thr})
    # each fitted item's thresholds decrease (the fit keeps them so; else a category's probability is < 0)
    rising = np.flatnonzero((thr[:, 1:] >= thr[:, :-1]).any(axis=1))  # (NaN past the last level: False)
    if rising.size:
        j = int(rising[0])
        raise ValueError(
            f"parameters.thresholds: expected decreasing thresholds, got {thr[j].tolist()} at [{j}]"
        )
    return model


def _read_reference(d: dict[str, Any]) -> tuple[list[str], np.ndarray, np.ndarray]:
    """``(reference_models, reference_theta, reference_overall)`` of a bank file: distinct model ids (at
    least one), one finite ability within :data:`_ABILITY_LIMIT` and one full overall score in [0, 1] or
    null per model; ``ValueError`` naming the entry otherwise."""
    models = _strings(d.get("reference_models"), "reference_models", None, "a list of model ids (strings)")
    if len(set(models)) != len(models):
        twice = next(m for j, m in enumerate(models) if m in models[:j])
        raise ValueError(f"reference_models: expected distinct model ids, got {twice[:40]!r} twice")
    n, lim = len(models), _ABILITY_LIMIT
    what = f"{n} finite abilities in [-{lim:g}, {lim:g}], one per reference model"
    theta = _numbers(d.get("reference_theta"), "reference_theta", (n,), what, lim)
    what = f"{n} scores in [0, 1] or null, one per reference model"
    overall = _numbers(d.get("reference_overall"), "reference_overall", (n,), what, 1.0, low=0.0, null=True)
    return models, theta, overall


def _read_measures(d: dict[str, Any]) -> dict[str, Any]:
    """The out-of-fold measures of a bank file, :class:`ItemBank`'s fields from ``misfit_var`` to
    ``interval_edge``: each null or absent (a bank written before it: ``None``) or of its JSON type, a list of
    numbers (a table for ``design_mae``, a list of lists for the calibration scores, a number for the edge
    error); ``ValueError`` naming the entry otherwise. Their sizes and ranges are checked together
    (:func:`_check_measures`)."""
    out: dict[str, Any] = {}
    for key in ("misfit_var", "residual_var", "design_budgets", "offset_var", "interval_budgets"):
        v = d.get(key)
        out[key] = None if v is None else _numbers(v, key, (None,), "a list of numbers, or null", null=True)
    v = d.get("design_mae")
    out["design_mae"] = (
        None if v is None else _numbers(v, "design_mae", (None, None), "a table of numbers", null=True)
    )
    for key in ("edge_error", "edge_rms"):
        v = d.get(key)
        if v is not None and not _is_number(v):
            raise ValueError(f"{key}: expected a number, or null, got {_got(v)}")
        out[key] = None if v is None else _float(v)
    for key in ("interval_inner", "interval_edge"):
        v = d.get(key)
        if v is not None and not isinstance(v, list):
            raise ValueError(
                f"{key}: expected a list of lists of numbers (one per budget), or null, got {_got(v)}"
            )
        what = "a list of numbers"
        out[key] = (
            None
            if v is None
            else [np.sort(_numbers(s, f"{key}[{j}]", (None,), what, null=True)) for j, s in enumerate(v)]
        )
    return out


def _check_measures(m: dict[str, Any], n_bench: int, source: str) -> None:
    """The out-of-fold measures of :func:`_read_measures` together, each group in one line naming ``source``:
    the misfit and the residual variance one value in [0, 1] per benchmark (mean squares of scores), both or
    neither; the design budgets fractions in (0, 1] with a row of three errors in [0, 1] (or NaN) each; the
    offset variances one finite value > 0 per benchmark; the edge error in [-1, 1] and its root mean square
    from its size to 1; the interval budgets fractions in (0, 1] with one list of finite scores >= 0 each in
    both calibration sets."""
    misfit = (m["misfit_var"], m["residual_var"])
    if (misfit[0] is None) != (misfit[1] is None) or any(
        v is not None and (v.size != n_bench or not (np.isfinite(v) & (v >= 0) & (v <= 1)).all())
        for v in misfit
    ):
        raise FormatError(
            f"{source}: misfit_var and residual_var need one finite value in [0, 1] per benchmark (both or "
            "neither)"
        )
    budgets, mae = m["design_budgets"], m["design_mae"]
    if (budgets is None) != (mae is None) or (
        budgets is not None
        and mae is not None
        and (
            mae.shape != (budgets.size, 3)
            or not ((budgets > 0) & (budgets <= 1)).all()
            or not (np.isnan(mae) | ((mae >= 0) & (mae <= 1))).all()
        )
    ):
        raise FormatError(
            f"{source}: design_budgets (fractions in (0, 1]) and design_mae (a row of three errors in [0, 1] "
            "per budget) go together"
        )
    off = m["offset_var"]
    if off is not None and (off.shape != (n_bench,) or not (np.isfinite(off) & (off > 0)).all()):
        raise FormatError(f"{source}: offset_var needs one finite value > 0 per benchmark")
    edge, rms = m["edge_error"], m["edge_rms"]
    if edge is not None and not (np.isfinite(edge) and abs(edge) <= 1):
        raise FormatError(f"{source}: edge_error needs a finite number in [-1, 1] (or null)")
    if rms is not None and (edge is None or not (np.isfinite(rms) and abs(edge) - 1e-12 <= rms <= 1)):
        raise FormatError(
            f"{source}: edge_rms needs a finite number at least |edge_error| and at most 1 (or null)"
        )
    iv, scores = m["interval_budgets"], (m["interval_inner"], m["interval_edge"])
    given = [iv is not None, scores[0] is not None, scores[1] is not None]
    if any(given) and not (
        all(given)
        and iv is not None
        and iv.size > 0
        and ((iv > 0) & (iv <= 1)).all()
        and all(len(v) == iv.size for v in scores if v is not None)
        and all((np.isfinite(a) & (a >= 0)).all() for v in scores if v is not None for a in v)
    ):
        raise FormatError(
            f"{source}: interval_budgets (fractions in (0, 1]), interval_inner and interval_edge (one "
            "list of finite scores >= 0 per budget each) go together"
        )


def joint_polish(
    X: np.ndarray,
    a: np.ndarray,
    d: np.ndarray,
    theta: np.ndarray,
    *,
    n_sweeps: int = 30,
    prior_a_sd: float = 1.0,
    prior_d_sd: float = 3.0,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Joint MAP of abilities and 2PL item parameters from a start (the module docstring's objective).

    ``X``: ``(n_models, n_items)`` scores in [0, 1], NaN = missing. Each sweep takes two Newton steps on every
    ability (prior N(0, 1)), then one Newton step on every item's ``(a, d)`` (2 x 2 Hessian; priors centred on
    the start, sds ``prior_a_sd``, ``prior_d_sd``); steps are clipped (1 for ``theta`` and ``a``, 2 for ``d``)
    so that a flat likelihood cannot send a parameter away. Returns ``(a, d, theta)``."""
    obs = ~np.isnan(X)
    Y = np.where(obs, X, 0.0)
    M = obs.astype(np.float64)
    a, d, th = (np.array(v, dtype=np.float64) for v in (a, d, theta))
    a0, d0 = a.copy(), d.copy()
    va, vd = float(prior_a_sd) ** 2, float(prior_d_sd) ** 2
    for _ in range(int(n_sweeps)):
        for _ in range(2):
            P = _sigmoid(np.outer(th, a) + d)
            g = ((Y - P) * M) @ a - th
            h = -((P * (1.0 - P) * M) @ (a * a)) - 1.0
            th -= np.clip(g / h, -1.0, 1.0)
        P = _sigmoid(np.outer(th, a) + d)
        R = (Y - P) * M
        W = P * (1.0 - P) * M
        ga = th @ R - (a - a0) / va
        gd = R.sum(axis=0) - (d - d0) / vd
        haa = -((th * th) @ W) - 1.0 / va
        had = -(th @ W)
        hdd = -W.sum(axis=0) - 1.0 / vd
        det = haa * hdd - had * had  # > 0: the Hessian is negative definite (priors make it strict)
        a -= np.clip((hdd * ga - had * gd) / det, -1.0, 1.0)
        d -= np.clip((haa * gd - had * ga) / det, -2.0, 2.0)
    P = _sigmoid(np.outer(th, a) + d)
    for _ in range(5):  # abilities at the final item parameters
        g = ((Y - P) * M) @ a - th
        h = -((P * (1.0 - P) * M) @ (a * a)) - 1.0
        th -= np.clip(g / h, -1.0, 1.0)
        P = _sigmoid(np.outer(th, a) + d)
    return a, d, th


def residual_loadings(X: np.ndarray, P: np.ndarray, k: int) -> np.ndarray:
    """``(n_items, k')`` loadings of the first ``k' = min(k, n_models - 1, n_items)`` principal directions of
    the residuals ``X - P`` (missing cells 0), scaled so that the factors have unit variance over the models:
    ``V_k S_k / sqrt(n_models)`` (module docstring)."""
    R = np.where(np.isnan(X), 0.0, X - P)
    k = max(0, min(int(k), R.shape[0] - 1, R.shape[1]))
    if k == 0:
        return np.zeros((R.shape[1], 0))
    _, S, Vt = np.linalg.svd(R, full_matrices=False)
    L = Vt[:k].T * (S[:k] / np.sqrt(R.shape[0]))
    # SVD signs are arbitrary: fix each direction so its largest loading is positive (same bank on any BLAS)
    flip = np.sign(L[np.argmax(np.abs(L), axis=0), np.arange(k)])
    return np.asarray(L * np.where(flip == 0, 1.0, flip))


def _sigmoid(z: np.ndarray) -> np.ndarray:
    return 1.0 / (1.0 + np.exp(-np.clip(z, -30.0, 30.0)))


#: budgets as fractions of the items (``design_budgets``, ``interval_budgets``)
_BUDGETS = Check(
    lambda b: all(isinstance(v, Real) and 0 < float(v) <= 1 for v in b), "fractions of the items in (0, 1]"
)
#: what :func:`fit_bank`'s ``prior`` and ``residual_factors`` accept, declared once
_FIT_BANK_PARAMS: dict[str, list[ConstraintLike]] = {
    "prior": [Check(lambda p: p in PRIORS, "one of " + ", ".join(PRIORS)), None],  # the pinned words
    "residual_factors": [Interval(Integral, 0, None, desc="an int >= 0"), None],
    "misfit_folds": [
        Check(lambda k: isinstance(k, Integral) and int(k) != 1 and int(k) >= 0, "0 or an int >= 2")
    ],
    "design_budgets": [_BUDGETS],
    "interval_budgets": [_BUDGETS],
    "benchmark_offsets": ["boolean", None],
    "beyond_curve": ["boolean", None],
}
#: ``kind``, checked after the panel's size, as before
_FIT_BANK_KIND = [Check(lambda k: k in ("auto", "2pl", "graded"), "'auto', '2pl' or 'graded'")]


def fit_bank(
    panel: Panel,
    kind: str = "auto",
    max_categories: int = 5,
    polish: bool | None = None,
    prior: str | None = None,
    residual_factors: int | None = None,
    misfit_folds: int = MISFIT_FOLDS,
    random_state: int = 0,
    design_budgets: tuple[float, ...] = (),
    benchmark_offsets: bool | None = None,
    interval_budgets: tuple[float, ...] = INTERVAL_BUDGETS,
    beyond_curve: bool | None = None,
) -> ItemBank:
    """Fit an item bank on the image-condition models of ``panel``.

    ``kind``: ``"auto"`` (2PL when every score is 0 or 1, graded response otherwise), ``"2pl"`` (scores in
    (0, 1) enter as fractional Bernoulli outcomes) or ``"graded"``. ``polish``: a 2PL bank's EM solution is
    refined by :func:`joint_polish` (module docstring), so that full-score estimates are calibrated model by
    model; ``None`` (default): with at least :data:`MIN_FACTOR_MODELS` reference models (module docstring);
    the graded model is used as fitted. ``prior``: a new model's ability prior, ``"empirical"`` (kernel
    density of the reference models' abilities, module docstring), ``"robust"`` (N(0, 1) with a wide tail,
    module docstring; a graded bank keeps N(0, 1) for both) or ``"normal"`` (N(0, 1)); ``None`` (default):
    empirical for a bank of at least :data:`MIN_FACTOR_MODELS` reference models, robust for a smaller one
    (module docstring). ``residual_factors``: ``k`` principal
    directions of a 2PL bank's residuals that correct the expected scores of the items a model did not answer
    (module docstring; 0 = plain p-IRT; at most the number of reference models minus one); ``None``
    (default): 3 with at least :data:`MIN_FACTOR_MODELS` reference models, else 0. ``misfit_folds``: folds of
    the out-of-fold misfit of the bank's curve (:func:`benchsift.adaptive.design.out_of_fold_misfit`: that
    many more fits, each on the other folds' models with the same options, and one more on the weakest 80 %
    for the error at the edge, :attr:`ItemBank.edge_error`; 0 = not measured, and then no composite
    correction, no whole-budget spread start and no edge error); ``random_state`` seeds the folds and the
    replays' exposure draws.
    ``design_budgets``: the budgets (fractions of the items) at which the fold banks replay their held-out
    models with both designs, adaptive and the whole budget spread
    (:func:`benchsift.adaptive.design.design_errors`; :meth:`ItemBank.spread_wins` takes the nearest);
    ``()`` (default): not measured (then a quarter start, never the whole budget spread); e.g.
    :data:`~benchsift.adaptive.design.DESIGN_BUDGETS`. Opt-in: the replays cost 3-40 s on the real panels and
    changed one cell of 21 against the reference CAT (docs/ADAPTIVE.md).
    ``benchmark_offsets``: a model's ability on each benchmark may differ from its overall one by an offset
    whose spread is measured on the reference models (:mod:`benchsift.adaptive.offsets`); ``None``
    (default): on for a bank of several benchmarks, off for one.
    ``interval_budgets``: the budgets (fractions of the items) at which the fold banks and the edge fold
    replay their held-out models to calibrate the full-score interval (:mod:`benchsift.adaptive.interval`;
    default :data:`~benchsift.adaptive.interval.INTERVAL_BUDGETS`; ``()``: not calibrated, no interval; needs
    ``misfit_folds``): one more fit (the edge fold's own edge error) and the replays, 4-6x the time of a
    bank without them (docs/ADAPTIVE.md).
    ``beyond_curve``: a polished bank keeps the EM curves too (:attr:`ItemBank.beyond`, with their own misfit
    and edge error from the same fold fits), whose estimate weighs in for a model beyond the strongest
    reference model (:meth:`ItemBank.beyond_weight`, module docstring); ``None`` (default): whenever the bank
    is polished; ``True`` needs a polished 2PL bank.
    """
    # the names stay bare, as pinned by the tests: "prior: expected one of empirical, normal, got ..."
    check_params(
        _FIT_BANK_PARAMS,
        {
            "prior": prior,
            "residual_factors": residual_factors,
            "misfit_folds": misfit_folds,
            "design_budgets": design_budgets,
            "interval_budgets": interval_budgets,
            "benchmark_offsets": benchmark_offsets,
            "beyond_curve": beyond_curve,
        },
        quote=False,
    )
    ref = _bank_panel(panel)
    check_param("kind", kind, _FIT_BANK_KIND, quote=False)
    X = ref.scores
    obs = X[~np.isnan(X)]
    if obs.size == 0:
        raise DegenerateError("item bank: the panel has no scores")
    binary = bool(np.isin(obs, (0.0, 1.0)).all())
    use = ("2pl" if binary else "graded") if kind == "auto" else kind
    model: TwoPL | GradedResponse
    if polish is None:
        polish = ref.n_models >= MIN_FACTOR_MODELS
    em: tuple[TwoPL, np.ndarray] | None = None
    if use == "2pl":
        model = TwoPL().fit(X)
        theta = model.theta_
        em = (model, np.asarray(theta))
        if polish:
            a, d, theta = joint_polish(X, model.discrimination_, model.intercept_, model.theta_)
            model = TwoPL.from_parameters(a, d)
    else:
        model = GradedResponse(max_categories=max_categories).fit(X)
        theta = model.theta_
    polished = use == "2pl" and bool(polish)
    if beyond_curve and not polished:
        raise InputError(
            f"beyond_curve=True needs a polished 2PL bank (polish=True; by default from {MIN_FACTOR_MODELS} "
            f"reference models), got a {'graded' if use != '2pl' else 'not polished'} bank of "
            f"{ref.n_models} models"
        )
    use_prior = _bank_prior(prior, use, ref.n_models)
    if residual_factors is None:
        residual_factors = DEFAULT_FACTORS if ref.n_models >= MIN_FACTOR_MODELS else 0
    if benchmark_offsets is None:
        benchmark_offsets = len(pd.unique(ref.items["benchmark"].astype(str))) > 1
    bank = _plain_bank(
        ref, use, model, np.asarray(theta), use_prior, int(residual_factors), benchmark_offsets
    )
    if polished and beyond_curve is not False and em is not None:
        bank.beyond = _plain_bank(ref, use, em[0], em[1], use_prior, int(residual_factors), benchmark_offsets)
    if misfit_folds:
        options = {"kind": use, "max_categories": max_categories, "polish": polish, "prior": use_prior,
                   "residual_factors": residual_factors, "benchmark_offsets": benchmark_offsets,
                   "beyond_curve": bank.beyond is not None}  # fmt: skip
        _measure_designs(bank, ref, options, misfit_folds, random_state, design_budgets, interval_budgets)
    return bank


def _bank_panel(panel: Panel) -> Panel:
    """The image-condition panel :func:`fit_bank` fits on, refused below :data:`MIN_BANK_MODELS` models or
    :data:`MIN_BANK_ITEMS` items."""
    ref = panel.image_panel()
    if ref.n_models < MIN_BANK_MODELS:
        raise DegenerateError(
            f"item bank needs at least {MIN_BANK_MODELS} image models to fit item parameters, "
            f"got {ref.n_models}"
        )
    if ref.n_items < MIN_BANK_ITEMS:
        raise DegenerateError(
            f"item bank needs at least {MIN_BANK_ITEMS} items to fit item parameters (an item's slope is "
            f"measured by how its answers covary with another item's), got {ref.n_items}"
        )
    return ref


def _plain_bank(
    ref: Panel,
    kind: str,
    model: TwoPL | GradedResponse,
    theta: np.ndarray,
    prior: str,
    residual_factors: int,
    benchmark_offsets: bool,
) -> ItemBank:
    """The bank of ``model`` fitted on the image panel ``ref`` (reference abilities ``theta``), with its
    residual loadings and benchmark offsets, before anything is measured out of fold."""
    X = ref.scores
    items = ref.items[["benchmark", "item"]].copy()
    items["category"] = ref.items["category"] if "category" in ref.items.columns else None
    loadings = None
    if kind == "2pl" and residual_factors > 0:
        assert isinstance(model, TwoPL)
        loadings = residual_loadings(X, model.predict_proba(theta), residual_factors)
        loadings = loadings if loadings.shape[1] > 0 else None
    bank = ItemBank(
        kind, model, items.reset_index(drop=True), ref.model_ids, theta, np.empty(0), prior, loadings
    )
    bank.reference_overall = nan_mean(ref.benchmark_means().means, axis=1)
    if benchmark_offsets:
        groups = bank._benchmark_groups()
        bank.offset_var = offset_variances(bank.expected_items, theta, X, groups)
    return bank


def _bank_prior(prior: str | None, kind: str, n_models: int) -> str:
    """The ability prior of a bank of ``kind`` fitted on ``n_models``: ``prior``, or by default empirical from
    :data:`MIN_FACTOR_MODELS` models and robust below (module docstring); a graded bank's is N(0, 1), with a
    warning when another one was asked for."""
    if prior is None:
        prior = "empirical" if n_models >= MIN_FACTOR_MODELS else "robust"
    elif prior != "normal" and kind != "2pl":
        message = f"a graded bank's ability prior is N(0, 1): the {prior} prior asked for is not used"
        warnings.warn(message, BenchsiftWarning, stacklevel=3)
    return prior if kind == "2pl" else "normal"


def _measure_designs(
    bank: ItemBank,
    ref: Panel,
    options: dict[str, Any],
    misfit_folds: int,
    random_state: int,
    budgets: tuple[float, ...],
    interval_budgets: tuple[float, ...] = (),
) -> None:
    """The out-of-fold misfit, edge error, design errors and interval calibration of :func:`fit_bank`
    (:mod:`benchsift.adaptive.design`, :mod:`benchsift.adaptive.interval`): fold banks fitted with
    ``options`` (``fit_bank``'s keywords), then set on ``bank``."""
    from benchsift.adaptive.select import static_start_items  # imports this module: imported when used
    from benchsift.adaptive.simulate import replay_adaptive

    # the misfit needs the curve and the abilities only (the residual factors and the benchmark offsets
    # change neither); the design and interval replays need the bank as it is
    replays_needed = bool(budgets) or bool(interval_budgets)
    fold_options = (
        options if replays_needed else {**options, "residual_factors": 0, "benchmark_offsets": False}
    )

    def refit(part: Panel) -> ItemBank:
        return fit_bank(part, **fold_options, misfit_folds=0, interval_budgets=())

    groups = bank._benchmark_groups()
    folds = fold_banks(ref, refit, int(misfit_folds), int(random_state))
    edge = edge_fold(ref, refit)
    bank.edge_error, bank.edge_rms = (None if edge is None else edge_error_of(ref, edge, groups)) or (
        None,
        None,
    )
    cv = None if folds is None else misfit_from_folds(ref, folds, groups)
    if bank.beyond is not None:  # the EM curves' own measures, from the same fold fits (each keeps them)
        em_edge = None if edge is None or edge[0].beyond is None else (edge[0].beyond, edge[1])
        bank.beyond.edge_error, bank.beyond.edge_rms = (
            None if em_edge is None else edge_error_of(ref, em_edge, groups)
        ) or (None, None)
        em_folds = [(f.beyond, held) for f, held in folds or [] if f.beyond is not None]
        em_cv = misfit_from_folds(ref, em_folds, groups) if folds and len(em_folds) == len(folds) else None
        if em_cv is not None:
            bank.beyond.misfit_var, bank.beyond.residual_var = em_cv
    if folds is None or cv is None:
        return
    bank.misfit_var, bank.residual_var = cv
    if interval_budgets:
        _calibrate_interval(bank, ref, folds, edge, refit, interval_budgets, random_state)
    if not budgets:
        return
    for fold_bank, _ in folds:  # the composite correction in their replays
        fold_bank.misfit_var, fold_bank.residual_var = cv
        if fold_bank.beyond is not None and bank.beyond is not None:
            fold_bank.beyond.misfit_var, fold_bank.beyond.residual_var = (
                bank.beyond.misfit_var,
                bank.beyond.residual_var,
            )

    def replay(b: ItemBank, scores: np.ndarray, models: list[str], n: int, static_start: float) -> np.ndarray:
        return replay_adaptive(
            b, scores, models, n, static_start=static_start, random_state=random_state, low_edge=False
        )[0]

    bank.design_budgets = np.asarray(budgets, dtype=np.float64)
    bank.design_mae = design_errors(ref, folds, budgets, replay, static_start_items)


def _measured_as(
    fold_bank: ItemBank,
    bank: ItemBank,
    edge: tuple[float, float] | None | bool = True,
    em_edge: tuple[float, float] | None | bool = True,
) -> ItemBank:
    """``fold_bank`` with ``bank``'s out-of-fold misfit and the edge error ``edge`` (``True``: ``bank``'s own;
    ``None``: not measured), and its EM curves (:attr:`ItemBank.beyond`) with those of ``bank.beyond`` and
    ``em_edge``: the fold bank as :func:`_calibrate_interval` replays it."""

    def measures(of: ItemBank, error: tuple[float, float] | None | bool) -> dict[str, Any]:
        err, rms = (of.edge_error, of.edge_rms) if error is True else (error or (None, None))
        return {
            "misfit_var": of.misfit_var,
            "residual_var": of.residual_var,
            "edge_error": err,
            "edge_rms": rms,
        }

    beyond = fold_bank.beyond
    if beyond is not None and bank.beyond is not None:
        beyond = replace(beyond, **measures(bank.beyond, em_edge))
    return replace(fold_bank, **measures(bank, edge), beyond=beyond if bank.beyond is not None else None)


def _calibrate_interval(
    bank: ItemBank,
    ref: Panel,
    folds: list[tuple[Any, np.ndarray]],
    edge: tuple[Any, np.ndarray] | None,
    refit: Any,
    budgets: tuple[float, ...],
    random_state: int,
) -> None:
    """Set ``bank.interval_budgets``, ``interval_inner`` and ``interval_edge``
    (:func:`benchsift.adaptive.interval.calibration_scores`): each fold bank with the bank's misfit and edge
    error replays its held-out models; the edge fold's bank, with the bank's misfit and its own edge error
    (measured on its own strongest models, one more fit), replays the strongest models, each at every one of
    the ``budgets`` (:mod:`benchsift.adaptive.interval`)."""
    from benchsift.adaptive.simulate import replay_final  # imports this module: imported when used

    assert bank.misfit_var is not None and bank.residual_var is not None
    every = list(range(len(budgets)))
    replays: list[tuple[Any, Panel, bool, list[int]]] = [
        (_measured_as(fold_bank, bank), ref.subset(models=held), False, every) for fold_bank, held in folds
    ]
    if edge is not None:
        edge_bank, held = edge
        weak = ref.subset(models=np.setdiff1d(np.arange(ref.n_models), held))
        own = edge_fold(weak, refit)
        groups = bank._benchmark_groups()
        own_error = None if own is None else edge_error_of(weak, own, groups)
        em_error = None
        if own is not None and own[0].beyond is not None:
            em_error = edge_error_of(weak, (own[0].beyond, own[1]), groups)
        replays.append(
            (_measured_as(edge_bank, bank, own_error, em_error), ref.subset(models=held), True, every)
        )

    def replay(b: ItemBank, held: Panel, n: int) -> Any:  # in batches of a fifth of the budget
        return replay_final(  # the calibration as measured before the lower edge (docs/ADAPTIVE.md)
            b, held.scores, held.model_ids, n, batch=max(1, n // 5), random_state=random_state, low_edge=False
        )

    bank.interval_inner, bank.interval_edge = calibration_scores(replays, budgets, ref.n_items, replay)
    bank.interval_budgets = np.asarray(budgets, dtype=np.float64)
