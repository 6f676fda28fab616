"""Stage 1 (PRIMEBench Eq. 3, App. C.1-C.2): representatives, supplementation, tiers."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy import stats as sps

from benchsift.compression.stages import representatives as rep_mod
from benchsift.compression.stages.clean import stage0_clean
from benchsift.compression.stages.representatives import (
    _candidate_order,
    category_z_mean,
    stage1_select,
    supplement_pool,
)
from benchsift.errors import InputError
from benchsift.panel import Panel
from benchsift.simulate import SimulationConfig, simulate_panel


def _one_item_per_benchmark(bench_scores: dict[str, list[float]], category: str = "C") -> Panel:
    names = list(bench_scores)
    X = np.array([bench_scores[b] for b in names]).T
    items = pd.DataFrame({"benchmark": names, "item": ["q"] * len(names), "category": category})
    return Panel(X, [f"m{i}" for i in range(X.shape[0])], items)


def test_eq3_matches_scipy_zscore_and_spearman() -> None:
    scores = {
        "A": [0.1, 0.2, 0.3, 0.4, 0.5, 0.6],
        "B": [0.2, 0.1, 0.4, 0.3, 0.6, 0.5],
        "C": [0.6, 0.1, 0.2, 0.3, 0.4, 0.5],
    }
    res = stage1_select(_one_item_per_benchmark(scores), supplement=False)
    M = np.array(list(scores.values())).T
    s_c = sps.zscore(M, axis=0).mean(axis=1).round(10)  # models 0/1 and 4/5 tie in exact arithmetic
    expected = {b: sps.spearmanr(M[:, j], s_c).statistic for j, b in enumerate(scores)}
    cat = res.categories[0]
    for b in scores:
        assert cat.candidate_rho[b] == pytest.approx(expected[b], abs=1e-12)
    assert cat.representative == max(expected, key=expected.get)
    assert cat.representative == "A"
    np.testing.assert_allclose(category_z_mean(M), s_c, atol=1e-12)


def test_single_benchmark_category_is_tier_1_and_missing_category_is_the_benchmark() -> None:
    items = pd.DataFrame({"benchmark": ["A", "A", "B", "B"], "item": ["1", "2", "1", "2"], "category": None})
    X = np.array([[0.1, 0.3, 0.2, 0.9], [0.5, 0.4, 0.1, 0.2], [0.9, 0.8, 0.7, 0.1]])
    res = stage1_select(Panel(X, ["a", "b", "c"], items))
    assert [c.category for c in res.categories] == ["A", "B"]
    for c in res.categories:
        assert c.rho_representative == pytest.approx(1.0)
        assert c.tier == 1 and c.n_supplement == 0
    assert res.pool.all()


def test_supplement_stops_at_first_prefix_reaching_target() -> None:
    # 4 models, s_C increasing. Prefix 0 (base item [0,1,0,1]): rho = 0.4472; + [0,0,1,1]: pooled
    # [0, .5, .5, 1], rho = 0.9487 < 0.95; + [.2,.4,.6,.8]: strictly increasing, rho = 1 -> stop at 2.
    X = np.array(
        [
            [0.0, 0.0, 0.2, 1.0],
            [1.0, 0.0, 0.4, 0.0],
            [0.0, 1.0, 0.6, 1.0],
            [1.0, 1.0, 0.8, 0.0],
        ]
    )
    n_keep, trace = supplement_pool(X, np.array([0]), np.array([1, 2, 3]), np.array([1.0, 2.0, 3.0, 4.0]))
    assert n_keep == 2
    np.testing.assert_allclose(trace, [1 / np.sqrt(5), 3 / np.sqrt(10), 1.0], atol=1e-12)


def test_supplement_keeps_best_prefix_when_target_not_reached() -> None:
    # base [0,0,1,1] -> rho = 0.894; + [1,1,0,0] -> constant pooled score (undefined);
    # + [0,1,0,1] -> pooled [1,2,1,2]/3 -> rho = 0.447. Best prefix: the empty one.
    X = np.array([[0.0, 1.0, 0.0], [0.0, 1.0, 1.0], [1.0, 0.0, 0.0], [1.0, 0.0, 1.0]])
    n_keep, trace = supplement_pool(X, np.array([0]), np.array([1, 2]), np.array([1.0, 2.0, 3.0, 4.0]))
    assert n_keep == 0
    assert trace[0] == pytest.approx(2 / np.sqrt(5))
    assert np.isnan(trace[1])
    assert trace[2] == pytest.approx(1 / np.sqrt(5))


def test_incremental_trace_equals_recomputing_every_prefix(monkeypatch: pytest.MonkeyPatch) -> None:
    rng = np.random.default_rng(3)
    X = rng.random((9, 60)).round(1)
    X[rng.random(X.shape) < 0.15] = np.nan
    target_scores = rng.random(9)
    monkeypatch.setattr(rep_mod, "CHUNK", 7)  # several chunks
    base = np.arange(5)
    cands = np.arange(5, 60)
    n_keep, trace = supplement_pool(X, base, cands, target_scores, target=2.0)  # never reached
    naive = []
    for j in range(cands.size + 1):
        pool = np.concatenate([base, cands[:j]])
        with np.errstate(all="ignore"):
            pooled = np.nanmean(X[:, pool], axis=1).round(10)  # values equal in exact arithmetic tie
        ok = ~np.isnan(pooled)
        naive.append(sps.spearmanr(pooled[ok], target_scores[ok]).statistic)
    np.testing.assert_allclose(trace, naive, atol=1e-10)
    assert n_keep == int(np.nanargmax(naive))


def test_candidate_order_variance_then_benchmark_then_position() -> None:
    # variances: item0 0, item1 0.25, item2 0.25, item3 0.1875 (values 0,1,1,1 -> 3/16), item4 0.25
    X = np.array(
        [
            [0.5, 0.0, 1.0, 0.0, 1.0],
            [0.5, 1.0, 0.0, 1.0, 0.0],
            [0.5, 0.0, 1.0, 1.0, 1.0],
            [0.5, 1.0, 0.0, 1.0, 0.0],
        ]
    )
    bench_rank = np.array([0, 1, 1, 0, 0])
    order = _candidate_order(X, np.arange(5), bench_rank)
    # ties at 0.25: item4 (benchmark 0) before items 1, 2 (benchmark 1, by position); then 3; then 0
    assert order.tolist() == [4, 1, 2, 3, 0]


def test_tiers_and_pool_on_a_hand_category() -> None:
    # R is the representative; supplements come from S in descending variance.
    rng = np.random.default_rng(0)
    truth = np.linspace(0.1, 0.9, 8)
    R = np.clip(truth[:, None] + rng.normal(0, 0.25, (8, 30)), 0, 1)
    S = np.clip(truth[:, None] + rng.normal(0, 0.05, (8, 30)), 0, 1)
    T = np.clip(truth[:, None] + rng.normal(0, 0.30, (8, 30)), 0, 1)
    X = np.hstack([R, S, T])
    items = pd.DataFrame(
        {
            "benchmark": ["R"] * 30 + ["S"] * 30 + ["T"] * 30,
            "item": [str(i) for i in range(90)],
            "category": "C",
        }
    )
    res = stage1_select(Panel(X, [f"m{i}" for i in range(8)], items))
    cat = res.categories[0]
    if cat.rho_representative >= 0.95:
        assert cat.tier == 1 and cat.n_supplement == 0
    else:
        assert cat.tier in (2, 3)
        assert cat.rho_pooled == pytest.approx(np.nanmax(cat.rho_trace))
        if cat.tier == 2:
            assert cat.rho_pooled >= 0.95 and (cat.rho_trace[:-1] < 0.95).all()
    assert res.n_out == cat.n_pool == len(cat.pool_items)
    roles = res.item_roles()
    assert (roles[cat.representative_items] == "representative").all()


def test_eq3_z_normalises_benchmarks_of_different_scales() -> None:
    # A spreads over [0.1, 0.9]; B and C move within 0.02 in the opposite order. The raw mean follows A,
    # the mean of z-scores weighs the three benchmarks equally and follows B and C (Eq. 3).
    scores = {
        "A": [0.1, 0.3, 0.5, 0.6, 0.8, 0.9],
        "B": [0.52, 0.51, 0.50, 0.49, 0.48, 0.47],
        "C": [0.51, 0.52, 0.50, 0.48, 0.49, 0.47],
    }
    res = stage1_select(_one_item_per_benchmark(scores), supplement=False)
    M = np.array(list(scores.values())).T
    s_c = sps.zscore(M, axis=0).mean(axis=1).round(10)
    raw = M.mean(axis=1)
    cat = res.categories[0]
    for j, b in enumerate(scores):
        assert cat.candidate_rho[b] == pytest.approx(sps.spearmanr(M[:, j], s_c).statistic, abs=1e-12)
    assert sps.spearmanr(M[:, 0], raw).statistic == pytest.approx(1.0)  # raw means would pick A
    # on z-scores: A -0.886, B 0.886, C 1.0
    assert cat.candidate_rho["C"] == pytest.approx(1.0)
    assert cat.representative == "C"


def _naive_stage1(X: np.ndarray, bench: list[str], target: float = 0.95) -> tuple[str, list[int], float]:
    """Eq. 3 and App. C.2 recomputed from scratch for one category: prefixes re-averaged one by one."""
    names = list(dict.fromkeys(bench))
    b = np.array(bench)
    means = np.column_stack([np.nanmean(X[:, b == n], axis=1) for n in names])
    s_c = sps.zscore(means, axis=0).mean(axis=1).round(10)
    rhos = [sps.spearmanr(means[:, j], s_c).statistic for j in range(len(names))]
    rep = names[int(np.argmax(rhos))]
    base = list(np.flatnonzero(b == rep))
    cand = [i for i in range(len(bench)) if bench[i] != rep]
    var = {i: round(float(np.nanvar(X[:, i])), 12) for i in cand}
    cand.sort(key=lambda i: (-var[i], names.index(bench[i]), i))

    def rho(pool: list[int]) -> float:
        return float(sps.spearmanr(np.nanmean(X[:, pool], axis=1).round(10), s_c).statistic)

    trace = [rho(base)]
    for j in range(1, len(cand) + 1):
        if trace[-1] >= target:
            break
        trace.append(rho(base + cand[:j]))
    n_keep = next((j for j, r in enumerate(trace) if r >= target), int(np.nanargmax(trace)))
    return rep, cand[:n_keep], trace[n_keep]


TIER_CASES = {
    # Table 8 tiers on hand-sized categories (6 models, benchmarks R, S, T of 3 items each)
    1: [
        [0.0, 1.0, 0.0, 0.0, 1.0, 0.0, 0.5, 0.0, 0.5],
        [1.0, 0.0, 1.0, 1.0, 0.0, 1.0, 0.0, 0.0, 0.0],
        [1.0, 1.0, 0.0, 0.5, 0.5, 0.0, 0.5, 1.0, 0.0],
        [1.0, 0.0, 0.0, 0.0, 0.5, 0.5, 1.0, 0.5, 0.0],
        [0.5, 1.0, 1.0, 0.5, 1.0, 0.5, 1.0, 1.0, 1.0],
        [0.0, 1.0, 0.5, 0.0, 1.0, 0.5, 0.5, 0.0, 0.0],
    ],
    2: [
        [1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 1.0, 0.5, 0.0],
        [0.0, 0.0, 0.5, 0.5, 0.5, 0.0, 0.0, 1.0, 1.0],
        [0.0, 0.0, 0.5, 0.5, 1.0, 0.5, 0.5, 0.5, 0.5],
        [0.5, 0.0, 1.0, 1.0, 1.0, 1.0, 0.0, 0.0, 0.5],
        [0.5, 1.0, 1.0, 0.0, 1.0, 0.0, 0.0, 1.0, 1.0],
        [0.0, 0.0, 0.0, 0.0, 1.0, 0.5, 0.5, 0.0, 0.5],
    ],
    3: [
        [1.0, 0.0, 0.0, 0.0, 0.5, 1.0, 0.5, 0.0, 0.5],
        [0.5, 1.0, 1.0, 1.0, 0.0, 1.0, 0.0, 0.5, 0.0],
        [0.0, 0.5, 0.0, 0.5, 0.0, 0.0, 1.0, 0.5, 1.0],
        [1.0, 1.0, 0.5, 0.0, 0.5, 1.0, 1.0, 1.0, 1.0],
        [0.5, 0.5, 0.0, 0.0, 0.0, 0.5, 0.5, 0.5, 1.0],
        [1.0, 1.0, 1.0, 1.0, 0.0, 1.0, 1.0, 0.0, 0.5],
    ],
}


@pytest.mark.parametrize("tier", [1, 2, 3])
def test_tiers_against_a_naive_recomputation(tier: int) -> None:
    X = np.array(TIER_CASES[tier])
    bench = ["R"] * 3 + ["S"] * 3 + ["T"] * 3
    items = pd.DataFrame({"benchmark": bench, "item": [str(i) for i in range(9)], "category": "C"})
    cat = stage1_select(Panel(X, [f"m{i}" for i in range(6)], items)).categories[0]
    rep, supp, rho = _naive_stage1(X, bench)
    assert cat.tier == tier
    assert cat.representative == rep == "R"
    assert cat.supplement_items.tolist() == supp
    assert cat.rho_pooled == pytest.approx(rho, abs=1e-10)
    assert cat.n_supplement == {1: 0, 2: 4, 3: 6}[tier]
    assert cat.reached == (tier < 3)


def test_bad_target() -> None:
    panel = _one_item_per_benchmark({"A": [0.1, 0.2, 0.3], "B": [0.3, 0.2, 0.1]})
    with pytest.raises(InputError, match="target"):
        stage1_select(panel, target=1.5)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_picks_the_planted_central_benchmark_on_the_cleaned_pool(seed: int) -> None:
    # the default simulation (planted all-correct and blind-solvable items), Stage 1 on the Stage 0 pool
    sim = simulate_panel(
        SimulationConfig.small(n_benchmarks=12, n_categories=3, items_per_benchmark=300), seed
    )
    res = stage1_select(stage0_clean(sim.panel).panel)
    checked = [c for c in res.categories if len(c.benchmarks) >= 3]
    assert len(checked) >= 2
    for cat in checked:
        assert cat.representative == sim.truth.central_benchmark[cat.category]


@pytest.mark.parametrize("seed", [0, 1])
def test_picks_the_planted_central_benchmark(seed: int) -> None:
    cfg = SimulationConfig.small(
        n_benchmarks=12,
        n_categories=3,
        items_per_benchmark=300,
        all_correct_rate=0.0,
        blind_solvable_rate=0.0,
    )
    sim = simulate_panel(cfg, random_state=seed)
    res = stage1_select(sim.panel.image_panel())
    checked = 0
    for cat in res.categories:
        # with two benchmarks the z-scored candidates are symmetric under Eq. 3 (Pearson ties exactly),
        # so the planted centre is only identifiable from three benchmarks on
        if len(cat.benchmarks) >= 3:
            assert cat.representative == sim.truth.central_benchmark[cat.category]
            checked += 1
        assert (cat.tier == 1) == (cat.rho_representative >= 0.95)
        if cat.tier in (1, 2):
            assert cat.rho_pooled >= 0.95
    assert checked >= 2
