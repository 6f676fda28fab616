"""Model runs that are the same run under several names: identical scores on every item.

A run listed twice (a renamed checkpoint, an alias on a leaderboard, one log imported under two names) counts
twice in every ranking, item fit and correlation computed on the panel, and nothing else reveals it.
"""

from __future__ import annotations

import hashlib
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from benchsift.panel._panel import Panel

__all__ = ["MIN_IDENTICAL_ITEMS", "identical_runs"]


#: fewest scored items two model runs must share for identical scores to say "the same run twice"
MIN_IDENTICAL_ITEMS = 10


def identical_runs(panel: Panel) -> list[list[str]]:
    """Groups of model runs (``model`` or ``model (condition)``) whose scores are identical on every item,
    missing ones included, with at least :data:`MIN_IDENTICAL_ITEMS` scored: a run listed twice under two
    names (a renamed checkpoint, an alias in the leaderboard) counts twice in every ranking, fit and
    correlation. Rows are compared exactly, by a hash of each row's bytes (one row copied at a time: no
    pairwise comparison and no copy of the matrix)."""
    scores = panel.scores
    enough = (~np.isnan(scores)).sum(axis=1) >= MIN_IDENTICAL_ITEMS
    if int(enough.sum()) < 2:
        return []
    names = [
        str(m) if c == "image" else f"{m} ({c})"
        for m, c in zip(panel.models["model"], panel.models["condition"], strict=True)
    ]
    by_hash: dict[bytes, list[str]] = {}
    for i in np.flatnonzero(enough):
        # scores are in [0, 1]: -1 stands for "missing", and + 0.0 makes a -0.0 the 0.0 it equals
        row = np.where(np.isnan(scores[i]), -1.0, scores[i]) + 0.0
        by_hash.setdefault(hashlib.blake2b(row.tobytes(), digest_size=16).digest(), []).append(names[i])
    return sorted(group for group in by_hash.values() if len(group) > 1)
