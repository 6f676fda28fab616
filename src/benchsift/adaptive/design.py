r"""What a bank's 2PL cannot say about a new model, measured on its own models, and a sample that says it.

The adaptive estimate of a full benchmark score fills every item a model did not run with its expected
score at the model's ability (:meth:`~benchsift.adaptive.bank.ItemBank.full_scores`, the p-IRT estimator).
However precisely the ability is known, a model's real mean differs from that curve: the *misfit*. On a
bank fitted on few models it is large (MMLU-Pro, 17 models, 12,032 items: a held-out model's mean is
off the curve at its full-run ability by 0.034 in root mean square, more than the sampling error of 241
items spread over the difficulty, 0.025), and a plain random subset of the items beat both adaptive tests
(README). This module measures the misfit and corrects for it.

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
(Särndal, Swensson and Wretman 1992, *Model Assisted Survey Sampling*, section 6.3); adding none gives the
p-IRT (synthetic) one, whose error is the misfit. The composite of the two (Rao and Molina 2015, *Small
Area Estimation*, 2nd ed., section 3.3, eq. 3.3.3, with the weight that minimises the mean squared error
of two independent errors) adds the shrunk correction

.. math:: \hat Z_G \mathrel{+}= \lambda_G\, \frac{|G \setminus O|}{|G|}\, \bar r_G, \qquad
          \lambda_G = \frac{\tau^2_G}{\tau^2_G + s^2_G / k},

to the p-IRT estimate of benchmark ``G`` (:math:`O`: the items answered; only the unanswered share is
estimated). With a small misfit or a small sample :math:`\lambda \to 0` (the p-IRT estimate); with a large
misfit and many sample items :math:`\lambda \to 1`.

**Whole budget spread** (:func:`spread_wins`). When even the sampling error of the whole budget spread over
the difficulty is below the misfit, :math:`s^2_G / k_G \le \tau^2_G` for every benchmark (``k_G``: the
budget's spread items in ``G``), the ability's precision is not what limits the estimate, and every item
of the budget is given spread (a static, stratified test) rather than only a quarter
(:func:`benchsift.adaptive.select.static_start_items`). Measured against the reference CAT on seven real
panels (README): on MMLU-Pro (17 bank models) the MAE went from 1.09 / 1.03 / 1.03 to 0.99 / 0.76 / 0.46 x the
CAT's at 1 / 2 / 5 % of the items; on the six panels with 24-101 bank models the rule kept the adaptive
design at every budget, and the composite correction of the quarter start lowered the MAE (AI2D, MMT, GSM8K
at 5 %: by 0.02-0.04 x) or left it.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from benchsift.panel import Panel

__all__ = ["composite_correction", "out_of_fold_misfit", "spread_wins"]

#: Folds of the out-of-fold misfit, by default.
MISFIT_FOLDS = 5


def out_of_fold_misfit(
    panel: Panel,
    fit: Callable[[Panel], object],
    groups: Sequence[np.ndarray],
    n_folds: int = MISFIT_FOLDS,
    random_state: int = 0,
    min_train: int = 5,
) -> tuple[np.ndarray, np.ndarray] | None:
    """``(tau2, s2)`` per group of item positions (module docstring), or ``None`` when a fold's training
    part would hold fewer than ``min_train`` models or ``n_folds < 2``.

    ``panel``: the image panel the bank is fitted on; ``fit(panel)`` fits a bank with the caller's options
    (it must have ``score(X).theta`` and ``expected(theta)``); ``groups``: item positions per benchmark.
    Folds: ``np.random.default_rng(random_state).permutation(n) % n_folds``."""
    n = panel.n_models
    k = int(n_folds)
    if k < 2 or n - -(-n // k) < int(min_train):
        return None
    folds = np.random.default_rng(int(random_state)).permutation(n) % k
    means = np.full((n, len(groups)), np.nan)
    squares = np.full((n, len(groups)), np.nan)
    for f in range(k):
        held = np.flatnonzero(folds == f)
        bank = fit(panel.subset(models=np.flatnonzero(folds != f)))
        X = panel.scores[held]
        resid = X - bank.expected(bank.score(X).theta)  # type: ignore[attr-defined]
        for g, cols in enumerate(groups):
            r = resid[:, cols]
            seen = (~np.isnan(r)).sum(axis=1)
            ok = seen > 0
            means[held[ok], g] = np.nansum(r[ok], axis=1) / seen[ok]
            squares[held[ok], g] = np.nansum(r[ok] ** 2, axis=1) / seen[ok]
    if not np.isfinite(means).any(axis=0).all():
        return None
    return np.nanmean(means**2, axis=0), np.nanmean(squares, axis=0)


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
    estimate fills the unanswered items with; ``sample``: bank positions of the spread sample."""
    out = np.zeros((X.shape[0], len(groups)))
    in_sample = np.zeros(X.shape[1], dtype=bool)
    in_sample[np.asarray(sample, dtype=np.int64)] = True
    answered = ~np.isnan(X)
    for g, cols in enumerate(groups):
        cols = np.asarray(cols, dtype=np.int64)
        s_cols = cols[in_sample[cols]]
        tau2, s2 = float(misfit_var[g]), float(residual_var[g])
        if s_cols.size == 0 or not tau2 > 0:  # no sample, or no misfit: the p-IRT estimate as it is
            continue
        r = X[:, s_cols] - fill[:, s_cols]  # NaN where not answered (or a graded item has no fill)
        k = np.isfinite(r).sum(axis=1)
        has = k > 0
        rbar = np.where(has, np.where(np.isfinite(r), r, 0.0).sum(axis=1) / np.maximum(k, 1), 0.0)
        lam = np.where(has, tau2 / (tau2 + s2 / np.maximum(k, 1)), 0.0)
        unanswered = (~answered[:, cols]).sum(axis=1) / cols.size
        out[:, g] = lam * unanswered * rbar
    return out


def spread_wins(
    sample: np.ndarray, groups: Sequence[np.ndarray], misfit_var: np.ndarray, residual_var: np.ndarray
) -> bool:
    """Whether a budget given whole as the spread ``sample`` beats the 2PL's curve (module docstring):
    ``s2 / k <= tau2`` for every group, ``k`` its items in ``sample`` (none: False)."""
    in_sample = np.zeros(max((int(c.max()) + 1 for c in groups if c.size), default=0), dtype=bool)
    sample = np.asarray(sample, dtype=np.int64)
    in_sample[sample[sample < in_sample.size]] = True
    for g, cols in enumerate(groups):
        k = int(in_sample[np.asarray(cols, dtype=np.int64)].sum())
        if k == 0 or float(residual_var[g]) / k > float(misfit_var[g]):
            return False
    return True
