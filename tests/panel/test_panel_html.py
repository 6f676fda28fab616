"""The notebook view of a panel and the per-benchmark means table with coverage (issue 34)."""

from __future__ import annotations

import numpy as np
import pandas as pd

from benchsift import Panel

NAN = np.nan


def _panel() -> Panel:
    scores = np.array([[1.0, 0.0, NAN, 0.5], [0.25, NAN, NAN, 1.0]])
    items = pd.DataFrame(
        {"benchmark": ["B<1>", "B<1>", "B2", "B2"], "item": ["a", "b", "c", "<script>x</script>"]}
    )
    return Panel(scores, ["m&1", "<b>m2</b>"], items)


def test_repr_html_summary_numbers_and_escaping() -> None:
    page = _panel()._repr_html_()
    # 5 of 8 cells scored; scores from 0 to 1; mean (1 + 0 + 0.5 + 0.25 + 1) / 5 = 0.55
    assert "2 models x 4 items, 2 benchmark(s), coverage 62.5 % of the cells scored" in page
    assert "scores from 0 to 1, mean 0.55" in page
    assert "B&lt;1&gt; (2), B2 (2)" in page
    assert "<script>" not in page and "&lt;script&gt;x&lt;/script&gt;" in page
    assert "<b>m2</b>" not in page and "m&amp;1" in page


def test_repr_html_is_bounded_on_a_huge_panel() -> None:
    n_models, n_items = 3000, 400
    rng = np.random.default_rng(0)
    items = pd.DataFrame(
        {
            "benchmark": [f"bench{j % 40}" for j in range(n_items)],
            "item": [f"{j}" for j in range(n_items)],
            "question": ["why? " * 400] * n_items,
        }
    )
    for k in range(20):
        items[f"extra{k}"] = k
    panel = Panel(
        rng.random((n_models, n_items)), [f"model-{i}-" + "x" * 500 for i in range(n_models)], items
    )
    page = panel._repr_html_()
    assert len(page) < 20_000
    assert "first 5 of 3,000 rows" in page and "first 5 of 400 rows" in page
    assert "first 8 of 24 columns" in page
    assert "and 30 more" in page
    assert "model-5-" not in page and "model-4-" in page


def test_benchmark_means_frame_has_coverage() -> None:
    g = _panel().benchmark_means()
    frame = g.to_frame()
    assert list(frame.columns) == [("B<1>", "mean"), ("B<1>", "coverage"), ("B2", "mean"), ("B2", "coverage")]
    # m&1: B<1> mean(1, 0) with both scored; B2 mean(0.5), one of two scored
    np.testing.assert_allclose(frame.loc["m&1"].to_numpy(), [0.5, 1.0, 0.5, 0.5])
    np.testing.assert_allclose(frame.loc["<b>m2</b>"].to_numpy(), [0.25, 0.5, 1.0, 0.5])
    np.testing.assert_allclose(frame.xs("coverage", axis=1, level=1).to_numpy(), g.coverage)
    np.testing.assert_allclose(g.to_frame("means").to_numpy(), g.means)
