"""Cross-benchmark redundancy (redundancy paper Eq. 4, Appendix C anchor) on hand-computed cases."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from benchsift import Panel
from benchsift.errors import InputError
from benchsift.redundancy import benchmark_redundancy, benchmark_scores

# Same numbers as the dimension case: columns Y1 = [.1 .2 .3 .4], Y2 = [.2 .1 .4 .3], Y3 = [.4 .3 .2 .1].
# SRCC matrix [[1, .6, -1], [.6, 1, -.6], [-1, -.6, 1]] -> rho(Y) = [-0.2, 0.0, -0.8]; anchor Y2.
AGG = np.array([[0.1, 0.2, 0.4], [0.2, 0.1, 0.3], [0.3, 0.4, 0.2], [0.4, 0.3, 0.1]])
MODELS = ["m0", "m1", "m2", "m3"]


def test_aggregate_panel_one_column_per_benchmark():
    panel = Panel.from_matrix(AGG, MODELS, ["Y1", "Y2", "Y3"])
    res = benchmark_redundancy(panel, metrics="srcc,r2")
    assert res.level == "item"
    assert res.benchmarks == ["Y1", "Y2", "Y3"]
    np.testing.assert_allclose(res.redundancy["srcc"], [-0.2, 0.0, -0.8], atol=1e-12)
    np.testing.assert_allclose(res.redundancy["r2"], [-1.4, -1.0, -2.6], atol=1e-12)
    assert res.anchor == {"srcc": "Y2", "r2": "Y2"}
    out = res.to_dict()
    assert set(out) >= {"benchmarks", "matrix", "redundancy", "anchor"}
    assert out["redundancy"]["srcc"]["Y2"] == pytest.approx(0.0)


def test_item_level_panel_uses_benchmark_means_and_matches_aggregate():
    # Each benchmark has items whose mean is the aggregate score (x - 0.05, x + 0.05, x).
    cols, bench = [], []
    for j, name in enumerate(["Y1", "Y2", "Y3"]):
        x = AGG[:, j]
        cols += [x - 0.05, x + 0.05, x]
        bench += [name] * 3
    items = pd.DataFrame({"benchmark": bench, "item": [f"q{k}" for k in range(9)]})
    panel = Panel(np.column_stack(cols), MODELS, items)
    res = benchmark_redundancy(panel, metrics="srcc,plcc,kendall")
    assert res.level == "benchmark"
    np.testing.assert_allclose(res.scores, AGG, atol=1e-12)
    np.testing.assert_allclose(res.redundancy["srcc"], [-0.2, 0.0, -0.8], atol=1e-12)
    assert res.anchor["plcc"] == "Y2"
    sub = benchmark_redundancy(panel, benchmarks=["Y3", "Y1"], metrics="srcc")
    assert sub.benchmarks == ["Y3", "Y1"]
    np.testing.assert_allclose(sub.matrix["srcc"], [[1.0, -1.0], [-1.0, 1.0]])
    with pytest.raises(InputError, match="Y9"):
        benchmark_redundancy(panel, benchmarks=["Y1", "Y9"])


def test_domain_category_on_aggregate_panel():
    items = pd.DataFrame(
        {"benchmark": "agg", "item": ["Y1", "Y2", "Y3", "Z"], "category": ["math", "math", "math", "ocr"]}
    )
    scores = np.column_stack([AGG, np.array([0.9, 0.1, 0.5, 0.5])])
    res = benchmark_redundancy(Panel(scores, MODELS, items), category="math", metrics="srcc")
    assert res.benchmarks == ["Y1", "Y2", "Y3"]
    assert res.anchor["srcc"] == "Y2"


def test_constant_benchmark_undefined_and_anchor_skips_it():
    scores = np.column_stack([AGG[:, :2], np.full(4, 0.7)])
    res = benchmark_redundancy(Panel.from_matrix(scores, MODELS, ["Y1", "Y2", "K"]), metrics="srcc")
    assert np.isnan(res.redundancy["srcc"][2])
    assert res.redundancy["srcc"][0] == pytest.approx(0.6)
    assert res.anchor["srcc"] in {"Y1", "Y2"}
    assert any("benchmark 'K' undefined" in n for n in res.undefined)
    flat = benchmark_redundancy(Panel.from_matrix(np.full((4, 2), 0.5), MODELS, ["A", "B"]), metrics="srcc")
    assert flat.anchor["srcc"] is None
    assert flat.to_dict()["anchor"]["srcc"] is None


def test_missing_scores_pairwise_complete():
    scores = AGG.copy()
    scores[0, 2] = np.nan
    res = benchmark_redundancy(Panel.from_matrix(scores, MODELS, ["Y1", "Y2", "Y3"]), metrics="srcc")
    # Y1 vs Y3 over models 1-3 only: [.2 .3 .4] vs [.3 .2 .1] -> -1.
    assert res.matrix["srcc"][0, 2] == pytest.approx(-1.0)
    names, s, level = benchmark_scores(Panel.from_matrix(scores, MODELS, ["Y1", "Y2", "Y3"]))
    assert level == "item" and names == ["Y1", "Y2", "Y3"] and np.isnan(s[0, 2])


def test_top_k_on_the_benchmark_set_weights_benchmarks_equally():
    # Benchmark A has 1 item, B has 3. m0: A = 1, B = 0,0,0 -> benchmark mean 0.5 (item mean 0.25);
    # m1: A = 0, B = 1,1,0 -> 1/3 (item mean 0.5). Top-1 on the set of benchmarks is m0.
    scores = np.array([[1.0, 0.0, 0.0, 0.0], [0.0, 1.0, 1.0, 0.0], [0.5, 0.2, 0.2, 0.2]])
    items = pd.DataFrame({"benchmark": ["A", "B", "B", "B"], "item": ["a", "b1", "b2", "b3"]})
    res = benchmark_redundancy(Panel(scores, ["m0", "m1", "m2"], items), top_k=2, metrics="srcc")
    assert res.selection.models == ["m0", "m2"]
    np.testing.assert_allclose(res.selection.overall, [0.5, 0.35])
    res = benchmark_redundancy(Panel(scores, ["m0", "m1", "m2"], items), bottom_k=1, metrics="srcc")
    assert res.selection.models == ["m1"]
    assert any("only 1 model" in n for n in res.undefined)
