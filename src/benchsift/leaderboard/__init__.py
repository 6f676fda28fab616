"""Honest leaderboards for any panel: which models are really apart, and how many items it takes to tell.

* :func:`compare`: every pair of models per benchmark and overall, on the items both answered: a paired
  (cluster) bootstrap with Holm / Benjamini-Hochberg across pairs, the paired t and exact McNemar tests
  beside it, rank intervals, tie groups, and each benchmark's minimum detectable difference; returns a
  :class:`ComparisonResult`;
* :func:`compare_suite`: the same question for new models that ran only a compressed suite, with the
  uncertainty of ``benchsift estimate`` carried into each difference; returns a :class:`SuiteComparison`.
"""

from __future__ import annotations

# `from ... import X as X`: internal names the other packages import from here (not public: not in __all__)
from benchsift.leaderboard._compare import CORRECTIONS as CORRECTIONS
from benchsift.leaderboard._compare import compare
from benchsift.leaderboard.result import ComparisonResult, SuiteComparison
from benchsift.leaderboard.suite import compare_suite

__all__ = [
    "ComparisonResult",
    "SuiteComparison",
    "compare",
    "compare_suite",
]
