"""The item-level paired bootstrap (PRISM-VLM App. E): equality with a per-replicate loop, p-values on
hand cases, and calibration on simulated verdicts with planted gaps."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from benchsift.errors import DegenerateError
from benchsift.io.verdicts import VerdictArrays
from benchsift.panel import item_clusters
from benchsift.prism.aggregate import pscore
from benchsift.prism.bootstrap import (
    _stacked_terms,
    accuracy_separation,
    benchmark_separation,
    paired_bootstrap,
    pairwise_pvalues,
    replicate_weights,
    separation,
)
from benchsift.prism.scores import axis_means
from benchsift.simulate.verdicts import simulate_verdict_arrays
from benchsift.stats import bh_adjust
from benchsift.stats.bootstrap import bootstrap_indices
from benchsift.stats.multitest import bonferroni_adjust


def _loop_pscore(arrays: VerdictArrays, idx: np.ndarray) -> np.ndarray:
    """Straightforward reference: for each replicate, index the items and recompute every mean."""
    assert arrays.sc_turn0_correct is not None and arrays.sc_flip_turn is not None
    out = np.empty((idx.shape[0], arrays.n_models))
    for b in range(idx.shape[0]):
        means = np.empty((arrays.n_models, arrays.n_axes))
        for m in range(arrays.n_models):
            for a, axis in enumerate(arrays.axes):
                if axis == "sc":  # sc_B: retention over the replicate's turn-0-correct items
                    t0 = arrays.sc_turn0_correct[m, idx[b]]
                    flip = arrays.sc_flip_turn[m, idx[b]]
                    keep = t0 == 1
                    means[m, a] = np.mean(flip[keep] == 0)
                else:
                    s = arrays.scores[m, idx[b], a]
                    means[m, a] = np.mean(s[~np.isnan(s)])
        out[b] = len(arrays.axes) / (1 / means).sum(axis=1)
    return out


def test_vectorized_equals_loop_on_same_resamples() -> None:
    arrays, _, _ = simulate_verdict_arrays(4, 120, unanswered_rate=0.05, random_state=3)
    idx = bootstrap_indices(arrays.n_items, 30, 11)
    W = np.stack([np.bincount(r, minlength=arrays.n_items) for r in idx]).astype(float)
    res = paired_bootstrap(arrays, weights=W)
    np.testing.assert_allclose(res.samples, _loop_pscore(arrays, idx), rtol=1e-12)
    np.testing.assert_allclose(res.pscore, pscore(axis_means(arrays)))


def test_pvalue_hand_cases() -> None:
    # Delta = x0 - x1 = [1, -1, 2, 3]: Pr(D <= 0) = 1/4, Pr(D >= 0) = 3/4 -> p = 2 * 1/4
    s = np.array([[2.0, 1.0], [0.0, 1.0], [3.0, 1.0], [4.0, 1.0]])
    p = pairwise_pvalues(s)
    assert p[0, 1] == pytest.approx(0.5) and p[1, 0] == pytest.approx(0.5) and np.isnan(p[0, 0])
    # identical columns: Delta = 0 counts on both sides -> p = min(1, 2) = 1
    assert pairwise_pvalues(np.ones((5, 2)))[0, 1] == 1.0
    # always positive -> p = 0
    assert pairwise_pvalues(np.array([[1.0, 0.0]] * 5))[0, 1] == 0.0


def test_separation_fractions_match_adjustments() -> None:
    rng = np.random.default_rng(0)
    P = np.full((6, 6), np.nan)
    j, k = np.triu_indices(6, 1)
    p = rng.uniform(0, 0.08, size=j.size)
    P[j, k] = P[k, j] = p
    sep = separation(P, 0.05)
    assert sep.n_pairs == 15
    assert sep.raw == pytest.approx(np.mean(p <= 0.05))
    assert sep.bh == pytest.approx(np.mean(bh_adjust(p) <= 0.05))
    assert sep.bonferroni == pytest.approx(np.mean(bonferroni_adjust(p) <= 0.05))
    assert sep.bonferroni <= sep.bh <= sep.raw


def test_seed_reproducible_and_ci_rank_ci() -> None:
    arrays, _, _ = simulate_verdict_arrays(5, 200, random_state=1)
    a = paired_bootstrap(arrays, 100, 5)
    b = paired_bootstrap(arrays, 100, 5)
    c = paired_bootstrap(arrays, 100, 6)
    np.testing.assert_array_equal(a.samples, b.samples)
    assert not np.array_equal(a.samples, c.samples)
    assert np.all(a.ci[:, 0] <= a.pscore + 1e-9) and np.all(a.pscore <= a.ci[:, 1] + 1e-9)
    assert np.all((a.rank_ci >= 1) & (a.rank_ci <= 5))
    frame = a.to_frame()
    assert list(frame.columns[-6:]) == ["pscore", "ci_lo", "ci_hi", "rank", "rank_lo", "rank_hi"]
    assert frame["pscore"].is_monotonic_decreasing
    pairs = a.pair_table()
    assert len(pairs) == 10 and set(pairs["separated"]) <= {True, False}


def test_large_planted_gaps_separate() -> None:
    levels = np.repeat(np.array([[0.3], [0.5], [0.7]]), 7, axis=1)
    arrays, _, _ = simulate_verdict_arrays(3, 400, levels=levels, random_state=4)
    res = paired_bootstrap(arrays, 300, 0)
    assert res.separation.raw == 1.0 and res.separation.bonferroni == 1.0
    np.testing.assert_array_equal(res.rank_ci, [[3, 3], [2, 2], [1, 1]])


def test_identical_models_separate_at_nominal_rate() -> None:
    """Two models with identical planted levels: over R independent verdict draws the two-sided test at
    alpha = 0.05 (App. E) should reject in about 5 % of them.

    Off-line calibration of this very setup (150 items, 7 axes, sc_B): 6.0 % +- 0.5 % over 2000 draws
    at B = 200, 3.9 % +- 0.7 % over 1000 draws at B = 2000, and 4.4 % +- 0.7 % over 1000 draws with
    1000 items at B = 500, so the rate is nominal up to Monte Carlo error. Here R = 400, B = 500: the
    count is Binomial(400, 0.05) (mean 20, sd 4.4) under a calibrated test; accept mean +- 3 sd, i.e. a
    rate in [1.75 %, 8.25 %], which rejects both a test that never separates and one at twice alpha."""
    levels = np.full((2, 7), 0.6)
    R, rejections = 400, 0
    for r in range(R):  # independent data sets; each bootstrap is one vectorized call
        arrays, _, _ = simulate_verdict_arrays(2, 150, levels=levels, item_sd=0.8, random_state=1000 + r)
        res = paired_bootstrap(arrays, 500, r)
        rejections += int(res.separation.pvalues[0, 1] <= 0.05)
    assert 7 <= rejections <= 33, rejections / R


def test_matched_budget_and_accuracy_test() -> None:
    levels = np.repeat(np.linspace(0.45, 0.6, 5)[:, None], 7, axis=1)
    arrays, _, _ = simulate_verdict_arrays(5, 1000, levels=levels, random_state=8)
    W = replicate_weights(arrays.n_items, 200, 0, n_draw=100)
    assert np.all(W.sum(axis=1) == 100)
    full = paired_bootstrap(arrays, 200, 0)
    small = paired_bootstrap(arrays, 200, 0, n_draw=100)
    assert small.n_draw == 100 and full.n_draw == 1000
    assert small.separation.raw <= full.separation.raw
    assert np.all(small.ci[:, 1] - small.ci[:, 0] > full.ci[:, 1] - full.ci[:, 0])
    # a single-axis PScore is that axis's accuracy: both tests agree on shared resamples
    Wf = replicate_weights(arrays.n_items, 100, 3)
    q = arrays.axis_index("q")
    acc_samples, acc_sep = accuracy_separation(arrays.scores[:, :, q], weights=Wf)
    only_q = paired_bootstrap(arrays, weights=Wf, axes=["q"])
    np.testing.assert_allclose(acc_samples, only_q.samples)
    np.testing.assert_allclose(acc_sep.pvalues, only_q.separation.pvalues)


def test_degenerate_inputs() -> None:
    arrays, _, _ = simulate_verdict_arrays(1, 50, random_state=0)
    with pytest.raises(DegenerateError, match="at least 2 models"):
        paired_bootstrap(arrays, 10, 0)
    arrays, _, _ = simulate_verdict_arrays(2, 50, random_state=0)
    arrays.scores[1, :, arrays.axis_index("c")] = 0.0
    with pytest.raises(DegenerateError, match=r"'model01'.*'c'"):
        paired_bootstrap(arrays, 10, 0)


def test_benchmark_separation_per_benchmark_and_macro_on_shared_resamples() -> None:
    """Table 3 rows: each benchmark's accuracy and the macro mean, on the PScore bootstrap's resamples."""
    levels = np.repeat(np.linspace(0.4, 0.7, 4)[:, None], 7, axis=1)
    arrays, _, _ = simulate_verdict_arrays(4, 300, levels=levels, n_benchmarks=3, unanswered_rate=0.05)
    q = arrays.scores[:, :, arrays.axis_index("q")]
    W = replicate_weights(arrays.n_items, 120, 2)
    per, macro = benchmark_separation(q, arrays.benchmarks, W)
    assert list(per) == ["bench0", "bench1", "bench2"]
    accs = []
    for b in per:
        cols = arrays.benchmarks == b
        w, x = W[:, cols], q[:, cols]  # straightforward reference: weighted mean over drawn, scored items
        acc = np.stack([(w @ np.nan_to_num(x[m])) / (w @ ~np.isnan(x[m])) for m in range(4)], axis=1)
        np.testing.assert_allclose(per[b].pvalues, pairwise_pvalues(acc))
        accs.append(acc)
    np.testing.assert_allclose(macro.pvalues, pairwise_pvalues(np.mean(accs, axis=0)))
    assert 0.0 <= macro.raw <= 1.0


def test_streamed_draws_are_the_replicate_weights() -> None:
    """A seeded call draws its counts in blocks; they are the rows of ``replicate_weights`` for that seed
    (items, clusters, matched budget), so the replicates equal the call on the materialised matrix, and
    both equal the plain float64 product ``W @ NUM / W @ DEN`` to rounding."""
    arrays, _, _ = simulate_verdict_arrays(5, 300, unanswered_rate=0.05, random_state=2)
    labels = np.arange(300) // 3
    found = item_clusters(pd.DataFrame({"benchmark": np.zeros(300, dtype=int)}), labels)
    for n_draw, clusters in ((None, None), (120, None), (None, labels), (120, labels)):
        seeded = paired_bootstrap(arrays, 700, 4, n_draw=n_draw, clusters=clusters)
        W = replicate_weights(300, 700, 4, n_draw=n_draw, clusters=found if clusters is not None else None)
        given = paired_bootstrap(arrays, weights=W)
        np.testing.assert_array_equal(seeded.axis_samples, given.axis_samples)
        np.testing.assert_array_equal(seeded.separation.pvalues, given.separation.pvalues)
        assert seeded.n_draw == round(W.sum(axis=1).mean())
        num, den = _stacked_terms(arrays, list(arrays.axes), "B", False)
        plain = ((W @ num) / (W @ den)).reshape(700, arrays.n_models, arrays.n_axes)
        np.testing.assert_allclose(seeded.axis_samples, plain, rtol=1e-14, atol=0)
