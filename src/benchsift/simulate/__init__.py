"""Simulated data with known ground truth: the built-in demo data and the test bed of every method.

:func:`simulate_panel` makes a :class:`~benchsift.panel.Panel` from a multidimensional 2PL model (families,
release-date drift, correlated category traits, planted all-correct / blind-solvable items, a planted most
central benchmark per category, graded benchmarks, missing cells, item embeddings and question text) and
returns the :class:`GroundTruth` next to it. :class:`SimulationConfig` holds the knobs and the presets
(``small``, ``primebench``, ``openvlm``, ``unidimensional``). :func:`simulate_leaderboard` draws a
one-benchmark panel on fresh items with each model's true population score (the truth of a leaderboard's
intervals).
"""

from __future__ import annotations

from benchsift.simulate.config import SimulationConfig
from benchsift.simulate.leaderboard import LeaderboardSimulation, simulate_leaderboard
from benchsift.simulate.panel import SimulatedPanel, simulate_panel
from benchsift.simulate.truth import GroundTruth
from benchsift.simulate.verdicts import simulate_verdicts as simulate_verdicts

__all__ = [
    "GroundTruth",
    "LeaderboardSimulation",
    "SimulatedPanel",
    "SimulationConfig",
    "simulate_leaderboard",
    "simulate_panel",
]
