"""Stage 2 on a panel (PRIMEBench section 4.3): budgets, shares, image rows only, reasons, determinism."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from benchsift.compression import ItemEmbeddings
from benchsift.compression.selectors import VAWSelector
from benchsift.compression.selectors.vaw import vaw_scores
from benchsift.compression.stages.prune import stage2_prune
from benchsift.errors import InputError
from benchsift.panel import Panel
from benchsift.stats import spearman


def _panel(rng: np.random.Generator, with_text_rows: bool = True) -> Panel:
    bench = ["a"] * 150 + ["b"] * 50 + ["c"] * 30
    cat: list[str | None] = ["X"] * 200 + [None] * 30  # benchmark c has no category
    n = len(bench)
    items = pd.DataFrame({"benchmark": bench, "item": [f"i{j}" for j in range(n)], "category": cat})
    p = rng.random(n)
    image = (rng.random((8, n)) < p).astype(float)
    image[0, :5] = np.nan
    rows = [image]
    models = [f"m{j}" for j in range(8)]
    cond = ["image"] * 8
    if with_text_rows:
        rows.append((rng.random((2, n)) < 0.5).astype(float))  # text-only runs: must not count
        models += ["m0", "m1"]
        cond += ["text-only", "text-only"]
    return Panel(np.vstack(rows), pd.DataFrame({"model": models, "condition": cond}), items)


def test_budgets_shares_and_missing_category_by_hand() -> None:
    panel = _panel(np.random.default_rng(0))
    res = stage2_prune(panel, retention=0.6, random_state=0)
    cats = res.categories.set_index("category")
    # X: n_C = 200, K_C = max(floor(0.6 * 200), min(200, 100)) = 120; c (no category -> own): K = min(30, 100)
    assert cats.loc["X", ["n_items", "budget", "n_kept"]].tolist() == [200, 120, 120]
    assert cats.loc["c", ["n_items", "budget", "n_kept"]].tolist() == [30, 30, 30]
    b = res.benchmarks.set_index(["category", "benchmark"])
    assert (
        b.loc[("X", "a"), "share"] == 90 and b.loc[("X", "b"), "share"] == 30
    )  # 120 * 150/200, 120 * 50/200
    assert b.loc[("X", "a"), "n_kept"] == 90 and b.loc[("c", "c"), "n_kept"] == 30
    assert res.n_kept == 150 and np.all(np.diff(res.kept) > 0)
    assert res.items["category"].iloc[-1] == "c"
    # no embeddings, no question text: every kept item is a completion, noted in the result
    assert set(res.items["why"]) == {"completion"}
    assert any("no coverage cells" in n for n in res.notes)
    assert res.why[res.kept].tolist() == res.items["why"].tolist()
    assert (res.why == "").sum() == panel.n_items - res.n_kept


def test_floor_applies() -> None:
    panel = _panel(np.random.default_rng(1))
    res = stage2_prune(panel, retention=0.05, random_state=0)
    assert res.categories.set_index("category").loc["X", "budget"] == 100  # floor(10) < 100
    res0 = stage2_prune(panel, retention=0.05, floor=0, random_state=0)
    assert res0.categories.set_index("category").loc["X", "budget"] == 10


def test_only_image_rows_enter_the_variance() -> None:
    rng = np.random.default_rng(2)
    panel = _panel(rng)
    res = stage2_prune(panel, retention=0.3, random_state=0)
    image = panel.scores[:8]
    expected = vaw_scores(image)["score"]
    np.testing.assert_allclose(res.item_score, expected)
    assert res.params["n_image_models"] == 8
    res_img = stage2_prune(panel.image_panel(), retention=0.3, random_state=0)
    np.testing.assert_array_equal(res.kept, res_img.kept)
    # apply keeps every model row, text-only runs included
    pruned = res.apply(panel)
    assert pruned.n_items == res.n_kept and pruned.n_models == panel.n_models


def test_seed_determinism_and_seed_effect() -> None:
    rng = np.random.default_rng(3)
    panel = _panel(rng)
    emb = ItemEmbeddings(panel.items[["benchmark", "item"]], vision_text=rng.standard_normal((230, 100)))
    r1 = stage2_prune(panel, retention=0.2, embeddings=emb, random_state=5)
    r2 = stage2_prune(panel, retention=0.2, embeddings=emb, random_state=5)
    np.testing.assert_array_equal(r1.kept, r2.kept)
    pd.testing.assert_frame_equal(r1.items, r2.items)
    r_serial = stage2_prune(panel, retention=0.2, embeddings=emb, random_state=5, n_jobs=1)
    np.testing.assert_array_equal(r1.kept, r_serial.kept)  # threads across categories change nothing
    others = [stage2_prune(panel, retention=0.2, embeddings=emb, random_state=s).kept for s in range(3)]
    assert any(not np.array_equal(others[0], o) for o in others[1:])


def test_user_selector_and_errors() -> None:
    panel = _panel(np.random.default_rng(4))
    res = stage2_prune(panel, retention=0.3, selector=VAWSelector(variant="random-cells", random_state=1))
    assert res.params["variant"] == "random-cells" and set(res.items["why"]) == {"cell"}
    with pytest.raises(InputError, match="retention"):
        stage2_prune(panel, retention=0)
    with pytest.raises(InputError, match="^`selector`: unknown selector 'nope'; expected one of random, "):
        stage2_prune(panel, retention=0.1, selector="nope")
    with pytest.raises(InputError, match="variant"):
        stage2_prune(panel, retention=0.1, variant="bad")
    with pytest.raises(InputError, match="n_jobs"):
        stage2_prune(panel, retention=0.1, n_jobs=0)
    with pytest.raises(InputError, match="image-condition"):
        stage2_prune(panel.text_only_panel(), retention=0.1)


def test_builtin_text_embedding_used_when_questions_exist() -> None:
    rng = np.random.default_rng(5)
    words = np.array(["red", "car", "sign", "text", "count", "apples", "graph", "axis", "map", "city"])
    panel = _panel(rng, with_text_rows=False)
    items = panel.items
    items["question"] = [" ".join(rng.choice(words, 6)) for _ in range(panel.n_items)]
    panel = Panel(panel.scores, panel.models, items)
    res = stage2_prune(panel, retention=0.2, random_state=0)
    assert any("built-in" in n for n in res.notes)
    assert "cell" in set(res.items["why"])
    assert np.all(np.nan_to_num(res.item_q) >= 0)


def test_simulated_panel_cells_vision_and_ranking() -> None:
    from benchsift.simulate import SimulationConfig, simulate_panel

    sim = simulate_panel(SimulationConfig.small(), random_state=0)
    panel, truth = sim.panel, sim.truth
    emb = ItemEmbeddings(
        panel.items[["benchmark", "item"]], vision_text=truth.embeddings_vl, text=truth.embeddings_text
    )
    res = stage2_prune(panel, retention=0.1, embeddings=emb, random_state=0)
    # delta^VL is computed from the embeddings and tracks the planted vision dependence
    assert spearman(emb.align(panel).delta_vl(), truth.vision_dependence) > 0.5
    q_check = vaw_scores(panel.image_panel().scores, emb.align(panel).delta_vl())["q"]
    np.testing.assert_allclose(res.item_q, q_check)
    # cells: every benchmark whose cell count reaches the number of latent clusters covers all of them
    kept_cluster = pd.DataFrame(
        {"benchmark": panel.items["benchmark"].to_numpy()[res.kept], "cluster": truth.item_cluster[res.kept]}
    )
    covered = kept_cluster.groupby("benchmark")["cluster"].nunique()
    n_clusters = pd.Series(truth.item_cluster).groupby(panel.items["benchmark"]).nunique()
    big = res.benchmarks.set_index("benchmark")["n_cells"] >= 3 * n_clusters
    assert big.any()
    assert (covered[big[big].index] == n_clusters[big[big].index]).all()
    # the default vision tilt keeps more vision-dependent items than variance alone (the planted vision
    # dependence is mostly shared within a latent cluster, so compare without cells)
    vd = truth.vision_dependence
    kw = {"retention": 0.1, "embeddings": emb, "variant": "shares", "random_state": 0}
    strong = stage2_prune(panel, alpha=0.187, **kw)  # type: ignore[arg-type]
    plain = stage2_prune(panel, alpha=0.0, **kw)  # type: ignore[arg-type]
    assert vd[strong.kept].mean() > vd[plain.kept].mean() + 0.05
    # the pruned categories preserve the models' ranking on the full pool (image models)
    img = panel.image_panel()
    full = img.category_means().means
    pruned = res.apply(panel).image_panel().category_means().means
    rhos = [spearman(full[:, j], pruned[:, j]) for j in range(full.shape[1])]
    assert np.nanmin(rhos) >= 0.9
