r"""What a new model would have scored on the *full* benchmarks, from its responses on a suite's items.

A compressed suite keeps the hard, discriminating items, so the mean over its items is not the benchmark
score (on real panels it is off by 0.1-0.2). :func:`fit_full_score` learns, on the reference (build) models
of the panel the suite was selected from, four ways to map suite responses to the full-pool score of each
benchmark, each category and overall, and :meth:`FullScoreModel.predict` applies them to new models.

Groups. For a group ``g`` (a benchmark, a category, or ``overall``) with items ``G`` and suite items
``S = G \cap suite``, a model's full score is its mean over ``G`` (NaN-aware); ``overall`` is the mean of its
benchmark scores (each benchmark weighs the same).

Estimators (per benchmark and category; ``overall`` is the mean of the benchmark estimates):

* ``suite_mean`` -- the mean over ``S``, the plain "score on the suite" (reported for every method as
  ``suite_mean``, never as the benchmark score unless chosen);
* ``regression`` -- the full score of the reference models regressed on their suite mean (ordinary least
  squares ``y = alpha + beta s``, one line per group): a linear calibration;
* ``pirt`` -- the performance-IRT estimator of tinyBenchmarks (Polo et al. 2024, "tinyBenchmarks: evaluating
  LLMs with fewer examples", Eq. for :math:`\hat Z^{p\text{-}IRT}`; ``tinyBenchmarks/__init__.py``
  ``evaluate``): a 2PL model (:class:`benchsift.irt.TwoPL`) fitted on the reference models over *all* items;
  the new model's ability :math:`\hat\theta` is its EAP estimate from its suite responses alone, and

  .. math:: \hat Z_g = \lambda_g \bar y_S + (1 - \lambda_g) \frac{1}{|G \setminus S|}
            \sum_{i \in G \setminus S} \sigma(a_i \hat\theta + d_i), \qquad \lambda_g = |S| / |G|;

* ``gpirt`` -- the convex combination :math:`w_g \hat Z^{reg}_g + (1 - w_g) \hat Z^{p\text{-}IRT}_g` of the
  two, the analogue of tinyBenchmarks' gp-IRT (which mixes p-IRT with its anchor-weighted estimate); ``w_g``
  is chosen on a grid of 11 values by cross-validated absolute error;
* ``ridge`` -- p-IRT plus a ridge regression of its residual on *every* suite response (all benchmarks of
  the suite, so one benchmark's estimate uses the others; a response the model lacks is replaced by its 2PL
  probability at :math:`\hat\theta`):

  .. math:: \hat Z^{ridge}_g = \hat Z^{p\text{-}IRT}_g + \hat c_g + (x - \bar x)^\top \hat\beta_g, \qquad
            \hat\beta_g = \arg\min_\beta \sum_m (Z_{mg} - \hat Z^{p\text{-}IRT}_{mg} - c_g
            - (x_m - \bar x)^\top\beta)^2 + \kappa_g \lVert\beta\rVert^2

  (Hastie, Tibshirani & Friedman 2009, Eq. 3.41; checked against ``sklearn.linear_model.Ridge``), with the
  penalty :math:`\kappa_g` chosen from ``_RIDGE_PENALTIES`` by the cross-validated error below. As
  :math:`\kappa \to \infty` it is p-IRT plus a constant: the line that calibrates p-IRT's bias.
* ``anchor`` -- tinyBenchmarks' anchor-weighted mean: each suite item weighted by the share of the group's
  items whose correctness vector over the reference models is nearest to its own
  (:func:`benchsift.compression.full_score_stack.anchor_weights`), a design-based estimate with no ability
  model; on a suite that is a stratified random sample (``fit_full_score(stratified=True)``) each item is
  weighted by the items of its category it stands for instead, so that ``anchor`` is the stratified mean and
  ``greg`` below the design-based difference estimator
  (:func:`benchsift.compression.full_score_stack.design_weights`);
* ``factor`` -- with at least 50 reference models
  (:data:`~benchsift.compression.full_score_factor.FACTOR_MIN_REFERENCE`) and at most a million reference
  cells (:data:`~benchsift.compression.full_score_factor.FACTOR_MAX_CELLS`), the posterior mean of the full
  score under a three-factor logistic model fitted on the reference models' scores on every item, the prior
  the reference models' own abilities (:mod:`benchsift.compression.full_score_factor`,
  :mod:`benchsift.irt.factor`); it does not extrapolate beyond the reference abilities. Otherwise it is
  p-IRT.
* ``stack`` -- the convex combination of ``anchor``, ``ridge``, ``pirt``, ``factor`` and ``greg`` with
  per-group weights on the simplex grid of step 0.1 chosen by the random folds' out-of-fold error below (as
  tinyBenchmarks chooses its gp-IRT mix; the strongest fold then judges the stack as a whole in the method
  choice) (:func:`benchsift.compression.full_score_stack.stack_weights`; Breiman 1996, "Stacked
  regressions"); the factor's weight is 0 without the factor model. p-IRT, ridge and tinyBenchmarks' gp-IRT
  mix (anchor with p-IRT) are points of the grid.
* ``pirt_cal`` -- calibrated p-IRT: :math:`\alpha_g + \beta_g \hat Z^{p\text{-}IRT}_g`, the least-squares
  line of the reference models' full scores on their out-of-fold p-IRT estimates
  (:func:`benchsift.compression.full_score_stack.calibration_line`; its own out-of-fold estimates are
  leave-one-out, :func:`~benchsift.compression.full_score_stack.calibrated_loo`). It corrects the shrinkage
  and misfit of the EAP ability on a short suite (measured on ZeroEval MATH-L5 and CRUX at 10 %: 0.030 and
  0.026 against p-IRT's 0.039 and 0.037, intervals 30-40 % narrower; at 2 % it is no better than p-IRT).
* ``greg`` -- the difference (model-assisted, "GREG") estimator of survey sampling (Sarndal, Swensson and
  Wretman 1992, "Model assisted survey sampling", the difference estimator): the 2PL's expected
  score of every pool item at the new model's ability, plus the anchor-weighted mean of its residuals on the
  suite items,

  .. math:: \hat Z^{greg}_g = \lambda_g \frac{1}{|S|} \sum_{i \in S} \hat P_i
            + (1 - \lambda_g) \frac{1}{|G \setminus S|} \sum_{i \in G \setminus S} \hat P_i
            + \frac{\sum_{i \in S} w_i (y_i - \hat P_i)}{\sum_{i \in S} w_i}, \qquad
            \hat P_i = \sigma(a_i \hat\theta + d_i),

  with the anchor weights ``w`` of ``anchor`` (renormalised over the items the model answered). Where the
  2PL misfits the model's answers -- a guessing floor, which a 2PL lacks, on a multiple-choice benchmark whose
  weak models answer the hard suite items above the curves -- the residuals carry the misfit into the
  estimate that p-IRT's curves miss; where the 2PL fits, the residuals average to about zero. It has more
  variance than p-IRT (the anchor weights are uneven), so it enters the headline ``average`` (one of five)
  and is not chosen alone.
* ``xbench`` -- on a suite of several benchmarks, p-IRT plus a ridge regression of its residual on each
  benchmark's own suite ability and suite mean (:mod:`benchsift.compression.full_score_xbench`); on one
  benchmark it is p-IRT. Reported, not chosen (``XBENCH_IN_CHOICE``: measured no better on a real panel).

Known full scores. ``predict(known=...)`` takes a new model's full scores on some benchmarks of the suite
and uses them as covariates of the chosen method's estimate of the others
(:func:`benchsift.compression.full_score_xbench.adjust_known`).

The 2PL's slope prior is normal on ``a`` with sd ``IRT_PRIOR_A_SD`` = 1.0 (``IRT_A_PRIOR``; TwoPL's
``a_prior="normal"``; the reference tinyBenchmarks implementation the benchmarks compare with fits its 2PL
with ``a ~ N(1, 1)``). The log-normal prior keeps every slope positive and has a long right tail: on ZeroEval
GSM8K (all 42 models) its slopes' 95th percentile is 3.31 against 2.52 with the normal prior (MATH-L5: 3.65
against 2.74), and 2 items against 31 have a slope below 0.3 (17 negative: items that stronger models fail
more often). Steep item curves make p-IRT's expected score of the items off the suite jump with the ability,
and an item that hardly depends on the ability should stay flat. Measured on ZeroEval GSM8K / MATH-L5 /
CRUX (60/40 random splits, 3 seeds, ``--selector estimate``), p-IRT's MAE at 2 / 5 / 10 %: 0.033 / 0.028 /
0.027 -> 0.031 / 0.022 / 0.022,
0.061 / 0.046 / 0.039 -> 0.065 / 0.040 / 0.032, 0.047 / 0.038 / 0.034 -> 0.044 / 0.033 / 0.025 against the
log-normal prior (sd 1.0 on ``log a``; its sd 0.5, TwoPL's default, had shrunk the slopes of the few
informative items, ``benchmarks/bench_estimate.py``).

Validation and intervals. The reference models are split into ``n_folds`` folds (seeded). For every fold the
regression and the 2PL are refitted on the other folds and the fold's models are predicted from their suite
responses only, so every reference model gets an out-of-fold prediction from each estimator. One more fold
holds out the strongest ``STRONG_SHARE`` (20 %) of the reference models by full score together and fits on
the rest: the situation of a new release, stronger than every build model. The headline (``method``) is
one of two ensembles, ``average`` (the equal-weight mean of p-IRT, ridge, stack, calibrated p-IRT and
``greg``), or
``stack`` where its sum of the random folds' and the strongest fold's mean absolute error is lower by more
than one standard error of the paired difference and there are at least ``CHOICE_MIN_REFERENCE`` (50)
reference models (``HEADLINE_AVERAGE``, ``HEADLINE_FROM``,
:func:`one_se_choice`, :meth:`FullScoreModel.selection_error`; measured against the free choice below in
docs/ESTIMATE.md); without ``HEADLINE_AVERAGE``, the one of
``CHOSEN_FROM`` (p-IRT, ridge, stack, calibrated p-IRT; xbench when ``XBENCH_IN_CHOICE``: the estimators
through the ability, so that a stronger model is extrapolated along the item response curves; the stack's
ability-free part is the anchor mean, not a line fitted on weaker models) with the lowest sum of the random
folds' and the strongest fold's mean absolute error over the benchmarks (recorded as ``method``). With at
least ``CHOICE_MIN_REFERENCE`` reference models, a new model inside the reference abilities (not at the
edge, below; a model below the weakest reference model too) gets the stack instead (``INSIDE_METHOD``,
``inside_method``: its weights are the random folds' cross-validated mix, the situation of such a model);
``method`` is the headline at the edge, and ``FullScoreEstimates.estimator`` says per model which. Intervals
are split-conformal on the random folds' out-of-fold residuals (cross-conformal, Vovk 2015; the "CV+" family
of Barber et al. 2021, "Predictive inference with the jackknife+", Ann. Statist. 49(1)): the half-width for
group ``g`` and method ``m`` is the :math:`\lceil (n + 1)\,\text{level} \rceil`-th smallest of the ``n``
absolute out-of-fold residuals, so the interval covers a new model's full score with probability
about ``level`` when the new model is exchangeable with the reference models (a model unlike all of them --
a new family, a jump in ability -- is not covered by this guarantee). With fewer reference models than
that quantile needs (``n < level / (1 - level)``, 19 at 95 %) the half-width is the largest absolute
residual times ``(n + 1) / n`` (the largest alone is the split-conformal interval at level ``n / (n + 1)``),
and a warning names the level it guarantees (:func:`small_reference_warning`). With enough reference
models the half-width is their ability bin's instead (:data:`ABILITY_BINS_MODE`, :func:`_ability_bins`: the
same quantile over the out-of-fold residuals of the reference models of the new model's suite-ability bin,
a Mondrian conformal interval, valid within each bin), so that a weak model is not given the strong
models' narrow interval. Estimates and interval ends are clipped to [0, 1].

Extrapolation. A new model whose ability on the suite (EAP from its suite responses) lies outside the
reference models' (``theta_range``, with a tolerance of 0.01) is flagged ``extrapolating`` and named in
``warnings``. Every model at least as able as the least able model of the strongest fold
(``theta_strong``) gets the larger of the random folds' and the strongest fold's half-widths (the latter
from the strongest fold's residuals), grown beyond the strongest reference model by
``1 + (theta - theta_max) / (theta_max - theta_strong)``; beyond the reference models, where the chosen
method is ``ridge``, the estimate is p-IRT's (the ridge correction is fitted on the reference models'
responses and does not extrapolate). This does not restore
the nominal coverage under a large shift: building on the weakest 60 % of MMMU's models and estimating the
strongest 40 % from 5 % of the items, the intervals covered 85 % of them (``benchmarks/bench_estimate.py
--split strongest``). So, besides, every model at the *edge* (a suite ability at least that of the least
able of the strongest 40 % of the reference models) gets the upper end of
:mod:`benchsift.compression.extrapolation`: the quantile of the underestimates on shift folds that hold out
the strongest 20 % and 40 % of the reference models together, and (``edge_estimator=True``, off by
default) its estimate from the method of
``EDGE_CHOSEN_FROM`` (``CHOSEN_FROM`` and ``anchor``) with the least mean absolute error over those shift
folds (``edge_method``; the folds' errors are ``cv_mae_shift``), the cross-validation that holds out the
strongest build models; and (``EDGE_ANCHOR_UPPER``) every method's upper end of an edge model is at least
the anchor mean's upper end (its own interval, widened at the edge in the same way): the anchor mean is a
weighted mean of the model's own suite answers (tinyBenchmarks' design-based estimate, Polo et al. 2024,
sec. 3.1) and fits no curve on weaker models, so a release far stronger than the build models -- which
answers the suite like the strongest of them as far as the ability goes, but gets more of the items right
-- is not pulled down in it (ZeroEval CRUX, built on the weakest 60 % of 48 models, 2 % of the items:
the edge models' 95 % intervals covered 0.79 / 0.89 / 0.74 of the strongest 40 % on seeds 0 / 1 / 2, 1.00 /
1.00 / 0.95 with it; the estimate and the lower end do not move); (``EDGE_STRATIFIED_UPPER``,
``EDGE_STRATIFIED_BLEND``) the upper end is at least the difficulty-stratified suite mean's design-based one,
and an edge model above every reference model on that mean gets the mean of the two as its headline
(:func:`~benchsift.compression.extrapolation.stratified_blend`); on a suite that is a stratified random
sample (``fit_full_score(stratified=True)``, :attr:`FullScoreModel.stratified`) the headline of every edge
model moves instead towards the suite's own stratified mean (the ``anchor`` estimate, unbiased by design for a
stronger model too) by the weight :math:`w = \Phi((\hat Z^{st} - Z^{max}) / s)` of its distance above the best
reference model in its error scale (:func:`~benchsift.compression.extrapolation.beyond_mix`); on any other
suite with at least 50 reference models (``EDGE_SHIFT_CORRECTION``) the headline of an edge model is first
raised by its estimator's mean underestimate on the strongest fold (``underestimate_strong``) times the same
kind of weight on its own estimate's distance above the best reference model
(:func:`~benchsift.compression.extrapolation.shift_correction`); all edge models
are named in one warning
(``FullScoreEstimates.at_edge``, and
``FullScoreEstimates.estimator`` says per model whose estimate is the headline). A model stronger than
every reference model often answers the suite like
the strongest of them and is not flagged ``extrapolating`` (on a 40-model math panel, 13-14 of its 16
strongest models, seed 0).

The lower edge (:data:`~benchsift.compression.extrapolation.WEAK_SHARE`). A model weaker than every
reference model answers the suite like the weakest of them too, and the estimators through the ability
then estimate it too *high* (built on the strongest 60 % of AlpacaEval 1.0 and SWE-bench Verified, the
weakest 40 % were estimated +0.14 to +0.18 high, their 95 % intervals covering 0.40-0.71, half of them
unflagged). So a weak fold holds out the weakest fifth of the reference models together (one more fit), and
every new model at most as able on the suite as the ablest of them (``theta_weak``) is flagged
``below_edge``, named in one
warning, and gets as its interval's lower end the lowest of its own, the weak fold's half-width (grown below
the weakest reference model as the strongest fold's is above the strongest), the anchor mean's lower end
and the difficulty-stratified mean's (mirrored from its upper end); where that stratified mean's upper end
lies below every reference model's full score, its headline is the mean of the two
(:func:`~benchsift.compression.extrapolation.stratified_blend_below`). Measured in docs/ESTIMATE.md,
"Models weaker than the build models".

Ranks. A new model's rank is ``1 + #(reference models with a higher full overall score)``; its interval is
the ranks at the ends of the overall score's interval (it holds whenever the score interval does).

Cost: ``n_folds + 1`` 2PL fits on the reference panel (each ``O(M N K)`` per EM cycle, warm-started from the
full fit), and for prediction one EAP scoring of the new models on the suite items, ``O(n_new |suite| K)``.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

import numpy as np
import pandas as pd
from scipy.special import expit

from benchsift._inputs import check_shape
from benchsift._jsonutil import to_jsonable
from benchsift.compression.extrapolation import (
    EDGE_FOLD,
    SHIFT_CORRECTION_MIN_REFERENCE,
    SHIFT_SHARES,
    WEAK_SHARE,
    beyond_mix,
    edge_upper_halfwidth,
    edge_warning,
    low_edge_warning,
    shift_correction,
    shift_upper_halfwidth,
    stratified_blend,
    stratified_blend_below,
    stratified_estimate,
)
from benchsift.compression.full_score_factor import (
    FactorState,
    factor_applies,
    factor_estimates,
    factor_state,
    fit_factor,
)
from benchsift.compression.full_score_stack import (
    STACK_COMPONENTS,
    anchor_means,
    anchor_weights,
    calibrated_loo,
    calibration_line,
    stack_grid,
    stack_weights,
)
from benchsift.compression.full_score_xbench import (
    XBENCH_PENALTIES,
    adjust_known,
    bench_features,
    ridge_fit_predict,
)
from benchsift.errors import DegenerateError, InputError
from benchsift.irt import TwoPL
from benchsift.panel import Panel
from benchsift.results import Result
from benchsift.stats import SeedLike, check_random_state
from benchsift.stats.conformal import conformal_quantile, conformal_rank
from benchsift.stats.means import group_nan_means, nan_mean
from benchsift.stats.ranks import rank_among

__all__ = [
    "METHODS",
    "FullScoreEstimates",
    "FullScoreModel",
    "fit_full_score",
    "one_se_choice",
    "small_reference_warning",
]

#: Format tag of :meth:`FullScoreModel.to_dict`.
FORMAT = "benchsift-full-score/1"
#: The estimators, in the order they are reported.
METHODS = (
    "suite_mean",
    "regression",
    "pirt",
    "gpirt",
    "ridge",
    "anchor",
    "factor",
    "stack",
    "pirt_cal",
    "xbench",
    "greg",
    "average",
)
#: The estimators ``average`` is the equal-weight mean of: those of :data:`CHOSEN_FROM` that go through the
#: 2PL ability on one benchmark (``xbench`` is p-IRT there, and off the choice), and the difference estimator
#: ``greg``, whose anchor-weighted residuals carry what the 2PL misses. Measured with ``greg`` in the stack
#: and here (``bash benchmarks/run_estimate_peers.sh`` on the six real panels, 10 random 60/40 splits and 3
#: strongest-40 % ones, against the same seeds without it): benchsift's MAE over the better of gp-IRT and a
#: random subset, mean over the 18 random-split cells 0.908 -> 0.891 (17 cells won both times; pooled
#: coverage 0.962 -> 0.965), over the 18 strongest-split cells 0.942 -> 0.930 (lowest coverage 0.98 both);
#: in the stack alone 0.899 (the LLM panels, below CHOICE_MIN_REFERENCE, unchanged), in the average alone
#: 0.900 with AI2D 5 % lost (docs/ESTIMATE.md, issue 31, "the difference estimator").
AVERAGE_OF = ("pirt", "ridge", "stack", "pirt_cal", "greg")
#: Whether the headline of a model inside the reference abilities is ``average`` instead of the method of
#: :data:`CHOSEN_FROM` with the least cross-validated error. On, because the choice is noisy: with 25-100
#: reference models the cross-validated errors of the candidates differ by less than their own noise, and the
#: pick missed the best-in-hindsight estimator in 6 of 9 CRUX and 5 of 9 GSM8K cells (seed x retention,
#: ``benchmarks/bench_estimate_choice.py``); the mean's absolute error is at most the mean of the candidates'
#: (the absolute error is convex) and their errors partly cancel (Bates and Granger 1969, "The combination of
#: forecasts", Operational Research Quarterly 20(4); the "forecast combination puzzle" of Smith and Wallis
#: 2009). Measured in docs/ESTIMATE.md (issue 31: 14 of 18 random-split cells better on the same seeds, 10 on
#: the LLM panels, 3-5 on the VLM ones; worse on AI2D and MMT 10 %, where the pick found the stack reliably).
#: Every candidate's cross-validated error is still reported
#: (:meth:`FullScoreModel.summary`), and with ``edge_estimator=True`` a model at the edge gets the shift
#: folds' choice (:data:`EDGE_CHOSEN_FROM`, ``average`` among them).
HEADLINE_AVERAGE = True
#: With :data:`HEADLINE_AVERAGE`, the headline is the first of these two ensembles unless the other's
#: cross-validated error (random folds plus the strongest fold, :func:`_selection_error`) is lower by more
#: than the standard error of the paired difference over the reference models (:func:`one_se_choice`). The
#: stack is the cross-validated mix of anchor, ridge, p-IRT and factor; with 80-100 reference models (the VLM
#: panels) its weights are well determined and it erred less than the average on MMT and AI2D; with 25-30
#: (the LLM panels) the plain lowest error picked it where it erred more (GSM8K, CRUX), which the rule
#: guards against (measured in docs/ESTIMATE.md, issue 31, "suite design and headline by cross-validation").
HEADLINE_FROM = ("average", "stack")
#: Whether the stack's out-of-fold predictions (its cross-validated error, the choice of the headline and
#: of the suite design, its and the average's intervals) use weights chosen without the predicted models
#: (:func:`_cross_fit_stack`). Its weights are the best of 66 grid points on the same out-of-fold
#: predictions, so in-sample its error is optimistic by the selection (with 25-30 reference models it
#: beat the average by one standard error on folds where it then erred more on the held-out models:
#: docs/ESTIMATE.md, issue 31, "suite design and headline by cross-validation"); cross-fitted, nested
#: cross-validation in the sense of Varma and Simon 2006 (BMC Bioinformatics 7:91), it is honest.
STACK_CROSS_FITTED = True
#: The headline of a new model inside the reference abilities (not at the edge; below the weakest reference
#: model too) when there are at least :data:`CHOICE_MIN_REFERENCE` reference models (``inside_method``; None:
#: ``method`` for every model). Models at the edge keep ``method``, chosen with the strongest fold too. The
#: stack's weights are the cross-validated best mix on the random folds, whose held-out models stand where a
#: new model among the reference abilities stands; at the edge (a stronger release) the equal-weight average
#: is the safer one. Measured on MMT-Bench and AI2D (60/40 random splits, 16 cells of seeds 0-2 x 2 / 5 /
#: 10 %, the anchors-only suite): on the held-out models inside the reference abilities the stack erred less
#: than the average in 14 of 16 cells (MMT 0.0333 / 0.0213 / 0.0181 against 0.0351 / 0.0245 / 0.0211, seed
#: 0), on those at the edge the average in 11 of 16; choosing between them for the inside models by the
#: random folds' one-standard-error rule instead picked the average in all 8 AI2D cells, where the stack
#: erred less in 6 (docs/ESTIMATE.md, issue 31, "one headline per situation"). A model below the weakest
#: reference model counts as inside (:meth:`FullScoreModel._headline_estimators`). 10 seeds: MMT's
#: random-split MAE 0.0314 / 0.0254 / 0.0209 -> 0.0301 / 0.0240 / 0.0193 at 2 / 5 / 10 %, AI2D's 0.0305 /
#: 0.0219 / 0.0183 -> 0.0302 / 0.0220 / 0.0179, MMMU's and every strongest-split cell within 0.0001.
INSIDE_METHOD: str | None = "stack"
#: Fewest reference models for which the cross-validation chooses at all (the headline between
#: :data:`HEADLINE_FROM`, and ``compress``'s suite design): with fewer, the first of each is kept. Every
#: choice made by cross-validation on 25-30 reference models (the ZeroEval LLM panels) erred more on the
#: held-out models than the fixed default, even under the one-standard-error rule with cross-fitted
#: weights (the paired standard error over models that share training folds is too small, Bengio and
#: Grandvalet 2004, JMLR 5); on 80-100 (MMT, AI2D, MMMU) the choices erred less (docs/ESTIMATE.md, issue 31,
#: "suite design and headline by cross-validation").
CHOICE_MIN_REFERENCE = 50
#: Most pool items ``run_pipeline`` fits the estimators on. It was 10,000 while the 2PL's quadrature grid grew
#: with the items (2.9 s at 5,000 items, 14 s at 10,000, 230 s at 20,000, more than 20 GB at 386,000); the
#: 2PL fit is now linear in items (``benchmarks/bench_irt_scaling.py``), and 10,000 refused real benchmarks
#: (MMLU-Pro's 12,032 questions: suite means only). Measured (``compress --selector estimate --floor 0
#: --retention 0.02`` on a 60 % build split, one process, the 2-core test machine with other work beside
#: it): MMLU-Pro, 17 models x 12,032 items, 20 s CPU, 0.7 GB; simulated 60 x 30,000, 118 s, 0.8 GB;
#: 60 x 50,000, 329 s, 1.4 GB (the selector's k-means anchors grow as items x clusters). Above this the
#: suite reports suite means only, with a warning.
MAX_FULL_SCORE_ITEMS = 50_000
#: Fewest reference models :func:`fit_full_score` accepts (five folds of at least one model).
MIN_REFERENCE_MODELS = 5
_GP_WEIGHTS = np.linspace(0.0, 1.0, 11)
_THETA_TOL = 0.01
#: The methods the cross-validation chooses from: the ones that go through the 2PL ability, so that a new
#: model stronger than the build models is extrapolated by the item response curves, not by a line fitted
#: on weaker models (issue 31: on MMMU's strongest-40 % split the calibration line, chosen by random folds,
#: erred 0.063 where p-IRT erred 0.041). The others are still computed and reported. A one-standard-error
#: rule instead of the plain minimum (keep the simplest within one paired SE of the best; Hastie et al. 2009,
#: sec. 7.10; commit 8b75da6, reverted) was measured on ZeroEval MATH-L5, GSM8K and CRUX at 2/5/10 % (3 seeds,
#: random splits, ``bench_estimate_peers.py --selector estimate``): mean ratio to the better peer 1.041
#: against 1.037 for the minimum (better in 4 cells, worse in 3: GSM8K 5 % 1.47 against 1.25), so not adopted.
CHOSEN_FROM = ("pirt", "ridge", "stack", "pirt_cal", "xbench")
#: Whether ``xbench`` takes part in the choice (on a suite of several benchmarks), of ``method`` and of
#: ``edge_method``. Off: on ZeroEval's three
#: benchmarks together (57 models, coverage 0.75; ``bench_estimate_peers.py --joint``, 3 seeds, 2/5/10 %)
#: the cross-validation chose it in 1 of 3 seeds per retention and the held-out MAE was then no better: mean
#: ratio to the choice without it 1.03 over the 9 benchmark x retention cells (better in 4, worse in 5, e.g.
#: MATH-L5 5 % 0.064 against 0.057). It is still fitted, reported (``score["xbench"]``, ``cv_mae``) and
#: tested (it beats p-IRT where the benchmarks measure different abilities).
XBENCH_IN_CHOICE = False
#: Whether the known-score line of a new model that lacks suite items is fitted on the reference models'
#: estimates shifted as if they lacked the same items (``FullScoreModel._known_references``). Off: on
#: ZeroEval's three benchmarks (``--joint``, known mode: the held-out models answer one benchmark's
#: suite items and bring the others' full scores; 3 seeds, 5 %) it was worse than without the known
#: scores on all three (GSM8K 0.044 against 0.036, MATH-L5 0.063 / 0.060, CRUX 0.042 / 0.039), where
#: the line on whole-suite estimates was better or equal in 8 of 9 cells at 2/5/10 % (CRUX 5 %: 0.036
#: against 0.041). On a simulated panel the shifted line gave narrower intervals at similar error
#: (width 0.28 against 0.41, coverage 0.95 against 0.975).
KNOWN_MATCH_MISSING = False
#: The methods the shift folds choose from for a new model at the edge of the reference abilities, with
#: ``fit_full_score(..., edge_estimator=True)``
#: (:mod:`benchsift.compression.extrapolation`): those of :data:`CHOSEN_FROM` and the design-based anchor
#: mean, which fits no curve on weaker models. Chosen by the mean over the shift folds (the strongest 20 % and
#: 40 % of the reference models held out together) of their mean absolute error, the cross-validation that
#: holds out the strongest build models that issue 31 asks for; the random folds still choose for the rest.
EDGE_CHOSEN_FROM = (*CHOSEN_FROM, "average", "anchor")
#: Whether the upper end of a model at the edge is at least the anchor mean's upper end (its own interval,
#: widened at the edge like every method's): the anchor mean weighs the model's own responses and fits no
#: curve on weaker models, so it is not pulled down under a shift.
EDGE_ANCHOR_UPPER = True
#: Whether the upper end of a model at the edge is at least the design-based upper end of the
#: difficulty-stratified mean of its own suite answers
#: (:func:`benchsift.compression.extrapolation.stratified_estimate`; needs the reference scores, which
#: :func:`benchsift.compression.estimate.estimate_new_models` passes). Measured in docs/ESTIMATE.md ("Stronger
#: new models"): on MMT's strongest-40 % split the shift folds' widths and the anchor mean's upper end covered
#: 0.91 / 0.62 / 0.85 of the held-out models at 2 / 5 / 10 %.
EDGE_STRATIFIED_UPPER = True
#: Whether the headline of a model at the edge whose stratified mean's lower end (mirrored from its upper
#: end) lies above every reference model's full score is the mean of the two
#: (:func:`benchsift.compression.extrapolation.stratified_blend`; the mean alone, without the lower end, cost
#: MMMU's random splits 0.86 / 0.99 / 1.09 -> 1.41 / 1.36 / 1.58 of the better peer, docs/ESTIMATE.md). On a
#: suite that is a stratified random sample (``FullScoreModel.stratified``) the headline moves instead to the
#: suite's own design-unbiased stratified mean by the weight of
#: :func:`benchsift.compression.extrapolation.beyond_mix`.
EDGE_STRATIFIED_BLEND = True
#: Whether the headline of a model at the edge is raised by the strongest fold's mean underestimate, weighted
#: by how far its estimate lies above the best reference model
#: (:func:`benchsift.compression.extrapolation.shift_correction`; with at least
#: :data:`~benchsift.compression.extrapolation.SHIFT_CORRECTION_MIN_REFERENCE` reference models, on every
#: suite but a stratified random one). Measured with ``bench_estimate_peers.py`` (docs/ESTIMATE.md, "The
#: strongest fold's underestimate"; 3 strongest-40 % and 10 random 60 / 40 splits): on the strongest split
#: MMT 0.0485 / 0.0342 / 0.0229 -> 0.0435 / 0.0292 / 0.0201 at 2 / 5 / 10 %, AI2D 0.0268 / 0.0180 / 0.0158
#: -> 0.0253 / 0.0180 / 0.0128, MMMU 0.0693 / 0.0425 / 0.0369 -> 0.0653 / 0.0442 / 0.0336 (the one cell
#: worse); the random splits within 0.0001; the LLM panels (under 50 reference models) not touched.
EDGE_SHIFT_CORRECTION = True
#: Ridge penalties tried for the ``ridge`` estimator (chosen per group by cross-validated absolute error).
_RIDGE_PENALTIES = (1.0, 3.0, 10.0, 30.0, 100.0, 300.0, 1000.0)
#: Whether the stack's weights are chosen on the strongest fold's error too (else on the random folds only,
#: as tinyBenchmarks chooses its gp-IRT mix; the strongest fold still judges the stack in the method choice).
STACK_WEIGHTS_USE_STRONGEST = False
#: sd of the log-normal slope prior of the 2PL (TwoPL's default is 0.5; on MMMU at 2-10 % of the items,
#: 1.0 gave a 3-10 % lower p-IRT error, benchmarks/bench_estimate.py).
IRT_PRIOR_A_SD = 1.0
#: The 2PL's slope prior: ``"normal"`` (``a ~ N(c_a, IRT_PRIOR_A_SD^2)``, a slope may be near zero or
#: negative, steep slopes shrunk harder) or ``"lognormal"`` (slopes kept positive, a long right tail; before
#: issue 31's estimator round). Measured in the module docstring.
IRT_A_PRIOR: Literal["normal", "lognormal"] = "normal"
#: Share of the reference models (the strongest by full overall score) held out together in the extra
#: "strongest" fold, which mimics new models stronger than every build model.
STRONG_SHARE = 0.2
#: Ability-binned (Mondrian) half-widths: the reference models are cut into bins of their suite ability,
#: each of at least ``ABILITY_BIN_MODELS`` models (and at least the ``level / (1 - level)`` a conformal
#: quantile at the level needs: 19 at 95 %), at most ``ABILITY_BINS`` of them, and a new model's half-width
#: is the conformal quantile of its own bin's out-of-fold residuals (conformal prediction conditional on a
#: taxonomy, Vovk et al. 2005, "Algorithmic Learning in a Random World", sec. 4.5: valid within each bin).
#: ``"bin"``: the bin's half-width; ``"max"``: the larger of it and the pooled one; None: the pooled
#: half-width for every model (as before). A suite of hard items says little about a model that answers it
#: near chance (AI2D, 5 % VAW suite, 149 build models: suite means of 0.23-0.25 belonged to models of full
#: scores 0.16 to 0.61), so one pooled width covered the weakest third of held-out models far less often
#: than the rest. Measured (docs/ESTIMATE.md, "Intervals by ability bins"; AI2D, MMMU, MMT, 5 % suites of the
#: VAW and the estimate selector, 5 random 60 / 40 splits, 95 %): coverage of the weakest third 0.896 ->
#: 0.951 (middle 0.992 -> 0.987, strongest 0.997 -> 0.997), mean width 0.240 -> 0.257; bins of 34 or 50
#: models 0.938 / 0.928, "max" with bins of 25 0.962 at width 0.275.
ABILITY_BINS_MODE: Literal["max", "bin"] | None = "bin"
ABILITY_BIN_MODELS = 25
ABILITY_BINS = 5


def _average(estimates: dict[str, np.ndarray]) -> np.ndarray:
    """``average``: the equal-weight mean of the :data:`AVERAGE_OF` estimates (the one definition, for new
    models and for the out-of-fold predictions its interval comes from)."""
    return np.mean([estimates[m] for m in AVERAGE_OF], axis=0)


def _mean_abs(x: np.ndarray) -> float:
    """Mean of ``|x|`` over its finite entries; NaN (no warning) when there are none."""
    return float(nan_mean(np.abs(np.asarray(x, dtype=np.float64))))


def _ols(s: np.ndarray, y: np.ndarray) -> tuple[float, float]:
    """``(alpha, beta)`` of ``y = alpha + beta s`` by least squares over the rows where both are finite;
    a constant suite mean gives ``beta = 0`` (the mean of ``y``)."""
    ok = np.isfinite(s) & np.isfinite(y)
    if ok.sum() == 0:
        return math.nan, math.nan
    s, y = s[ok], y[ok]
    var = float(np.var(s))
    if ok.sum() < 2 or var <= 1e-12:
        return float(np.mean(y)), 0.0
    beta = float(np.mean((s - s.mean()) * (y - y.mean())) / var)
    return float(y.mean() - beta * s.mean()), beta


def _conformal_halfwidth(residuals: np.ndarray, level: float) -> float:
    """The split-conformal quantile of the finite ``|residual|``
    (:func:`~benchsift.stats.conformal.conformal_quantile`: the ``ceil((n + 1) level)``-th smallest); ``inf``
    when that exceeds n."""
    return conformal_quantile(np.abs(residuals), level)


def _ridge_features(X: np.ndarray, theta: np.ndarray, a: np.ndarray, d: np.ndarray) -> np.ndarray:
    """Suite responses with each missing one replaced by its 2PL probability at the model's ability."""
    p = 1.0 / (1.0 + np.exp(-(np.outer(np.nan_to_num(theta), a) + d[None, :])))
    return np.where(np.isnan(X), p, X)


def _ridge_paths(
    F: np.ndarray, T: np.ndarray, penalties: tuple[float, ...]
) -> tuple[np.ndarray, np.ndarray, list[np.ndarray]]:
    """Ridge regressions of every column of ``T`` on ``F`` (intercept unpenalised) for each penalty:
    ``(feature means, target means, [coef (n_targets, n_features) per penalty])``, by one SVD of the
    centred features (Hastie et al. 2009, Eq. 3.47). Missing targets count as 0 (no correction)."""
    mu = F.mean(axis=0)
    T = np.nan_to_num(T)
    tm = T.mean(axis=0)
    U, S, Vt = np.linalg.svd(F - mu, full_matrices=False)
    UT = U.T @ (T - tm)  # (k, n_targets)
    coefs = [((Vt.T * (S / (S**2 + lam))) @ UT).T for lam in penalties]
    return mu, tm, coefs


def _widths_out(widths: dict[str, np.ndarray]) -> dict[str, list[float | None]]:
    """Half-widths per method as JSON lists (a non-finite width is ``None``; ``from_dict`` reads it back)."""
    return {k: [None if not np.isfinite(x) else float(x) for x in v] for k, v in widths.items()}


def _nan_lists(a: np.ndarray) -> list[list[float | None]]:
    """A 2-D array as JSON lists (NaN as ``None``)."""
    return [[None if not np.isfinite(x) else float(x) for x in row] for row in a]


def _per_method(v: object, n: int, missing: float = math.nan) -> dict[str, np.ndarray] | None:
    """Read back a per-method dict of ``n`` numbers each (``None`` as ``missing``), checked (ValueError)."""
    if v is None:
        return None
    out = {}
    for k, row in _object(v, "per-method lists").items():
        if not isinstance(row, list) or len(row) != n:
            raise ValueError(f"{k!r}: expected a list of {n} numbers")
        out[str(k)] = np.array([missing if x is None else x for x in row], dtype=np.float64)
    return out


def _object(v: object, what: str) -> dict[str, Any]:
    """``v`` if it is a JSON object, else ``ValueError`` (a forged file's list or number, read back)."""
    if not isinstance(v, dict):
        raise ValueError(f"expected an object of {what}, got {type(v).__name__}")
    return v


def _nan_array(v: list[list[float | None]] | None) -> np.ndarray | None:
    """Read back :func:`_nan_lists` (``None`` as NaN)."""
    if v is None:
        return None
    return np.array([[math.nan if x is None else x for x in row] for row in v], dtype=np.float64)


def _largest(values: list[float]) -> float:
    """The largest finite value, NaN (no warning) when there is none."""
    finite = [v for v in values if np.isfinite(v)]
    return max(finite) if finite else math.nan


def small_reference_warning(n_reference: int, level: float) -> str | None:
    """The warning that the intervals are not split-conformal at ``level`` (too few reference models for
    its quantile, :func:`_bounded_halfwidth`), or None. ``level`` must lie in (0, 1) (``InputError``: at 1
    or above no number of models is enough, and the search for it would not end)."""
    if not 0.0 < level < 1.0:  # (also NaN)
        raise InputError(f"level: expected a coverage between 0 and 1, got {level!r}")
    if conformal_rank(n_reference, level) <= n_reference:
        return None
    need = max(n_reference + 1, math.floor(level / (1 - level)) - 2)  # a few steps below the least n
    while conformal_rank(need, level) > need:
        need += 1
    got = n_reference / (n_reference + 1)  # (rounded down: a guarantee)
    return (
        f"the {level:.0%} intervals rest on {n_reference} reference models, fewer than the {need} a "
        f"split-conformal interval at that level needs: each is the largest out-of-fold error widened by "
        f"{n_reference + 1}/{n_reference}, guaranteed to cover only {math.floor(got * 1000) / 10:.1f}% of "
        "new models like the reference ones"
    )


def _bounded_halfwidth(residuals: np.ndarray, level: float) -> float:
    """The conformal quantile of the absolute residuals (:func:`_conformal_halfwidth`), or, with too few of
    them for that level (``n < level / (1 - level)``: fewer than 19 at 95 %), their largest absolute value
    times ``(n + 1) / n``: the largest alone is the split-conformal interval at level ``n / (n + 1)`` (94.4 %
    with 17), the factor widens it towards the level asked (a heuristic, said in a warning where it is
    used). Infinite only without any finite residual."""
    r = np.abs(residuals[np.isfinite(residuals)])
    if r.size == 0:
        return math.inf
    hw = _conformal_halfwidth(r, level)
    return hw if np.isfinite(hw) else float(r.max()) * (r.size + 1) / r.size


@dataclass(frozen=True)
class _Groups:
    """Benchmark and category groups of the pool: names, kinds and item positions (pool and suite)."""

    names: list[str]
    kinds: list[str]
    pool_items: list[np.ndarray]
    suite_cols: list[np.ndarray]  # positions within the suite's columns
    n_benchmarks: int


def _groups(panel: Panel, suite_pos: np.ndarray) -> _Groups:
    items = panel.items
    in_suite = np.full(panel.n_items, -1, dtype=np.int64)
    in_suite[suite_pos] = np.arange(suite_pos.shape[0])
    names: list[str] = []
    kinds: list[str] = []
    pool: list[np.ndarray] = []
    cols: list[np.ndarray] = []
    for b, idx in zip(panel.benchmarks, panel.benchmark_positions(), strict=True):
        names.append(str(b))
        kinds.append("benchmark")
        pool.append(idx)
        cols.append(in_suite[idx][in_suite[idx] >= 0])
    n_bench = len(names)
    if "category" in items.columns:
        cat = items["category"].to_numpy(dtype=object)
        by_bench = {n: p for n, p in zip(names, pool, strict=True)}
        for c in panel.categories:
            idx = np.flatnonzero(cat == c)
            if str(c) in by_bench and np.array_equal(by_bench[str(c)], idx):
                continue  # a category that is its benchmark (no categories in the input): reported once
            names.append(str(c))
            kinds.append("category")
            pool.append(idx)
            cols.append(in_suite[idx][in_suite[idx] >= 0])
    return _Groups(names, kinds, pool, cols, n_bench)


@dataclass(frozen=True, repr=False)
class FullScoreEstimates(Result):
    """Full-pool score estimates of new models (rows in ``models`` order, columns in ``groups`` order).

    ``score[method]``, ``low[method]``, ``high[method]`` are ``(n_models, n_groups)`` arrays; the last group
    is ``overall``. ``suite_mean`` is the mean over the group's suite items (not a benchmark score); on
    ``overall`` the mean of the benchmarks' suite means, each benchmark weighing alike as in the overall
    score it stands beside (not :attr:`EstimateResult.overall <benchsift.compression.EstimateResult>`, the
    suite's own overall score, where each category weighs alike).
    """

    models: list[str]
    groups: list[str]
    kinds: list[str]
    method: str
    level: float
    score: dict[str, np.ndarray]
    low: dict[str, np.ndarray]
    high: dict[str, np.ndarray]
    suite_mean: np.ndarray
    theta: np.ndarray
    rank: np.ndarray
    rank_interval: np.ndarray  # (n_models, 2)
    n_reference: int
    notes: list[str] = field(default_factory=list)
    extrapolating: np.ndarray | None = None  # (n_models,) bool: ability outside the reference models'
    warnings: list[str] = field(default_factory=list)
    at_edge: np.ndarray | None = None  # (n_models,) bool: as able as the strongest fold: upper end widened
    below_edge: np.ndarray | None = None  # (n_models,) bool: as weak as the weak fold: lower end widened
    #: Per model, the estimator behind the headline ``score[method]``: ``method``, or for a model at the edge
    #: the one the shift folds chose (``edge_method``), or p-IRT beyond the reference models for ridge/stack.
    estimator: list[str] | None = None
    edge_method: str | None = None

    def benchmark_scores(self, benchmarks: Sequence[str], method: str | None = None) -> np.ndarray:
        """``(n_models, len(benchmarks))`` the estimates of ``method`` (default: the chosen one) of these
        benchmarks, in this order; NaN for a benchmark without a column here."""
        cols = {
            g: c for c, (g, k) in enumerate(zip(self.groups, self.kinds, strict=True)) if k == "benchmark"
        }
        score = self.score[method or self.method]
        nan = np.full(score.shape[0], np.nan)
        return np.column_stack([score[:, cols[str(b)]] if str(b) in cols else nan for b in benchmarks])

    def to_dict(self, method: str | None = None) -> dict[str, Any]:
        """JSON-ready: ``{"method", "level", "n_reference", "models": [{"model", "estimates": {BENCHMARK:
        {"score", "interval", "suite_mean"}}, "categories": {CATEGORY: {...}}, "overall": {...}, "rank",
        "rank_interval", "theta"}]}`` for ``method`` (default: the chosen one)."""
        m = method or self.method

        def entry(j: int, c: int) -> dict[str, Any]:
            return {
                "score": self.score[m][j, c],
                "interval": [self.low[m][j, c], self.high[m][j, c]],
                "suite_mean": self.suite_mean[j, c],
            }

        out = []
        for j, name in enumerate(self.models):
            kinds = list(zip(self.groups, self.kinds, strict=True))
            out.append(
                {
                    "model": name,
                    "estimates": {g: entry(j, c) for c, (g, k) in enumerate(kinds) if k == "benchmark"},
                    "categories": {g: entry(j, c) for c, (g, k) in enumerate(kinds) if k == "category"},
                    "overall": entry(j, len(self.groups) - 1),
                    "rank": self.rank[j],
                    "rank_interval": [self.rank_interval[j, 0], self.rank_interval[j, 1]],
                    "theta": self.theta[j],
                    "extrapolating": bool(self.extrapolating[j]) if self.extrapolating is not None else False,
                    "at_edge": bool(self.at_edge[j]) if self.at_edge is not None else False,
                    "below_edge": bool(self.below_edge[j]) if self.below_edge is not None else False,
                    "estimator": self.estimator[j] if self.estimator is not None else m,
                }
            )
        doc = {
            "method": m,
            "edge_method": self.edge_method,
            "level": self.level,
            "n_reference": self.n_reference,
            "models": out,
            "warnings": list(self.warnings),
        }
        return to_jsonable(doc)  # numpy floats to floats, NaN and inf to None

    def to_frame(self) -> pd.DataFrame:
        """One row per (model, group): the estimate of :attr:`method`, its interval and the suite mean."""
        m = self.method
        rows = [
            {
                "model": name,
                "group": g,
                "kind": self.kinds[c],
                "score": self.score[m][j, c],
                "low": self.low[m][j, c],
                "high": self.high[m][j, c],
                "suite_mean": self.suite_mean[j, c],
            }
            for j, name in enumerate(self.models)
            for c, g in enumerate(self.groups)
        ]
        return pd.DataFrame(rows)


@dataclass(repr=False)
class FullScoreModel(Result):
    """A fitted full-score estimator (see the module docstring); :meth:`to_dict` / :meth:`from_dict` store it.

    Attributes hold, per group (benchmarks, then categories): pool item parameters of the 2PL, regression
    lines, gp-IRT weights, the conformal half-width of each method, the out-of-fold mean absolute error of
    each method, and the reference models' full scores (for ranks).
    """

    groups: list[str]
    kinds: list[str]
    n_benchmarks: int
    suite_cols: list[np.ndarray]
    pool_sizes: np.ndarray
    a_suite: np.ndarray
    d_suite: np.ndarray
    a_rest: list[np.ndarray]  # per group: slopes of the group's items outside the suite
    d_rest: list[np.ndarray]
    alpha: np.ndarray
    beta: np.ndarray
    gp_weight: np.ndarray
    halfwidth: dict[str, np.ndarray]  # per method: (n_groups + 1,) incl. overall
    cv_mae: dict[str, np.ndarray]  # per method: (n_groups + 1,)
    reference_overall: np.ndarray
    method: str
    level: float
    n_folds: int
    n_reference: int
    ridge_mean: np.ndarray | None = None  # (n_suite,) feature centres
    ridge_coef: np.ndarray | None = None  # (n_groups, n_suite)
    ridge_intercept: np.ndarray | None = None  # (n_groups,)
    ridge_penalty: np.ndarray | None = None  # (n_groups,)
    halfwidth_strong: dict[str, np.ndarray] | None = None  # per method: widths from the strongest fold
    cv_mae_strong: dict[str, np.ndarray] | None = None
    theta_range: tuple[float, float] = (-math.inf, math.inf)  # reference abilities on the suite
    theta_strong: float = math.inf  # lowest suite ability of the strongest fold's models
    # upper half-widths of models at the edge and where the edge starts (benchsift.compression.extrapolation)
    halfwidth_up: dict[str, np.ndarray] | None = None
    theta_edge: float = math.inf
    anchor_weight: list[np.ndarray] | None = None  # per group: weight of each suite item (anchor estimate)
    # (n_groups, 4): weights of anchor, ridge, p-IRT and factor in the stack ((n_groups, 3) in a file written
    # before the factor estimator: read back with a factor weight of 0)
    stack_weight: np.ndarray | None = None
    pirt_line: np.ndarray | None = None  # (n_groups, 2): alpha, beta of the calibrated p-IRT
    # the estimator of models at the edge, chosen on the shift folds (None: `method` for every model, as in
    # a file written before it existed), and each method's mean over the shift folds of their MAE
    edge_method: str | None = None
    cv_mae_shift: dict[str, np.ndarray] | None = None
    # the headline of models inside the reference abilities (INSIDE_METHOD; None: `method`, as in a file
    # written before it existed)
    inside_method: str | None = None
    # xbench's ridge state: mean, scale, coef (n_groups, 2 B), intercept, penalty (n_groups,)
    xbench: dict[str, np.ndarray] | None = None
    # reference models' full scores and the chosen method's out-of-fold estimates (n_ref, n_groups + 1):
    # the known-score adjustment (benchsift.compression.full_score_xbench.adjust_known) is fitted on them
    reference_full: np.ndarray | None = None
    reference_oof: np.ndarray | None = None
    # the factor estimator's state (None: fewer than FACTOR_MIN_REFERENCE reference models, or a file written
    # before it existed; ``factor`` is then p-IRT)
    factor: FactorState | None = None
    #: the suite is a stratified random sample (``fit_full_score(stratified=True)``): the stratified mean is
    #: design-unbiased for any model, and an edge model's headline moves to it by :func:`beyond_mix`
    stratified: bool = False
    #: per method ``(n_groups + 1,)``: the mean of truth minus estimate over the strongest fold's models, by
    #: which an edge model's headline is raised
    #: (:func:`~benchsift.compression.extrapolation.shift_correction`; None in a file written before it
    #: existed: nothing raised)
    underestimate_strong: dict[str, np.ndarray] | None = None
    #: inner edges of the reference models' suite-ability bins (increasing; ``ABILITY_BINS_MODE``) and per
    #: bin the per-method half-widths from that bin's out-of-fold residuals (None: no bins, the pooled
    #: ``halfwidth`` for every model, as in a file written before they existed)
    theta_bins: np.ndarray | None = None
    halfwidth_bins: list[dict[str, np.ndarray]] | None = None
    #: per method ``(n_groups + 1,)``: the half-width from the weak fold (the weakest ``WEAK_SHARE`` of the
    #: reference models held out together), and the highest suite ability among that fold's models: a model
    #: as weak as that (``below_edge``) gets the larger of it and its own for its interval's lower end
    #: (None / -inf in a file written before it existed: no lower edge)
    halfwidth_weak: dict[str, np.ndarray] | None = None
    theta_weak: float = -math.inf

    def _binned_halfwidth(self, m: str, theta: np.ndarray, shape: tuple[int, int]) -> np.ndarray:
        """``(n, n_groups + 1)`` half-widths of method ``m`` for models of suite ability ``theta``: the
        pooled ``halfwidth``, or with ability bins the bin's (``"bin"``) or the larger of the two
        (``"max"``; :data:`ABILITY_BINS_MODE`). A model without an ability gets the pooled one."""
        pooled = np.broadcast_to(self.halfwidth[m][None, :], shape)
        if self.theta_bins is None or self.halfwidth_bins is None or ABILITY_BINS_MODE is None:
            return pooled
        per_bin = np.stack([b[m] for b in self.halfwidth_bins])  # (n_bins, n_groups + 1)
        which = np.searchsorted(self.theta_bins, np.nan_to_num(theta, nan=0.0), side="right")
        local = np.where(np.isfinite(theta)[:, None], per_bin[which], pooled)
        return np.maximum(pooled, local) if ABILITY_BINS_MODE == "max" else local

    def _lower_edge_halfwidth(
        self, m: str, hw: np.ndarray, theta: np.ndarray, below: np.ndarray
    ) -> np.ndarray:
        """The lower half-widths ``(n, n_groups + 1)`` of method ``m``: for a model at the lower edge
        (``below``: as weak on the suite as the weak fold's models) the larger of its own and the weak
        fold's, the latter grown below the weakest reference model with the distance in units of the span
        of the weak fold's abilities (at least 0.25), as the strongest fold's is above the strongest; the
        others' unchanged. A model weaker than every reference model answers the suite like the weakest of
        them, and its estimate is then too high (docs/ESTIMATE.md, "Models weaker than the build models")."""
        weak = None if self.halfwidth_weak is None else self.halfwidth_weak.get(m)
        if weak is None or not below.any():
            return hw
        lo_t = self.theta_range[0]
        span = max(self.theta_weak - lo_t, 0.25) if np.isfinite(self.theta_weak + lo_t) else 1.0
        far = np.nan_to_num(np.where(theta < lo_t, (lo_t - theta) / span, 0.0))
        return np.where(below[:, None], np.maximum(hw, weak[None, :] * (1.0 + far[:, None])), hw)

    def selection_error(self, method: str | None = None) -> float:
        """The criterion the headline was chosen by, for ``method`` (default: the headline): the random
        folds' plus the strongest fold's out-of-fold mean absolute error, averaged over the benchmarks every
        method estimates (``overall`` when there is none). ``compress --selector estimate`` compares suite
        designs by it (:data:`benchsift.compression.pipeline.ESTIMATE_DESIGNS`). NaN without the strongest
        fold's errors (a file written before they were stored)."""
        m = self.method if method is None else method
        if self.cv_mae_strong is None:
            return math.nan
        cols = _choice_columns(self.cv_mae, self.n_benchmarks)
        return _selection_error(self.cv_mae, self.cv_mae_strong, m, cols)

    def reference_losses(self) -> np.ndarray:
        """Each reference model's out-of-fold absolute error of the headline on the random folds, averaged
        over the benchmarks (``overall`` without any): the paired losses ``compress`` compares suite designs
        by (:func:`one_se_choice`). NaN where the out-of-fold estimates were not stored."""
        if self.reference_oof is None or self.reference_full is None:
            return np.full(self.n_reference, np.nan)
        cols = slice(0, self.n_benchmarks) if self.n_benchmarks > 0 else slice(-1, None)
        return _row_means(np.abs(self.reference_oof[:, cols] - self.reference_full[:, cols]))

    # ------------------------------------------------------------------ prediction
    def _predict_all(self, X_suite: np.ndarray) -> tuple[dict[str, np.ndarray], np.ndarray, np.ndarray]:
        """Per-method ``(n, n_groups)`` estimates, suite means ``(n, n_groups)`` and abilities ``(n,)``."""
        X = np.asarray(X_suite, dtype=np.float64)
        n = X.shape[0]
        ng = len(self.groups)
        suite = group_nan_means(X, self.suite_cols)
        theta = TwoPL.from_parameters(self.a_suite, self.d_suite).score(X).theta
        reg = self.alpha[None, :] + self.beta[None, :] * suite
        pirt = np.empty((n, ng))
        rest_mean = np.full((n, ng), np.nan)  # the 2PL's mean over each group's items off the suite
        for g in range(ng):
            rest = self.a_rest[g]
            lam = self.suite_cols[g].shape[0] / float(self.pool_sizes[g])
            if rest.size == 0:
                pirt[:, g] = suite[:, g]
                continue
            p = 1.0 / (1.0 + np.exp(-(np.outer(theta, rest) + self.d_rest[g][None, :])))
            irt_part = rest_mean[:, g] = p.mean(axis=1)
            pirt[:, g] = irt_part if lam == 0 else lam * suite[:, g] + (1 - lam) * irt_part
            # a model with no observed suite item of the group: p-IRT rests on theta alone
            pirt[:, g] = np.where(np.isnan(suite[:, g]), irt_part, pirt[:, g])
        reg = np.where(np.isnan(reg), pirt, reg)  # no suite item of the group: fall back on p-IRT
        gp = self.gp_weight[None, :] * reg + (1 - self.gp_weight[None, :]) * pirt
        ridge = pirt.copy()
        if self.ridge_coef is not None and self.ridge_mean is not None and self.ridge_intercept is not None:
            F = _ridge_features(X, theta, self.a_suite, self.d_suite) - self.ridge_mean[None, :]
            ridge = pirt + self.ridge_intercept[None, :] + F @ self.ridge_coef.T
        anchor = pirt.copy()
        if self.anchor_weight is not None:
            anchor = anchor_means(X, self.suite_cols, self.anchor_weight)
            anchor = np.where(np.isnan(anchor), pirt, anchor)  # no suite item of the group: p-IRT
        factor = pirt.copy()
        if self.factor is not None:
            factor = factor_estimates(X, self.factor, self.suite_cols, self.pool_sizes)
            factor = np.where(np.isnan(suite), pirt, factor)  # no suite item of the group: p-IRT
        greg = pirt.copy()
        if self.anchor_weight is not None:
            # the 2PL's expected pool mean plus the anchor-weighted mean of the suite residuals
            p_suite = expit(np.outer(theta, self.a_suite) + self.d_suite[None, :])
            resid = anchor_means(X - p_suite, self.suite_cols, self.anchor_weight)
            for g in range(ng):
                cols = self.suite_cols[g]
                if cols.size == 0 or self.a_rest[g].size == 0:
                    continue
                lam = cols.shape[0] / float(self.pool_sizes[g])
                expected = lam * p_suite[:, cols].mean(axis=1) + (1 - lam) * rest_mean[:, g]
                greg[:, g] = np.where(np.isnan(resid[:, g]), pirt[:, g], expected + resid[:, g])
        stack = pirt.copy()
        if self.stack_weight is not None:
            w = self.stack_weight
            parts = {"anchor": anchor, "ridge": ridge, "pirt": pirt, "factor": factor, "greg": greg}
            # in STACK_COMPONENTS' order, as the weights were chosen (an older file's missing weights are 0)
            stack = w[None, :, 0] * parts[STACK_COMPONENTS[0]]
            for k in range(1, w.shape[1]):
                stack = stack + w[None, :, k] * parts[STACK_COMPONENTS[k]]
        xb = pirt.copy()
        if self.xbench is not None:
            nb = self.n_benchmarks
            B = bench_features(X, theta, self.a_suite, self.d_suite, self.suite_cols[:nb])
            Z = (B[:, None, :] - self.xbench["mean"][None]) / self.xbench["scale"][None]
            xb = pirt + self.xbench["intercept"][None, :] + np.einsum("ntf,tf->nt", Z, self.xbench["coef"])
        cal = pirt.copy()
        if self.pirt_line is not None:
            cal = self.pirt_line[None, :, 0] + self.pirt_line[None, :, 1] * pirt
            cal = np.where(np.isnan(cal), pirt, cal)
        est = {
            "pirt_cal": cal,
            "suite_mean": suite,
            "regression": reg,
            "pirt": pirt,
            "gpirt": gp,
            "ridge": ridge,
            "anchor": anchor,
            "factor": factor,
            "stack": stack,
            "xbench": xb,
            "greg": greg,
        }
        est["average"] = _average(est)
        return est, suite, theta

    def _with_overall(self, a: np.ndarray) -> np.ndarray:
        """Append the overall column: the mean over the benchmark columns (NaN-aware)."""
        nb = self.n_benchmarks
        return np.column_stack([a, nan_mean(a[:, :nb], axis=1)])

    def _missing_widths(self, X: np.ndarray, reference: np.ndarray) -> dict[str, np.ndarray]:
        """Per method ``(n, n_groups + 1)``: for each new model, the conformal quantile over the reference
        models of ``|estimate from their suite responses masked to the items the new model lacks - estimate
        from all of them|``; 0 for a model with every suite item the references have."""
        R = np.atleast_2d(np.asarray(reference, dtype=np.float64))
        if R.shape[1] != X.shape[1]:
            raise InputError(f"reference scores: {R.shape[1]} suite columns, expected {X.shape[1]}")
        full = {m: self._with_overall(v) for m, v in self._predict_all(R)[0].items()}
        out = {m: np.zeros((X.shape[0], len(self.groups) + 1)) for m in METHODS}
        answered = np.asarray(~np.isnan(R).all(axis=0), dtype=bool)
        lacks = np.isnan(X) & answered[None, :]
        patterns, inverse = np.unique(lacks, axis=0, return_inverse=True)
        for p, lack in enumerate(patterns):
            if not lack.any():
                continue
            est = self._predict_all(np.where(lack, np.nan, R))[0]
            rows = np.flatnonzero(inverse.ravel() == p)
            for m in METHODS:
                gap = self._with_overall(est[m]) - full[m]
                out[m][rows] = [_bounded_halfwidth(gap[:, g], self.level) for g in range(gap.shape[1])]
        return out

    def _known_references(
        self, X: np.ndarray, reference: np.ndarray | None, method: str
    ) -> list[tuple[np.ndarray, np.ndarray]]:
        """Rows of the new models by the suite items they lack, each with the reference models' out-of-fold
        estimates as if they lacked the same items: ``reference_oof`` plus the in-sample shift that masking
        those items causes (``estimate(masked) - estimate(all)`` on the reference scores), so the known-score
        line is fitted on estimates as informed as the new model's. Without ``reference``: one group."""
        assert self.reference_oof is not None
        every = np.arange(X.shape[0])
        if reference is None or not KNOWN_MATCH_MISSING:
            return [(every, self.reference_oof)]
        R = np.atleast_2d(np.asarray(reference, dtype=np.float64))
        answered = np.asarray(~np.isnan(R).all(axis=0), dtype=bool)
        lacks = np.isnan(X) & answered[None, :]
        patterns, inverse = np.unique(lacks, axis=0, return_inverse=True)
        whole = self._with_overall(self._predict_all(R)[0][method])
        out = []
        for p, lack in enumerate(patterns):
            rows = np.flatnonzero(inverse.ravel() == p)
            if not lack.any():
                out.append((rows, self.reference_oof))
                continue
            masked = self._with_overall(self._predict_all(np.where(lack, np.nan, R))[0][method])
            out.append((rows, np.clip(self.reference_oof + masked - whole, 0.0, 1.0)))
        return out

    def _apply_known(
        self,
        X: np.ndarray,
        reference: np.ndarray | None,
        known: dict[str, np.ndarray],
        score: np.ndarray,
        low: np.ndarray,
        high: np.ndarray,
    ) -> list[str]:
        """Adjust the headline ``score``, ``low`` and ``high`` ``(n, n_groups + 1)`` in place by the new
        models' ``known`` full scores (:func:`benchsift.compression.full_score_xbench.adjust_known`, fitted
        on the reference models' full scores and out-of-fold estimates); returns its notes."""
        if self.reference_full is None or self.reference_oof is None:
            raise InputError(
                "known full scores: this suite's full-score model was written before they could be used; "
                "re-run compress"
            )
        notes: list[str] = []
        for rows, ref_oof in self._known_references(X, reference, self.method):
            sub = {k: np.asarray(v, dtype=np.float64)[rows] for k, v in known.items()}
            got = adjust_known(
                self.groups,
                self.n_benchmarks,
                self.reference_full,
                ref_oof,
                self.level,
                score[rows],
                low[rows],
                high[rows],
                sub,
            )
            score[rows], low[rows], high[rows] = got[0], got[1], got[2]
            notes.extend(n for n in got[3] if n not in notes)
        return notes

    def _intervals(
        self,
        raw: dict[str, np.ndarray],
        theta: np.ndarray,
        extra: dict[str, np.ndarray] | None,
        below: np.ndarray,
    ) -> tuple[dict[str, np.ndarray], dict[str, np.ndarray], dict[str, np.ndarray], np.ndarray, np.ndarray]:
        """Every method's estimates and interval ends ``(n, n_groups + 1)`` from its raw estimates: the
        binned half-width, the strongest fold's beyond the reference abilities and at their top, the edge's
        upper end, the weak fold's lower end (``below``) and the spread of missing suite items
        (``extra``); with ``at_edge`` and ``outside`` (the abilities beyond the reference models')."""
        score: dict[str, np.ndarray] = {}
        low: dict[str, np.ndarray] = {}
        high: dict[str, np.ndarray] = {}
        lo_t, hi_t = self.theta_range
        # (a tolerance far below an ability's standard error: EAP grids differ a little between calls)
        outside = np.isfinite(theta) & ((theta > hi_t + _THETA_TOL) | (theta < lo_t - _THETA_TOL))
        # as strong as the strongest fold's models (or beyond either end): the strongest fold's widths
        edge = outside | (np.isfinite(theta) & (theta >= self.theta_strong))
        # the span of the strongest fold's abilities: the unit of "how far beyond" (at least 0.25)
        span = max(hi_t - self.theta_strong, 0.25) if np.isfinite(self.theta_strong + hi_t) else 1.0
        at_edge = np.zeros(theta.shape[0], dtype=bool)
        for m in METHODS:
            s = np.clip(self._with_overall(raw[m]), 0.0, 1.0)
            hw = self._binned_halfwidth(m, theta, s.shape)
            if self.halfwidth_strong is not None and edge.any():
                wide = np.maximum(hw, self.halfwidth_strong[m][None, :])
                # beyond the strongest reference model: grown with the distance, in units of the span of
                # the strongest fold's abilities (the range its errors were measured over)
                far = np.where(theta > hi_t, (theta - hi_t) / span, 0.0)
                far = np.where(theta < lo_t, (lo_t - theta) / span, far)
                hw = np.where(edge[:, None], wide * (1.0 + np.nan_to_num(far)[:, None]), hw)
            hw_hi = hw
            if self.halfwidth_up is not None:  # a stronger release looks like the edge models: upper end
                hw_hi, at_edge = edge_upper_halfwidth(
                    hw, self.halfwidth_up[m], theta, self.theta_edge, hi_t, span
                )
            hw = self._lower_edge_halfwidth(m, hw, theta, below)
            if extra is not None:
                hw = np.where(extra[m] > 0, np.hypot(hw, extra[m]), hw)
                hw_hi = np.where(extra[m] > 0, np.hypot(hw_hi, extra[m]), hw_hi)
            score[m] = s
            low[m] = np.clip(s - hw, 0.0, 1.0)
            high[m] = np.clip(s + hw_hi, 0.0, 1.0)
        return score, low, high, at_edge, outside

    def predict(
        self,
        X_suite: np.ndarray,
        models: list[str] | None = None,
        reference: np.ndarray | None = None,
        known: dict[str, np.ndarray] | None = None,
    ) -> FullScoreEstimates:
        """Estimates for new models from their scores on the suite items (``(n, n_suite)``, NaN = not run).

        ``reference``: the reference models' scores on the suite items (the suite's ``reference_scores``).
        The conformal half-widths hold for a model run on every suite item, as the reference models were;
        with ``reference`` given, the interval of a model that lacks suite items is widened by the spread
        that lacking them adds: the conformal quantile ``q`` over the reference models of ``|estimate from
        their responses without those items - estimate from all|``, combined as ``sqrt(hw^2 + q^2)``
        (the two errors taken as independent). Without it (or for a complete run) the half-width is ``hw``.

        ``known``: benchmark name -> ``(n,)`` the new models' known full scores on it (NaN: not known), used
        as covariates of the headline estimate of the other benchmarks
        (:func:`benchsift.compression.full_score_xbench.adjust_known`); a known benchmark's estimate is its
        known score.
        """
        X = np.atleast_2d(np.asarray(X_suite, dtype=np.float64))
        if X.shape[1] != self.a_suite.shape[0]:
            raise InputError(f"new scores: {X.shape[1]} suite columns, expected {self.a_suite.shape[0]}")
        names = models if models is not None else [f"model_{j}" for j in range(X.shape[0])]
        raw, suite, theta = self._predict_all(X)
        extra = self._missing_widths(X, reference) if reference is not None else None
        # as weak on the suite as the weak fold's models: the weak fold's widths for the lower end
        below = np.isfinite(theta) & (theta <= self.theta_weak)
        score, low, high, at_edge, outside = self._intervals(raw, theta, extra, below)
        # the stratified means of the new models' own answers and their upper ends, once for both edges
        edges = at_edge | below
        strat = self._stratified(X, reference) if reference is not None and edges.any() else None
        self._edge_upper_ends(high, at_edge, strat)
        self._edge_lower_ends(low, below, strat)
        best = self.method
        estimator = self._headline_estimators(at_edge, outside)
        for row, m in enumerate(estimator):  # the headline of a model at the edge (or beyond) is another's
            if m != best:
                for arr in (score, low, high):
                    arr[best][row] = arr[m][row]
        estimator, n_blended, raised = self._edge_headline(score, low, high, estimator, at_edge, strat)
        estimator, n_below = self._low_edge_headline(score, low, high, estimator, below, strat)
        notes = self._apply_known(X, reference, known, score[best], low[best], high[best]) if known else []
        ref = self.reference_overall
        rank = rank_among(ref, score[best][:, -1])
        rank_iv = np.column_stack([rank_among(ref, high[best][:, -1]), rank_among(ref, low[best][:, -1])])
        none = np.isnan(suite).all(axis=1)
        for j in np.flatnonzero(none):
            notes.append(f"model {names[j]!r} has no score on any suite item: its estimates are undefined")
            for m in METHODS:
                score[m][j] = low[m][j] = high[m][j] = np.nan
            theta[j] = np.nan
            rank[j] = np.nan
            rank_iv[j] = np.nan
        warns = self._outside_warnings(names, theta, outside & ~none)
        small = small_reference_warning(self.n_reference, self.level)
        if small is not None:
            warns.append(small)
        edge_note = edge_warning(
            list(names),
            at_edge & ~none,
            self.theta_edge,
            self.n_reference,
            self.edge_method,
            n_blended,
            design=self.stratified,
            n_raised=raised[0],
            largest_rise=raised[1],
        )
        if edge_note is not None:
            warns.append(edge_note)
        low_note = low_edge_warning(list(names), below & ~none, self.theta_weak, self.n_reference, n_below)
        if low_note is not None:
            warns.append(low_note)
        return FullScoreEstimates(
            models=list(names),
            groups=[*self.groups, "overall"],
            kinds=[*self.kinds, "overall"],
            method=best,
            level=self.level,
            score=score,
            low=low,
            high=high,
            suite_mean=self._with_overall(suite),
            theta=theta,
            rank=rank,
            rank_interval=rank_iv,
            n_reference=self.n_reference,
            notes=notes,
            extrapolating=outside & ~none,
            warnings=warns,
            at_edge=at_edge & ~none,
            below_edge=below & ~none,
            estimator=estimator,
            edge_method=self.edge_method,
        )

    def _edge_headline(
        self,
        score: dict[str, np.ndarray],
        low: dict[str, np.ndarray],
        high: dict[str, np.ndarray],
        estimator: list[str],
        at_edge: np.ndarray,
        strat: tuple[np.ndarray, np.ndarray] | None,
    ) -> tuple[list[str], int, tuple[int, float]]:
        """Move the headline of the models at the edge (in place) to a design-based mean as far as their own
        answers put them beyond the reference models: on a stratified random suite towards its stratified
        mean (:func:`~benchsift.compression.extrapolation.beyond_mix`, the interval widened to hold the
        estimate), else the blend with the difficulty-stratified mean
        (:func:`~benchsift.compression.extrapolation.stratified_blend`, ``EDGE_STRATIFIED_BLEND``), after
        raising it, with enough reference models, by the strongest fold's underestimate
        (:func:`~benchsift.compression.extrapolation.shift_correction`, ``EDGE_SHIFT_CORRECTION``). Returns
        the per-model estimators (``+stratified`` where it moved more than half way), their count, and how
        many were raised by more than half their underestimate with the largest rise (overall column)."""
        best = self.method
        if self.reference_full is None:
            return estimator, 0, (0, 0.0)
        raised = (0, 0.0)
        if (
            EDGE_SHIFT_CORRECTION
            and self.underestimate_strong is not None
            and not self.stratified
            and self.n_reference >= SHIFT_CORRECTION_MIN_REFERENCE
            and at_edge.any()
        ):
            # each model's own estimator's underestimate and error scale (the edge method, or p-IRT beyond
            # the reference abilities, where the headline is not ``method``'s)
            ncol = score[best].shape[1]
            nan = np.full(ncol, np.nan)
            under = np.array([self.underestimate_strong.get(e, nan) for e in estimator]).reshape(-1, ncol)
            widths = np.array([self.halfwidth.get(e, nan) for e in estimator]).reshape(-1, ncol)
            before = score[best][:, -1].copy()
            score[best], w = shift_correction(
                score[best], under, widths, at_edge, self.reference_full, self.level
            )
            low[best] = np.fmin(low[best], score[best])
            high[best] = np.fmax(high[best], score[best])
            rise = np.nan_to_num(score[best][:, -1] - before)
            raised = (int((w[:, -1] > 0.5).sum()), float(rise.max(initial=0.0)))
        if self.stratified and at_edge.any():
            # a stratified random suite: towards its design-unbiased mean, as far as the model is beyond
            score[best], beyond = beyond_mix(
                score[best],
                score["anchor"],
                self.halfwidth["anchor"],
                at_edge,
                self.reference_full,
                self.level,
            )
            low[best] = np.fmin(low[best], score[best])  # (the upper end already holds the anchor mean's)
            high[best] = np.fmax(high[best], score[best])
        elif EDGE_STRATIFIED_BLEND and strat is not None:
            score[best], beyond = stratified_blend(
                score[best], strat[0], at_edge, self.reference_full, strat[1]
            )
        else:
            return estimator, 0, raised
        moved = beyond[:, -1]
        named = [f"{e}+stratified" if b else e for e, b in zip(estimator, moved, strict=True)]
        return named, int(moved.sum()), raised

    def _edge_upper_ends(
        self,
        high: dict[str, np.ndarray],
        at_edge: np.ndarray,
        strat: tuple[np.ndarray, np.ndarray] | None,
    ) -> None:
        """Raise the upper ends ``high`` (in place) of the models at the edge to the design-based anchor
        mean's (``EDGE_ANCHOR_UPPER``) and, given ``strat`` (:meth:`_stratified`: the stratified means and
        their upper ends), the stratified mean's (``EDGE_STRATIFIED_UPPER``)."""
        if not at_edge.any():
            return
        if EDGE_ANCHOR_UPPER:  # the design-based anchor mean's upper end bounds them
            for m in METHODS:
                high[m] = np.where(at_edge[:, None], np.fmax(high[m], high["anchor"]), high[m])
        if EDGE_STRATIFIED_UPPER and strat is not None:  # and the stratified mean's design-based upper end
            for m in METHODS:
                high[m] = np.where(at_edge[:, None], np.fmax(high[m], strat[1]), high[m])

    def _edge_lower_ends(
        self, low: dict[str, np.ndarray], below: np.ndarray, strat: tuple[np.ndarray, np.ndarray] | None
    ) -> None:
        """:meth:`_edge_upper_ends` at the lower edge: lower the lower ends ``low`` (in place) of the models
        at the lower edge (``below``) to the anchor mean's and, given ``strat``, the stratified mean's (its
        lower end mirrored from its upper one)."""
        if not below.any():
            return
        for m in METHODS:
            low[m] = np.where(below[:, None], np.fmin(low[m], low["anchor"]), low[m])
        if strat is None:
            return
        st, up = strat
        st_low = np.clip(2.0 * st - up, 0.0, 1.0)
        for m in METHODS:
            low[m] = np.where(below[:, None], np.fmin(low[m], st_low), low[m])

    def _low_edge_headline(
        self,
        score: dict[str, np.ndarray],
        low: dict[str, np.ndarray],
        high: dict[str, np.ndarray],
        estimator: list[str],
        below: np.ndarray,
        strat: tuple[np.ndarray, np.ndarray] | None,
    ) -> tuple[list[str], int]:
        """The headline of the models at the lower edge whose stratified mean's upper end lies below every
        reference model: the mean of the two (:func:`~benchsift.compression.extrapolation.
        stratified_blend_below`, in place, the interval stretched to hold it); the per-model estimators
        (``+stratified`` where blended) and their count."""
        if strat is None or self.reference_full is None or not EDGE_STRATIFIED_BLEND:
            return estimator, 0
        best = self.method
        st, up = strat
        score[best], beyond = stratified_blend_below(score[best], st, up, below, self.reference_full)
        low[best] = np.fmin(low[best], score[best])
        high[best] = np.fmax(high[best], score[best])
        moved = beyond[:, -1]
        named = [
            f"{e}+stratified" if b and not e.endswith("+stratified") else e
            for e, b in zip(estimator, moved, strict=True)
        ]
        return named, int(moved.sum())

    def _stratified(self, X: np.ndarray, reference: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The difficulty-stratified mean of the new models' suite answers and its design-based upper end
        (:func:`benchsift.compression.extrapolation.stratified_estimate`), the strata from the reference
        models: their mean correctness on each suite item, and the 2PL's at their abilities on the rest."""
        R = np.atleast_2d(np.asarray(reference, dtype=np.float64))
        th = TwoPL.from_parameters(self.a_suite, self.d_suite).score(R).theta
        th = th[np.isfinite(th)]
        p_suite = [np.nan_to_num(nan_mean(R[:, c], axis=0), nan=0.5) for c in self.suite_cols]
        p_rest = [
            (1.0 / (1.0 + np.exp(-(np.outer(th, a) + d[None, :])))).mean(axis=0) if a.size else np.zeros(0)
            for a, d in zip(self.a_rest, self.d_rest, strict=True)
        ]
        return stratified_estimate(X, self.suite_cols, p_suite, p_rest, self.n_benchmarks, self.level)

    def _outside_warnings(self, names: list[str], theta: np.ndarray, outside: np.ndarray) -> list[str]:
        """One warning per model whose suite ability lies outside the reference models' range."""
        lo_t, hi_t = self.theta_range
        warns = []
        for j in np.flatnonzero(outside):
            side = "above the strongest" if theta[j] > hi_t else "below the weakest"
            warns.append(
                f"model {names[j]!r}: its ability on the suite ({theta[j]:+.2f}) lies {side} of the "
                f"{self.n_reference} reference models' ({lo_t:+.2f} to {hi_t:+.2f}): the estimate "
                "extrapolates; its interval is widened to the errors of a cross-validation fold that holds "
                "out the strongest reference models"
            )
        return warns

    def _headline_estimators(self, at_edge: np.ndarray, outside: np.ndarray) -> list[str]:
        """Per new model, the method behind its headline estimate: the edge method (chosen on the shift
        folds) at the edge, else :attr:`method`; where that is ``ridge``, ``stack`` or ``xbench`` and the
        model lies outside the reference abilities, p-IRT (the ridge corrections, alone or in the stack, are
        regressions on the reference models' responses; p-IRT extrapolates along the item response curves,
        and the calibrated p-IRT is a monotone line of it, kept). With :attr:`inside_method`, every model not
        at the edge gets it, also one below the weakest reference model: there the 2PL, which has no
        guessing floor, extrapolates below the chance score of a multiple-choice benchmark (MMT, MMMU, AI2D,
        seeds 0-2 at 2 and 10 %: 6 held-out models in 5 of the 18 cells, where p-IRT erred 0.07-0.14 on
        average and the stack 0.001-0.07 in 4 cells, the same in the fifth; docs/ESTIMATE.md, "One headline
        per situation")."""
        out = []
        for edge, beyond in zip(at_edge, outside, strict=True):
            if not edge and self.inside_method is not None:  # below the weakest reference model too
                out.append(self.inside_method)
                continue
            m = self.edge_method if edge and self.edge_method is not None else self.method
            out.append("pirt" if beyond and m in ("ridge", "stack", "xbench", "average") else m)
        return out

    def summary(self) -> dict[str, Any]:
        """What was chosen and why: the method, and each method's out-of-fold mean absolute error and
        interval half-width (overall, and mean over the benchmarks)."""
        nb = self.n_benchmarks
        doc = {
            "method": self.method,
            "level": self.level,
            "n_folds": self.n_folds,
            "n_reference": self.n_reference,
            "selected_by": (
                "lowest out-of-fold mean absolute error (reference models) over the benchmarks every method "
                "estimates, random folds plus a fold of the strongest reference models"
            ),
            "edge_method": self.edge_method,
            "inside_method": self.inside_method,
            "inside_selected_by": (
                "the stack (its weights the random folds' cross-validated best mix) for new models not at "
                "the edge of the reference abilities (also below the weakest), with enough reference models"
            ),
            "edge_selected_by": (
                "lowest mean absolute error over the shift folds (the strongest 20 % and 40 % of the "
                "reference models held out together), for new models at the edge of the reference abilities"
            ),
            "cv_mae_overall": {m: self.cv_mae[m][-1] for m in METHODS},
            "cv_mae_benchmarks": {m: _mean_abs(self.cv_mae[m][:nb]) for m in METHODS},
            "halfwidth_overall": {m: self.halfwidth[m][-1] for m in METHODS},
            "cv_mae_strongest_overall": (
                None if self.cv_mae_strong is None else {m: self.cv_mae_strong[m][-1] for m in METHODS}
            ),
            "cv_mae_shift_overall": (
                None if self.cv_mae_shift is None else {m: self.cv_mae_shift[m][-1] for m in METHODS}
            ),
            "halfwidth_strongest_overall": (
                None if self.halfwidth_strong is None else {m: self.halfwidth_strong[m][-1] for m in METHODS}
            ),
            # truth minus estimate on the strongest fold: what raises an edge model's headline
            "underestimate_strongest_overall": (
                None
                if self.underestimate_strong is None
                else {m: self.underestimate_strong[m][-1] for m in METHODS}
            ),
        }
        return to_jsonable(doc)  # NaN and inf to None

    # ------------------------------------------------------------------ storage
    def to_dict(self) -> dict[str, Any]:
        """JSON-ready state (item parameters as lists); :meth:`from_dict` reads it back."""
        return {
            "format": FORMAT,
            "groups": self.groups,
            "kinds": self.kinds,
            "n_benchmarks": self.n_benchmarks,
            "suite_cols": [c.tolist() for c in self.suite_cols],
            "pool_sizes": self.pool_sizes.tolist(),
            "a_suite": self.a_suite.tolist(),
            "d_suite": self.d_suite.tolist(),
            "a_rest": [a.tolist() for a in self.a_rest],
            "d_rest": [d.tolist() for d in self.d_rest],
            "alpha": self.alpha.tolist(),
            "beta": self.beta.tolist(),
            "gp_weight": self.gp_weight.tolist(),
            "halfwidth": _widths_out(self.halfwidth),
            "cv_mae": {k: v.tolist() for k, v in self.cv_mae.items()},
            "reference_overall": self.reference_overall.tolist(),
            "method": self.method,
            "level": self.level,
            "n_folds": self.n_folds,
            "n_reference": self.n_reference,
            "ridge_mean": None if self.ridge_mean is None else self.ridge_mean.tolist(),
            "ridge_coef": None if self.ridge_coef is None else self.ridge_coef.tolist(),
            "ridge_intercept": None if self.ridge_intercept is None else self.ridge_intercept.tolist(),
            "ridge_penalty": None if self.ridge_penalty is None else self.ridge_penalty.tolist(),
            "halfwidth_strong": None if self.halfwidth_strong is None else _widths_out(self.halfwidth_strong),
            "cv_mae_strong": (
                None if self.cv_mae_strong is None else {k: v.tolist() for k, v in self.cv_mae_strong.items()}
            ),
            "theta_range": [None if not np.isfinite(x) else float(x) for x in self.theta_range],
            "theta_strong": None if not np.isfinite(self.theta_strong) else float(self.theta_strong),
            "halfwidth_up": None if self.halfwidth_up is None else _widths_out(self.halfwidth_up),
            "theta_edge": None if not np.isfinite(self.theta_edge) else float(self.theta_edge),
            "anchor_weight": None if self.anchor_weight is None else [w.tolist() for w in self.anchor_weight],
            "stack_weight": None if self.stack_weight is None else self.stack_weight.tolist(),
            "pirt_line": None if self.pirt_line is None else self.pirt_line.tolist(),
            "edge_method": self.edge_method,
            "inside_method": self.inside_method,
            "cv_mae_shift": (
                None if self.cv_mae_shift is None else {k: v.tolist() for k, v in self.cv_mae_shift.items()}
            ),
            "xbench": None if self.xbench is None else {k: v.tolist() for k, v in self.xbench.items()},
            "reference_full": None if self.reference_full is None else _nan_lists(self.reference_full),
            "reference_oof": None if self.reference_oof is None else _nan_lists(self.reference_oof),
            "stratified": self.stratified,
            "underestimate_strong": (
                None
                if self.underestimate_strong is None
                else {k: _nan_lists(v[None, :])[0] for k, v in self.underestimate_strong.items()}
            ),
            "theta_bins": None if self.theta_bins is None else self.theta_bins.tolist(),
            "halfwidth_bins": (
                None if self.halfwidth_bins is None else [_widths_out(b) for b in self.halfwidth_bins]
            ),
            "halfwidth_weak": None if self.halfwidth_weak is None else _widths_out(self.halfwidth_weak),
            "theta_weak": None if not np.isfinite(self.theta_weak) else float(self.theta_weak),
            "factor": None
            if self.factor is None
            else {
                "samples": self.factor.samples.tolist(),
                "a_suite": self.factor.a_suite.tolist(),
                "d_suite": self.factor.d_suite.tolist(),
                "rest_sums": self.factor.rest_sums.tolist(),
            },
        }

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> FullScoreModel:
        """Read back :meth:`to_dict` (``None`` entries are NaN, or ``inf`` for a half-width)."""
        if d.get("format") != FORMAT:
            raise InputError(f"full-score model: format {d.get('format')!r}, expected {FORMAT!r}")
        arr = np.asarray
        n = len(d["groups"]) + 1  # every per-method entry: one number per group, then the overall
        halfwidth = _per_method(_object(d["halfwidth"], "per-method lists"), n, missing=math.inf) or {}
        cv_mae = _per_method(_object(d["cv_mae"], "per-method lists"), n) or {}
        for m in METHODS:  # a file written before a method existed: it is p-IRT there
            halfwidth.setdefault(m, halfwidth["pirt"])
            cv_mae.setdefault(m, cv_mae["pirt"])
        tr = d.get("theta_range") or [None, None]

        def opt(key: str, dtype: type = np.float64) -> np.ndarray | None:
            v = d.get(key)
            return None if v is None else arr(v, dtype=dtype)

        model = cls(
            groups=list(d["groups"]),
            kinds=list(d["kinds"]),
            n_benchmarks=int(d["n_benchmarks"]),
            suite_cols=[arr(c, dtype=np.int64) for c in d["suite_cols"]],
            pool_sizes=arr(d["pool_sizes"], dtype=np.int64),
            a_suite=arr(d["a_suite"], dtype=np.float64),
            d_suite=arr(d["d_suite"], dtype=np.float64),
            a_rest=[arr(a, dtype=np.float64) for a in d["a_rest"]],
            d_rest=[arr(x, dtype=np.float64) for x in d["d_rest"]],
            alpha=arr(d["alpha"], dtype=np.float64),
            beta=arr(d["beta"], dtype=np.float64),
            gp_weight=arr(d["gp_weight"], dtype=np.float64),
            halfwidth=halfwidth,
            cv_mae=cv_mae,
            reference_overall=arr(d["reference_overall"], dtype=np.float64),
            method=str(d["method"]),
            level=float(d["level"]),
            n_folds=int(d["n_folds"]),
            n_reference=int(d["n_reference"]),
            ridge_mean=opt("ridge_mean"),
            ridge_coef=opt("ridge_coef"),
            ridge_intercept=opt("ridge_intercept"),
            ridge_penalty=opt("ridge_penalty"),
            halfwidth_strong=_per_method(d.get("halfwidth_strong"), n, missing=math.inf),
            cv_mae_strong=_per_method(d.get("cv_mae_strong"), n),
            theta_range=(
                -math.inf if tr[0] is None else float(tr[0]),
                math.inf if tr[1] is None else float(tr[1]),
            ),
            theta_strong=math.inf if d.get("theta_strong") is None else float(d["theta_strong"]),
            # absent in a file written before the shift folds: no edge widening
            halfwidth_up=_per_method(d.get("halfwidth_up"), n),
            theta_edge=math.inf if d.get("theta_edge") is None else float(d["theta_edge"]),
            anchor_weight=(
                None
                if d.get("anchor_weight") is None
                else [arr(w, dtype=np.float64) for w in d["anchor_weight"]]
            ),
            stack_weight=_stack_weights_in(_shaped("stack_weight", opt("stack_weight"), (None, None))),
            pirt_line=opt("pirt_line"),
            edge_method=None if d.get("edge_method") is None else str(d["edge_method"]),
            inside_method=None if d.get("inside_method") is None else str(d["inside_method"]),
            cv_mae_shift=_per_method(d.get("cv_mae_shift"), n),
            xbench=(
                None
                if d.get("xbench") is None
                else {k: arr(v, dtype=np.float64) for k, v in _object(d["xbench"], "arrays").items()}
            ),
            reference_full=_nan_array(d.get("reference_full")),
            reference_oof=_nan_array(d.get("reference_oof")),
            stratified=d.get("stratified") or False,  # (not a bool: refused by _check_stored)
            underestimate_strong=_per_method(d.get("underestimate_strong"), n),
            theta_bins=_shaped("theta_bins", opt("theta_bins"), (None,)),
            halfwidth_bins=_bins_in(d.get("halfwidth_bins"), n),
            # absent in a file written before the weak fold: no lower edge
            halfwidth_weak=_per_method(d.get("halfwidth_weak"), n, missing=math.inf),
            theta_weak=-math.inf if d.get("theta_weak") is None else float(d["theta_weak"]),
            factor=None
            if d.get("factor") is None
            else FactorState(
                arr(d["factor"]["samples"], dtype=np.float64).reshape(len(d["factor"]["samples"]), -1),
                arr(d["factor"]["a_suite"], dtype=np.float64).reshape(len(d["factor"]["a_suite"]), -1),
                arr(d["factor"]["d_suite"], dtype=np.float64),
                arr(d["factor"]["rest_sums"], dtype=np.float64).reshape(len(d["factor"]["rest_sums"]), -1),
            ),
        )
        _check_stored(model)
        return model

    def to_frame(self) -> pd.DataFrame:
        """Per method: out-of-fold MAE (overall) and interval half-width (overall), as in :meth:`summary`."""
        doc = self.summary()
        return pd.DataFrame(
            {
                "cv_mae_overall": doc["cv_mae_overall"],
                "cv_mae_benchmarks": doc["cv_mae_benchmarks"],
                "halfwidth_overall": doc["halfwidth_overall"],
            }
        ).rename_axis("method")


def _shaped(name: str, v: np.ndarray | None, shape: tuple[int | None, ...]) -> np.ndarray | None:
    """``v`` (None passes) if it has ``shape`` (None: any length on that axis), else
    :func:`~benchsift._inputs.check_shape`'s ``InputError`` (a ``ValueError``)."""
    if v is not None:
        check_shape(name, v.shape, ["any" if w is None else w for w in shape], "an array of shape")
    return v


def _check_stored(m: FullScoreModel) -> None:
    """A model read back from a file is one :func:`fit_full_score` could have written: every array of the
    shape the groups, the suite and the reference models give it, every name one of the estimators, every
    number in its range (``ValueError`` naming the entry; load_suite's one-line FormatError). A forged or
    damaged file is refused here instead of failing deep inside :meth:`FullScoreModel.predict`, hanging on
    a level above 1, or giving other numbers than the file's writer would have. The suite's size is
    ``a_suite``'s (load_suite checks it against items.csv). An entry set to null reads as a file written
    before it existed (the estimate that file gave), and a plausible forged number cannot be told apart."""
    n_groups, n_suite, n_ref = len(m.groups), m.a_suite.size, m.n_reference
    if not n_groups or any(not isinstance(g, str) for g in m.groups):
        raise ValueError("groups: expected a list of group names")
    if len(m.kinds) != n_groups or any(k not in ("benchmark", "category") for k in m.kinds):
        raise ValueError(f"kinds: expected {n_groups} of 'benchmark' or 'category'")
    if m.n_benchmarks != m.kinds.count("benchmark") or not m.n_benchmarks:
        raise ValueError(
            f"n_benchmarks: expected the {m.kinds.count('benchmark')} benchmark groups, got {m.n_benchmarks}"
        )
    if not 0.0 < m.level < 1.0:
        raise ValueError(f"level: expected a coverage between 0 and 1, got {m.level}")
    if m.n_folds < 2 or n_ref < 2:
        raise ValueError(f"n_folds, n_reference: expected at least 2, got {m.n_folds} and {n_ref}")
    for name, method in (
        ("method", m.method),
        ("edge_method", m.edge_method),
        ("inside_method", m.inside_method),
    ):
        if method is not None and method not in METHODS:
            raise ValueError(f"{name}: expected one of {', '.join(METHODS)}, got {method!r}")
    if not isinstance(m.stratified, bool):
        raise ValueError(f"stratified: expected true or false, got {m.stratified!r}")
    lo, hi = m.theta_range
    if not (lo <= hi and not any(math.isnan(t) for t in (m.theta_strong, m.theta_edge, m.theta_weak))):
        raise ValueError(
            "theta_range, theta_strong, theta_edge, theta_weak: expected abilities (lower end first)"
        )
    for name in ("a_suite", "d_suite", "ridge_mean"):
        _shaped(name, getattr(m, name), (n_suite,))
    for name in ("pool_sizes", "alpha", "beta", "gp_weight", "ridge_intercept", "ridge_penalty"):
        _shaped(name, getattr(m, name), (n_groups,))
    _shaped("reference_overall", m.reference_overall, (n_ref,))
    _shaped("ridge_coef", m.ridge_coef, (n_groups, n_suite))
    _shaped("stack_weight", m.stack_weight, (n_groups, len(STACK_COMPONENTS)))
    _shaped("pirt_line", m.pirt_line, (n_groups, 2))
    for name in ("reference_full", "reference_oof"):
        _shaped(name, getattr(m, name), (n_ref, n_groups + 1))
    for name, per_group in (("suite_cols", m.suite_cols), ("a_rest", m.a_rest), ("d_rest", m.d_rest)):
        if len(per_group) != n_groups:
            raise ValueError(f"{name}: expected {n_groups} lists, one per group, got {len(per_group)}")
    if m.anchor_weight is not None and len(m.anchor_weight) != n_groups:
        raise ValueError(f"anchor_weight: expected {n_groups} lists, one per group")
    for g in range(n_groups):
        cols = _shaped(f"suite_cols[{g}]", m.suite_cols[g], (None,))
        assert cols is not None
        if cols.size and not (0 <= cols.min() and cols.max() < n_suite):
            raise ValueError(f"suite_cols[{g}]: expected suite positions 0 to {n_suite - 1}")
        rest = _shaped(f"a_rest[{g}]", m.a_rest[g], (None,))
        assert rest is not None
        _shaped(f"d_rest[{g}]", m.d_rest[g], rest.shape)
        if m.pool_sizes[g] != cols.size + rest.size:
            raise ValueError(f"pool_sizes[{g}]: expected {cols.size} suite + {rest.size} other items")
        if m.anchor_weight is not None:
            _shaped(f"anchor_weight[{g}]", m.anchor_weight[g], cols.shape)
    if m.xbench is not None:
        two_b = 2 * m.n_benchmarks
        want = {"mean": (n_groups, two_b), "scale": (n_groups, two_b), "coef": (n_groups, two_b)}
        for key, shape in {**want, "intercept": (n_groups,), "penalty": (n_groups,)}.items():
            if key not in m.xbench:
                raise ValueError(f"xbench: expected the entry {key!r}")
            _shaped(f"xbench.{key}", m.xbench[key], shape)
    _check_bins(m)
    if m.factor is not None:
        n_samples, dims = m.factor.samples.shape
        _shaped("factor.a_suite", m.factor.a_suite, (n_suite, dims))
        _shaped("factor.d_suite", m.factor.d_suite, (n_suite,))
        _shaped("factor.rest_sums", m.factor.rest_sums, (n_samples, n_groups))


def _bins_in(v: object, n: int) -> list[dict[str, np.ndarray]] | None:
    """Read back ``halfwidth_bins``: a list of per-method dicts of ``n`` half-widths (``None`` as inf)."""
    if v is None:
        return None
    if not isinstance(v, list):
        raise ValueError(f"halfwidth_bins: expected a list of per-method objects, got {type(v).__name__}")
    bins = [_per_method(b, n, missing=math.inf) or {} for b in v]
    for b in bins:  # a file written before a method existed: it is p-IRT there (as ``halfwidth``)
        for m in METHODS:
            if "pirt" in b:
                b.setdefault(m, b["pirt"])
    return bins


def _check_bins(m: FullScoreModel) -> None:
    """The ability bins read back: both or neither, finite increasing edges, one bin more than edges, every
    method's half-widths non-negative."""
    if (m.theta_bins is None) != (m.halfwidth_bins is None):
        raise ValueError("theta_bins, halfwidth_bins: expected both or neither")
    if m.theta_bins is None or m.halfwidth_bins is None:
        return
    t = m.theta_bins
    if not (np.isfinite(t).all() and (np.diff(t) > 0).all()):
        raise ValueError("theta_bins: expected increasing finite abilities")
    if len(m.halfwidth_bins) != t.size + 1:
        raise ValueError(f"halfwidth_bins: expected {t.size + 1} bins, one more than theta_bins' edges")
    for k, b in enumerate(m.halfwidth_bins):
        if set(b) != set(METHODS) or any(np.nan_to_num(w, nan=-1.0).min() < 0 for w in b.values()):
            raise ValueError(f"halfwidth_bins[{k}]: expected a non-negative half-width per method and group")


def _ability_bins(
    theta: np.ndarray, residuals: dict[str, np.ndarray], level: float
) -> tuple[np.ndarray | None, list[dict[str, np.ndarray]] | None]:
    """Inner edges of the reference models' suite-ability bins (:data:`ABILITY_BINS_MODE`) and per bin the
    per-method conformal half-widths of its models' out-of-fold ``residuals`` (``(n_ref, n_groups + 1)``
    each); ``(None, None)`` with fewer than two bins' worth of models."""
    finite = np.isfinite(theta)
    least = max(ABILITY_BIN_MODELS, math.ceil(level / (1.0 - level)))  # a bin's quantile at the level
    n_bins = min(ABILITY_BINS, int(finite.sum()) // least)
    if n_bins < 2:
        return None, None
    edges = np.quantile(theta[finite], np.arange(1, n_bins) / n_bins)
    if not (np.diff(edges) > 0).all():
        return None, None
    which = np.searchsorted(edges, np.nan_to_num(theta, nan=0.0), side="right")
    out = []
    for k in range(n_bins):
        rows = finite & (which == k)
        out.append(
            {
                m: np.array([_bounded_halfwidth(r[rows, g], level) for g in range(r.shape[1])])
                for m, r in residuals.items()
            }
        )
    return edges, out


def _stack_weights_in(w: np.ndarray | None) -> np.ndarray | None:
    """Stack weights read back: a file written before the factor estimator has three per group (anchor,
    ridge, p-IRT), one written before the difference estimator four; the missing weights are then 0."""
    if w is None or w.shape[1] == len(STACK_COMPONENTS):
        return w
    return np.column_stack([w, np.zeros((w.shape[0], len(STACK_COMPONENTS) - w.shape[1]))])


def _fit_once(
    X: np.ndarray,
    groups: _Groups,
    suite_pos: np.ndarray,
    full: np.ndarray,
    warm: TwoPL | None,
    factor_seed: int | None = None,
    design: bool = False,
) -> tuple[FullScoreModel, TwoPL]:
    """Regression lines, 2PL and (with ``factor_seed``, the prior draws' seed) the factor model on the
    reference rows ``X`` (gp weights, widths and errors left empty); ``design``: the anchor weights are the
    stratified sample's (:func:`~benchsift.compression.full_score_stack.anchor_weights`)."""
    irt = (
        TwoPL(a_prior=IRT_A_PRIOR, prior_a_sd=IRT_PRIOR_A_SD)
        if warm is None
        else TwoPL.from_parameters(
            warm.discrimination_,
            warm.intercept_,
            warm_start=True,
            a_prior=IRT_A_PRIOR,
            prior_a_sd=IRT_PRIOR_A_SD,
        )
    )
    irt.fit(X)
    ng = len(groups.names)
    suite_means = group_nan_means(X[:, suite_pos], groups.suite_cols)
    alpha = np.empty(ng)
    beta = np.empty(ng)
    in_suite = np.zeros(X.shape[1], dtype=bool)
    in_suite[suite_pos] = True
    a_rest, d_rest, rests = [], [], []
    for g in range(ng):
        alpha[g], beta[g] = _ols(suite_means[:, g], full[:, g])
        rest = groups.pool_items[g][~in_suite[groups.pool_items[g]]]
        rests.append(rest)
        a_rest.append(irt.discrimination_[rest])
        d_rest.append(irt.intercept_[rest])
    empty = {m: np.full(ng + 1, np.nan) for m in METHODS}
    anchors = anchor_weights(X, groups.pool_items, suite_pos, groups.suite_cols, design)
    model = FullScoreModel(
        groups=groups.names,
        kinds=groups.kinds,
        n_benchmarks=groups.n_benchmarks,
        suite_cols=groups.suite_cols,
        pool_sizes=np.array([p.shape[0] for p in groups.pool_items], dtype=np.int64),
        a_suite=irt.discrimination_[suite_pos],
        d_suite=irt.intercept_[suite_pos],
        a_rest=a_rest,
        d_rest=d_rest,
        alpha=alpha,
        beta=beta,
        gp_weight=np.full(ng, 0.5),
        halfwidth=dict(empty),
        cv_mae=dict(empty),
        reference_overall=np.full(X.shape[0], np.nan),
        method="pirt",
        level=0.95,
        n_folds=0,
        n_reference=X.shape[0],
        anchor_weight=anchors,
        factor=None if factor_seed is None else factor_state(fit_factor(X), rests, suite_pos, factor_seed),
    )
    return model, irt


@dataclass(frozen=True)
class _Folds:
    """The test sets of the cross-validation: ``n_folds`` random folds, then the shift folds (the strongest
    ``SHIFT_SHARES`` of the reference models by full overall score, held out together; the first is the
    "strongest" fold of the method choice), then the weak fold (the weakest ``WEAK_SHARE`` held out
    together: the widths of models at the lower edge, and nothing else)."""

    random: list[np.ndarray]
    shifts: list[np.ndarray]
    weak: np.ndarray

    @property
    def strong(self) -> np.ndarray:
        return self.shifts[0]


@dataclass
class _OutOfFold:
    """Out-of-fold predictions ``(n_ref, n_groups)`` per method: ``random`` from the random folds (every
    model has one), ``shift[k]`` from shift fold ``k`` (its held-out rows only; NaN elsewhere), the ridge
    corrections per penalty ``(n_penalties, n_ref, n_groups)`` for each, and xbench's per penalty of
    ``XBENCH_PENALTIES`` (p-IRT where the suite has one benchmark)."""

    random: dict[str, np.ndarray]
    shift: list[dict[str, np.ndarray]]
    ridge_random: np.ndarray
    ridge_shift: list[np.ndarray]
    xbench_random: np.ndarray
    xbench_shift: list[np.ndarray]
    # the weak fold's (its held-out rows only), as a shift fold's
    weak: dict[str, np.ndarray]
    ridge_weak: np.ndarray
    xbench_weak: np.ndarray


@dataclass(frozen=True)
class _Settings:
    """Per-group settings chosen on the out-of-fold errors: ridge penalty, gp-IRT weight, stack weights,
    calibration line of p-IRT."""

    penalty: np.ndarray
    gp_weight: np.ndarray
    stack_weight: np.ndarray
    pirt_line: np.ndarray
    xbench_penalty: np.ndarray  # (n_groups,) position in XBENCH_PENALTIES


@dataclass(frozen=True)
class _Errors:
    """Per method ``(n_groups + 1,)``: random folds' half-width and MAE, the strongest fold's, the upper
    half-width of edge models, and the mean over the shift folds of their MAE."""

    halfwidth: dict[str, np.ndarray]
    cv_mae: dict[str, np.ndarray]
    hw_strong: dict[str, np.ndarray]
    mae_strong: dict[str, np.ndarray]
    hw_up: dict[str, np.ndarray]
    mae_shift: dict[str, np.ndarray]
    # per method: each reference model's absolute error (random folds, (n_ref, n_groups + 1)) and each
    # strongest-fold model's ((n_strong, n_groups + 1)), for the paired standard errors of the choice
    abs_random: dict[str, np.ndarray] = field(default_factory=dict)
    abs_strong: dict[str, np.ndarray] = field(default_factory=dict)
    # per method: the strongest fold's mean of truth minus estimate ((n_groups + 1,))
    under_strong: dict[str, np.ndarray] = field(default_factory=dict)
    # per method: the weak fold's half-width ((n_groups + 1,)): the lower ends of models at the lower edge
    hw_weak: dict[str, np.ndarray] = field(default_factory=dict)


def one_se_choice(
    default: str, criterion: dict[str, float], paired: dict[str, list[np.ndarray]], n_se: float = 1.0
) -> str:
    """The one-standard-error rule (Breiman, Friedman, Olshen & Stone 1984, "Classification and Regression
    Trees", sec. 3.4.3; Hastie, Tibshirani & Friedman 2009, sec. 7.10): keep ``default`` unless another
    candidate's ``criterion`` is lower by more than ``n_se`` standard errors of the difference, and then take
    the lowest of those. ``paired[m]``: per part of the criterion (a sum of means), the per-model differences
    ``loss(m) - loss(default)`` on the same models; the standard error of the difference is
    ``sqrt(sum_k var(d_k) / n_k)`` (the parts taken as independent). A candidate without a finite criterion
    or with fewer than two paired models in a part is not taken."""
    base = criterion[default]
    best, best_value = default, base
    for m, value in criterion.items():
        if m == default or not np.isfinite(value) or not np.isfinite(base):
            continue
        parts = [d[np.isfinite(d)] for d in paired.get(m, [])]
        if not parts or any(d.size < 2 for d in parts):
            continue
        se = math.sqrt(sum(float(np.var(d, ddof=1)) / d.size for d in parts))
        if value < base - n_se * se and value < best_value:
            best, best_value = m, value
    return best


def _reference_panel(
    panel: Panel, suite_items: np.ndarray, level: float, n_folds: int
) -> tuple[Panel, np.ndarray, int]:
    """The reference (scored image) models, the suite's positions and the number of folds, checked."""
    ref = panel.image_panel()
    scored = np.isfinite(ref.scores).any(axis=1)
    if not scored.all():  # a run without any score is no reference: it would count, and shift the folds
        ref = ref.subset(models=scored)
    if not 0.0 < float(level) < 1.0:
        raise InputError(f"`level`: expected a number in (0, 1), got {level!r}")
    pos = np.asarray(suite_items)
    if pos.dtype == bool:
        if pos.shape[0] != ref.n_items:
            raise InputError(f"suite mask has {pos.shape[0]} entries, the panel {ref.n_items} items")
        pos = np.flatnonzero(pos)
    pos = pos.astype(np.int64)
    if pos.size == 0:
        raise DegenerateError("full-score estimate: the suite has no items")
    if np.unique(pos).shape[0] != pos.shape[0] or pos.min() < 0 or pos.max() >= ref.n_items:
        raise InputError("suite item positions must be distinct positions in the panel's items")
    n_ref = ref.n_models
    if n_ref < MIN_REFERENCE_MODELS:
        raise DegenerateError(
            f"full-score estimate needs at least {MIN_REFERENCE_MODELS} reference (image) models to "
            f"cross-validate its estimators, got {n_ref}"
        )
    n_folds = int(n_folds)
    if n_folds < 2:
        raise InputError(f"n_folds: expected an int >= 2, got {n_folds}")
    return ref, pos, min(n_folds, n_ref)


def _make_folds(overall: np.ndarray, n_folds: int, random_state: SeedLike) -> _Folds:
    """Seeded random folds, the shift folds (strongest first by ``overall``; at least 2 models trained) and
    the weak fold (weakest first; a model without an overall score is never in it)."""
    n_ref = overall.shape[0]
    fold = check_random_state(random_state).permutation(n_ref) % n_folds
    order = np.argsort(-np.nan_to_num(overall, nan=-np.inf), kind="stable")  # strongest first
    shifts = []
    for k, share in enumerate(SHIFT_SHARES):
        n_held = max(1, int(round(share * n_ref)))
        mask = np.zeros(n_ref, dtype=bool)
        mask[order[: n_held if k == 0 else min(n_ref - 2, n_held)]] = True
        shifts.append(mask)
    weak = np.zeros(n_ref, dtype=bool)
    scored = np.flatnonzero(np.isfinite(overall))
    weakest = scored[np.argsort(overall[scored], kind="stable")]
    weak[weakest[: min(n_ref - 2, max(1, int(round(WEAK_SHARE * n_ref))))]] = True
    return _Folds([fold == k for k in range(n_folds)], shifts, weak)


def _out_of_fold(
    X: np.ndarray,
    ref: Panel,
    groups: _Groups,
    pos: np.ndarray,
    full: np.ndarray,
    irt: TwoPL,
    folds: _Folds,
    reselect: Callable[[np.ndarray], np.ndarray] | None,
    factor_seed: int | None = None,
    design: bool = False,
) -> _OutOfFold:
    """Refit on each fold's complement and predict its models from their suite responses (the plain
    methods, the ridge correction for every penalty and xbench's for every penalty)."""
    n_ref, ng, n_pen, n_xp = X.shape[0], len(groups.names), len(_RIDGE_PENALTIES), len(XBENCH_PENALTIES)
    plain = ("suite_mean", "regression", "pirt", "anchor", "factor", "greg")
    out = _OutOfFold(
        random={m: np.full((n_ref, ng), np.nan) for m in plain},
        shift=[{m: np.full((n_ref, ng), np.nan) for m in plain} for _ in folds.shifts],
        ridge_random=np.full((n_pen, n_ref, ng), np.nan),
        ridge_shift=[np.full((n_pen, n_ref, ng), np.nan) for _ in folds.shifts],
        xbench_random=np.full((n_xp, n_ref, ng), np.nan),
        xbench_shift=[np.full((n_xp, n_ref, ng), np.nan) for _ in folds.shifts],
        weak={m: np.full((n_ref, ng), np.nan) for m in plain},
        ridge_weak=np.full((n_pen, n_ref, ng), np.nan),
        xbench_weak=np.full((n_xp, n_ref, ng), np.nan),
    )
    # xbench only with several benchmarks (on one, its per-benchmark ability is the suite's own, and on
    # ZeroEval GSM8K at 5 % the CV chose it over the stack by noise: held-out MAE 0.037 against 0.030)
    multi = groups.n_benchmarks >= 2
    n_random = len(folds.random)
    # where each fold's predictions go: the random folds', each shift fold's, the weak fold's
    sinks = [(out.random, out.ridge_random, out.xbench_random)] * n_random
    sinks += list(zip(out.shift, out.ridge_shift, out.xbench_shift, strict=True))
    sinks.append((out.weak, out.ridge_weak, out.xbench_weak))
    for k, test in enumerate([*folds.random, *folds.shifts, folds.weak]):
        pos_k, groups_k = pos, groups
        if reselect is not None:
            pos_k = np.asarray(reselect(X[~test]), dtype=np.int64)
            groups_k = _groups(ref, pos_k)
        part, _ = _fit_once(X[~test], groups_k, pos_k, full[~test], irt, factor_seed, design)
        raw_tr, _, th_tr = part._predict_all(X[~test][:, pos_k])
        F_tr = _ridge_features(X[~test][:, pos_k], th_tr, part.a_suite, part.d_suite)
        mu, tm, coefs = _ridge_paths(F_tr, full[~test] - raw_tr["pirt"], _RIDGE_PENALTIES)
        raw, _, th_te = part._predict_all(X[test][:, pos_k])
        F_te = _ridge_features(X[test][:, pos_k], th_te, part.a_suite, part.d_suite) - mu
        into, rinto, xinto = sinks[k]
        for m in plain:
            into[m][test] = raw[m]
        for p_, c in enumerate(coefs):
            rinto[p_][test] = raw["pirt"] + tm[None, :] + F_te @ c.T
        if multi:
            bcols = groups_k.suite_cols[: groups.n_benchmarks]
            B_tr = bench_features(X[~test][:, pos_k], th_tr, part.a_suite, part.d_suite, bcols)
            B_te = bench_features(X[test][:, pos_k], th_te, part.a_suite, part.d_suite, bcols)
            xcorr, _ = ridge_fit_predict(B_tr, full[~test] - raw_tr["pirt"], B_te)
        else:  # one benchmark: xbench is p-IRT (and is not chosen)
            xcorr = [np.zeros((int(test.sum()), ng))] * n_xp
        for p_, c in enumerate(xcorr):
            xinto[p_][test] = raw["pirt"] + c
    return out


def _choose_settings(oof: _OutOfFold, full: np.ndarray, folds: _Folds, with_factor: bool) -> _Settings:
    """Ridge and xbench penalties (random folds' plus strongest fold's MAE), gp-IRT weight and stack weights
    (random folds' MAE) and the p-IRT calibration line per group; fills ``ridge``, ``xbench``, ``gpirt``,
    ``stack`` and ``pirt_cal`` into every fold's predictions."""
    ng = full.shape[1]
    strong = folds.strong
    rnd = oof.random

    def cv_err(pred: np.ndarray, pred_s: np.ndarray, g: int) -> float:
        return _mean_abs(pred[:, g] - full[:, g]) + _mean_abs(pred_s[strong, g] - full[strong, g])

    best = np.empty(ng, dtype=np.int64)
    for g in range(ng):
        errs = [
            cv_err(oof.ridge_random[p_], oof.ridge_shift[0][p_], g) for p_ in range(len(_RIDGE_PENALTIES))
        ]
        best[g] = int(np.nanargmin(errs)) if np.isfinite(errs).any() else len(_RIDGE_PENALTIES) - 1
    n_xp = len(XBENCH_PENALTIES)
    pen_x = np.empty(ng, dtype=np.int64)  # xbench's penalty per group, by the same error
    for g in range(ng):
        errs = [cv_err(oof.xbench_random[p_], oof.xbench_shift[0][p_], g) for p_ in range(n_xp)]
        pen_x[g] = int(np.nanargmin(errs)) if np.isfinite(errs).any() else n_xp - 1
    gp_w = np.empty(ng)
    for g in range(ng):
        errs = [
            _mean_abs(w * rnd["regression"][:, g] + (1 - w) * rnd["pirt"][:, g] - full[:, g])
            for w in _GP_WEIGHTS
        ]
        gp_w[g] = _GP_WEIGHTS[int(np.nanargmin(errs))] if np.isfinite(errs).any() else 0.5
    preds = [rnd, *oof.shift, oof.weak]  # the random folds', each shift fold's, the weak fold's
    ridges = [oof.ridge_random, *oof.ridge_shift, oof.ridge_weak]
    for pr, ridge, xb in zip(
        preds, ridges, [oof.xbench_random, *oof.xbench_shift, oof.xbench_weak], strict=True
    ):
        pr["ridge"] = np.column_stack([ridge[best[g]][:, g] for g in range(ng)])
        pr["xbench"] = np.column_stack([xb[pen_x[g]][:, g] for g in range(ng)])
        pr["gpirt"] = gp_w[None, :] * pr["regression"] + (1 - gp_w[None, :]) * pr["pirt"]
    # the stack of anchor, ridge, p-IRT and factor: simplex weights per group by the random folds' error
    # (the factor's weight 0 without the factor model)
    parts = [np.stack([pr[m] for m in STACK_COMPONENTS]) for pr in preds]
    grid = stack_grid(n_parts=len(STACK_COMPONENTS))
    if not with_factor:
        grid = grid[grid[:, STACK_COMPONENTS.index("factor")] == 0]
    stack_w = stack_weights(
        parts[0], parts[1] if STACK_WEIGHTS_USE_STRONGEST else None, full, strong, grid=grid
    )
    for pr, pa in zip(preds, parts, strict=True):
        pr["stack"] = np.einsum("gk,kng->ng", stack_w, pa)
    if STACK_CROSS_FITTED:
        _cross_fit_stack(preds, parts, full, folds, grid)
    # calibrated p-IRT: a line on the out-of-fold p-IRT estimates (leave-one-out for its own residuals; a
    # shift fold's estimates through the line of the other models' random-fold estimates)
    line = np.array([calibration_line(rnd["pirt"][:, g], full[:, g]) for g in range(ng)])
    rnd["pirt_cal"] = np.column_stack([calibrated_loo(rnd["pirt"][:, g], full[:, g]) for g in range(ng)])
    for pr, held in zip(preds[1:], [*folds.shifts, folds.weak], strict=True):
        cal = np.full_like(pr["pirt"], np.nan)
        for g in range(ng):
            al, be = calibration_line(np.where(held, np.nan, rnd["pirt"][:, g]), full[:, g])
            cal[:, g] = al + be * pr["pirt"][:, g]
        pr["pirt_cal"] = cal
    for pr in preds:
        pr["average"] = _average(pr)
    pen = np.array([_RIDGE_PENALTIES[b] for b in best], dtype=np.float64)
    return _Settings(pen, gp_w, stack_w, line, pen_x)


def _cross_fit_stack(
    preds: list[dict[str, np.ndarray]],
    parts: list[np.ndarray],
    full: np.ndarray,
    folds: _Folds,
    grid: np.ndarray | None = None,
) -> None:
    """The stack's out-of-fold predictions with weights chosen without the predicted models
    (:data:`STACK_CROSS_FITTED`): each random fold's models through the weights the other folds' out-of-fold
    errors choose, each shift fold's (and the weak fold's, the last of ``preds``) through those of the
    models it does not hold out. The weights a new model gets are still those of all reference models."""
    none = np.zeros(full.shape[0], dtype=bool)
    rnd = np.full_like(preds[0]["stack"], np.nan)
    for test in folds.random:
        w = stack_weights(np.where(test[None, :, None], np.nan, parts[0]), None, full, none, grid)
        rnd[test] = np.einsum("gk,kng->ng", w, parts[0][:, test])
    preds[0]["stack"] = rnd
    for pr, pa, held in zip(preds[1:], parts[1:], [*folds.shifts, folds.weak], strict=True):
        w = stack_weights(np.where(held[None, :, None], np.nan, parts[0]), None, full, none, grid)
        pr["stack"] = np.einsum("gk,kng->ng", w, pa)


def _errors(
    base: FullScoreModel, oof: _OutOfFold, full_all: np.ndarray, folds: _Folds, level: float
) -> _Errors:
    """Conformal half-widths and mean absolute errors of every method on the random and the shift folds."""
    nc = full_all.shape[1]
    out = _Errors({}, {}, {}, {}, {}, {})
    for m in METHODS:
        res = np.clip(base._with_overall(oof.random[m]), 0.0, 1.0) - full_all
        out.halfwidth[m] = np.array([_bounded_halfwidth(res[:, g], level) for g in range(nc)])
        out.cv_mae[m] = np.array([_mean_abs(res[:, g]) for g in range(nc)])
        # truth minus estimate on each shift fold's held-out models
        unders = [
            (full_all - np.clip(base._with_overall(pr[m]), 0.0, 1.0))[mk]
            for pr, mk in zip(oof.shift, folds.shifts, strict=True)
        ]
        out.mae_strong[m] = np.array([_mean_abs(unders[0][:, g]) for g in range(nc)])
        out.hw_strong[m] = np.array([_bounded_halfwidth(unders[0][:, g], level) for g in range(nc)])
        # the upper width of edge models: the largest of the folds' quantiles (compression.extrapolation)
        out.hw_up[m] = np.array(
            [_largest([shift_upper_halfwidth(u[:, g], level) for u in unders]) for g in range(nc)]
        )
        out.mae_shift[m] = np.array(
            [nan_mean(np.array([_mean_abs(u[:, g]) for u in unders])) for g in range(nc)]
        )
        out.abs_random[m] = np.abs(res)
        out.abs_strong[m] = np.abs(unders[0])
        out.under_strong[m] = np.array([nan_mean(unders[0][:, g]) for g in range(nc)])
        over = (np.clip(base._with_overall(oof.weak[m]), 0.0, 1.0) - full_all)[folds.weak]
        out.hw_weak[m] = np.array([_bounded_halfwidth(over[:, g], level) for g in range(nc)])
    return out


def _choose_methods(err: _Errors, n_benchmarks: int) -> tuple[str, str, str | None]:
    """``(method, edge_method, inside_method)``: with :data:`HEADLINE_AVERAGE`, the one of
    :data:`HEADLINE_FROM` that :func:`one_se_choice` keeps on the random folds' plus strongest fold's MAE
    (:func:`_selection_error`; the first below :data:`CHOICE_MIN_REFERENCE` reference models), else the one
    of ``CHOSEN_FROM`` with the lowest of it; the one of ``EDGE_CHOSEN_FROM`` with the lowest mean MAE over
    the shift folds; and :data:`INSIDE_METHOD` with at least :data:`CHOICE_MIN_REFERENCE` reference models
    (else None: ``method``) for the models inside the reference abilities (all over the benchmarks every
    method estimates; overall when there is none).
    ``xbench`` takes part only with ``XBENCH_IN_CHOICE`` and several benchmarks."""
    cols = _choice_columns(err.cv_mae, n_benchmarks)

    def finite(x: float) -> float:
        return x if np.isfinite(x) else math.inf

    def allowed(m: str) -> bool:
        return m != "xbench" or (XBENCH_IN_CHOICE and n_benchmarks >= 2)

    def losses(m: str, strong: bool) -> np.ndarray:
        return _row_means((err.abs_strong if strong else err.abs_random)[m][:, cols])

    n_ref = err.abs_random[HEADLINE_FROM[0]].shape[0] if err.abs_random else 0
    default = HEADLINE_FROM[0]
    choose = HEADLINE_AVERAGE and n_ref >= CHOICE_MIN_REFERENCE
    if not HEADLINE_AVERAGE:
        method = min(
            filter(allowed, CHOSEN_FROM),
            key=lambda m: finite(_selection_error(err.cv_mae, err.mae_strong, m, cols)),
        )
    elif not choose:
        method = default
    else:
        criterion = {m: finite(_selection_error(err.cv_mae, err.mae_strong, m, cols)) for m in HEADLINE_FROM}
        paired = {
            m: [losses(m, False) - losses(default, False), losses(m, True) - losses(default, True)]
            for m in HEADLINE_FROM
        }
        method = one_se_choice(default, criterion, paired)
    inside = INSIDE_METHOD if choose else None
    edge_method = min(
        filter(allowed, EDGE_CHOSEN_FROM), key=lambda m: finite(_mean_abs(err.mae_shift[m][cols]))
    )
    return method, edge_method, inside


def _row_means(x: np.ndarray) -> np.ndarray:
    """Each row's mean over its finite entries (NaN where it has none)."""
    return np.asarray(nan_mean(x, axis=1), dtype=np.float64)


def _choice_columns(cv_mae: dict[str, np.ndarray], n_benchmarks: int) -> np.ndarray:
    """The columns every choice is judged on: the benchmarks every method has a finite error on, else
    ``overall`` (the last column)."""
    ng = cv_mae["pirt"].shape[0] - 1
    common = np.all([np.isfinite(cv_mae[m][:n_benchmarks]) for m in METHODS], axis=0)
    return np.flatnonzero(common) if common.any() else np.array([ng])


def _selection_error(
    cv_mae: dict[str, np.ndarray], mae_strong: dict[str, np.ndarray], method: str, cols: np.ndarray
) -> float:
    """The criterion every choice of :func:`_choose_methods` minimises (and
    :meth:`FullScoreModel.selection_error` reports): the random folds' plus the strongest fold's mean
    absolute error of ``method`` over the columns ``cols``."""
    return _mean_abs(cv_mae[method][cols]) + _mean_abs(mae_strong[method][cols])


def _refit_ridge(base: FullScoreModel, X_suite: np.ndarray, full: np.ndarray, pen: np.ndarray) -> np.ndarray:
    """The ridge correction refitted on every reference model (stored in ``base``); returns the reference
    models' suite abilities."""
    raw_all, _, th_all = base._predict_all(X_suite)
    F_all = _ridge_features(X_suite, th_all, base.a_suite, base.d_suite)
    ng = full.shape[1]
    coef = np.empty((ng, X_suite.shape[1]))
    icpt = np.empty(ng)
    for g in range(ng):
        mu, tm, (c,) = _ridge_paths(F_all, (full - raw_all["pirt"])[:, [g]], (float(pen[g]),))
        coef[g] = c[0]
        icpt[g] = tm[0]
    base.ridge_mean = F_all.mean(axis=0)
    base.ridge_coef = coef
    base.ridge_intercept = icpt
    base.ridge_penalty = pen
    return th_all


def _refit_xbench(
    base: FullScoreModel, X_suite: np.ndarray, theta: np.ndarray, full: np.ndarray, pen_x: np.ndarray
) -> None:
    """xbench's correction refitted on every reference model with each group's penalty (stored in
    ``base.xbench``; left ``None`` on a suite of one benchmark, where xbench is p-IRT)."""
    nb = base.n_benchmarks
    if nb < 2:
        return
    B_all = bench_features(X_suite, theta, base.a_suite, base.d_suite, base.suite_cols[:nb])
    pirt = base._predict_all(X_suite)[0]["pirt"]
    _, xstate = ridge_fit_predict(B_all, full - pirt, B_all[:1])
    base.xbench = {
        "mean": xstate["mean"],
        "scale": xstate["scale"],
        "intercept": xstate["intercept"],
        "coef": np.stack([xstate["coef"][pen_x[g], g] for g in range(full.shape[1])]),
        "penalty": np.array([XBENCH_PENALTIES[i] for i in pen_x]),
    }


def _set_ability_zones(base: FullScoreModel, theta: np.ndarray, folds: _Folds) -> None:
    """The reference abilities' range, the lowest of the strongest fold's and of the edge fold's, the
    highest of the weak fold's."""
    finite_t = theta[np.isfinite(theta)]
    if finite_t.size:
        base.theta_range = (float(finite_t.min()), float(finite_t.max()))
    st = theta[folds.strong & np.isfinite(theta)]
    if st.size:
        base.theta_strong = float(st.min())
    edge_t = theta[folds.shifts[EDGE_FOLD] & np.isfinite(theta)]
    if edge_t.size:
        base.theta_edge = float(edge_t.min())
    weak_t = theta[folds.weak & np.isfinite(theta)]
    if weak_t.size:
        base.theta_weak = float(weak_t.max())


def fit_full_score(
    panel: Panel,
    suite_items: np.ndarray,
    *,
    level: float = 0.95,
    n_folds: int = 10,
    random_state: SeedLike = 0,
    reselect: Callable[[np.ndarray], np.ndarray] | None = None,
    edge_estimator: bool = False,
    stratified: bool = False,
) -> FullScoreModel:
    """Fit the full-score estimators on the image-condition models of ``panel`` (the reference models).

    Parameters
    ----------
    panel:
        The pool the suite was selected from (models x all items).
    suite_items:
        Positions (or a boolean mask) of the suite's items in ``panel``'s items, in the order the new models'
        suite columns will come in.
    level:
        Interval level (split-conformal on out-of-fold residuals).
    n_folds:
        Folds over the reference models for the out-of-fold predictions (at most the number of models).
    random_state:
        Seed of the fold assignment.
    reselect:
        How the suite was chosen, as a function of the build models' scores (rows x every item of
        ``panel``) returning item positions. Given, every fold chooses its own items on its training models
        (as tinyBenchmarks re-draws its anchors per fold), so the out-of-fold errors, and the intervals and
        the choice made from them, include the error of choosing the items on few models; without it the
        folds use ``suite_items``, chosen on all the reference models (on a 40-model panel the intervals
        then covered 81 % of held-out models at 95 %).
    edge_estimator:
        Estimate the models at the edge of the reference abilities with the method of ``EDGE_CHOSEN_FROM``
        that the shift folds choose (``edge_method``), instead of the headline method. Off by default:
        measured on ZeroEval MATH-L5, GSM8K and CRUX (3 seeds, 2/5/10 %) it cut the strongest-40 % split's
        error on GSM8K by half and more, but made MATH-L5's at 10 % and the random splits' on GSM8K worse
        (docs/ESTIMATE.md, "What a new model would have scored"). The shift folds' errors (``cv_mae_shift``)
        are computed either way.
    stratified:
        The suite is a stratified random sample of each category (:func:`~benchsift.compression.selectors.
        estimation.difficulty_strata` over the whole budget, ``reselect`` drawing it again in every fold):
        ``anchor`` is then the stratified mean and ``greg`` the design-based difference estimator, each
        suite item weighted by the items of its category it stands for
        (:func:`~benchsift.compression.full_score_stack.design_weights`), instead of by the items nearest to
        it.

    Steps: the reference panel checked (:func:`_reference_panel`), the full fit (:func:`_fit_once`), the
    random and shift folds (:func:`_make_folds`), their out-of-fold predictions (:func:`_out_of_fold`), the
    per-group settings (:func:`_choose_settings`), the errors and widths (:func:`_errors`), the headline and
    edge methods (:func:`_choose_methods`), the ridge and xbench corrections on every model
    (:func:`_refit_ridge`, :func:`_refit_xbench`).
    """
    ref, pos, n_folds = _reference_panel(panel, suite_items, level, n_folds)
    X = ref.scores
    groups = _groups(ref, pos)
    full = group_nan_means(X, groups.pool_items)
    full_all = np.column_stack([full, nan_mean(full[:, : groups.n_benchmarks], axis=1)])
    folds = _make_folds(full_all[:, -1], n_folds, random_state)
    # the factor model's prior draws: one seed for the full fit and every fold (the same draws per fit)
    factor_seed = int(check_random_state(random_state).integers(0, 2**31 - 1)) if factor_applies(X) else None
    base, irt = _fit_once(X, groups, pos, full, None, factor_seed, stratified)
    oof = _out_of_fold(X, ref, groups, pos, full, irt, folds, reselect, factor_seed, stratified)
    settings = _choose_settings(oof, full, folds, factor_seed is not None)
    err = _errors(base, oof, full_all, folds, float(level))
    base.method, edge_method, inside_method = _choose_methods(err, groups.n_benchmarks)
    base.edge_method = edge_method if edge_estimator else None
    base.inside_method = inside_method
    theta = _refit_ridge(base, X[:, pos], full, settings.penalty)
    _refit_xbench(base, X[:, pos], theta, full, settings.xbench_penalty)
    base.reference_oof = np.clip(base._with_overall(oof.random[base.method]), 0.0, 1.0)
    base.reference_full = full_all
    _set_ability_zones(base, theta, folds)
    base.theta_bins, base.halfwidth_bins = _ability_bins(theta, err.abs_random, float(level))
    base.halfwidth_strong = err.hw_strong
    base.cv_mae_strong = err.mae_strong
    base.cv_mae_shift = err.mae_shift
    base.halfwidth_up = err.hw_up
    base.halfwidth_weak = err.hw_weak
    base.gp_weight = settings.gp_weight
    base.stack_weight = settings.stack_weight
    base.pirt_line = settings.pirt_line
    base.halfwidth = err.halfwidth
    base.cv_mae = err.cv_mae
    base.reference_overall = full_all[:, -1]
    base.level = float(level)
    base.n_folds = n_folds
    base.stratified = bool(stratified)
    base.underestimate_strong = err.under_strong
    return base
