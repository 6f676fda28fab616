"""Cross-benchmark redundancy (redundancy paper Eq. 4, Appendix C anchor) on hand-computed cases."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from benchsift import Panel
from benchsift.errors import DegenerateError, InputError
from benchsift.redundancy import benchmark_redundancy
from benchsift.redundancy.benchmarks import benchmark_scores

# Same numbers as the dimension case: columns Y1 = [.1 .2 .3 .4], Y2 = [.2 .1 .4 .3], Y3 = [.4 .3 .2 .1].
# SRCC matrix [[1, .6, -1], [.6, 1, -.6], [-1, -.6, 1]] -> rho(Y) = [-0.2, 0.0, -0.8]; anchor Y2.
AGG = np.array([[0.1, 0.2, 0.4], [0.2, 0.1, 0.3], [0.3, 0.4, 0.2], [0.4, 0.3, 0.1]])
MODELS = ["m0", "m1", "m2", "m3"]


def test_aggregate_panel_one_column_per_benchmark():
    panel = Panel.from_matrix(AGG, MODELS, ["Y1", "Y2", "Y3"])
    res = benchmark_redundancy(panel, metrics="srcc,r2", level="item")
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
    res = benchmark_redundancy(Panel(scores, MODELS, items), category="math", metrics="srcc", level="item")
    assert res.benchmarks == ["Y1", "Y2", "Y3"]
    assert res.anchor["srcc"] == "Y2"


def test_constant_benchmark_undefined_and_anchor_skips_it():
    scores = np.column_stack([AGG[:, :2], np.full(4, 0.7)])
    res = benchmark_redundancy(
        Panel.from_matrix(scores, MODELS, ["Y1", "Y2", "K"]), metrics="srcc", level="item"
    )
    assert np.isnan(res.redundancy["srcc"][2])
    assert res.redundancy["srcc"][0] == pytest.approx(0.6)
    assert res.anchor["srcc"] in {"Y1", "Y2"}
    assert any("benchmark 'K' undefined" in n for n in res.undefined)
    flat = benchmark_redundancy(
        Panel.from_matrix(np.full((4, 2), 0.5), MODELS, ["A", "B"]), metrics="srcc", level="item"
    )
    assert flat.anchor["srcc"] is None
    assert flat.to_dict()["anchor"]["srcc"] is None


def test_missing_scores_pairwise_complete():
    scores = AGG.copy()
    scores[0, 2] = np.nan
    res = benchmark_redundancy(
        Panel.from_matrix(scores, MODELS, ["Y1", "Y2", "Y3"]), metrics="srcc", level="item"
    )
    # Y1 vs Y3 over models 1-3 only: [.2 .3 .4] vs [.3 .2 .1] -> -1.
    assert res.matrix["srcc"][0, 2] == pytest.approx(-1.0)
    names, s, level = benchmark_scores(Panel.from_matrix(scores, MODELS, ["Y1", "Y2", "Y3"]), level="item")
    assert level == "item" and names == ["Y1", "Y2", "Y3"] and np.isnan(s[0, 2])


def test_top_k_on_the_benchmark_set_weights_benchmarks_equally():
    # Benchmark A has 1 item, B has 3. m0: A = 1, B = 0,0,0 -> benchmark mean 0.5 (item mean 0.25);
    # m1: A = 0, B = 1,1,0 -> 1/3 (item mean 0.5). Top-1 on the set of benchmarks is m0.
    # The selection is checked on the benchmark means directly; the redundancy itself is refused on fewer
    # than 3 selected models (a rank correlation over 2 models is +-1, issue 12).
    from benchsift.errors import DegenerateError
    from benchsift.redundancy.selection import overall_scores, select_models

    scores = np.array([[1.0, 0.0, 0.0, 0.0], [0.0, 1.0, 1.0, 0.0], [0.5, 0.2, 0.2, 0.2]])
    items = pd.DataFrame({"benchmark": ["A", "B", "B", "B"], "item": ["a", "b1", "b2", "b3"]})
    panel = Panel(scores, ["m0", "m1", "m2"], items)
    means = benchmark_scores(panel, None)[1]
    overall = overall_scores(panel, group_means=means)
    _, sel = select_models(panel, top_k=2, overall=overall, basis="the set")
    assert sel.models == ["m0", "m2"]
    np.testing.assert_allclose(sel.overall, [0.5, 0.35])
    _, sel = select_models(panel, bottom_k=1, overall=overall, basis="the set")
    assert sel.models == ["m1"]
    with pytest.raises(DegenerateError, match="models with scores: 2 found, at least 3 needed"):
        benchmark_redundancy(panel, top_k=2, metrics="srcc")


def test_hand_computed_eq4_ties_kendall_and_constant_benchmark():
    # Y1 = [.1 .1 .3 .4], Y2 = [.2 .1 .4 .4], K constant. Average ranks [1.5 1.5 3 4] and [2 1 3.5 3.5]:
    # SRCC(Y1, Y2) = 8/9; tau-b: C = 4, D = 0, one tie on each side -> 4 / sqrt(5 * 5) = 0.8.
    # PLCC: deviations Y1 [-.125 -.125 .075 .175], Y2 [-.075 -.175 .125 .125]: .0625 / .0675 = 25/27;
    # R2 (row = truth): SS_res .02, SS_tot .0675 both ways -> 1 - .02 / .0675 = 19/27 (also from the
    # definitions below). Every pair with K is undefined, also K as the R2 *prediction* (a constant
    # "prediction" would give a number), so rho(Y1) = CORR(Y1, Y2).
    y1, y2 = np.array([0.1, 0.1, 0.3, 0.4]), np.array([0.2, 0.1, 0.4, 0.4])
    scores = np.column_stack([y1, y2, np.full(4, 0.25)])
    res = benchmark_redundancy(Panel.from_matrix(scores, MODELS, ["Y1", "Y2", "K"]), level="item")
    d1, d2 = y1 - y1.mean(), y2 - y2.mean()
    plcc = (d1 @ d2) / np.sqrt((d1 @ d1) * (d2 @ d2))
    r2_12 = 1 - ((y1 - y2) ** 2).sum() / (d1 @ d1)  # Y1 the truth, Y2 the prediction
    r2_21 = 1 - ((y2 - y1) ** 2).sum() / (d2 @ d2)
    expected = {"srcc": (8 / 9, 8 / 9), "kendall": (0.8, 0.8), "plcc": (plcc, plcc), "r2": (r2_12, r2_21)}
    assert plcc == pytest.approx(25 / 27) and r2_12 == pytest.approx(19 / 27) == r2_21
    for m, (a, b) in expected.items():
        np.testing.assert_allclose(res.redundancy[m][:2], [a, b], atol=1e-12)
        assert np.isnan(res.redundancy[m][2])
        assert np.isnan(res.matrix[m][0, 2]) and np.isnan(res.matrix[m][2, 0])
        assert any(f"{m}: benchmark 'K' undefined" in n for n in res.undefined)
    assert res.anchor["kendall"] == "Y1"  # tie in rho: the first one
    out = res.to_dict()
    assert out["redundancy"]["kendall"]["K"] is None and out["anchor"]["r2"] in {"Y1", "Y2"}


def test_domain_on_item_level_panel_scores_each_benchmark_on_its_domain_items():
    # Benchmark A has math and ocr items, B math only, C ocr only. --domain math keeps A (math items) and B;
    # C drops out with a note. The level is decided before the filter: still benchmark means, not items.
    rng = np.random.default_rng(0)
    scores = rng.random((6, 7))
    items = pd.DataFrame(
        {
            "benchmark": ["A", "A", "A", "B", "B", "C", "C"],
            "item": [f"q{k}" for k in range(7)],
            "category": ["math", "math", "ocr", "math", "math", "ocr", "ocr"],
        }
    )
    panel = Panel(scores, [f"m{i}" for i in range(6)], items)
    res = benchmark_redundancy(panel, category="math", metrics="plcc")
    assert res.level == "benchmark" and res.benchmarks == ["A", "B"]
    np.testing.assert_allclose(res.scores[:, 0], scores[:, :2].mean(axis=1))
    np.testing.assert_allclose(res.scores[:, 1], scores[:, 3:5].mean(axis=1))
    assert any("category 'math' only" in n and "left out: C" in n for n in res.notes)
    # Only C has ocr items alone, but A has one too: still two benchmarks, never C's items as benchmarks.
    only = benchmark_redundancy(panel, benchmarks=["A", "C"], category="ocr", metrics="plcc")
    assert only.level == "benchmark" and only.benchmarks == ["A", "C"]


def test_single_benchmark_panel_is_refused_unless_read_as_columns():
    # One benchmark: its items may be questions (an item-level MMMU) or benchmark columns; auto guesses
    # neither, it refuses and names both ways out.
    panel = Panel.from_matrix(AGG, MODELS, ["Y1", "Y2", "Y3"], benchmark="MMMU")
    with pytest.raises(DegenerateError, match=r"single benchmark \('MMMU', 3 items\).*`level` 'item'"):
        benchmark_redundancy(panel, metrics="srcc")
    with pytest.raises(DegenerateError, match="single benchmark"):
        benchmark_scores(panel)
    as_columns = benchmark_redundancy(panel, metrics="srcc", level="item")
    assert as_columns.benchmarks == ["Y1", "Y2", "Y3"] and as_columns.notes == []
    # The benchmark level reads it as what it is: one benchmark, too few to compare.
    with pytest.raises(DegenerateError, match="benchmarks: 1 found, at least 2"):
        benchmark_redundancy(panel, metrics="srcc", level="benchmark")


def test_labelled_frames():
    res = benchmark_redundancy(
        Panel.from_matrix(AGG, MODELS, ["Y1", "Y2", "Y3"]), metrics="srcc,plcc", level="item"
    )
    frame = res.matrix_frame("srcc")
    assert list(frame.index) == ["Y1", "Y2", "Y3"] and frame.loc["Y1", "Y3"] == pytest.approx(-1.0)
    rho = res.redundancy_frame()
    assert list(rho.columns) == ["srcc", "plcc"] and rho.loc["Y3", "srcc"] == pytest.approx(-0.8)
    assert res.n_models == 4
