"""Honest leaderboards for any panel: which models are really apart, and how many items it takes to tell.

* :func:`compare`: every pair of models per benchmark and overall, on the items both answered: a paired
  (cluster) bootstrap with Holm / Benjamini-Hochberg across pairs, the paired t and exact McNemar tests
  beside it, rank intervals, tie groups, and each benchmark's minimum detectable difference; returns a
  :class:`ComparisonResult`;
* :func:`compare_suite`: the same question for new models that ran only a compressed suite, with the
  uncertainty of ``benchsift estimate`` carried into each difference; returns a :class:`SuiteComparison`.
"""

from __future__ import annotations

from benchsift.leaderboard._compare import CORRECTIONS, compare
from benchsift.leaderboard.result import ComparisonResult, SuiteComparison, tie_label
from benchsift.leaderboard.suite import compare_suite

__all__ = ["CORRECTIONS", "ComparisonResult", "SuiteComparison", "compare", "compare_suite", "tie_label"]
