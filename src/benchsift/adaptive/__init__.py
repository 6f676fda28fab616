"""Adaptive testing on an IRT item bank: fit the bank, choose the next items, replay logged runs.

:func:`fit_bank` / :func:`load_bank` (:mod:`benchsift.adaptive.bank`), :func:`next_items` (the stateless
step, :mod:`benchsift.adaptive.select`; :func:`next_items_for` takes a results file),
:func:`simulate_adaptive` (held-out replay against a static suite and random items,
:mod:`benchsift.adaptive.simulate`; :func:`replay_final` the last step of one replay, with the estimates'
calibrated intervals, :mod:`benchsift.adaptive.interval`).
"""

from __future__ import annotations

from benchsift.adaptive.bank import ItemBank, fit_bank, load_bank
from benchsift.adaptive.select import NextItems, StopRule, next_items, next_items_for
from benchsift.adaptive.simulate import AdaptiveSimulation, replay_adaptive, replay_final, simulate_adaptive

__all__ = [
    "AdaptiveSimulation",
    "ItemBank",
    "NextItems",
    "StopRule",
    "fit_bank",
    "load_bank",
    "next_items",
    "next_items_for",
    "replay_adaptive",
    "replay_final",
    "simulate_adaptive",
]
