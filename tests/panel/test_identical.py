"""``identical_runs``: model runs with the same scores on every item, found by hashing rows, checked against
the pairwise comparison written out by hand."""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd

from benchsift.panel import Panel
from benchsift.panel.identical import MIN_IDENTICAL_ITEMS, identical_runs
from benchsift.report.panel_summary import describe_panel


def _panel(scores: np.ndarray, names: list[str], conditions: list[str] | None = None) -> Panel:
    items = pd.DataFrame({"benchmark": "B", "item": [str(j) for j in range(scores.shape[1])]})
    models = pd.DataFrame({"model": names, "condition": conditions or ["image"] * len(names)})
    return Panel(scores, models, items)


def _pairwise(scores: np.ndarray) -> set[frozenset[int]]:
    """Pairs of rows equal cell for cell (NaN equal to NaN), with enough scored cells: the O(n^2) check."""
    same = set()
    for a, b in itertools.combinations(range(scores.shape[0]), 2):
        x, y = scores[a], scores[b]
        enough = min((~np.isnan(x)).sum(), (~np.isnan(y)).sum()) >= MIN_IDENTICAL_ITEMS
        if enough and np.array_equal(x, y, equal_nan=True):
            same.add(frozenset((a, b)))
    return same


def test_identical_runs_match_the_pairwise_check() -> None:
    rng = np.random.default_rng(0)
    scores = (rng.random((30, 40)) < 0.5).astype(float)
    scores[rng.random(scores.shape) < 0.1] = np.nan
    scores[7] = scores[3]  # a run under two names
    scores[12] = scores[3]  # ... and a third
    scores[20] = scores[21]
    scores[25, :] = np.nan  # too few scored cells to tell: never reported
    scores[26, :] = np.nan
    scores[25, :5] = scores[26, :5] = 1.0
    names = [f"m{i}" for i in range(30)]
    groups = identical_runs(_panel(scores, names))
    assert groups == [["m20", "m21"], ["m3", "m7", "m12"]]
    got = {frozenset(names.index(m) for m in pair) for g in groups for pair in itertools.combinations(g, 2)}
    assert got == _pairwise(scores)
    # one cell apart is another run; -0.0 is the 0.0 it equals
    scores[12, 0] = 1.0 - scores[12, 0] if not np.isnan(scores[12, 0]) else 1.0
    scores[21] = np.where(scores[21] == 0.0, -0.0, scores[21])
    assert identical_runs(_panel(scores, names)) == [["m20", "m21"], ["m3", "m7"]]


def test_info_warns_of_identical_runs() -> None:
    scores = np.tile(np.array([1.0, 0.0, 1.0, 0.5] * 3), (3, 1))
    scores[2, 0] = 0.0
    d = describe_panel(_panel(scores, ["a", "a", "b"], ["image", "text-only", "image"]))
    assert d["warnings"] == [
        "model runs ['a', 'a (text-only)'] have identical scores on every item (the same run under 2 "
        "names?): each counts in every ranking, fit and correlation"
    ]
