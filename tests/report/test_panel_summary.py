"""``describe_panel``: what ``benchsift info`` prints, as one library call."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

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


@pytest.mark.parametrize("seed", range(6))
def test_panel_summary_sums_match_a_direct_computation(seed: int) -> None:
    """Issue 36 (the summary in one pass over cache-sized blocks): per benchmark means and coverage, the
    image-only mean and the text-only mean equal pandas' own groupby over the long table, on random panels
    with NaN, text-only runs and benchmarks whose items are in runs or interleaved (more runs than are
    summed run by run)."""
    from benchsift.report.panel_summary import panel_summary

    rng = np.random.default_rng(seed)
    n_models, n_items = int(rng.integers(2, 12)), int(rng.integers(3, 300))
    scores = rng.integers(0, 5, (n_models, n_items)) / 4
    scores[rng.random(scores.shape) < 0.3] = np.nan
    names = np.array(["A", "B", "C"])
    codes = rng.integers(0, 3, n_items) if seed % 2 else np.sort(rng.integers(0, 3, n_items))
    items = pd.DataFrame({"benchmark": names[codes], "item": [str(j) for j in range(n_items)]})
    condition = np.where(rng.random(n_models) < 0.3, "text-only", "image")
    condition[0] = "image"
    models = pd.DataFrame({"model": [f"m{i}" for i in range(n_models)], "condition": condition})
    s = panel_summary(Panel(scores, models, items))
    long = pd.DataFrame(
        {
            "benchmark": np.tile(items["benchmark"].to_numpy(), n_models),
            "condition": np.repeat(condition, n_items),
            "score": scores.reshape(-1),
        }
    )
    image = long[long["condition"] == "image"]
    for bench, group in image.groupby("benchmark"):
        assert s["benchmarks"][bench]["mean_score"] == pytest.approx(group["score"].mean(), rel=1e-12)
    for bench, group in long.groupby("benchmark"):
        assert s["benchmarks"][bench]["coverage"] == pytest.approx(group["score"].notna().mean(), rel=1e-12)
    assert s["mean_score"] == pytest.approx(image["score"].mean(), rel=1e-12)
    text = long[long["condition"] == "text-only"]["score"]
    assert s["mean_score_text_only"] == (
        pytest.approx(text.mean(), rel=1e-12) if text.notna().any() else None
    )
    assert s["coverage"] == pytest.approx(long["score"].notna().mean(), rel=1e-12)
