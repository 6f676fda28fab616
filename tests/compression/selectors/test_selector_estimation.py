"""The estimation selector (IRT-information strata + correctness anchors) and what it is for: on a simulated
2PL panel with known truth its suite gives the full-score estimators a smaller held-out error than a random
item set of the same size (the mean over three random sets)."""

from __future__ import annotations

import numpy as np
import pandas as pd

from benchsift.compression.full_score import fit_full_score
from benchsift.compression.selectors.estimation import (
    EstimationSelector,
    correctness_anchors,
    information_strata,
)
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


def test_correctness_anchors_pick_one_item_per_cluster() -> None:
    rng = np.random.default_rng(0)
    pattern = rng.random((30, 3)) < 0.5  # three item "types" over 30 models
    cols = np.repeat(np.arange(3), [5, 7, 9])
    x = pattern[:, cols].astype(float)
    x[:, 0] = np.where(rng.random(30) < 0.1, 1 - x[:, 0], x[:, 0])  # a noisy copy of type 0
    picked = correctness_anchors(x, 3, seed=1)
    assert sorted(cols[picked].tolist()) == [0, 1, 2]


def _panel(n_models: int, n_items: int, seed: int) -> Panel:
    rng = np.random.default_rng(seed)
    theta = rng.standard_normal(n_models)
    a = rng.lognormal(0.0, 0.5, n_items)
    b = rng.normal(0.5, 1.2, n_items)
    x = (rng.random((n_models, n_items)) < 1 / (1 + np.exp(-a * (theta[:, None] - b)))).astype(float)
    items = pd.DataFrame({"benchmark": "B", "item": [str(i) for i in range(n_items)]})
    return Panel(x, [f"m{j}" for j in range(n_models)], items)


def test_estimation_suite_beats_random_items_on_held_out_models() -> None:
    panel = _panel(200, 600, seed=3)
    build, held = panel.subset(models=np.arange(120)), panel.subset(models=np.arange(120, 200))
    truth = held.scores.mean(axis=1)
    sel = EstimationSelector(random_state=0)
    kept = sel.select(build.scores, 18)
    assert kept.size == 18 and set(sel.reasons_) == {"information", "anchor"}
    assert (sel.reasons_ == "information").sum() == 9
    np.testing.assert_array_equal(kept, EstimationSelector(random_state=0).select(build.scores, 18))
    errs = []
    rng = np.random.default_rng(5)
    for items in (kept, *(np.sort(rng.choice(600, 18, replace=False)) for _ in range(3))):
        fs = fit_full_score(build, items, random_state=0, n_folds=5)
        est = fs.predict(held.scores[:, items]).score[fs.method][:, -1]
        errs.append(float(np.mean(np.abs(est - truth))))
    assert errs[0] < np.mean(errs[1:]), errs
