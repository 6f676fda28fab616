"""Panels on which a chosen item selector is planted to win (the test bed of the automatic selector).

No Stage 2 selector dominates on real panels (benchsift issue 18); :func:`simulate_planted_winner` builds a
one-benchmark, one-category binary panel whose generative model favours one selector's ranking rule, so a
selector that picks among them (``auto``) can be checked against a known best one. Each plant is a response
model chosen for what the selectors rank by (``P`` the probability that model ``m`` solves item ``i``,
``sigma`` the logistic function):

``"pointbiserial"`` -- multiple choice with noise items. One trait ``theta ~ N(0, 1)``; four-option items
    with a guessing floor, ``P = 0.25 + 0.75 sigma(a_i (theta - b_i))``, ``a_i`` log-normal (median 1, sigma
    0.6), ``b_i ~ N(0.5, 1)``; 40 % of the items carry no signal (``a_i = 0``: a mislabelled key or an
    ambiguous question, answered at a constant rate). Point-biserial's item-rest correlation drops them and
    keeps discriminating items of middling difficulty; IRT 2PL has no guessing parameter and misfits; Random
    keeps 40 % noise.
``"irt2pl"`` -- near-Guttman items with a saturated half. One trait ``theta ~ N(0, 1)``; ``a_i = 8``; half
    of the items are nearly always solved (``b_i ~ N(-4, 0.5)``), the other half spread over the ability
    range (``b_i ~ U(-2.5, 2.5)``). Point-biserial and variance rankings crowd the middle difficulty (models
    at either end tie), Random spends half its budget on saturated items; metabench's information filter
    (one most informative item per ability-quantile bin) spreads the items over the whole range.
``"random"`` -- a two-trait pool. Independent traits ``theta_A, theta_B ~ N(0, 1)``; 25 % of the items
    measure ``B`` sharply at middling difficulty (``a_i = 4``, ``b_i ~ N(0, 0.3)``), 75 % measure ``A``
    loosely and are hard (``a_i = 0.6``, ``b_i ~ N(2, 0.5)``, solved about a fifth of the time). Both traits
    move the full-pool mean about equally (few sharp items, many loose ones); every ranking by
    discrimination, information or variance (``pbar (1 - pbar)`` is highest on the middling ``B`` items)
    fills the budget with ``B`` items and loses ``A``, while a uniform random sample keeps the mix.

Which selector wins is an empirical fact of these models (the held-out protocol, PRIMEBench D.3), measured in
``benchmarks/bench_auto_selector.py`` and checked on small panels in the tests.
"""

from __future__ import annotations

from dataclasses import dataclass
from numbers import Integral

import numpy as np
import pandas as pd

from benchsift._params import Interval, validate_params
from benchsift._suggest import did_you_mean
from benchsift.errors import InputError
from benchsift.panel import Panel
from benchsift.stats import check_random_state

__all__ = ["PLANTED_WINNERS", "PlantedPanel", "simulate_planted_winner"]

#: The selectors a panel can be planted for.
PLANTED_WINNERS: tuple[str, ...] = ("pointbiserial", "irt2pl", "random")


@dataclass(frozen=True, eq=False)
class PlantedPanel:
    """A planted panel: the :class:`~benchsift.panel.Panel`, the selector planted to win, the true
    probabilities ``p`` ``(n_models, n_items)`` and the abilities ``theta`` ``(n_models, n_traits)``."""

    panel: Panel
    winner: str
    p: np.ndarray
    theta: np.ndarray


def _sigmoid(x: np.ndarray) -> np.ndarray:
    return 0.5 * (1.0 + np.tanh(0.5 * x))


@validate_params({"n_models": [Interval(Integral, 4, None)], "n_items": [Interval(Integral, 10, None)]})
def simulate_planted_winner(
    winner: str,
    n_models: int = 120,
    n_items: int = 1500,
    random_state: int | np.random.Generator | None = 0,
) -> PlantedPanel:
    """A binary one-benchmark panel on which ``winner`` (one of :data:`PLANTED_WINNERS`) is planted to win.

    Parameters
    ----------
    winner
        ``"pointbiserial"``, ``"irt2pl"`` or ``"random"`` (the response models in the module docstring).
    n_models, n_items
        Panel size (at least 4 models and 10 items).
    random_state
        Seed; the same seed gives the same panel.
    """
    if winner not in PLANTED_WINNERS:
        hint = did_you_mean(winner, PLANTED_WINNERS)
        raise InputError(f"winner: expected one of {', '.join(PLANTED_WINNERS)}, got {winner!r}{hint}")
    rng = check_random_state(random_state)
    m, n = int(n_models), int(n_items)
    if winner == "pointbiserial":
        theta = rng.standard_normal((m, 1))
        a = rng.lognormal(0.0, 0.6, n)
        a[rng.random(n) < 0.4] = 0.0
        b = rng.normal(0.5, 1.0, n)
        p = 0.25 + 0.75 * _sigmoid(a * (theta - b))
    elif winner == "irt2pl":
        theta = rng.standard_normal((m, 1))
        saturated = rng.random(n) < 0.5
        b = np.where(saturated, rng.normal(-4.0, 0.5, n), rng.uniform(-2.5, 2.5, n))
        p = _sigmoid(8.0 * (theta - b))
    else:
        theta = rng.standard_normal((m, 2))
        sharp = np.arange(n) < round(0.25 * n)
        a = np.where(sharp, 4.0, 0.6)
        b = np.where(sharp, rng.normal(0.0, 0.3, n), rng.normal(2.0, 0.5, n))
        p = _sigmoid(a * (theta[:, sharp.astype(np.int64)] - b))
    scores = (rng.random(p.shape) < p).astype(np.float64)
    width = max(4, len(str(n - 1)))
    items = pd.DataFrame(
        {
            "benchmark": f"planted-{winner}",
            "item": [f"q{i:0{width}d}" for i in range(n)],
            "category": f"planted-{winner}",
        }
    )
    models = pd.DataFrame({"model": [f"m{j:03d}" for j in range(m)], "condition": "image"})
    return PlantedPanel(Panel(scores, models, items), winner, p, theta)
