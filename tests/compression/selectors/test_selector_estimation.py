"""The estimation selector (IRT-information strata, half of them difficulty strata where the 2PL misses a
guessing floor, + correctness anchors) and what it is for: on a simulated 2PL panel with known truth its
suite gives the full-score estimators a smaller held-out error than a random item set of the same size (the
mean over three random sets)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from benchsift.compression.full_score import fit_full_score
from benchsift.compression.selectors import estimation
from benchsift.compression.selectors.estimation import (
    FLOOR_MISFIT,
    EstimationSelector,
    correctness_anchors,
    difficulty_strata,
    estimation_items,
    floor_misfit,
    information_strata,
)
from benchsift.irt import TwoPL
from benchsift.panel import Panel


def test_information_strata_by_hand() -> None:
    # three abilities (the quantiles of theta at 1/6, 1/2, 5/6 of three values are the values themselves)
    theta = np.array([-2.0, 0.0, 2.0])
    a = np.array([1.0, 2.0, 2.0, 2.0, 0.5])
    d = -a * np.array([0.0, -2.0, 0.0, 2.0, 0.0])  # difficulties b = -d / a: 0, -2, 0, 2, 0
    # at 0 the steepest item at b = 0 is item 2 (a = 2; item 0 has a = 1); at -2 item 1, at +2 item 3
    assert information_strata(a, d, theta, 3).tolist() == [1, 2, 3]
    # one stratum: the median ability 0 -> item 2
    assert information_strata(a, d, theta, 1).tolist() == [2]
    # never the same item twice: four strata over three abilities still give four distinct items
    assert len(set(information_strata(a, d, theta, 4).tolist())) == 4


def test_difficulty_strata_take_one_item_from_each_equal_share_of_the_ranked_items() -> None:
    # mean scores per item: 0.1 0.5 0.9 0.3 0.7 0.2 (and item 6 never scored); ranked: 0 5 | 3 1 | 4 2
    p = np.array([0.1, 0.5, 0.9, 0.3, 0.7, 0.2])
    scores = np.column_stack([np.tile(p, (10, 1)), np.full(10, np.nan)])
    strata = [{0, 5}, {3, 1}, {4, 2}]
    seen = set()
    for seed in range(20):
        got = difficulty_strata(scores, 3, np.random.default_rng(seed))
        assert got.tolist() == sorted(got.tolist()) and len(got) == 3
        assert all(len(set(got.tolist()) & s) == 1 for s in strata), got  # one item from each stratum
        seen.update(got.tolist())
    assert seen == set(range(6))  # every scored item can be drawn; the unscored item 6 never is
    # as many strata as scored items: every scored item once
    assert difficulty_strata(scores, 9, np.random.default_rng(0)).tolist() == [0, 1, 2, 3, 4, 5]
    # the same seed, the same items
    a = difficulty_strata(scores, 2, np.random.default_rng(7))
    np.testing.assert_array_equal(a, difficulty_strata(scores, 2, np.random.default_rng(7)))


def test_floor_misfit_is_zero_for_a_2pl_panel_and_reads_a_guessing_floor() -> None:
    """By hand on a 3 x 3 panel, then on simulated panels: a 2PL panel's weak models answer its hard items as
    the fitted curves say (misfit ~0), a four-option panel's (``P = 1/4 + 3/4 sigmoid``) well above them."""
    # model means 1, 2/3, 1/3 and item means 1/3, 2/3, 1: the 30 % quantile of each is 1/3 + 0.6 / 3, so the
    # block is model 2 on item 0 alone, observed 0; with a = 1, d = 0 and theta_2 = log 3, expected 3/4
    x = np.array([[1.0, 1.0, 1.0], [0.0, 1.0, 1.0], [0.0, 0.0, 1.0]])
    a, d, theta = np.ones(3), np.zeros(3), np.array([0.0, 0.0, np.log(3.0)])
    assert floor_misfit(x, a, d, theta) == pytest.approx(0.0 - 0.75)
    for guess, low, high in ((0.0, -0.01, 0.01), (0.25, 0.02, 0.2)):
        x = _panel(120, 900, seed=2, guess=guess).scores
        irt = TwoPL(prior_a_sd=1.0).fit(x)
        got = floor_misfit(x, irt.discrimination_, irt.intercept_, irt.theta_)
        assert low < got < high, (guess, got)
    assert FLOOR_MISFIT < 0.03


def test_half_the_strata_are_by_difficulty_where_the_2pl_misses_a_guessing_floor() -> None:
    x = _panel(120, 900, seed=2).scores
    kept, reasons = estimation_items(x, 90, random_state=0)
    assert sorted(reasons.tolist()) == ["anchor"] * 45 + ["information"] * 45
    x = _panel(120, 900, seed=2, guess=0.25).scores
    kept, reasons = estimation_items(x, 90, random_state=0)
    assert sorted(reasons.tolist()) == ["anchor"] * 45 + ["difficulty"] * 23 + ["information"] * 22
    assert np.unique(kept).size == 90
    # the difficulty strata are those of the seeded generator's first draws (nothing drawn before them)
    first = difficulty_strata(x, 23, np.random.default_rng(0))
    np.testing.assert_array_equal(kept[reasons == "difficulty"], first)


def test_estimation_items_keep_the_difficulty_distribution_of_the_pool(monkeypatch) -> None:
    """The strata all by difficulty: their mean item score is the pool's to within a stratum's spread, where
    the information strata take the hard, steep items (the bias of issue 31)."""
    monkeypatch.setattr(estimation, "STRATA", "difficulty")
    panel = _panel(120, 900, seed=2, guess=0.25)
    x = panel.scores
    pool_p = np.nanmean(x, axis=0)
    kept, reasons = estimation_items(x, 90, random_state=0)
    strata = kept[reasons == "difficulty"]
    assert strata.size == 45
    # one item per 20 ranked items (ties in any order): the s-th smallest kept mean lies in the s-th stratum
    ranked = np.sort(pool_p)
    got = np.sort(pool_p[strata])
    assert (got >= ranked[0::20]).all() and (got <= ranked[19::20]).all()
    assert abs(pool_p[strata].mean() - pool_p.mean()) < 0.02


def test_correctness_anchors_pick_one_item_per_cluster() -> None:
    rng = np.random.default_rng(0)
    pattern = rng.random((30, 3)) < 0.5  # three item "types" over 30 models
    cols = np.repeat(np.arange(3), [5, 7, 9])
    x = pattern[:, cols].astype(float)
    x[:, 0] = np.where(rng.random(30) < 0.1, 1 - x[:, 0], x[:, 0])  # a noisy copy of type 0
    picked = correctness_anchors(x, 3, seed=1)
    assert sorted(cols[picked].tolist()) == [0, 1, 2]


def _panel(n_models: int, n_items: int, seed: int, guess: float = 0.0) -> Panel:
    """A simulated panel, 2PL (``guess=0``) or with a lower asymptote ``guess`` (multiple choice)."""
    rng = np.random.default_rng(seed)
    theta = rng.standard_normal(n_models)
    a = rng.lognormal(0.0, 0.5, n_items)
    b = rng.normal(0.5, 1.2, n_items)
    p = guess + (1 - guess) / (1 + np.exp(-a * (theta[:, None] - b)))
    x = (rng.random((n_models, n_items)) < p).astype(float)
    items = pd.DataFrame({"benchmark": "B", "item": [str(i) for i in range(n_items)]})
    return Panel(x, [f"m{j}" for j in range(n_models)], items)


def test_estimation_suite_beats_random_items_on_held_out_models() -> None:
    panel = _panel(200, 600, seed=3)
    build, held = panel.subset(models=np.arange(120)), panel.subset(models=np.arange(120, 200))
    truth = held.scores.mean(axis=1)
    sel = EstimationSelector(random_state=0)
    kept = sel.select(build.scores, 18)
    assert kept.size == 18 and set(sel.reasons_) == {"information", "anchor"}  # a 2PL panel: no floor
    assert (sel.reasons_ == "information").sum() == 9
    np.testing.assert_array_equal(kept, EstimationSelector(random_state=0).select(build.scores, 18))
    errs = []
    rng = np.random.default_rng(5)
    for items in (kept, *(np.sort(rng.choice(600, 18, replace=False)) for _ in range(3))):
        fs = fit_full_score(build, items, random_state=0, n_folds=5)
        est = fs.predict(held.scores[:, items]).score[fs.method][:, -1]
        errs.append(float(np.mean(np.abs(est - truth))))
    assert errs[0] < np.mean(errs[1:]), errs


def test_a_stratified_sample_is_one_item_of_each_difficulty_stratum_with_no_item_model() -> None:
    """``info_share=1, strata="difficulty"`` (the design ``compress`` weighs on small panels): every item is a
    difficulty stratum's, the same draw as :func:`difficulty_strata` with the generator the seed makes (no
    2PL is fitted, so nothing else consumes it), and the module's ``STRATA`` is not consulted."""
    rng = np.random.default_rng(3)
    X = (rng.random((12, 90)) < rng.uniform(0.05, 0.95, 90)[None, :]).astype(float)
    kept, reasons = estimation_items(X, 9, random_state=11, info_share=1.0, strata="difficulty")
    assert set(reasons) == {"difficulty"}
    np.testing.assert_array_equal(kept, difficulty_strata(X, 9, np.random.default_rng(11)))
    # one item per 10 ranked items (ties in any order): the s-th smallest kept mean lies in the s-th stratum
    ranked, got = np.sort(X.mean(axis=0)), np.sort(X.mean(axis=0)[kept])
    assert (got >= ranked[0::10]).all() and (got <= ranked[9::10]).all()
