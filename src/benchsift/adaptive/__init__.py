"""Adaptive testing on an IRT item bank: fit the bank, choose the next items, replay logged runs.

:func:`fit_bank` / :func:`load_bank` (:mod:`benchsift.adaptive.bank`), :func:`next_items` (the stateless
step, :mod:`benchsift.adaptive.select`; :func:`next_items_for` takes a results file),
:func:`simulate_adaptive` (held-out replay against a static suite and random items,
:mod:`benchsift.adaptive.simulate`), :func:`fit_covariate_prior` (a new model's ability prior from its other
benchmarks, :mod:`benchsift.adaptive.prior`).
"""

from __future__ import annotations

from benchsift.adaptive.bank import ItemBank, fit_bank, joint_polish, load_bank
from benchsift.adaptive.prior import CovariatePrior, benchmark_covariates, fit_covariate_prior
from benchsift.adaptive.select import NextItems, StopRule, next_items, next_items_for
from benchsift.adaptive.simulate import AdaptiveSimulation, replay_adaptive, simulate_adaptive

__all__ = [
    "AdaptiveSimulation",
    "CovariatePrior",
    "ItemBank",
    "NextItems",
    "StopRule",
    "benchmark_covariates",
    "fit_covariate_prior",
    "fit_bank",
    "joint_polish",
    "load_bank",
    "next_items",
    "next_items_for",
    "replay_adaptive",
    "simulate_adaptive",
]
