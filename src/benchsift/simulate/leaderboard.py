r"""Leaderboards with known true scores: the test bed of :func:`benchsift.leaderboard.compare`.

The full simulator (:func:`benchsift.simulate.simulate_panel`) fixes its item set; a leaderboard's
intervals and tests are about the *population* of questions the items were drawn from (Miller 2024), so
their truth is each model's expected score over that population. Here items are drawn afresh from it:

.. math:: x_{mi} \sim \mathrm{Bernoulli}\bigl(\sigma(\theta_m - b_i - u_{c(i)} + v_{m,c(i)})\bigr),
          \quad b_i \sim N(0, s_b^2),\ u_c \sim N(0, s_u^2),\ v_{mc} \sim N(0, s_v^2),

``cluster_size`` consecutive items per cluster :math:`c` (an image, a passage) sharing a difficulty
offset :math:`u_c` and, per model, an effect :math:`v_{mc}`, so the items of a cluster are not
independent. Model :math:`m`'s true score is
:math:`\mathrm{E}[\sigma(\theta_m - z)],\ z \sim N(0, s_b^2 + s_u^2 + s_v^2)`, computed by Gauss-Hermite
quadrature (201 nodes); true ranks follow :math:`\theta` (1 = best).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike

from benchsift.errors import InputError
from benchsift.panel import Panel
from benchsift.stats import SeedLike, check_random_state
from benchsift.stats.ranks import rank_average

__all__ = ["LeaderboardSimulation", "simulate_leaderboard", "true_scores"]


@dataclass(frozen=True)
class LeaderboardSimulation:
    """A simulated one-benchmark leaderboard: ``scores`` ``(M, N)`` 0/1, ``clusters`` ``(N,)`` cluster labels,
    each model's true population score and true rank (1 = best; equal abilities share the mean rank).
    :attr:`panel` is the same data as a :class:`~benchsift.panel.Panel` (``cluster`` item column when
    clusters hold more than one item), built on first use."""

    scores: np.ndarray
    clusters: np.ndarray
    true_scores: np.ndarray
    true_ranks: np.ndarray
    benchmark: str = "sim"

    @property
    def panel(self) -> Panel:
        n = self.scores.shape[1]
        items = pd.DataFrame({"benchmark": self.benchmark, "item": [f"i{i:05d}" for i in range(n)]})
        if np.unique(self.clusters).size < n:
            items["cluster"] = [f"c{c}" for c in self.clusters]
        models = [f"m{k:03d}" for k in range(self.scores.shape[0])]
        return Panel(self.scores, models, items)


@lru_cache(maxsize=1)
def _nodes() -> tuple[np.ndarray, np.ndarray]:
    nodes, weights = np.polynomial.hermite_e.hermegauss(201)
    return nodes, weights / weights.sum()


def true_scores(abilities: ArrayLike, total_sd: float) -> np.ndarray:
    """:math:`\\mathrm{E}[\\sigma(\\theta - z)]`, :math:`z \\sim N(0, s^2)`, ``s = total_sd``, per ability."""
    theta = np.asarray(abilities, dtype=np.float64)
    nodes, weights = _nodes()
    z = theta[:, None] - float(total_sd) * nodes[None, :]
    return np.asarray((1.0 / (1.0 + np.exp(-z))) @ weights, dtype=np.float64)


def simulate_leaderboard(
    abilities: ArrayLike,
    n_items: int,
    *,
    difficulty_sd: float = 1.5,
    cluster_size: int = 1,
    cluster_sd: float = 0.0,
    interaction_sd: float = 0.0,
    benchmark: str = "sim",
    random_state: SeedLike = None,
) -> LeaderboardSimulation:
    """Draw a 0/1 panel of ``len(abilities)`` models on ``n_items`` fresh items (module docstring)."""
    theta = np.asarray(abilities, dtype=np.float64).reshape(-1)
    if theta.size < 2 or int(n_items) < 2 or int(cluster_size) < 1:
        raise InputError("simulate_leaderboard: need at least 2 models, 2 items and cluster_size >= 1")
    rng = check_random_state(random_state)
    n = int(n_items)
    cluster = np.arange(n) // int(cluster_size)
    g = int(cluster.max()) + 1
    b = rng.normal(0.0, difficulty_sd, n) + rng.normal(0.0, cluster_sd, g)[cluster]
    v = rng.normal(0.0, interaction_sd, (theta.size, g))[:, cluster]
    p = 1.0 / (1.0 + np.exp(-(theta[:, None] - b[None, :] + v)))
    X = (rng.random(p.shape) < p).astype(np.float64)
    total = float(np.sqrt(difficulty_sd**2 + cluster_sd**2 + interaction_sd**2))
    truth = true_scores(theta, total)
    return LeaderboardSimulation(X, cluster, truth, rank_average(-theta), benchmark)
