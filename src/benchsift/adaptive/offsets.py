r"""Per-benchmark ability offsets: a bank of several benchmarks, where a model is not equally able on each.

The full-score estimate (:meth:`~benchsift.adaptive.bank.ItemBank.full_scores`) fills every item a model
did not answer with its expected score at the model's one ability :math:`\hat\theta`. On a bank of several
benchmarks that is a model of equal ability everywhere: a model better at MMMU than its AI2D answers say
gets MMMU's unanswered items filled as if it were not. Here a model's ability on benchmark ``b`` is
:math:`\theta + \delta_b`, :math:`\delta_b \sim N(0, \tau_b^2)` (a bifactor-like structure with one
specific factor per benchmark and its loading fixed to the general one's; Gibbons and Hedeker 1992,
"Full-information item bi-factor analysis", Psychometrika 57(3)), and the unanswered items of ``b`` are
filled with :math:`E[y_i \mid \hat\theta + \hat\delta_b]`.

**The offset of one model on one benchmark** (:func:`offsets`), given :math:`\hat\theta` and the items
:math:`O_b` of ``b`` it answered: the maximum of the quasi-likelihood (Wedderburn 1974, "Quasi-likelihood
functions, generalized linear models, and the Gauss-Newton method", Biometrika 61(3)) with the prior,

.. math:: \hat\delta_b = \arg\max_\delta \; -\sum_{i \in O_b} \frac{(y_i - E_i(\hat\theta + \delta))^2}
          {2 V_i} - \frac{\delta^2}{2\tau_b^2}, \qquad V_i = \max\big(E_i (1 - E_i), 0.05\big),

by five Gauss-Newton steps from 0 (:math:`E_i` and its derivative at the current value; for a 2PL item and
:math:`V_i = E_i(1-E_i)` these are Newton's steps on the Bernoulli likelihood; graded items use the same
form with the derivative by central differences). A model that answered none of ``b`` gets
:math:`\hat\delta_b = 0`.

**The spread of the offsets** (:func:`offset_variances`), from the bank's reference models, each with all its
items: :math:`\hat\delta_{mb}` as above with a flat-ish prior (sd 3), then the method of moments,

.. math:: \hat\tau_b^2 = \max\Big(\operatorname{var}_m \hat\delta_{mb}
          - \operatorname{mean}_m \frac{1}{H_{mb}},\; 10^{-4}\Big),

:math:`H_{mb}` the Gauss-Newton precision of :math:`\hat\delta_{mb}` (its sampling variance about
:math:`1/H_{mb}`).

The residual factors of a 2PL bank (:mod:`benchsift.adaptive.bank`) and the composite correction
(:func:`benchsift.adaptive.design.composite_correction`) are applied after the offsets, to what they leave.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

__all__ = ["OFFSET_FLOOR", "offset_variances", "offsets"]

#: the smallest offset variance kept (a benchmark whose models' offsets are all within their noise)
OFFSET_FLOOR = 1e-4
#: Gauss-Newton steps of one offset
_STEPS = 5
#: the floor of an item's variance in the quasi-likelihood (as the residual factors' weights)
_VAR_FLOOR = 0.05
#: the prior sd of the reference models' offsets when their spread is measured
_WIDE_SD = 3.0
#: central-difference step of the expected score's derivative
_STEP = 1e-3


def offsets(
    expected: Callable[[np.ndarray, np.ndarray], np.ndarray],
    theta: np.ndarray,
    X: np.ndarray,
    groups: Sequence[np.ndarray],
    variances: np.ndarray,
) -> tuple[np.ndarray, np.ndarray]:
    """``(n, n_groups)`` offsets :math:`\\hat\\delta` and their precisions (module docstring).

    ``expected(theta, cols)``: the ``(n, len(cols))`` expected scores of the bank items ``cols`` at
    abilities ``theta`` (NaN for an item without a fit, left out); ``X``: the models' scores (NaN = not
    answered); ``groups``: the bank positions of each benchmark's items; ``variances``:
    :math:`\\tau_b^2` per group."""
    theta = np.atleast_1d(np.asarray(theta, dtype=np.float64))
    X = np.atleast_2d(np.asarray(X, dtype=np.float64))
    n = X.shape[0]
    delta = np.zeros((n, len(groups)))
    precision = np.zeros((n, len(groups)))
    for g, cols in enumerate(groups):
        cols = np.asarray(cols, dtype=np.int64)
        prior = 1.0 / float(variances[g])
        answered = ~np.isnan(X[:, cols])
        if not answered.any():
            precision[:, g] = prior
            continue
        y = np.where(answered, X[:, cols], 0.0)
        d = np.zeros(n)
        h = np.full(n, prior)
        for _ in range(_STEPS):
            at = theta + d
            e = expected(at, cols)
            de = (expected(at + _STEP, cols) - expected(at - _STEP, cols)) / (2 * _STEP)
            use = answered & np.isfinite(e) & np.isfinite(de)
            e, de = np.where(use, e, 0.5), np.where(use, de, 0.0)
            w = use / np.maximum(e * (1.0 - e), _VAR_FLOOR)
            h = (w * de * de).sum(axis=1) + prior
            d = d + ((w * de * (y - e)).sum(axis=1) - prior * d) / h
        delta[:, g], precision[:, g] = d, h
    return delta, precision


def offset_variances(
    expected: Callable[[np.ndarray, np.ndarray], np.ndarray],
    theta: np.ndarray,
    X: np.ndarray,
    groups: Sequence[np.ndarray],
) -> np.ndarray:
    """:math:`\\hat\\tau_b^2` per group from the reference models' scores ``X`` and abilities ``theta``
    (module docstring), at least :data:`OFFSET_FLOOR`."""
    wide = np.full(len(groups), _WIDE_SD**2)
    delta, precision = offsets(expected, theta, X, groups, wide)
    out = np.full(len(groups), OFFSET_FLOOR)
    for g in range(len(groups)):
        seen = (~np.isnan(np.asarray(X)[:, np.asarray(groups[g], dtype=np.int64)])).any(axis=1)
        if seen.sum() >= 2:
            spread = float(np.var(delta[seen, g])) - float(np.mean(1.0 / precision[seen, g]))
            out[g] = max(spread, OFFSET_FLOOR)
    return out
