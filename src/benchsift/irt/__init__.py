"""Item response theory: 2PL and graded-response fitters (marginal likelihood by EM) and ability scores."""

from __future__ import annotations

from benchsift.irt.graded import GradedResponse
from benchsift.irt.twopl import AbilityEstimate, TwoPL

__all__ = [
    "AbilityEstimate",
    "GradedResponse",
    "TwoPL",
]
