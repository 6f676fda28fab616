"""benchsift.compare: pairs against scipy (paired t, exact McNemar), the leaderboard, tie groups, resolution,
the named pair, clusters, several benchmarks, refusals; and the acceptance checks on simulated leaderboards
with known true scores (small, seeded, tolerances from the Monte Carlo error)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy import stats as sps
from warned import calling

import benchsift
from benchsift.errors import DegenerateError, InputError
from benchsift.leaderboard import compare
from benchsift.panel import Panel
from benchsift.simulate import simulate_leaderboard
from benchsift.stats import bh_adjust, bootstrap_weights, holm_adjust, paired_power, rank_interval_pairwise
from benchsift.stats.cluster import cluster_robust_se
from benchsift.stats.paired import paired_bootstrap_pairs, wald_pvalue
from benchsift.stats.ranks import rank_interval


@pytest.fixture(scope="module")
def sim():  # type: ignore[no-untyped-def]
    return simulate_leaderboard(np.linspace(-1.0, 1.0, 6), 300, random_state=0)


def test_pairs_match_scipy_and_are_oriented(sim) -> None:  # type: ignore[no-untyped-def]
    res = benchsift.compare(sim.panel, n_boot=500, random_state=1)
    X = sim.panel.scores
    ids = sim.panel.model_ids
    pairs = res.pairs
    assert len(pairs) == 15 and (pairs["section"] == "sim").all()
    for row in pairs.to_dict(orient="records"):
        a, b = X[ids.index(row["model_a"])], X[ids.index(row["model_b"])]
        assert a.mean() >= b.mean()  # model_a is the higher-scoring
        assert row["delta"] == pytest.approx(a.mean() - b.mean())
        ref = sps.ttest_rel(a, b)
        assert row["t"] == pytest.approx(ref.statistic) and row["p_t"] == pytest.approx(ref.pvalue)
        only_a, only_b = int(((a == 1) & (b == 0)).sum()), int(((a == 0) & (b == 1)).sum())
        assert (row["only_a"], row["only_b"]) == (only_a, only_b)
        assert row["p_mcnemar"] == pytest.approx(sps.binomtest(only_a, only_a + only_b, 0.5).pvalue)
        assert row["low"] <= row["delta"] <= row["high"]
        assert row["p"] == pytest.approx(2 * sps.norm.sf(abs(row["delta"]) / row["se"]))
    np.testing.assert_allclose(pairs["p_holm"], holm_adjust(pairs["p"].to_numpy()))
    assert (pairs["separated"] == (pairs["p_holm"] <= 0.05)).all()


def test_same_seed_same_result_and_the_result_protocol(sim) -> None:  # type: ignore[no-untyped-def]
    a = compare(sim.panel, n_boot=200, random_state=3)
    b = compare(sim.panel, n_boot=200, random_state=3)
    assert a.to_dict() == b.to_dict()
    assert compare(sim.panel, n_boot=200, random_state=4).to_dict() != a.to_dict()
    assert len(repr(a).splitlines()) <= 6 and "<table" in a._repr_html_()
    frame = a.to_frame()
    assert list(frame["score"]) == sorted(frame["score"], reverse=True)
    assert (frame["rank_low"] <= frame["rank"]).all() and (frame["rank"] <= frame["rank_high"]).all()
    assert a.to_dict()["parameters"]["rank_interval"].startswith("marginal per model")


def test_tie_groups_and_resolution_follow_the_pairs(sim) -> None:  # type: ignore[no-untyped-def]
    res = compare(sim.panel, n_boot=400, random_state=5)
    board = res.section("sim")
    sep = {(r["model_a"], r["model_b"]) for r in res.pairs.to_dict(orient="records") if r["separated"]}
    apart = lambda x, y: (x, y) in sep or (y, x) in sep  # noqa: E731
    models = list(board["model"])
    for g in board["group"].unique():
        members = list(board.loc[board["group"] == g, "model"])
        leader = members[0]
        assert not any(apart(leader, m) for m in members[1:])  # nobody is apart from the group's leader
        nxt = models.index(members[-1]) + 1
        if nxt < len(models):
            assert apart(leader, models[nxt])  # the next group starts at the first model apart from it
    labels = res.ties["sim"]
    assert len(labels) == board["group"].nunique()
    first = board[board["group"] == 1]
    assert labels[0].startswith(f"1-{len(first)}: " if len(first) > 1 else "1: ")
    row = res.resolution.iloc[0]
    assert row["mdd"] == pytest.approx(np.median(res.pairs["mdd"]))
    assert row["separated_holm"] == pytest.approx(np.mean(res.pairs["p_holm"] <= 0.05))
    z = sps.norm.ppf(0.975) + sps.norm.ppf(0.8)
    np.testing.assert_allclose(res.pairs["mdd"], z * res.pairs["se"])


def test_named_pair_power_and_items_needed(sim) -> None:  # type: ignore[no-untyped-def]
    ids = sim.panel.model_ids
    res = compare(sim.panel, n_boot=400, random_state=6, pair=(ids[2], ids[3]), power=0.9)
    (row,) = res.pair_power.to_dict(orient="records")
    assert {row["model_a"], row["model_b"]} == {ids[2], ids[3]}
    assert row["power"] == pytest.approx(float(paired_power(row["delta"], row["se"])))
    z = sps.norm.ppf(0.975) + sps.norm.ppf(0.9)
    assert row["items_needed"] == np.ceil(300 * (z * row["se"] / row["delta"]) ** 2)
    with pytest.raises(InputError, match="no model 'nope'"):
        compare(sim.panel, pair=(ids[0], "nope"))


def test_several_benchmarks_missing_items_and_clusters() -> None:
    rng = np.random.default_rng(7)
    X = (rng.random((4, 90)) < np.linspace(0.3, 0.7, 4)[:, None]).astype(float)
    X[0, :20] = np.nan  # model 0 skipped 20 items of benchmark A
    items = pd.DataFrame(
        {
            "benchmark": ["A"] * 60 + ["B"] * 30,
            "item": [str(i) for i in range(90)],
            "image": [f"img{i // 3}" for i in range(90)],  # three questions per image
        }
    )
    panel = Panel(X, ["m0", "m1", "m2", "m3"], items)
    res = calling(compare, panel, n_boot=300, random_state=8)
    assert res.sections == ["A", "B", "overall"]
    assert res.clusters["used"] and res.clusters["n_clusters"] == 30
    assert any("image" in w for w in res.warnings)  # the inferred grouping is named
    a = res.pairs[(res.pairs["section"] == "A")]
    with_m0 = a[(a["model_a"] == "m0") | (a["model_b"] == "m0")]
    assert (with_m0["n_common"] == 40).all()
    ov = res.pairs[res.pairs["section"] == "overall"]
    assert (ov[(ov["model_a"] != "m0") & (ov["model_b"] != "m0")]["n_common"] == 90).all()
    board = res.section("A").set_index("model")
    assert board.loc["m0", "n_items"] == 40
    assert board.loc["m0", "score"] == pytest.approx(np.nanmean(X[0, :60]))
    plain = calling(compare, panel, n_boot=300, random_state=8, clusters=None)
    assert not plain.clusters["used"]
    assert plain.to_dict()["sections"]["B"] != res.to_dict()["sections"]["B"]


def test_refusals(sim) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(InputError, match="correction"):
        compare(sim.panel, correction="bonf")
    with pytest.raises(InputError, match="alpha"):
        compare(sim.panel, alpha=1.5)
    with pytest.raises(DegenerateError, match="at least 2 models"):
        compare(sim.panel.subset(models=[0]))


# -- acceptance, small: simulated leaderboards with known true scores --------------------------------------


def _stacked_pvalues(theta: np.ndarray, n: int, reps: int, seed: int) -> np.ndarray:
    """(reps, pairs) bootstrap Wald p-values of ``reps`` independent panels (stacked as rows)."""
    rng = np.random.default_rng(seed)
    M = theta.size
    X = np.vstack([simulate_leaderboard(theta, n, random_state=rng).scores for _ in range(reps)])
    ia, ib = np.triu_indices(M, 1)
    off = (np.arange(reps) * M)[:, None]
    a, b = (ia[None] + off).reshape(-1), (ib[None] + off).reshape(-1)
    pb = paired_bootstrap_pairs(X, bootstrap_weights(n, 400, rng), pairs=(a, b))
    return wald_pvalue(X[a].mean(1) - X[b].mean(1), pb.se).reshape(reps, -1)


def test_false_separation_after_correction_is_at_most_nominal() -> None:
    # global null, 6 equal models (15 pairs), 2,000 panels: the family-wise error after Holm and (under the
    # global null the same thing) the false discovery rate after BH are <= 0.05 up to Monte Carlo error
    # (binomial se at 0.05: 0.0049; 0.05 + 3 se = 0.065). Without a correction the same panels separate
    # some pair far more often (about 1 - 0.95^15 ~ 0.4 for independent pairs).
    p = _stacked_pvalues(np.zeros(6), 200, 2000, seed=11)
    assert np.mean([(holm_adjust(r) <= 0.05).any() for r in p]) <= 0.065
    assert np.mean([(bh_adjust(r) <= 0.05).any() for r in p]) <= 0.065
    assert np.mean((p <= 0.05).any(axis=1)) > 0.15
    assert abs(np.mean(p <= 0.05) - 0.05) < 0.01  # per pair: 30,000 pairs (correlated), se ~ 0.002
    # 3 tied pairs far apart (6 models): Holm's family-wise error over the 3 null pairs, BH's false
    # discovery proportion averaged over panels, both <= 0.05 + 3 se
    theta = np.repeat([-1.0, 0.0, 1.0], 2)
    p = _stacked_pvalues(theta, 200, 2000, seed=15)
    ia, ib = np.triu_indices(6, 1)
    null = theta[ia] == theta[ib]
    holm = [((holm_adjust(r) <= 0.05) & null).any() for r in p]
    fdp = [((bh_adjust(r) <= 0.05) & null).sum() / max(1, (bh_adjust(r) <= 0.05).sum()) for r in p]
    assert np.mean(holm) <= 0.065
    assert np.mean(fdp) <= 0.065


@pytest.mark.parametrize("dtheta", [0.0, 0.2, 0.4, 0.7])
def test_power_curve_matches_simulation(dtheta: float) -> None:
    # one pair, 2,500 panels of 300 items at each true difference (power 0.05 .. 0.95): the rejection rate of
    # the bootstrap test at 0.05 is the formula's Phi(delta/se - z) + Phi(-delta/se - z), se the true one
    # (a 400,000-item draw), within 3 points (binomial se at most 0.01)
    theta = np.array([dtheta, 0.0])
    p = _stacked_pvalues(theta, 300, 2500, seed=12)
    big = simulate_leaderboard(theta, 400_000, random_state=1)
    d = big.scores[0] - big.scores[1]
    se = d.std(ddof=1) / np.sqrt(300)
    pred = float(paired_power(big.true_scores[0] - big.true_scores[1], se))
    assert abs(np.mean(p <= 0.05) - pred) <= 0.03


def _rank_coverage(theta, n, reps, seed, interval):  # type: ignore[no-untyped-def]
    """Per model (in ``theta``'s order): the share of ``reps`` panels whose interval holds the true rank."""
    rng = np.random.default_rng(seed)
    hits = []
    W = bootstrap_weights(n, 400, rng)
    for _ in range(reps):
        s = simulate_leaderboard(theta, n, random_state=rng)
        pb = paired_bootstrap_pairs(s.scores, W, pairs=(np.array([0]), np.array([1])))
        ci = interval(s.scores.mean(axis=1), pb.means)
        hits.append((ci[:, 0] <= s.true_ranks) & (s.true_ranks <= ci[:, 1]))
    return np.mean(hits, axis=0)


def test_rank_intervals_cover_the_true_ranks() -> None:
    # 10 models 0.005 apart in ability (all near-tied), 150 panels: the worst and the best model are the
    # least favourably placed (a false claim in one direction is a miss); each is covered at least
    # 0.95 - 0.045 (MC se ~0.018). The interval calibrated at the observed signs (before) covered them
    # about 0.80 / 0.83 (pooled 0.95 by averaging with 1.0 in the middle); the percentile interval of the
    # bootstrap ranks (the old rank_ci) covers about 0.87 pooled
    theta = np.arange(10) * 0.005
    cov = _rank_coverage(theta, 300, 150, 13, lambda x, S: rank_interval_pairwise(x, S, 0.95))
    old = _rank_coverage(theta, 300, 150, 13, lambda x, S: rank_interval(S, 0.95))
    assert cov[0] >= 0.905 and cov[-1] >= 0.905
    assert cov.mean() >= 0.95
    assert old.mean() < 0.92
    # near-tied pairs far apart: each model at least nominal, up to MC error
    theta = np.repeat(np.linspace(-0.6, 0.6, 4), 2) + np.tile([0.02, 0.0], 4)
    cov = _rank_coverage(theta, 300, 100, 14, lambda x, S: rank_interval_pairwise(x, S, 0.95))
    assert cov.min() >= 0.9 and cov.mean() >= 0.94


def _rank_intervals(theta, n, reps, seed, rules):  # type: ignore[no-untyped-def]
    """``(hits, widths)`` per rule, each ``(reps, M)``: whether each model's interval holds its true rank,
    and the interval's width in ranks, on ``reps`` simulated panels (the same panels for every rule)."""
    rng = np.random.default_rng(seed)
    W = bootstrap_weights(n, 400, rng)
    hits: dict[str, list[np.ndarray]] = {k: [] for k in rules}
    widths: dict[str, list[np.ndarray]] = {k: [] for k in rules}
    for _ in range(reps):
        s = simulate_leaderboard(theta, n, random_state=rng)
        pb = paired_bootstrap_pairs(s.scores, W, pairs=(np.array([0]), np.array([1])))
        for k, rule in rules.items():
            ci = rule(s.scores.mean(axis=1), pb.means)
            hits[k].append((ci[:, 0] <= s.true_ranks) & (s.true_ranks <= ci[:, 1]))
            widths[k].append(ci[:, 1] - ci[:, 0] + 1)
    return {k: np.array(v) for k, v in hits.items()}, {k: np.array(v) for k, v in widths.items()}


def test_rank_intervals_each_direction_closer_to_nominal_and_valid() -> None:
    # 4 near-tied pairs far apart (each model the end of a 2-tie: the least favourable place), 150 panels
    # of 300 items. Each direction of claim at its own critical value ("each", the default) is nested in
    # the interval before ("worst": both at the larger one), strictly narrower on some panels, so its
    # coverage is closer to nominal; every model stays covered at least 0.95 - 0.045 (MC se ~0.018)
    theta = np.repeat(np.linspace(-0.6, 0.6, 4), 2) + np.tile([0.02, 0.0], 4)
    rules = {
        "each": lambda x, S: rank_interval_pairwise(x, S, 0.95),
        "worst": lambda x, S: rank_interval_pairwise(x, S, 0.95, critical="worst"),
    }
    hits, widths = _rank_intervals(theta, 300, 150, 16, rules)
    assert (widths["each"] <= widths["worst"]).all() and (widths["each"] < widths["worst"]).any()
    assert (hits["each"] <= hits["worst"]).all()
    assert hits["each"].mean() < hits["worst"].mean()
    assert hits["each"].mean(axis=0).min() >= 0.905
    # 10 models 0.005 apart (all near-tied): the data barely tell a model's place, so the coverage pooled
    # over the models is about the mean width over 10 (0.991 and 0.984 here; exactly so on an exact tie);
    # the first and the last are the least favourably placed and are covered about nominal (0.94, 0.97),
    # the middle ones about 1
    hits, widths = _rank_intervals(np.arange(10) * 0.005, 300, 150, 13, {"each": rules["each"]})
    per = hits["each"].mean(axis=0)
    assert abs(hits["each"].mean() - widths["each"].mean() / 10) < 0.015
    assert per[0] >= 0.905 and per[-1] >= 0.905 and per[0] < 0.99 and per[-1] < 0.99
    assert per[3:7].min() >= 0.99


def test_rank_interval_steps_down_to_the_competitors_in_question() -> None:
    # model 0 against one far competitor above (always claimed) and one near it, above by 0.185.
    # Replicates: the near difference 0.185 + e, e evenly spaced in [-0.2, 0.2] (41 values), the far one
    # 5 - 0.1 e, so their centred replicates are e / se and -e / se (se = std(e)). Step 1's critical value
    # is the 0.95 quantile of max(Z_far, Z_near) = |e| / se (1.586; the same for -Z), step 2's, the far
    # one claimed, that of e / se alone (1.503); the near one's t = 0.185 / se = 1.545 lies between: it
    # is claimed at the second step only, and model 0's interval is [3, 3] (two-sided, or one step: [2, 3])
    e = np.linspace(-0.2, 0.2, 41)
    S = np.column_stack([np.zeros(41), 5.0 - 0.1 * e, 0.185 + e])
    se = e.std(ddof=1)
    c1 = np.quantile(np.abs(e) / se, 0.95, method="higher")
    c2 = np.quantile(e / se, 0.95, method="higher")
    assert c2 < 0.185 / se < c1
    out = rank_interval_pairwise([0.0, 5.0, 0.185], S, 0.95)
    np.testing.assert_array_equal(out[0], [3, 3])


def test_a_panel_past_the_old_weight_limit_is_compared_in_bounded_memory() -> None:
    # 3 models x 126,000 items x 2,000 replicates = 252M weights (2 GB as one float64 matrix: refused
    # before the weights were streamed); now drawn in blocks: the peak of numpy's allocations stays
    # a small fraction of that, and the result is the one a direct computation gives
    import tracemalloc

    rng = np.random.default_rng(31)
    n = 126_000
    X = (rng.random((3, n)) < np.array([[0.5], [0.52], [0.6]])).astype(float)
    items = pd.DataFrame({"benchmark": "big", "item": np.arange(n).astype(str)})
    items["cluster"] = (np.arange(n) // 10).astype(str)  # clusters of 10: fewer draws, the same weights
    panel = Panel(X, ["a", "b", "c"], items)
    tracemalloc.start()
    try:
        res = compare(panel, n_boot=2000, random_state=0)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 300e6
    pairs = res.pairs.set_index(["model_a", "model_b"])
    d = X[2] - X[0]
    assert pairs.loc[("c", "a"), "delta"] == pytest.approx(d.mean())
    # the cluster bootstrap se is close to the cluster-robust one (2,000 replicates: within 5 %)
    se = cluster_robust_se(d, np.arange(n) // 10, small_sample=False)
    assert pairs.loc[("c", "a"), "se"] == pytest.approx(se, rel=0.05)
    print(f"peak {peak / 1e6:.0f} MB")


def test_one_benchmark_may_be_named_bare() -> None:
    """``benchmarks="AB"`` was split into letters ("unknown benchmark(s) ['A', 'B']"; Python API audit s32
    f09): one name is that benchmark, as ``["AB"]``."""
    rng = np.random.default_rng(3)
    X = (rng.random((4, 60)) < np.linspace(0.3, 0.7, 4)[:, None]).astype(float)
    items = pd.DataFrame({"benchmark": ["AB"] * 30 + ["CD"] * 30, "item": [str(i) for i in range(60)]})
    panel = Panel(X, ["m0", "m1", "m2", "m3"], items)
    bare = compare(panel, benchmarks="AB", n_boot=50, random_state=1)
    listed = compare(panel, benchmarks=["AB"], n_boot=50, random_state=1)
    assert bare.sections == listed.sections == ["AB"]
    pd.testing.assert_frame_equal(bare.pairs, listed.pairs)


def test_the_overall_leaderboard_holds_the_models_that_ran_every_benchmark() -> None:
    """m0 ran only the easy benchmark A, all right there: its mean over what it ran topped the overall
    leaderboard at rank 1-1 while a model it never met on B was better on A too (audit s32, on AI2D / MMMU /
    MMT stacked). It is in A's section, not in the overall one, and a warning names it."""
    rng = np.random.default_rng(5)
    X = (rng.random((5, 120)) < np.r_[np.full(60, 0.8), np.full(60, 0.3)]).astype(float)
    X[0, :60], X[0, 60:] = 1.0, np.nan  # m0: A only
    items = pd.DataFrame({"benchmark": ["A"] * 60 + ["B"] * 60, "item": [str(i) for i in range(120)]})
    res = calling(compare, Panel(X, [f"m{j}" for j in range(5)], items), n_boot=100, random_state=2)
    overall = res.section("overall")
    assert "m0" not in overall["model"].tolist() and len(overall) == 4
    assert "m0" in res.section("A")["model"].tolist() and "m0" not in res.section("B")["model"].tolist()
    (said,) = [w for w in res.warnings if "without a score on every benchmark" in w]
    assert said.startswith("section 'overall': 1 model(s) without a score on every benchmark left out (['m")
    assert overall["score"].tolist() == pytest.approx(
        sorted((np.nanmean(X[1:], axis=1)).tolist(), reverse=True)
    )
