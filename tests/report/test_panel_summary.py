"""``describe_panel``: what ``benchsift info`` prints, as one library call."""

from __future__ import annotations

import numpy as np
import pandas as pd

from benchsift.panel import Panel
from benchsift.report.panel_summary import describe_panel


def _panel() -> Panel:
    # m0 scores everything; m1 has no score on benchmark B (two NaN items)
    scores = np.array([[1.0, 0.0, 1.0, 1.0], [0.5, 1.0, np.nan, np.nan]])
    items = pd.DataFrame({"benchmark": ["A", "A", "B", "B"], "item": ["1", "2", "1", "2"]})
    return Panel(scores, ["m0", "m1"], items)


def test_describe_panel_counts_coverage_and_warnings() -> None:
    d = describe_panel(_panel())
    runs = {r["model"]: r for r in d["models"]}
    assert runs["m0"]["n_scored"] == 4 and runs["m0"]["coverage"] == 1.0 and runs["m0"]["mean_score"] == 0.75
    assert runs["m1"]["n_scored"] == 2 and runs["m1"]["coverage"] == 0.5 and runs["m1"]["mean_score"] == 0.75
    assert runs["m1"]["benchmarks_without_scores"] == ["B"]
    assert d["warnings"] == ["model 'm1' (image) has no score on ['B']"]
    assert "models_file" not in d


def test_describe_panel_with_a_models_table() -> None:
    side = pd.DataFrame({"model": ["m0", "ghost", " m1 "]})
    d = describe_panel(_panel(), side, "models.csv")
    assert d["models_file"] == {
        "path": "models.csv",
        "n_rows": 3,
        "n_matched": 2,
        "unmatched_rows": [{"row": 1, "model": "ghost"}],
        "models_without_row": [],
    }
    assert d["warnings"][0] == "models.csv: 1 row(s) match no model of the panel: ['ghost']"
