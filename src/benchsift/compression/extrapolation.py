r"""Intervals and warnings for new models as strong as, or stronger than, the strongest build models.

A suite is chosen, and its full-score estimators (:mod:`benchsift.compression.full_score`) are fitted, on the
build (reference) models. A new release is usually stronger than all of them, and two things then go wrong
(measured on real panels, issue 31: build on the weakest 60 % of the models, estimate the strongest 40 %):

1. **It does not look stronger.** The suite's items are informative at the build models' abilities; a model
   far stronger than all of them answers them about as the strongest build models do, so its ability on the
   suite (:math:`\hat\theta`, EAP) lies *inside* the build models' range. On a 40-model LLM math panel,
   13-14 of the 16 strongest models had a suite ability below the strongest build model's, with true scores
   0.02-0.45 above every build model's. A flag on :math:`\hat\theta` outside the range alone misses them.
2. **Its estimate is too low.** The item response curves and calibration lines are fitted on weaker models:
   the estimate of a stronger model is biased down (-0.03 on MMMU, -0.12 on the math panel at 10 % of the
   items), so a symmetric interval from exchangeable (random-fold) residuals misses above.

What is done here, from the "shift folds" of :func:`~benchsift.compression.full_score.fit_full_score`: folds
that hold out the strongest ``share`` of the build models by full overall score *together* (``SHIFT_SHARES``:
20 % and 40 %), fit on the rest, and predict the held-out models from their suite responses -- a stronger
release, simulated on the build models. Their signed residuals :math:`u_m = Z_m - \hat Z_m` (truth minus
estimate) are kept per fold.

* **Edge zone.** A new model is *at the edge* when its suite ability is at least :math:`\theta_{edge}`, the
  lowest suite ability (estimated with the full fit) of the models of the largest shift fold: the build
  models whose stronger successors would look like it. Above the strongest build model (``theta_range``)
  it also *extrapolates* (the existing flag).
* **Upper half-width.** For an edge model the interval's upper end is
  :math:`\hat Z + \max(h, h^{\uparrow} (1 + f))`, where :math:`h` is the half-width
  :class:`~benchsift.compression.full_score.FullScoreModel` gives without this module and

  .. math:: h^{\uparrow} = \max_{\text{folds } F} q_{\lceil (n_F + 1)\,\text{level} \rceil}
            \bigl(\max(u_m, 0) : m \in F\bigr)

  the largest over the shift folds of the split-conformal quantile (Vovk 2015; Barber et al. 2021, Ann.
  Statist. 49(1)) of the fold's underestimates, or, with too few of them for that level, their largest times
  :math:`(n_F + 1)/n_F` (the largest, not the pooled quantile: the shift of a real release is larger than
  the one the build models can simulate, and the larger fold measures the larger shift);
  :math:`f = (\hat\theta - \theta_{max}) / s` grows it beyond the strongest build model in units ``s`` of the
  span of the strongest fold's abilities (0 inside the range). The lower end is left as
  :func:`~benchsift.compression.full_score.fit_full_score` makes it. The interval is one-sidedly widened
  because the shift's error is one-sided (every shift fold measured underestimates the stronger models).
* **Anchor upper end** (:data:`~benchsift.compression.full_score.EDGE_ANCHOR_UPPER`). The upper end of an
  edge model is besides at least the upper end of the design-based anchor mean's own interval (widened as
  above): the anchor mean weighs the model's own suite answers by the share of the pool each item stands
  for, fits no curve on weaker models, and so follows a release that answers more of the suite's items
  right than its ability on the build models' curves says (measured in ``full_score``'s docstring).
* **Edge estimator** (``fit_full_score(..., edge_estimator=True)``; off by default, see the measurements
  there). The estimate of an edge model is then that of the method the shift folds choose
  (:data:`~benchsift.compression.full_score.EDGE_CHOSEN_FROM`: the headline candidates and the design-based
  anchor mean of tinyBenchmarks, Polo et al. 2024, sec. 3.1, which fits no curve on weaker models), the
  one with the least mean absolute error over the shift folds' held-out models: a cross-validation whose
  test models are stronger than its training models, as a release is (the idea of validating under the
  shift one expects, e.g. Sugiyama et al. 2007, "Covariate shift adaptation by importance weighted cross
  validation", JMLR 8, here with the shift simulated by holding out the top of the build models). The
  others keep the method the random folds (plus the strongest fold) chose. No additive correction of the
  bias is made: a model at the edge in a random split is *not* stronger than the build models and would be
  pushed up wrongly, and its suite responses cannot tell the two apart.
* **Stratified mean** (:func:`stratified_estimate`; ``EDGE_STRATIFIED_UPPER`` and ``EDGE_STRATIFIED_BLEND``
  of :mod:`~benchsift.compression.full_score`). The upper end of an edge model is besides at least the
  design-based upper end of the difficulty-stratified mean of its own suite answers, which lies above a
  stronger model's truth where the estimators through the ability lie below it; and an edge model whose
  stratified mean's lower end is above every reference model's full score (outside the build range by a
  test on its own answers)
  gets the mean of the two as its headline (:func:`stratified_blend`; ``estimator`` ``"METHOD+stratified"``).
  On MMT's strongest-40 % split this took coverage from 0.91 / 0.62 / 0.85 to 1.00 at 2 / 5 / 10 % of the
  items and the error from 0.059 / 0.065 / 0.042 to 0.034 / 0.029 / 0.017 (docs/ESTIMATE.md, "Stronger new
  models").
* **A stratified random suite** (:func:`beyond_mix`; ``fit_full_score(stratified=True)``, the small build
  panels' design of ``compress --selector estimate`` when it wins its cross-validation). Its stratified mean
  (the ``anchor`` estimate there) is unbiased by design for any model, so an edge model's headline moves to
  it by :math:`w = \Phi((\hat Z^{st} - Z^{max}) / s)`, how far its own stratified mean lies above the best
  reference model in the mean's error scale, instead of the blend above (docs/ESTIMATE.md, "Models beyond the
  build range on a stratified suite").
* **The underestimate measured on the strongest fold** (:func:`shift_correction`; 50 reference models or
  more, any suite but a stratified random one). The strongest fold (the strongest 20 % of the reference
  models, fitted on the rest) measures how far the headline method falls short of models stronger than
  the ones it was fitted on; an edge model's headline is raised by that mean shortfall times
  :math:`w = \Phi((\hat Z - Z^{max}) / s)`, how far its own estimate lies above the best reference model
  in the headline's error scale (docs/ESTIMATE.md, "The strongest fold's underestimate").
* **Warnings.** Every edge model is named in one warning (the estimate may be too low, whose estimator
  gave it, the upper end was widened), besides the per-model warning of an extrapolating one.

Limits. The shift the build models can simulate is smaller than a real release's when the strongest models
are far out: on a simulated two-skill panel (``tests/compression/test_extrapolation.py``'s, strongest 40 %
held out) the widening took coverage from 0.74 to 0.90 with seed 0, but left seed 1 at 0.75. And the estimate
stays biased: the suite's items carry no information on how much stronger such a model is.

This buys coverage for stronger releases with width for the top of an ordinary (random) split, where the
edge models are exchangeable with the strongest build models and did not need it; the cost is measured in
``benchmarks/bench_estimate_peers.py`` (``--splits random,strongest``, coverage and width columns) and
written in docs/ESTIMATE.md.
"""

from __future__ import annotations

import math

import numpy as np

from benchsift.stats.conformal import conformal_rank
from benchsift.stats.means import nan_mean

__all__ = [
    "EDGE_FOLD",
    "SHIFT_CORRECTION_MIN_REFERENCE",
    "SHIFT_SHARES",
    "STRATA",
    "beyond_mix",
    "edge_upper_halfwidth",
    "edge_warning",
    "shift_correction",
    "shift_upper_halfwidth",
    "stratified_blend",
    "stratified_estimate",
]

#: Shares of the build models (the strongest by full overall score) held out together in the shift folds.
#: The first is :data:`~benchsift.compression.full_score.STRONG_SHARE`'s fold (it also enters the choice of
#: the estimator); the larger one mimics a release stronger than the top two fifths of the build models.
SHIFT_SHARES = (0.2, 0.4)
#: The weak fold: the weakest share of the reference models by full score, held out together; its models'
#: highest suite ability starts the lower edge (:math:`\theta_{weak}`), where a model's interval's lower end
#: is at least that fold's half-width (``FullScoreModel.halfwidth_weak``). Building on the strongest 60 % of
#: a panel and estimating the weakest 40 % (``benchmarks/bench_estimate_peers.py --splits weakest``) the
#: 95 % intervals covered as little as 0.49 without it (docs/ESTIMATE.md, "Models weaker than the build
#: models").
WEAK_SHARE = 0.2
#: The shift fold whose models' lowest suite ability starts the edge zone (:math:`\theta_{edge}`).
EDGE_FOLD = 1
#: Most difficulty strata of :func:`stratified_estimate` (fewer where a group has under
#: ``STRATA_MIN_ITEMS`` suite items per stratum).
STRATA = 8
STRATA_MIN_ITEMS = 4
#: Fewest reference models for which :func:`shift_correction` raises an edge model's headline: the strongest
#: fold (a fifth of them) then holds at least 10 models, and the cross-validation is trusted to choose
#: (:data:`benchsift.compression.full_score.CHOICE_MIN_REFERENCE`); the small build panels have the
#: stratified suite's :func:`beyond_mix` instead.
SHIFT_CORRECTION_MIN_REFERENCE = 50


def stratified_estimate(
    X_suite: np.ndarray,
    suite_cols: list[np.ndarray],
    p_suite: list[np.ndarray],
    p_rest: list[np.ndarray],
    n_benchmarks: int,
    level: float,
) -> tuple[np.ndarray, np.ndarray]:
    r"""The difficulty-stratified mean of each new model's own suite answers and its design-based upper end,
    ``(n, n_groups + 1)`` each (the last column the mean over the ``n_benchmarks`` benchmark groups).

    Per group, the pool's items are cut into :math:`J` strata of difficulty (their mean correctness over
    the reference models: ``p_suite`` for the group's suite items, observed; ``p_rest`` for its other pool
    items, from the 2PL at the reference abilities) at the quantiles of the suite items' difficulties, so
    that each stratum holds about as many suite items (:math:`J` = ``min(STRATA, n_suite //
    STRATA_MIN_ITEMS)``, at least 1). The estimate is the post-stratified mean (Cochran 1977, *Sampling
    Techniques*, sec. 5A.9)

    .. math:: \hat Z^{st} = \sum_j W_j \bar y_j,\qquad
              \widehat{\mathrm{Var}} = \sum_j W_j^2 \frac{\tilde y_j (1 - \tilde y_j)}{n_j}

    with :math:`W_j` the stratum's share of the pool's items, :math:`\bar y_j` the model's mean over its
    :math:`n_j` answered suite items of the stratum and :math:`\tilde y_j = (n_j \bar y_j + 1/2) / (n_j +
    1)` (so that a stratum answered all right or all wrong still has a variance); a stratum the model has
    no answer in is left out and the shares renormalised. The upper end is
    :math:`\hat Z^{st} + z_{(1 + \text{level})/2} \sqrt{\widehat{\mathrm{Var}}}`, clipped to [0, 1].

    It fits no curve on the reference models: only the strata come from them. Measured on real panels
    (issue 31, built on the weakest 60 %, the strongest 40 % estimated), it lies *above* the truth of
    stronger models (+0.05 to +0.15: within a stratum of equal difficulty for the reference models, the
    suite holds the items most informative about them, which a stronger model answers right more often)
    where every estimator through the ability lies below it; it is used here as the upper end of models
    at the edge, the side the shift pulls the other estimators away from.
    """
    from scipy.stats import norm

    X = np.asarray(X_suite, dtype=np.float64)
    n = X.shape[0]
    ng = len(suite_cols)
    est = np.full((n, ng), np.nan)
    var = np.full((n, ng), np.nan)
    for g, (cols, ps, pr) in enumerate(zip(suite_cols, p_suite, p_rest, strict=True)):
        if cols.size == 0:
            continue
        J = max(1, min(STRATA, cols.size // STRATA_MIN_ITEMS))
        cuts = np.quantile(ps, np.linspace(0.0, 1.0, J + 1)[1:-1]) if J > 1 else np.zeros(0)
        s_of = np.searchsorted(cuts, ps)
        share = np.bincount(s_of, minlength=J) + np.bincount(np.searchsorted(cuts, pr), minlength=J)
        Y = X[:, cols]
        seen = ~np.isnan(Y)
        k = np.column_stack(
            [np.where(seen[:, s_of == j], Y[:, s_of == j], 0.0).sum(axis=1) for j in range(J)]
        )
        nj = np.column_stack([seen[:, s_of == j].sum(axis=1) for j in range(J)]).astype(np.float64)
        W = np.where(nj > 0, share[None, :].astype(np.float64), 0.0)
        tot = W.sum(axis=1, keepdims=True)
        ok = tot[:, 0] > 0
        W = np.divide(W, tot, out=np.zeros_like(W), where=tot > 0)
        ybar = np.divide(k, nj, out=np.zeros_like(k), where=nj > 0)
        yt = (k + 0.5) / (nj + 1.0)
        v = np.divide(W**2 * yt * (1.0 - yt), nj, out=np.zeros_like(W), where=nj > 0)
        est[ok, g] = (W * ybar).sum(axis=1)[ok]
        var[ok, g] = v.sum(axis=1)[ok]
    nb = n_benchmarks
    over = nan_mean(est[:, :nb], axis=1) if nb else np.full(n, np.nan)
    cnt = np.sum(~np.isnan(est[:, :nb]), axis=1)
    over_v = np.divide(np.nansum(var[:, :nb], axis=1), cnt**2, out=np.full(n, np.nan), where=cnt > 0)
    est = np.column_stack([est, np.where(cnt > 0, over, np.nan)])
    var = np.column_stack([var, over_v])
    z = float(norm.ppf(0.5 + float(level) / 2.0))
    return est, np.clip(est + z * np.sqrt(var), 0.0, 1.0)


def shift_upper_halfwidth(underestimates: np.ndarray, level: float) -> float:
    """:math:`h^{\\uparrow}`: the ``ceil((n + 1) level)``-th smallest of ``max(u, 0)`` over the finite
    ``u`` (truth minus estimate on the shift folds), or their largest times ``(n + 1) / n`` when ``n`` is too
    small for ``level``; NaN when there is none."""
    u = np.asarray(underestimates, dtype=np.float64)
    r = np.sort(np.maximum(u[np.isfinite(u)], 0.0))
    n = r.shape[0]
    if n == 0:
        return math.nan
    k = conformal_rank(n, level)
    return float(r[k - 1]) if k <= n else float(r[-1]) * (n + 1) / n


def stratified_blend(
    score: np.ndarray,
    stratified: np.ndarray,
    at_edge: np.ndarray,
    reference_full: np.ndarray,
    upper: np.ndarray | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    r"""The headline of the models beyond the build range by their own answers, and where it was changed.

    ``score``, ``stratified``: ``(n, n_groups + 1)`` the headline estimates and the stratified means
    (:func:`stratified_estimate`); ``at_edge``: ``(n,)``; ``reference_full``: ``(n_ref, n_groups + 1)``
    the reference models' full scores; ``upper``: the stratified means' design-based upper ends. Where a
    model is at the edge and its stratified mean lies above every reference model's full score of the
    column -- with ``upper`` given, its lower end mirrored from the upper one,
    :math:`\hat Z^{st} - (U^{st} - \hat Z^{st})`, must: beyond the build range by a test on its own
    answers, not by the mean's upward bias alone -- the estimate is :math:`(\hat Z + \hat Z^{st}) / 2`:
    the estimators through the ability are pulled *down* by a shift their curves were not fitted on, the
    stratified mean lies *above* a stronger model's truth (:func:`stratified_estimate`), and their mean
    halves both biases (measured in docs/ESTIMATE.md, "Stronger new models"; an empirical rule, not an
    unbiased estimator). The interval is left as it is: it already holds both (the lower end the headline's,
    the upper end at least the stratified mean's own upper end)."""
    ref = np.where(np.isnan(reference_full), -np.inf, reference_full).max(axis=0)
    test = stratified if upper is None else 2.0 * stratified - upper
    beyond = np.asarray(at_edge, dtype=bool)[:, None] & np.isfinite(stratified) & (test > ref[None, :])
    return np.where(beyond, 0.5 * (score + stratified), score), beyond


def stratified_blend_below(
    score: np.ndarray,
    stratified: np.ndarray,
    upper: np.ndarray,
    below: np.ndarray,
    reference_full: np.ndarray,
) -> tuple[np.ndarray, np.ndarray]:
    r""":func:`stratified_blend` at the lower edge: where a model is at the lower edge (``below``) and the
    design-based *upper* end ``upper`` of its stratified mean lies below every reference model's full
    score of the column (beyond the build range at the bottom by a test on its own answers), the estimate
    is :math:`(\hat Z + \hat Z^{st}) / 2`. The estimators through the ability are pulled *up* there (a
    weaker model answers the suite like the weakest reference models, and their curves fill its other
    items as theirs), while the stratified mean errs the other way for it (the suite holds the items most
    informative about the reference models, which a weaker model answers wrong more often): the mean
    halves both biases (an empirical rule, as above). Returns the estimates and where they changed."""
    ref = np.where(np.isnan(reference_full), np.inf, reference_full).min(axis=0)
    beyond = np.asarray(below, dtype=bool)[:, None] & np.isfinite(stratified) & (upper < ref[None, :])
    return np.where(beyond, 0.5 * (score + stratified), score), beyond


def beyond_mix(
    score: np.ndarray,
    design: np.ndarray,
    halfwidth: np.ndarray,
    at_edge: np.ndarray,
    reference_full: np.ndarray,
    level: float,
) -> tuple[np.ndarray, np.ndarray]:
    r"""On a stratified random suite, the headline of each model at the edge moved towards the design-based
    stratified mean by how sure its own answers make it that the model is beyond the build range.

    ``score``, ``design``: ``(n, n_groups + 1)`` the headline estimates and the stratified means (the
    ``anchor`` estimate of a suite fitted with ``fit_full_score(stratified=True)``: each suite item weighted
    by the items of its category it stands for); ``halfwidth``: ``(n_groups + 1,)`` the stratified mean's
    split-conformal half-width at ``level`` on the random folds; ``at_edge``: ``(n,)``; ``reference_full``:
    ``(n_ref, n_groups + 1)`` the reference models' full scores. Per column, with :math:`Z^{max}` the
    best reference model's full score and :math:`s = h / z_{(1 + \text{level}) / 2}` the stratified mean's
    error scale,

    .. math:: w = \Phi\bigl((\hat Z^{st} - Z^{max}) / s\bigr), \qquad
              \hat Z = (1 - w)\,\hat Z^{head} + w\,\hat Z^{st}

    for a model at the edge (``w = 0`` elsewhere, and where the half-width or the stratified mean is not
    finite): about 0.5 for a model that answers like the best reference model, near 1 for one clearly
    beyond it, near 0 for one inside the range. On a stratified random sample the stratified mean is
    unbiased for *any* model (Cochran 1977, *Sampling Techniques*, ch. 5), a stronger release too, where the
    estimators through the ability are pulled down by a shift their curves were not fitted on; inside the
    range they are the more precise. The weight is the rule of the adaptive bank's EM curves
    (:meth:`benchsift.adaptive.bank.ItemBank.beyond_weight`), here on the design-based estimate's own
    distance from the build range. Measured in docs/ESTIMATE.md, "Models beyond the build range on a
    stratified suite". Returns the estimates and ``w > 0.5``."""
    design = np.asarray(design, dtype=np.float64)
    w, ok = _beyond_weight(design, halfwidth, at_edge, reference_full, level)
    return np.where(ok, (1.0 - w) * score + w * np.where(ok, design, 0.0), score), w > 0.5


def _beyond_weight(
    value: np.ndarray, halfwidth: np.ndarray, at_edge: np.ndarray, reference_full: np.ndarray, level: float
) -> tuple[np.ndarray, np.ndarray]:
    r"""``w = Phi((value - Z^max) / s)`` per model and column, ``s = halfwidth / z_{(1 + level) / 2}``
    (``halfwidth`` one row for all models or one per model), and where it applies: a model at the edge with
    a finite value, scale and best reference score (``w = 0`` elsewhere). The weight of :func:`beyond_mix`
    and :func:`shift_correction`."""
    from scipy.stats import norm

    value = np.asarray(value, dtype=np.float64)
    ref = np.where(np.isnan(reference_full), -np.inf, reference_full).max(axis=0)[None, :]
    scale = np.broadcast_to(halfwidth, value.shape) / float(norm.ppf(0.5 + float(level) / 2.0))
    ok = np.asarray(at_edge, dtype=bool)[:, None] & np.isfinite(value) & np.isfinite(ref)
    ok &= np.isfinite(scale) & (scale > 0)
    z = np.divide(value - ref, scale, out=np.full(value.shape, -np.inf), where=ok)
    return np.where(ok, norm.cdf(z), 0.0), ok


def shift_correction(
    score: np.ndarray,
    underestimate: np.ndarray,
    halfwidth: np.ndarray,
    at_edge: np.ndarray,
    reference_full: np.ndarray,
    level: float,
) -> tuple[np.ndarray, np.ndarray]:
    r"""The headline of each model at the edge raised by the underestimate measured on the strongest fold, as
    far as its own estimate puts it beyond the build range.

    ``score``: ``(n, n_groups + 1)`` the headline estimates; ``underestimate``: ``(n_groups + 1,)`` (or one
    row per model, ``(n, n_groups + 1)``, where the models' headlines come from different estimators) the
    estimator's mean of *truth minus estimate* over the strongest fold's models (the strongest
    :data:`~benchsift.compression.full_score.STRONG_SHARE` of the reference models held out together and
    estimated from the others: a shift of the kind a stronger release brings, in small);
    ``halfwidth``: the same shape, the estimator's split-conformal half-width at ``level`` on the random
    folds; ``at_edge``: ``(n,)``; ``reference_full``: ``(n_ref, n_groups + 1)`` the reference models' full
    scores. Per column, with :math:`Z^{max}` the best reference model's full score,
    :math:`s = h / z_{(1 + \text{level}) / 2}` the headline's error scale and :math:`b` the underestimate,

    .. math:: w = \Phi\bigl((\hat Z - Z^{max}) / s\bigr), \qquad \hat Z' = \hat Z + w \max(b, 0)

    for a model at the edge (``w = 0`` elsewhere, and where ``b``, the half-width or the estimate is not
    finite); clipped to [0, 1]. About half the shortfall for a model estimated like the best reference
    model, near all of it for one estimated clearly beyond it, near none inside the range, where the
    estimators through the ability have the strongest reference models to learn from and are not pulled
    down (on random 60 / 40 splits of MMT, AI2D and MMMU the MAE moved by at most 0.0001). An overestimate on
    the fold (``b < 0``) lowers nothing: the mechanism is the curves fitted on weaker models, which pull a
    stronger model down. The weight is that of :func:`beyond_mix`, on the headline's own distance. The fold
    simulates a smaller shift than a real release's (its models are beyond the others by a fifth of the
    panel), so this is a partial correction, not an unbiased one: on MMT's strongest-40 % split the bias of
    the estimate went from -0.030 to -0.023 at 5 % of the items (docs/ESTIMATE.md, "The strongest fold's
    underestimate"). Returns the estimates and ``w``."""
    score = np.asarray(score, dtype=np.float64)
    lift = np.fmax(np.broadcast_to(underestimate, score.shape).astype(np.float64), 0.0)  # NaN stays NaN
    w, ok = _beyond_weight(score, halfwidth, at_edge, reference_full, level)
    ok &= np.isfinite(lift)
    w = np.where(ok, w, 0.0)
    raised = np.clip(score + w * np.where(ok, lift, 0.0), 0.0, 1.0)
    return np.where(ok, raised, score), w


def edge_upper_halfwidth(
    hw: np.ndarray,
    hw_up: np.ndarray,
    theta: np.ndarray,
    theta_edge: float,
    theta_max: float,
    span: float,
) -> tuple[np.ndarray, np.ndarray]:
    """Upper half-widths ``(n, n_groups)`` and the edge mask ``(n,)``.

    ``hw``: the half-widths as computed without this module, ``(n, n_groups)``; ``hw_up``:
    :math:`h^\\uparrow` per group ``(n_groups,)`` (NaN: nothing measured, ``hw`` kept); ``theta``: the new
    models' suite abilities.
    An edge model (``theta >= theta_edge``) gets ``max(hw, hw_up * (1 + f))`` with
    ``f = max(theta - theta_max, 0) / span``; the others keep ``hw``.
    """
    hw = np.asarray(hw, dtype=np.float64)
    theta = np.asarray(theta, dtype=np.float64)
    edge = (
        np.isfinite(theta) & (theta >= theta_edge) if np.isfinite(theta_edge) else np.zeros(theta.shape, bool)
    )
    up = np.asarray(hw_up, dtype=np.float64)[None, :]
    far = np.where(np.isfinite(theta) & (theta > theta_max), (theta - theta_max) / span, 0.0)
    grown = np.where(np.isfinite(up), up * (1.0 + far[:, None]), -np.inf)
    return np.where(edge[:, None], np.maximum(hw, grown), hw), edge


def _first_names(names: list[str], idx: np.ndarray) -> str:
    """The first five of the models ``names[idx]``, quoted, and how many more (for a warning)."""
    return ", ".join(repr(names[j]) for j in idx[:5]) + (f" and {idx.size - 5} more" if idx.size > 5 else "")


def low_edge_warning(
    names: list[str], below: np.ndarray, theta_weak: float, n_reference: int, n_blended: int = 0
) -> str | None:
    """One warning naming the models at the lower edge (``None`` when there is none): as weak on the suite
    as the weakest fifth of the reference models, where a weaker model answers like them and its estimate is
    then too high; their lower ends were widened (``FullScoreModel._lower_edge_halfwidth``, the anchor and
    stratified means' lower ends); ``n_blended`` of them were blended (:func:`stratified_blend_below`)."""
    idx = np.flatnonzero(below)
    if idx.size == 0:
        return None
    shown = _first_names(names, idx)
    return (
        f"{idx.size} model(s) ({shown}) are as weak on the suite as the weakest {WEAK_SHARE:.0%} of the "
        f"{n_reference} reference models (ability <= {theta_weak:+.2f}): a model weaker than every reference "
        "model looks like them on these items, and its full-score estimate is then too high; their "
        "intervals' lower ends were widened to the errors of a cross-validation fold that holds out the "
        "weakest reference models and to the lower ends of the anchor and difficulty-stratified means of "
        "their own suite answers"
        + (
            f"; {n_blended} of them {'scores' if n_blended == 1 else 'score'} below every reference model on "
            "that stratified mean: their estimates are the mean of the two (outside the build range)"
            if n_blended
            else ""
        )
    )


def edge_warning(
    names: list[str],
    edge: np.ndarray,
    theta_edge: float,
    n_reference: int,
    method: str | None = None,
    n_blended: int = 0,
    design: bool = False,
    n_raised: int = 0,
    largest_rise: float = math.nan,
) -> str | None:
    """One warning naming the edge models (``None`` when there is none); ``method``: their estimator,
    chosen on the shift folds (``None``: the headline method, nothing said); ``n_blended``: how many of them
    lie beyond every reference model by their own answers and got the mean with the stratified mean
    (:func:`stratified_blend`), or with ``design`` (a stratified random suite, :func:`beyond_mix`) whose
    estimate moved more than half way to the suite's design-based stratified mean; ``n_raised``: how many
    were raised by more than half of the strongest fold's underestimate (:func:`shift_correction`), and
    ``largest_rise``: the largest rise."""
    idx = np.flatnonzero(edge)
    if idx.size == 0:
        return None
    scores, are = ("scores" if n_blended == 1 else "score"), ("is" if n_raised == 1 else "are")
    shown = _first_names(names, idx)
    return (
        f"{idx.size} model(s) ({shown}) are as able on the suite as the strongest of the {n_reference} "
        f"reference models (ability >= {theta_edge:+.2f}): a model stronger than every reference model looks "
        "like them on these items, and its full-score estimate is then too low; "
        + (f"their estimates are {method!r}'s, the estimator with the least error on " if method else "")
        + ("those folds, and " if method else "")
        + "their intervals' upper ends were widened to the errors of cross-validation folds that hold out "
        "the strongest reference models and to the upper end of the difficulty-stratified mean of their own "
        "suite answers"
        + (
            f"; {n_blended} of them {scores} above every reference model on the suite's design-based "
            "stratified mean (a stratified random sample: unbiased for a stronger model too): their "
            "estimates moved more than half way to it"
            if n_blended and design
            else f"; {n_blended} of them {scores} above every reference model on that stratified mean: their "
            "estimates are the mean of the two (outside the build range; on a few suite items that mean is "
            "noisy, and the estimate can then be too high)"
            if n_blended
            else ""
        )
        + (
            f"; {n_raised} of them {are} estimated above every reference model: their estimates were raised "
            f"by up to {largest_rise:.3f}, by the mean underestimate of a cross-validation fold that holds "
            "out the strongest fifth of the reference models, weighted by how far above those models each "
            "estimate lies (a partial correction: a release far beyond them is still estimated too low)"
            if n_raised
            else ""
        )
    )
