r"""The ``factor`` full-score estimator: posterior mean under a multidimensional logistic factor model.

Used by :mod:`benchsift.compression.full_score` (with at least :data:`FACTOR_MIN_REFERENCE` reference
models and at most :data:`FACTOR_MAX_CELLS` reference cells) as a fourth component of the stack. A
:class:`benchsift.irt.factor.LogisticFactor` with :data:`FACTOR_DIM` factors is fitted on the reference
models' scores on *every* pool item; a new model's full score on group ``g`` (items ``G``, suite items
``S_g``) is the posterior mean

.. math:: \hat Z^{factor}_g = \frac{1}{|G|}\Big(\sum_{j \in S_g} \tilde y_j
          + \sum_s w_s \sum_{j \in G \setminus S_g} \sigma(\theta_s \cdot a_j + d_j)\Big),

over :data:`FACTOR_SAMPLES` draws :math:`\theta_s` from the kernel density of the reference models'
abilities (bandwidth :data:`FACTOR_BANDWIDTH`), weighted by their likelihood of the model's suite answers
(:func:`benchsift.irt.factor.posterior_weights`); :math:`\tilde y_j` is the answer, or its posterior mean
for a suite item the model did not run. Measured on MMT-Bench and AI2D (60/40 random splits, seeds 0-3,
tinyBenchmarks' own anchors, 2 / 5 / 10 %): the posterior mean with three factors, mixed half and half with
the anchor mean, erred less than tinyBenchmarks' gp-IRT in 20 of 21 cells (MMT 0.0232 / 0.0191 / 0.0134
against 0.0253 / 0.0207 / 0.0155 on seed 0); on the ZeroEval LLM panels (25-29 build models) it erred
more than gp-IRT at 10 % (GSM8K 1.17-1.44x), hence the threshold.

The factor fit does not depend on the suite, only on the reference rows, so fits are kept per process for
the rows they were made on (:func:`fit_factor`; ``compress`` weighs two suite designs on the same folds).
"""

from __future__ import annotations

import hashlib
from collections import OrderedDict
from dataclasses import dataclass

import numpy as np
from scipy.special import expit

from benchsift.irt.factor import LogisticFactor, ability_samples, expected_correct, posterior_weights

__all__ = [
    "FACTOR_BANDWIDTH",
    "FACTOR_DIM",
    "FACTOR_MAX_CELLS",
    "FACTOR_MIN_REFERENCE",
    "FACTOR_SAMPLES",
    "FactorState",
    "factor_applies",
    "factor_estimates",
    "factor_state",
    "fit_factor",
]

#: Fewest reference models with which ``factor`` is fitted and enters the stack (with fewer, it is p-IRT
#: and its stack weight is 0): on the ZeroEval LLM panels (25-29 build models) three factors overfit
#: (held-out MAE up to 1.44x gp-IRT's at 10 %), on MMT-Bench and AI2D (82-101) they paid.
FACTOR_MIN_REFERENCE = 50
#: Most reference cells (models x pool items) on which the factor model is fitted (above: no factor model,
#: as below :data:`FACTOR_MIN_REFERENCE`). A fit costs ``O(M N D)`` per L-BFGS step, ~0.5 s of CPU at
#: 123 x 3,127 (MMT-Bench's build models; 2.5 s before the one-pass log-likelihood), and ``fit_full_score``
#: makes one per fold (13 with the default 10 folds): ~7 s there, ~20 s at this bound.
FACTOR_MAX_CELLS = 1_000_000
#: Factors of the model (MMT-Bench, seed 0, a held-out model's full score from all its answers: 0.0157 with
#: one, 0.0137 with two, 0.0095 with three, 0.0099 with five).
FACTOR_DIM = 3
#: Prior draws of the importance sampler.
FACTOR_SAMPLES = 4000
#: Kernel bandwidth of the ability prior, in units of the reference abilities' covariance (0.3 against
#: 0.6: MMT seed 0 at 2 / 5 / 10 %, 0.0208 / 0.0199 / 0.0159 against 0.0221 / 0.0208 / 0.0158).
FACTOR_BANDWIDTH = 0.3

_CACHE: OrderedDict[str, LogisticFactor] = OrderedDict()
_CACHE_SIZE = 32
_BLOCK = 256  # prior draws per block when summing the items off the suite (bounded memory)


def factor_applies(X: np.ndarray) -> bool:
    """Whether the factor model is fitted on the reference responses ``X`` (models x pool items): at least
    :data:`FACTOR_MIN_REFERENCE` models and at most :data:`FACTOR_MAX_CELLS` cells."""
    return X.shape[0] >= FACTOR_MIN_REFERENCE and X.size <= FACTOR_MAX_CELLS


def fit_factor(X: np.ndarray) -> LogisticFactor:
    """A :class:`LogisticFactor` with :data:`FACTOR_DIM` factors fitted on ``X`` (rows: reference models,
    columns: every pool item), reused when the same rows were fitted before in this process."""
    x = np.ascontiguousarray(X, dtype=np.float64)
    key = hashlib.sha1(x.tobytes() + str(x.shape).encode()).hexdigest()
    got = _CACHE.get(key)
    if got is None:
        got = LogisticFactor(n_factors=FACTOR_DIM).fit(x)
        _CACHE[key] = got
        while len(_CACHE) > _CACHE_SIZE:
            _CACHE.popitem(last=False)
    else:
        _CACHE.move_to_end(key)
    return got


@dataclass(frozen=True)
class FactorState:
    """What prediction needs: the prior draws ``(n_samples, D)``, the suite items' loadings and intercepts,
    and per group the sum over its items off the suite of each draw's expected score ``(n_samples,
    n_groups)``."""

    samples: np.ndarray
    a_suite: np.ndarray
    d_suite: np.ndarray
    rest_sums: np.ndarray


def factor_state(
    model: LogisticFactor, rest_items: list[np.ndarray], suite_pos: np.ndarray, seed: int
) -> FactorState:
    """The :class:`FactorState` of a fitted factor model for a suite (``rest_items``: per group, its pool
    items off the suite; ``seed``: the prior draws')."""
    samples = ability_samples(model.theta_, FACTOR_SAMPLES, FACTOR_BANDWIDTH, seed)
    rest = np.zeros((samples.shape[0], len(rest_items)))
    for g, off in enumerate(rest_items):
        if off.size == 0:
            continue
        rest[:, g] = expected_correct(samples, model.loadings_[off], model.intercept_[off], _BLOCK)
    return FactorState(samples, model.loadings_[suite_pos], model.intercept_[suite_pos], rest)


def factor_estimates(
    X_suite: np.ndarray, state: FactorState, suite_cols: list[np.ndarray], pool_sizes: np.ndarray
) -> np.ndarray:
    """``(n, n_groups)`` posterior-mean full scores of the rows of ``X_suite`` (module docstring)."""
    X = np.asarray(X_suite, dtype=np.float64)
    W = posterior_weights(X, state.a_suite, state.d_suite, state.samples)
    missing = np.isnan(X)
    if missing.any():
        X = np.where(missing, W @ expit(state.samples @ state.a_suite.T + state.d_suite), X)
    ws = W @ state.rest_sums
    out = np.empty((X.shape[0], len(suite_cols)))
    for g, cols in enumerate(suite_cols):
        out[:, g] = (X[:, cols].sum(axis=1) + ws[:, g]) / float(pool_sizes[g])
    return out
