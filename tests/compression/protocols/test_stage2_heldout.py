"""Protocol (a): per-category held-out rho, its aggregation over categories and splits (PRIMEBench D.3)."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from benchsift.compression.protocols import Split, stage2_heldout
from benchsift.compression.protocols.group_means import CategoryBlocks
from benchsift.compression.protocols.pools import prepare_pools
from benchsift.compression.protocols.stage2_heldout import macro_rho, per_category_rho, split_summary
from benchsift.compression.selectors.base import ItemSelector, check_selector_input
from benchsift.errors import DegenerateError, InputError
from benchsift.panel import Panel


def test_per_category_rho_matches_scipy_and_needs_ten_models() -> None:
    rng = np.random.default_rng(0)
    full = rng.random((12, 3))
    sel = full + 0.3 * rng.random((12, 3))
    sel[:3, 1] = np.nan  # category 1: only 9 held-out models with both means -> undefined
    sel[:, 2] = 0.5  # category 2: every model the same score on the kept items -> undefined
    rho = per_category_rho(full, sel, min_heldout=10)
    assert rho[0] == pytest.approx(stats.spearmanr(full[:, 0], sel[:, 0]).statistic, abs=1e-12)
    assert np.isnan(rho[1]) and np.isnan(rho[2])
    # with the threshold lowered, category 1 is defined on its 9 complete models
    rho9 = per_category_rho(full, sel, min_heldout=9)
    assert rho9[1] == pytest.approx(stats.spearmanr(full[3:, 1], sel[3:, 1]).statistic, abs=1e-12)


def _spearman_or_nan(x: np.ndarray, y: np.ndarray, min_heldout: int) -> float:
    """The independent rho of a column: scipy on the complete rows; NaN below ``min_heldout`` or constant."""
    ok = np.isfinite(x) & np.isfinite(y)
    if ok.sum() < min_heldout or np.ptp(x[ok]) == 0 or np.ptp(y[ok]) == 0:
        return np.nan
    return float(stats.spearmanr(x[ok], y[ok]).statistic)


def test_per_category_rho_matches_spearmanr_per_column_with_ties_and_nan() -> None:
    """Random tied columns, complete (the no-missing kernel) or with NaN on either side, constant columns and
    too few complete rows: each column as ``scipy.stats.spearmanr`` on its complete rows, to 1e-12."""
    rng = np.random.default_rng(11)
    for trial in range(40):
        n, k = int(rng.integers(5, 90)), int(rng.integers(1, 9))
        full = np.round(rng.random((n, k)) * 8) / 8  # coarse values: many ties on both sides
        sel = np.round((full + rng.random((n, k))) * 4) / 4
        if trial % 2:
            sel[rng.random(sel.shape) < 0.15] = np.nan
            full[rng.random(full.shape) < 0.05] = np.nan
        if trial % 3 == 0:
            sel[:, 0] = 0.25  # a constant side
        rho = per_category_rho(full, sel, min_heldout=10)
        want = [_spearman_or_nan(full[:, c], sel[:, c], 10) for c in range(k)]
        np.testing.assert_allclose(rho, want, rtol=0, atol=1e-12, equal_nan=True)


def test_heldout_scoring_matches_nanmean_and_spearmanr() -> None:
    """The protocol's scoring of one task (``kept_means`` then ``per_category_rho`` on the tiled full-pool
    means, as ``_heldout_task``) against ``np.nanmean`` per selection and ``spearmanr`` per column, on 0/1
    scores with and without missing cells (the float32 product) and on partial-credit scores."""
    rng = np.random.default_rng(12)
    n_models, n_items, n_ret = 60, 400, 3
    for kind in ("binary", "binary with NaN", "partial credit"):
        S = (rng.random((n_models, n_items)) < rng.random((n_models, 1))).astype(float)
        if kind == "partial credit":
            S = np.round(S * rng.random(S.shape) * 4) / 4
        if kind == "binary with NaN":
            S[rng.random(S.shape) < 0.05] = np.nan
        cats = [f"c{k}" for k in rng.integers(0, 3, n_items)]
        items = pd.DataFrame({"benchmark": "b", "item": range(n_items), "category": cats})
        pools = prepare_pools(Panel(S, [f"m{i}" for i in range(n_models)], items))
        blocks = CategoryBlocks.from_pools(pools)
        assert blocks.values.dtype == (np.float64 if kind == "partial credit" else np.float32)
        W = (rng.random((n_items, n_ret)) < [[0.05, 0.2, 0.5]]).astype(float)
        rows = np.sort(rng.permutation(n_models)[:30])
        means = blocks.kept_means(W, rows)  # (rows, retentions, categories)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)  # nanmean of an all-missing selection
            full = np.stack([np.nanmean(S[:, cols], axis=1) for cols in pools.columns], axis=1)
            for j in range(n_ret):
                for c, cols in enumerate(pools.columns):
                    kept = cols[W[cols, j] == 1.0]
                    want = np.nanmean(S[np.ix_(rows, kept)], axis=1)
                    np.testing.assert_allclose(means[:, j, c], want, rtol=1e-12, atol=0, equal_nan=True)
        n_cat = pools.n_categories
        rho = per_category_rho(np.tile(full[rows], n_ret), means.reshape(-1, n_ret * n_cat))
        want_rho = [
            _spearman_or_nan(full[rows, c], means[:, j, c], 10) for j in range(n_ret) for c in range(n_cat)
        ]
        np.testing.assert_allclose(rho, want_rho, rtol=0, atol=1e-12, equal_nan=True)
        assert np.isfinite(rho).sum() >= n_cat  # the comparison is not all NaN


def test_macro_rho_averages_defined_categories_only() -> None:
    rho = np.array([[0.9, np.nan, 0.7], [np.nan, np.nan, np.nan]])
    out = macro_rho(rho)
    assert out[0] == pytest.approx(0.8)
    assert np.isnan(out[1])


def test_split_summary_hand_case() -> None:
    # 3 splits x 2 selectors x 1 retention
    m = np.array([[[0.9], [0.8]], [[0.7], [0.7]], [[0.6], [np.nan]]])
    s = split_summary(m)
    assert s["mean"][:, 0] == pytest.approx([(0.9 + 0.7 + 0.6) / 3, 0.75])
    assert s["sd"][0, 0] == pytest.approx(np.std([0.9, 0.7, 0.6], ddof=1))
    assert s["min"][:, 0] == pytest.approx([0.6, 0.7]) and s["max"][:, 0] == pytest.approx([0.9, 0.8])
    # split 1: selector 0 wins; split 2: a tie credits both; split 3: selector 1 undefined
    assert s["wins"][:, 0].tolist() == [3, 1]
    assert s["n_splits"][:, 0].tolist() == [3, 2]


def _panel(n_models: int = 30, n_items: int = 240, seed: int = 0) -> Panel:
    rng = np.random.default_rng(seed)
    theta = rng.normal(size=(n_models, 1))
    b = rng.normal(size=(1, n_items))
    S = (rng.random((n_models, n_items)) < 1 / (1 + np.exp(-(theta - b)))).astype(float)
    cats = np.where(np.arange(n_items) < 120, "A", "B")
    return Panel.from_matrix(
        S,
        [f"m{i}" for i in range(n_models)],
        [f"i{j}" for j in range(n_items)],
        benchmark="bench",
        categories=list(cats),
    )


class FirstK(ItemSelector):
    """Keeps the first k items of the pool (a selector whose choice is known in advance)."""

    name = "firstk"

    def __init__(self, random_state: int | None = 0) -> None:
        self.random_state = random_state

    def select(self, scores, k, *, embeddings=None, text_embeddings=None, item_meta=None):
        inp = check_selector_input(scores, k)
        kept = np.arange(inp.k)
        return self._set_fitted(inp.n_items, kept, np.array(["first"] * inp.k), np.full(inp.n_items, np.nan))


def test_keep_all_gives_rho_one() -> None:
    res = stage2_heldout(_panel(), selectors=["random", FirstK()], retentions=[1.0], n_splits=3, floor=0)
    assert np.allclose(res.rho, 1.0)
    assert res.summary()["rho_mean"].tolist() == pytest.approx([1.0, 1.0])


def test_scores_the_selected_items_on_the_heldout_models() -> None:
    p = _panel()
    split = Split("hand", np.arange(15), np.arange(15, 30))
    res = stage2_heldout(p, selectors=[FirstK()], retentions=[0.25], splits=[split], floor=0)
    # K_C = floor(0.25 * 120) = 30: items 0-29 of category A, items 120-149 of category B
    S = p.scores[15:]
    expected = [
        stats.spearmanr(S[:, :120].mean(axis=1), S[:, :30].mean(axis=1)).statistic,
        stats.spearmanr(S[:, 120:].mean(axis=1), S[:, 120:150].mean(axis=1)).statistic,
    ]
    assert res.rho[0, 0, 0] == pytest.approx(expected, abs=1e-12)
    assert res.budgets.tolist() == [[30, 30]]
    assert res.macro[0, 0, 0] == pytest.approx(np.mean(expected))


def test_too_few_heldout_models_leave_rho_undefined() -> None:
    split = Split("small", np.arange(21), np.arange(21, 30))  # 9 held out
    big = Split("big", np.arange(15), np.arange(15, 30))
    res = stage2_heldout(_panel(), selectors=["random"], retentions=[0.2], splits=[split, big], floor=0)
    assert np.isnan(res.rho[0]).all() and np.isfinite(res.rho[1]).all()
    assert any("1 split(s) hold out fewer than 10" in n for n in res.notes)
    # every split too small: refused (a table of NaN, exit 0, files written before; audit s32)
    with pytest.raises(DegenerateError, match="every split holds out fewer than min_heldout=10 models"):
        stage2_heldout(_panel(), selectors=["random"], retentions=[0.2], splits=[split], floor=0)


def test_same_seed_same_result_and_variance_beats_random_on_noisy_items() -> None:
    # half the items are pure noise (no ability signal): variance cannot tell them apart, but planted
    # zero-variance items (all 0) must never be kept by Variance while Random keeps some
    rng = np.random.default_rng(1)
    p = _panel(40, 400, seed=2)
    S = p.scores.copy()
    S[:, 200:] = 0.0
    p2 = Panel(S, p.models, p.items)
    a = stage2_heldout(
        p2, selectors=["variance", "random"], retentions=[0.1], n_splits=4, floor=0, random_state=5
    )
    b = stage2_heldout(
        p2, selectors=["variance", "random"], retentions=[0.1], n_splits=4, floor=0, random_state=5
    )
    assert np.array_equal(a.rho, b.rho, equal_nan=True)
    summ = a.summary().set_index("selector")
    assert summ.loc["variance", "rho_mean"] > summ.loc["random", "rho_mean"]
    del rng


def test_results_do_not_depend_on_n_jobs() -> None:
    p = _panel()
    a = stage2_heldout(p, selectors=["random", "variance"], retentions=[0.2], n_splits=2, floor=0, n_jobs=1)
    b = stage2_heldout(p, selectors=["random", "variance"], retentions=[0.2], n_splits=2, floor=0, n_jobs=2)
    assert np.array_equal(a.rho, b.rho, equal_nan=True)


def test_chronological_protocol_reports_main_split_and_sensitivity() -> None:
    p = _panel()
    models = p.models
    models["release_date"] = pd.Series(pd.date_range("2023-01-01", periods=30, freq="10D")).to_numpy()
    models.loc[[0, 1], "release_date"] = pd.NaT
    p = Panel(p.scores, models, p.items)
    res = stage2_heldout(p, selectors=["random"], retentions=[0.2], protocol="chronological", floor=0)
    assert [s.name for s in res.splits] == [
        "chronological 15/15",
        "chronological 10/20",
        "chronological 20/10",
    ]
    assert not set(res.splits[0].build) & {0, 1}
    d = res.to_dict()
    assert d["protocol"] == "chronological" and len(d["results"]) == 1
    assert [x["split"] for x in d["sensitivity"]] == ["chronological 10/20", "chronological 20/10"]
    assert d["results"][0]["rho_mean"] == pytest.approx(res.macro[0, 0, 0])


class FirstKHalfWeights(FirstK):
    """Keeps the first k items; its estimator weights the first kept item 3x (a known estimator)."""

    name = "firstk-weighted"

    def select(self, scores, k, *, embeddings=None, text_embeddings=None, item_meta=None):
        out = super().select(scores, k)
        self.weights_ = np.r_[3.0, np.ones(out.size - 1)]
        return out


def test_weighted_and_selector_scoring_use_the_selector_estimate() -> None:
    p = _panel()
    split = Split("hand", np.arange(15), np.arange(15, 30))
    S = p.scores[15:]
    w = np.r_[3.0, np.ones(29)]
    expected = stats.spearmanr(S[:, :120].mean(axis=1), S[:, :30] @ w / w.sum()).statistic
    for scoring in ("weighted", "selector"):
        res = stage2_heldout(
            p, selectors=[FirstKHalfWeights()], retentions=[0.25], splits=[split], floor=0, scoring=scoring
        )
        assert res.rho[0, 0, 0, 0] == pytest.approx(expected, abs=1e-12)


def test_every_selector_gets_the_same_100_item_floor() -> None:
    """K_C = max(floor(r N_C), min(N_C, 100)) for every registered selector (PRIMEBench section 5, D.1)."""
    from benchsift.compression.protocols.pools import prepare_pools, selection_weights
    from benchsift.compression.selectors.registry import SELECTOR_NAMES

    rng = np.random.default_rng(3)
    n_a, n_b = 60, 400  # pool A below the floor (kept whole), pool B: 5 % of 400 = 20 -> 100
    theta = rng.normal(size=(24, 1))
    S = (rng.random((24, n_a + n_b)) < 1 / (1 + np.exp(-(theta - rng.normal(size=(1, n_a + n_b)))))).astype(
        float
    )
    cats = ["A"] * n_a + ["B"] * n_b
    p = Panel.from_matrix(
        S, [f"m{i}" for i in range(24)], [f"i{j}" for j in range(n_a + n_b)], categories=cats
    )
    pools = prepare_pools(p)
    build = np.arange(12)
    for name in SELECTOR_NAMES:
        W, budgets = selection_weights(pools, name, build, [0.05, 0.5], 100, lambda j, c: 7)
        assert budgets.tolist() == [[60, 100], [60, 200]], name
        kept = W > 0
        assert kept[:n_a].all(), name  # the small pool is kept whole
        assert kept[n_a:].sum(axis=0).tolist() == [100, 200], name
    res = stage2_heldout(p, selectors=list(SELECTOR_NAMES), retentions=[0.05], n_splits=1)
    assert np.allclose(res.rho[0, :, 0, 0], 1.0)  # pool A: every selector scores the full pool


def test_a_cell_does_not_depend_on_the_other_selectors_and_retentions() -> None:
    """Seeds are keyed by selector name and retention value: ``--selectors variance --retentions 0.05``
    reproduces that cell of a larger run (binary data: Variance ties are broken by the seed)."""
    p = _panel()
    big = stage2_heldout(p, selectors=["random", "variance"], retentions=[0.02, 0.1], n_splits=2, floor=0)
    one = stage2_heldout(p, selectors=["variance"], retentions=[0.1], n_splits=2, floor=0)
    assert np.array_equal(big.rho[:, 1, 1], one.rho[:, 0, 0], equal_nan=True)


def test_logged_answers_reach_disco() -> None:
    """With ``predictions`` DISCO counts distinct logged answers on the build models (PRIMEBench section 5):
    on 0/1 scores every split item ties, but planted answer disagreement decides the choice."""
    from benchsift.compression.protocols.pools import prepare_pools, selection_weights

    p = _panel(30, 240)
    answers = np.full(p.shape, "A", dtype=object)
    answers[:, 5] = np.array(list("ABCDE") * 6)  # item 5 (category A): five different answers
    answers[:, 130] = np.array(list("ABCDEF") * 5)  # item 130 (category B): six different answers
    answers[0, 7] = None  # missing answers are skipped
    pools = prepare_pools(p, predictions=answers)
    W, _ = selection_weights(pools, "disco", np.arange(30), [1 / 120], 0, lambda r, c: 0)
    assert np.flatnonzero(W[:, 0]).tolist() == [5, 130]
    with pytest.raises(InputError, match="predictions"):
        prepare_pools(p, predictions=answers[:, :10])
    res = stage2_heldout(p, selectors=["disco"], retentions=[0.1], n_splits=1, floor=0, predictions=answers)
    assert res.rho.shape == (1, 1, 1, 2)


def test_runs_unchanged_under_an_active_joblib_backend() -> None:
    """The default ``n_jobs=None`` takes the active backend (``parallel_backend("ray")`` works alike)."""
    from joblib import parallel_backend

    p = _panel()
    kw = {"selectors": ["random", "variance"], "retentions": [0.2], "n_splits": 2, "floor": 0}
    a = stage2_heldout(p, **kw)
    with parallel_backend("threading", n_jobs=2):
        b = stage2_heldout(p, **kw)
    assert np.array_equal(a.rho, b.rho, equal_nan=True)


def test_floor_overriding_a_retention_is_a_warning() -> None:
    """The 100-item floor keeping more than r of a category is said, as `compress` says it (before: only
    retentions the floor made identical were warned of, so one retention at 5 % ran on 31 % silently)."""
    from benchsift.simulate import SimulationConfig, simulate_panel

    panel = simulate_panel(SimulationConfig.small(items_per_benchmark=120), random_state=0).panel
    sizes = panel.image_panel().items["category"].value_counts(sort=False).to_dict()
    assert sizes == {"cat00": 110, "cat01": 340, "cat02": 510}
    res = stage2_heldout(panel, selectors=["random"], retentions=[0.05, 0.5], n_splits=2)
    # 5 %: floor(0.05 n) = 5, 17, 25 (47 in all) < min(n, 100) = 100 each -> 300 of 960 kept.
    # 50 %: only cat00 binds (floor 55 < 100): 100 + 170 + 255 = 525 kept against 55 + 170 + 255 = 480.
    assert res.budgets.tolist() == [[100, 100, 100], [100, 170, 255]]
    assert list(res.warnings) == [
        "the item floor of 100 (`floor`) overrides retention 5 % in 3 of 3 categories (300 of 960 items, "
        "31.2 %; r alone: 47); 50 % in 1 of 3 categories (525 of 960 items, 54.7 %; r alone: 480): those "
        "columns measure more items than the retention asked (`floor` 0 keeps exactly r)"
    ]
    assert (
        stage2_heldout(panel, selectors=["random"], retentions=[0.05, 0.5], n_splits=2, floor=0).warnings
        == ()
    )
    # a retention no floor binds: nothing said
    assert stage2_heldout(panel, selectors=["random"], retentions=[0.5], n_splits=2, floor=50).warnings == ()


def test_a_category_every_model_scores_the_same_is_said() -> None:
    """Category A all-correct for every model: its held-out rho is NaN in every split and the macro average is
    B's alone, which is said in the notes (before: silently)."""
    base = _panel()
    S = base.scores.copy()
    S[:, :120] = 1.0  # category A
    panel = Panel(S, base.models, base.items)
    split = Split("half", np.arange(15), np.arange(15, 30))
    res = stage2_heldout(panel, selectors=["random"], retentions=[0.5], splits=[split], floor=0)
    assert np.isnan(res.rho[0, 0, 0, 0]) and np.isfinite(res.rho[0, 0, 0, 1])
    assert res.macro[0, 0, 0] == res.rho[0, 0, 0, 1]
    assert (
        "1 of 2 categories give every model the same pool mean ('A'): their rho is undefined in every split "
        "and left out of the macro average"
    ) in res.notes
    plain = stage2_heldout(base, selectors=["random"], retentions=[0.5], splits=[split], floor=0)
    assert not any("same pool mean" in n for n in plain.notes)


def test_selections_equal_the_public_select_on_every_input_and_gather_only_what_is_read() -> None:
    """A held-out selection gives a selector only the inputs it reads (``ItemSelector.reads``; issue 36: the
    random selector of a paper-scale validate had 386,312 items' embeddings copied and checked for nothing),
    and keeps exactly the items the selector's public ``select`` keeps when it is given every input."""
    from benchsift.compression.embeddings import ItemEmbeddings
    from benchsift.compression.protocols.pools import PoolInputs, select_pool
    from benchsift.compression.protocols.specs import build_selector
    from benchsift.compression.selectors.registry import SELECTOR_NAMES
    from benchsift.simulate import SimulationConfig, simulate_panel

    sim = simulate_panel(SimulationConfig.small(n_benchmarks=4, n_categories=2, items_per_benchmark=150), 5)
    p = sim.panel
    emb = ItemEmbeddings(
        p.items[["benchmark", "item"]], vision_text=sim.truth.embeddings_vl, text=sim.truth.embeddings_text
    )
    pools = prepare_pools(p, emb)
    rows = np.arange(0, pools.n_models, 2)
    cols = pools.columns[1]
    meta = pools.items.iloc[cols].reset_index(drop=True)
    expected_gather = {"random": set(), "variance": {"X"}, "pointbiserial": {"X"}, "vaw": {"X", "embeddings"}}
    for name in SELECTOR_NAMES:
        inputs = PoolInputs(pools, rows, cols)
        for k in (7, 40):
            kept, _ = select_pool(pools, name, rows, cols, k, 11, None, inputs)
            public = build_selector(name, 11).select(
                pools.scores[np.ix_(rows, cols)],
                k,
                embeddings=pools.vision_text[cols],
                text_embeddings=pools.text[cols],
                item_meta=meta,
            )
            assert kept.tolist() == cols[public].tolist(), (name, k)
        if name in expected_gather:
            assert expected_gather[name] <= inputs.gathered, name
            if name != "vaw":  # the narrow ones gather exactly what they read
                assert inputs.gathered == expected_gather[name], name


def test_a_subclass_that_reads_the_scores_in_its_own_select_gets_them() -> None:
    """``reads`` is trusted only from the class whose ``_select`` runs: a subclass of Random (which reads
    nothing) with its own ``_select`` on the scores gets the build models' scores, not an empty matrix."""
    from benchsift.compression.protocols.pools import PoolInputs, select_pool
    from benchsift.compression.selectors.base import SelectorInput, inputs_read
    from benchsift.compression.selectors.random import RandomSelector
    from benchsift.compression.selectors.variance import IndexTieVarianceSelector, VarianceSelector

    class EasiestFirst(RandomSelector):
        name = "easiest-first"

        def _select(self, inp: SelectorInput) -> np.ndarray:
            kept = np.argsort(-np.nanmean(inp.scores, axis=0), kind="stable")[: inp.k]
            return self._set_fitted(inp.n_items, kept, np.full(kept.size, "top", dtype=object), np.zeros(0))

    assert inputs_read(RandomSelector) == frozenset()
    assert inputs_read(VarianceSelector) == inputs_read(IndexTieVarianceSelector) == frozenset({"scores"})
    assert inputs_read(EasiestFirst) == ItemSelector.reads
    p = _panel(30, 240)
    pools = prepare_pools(p)
    rows, cols = np.arange(0, 30, 3), pools.columns[0]
    inputs = PoolInputs(pools, rows, cols)
    kept, _ = select_pool(pools, EasiestFirst(), rows, cols, 9, 0, None, inputs)
    means = np.nanmean(pools.scores[np.ix_(rows, cols)], axis=0)
    assert sorted(kept.tolist()) == sorted(cols[np.argsort(-means, kind="stable")[:9]].tolist())
    assert "X" in inputs.gathered
