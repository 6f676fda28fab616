"""A held-out model is scored on the benchmarks it ran (benchsift.adaptive.design.overall_on_observed): its
truth is the mean of its benchmark means over those, so every method's overall is compared on them too; and
the random subset a user would draw instead takes an equal share of each benchmark
(benchsift.stats.means.random_subset_means). By hand, and on a simulated panel of an easy and a hard
benchmark where some models never ran the hard one."""

from __future__ import annotations

import numpy as np
import pandas as pd
from scipy.special import expit

from benchsift.adaptive import simulate_adaptive
from benchsift.adaptive.design import observed_groups, overall_on_observed
from benchsift.panel import Panel
from benchsift.stats.means import random_subset_means


def test_overall_on_observed_by_hand() -> None:
    X = np.array(
        [
            [1.0, 0.0, 1.0, np.nan],  # both benchmarks
            [1.0, np.nan, np.nan, np.nan],  # the first only
            [np.nan, np.nan, np.nan, np.nan],  # none
        ]
    )
    items = pd.DataFrame({"benchmark": ["a", "a", "b", "b"], "item": ["1", "2", "3", "4"]})
    groups = Panel(X, ["m0", "m1", "m2"], items).benchmark_positions()
    assert [g.tolist() for g in groups] == [[0, 1], [2, 3]]
    # interleaved benchmarks: positions in the order of each benchmark's first item
    mixed = pd.DataFrame({"benchmark": ["b", "a", "b"], "item": ["1", "2", "3"]})
    assert [g.tolist() for g in Panel(np.zeros((1, 3)), ["m"], mixed).benchmark_positions()] == [[0, 2], [1]]
    observed = observed_groups(X, groups)
    assert observed.tolist() == [[True, True], [True, False], [False, False]]
    per = np.array([[0.4, 0.8], [0.3, 0.9], [0.5, 0.5]])
    overall = np.array([0.61, 0.6, 0.5])  # a method's own overall: kept where every benchmark was run
    got = overall_on_observed(overall, per, observed)
    np.testing.assert_allclose(got[:2], [0.61, 0.3])
    assert np.isnan(got[2])
    # an estimate missing on a benchmark the model ran is missing, not left out of the mean
    per[1, 0] = np.nan
    assert np.isnan(overall_on_observed(overall, per, observed)[1])


def _two_benchmarks(n_models: int, n_items: int, seed: int) -> Panel:
    """An easy benchmark (mean about 0.8) and a hard one (about 0.2), 2PL, ``n_items`` each."""
    rng = np.random.default_rng(seed)
    theta = rng.standard_normal(n_models)
    a = rng.uniform(0.8, 2.0, 2 * n_items)
    b = np.concatenate([rng.normal(-1.6, 0.6, n_items), rng.normal(1.6, 0.6, n_items)])
    x = (rng.random((n_models, 2 * n_items)) < expit(a * (theta[:, None] - b))).astype(float)
    items = pd.DataFrame({"benchmark": np.repeat(["easy", "hard"], n_items), "item": np.arange(2 * n_items)})
    return Panel(x, [f"m{j}" for j in range(n_models)], items)


def test_random_subset_takes_an_equal_share_of_each_benchmark() -> None:
    # a benchmark of 10 items all right and one of 90 all wrong: the overall (mean of benchmark means) is 0.5,
    # and a subset of 10 items takes 5 of each, so every model's estimate is 0.5 exactly (a draw from the
    # pool as a whole would give 0.1 on average); a model that never ran the second benchmark gets its first
    X = np.column_stack([np.ones((3, 10)), np.zeros((3, 90))])
    X[2, 10:] = np.nan
    groups = [np.arange(10), np.arange(10, 100)]
    est = random_subset_means(X, groups, 10, np.random.default_rng(0))
    np.testing.assert_array_equal(est, [0.5, 0.5, 1.0])
    # one benchmark: the draw and the mean of before (one subset of the pool for every model)
    Y = np.random.default_rng(1).random((4, 50))
    got = random_subset_means(Y, [np.arange(50)], 7, np.random.default_rng(2))
    want = Y[:, np.sort(np.random.default_rng(2).choice(50, size=7, replace=False))].mean(axis=1)
    np.testing.assert_allclose(got, want, rtol=0, atol=1e-15)


def test_simulate_scores_a_model_on_the_benchmarks_it_ran() -> None:
    # 40 of 100 models never ran the hard benchmark: their truth is their easy benchmark's mean (about 0.8),
    # while an overall over both benchmarks, the hard one estimated from the ability, is about 0.5. Compared
    # on different benchmarks every method erred by about 0.3 on those models (an MAE of 0.1 or more);
    # compared on the benchmarks each model ran, the errors are those of a complete panel.
    panel = _two_benchmarks(100, 300, seed=5)
    groups = panel.benchmark_positions()
    full = simulate_adaptive(panel, holdout=0.4, budget=0.05, random_state=0, n_splits=1, interval=False)
    X = panel.scores.copy()
    X[:40, groups[1]] = np.nan
    part = simulate_adaptive(
        Panel(X, panel.model_ids, panel.items),
        holdout=0.4,
        budget=0.05,
        random_state=0,
        n_splits=1,
        interval=False,
    )
    before = {r["method"]: r["mae_mean"] for r in full.rows()}
    after = {r["method"]: r["mae_mean"] for r in part.rows()}
    for method in ("adaptive", "static", "random"):
        assert after[method] < 0.06, (method, after, before)
        assert after[method] < before[method] + 0.03, (method, after, before)


def test_the_interval_is_calibrated_on_models_that_ran_every_benchmark() -> None:
    # calibration_scores with a stand-in replay: the first model ran both benchmarks, the second only one;
    # the interval is about the overall over every benchmark, so only the first gives a score, |est - truth|
    # / se by hand
    from types import SimpleNamespace

    from benchsift.adaptive.interval import calibration_scores

    X = np.array([[1.0, 0.0, 1.0, 1.0], [1.0, 1.0, np.nan, np.nan]])
    items = pd.DataFrame({"benchmark": ["a", "a", "b", "b"], "item": ["1", "2", "3", "4"]})
    held = Panel(X, ["m0", "m1"], items)  # truths: mean(0.5, 1.0) = 0.75 and 1.0

    def replay(bank: object, panel: Panel, n: int) -> SimpleNamespace:
        est = np.array([[0.4, 0.9, 0.65], [0.8, 0.3, 0.55]])
        return SimpleNamespace(estimates=est, estimate_se=np.array([0.05, 0.05]), at_edge=[False, False])

    inner, edge = calibration_scores([(None, held, False, [0])], [0.5], 4, replay)
    np.testing.assert_allclose(inner[0], [abs(0.65 - 0.75) / 0.05])
    assert edge[0].size == 0
