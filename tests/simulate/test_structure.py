"""The simulated panel has the structure it was configured with (checked against the ground truth with
plain numpy / scipy, never with benchsift's own methods)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from benchsift.panel import Panel
from benchsift.simulate import SimulatedPanel, SimulationConfig, simulate_panel


@pytest.fixture(scope="module")
def small() -> SimulatedPanel:
    return simulate_panel(SimulationConfig.small(), random_state=0)


def _image(sim: SimulatedPanel) -> np.ndarray:
    cond = sim.panel.models["condition"].to_numpy()
    return sim.panel.scores[cond == "image"]


def _benchmark_means(scores: np.ndarray, bench_of_item: np.ndarray, names: list[str]) -> np.ndarray:
    return np.column_stack([np.nanmean(scores[:, bench_of_item == b], axis=1) for b in names])


# ---------------------------------------------------------------------------- layout
def test_layout_and_metadata(small: SimulatedPanel) -> None:
    panel, truth = small.panel, small.truth
    cfg = SimulationConfig.small()
    assert isinstance(panel, Panel)
    assert panel.n_items == cfg.n_items == truth.n_items
    assert len(panel.benchmarks) == cfg.n_benchmarks and len(panel.categories) == cfg.n_categories
    models = panel.models
    cond = models["condition"].to_numpy()
    # image rows first, in truth order, then one text-only row per text-only model
    assert (cond[: cfg.n_models] == "image").all() and (cond[cfg.n_models :] == "text-only").all()
    assert panel.n_models == cfg.n_models + cfg.n_text_only_models
    assert models["model"].iloc[cfg.n_models :].tolist() == truth.text_only_models
    assert set(truth.text_only_models) <= set(models["model"].iloc[: cfg.n_models])
    assert truth.abilities.shape == (cfg.n_models, len(truth.trait_names))
    assert models["release_date"].notna().all() and models["params"].notna().all()
    assert models["family"].notna().all()
    # items: grouped by benchmark, benchmark -> category as in the truth, dimension column present
    items = panel.items
    assert items["category"].tolist() == [truth.benchmark_category[b] for b in items["benchmark"]]
    first = items["benchmark"].drop_duplicates().index.to_numpy()
    assert (np.diff(first) > 0).all() and items["benchmark"].is_monotonic_increasing
    assert items["question"].str.endswith("?").all()
    assert set(items["dimension"]) == {f"dim{d}" for d in range(cfg.n_dimensions)}
    # per-item truth arrays are aligned with the items
    for arr in (
        truth.item_discrimination,
        truth.item_difficulty,
        truth.item_cluster,
        truth.vision_dependence,
        truth.all_correct,
        truth.blind_solvable,
    ):
        assert arr.shape == (panel.n_items,)
    assert truth.embeddings_vl.shape == truth.embeddings_text.shape == (panel.n_items, cfg.embedding_dim)
    assert truth.embeddings_vl.dtype == np.float32
    # clusters never span benchmarks
    per_cluster = pd.Series(items["benchmark"].to_numpy()).groupby(truth.item_cluster).nunique()
    assert (per_cluster == 1).all()
    scores = panel.scores
    assert np.nanmin(scores) >= 0.0 and np.nanmax(scores) <= 1.0


def test_graded_and_binary_benchmarks(small: SimulatedPanel) -> None:
    truth, image = small.truth, _image(small)
    bench = small.panel.items["benchmark"].to_numpy()
    assert len(truth.graded_benchmarks) == round(0.25 * 8)
    for b in small.panel.benchmarks:
        vals = image[:, bench == b]
        vals = vals[~np.isnan(vals)]
        distinct = np.unique(vals)
        if b in truth.graded_benchmarks:
            assert distinct.size > 50  # continuous scores
        else:
            assert set(distinct.tolist()) <= {0.0, 1.0}


# ---------------------------------------------------------------------------- correlation structure
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_benchmark_correlations_higher_within_category(seed: int) -> None:
    sim = simulate_panel(SimulationConfig.small(), random_state=seed)
    names = sim.panel.benchmarks
    means = _benchmark_means(_image(sim), sim.panel.items["benchmark"].to_numpy(), names)
    corr = np.corrcoef(means.T)
    cat = np.array([sim.truth.benchmark_category[b] for b in names])
    same = (cat[:, None] == cat[None, :]) & ~np.eye(len(names), dtype=bool)
    across = cat[:, None] != cat[None, :]
    assert corr[same].mean() > corr[across].mean() + 0.1


def _stage1_argmax(means: np.ndarray, names: list[str], cats: list[str]) -> dict[str, str]:
    """PRIMEBench Eq. 3 written out with numpy / scipy: per category, the benchmark whose model means have
    the highest Spearman correlation with the mean of the z-normalised benchmark means."""
    out: dict[str, str] = {}
    for c in sorted(set(cats)):
        idx = [j for j, cj in enumerate(cats) if cj == c]
        block = means[:, idx]
        z = (block - block.mean(axis=0)) / block.std(axis=0)
        cat_mean = z.mean(axis=1)
        rho = [stats.spearmanr(block[:, j], cat_mean).statistic for j in range(len(idx))]
        out[c] = names[idx[int(np.argmax(rho))]]
    return out


@pytest.mark.parametrize(
    ("config", "seed"),
    [
        (SimulationConfig.small(), 0),
        (SimulationConfig.small(), 3),
        (SimulationConfig.small(n_benchmarks=12, n_categories=3, items_per_benchmark=300), 1),
        (
            SimulationConfig.primebench(
                items_per_benchmark=300, min_items_per_benchmark=100, missing_rate=0.0
            ),
            0,
        ),
        (
            SimulationConfig.primebench(
                items_per_benchmark=300, min_items_per_benchmark=100, missing_rate=0.0
            ),
            5,
        ),
    ],
)
def test_stage1_argmax_is_the_planted_central_benchmark(config: SimulationConfig, seed: int) -> None:
    sim = simulate_panel(config, random_state=seed)
    truth = sim.truth
    names = sim.panel.benchmarks
    bench = sim.panel.items["benchmark"].to_numpy()
    clean = ~truth.all_correct & ~truth.blind_solvable  # the Stage 0 pool Stage 1 runs on
    means = _benchmark_means(_image(sim)[:, clean], bench[clean], names)
    cats = [truth.benchmark_category[b] for b in names]
    picked = _stage1_argmax(means, names, cats)
    sizes = pd.Series(cats).value_counts()
    checked = 0
    for c, b in picked.items():
        if sizes[c] >= 3:  # with two benchmarks Eq. 3 is symmetric (see _assign_categories)
            assert b == truth.central_benchmark[c], (c, b, truth.central_margin[c])
            assert truth.central_margin[c] >= config.central_margin
            checked += 1
        elif sizes[c] == 1:
            assert b == truth.central_benchmark[c]
    assert checked >= 2
    # every category has one or at least three benchmarks
    assert not (sizes == 2).any()
    assert sorted(truth.central_benchmark) == sorted(set(cats))


def test_dimension_groups_are_correlated() -> None:
    cfg = SimulationConfig.small(items_per_benchmark=1200, n_dimensions=6, n_dimension_groups=2)
    sim = simulate_panel(cfg, random_state=4)
    items, image = sim.panel.items, _image(sim)
    within, across = [], []
    assert sim.truth.dimension_groups  # non-central benchmarks carry planted groups
    assert set(sim.truth.dimension_groups).isdisjoint(sim.truth.central_benchmark.values())
    for b, groups in sim.truth.dimension_groups.items():
        dims = sorted(groups)
        assert sorted(set(groups.values())) == [0, 1]
        in_b = items["benchmark"].to_numpy() == b
        means = np.column_stack(
            [np.nanmean(image[:, in_b & (items["dimension"].to_numpy() == d)], axis=1) for d in dims]
        )
        corr = np.corrcoef(means.T)
        g = np.array([groups[d] for d in dims])
        same = (g[:, None] == g[None, :]) & ~np.eye(len(dims), dtype=bool)
        within.append(corr[same].mean())
        across.append(corr[g[:, None] != g[None, :]].mean())
    assert np.mean(within) > np.mean(across) + 0.2


# ---------------------------------------------------------------------------- Stage 0 plants
@pytest.mark.parametrize("seed", [0, 1])
def test_all_correct_items_are_exactly_the_planted_ones(seed: int) -> None:
    sim = simulate_panel(SimulationConfig.small(all_correct_rate=0.1, missing_rate=0.05), random_state=seed)
    image = _image(sim)
    truth = sim.truth
    assert truth.all_correct.sum() == round(0.1 * sim.panel.n_items)
    planted = image[:, truth.all_correct]
    assert (planted == 1.0).all()  # no missing cells on planted items either
    observed_all_one = np.all(np.where(np.isnan(image), 1.0, image) == 1.0, axis=0)
    np.testing.assert_array_equal(observed_all_one, truth.all_correct)


@pytest.mark.parametrize("seed", [0, 1])
def test_blind_solvable_beta_split(seed: int) -> None:
    cfg = SimulationConfig.small(graded_fraction=0.5)
    sim = simulate_panel(cfg, random_state=seed)
    text = sim.panel.scores[sim.panel.models["condition"].to_numpy() == "text-only"]
    assert text.shape[0] == cfg.n_text_only_models
    beta = np.nanmean(text, axis=0)  # PRIMEBench section 4.1: mean text-only score
    blind = sim.truth.blind_solvable
    assert blind.sum() == round(cfg.blind_solvable_rate * sim.panel.n_items)
    assert (beta[blind] >= 2 / 3).all() and (beta[~blind] < 2 / 3).all()
    assert (beta[blind] >= cfg.blind_beta_min).all() and (beta[~blind] <= cfg.nonblind_beta_max).all()
    # graded benchmarks keep continuous text-only scores too
    graded = np.isin(sim.panel.items["benchmark"].to_numpy(), sim.truth.graded_benchmarks)
    assert np.unique(text[:, graded]).size > 50


def test_missing_rate_close_to_configured() -> None:
    cfg = SimulationConfig.small(missing_rate=0.1)
    sim = simulate_panel(cfg, random_state=0)
    image = _image(sim)
    eligible = image[:, ~sim.truth.all_correct]
    rate = np.isnan(eligible).mean()
    # binomial sd over ~147k cells is ~0.0008
    assert abs(rate - 0.1) < 0.005
    assert (np.sum(~np.isnan(image), axis=0) >= 2).all()
    text = sim.panel.scores[cfg.n_models :]
    assert not np.isnan(text).any()


def test_benchmark_level_missing() -> None:
    cfg = SimulationConfig.small(missing_benchmark_rate=0.3, missing_rate=0.0, all_correct_rate=0.0)
    sim = simulate_panel(cfg, random_state=2)
    image = _image(sim)
    bench = sim.panel.items["benchmark"].to_numpy()
    cover = np.column_stack([(~np.isnan(image[:, bench == b])).mean(axis=1) for b in sim.panel.benchmarks])
    assert set(np.unique(cover).tolist()) <= {0.0, 1.0}  # whole benchmarks are skipped, nothing else
    assert abs((cover == 0).mean() - 0.3) < 0.08
    assert (cover.sum(axis=0) >= cfg.n_models // 2).all()


# ---------------------------------------------------------------------------- models
def test_release_date_drift_and_family_offsets() -> None:
    cfg = SimulationConfig.small(
        n_models=200, drift_per_year=1.5, n_families=10, family_sd=1.0, ability_sd=0.5
    )
    sim = simulate_panel(cfg, random_state=0)
    truth = sim.truth
    image = _image(sim)
    days = truth.release_date_true.astype("datetime64[D]").astype(np.int64)
    assert stats.spearmanr(days, np.nanmean(image, axis=1)).statistic > 0.4
    # models of one family share offsets: their category traits correlate across models of the family
    fam = sim.panel.models["family"].iloc[: cfg.n_models].to_numpy()
    traits = truth.abilities[:, 1 : 1 + cfg.n_categories]
    same = fam[:, None] == fam[None, :]
    dist = np.linalg.norm(traits[:, None, :] - traits[None, :, :], axis=2)
    off = ~np.eye(cfg.n_models, dtype=bool)
    assert dist[same & off].mean() < 0.8 * dist[~same].mean()


def test_openvlm_like_metadata() -> None:
    cfg = SimulationConfig.openvlm(items_per_benchmark=60, min_items_per_benchmark=20)
    sim = simulate_panel(cfg, random_state=0)
    models = sim.panel.models
    assert sim.panel.n_models == 265 and (models["condition"] == "image").all()
    assert models["release_date"].isna().sum() == round(0.23 * 265)
    assert models["params"].isna().sum() == round(0.1 * 265)
    assert not sim.truth.blind_solvable.any() and sim.truth.text_only_models == []
    assert models["family"].nunique() > 40
    hidden = models["release_date"].isna().to_numpy()
    assert not np.isnat(sim.truth.release_date_true[hidden]).any()


# ---------------------------------------------------------------------------- recovery of the item model
def test_truth_probabilities_match_observed_scores(small: SimulatedPanel) -> None:
    truth, image = small.truth, _image(small)
    p = truth.image_probabilities()
    binary = ~np.isin(small.panel.items["benchmark"].to_numpy(), truth.graded_benchmarks)
    obs = image[:, binary]
    # per-model means over ~3,000 binary items: binomial sd ~0.009
    diff = np.nanmean(obs, axis=1) - np.nanmean(np.where(np.isnan(obs), np.nan, p[:, binary]), axis=1)
    assert np.abs(diff).max() < 0.05
    assert np.allclose((truth.item_trait_loading**2).sum(axis=1), 1.0)


def test_unidimensional_preset_is_plain_2pl() -> None:
    cfg = SimulationConfig.unidimensional(n_models=300, n_items=200)
    sim = simulate_panel(cfg, random_state=1)
    truth = sim.truth
    assert sim.panel.shape == (300, 200) and not np.isnan(sim.panel.scores).any()
    assert np.allclose(truth.item_trait_loading[:, 0], 1.0) and np.allclose(
        truth.item_trait_loading[:, 1:], 0.0
    )
    theta = truth.abilities[:, 0]
    expected = 1.0 / (1.0 + np.exp(-truth.item_discrimination * (theta[:, None] - truth.item_difficulty)))
    np.testing.assert_allclose(truth.image_probabilities(), expected)
    # item p-values over 300 models agree with the model (binomial sd <= 0.029)
    assert np.abs(sim.panel.scores.mean(axis=0) - expected.mean(axis=0)).max() < 0.13
    assert stats.spearmanr(sim.panel.scores.mean(axis=1), theta).statistic > 0.95


# ---------------------------------------------------------------------------- embeddings and text
def test_embeddings_cluster_by_item_cluster(small: SimulatedPanel) -> None:
    from sklearn.cluster import KMeans
    from sklearn.decomposition import TruncatedSVD
    from sklearn.feature_extraction.text import TfidfVectorizer
    from sklearn.metrics import adjusted_rand_score

    truth, items = small.truth, small.panel.items
    k = SimulationConfig.small().clusters_per_benchmark
    for b in small.panel.benchmarks[:2]:
        m = items["benchmark"].to_numpy() == b
        for emb in (truth.embeddings_vl, truth.embeddings_text):
            labels = KMeans(k, n_init=2, random_state=0).fit_predict(emb[m])
            assert adjusted_rand_score(truth.item_cluster[m], labels) > 0.8
        tfidf = TfidfVectorizer().fit_transform(items["question"][m])
        z = TruncatedSVD(20, random_state=0).fit_transform(tfidf)
        z /= np.linalg.norm(z, axis=1, keepdims=True)
        labels = KMeans(k, n_init=2, random_state=0).fit_predict(z)
        assert adjusted_rand_score(truth.item_cluster[m], labels) > 0.8
    norms = np.linalg.norm(truth.embeddings_vl, axis=1)
    np.testing.assert_allclose(norms, 1.0, atol=1e-5)


def test_vl_text_gap_tracks_vision_dependence(small: SimulatedPanel) -> None:
    truth = small.truth
    cos = np.sum(truth.embeddings_vl.astype(float) * truth.embeddings_text.astype(float), axis=1)
    delta = 1.0 - cos
    np.testing.assert_allclose(truth.delta_vl(), delta, atol=1e-6)
    assert stats.spearmanr(delta, truth.vision_dependence).statistic > 0.9
    assert delta[truth.blind_solvable].mean() < 0.5 * delta[~truth.blind_solvable].mean()


# ---------------------------------------------------------------------------- presets
def test_presets_match_the_papers() -> None:
    pb = SimulationConfig.primebench()
    assert (pb.n_models, pb.n_benchmarks, pb.n_categories, pb.n_families) == (30, 43, 18, 10)
    assert abs(pb.n_items - 386_324) < 100 and pb.embedding_dim == 64
    assert SimulationConfig.openvlm().n_models == 265
    assert SimulationConfig.preset("small") == SimulationConfig.small()
    assert SimulationConfig.from_dict(pb.to_dict()) == pb


def test_category_matrix_is_nearly_low_rank() -> None:
    """PRIMEBench section 4.4 / Figure 2: the z-normalised model x category matrix has a few dominant
    components (the paper: 95 % of the energy within the top 5 of 18); the simulator plants 1 general + 4
    broad factors, so the top five components hold most of the energy and independent categories do not."""
    base = {"items_per_benchmark": 300, "min_items_per_benchmark": 100}

    def top5_energy(config: SimulationConfig) -> float:
        sim = simulate_panel(config, random_state=0)
        truth = sim.truth
        bench = sim.panel.items["benchmark"].to_numpy()
        names = sim.panel.benchmarks
        means = _benchmark_means(_image(sim), bench, names)
        z = (means - means.mean(axis=0)) / means.std(axis=0)
        cats = np.array([truth.benchmark_category[b] for b in names])
        cat_means = np.column_stack([z[:, cats == c].mean(axis=1) for c in sorted(set(cats))])
        cz = (cat_means - cat_means.mean(axis=0)) / cat_means.std(axis=0)
        sv = np.linalg.svd(cz, compute_uv=False)
        return float(np.sum(sv[:5] ** 2) / np.sum(sv**2))

    low_rank = top5_energy(SimulationConfig.primebench(**base))
    independent = top5_energy(SimulationConfig.primebench(n_ability_factors=0, general_share=0.2, **base))
    assert low_rank > 0.85
    assert independent < low_rank - 0.1
