"""The Stage 0-3 pipeline (PRIMEBench section 4, Table 2): chaining, skipping, references, acceptance."""

from __future__ import annotations

import re

import numpy as np
import pandas as pd
import pytest
from scipy import stats as sps
from warned import calling

from benchsift.compression import pipeline
from benchsift.compression.embeddings import ItemEmbeddings
from benchsift.compression.full_score import CHOSEN_FROM, HEADLINE_FROM
from benchsift.compression.pipeline import CompressionConfig, run_pipeline
from benchsift.compression.selectors.estimation import estimation_items
from benchsift.errors import FloorWarning, InputError
from benchsift.panel import Panel
from benchsift.simulate import SimulationConfig, simulate_panel


def _embeddings(sim) -> ItemEmbeddings:  # type: ignore[no-untyped-def]
    return ItemEmbeddings(
        sim.panel.items[["benchmark", "item"]],
        vision_text=sim.truth.embeddings_vl,
        text=sim.truth.embeddings_text,
        source="simulated",
    )


def _independent_reference(clean: Panel) -> np.ndarray:
    """Mean over categories of the mean of each category's benchmark means, with pandas."""
    long = clean.to_long()
    bench = long.groupby(["model", "category", "benchmark"], sort=False)["score"].mean()
    cat = bench.groupby(["model", "category"], sort=False).mean()
    overall = cat.groupby("model", sort=False).mean()
    return overall.reindex(clean.model_ids).to_numpy()


def _independent_suite_scores(panel: Panel, positions: np.ndarray, categories: np.ndarray) -> np.ndarray:
    X = panel.image_panel().scores[:, positions]
    per_cat = [np.nanmean(X[:, categories == c], axis=1) for c in pd.unique(categories)]
    return np.mean(per_cat, axis=0)


def test_acceptance_r5_k5_keeps_rho_095_against_stage0() -> None:
    sim = simulate_panel(SimulationConfig.primebench(items_per_benchmark=300, min_items_per_benchmark=60), 0)
    with pytest.warns(FloorWarning, match="item floor of 100"):
        res = calling(
            run_pipeline,
            sim.panel,
            CompressionConfig(retention=0.05, k=5, random_state=0),
            embeddings=_embeddings(sim),
        )
    assert [s.stage for s in res.stages] == [0, 1, 2, 3]
    assert len(res.selected_categories) == 5
    assert res.rho_suite_vs_stage0 >= 0.95
    # reference and suite scores recomputed independently from the panel
    np.testing.assert_allclose(res.reference, _independent_reference(res.stage0.panel), atol=1e-10)
    suite = _independent_suite_scores(sim.panel, res.suite_items, res.suite_category)
    np.testing.assert_allclose(res.suite_scores, suite, atol=1e-10)
    assert res.rho_suite_vs_stage0 == pytest.approx(sps.spearmanr(suite, res.reference).statistic, abs=1e-9)
    # item counts chain: each stage's input is the previous stage's output
    for a, b in zip(res.stages[:-1], res.stages[1:], strict=True):
        assert b.items_in == a.items_out
    assert res.stages[-1].items_out == res.n_items_suite
    assert set(res.suite_category) == set(res.selected_categories)
    # "No Stage 3" (Table 12): all pruned categories, pooled, against the same reference
    stage3_in = res.stage2.apply(res.stage1.panel)  # type: ignore[union-attr]
    all_cats = stage3_in.items["category"].to_numpy()
    no_s3 = _independent_suite_scores(stage3_in, np.arange(stage3_in.n_items), all_cats)
    assert res.rho_no_stage3 == pytest.approx(sps.spearmanr(no_s3, res.reference).statistic, abs=1e-9)
    assert res.summary()["rho_no_stage3"] == res.rho_no_stage3
    # every suite item passed Stage 0
    assert res.stage0.kept[res.suite_items].all()


def test_stop_after_and_no_stage2() -> None:
    sim = simulate_panel(SimulationConfig.small(n_benchmarks=8, n_categories=4, items_per_benchmark=150), 1)
    only0 = run_pipeline(sim.panel, CompressionConfig(stop_after=0))
    assert [s.stage for s in only0.stages] == [0]
    assert np.isnan(only0.rho_no_stage3)  # no Stage 3, no "No Stage 3" figure
    np.testing.assert_array_equal(only0.suite_items, only0.stage0.kept_positions)
    # the suite score pools a category's items; the reference averages its benchmark means
    suite = _independent_suite_scores(sim.panel, only0.suite_items, only0.suite_category)
    ref = _independent_reference(only0.stage0.panel)
    assert only0.rho_suite_vs_stage0 == pytest.approx(sps.spearmanr(suite, ref).statistic, abs=1e-9)
    upto1 = run_pipeline(sim.panel, CompressionConfig(stop_after=1))
    assert [s.stage for s in upto1.stages] == [0, 1]
    assert upto1.n_items_suite == upto1.stage1.n_out  # type: ignore[union-attr]
    stage3_only = run_pipeline(sim.panel, CompressionConfig(retention=None, k=2))
    assert [s.stage for s in stage3_only.stages] == [0, 1, 3]
    assert stage3_only.stage2 is None and len(stage3_only.selected_categories) == 2


def test_one_category_panel_skips_stages_1_and_3() -> None:
    sim = simulate_panel(SimulationConfig.small(n_benchmarks=3, n_categories=1, items_per_benchmark=200), 2)
    with pytest.warns(FloorWarning, match="item floor of 100"):
        res = calling(
            run_pipeline, sim.panel, CompressionConfig(retention=0.2, k=5), embeddings=_embeddings(sim)
        )
    assert [s.stage for s in res.stages] == [0, 2]
    assert any("one category" in w for w in res.warnings)  # a skipped stage is a warning (brief)
    assert res.stage1 is None and res.stage3 is None
    assert res.selected_categories == res.categories and len(res.categories) == 1
    assert 0 < res.n_items_suite < res.stage0.n_out


def test_missing_categories_use_the_benchmark() -> None:
    sim = simulate_panel(SimulationConfig.small(n_benchmarks=5, n_categories=2, items_per_benchmark=100), 3)
    items = sim.panel.items
    items["category"] = None
    panel = Panel(sim.panel.scores, sim.panel.models, items)
    res = run_pipeline(panel, CompressionConfig(retention=None, k=3))
    assert res.categories == panel.benchmarks
    assert any("benchmark as their own category" in n for n in res.notes)
    assert all(c.tier == 1 for c in res.stage1.categories)  # type: ignore[union-attr]
    assert set(res.suite_category) <= set(panel.benchmarks)


def test_k_larger_than_categories_keeps_all_of_them_with_a_warning() -> None:
    # as the end-to-end protocol: k=3 of 2 categories is Stage 3 with k=2 (both kept), said in a warning
    sim = simulate_panel(SimulationConfig.small(n_benchmarks=4, n_categories=2, items_per_benchmark=100), 0)
    res = calling(run_pipeline, sim.panel, CompressionConfig(retention=None, k=3))
    assert res.warnings == ["k=3 exceeds the 2 categories left after Stage 0: Stage 3 keeps all of them"]
    exact = calling(run_pipeline, sim.panel, CompressionConfig(retention=None, k=2))
    assert exact.warnings == [] and res.selected_categories == exact.selected_categories
    np.testing.assert_array_equal(res.suite_items, exact.suite_items)


@pytest.mark.parametrize(
    "kwargs",
    [
        {"retention": 0.0},
        {"retention": 1.5},
        {"k": 0},
        {"stop_after": 4},
        {"random_state": -1},
        {"alpha": -0.1},
    ],
)
def test_config_validation(kwargs: dict[str, object]) -> None:
    with pytest.raises(InputError):
        CompressionConfig(**kwargs)  # type: ignore[arg-type]


def test_full_score_counts_only_image_runs_with_scores() -> None:
    """Four scored image runs and one without any score: four reference models, fewer than the 5 the
    full-score fit needs, so it is not fitted and the warning says so (before: five were counted and the fit
    ran on four)."""
    sim = simulate_panel(
        SimulationConfig.small(
            n_models=5,
            n_text_only_models=0,
            blind_solvable_rate=0.0,
            n_benchmarks=2,
            n_categories=1,
            items_per_benchmark=60,
        ),
        random_state=0,
    )
    scores = sim.panel.scores.copy()
    scores[2] = np.nan
    panel = Panel(scores, sim.panel.models, sim.panel.items)
    res = calling(run_pipeline, panel, CompressionConfig(retention=0.5, k=1, floor=0, random_state=0))
    assert res.full_score is None
    assert (
        "full-score estimators not fitted: they need at least 5 image models with scores to cross-validate, "
        "the panel has 4; estimate will report suite means only"
    ) in res.warnings


def test_stage3_dropping_categories_warns_that_the_suite_is_below_the_asked_share() -> None:
    """Stage 3 keeps k of the categories, so the suite is a smaller share of the pool than ``retention``:
    the warning gives the suite's size and share, the asked share and how to keep every category; with
    ``k=None`` (or k at least the categories) there is no such warning."""
    sim = simulate_panel(
        SimulationConfig.small(n_models=30, n_benchmarks=4, n_categories=4, items_per_benchmark=80),
        random_state=0,
    )
    n_cat = int(pd.unique(sim.panel.category_or_benchmark).size)
    assert n_cat > 2
    res = calling(run_pipeline, sim.panel, CompressionConfig(retention=0.2, k=2, floor=0, full_score=False))
    n, pool = res.suite_items.size, sim.panel.n_items
    assert len(res.selected_categories) == 2 and n < 0.2 * pool
    want = (
        f"stage 3 kept 2 of {len(res.categories)} categories: the suite has {n:,} items, {n / pool:.1%} of "
        f"the {pool:,}, where the retention asked 20.0%; --k {len(res.categories)} (Python: k=None) keeps "
        "every category"
    )
    assert want in res.warnings, res.warnings
    for k in (None, len(res.categories)):
        cfg = CompressionConfig(retention=0.2, k=k, floor=0, full_score=False)
        res_all = calling(run_pipeline, sim.panel, cfg)
        assert not any(w.startswith("stage 3 kept") for w in res_all.warnings)


def test_the_estimate_selector_keeps_every_category_and_says_stage3_is_skipped() -> None:
    """Under ``selector="estimate"`` Stage 3 does not run (its suite stands for the whole pool): every
    category keeps suite items, the warning says so, and there is no Stage 3 row; the same configuration
    with the VAW selector runs Stage 3 and keeps k categories."""
    sim = simulate_panel(
        SimulationConfig.small(n_models=30, n_benchmarks=4, n_categories=4, items_per_benchmark=80),
        random_state=0,
    )
    est = calling(
        run_pipeline,
        sim.panel,
        CompressionConfig(selector="estimate", retention=0.2, k=2, floor=0, full_score=False),
    )
    n_cat = len(est.categories)
    assert est.stage3 is None and len(est.selected_categories) == n_cat
    cats = sim.panel.category_or_benchmark[est.suite_items]
    assert set(cats) == set(est.categories)
    assert (
        f"stage 3 skipped: the estimate selector's suite stands for all {n_cat} categories (k=2 would keep "
        "fewer, and a smaller share of the pool than the retention asks); --selector vaw runs it"
    ) in est.warnings
    assert not any(w.startswith("stage 3 kept") for w in est.warnings)
    vaw = calling(run_pipeline, sim.panel, CompressionConfig(retention=0.2, k=2, floor=0, full_score=False))
    assert vaw.stage3 is not None and len(vaw.selected_categories) == 2
    assert vaw.suite_items.size < est.suite_items.size


def test_full_score_is_not_fitted_above_the_item_cap_and_says_so(monkeypatch) -> None:
    """Above ``MAX_FULL_SCORE_ITEMS`` pool items the estimators are not fitted and the warning names the
    count and the cap; at the cap they are."""
    sim = simulate_panel(
        SimulationConfig.small(n_models=12, n_benchmarks=2, n_categories=1, items_per_benchmark=60),
        random_state=0,
    )
    cfg = CompressionConfig(retention=0.5, k=1, floor=0, random_state=0)
    monkeypatch.setattr(pipeline, "MAX_FULL_SCORE_ITEMS", 119)
    res = calling(run_pipeline, sim.panel, cfg)
    assert res.full_score is None
    assert any(
        w.startswith("full-score estimators not fitted: the panel has 120 items, more than the 119")
        for w in res.warnings
    ), res.warnings
    monkeypatch.setattr(pipeline, "MAX_FULL_SCORE_ITEMS", 120)
    assert calling(run_pipeline, sim.panel, cfg).full_score is not None


def test_the_estimate_selector_builds_a_suite_with_its_own_cross_validation(monkeypatch) -> None:
    sim = simulate_panel(SimulationConfig.small(n_benchmarks=2, n_categories=1, items_per_benchmark=300), 1)
    cfg = CompressionConfig(selector="estimate", retention=0.05, floor=0, k=None)
    # below CHOICE_MIN_REFERENCE reference models: Stage 2's design against a stratified sample of every item
    assert sim.panel.n_models < pipeline.CHOICE_MIN_REFERENCE
    few = calling(run_pipeline, sim.panel, cfg)
    (note,) = [n for n in few.notes if n.startswith("estimate suite design chosen")]
    named = r"(stratified sample|strata 50 % \+ anchors) ([0-9.]+)"
    errors = {k: float(e) for k, e in re.findall(named, note)}
    assert len(errors) == 2, note
    assert few.full_score is not None and few.full_score.method == "average"
    (kept,) = [k for k in errors if f"{k} {errors[k]:.4f} (kept)" in note]
    assert few.full_score.selection_error() == pytest.approx(errors[kept], abs=5e-5)
    assert "lower by more than 2 standard error(s)" in note  # DESIGN_SE
    if kept == "stratified sample":  # the alternative is kept only when it errs less (by two se)
        assert errors[kept] < errors["strata 50 % + anchors"]
        assert set(few.suite_reason) == {"estimate:stratum"}
    else:
        strata = set(few.suite_reason) - {"estimate:anchor"}  # information (and difficulty: a floor)
        assert strata in ({"estimate:information"}, {"estimate:difficulty", "estimate:information"}), strata
    monkeypatch.setattr(pipeline, "CHOICE_MIN_REFERENCE", 5)  # the design choice itself is under test now
    res = calling(run_pipeline, sim.panel, cfg)
    n = int(res.stages[-1].items_in)
    assert res.n_items_suite == int(np.floor(0.05 * n + 1e-9))
    assert res.full_score is not None and res.full_score.method in (*CHOSEN_FROM, "average")
    # both designs were fitted; the kept one has the least cross-validated error and is the suite released
    (note,) = [n for n in res.notes if n.startswith("estimate suite design chosen")]
    designs = r"(anchors only|strata 50 % \+ anchors) ([0-9.]+)"
    errors = {name: float(e) for name, e in re.findall(designs, note)}
    assert list(errors) == ["anchors only", "strata 50 % + anchors"], note  # the anchors first
    assert "lower by more than 2 standard error(s)" in note  # DESIGN_SE with 50+ reference models too
    (kept,) = [k for k in errors if f"{k} {errors[k]:.4f} (kept)" in note]
    if kept != "anchors only":  # Stage 2's design is kept only when it errs less (by two se)
        assert errors[kept] < errors["anchors only"]
    assert res.full_score.selection_error() == pytest.approx(errors[kept], abs=5e-5)
    if kept == "anchors only":
        assert set(res.suite_reason) == {"estimate:anchor"}
    else:
        strata = set(res.suite_reason) - {"estimate:anchor"}
        assert strata in ({"estimate:information"}, {"estimate:difficulty", "estimate:information"}), strata


def test_the_anchors_only_design_is_the_estimation_items_of_the_reference_models(monkeypatch) -> None:
    """The anchors-only design alone (``ESTIMATE_DESIGNS = SMALL_PANEL_DESIGNS = (0.0,)``): the suite
    released is the correctness anchors of the budget over every item of the category (the Stage 0-cleaned
    ones too: a full run scores them), chosen on every reference model (as each fold re-chooses them on its
    own), every item marked ``estimate:anchor``, and no design note (nothing was weighed)."""
    sim = simulate_panel(SimulationConfig.small(n_benchmarks=1, n_categories=1, items_per_benchmark=400), 3)
    cfg = CompressionConfig(selector="estimate", retention=0.05, floor=0, k=None, random_state=4)
    monkeypatch.setattr(pipeline, "ESTIMATE_DESIGNS", (0.0,))
    # (the panel has fewer than 50 models; an integer share is a share too)
    monkeypatch.setattr(pipeline, "SMALL_PANEL_DESIGNS", (0,))
    res = calling(run_pipeline, sim.panel, cfg)
    assert not any(n.startswith("estimate suite design chosen") for n in res.notes)
    assert set(res.suite_reason) == {"estimate:anchor"}
    assert res.stage0.kept_positions.size < sim.panel.n_items  # Stage 0 cleaned some: they are in the frame
    scores = sim.panel.image_panel().scores
    want, _ = estimation_items(scores, res.n_items_suite, random_state=4, info_share=0.0)
    np.testing.assert_array_equal(res.suite_items, want)
    assert res.full_score is not None and res.full_score.method in HEADLINE_FROM


def test_the_stratified_design_samples_every_item_of_each_category_and_weighs_by_design(monkeypatch) -> None:
    """The small-panel alternative alone (``SMALL_PANEL_DESIGNS = ("stratified",)``): the suite released is
    one item per difficulty stratum of each category over all its items (the Stage 0-cleaned ones too: a full
    run scores them), drawn as each fold draws it, every item marked ``estimate:stratum``; the fitted anchor
    weights are the design's (equal within the one category)."""
    sim = simulate_panel(SimulationConfig.small(n_benchmarks=1, n_categories=1, items_per_benchmark=400), 3)
    panel = sim.panel
    cfg = CompressionConfig(selector="estimate", retention=0.05, floor=0, k=None, random_state=4)
    monkeypatch.setattr(pipeline, "SMALL_PANEL_DESIGNS", ("stratified",))
    assert panel.n_models < pipeline.CHOICE_MIN_REFERENCE
    res = calling(run_pipeline, panel, cfg)
    assert set(res.suite_reason) == {"estimate:stratum"}
    want, _ = estimation_items(
        panel.image_panel().scores, res.n_items_suite, random_state=4, info_share=1.0, strata="difficulty"
    )
    np.testing.assert_array_equal(res.suite_items, want)
    assert res.full_score is not None and res.full_score.anchor_weight is not None
    np.testing.assert_allclose(res.full_score.anchor_weight[0], 1.0 / res.n_items_suite)
