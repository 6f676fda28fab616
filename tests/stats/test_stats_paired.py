"""Paired comparisons of every pair of rows (benchsift.stats.paired), Holm, rank intervals and tie groups:
against scipy, hand-computed cases and a plain per-pair loop."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats as sps

from benchsift.errors import InputError
from benchsift.stats import (
    WeightStream,
    bootstrap_weights,
    cluster_bootstrap_weights,
    holm_adjust,
    mcnemar_exact,
    minimum_detectable_difference,
    paired_power,
    paired_t_test,
    rank_interval_pairwise,
    stratified_cluster_bootstrap_weights,
    tie_groups,
)
from benchsift.stats.multitest import reject
from benchsift.stats.paired import items_for_power, paired_bootstrap_pairs, paired_moments, wald_pvalue
from benchsift.stats.ranks import rank_interval


def _binary(M: int, N: int, seed: int, missing: float = 0.0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    X = (rng.random((M, N)) < np.linspace(0.3, 0.7, M)[:, None]).astype(float)
    X[rng.random((M, N)) < missing] = np.nan
    return X


def test_paired_t_matches_scipy_ttest_rel_on_common_items() -> None:
    X = _binary(5, 200, 0, missing=0.1)
    X[3] = np.round(np.random.default_rng(1).random(200), 2)  # a graded row too
    t, p, df = paired_t_test(X)
    for a in range(5):
        for b in range(5):
            if a == b:
                continue
            common = ~np.isnan(X[a]) & ~np.isnan(X[b])
            ref = sps.ttest_rel(X[a, common], X[b, common])
            assert t[a, b] == pytest.approx(ref.statistic, rel=1e-10)
            assert p[a, b] == pytest.approx(ref.pvalue, rel=1e-9)
            assert df[a, b] == common.sum() - 1


def test_mcnemar_exact_matches_binomtest_and_a_hand_case() -> None:
    X = _binary(4, 150, 2, missing=0.05)
    b, c, p = mcnemar_exact(X)
    for i in range(4):
        for j in range(4):
            if i == j:
                continue
            common = ~np.isnan(X[i]) & ~np.isnan(X[j])
            only_i = int(((X[i] == 1) & (X[j] == 0) & common).sum())
            only_j = int(((X[i] == 0) & (X[j] == 1) & common).sum())
            assert (b[i, j], c[i, j]) == (only_i, only_j)
            assert p[i, j] == pytest.approx(sps.binomtest(only_i, only_i + only_j, 0.5).pvalue, rel=1e-10)
    # 1 item only A solved, 5 only B: p = 2 * P(Bin(6, 1/2) <= 1) = 2 * 7 / 64
    hand = np.array([[1, 0, 0, 0, 0, 0, 1, 0], [0, 1, 1, 1, 1, 1, 1, 0]], dtype=float)
    assert mcnemar_exact(hand)[2][0, 1] == pytest.approx(14 / 64)
    assert mcnemar_exact(np.ones((2, 5)))[2][0, 1] == 1.0  # no discordant item
    with pytest.raises(InputError, match="0/1"):
        mcnemar_exact(np.array([[0.5, 1.0], [0.0, 1.0]]))


def test_holm_hand_computed_and_against_a_loop() -> None:
    # sorted 0.005 * 4 = 0.02, 0.01 * 3 = 0.03, 0.03 * 2 = 0.06, 0.04 * 1 = 0.04 -> running max 0.06
    np.testing.assert_allclose(holm_adjust([0.01, 0.04, 0.03, 0.005]), [0.03, 0.06, 0.06, 0.02])
    rng = np.random.default_rng(3)
    p = rng.random(40) ** 3
    p[[4, 9]] = np.nan
    present = p[~np.isnan(p)]
    order = np.argsort(present)
    m = present.size
    loop = np.empty(m)
    running = 0.0
    for k, i in enumerate(order):
        running = max(running, (m - k) * present[i])
        loop[i] = min(1.0, running)
    out = holm_adjust(p)
    assert np.isnan(out[[4, 9]]).all()
    np.testing.assert_allclose(out[~np.isnan(p)], loop)
    assert (reject(p, 0.05, "holm") == (out <= 0.05)).all()


def _loop_bootstrap(X: np.ndarray, W: np.ndarray, level: float) -> tuple[np.ndarray, ...]:
    """Every pair on its own: the replicate mean difference on its common items, summarised."""
    M = X.shape[0]
    out = []
    for a, b in zip(*np.triu_indices(M, 1), strict=True):
        common = ~np.isnan(X[a]) & ~np.isnan(X[b])
        d = np.where(common, X[a] - X[b], 0.0)
        reps = np.array([(w * d).sum() / (w * common).sum() for w in W])
        lo, hi = np.quantile(reps, [(1 - level) / 2, (1 + level) / 2])
        pp = min(1.0, 2 * min((reps <= 0).mean(), (reps >= 0).mean()))
        out.append((reps.std(ddof=1), lo, hi, pp))
    return tuple(np.array(col) for col in zip(*out, strict=True))


@pytest.mark.parametrize("block", [7, 2_000_000])
def test_streamed_bootstrap_matches_a_per_pair_loop(block: int) -> None:
    # rows 0-2 complete (fast path: differences of replicate means), rows 3-4 with missing items
    X = _binary(5, 60, 4)
    X[3, :6] = np.nan
    X[4, 10:13] = np.nan
    W = bootstrap_weights(60, 300, 5)
    got = paired_bootstrap_pairs(X, W, level=0.9, block=block)
    se, lo, hi, pp = _loop_bootstrap(X, W, 0.9)
    np.testing.assert_allclose(got.se, se, rtol=1e-12)
    np.testing.assert_allclose(got.low, lo, rtol=1e-12)
    np.testing.assert_allclose(got.high, hi, rtol=1e-12)
    np.testing.assert_allclose(got.p_percentile, pp)


def test_cluster_weights_give_the_cluster_bootstrap() -> None:
    X = _binary(3, 40, 6)
    clusters = np.repeat(np.arange(10), 4)
    W = cluster_bootstrap_weights(clusters, 200, 7)
    got = paired_bootstrap_pairs(X, W)
    se, lo, hi, _ = _loop_bootstrap(X, W, 0.95)
    np.testing.assert_allclose(got.se, se, rtol=1e-12)
    np.testing.assert_allclose(got.low, lo, rtol=1e-12)


def test_bootstrap_se_is_the_paired_standard_error() -> None:
    # B = 4000: the SD of B replicates has relative Monte Carlo error ~ 1 / sqrt(2 B) = 1.1 %; the bootstrap
    # variance is the plug-in one (factor (n - 1) / n, 0.1 % here); 4 % is over 3 Monte Carlo SEs
    X = _binary(4, 800, 8)
    got = paired_bootstrap_pairs(X, bootstrap_weights(800, 4000, 9))
    n, _, var = paired_moments(X)
    ia, ib = np.triu_indices(4, 1)
    np.testing.assert_allclose(got.se, np.sqrt(var[ia, ib] / n[ia, ib]), rtol=0.04)


def test_wald_power_mdd_and_items_needed() -> None:
    z = sps.norm.ppf(0.975)
    assert wald_pvalue(0.03, 0.015) == pytest.approx(2 * sps.norm.sf(2.0))
    assert wald_pvalue(0.0, 0.0) == 1.0 and wald_pvalue(0.2, 0.0) == 0.0
    assert paired_power(0.0, 0.02) == pytest.approx(0.05)
    mdd = minimum_detectable_difference(0.02, 0.05, 0.8)
    assert mdd == pytest.approx((z + sps.norm.ppf(0.8)) * 0.02)
    assert paired_power(mdd, 0.02) == pytest.approx(0.8, abs=1e-4)  # the far tail is below 1e-4
    # 100 items give se 0.02; delta 0.05 needs ceil(100 * (2.8016 * 0.02 / 0.05)^2) = ceil(125.58) = 126
    need = float(items_for_power(0.05, 0.02, 100, 0.05, 0.8))
    assert need == 126
    assert (
        paired_power(0.05, 0.02 * np.sqrt(100 / need)) >= 0.8 > paired_power(0.05, 0.02 * np.sqrt(100 / 125))
    )
    assert items_for_power(0.0, 0.02, 100) == np.inf


def test_rank_interval_order_statistics() -> None:
    # 40 replicates: model 0 above model 1 in 39 of them
    S = np.column_stack([np.r_[np.ones(39), 0.0], np.r_[np.zeros(39), 1.0]])
    ci = rank_interval(S, 0.95)
    np.testing.assert_array_equal(ci, [[1, 2], [1, 2]])
    np.testing.assert_array_equal(rank_interval(S, 0.9), [[1, 1], [2, 2]])  # 1 of 40 is outside 90 %


def test_tie_groups_follow_their_leaders() -> None:
    # scores (sorted) 0.9, 0.8, 0.7, 0.5, 0.1: the leader 0.9 is apart from 0.5 and 0.1 only; 0.5 from 0.1
    scores = np.array([0.7, 0.1, 0.9, np.nan, 0.5, 0.8])
    sep = np.zeros((6, 6), dtype=bool)
    for i, j in [(2, 4), (2, 1), (4, 1), (0, 1), (5, 1)]:
        sep[i, j] = sep[j, i] = True
    np.testing.assert_array_equal(tie_groups(scores, sep), [0, 2, 0, -1, 1, 0])
    # nothing separated: one group; everything separated: one group per model, in score order
    assert (tie_groups(scores, np.zeros((6, 6), bool))[[0, 1, 2, 4, 5]] == 0).all()
    np.testing.assert_array_equal(tie_groups(scores, ~np.eye(6, dtype=bool)), [2, 4, 0, -1, 3, 1])


def test_replicates_without_a_common_item_are_left_out() -> None:
    # two rows share only 2 of 12 items: about (10/12)^12 ~ 11 % of the replicates draw neither, their
    # difference is undefined (NaN) and the summaries use the others, as a loop that drops them does
    X = np.full((2, 12), np.nan)
    X[0, :7] = [1, 0, 1, 1, 0, 1, 0]
    X[1, 5:] = [0, 1, 1, 0, 1, 1, 0]
    W = bootstrap_weights(12, 400, 10)
    got = paired_bootstrap_pairs(X, W)
    common = ~np.isnan(X[0]) & ~np.isnan(X[1])
    d = np.where(common, X[0] - X[1], 0.0)
    den = W @ common
    reps = (W @ d)[den > 0] / den[den > 0]
    assert 0 < (den == 0).sum() < 100
    assert got.se[0] == pytest.approx(reps.std(ddof=1))
    np.testing.assert_allclose([got.low[0], got.high[0]], np.quantile(reps, [0.025, 0.975]))
    assert got.p_percentile[0] == pytest.approx(min(1.0, 2 * min((reps <= 0).mean(), (reps >= 0).mean())))


def test_streamed_weights_give_the_same_numbers_as_the_held_matrix() -> None:
    # a WeightStream (clusters, two strata) passed over in blocks (hold=0) gives the same bytes as its
    # matrix held whole, for 0/1 scores with missing cells (pairs answered on different items included)
    X = _binary(7, 150, 21, missing=0.15)
    clusters = np.arange(150) // 3
    strata = (np.arange(150) >= 90).astype(int)
    stream = WeightStream(150, 333, 8, clusters=clusters, strata=strata, block=40)
    held = stream.toarray()
    np.testing.assert_array_equal(held, stratified_cluster_bootstrap_weights(clusters, strata, 333, 8))
    np.testing.assert_array_equal(np.concatenate(list(stream.blocks())), held)  # replayed: the same
    a = paired_bootstrap_pairs(X, stream, block=100, hold=0)  # pairs one by one, items in 2 chunks
    b = paired_bootstrap_pairs(X, held, block=500)
    for name in ("se", "low", "high", "p_percentile", "means"):
        assert getattr(a, name).tobytes() == getattr(b, name).tobytes(), name
    # one stratum's columns: only its generator is replayed, the same columns as the whole draw
    cols = np.flatnonzero(strata == 1)[::2]
    np.testing.assert_array_equal(stream.take(cols).toarray(), held[:, cols])
    # a generator passed in is advanced as the one-matrix draw advances it
    g1, g2 = np.random.default_rng(4), np.random.default_rng(4)
    WeightStream(150, 50, g1, clusters=clusters, strata=strata)
    stratified_cluster_bootstrap_weights(clusters, strata, 50, g2)
    assert g1.random() == g2.random()


def test_rank_interval_pairwise_hand_computed() -> None:
    # two models, replicate difference 0.3 + e (e = 41 evenly spaced values in [-0.2, 0.2]): for the lower
    # model the only miss is declaring the other below it, so c is the 0.95 quantile ("higher": the 39th
    # of 41 sorted) of -Z = -e / se, i.e. 0.18 / se; the other is declared above iff d / se > c, d > 0.18
    e = np.linspace(-0.2, 0.2, 41)
    for d, expected in ((0.3, [[1, 1], [2, 2]]), (0.1, [[1, 2], [1, 2]])):
        S = np.column_stack([d + e, np.zeros(41)])
        np.testing.assert_array_equal(rank_interval_pairwise([d, 0.0], S, 0.95), expected)
    # a NaN estimate: NaN ends, and no competitor for the others
    S = np.column_stack([0.3 + e, np.zeros(41), np.full(41, np.nan)])
    out = rank_interval_pairwise([0.3, 0.0, np.nan], S, 0.95)
    np.testing.assert_array_equal(out[:2], [[1, 1], [2, 2]])
    assert np.isnan(out[2]).all()


def test_rank_interval_pairwise_each_direction_at_its_own_critical_value() -> None:
    # two models 0.2 apart, replicate difference (upper minus lower) 0.2 - e with a skewed e: 37 values
    # evenly spaced in [-0.1, 0.1] and a tail 0.4, 0.5, 0.6, 0.7 (41 replicates). For the lower model the
    # centred replicates are Z = -e / se; claiming the other above it is a one-sided test at
    # c+ = q_0.95(Z) ("higher": the 39th of 41 sorted) = 0.0889 / se (the 35th of the even values), and
    # t = 0.2 / se exceeds it. For the upper model Z = e / se: claiming the other below it needs
    # t = -0.2 / se < -c-, c- = q_0.95(-Z) = q_0.95(-e) / se, the same 0.0889 / se: claimed too.
    # So both ranks are known: [1, 1] and [2, 2]. With "worst" (the interval before) both directions
    # take the larger quantile, q_0.95(e) / se = 0.5 / se > t: nothing is claimed, [1, 2] twice.
    e = np.concatenate([np.linspace(-0.1, 0.1, 37), [0.4, 0.5, 0.6, 0.7]])
    S = np.column_stack([np.zeros(41), -0.2 + e])  # model 0 scores 0, model 1 scores -0.2
    assert np.quantile(-e, 0.95, method="higher") == pytest.approx(-0.1 + 34 * 0.2 / 36)
    assert np.quantile(e, 0.95, method="higher") == 0.5
    np.testing.assert_array_equal(rank_interval_pairwise([0.0, -0.2], S, 0.95), [[1, 1], [2, 2]])
    worst = rank_interval_pairwise([0.0, -0.2], S, 0.95, critical="worst")
    np.testing.assert_array_equal(worst, [[1, 2], [1, 2]])
    # the default on its own: 0.6 apart (past both quantiles) is claimed both ways, 0.05 apart by neither
    for d, expected in ((0.6, [[1, 1], [2, 2]]), (0.05, [[1, 2], [1, 2]])):
        S = np.column_stack([np.zeros(41), -d + e])
        np.testing.assert_array_equal(rank_interval_pairwise([0.0, -d], S, 0.95), expected)


def _pairwise_reference(x: np.ndarray, S: np.ndarray, level: float, worst: bool) -> np.ndarray:
    """rank_interval_pairwise as its docstring states it, one model and one step at a time: NaN-aware
    standard errors per competitor, ``np.quantile(..., method="higher")`` of the maxima over the
    competitors still in question at each step."""
    M = x.size
    out = np.zeros((M, 2))
    for j in range(M):
        k = np.flatnonzero(np.arange(M) != j)
        D = S[:, k] - S[:, [j]]
        se = np.nanstd(D, axis=0, ddof=1)
        t, Z = (x[k] - x[j]) / se, (D - (x[k] - x[j])) / se
        up, down = np.zeros(k.size, bool), np.zeros(k.size, bool)
        while True:
            rest = ~(up | down)
            c = [0.0, 0.0]
            if rest.any():
                maxima = [np.where(np.isnan(V), -np.inf, V)[:, rest].max(1) for V in (Z, -Z)]
                c = [max(float(np.quantile(v, level, method="higher")), 0.0) for v in maxima]
            if worst:
                c = [max(c), max(c)]
            nu, nd = up | (t > c[0]), down | (t < -c[1])
            if (nu == up).all() and (nd == down).all():
                break
            up, down = nu, nd
        out[j] = 1 + up.sum(), M - down.sum()
    return out


@pytest.mark.parametrize("seed", range(6))
def test_rank_interval_pairwise_matches_a_step_by_step_reference(seed: int) -> None:
    # random leaderboards, some with NaN replicates, several levels and replicate counts: the vectorised
    # steps (one order statistic per step, max(-Z) as -min(Z), no copies on the first step) claim the same
    rng = np.random.default_rng(seed)
    for _ in range(20):
        B, M = int(rng.integers(20, 300)), int(rng.integers(2, 9))
        level = float(rng.choice([0.5, 0.8, 0.9, 0.95, 0.99]))
        S = rng.normal(size=(B, M)) * 0.1 + np.linspace(0, 0.3, M) * rng.random()
        if seed % 2:
            S[rng.random(S.shape) < 0.05] = np.nan
        x = np.nanmean(S, axis=0) + rng.normal(size=M) * 0.02
        for critical in ("each", "worst"):
            got = rank_interval_pairwise(x, S, level, critical)
            np.testing.assert_array_equal(got, _pairwise_reference(x, S, level, critical == "worst"))
