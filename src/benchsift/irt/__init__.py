"""Item response theory: a fast 2PL fitter (marginal maximum likelihood by EM) and ability scoring."""

from __future__ import annotations

from benchsift.irt.twopl import AbilityEstimate, TwoPL

__all__ = ["AbilityEstimate", "TwoPL"]
