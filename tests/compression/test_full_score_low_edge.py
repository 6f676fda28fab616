"""New models weaker than the build models (the lower edge of benchsift.compression.full_score).

By hand: the weak fold, the mirrored stratified blend and the warning. On a simulated panel with known
truth where the weakest 40 % of the models are estimated from a suite built on the strongest 60 % (they
answer the suite like the weakest build models, and their estimates through the ability are too high):
before, the 95 % intervals covered 0.61-0.75 of them, unflagged; now they are flagged ``below_edge``, named in
one warning, their lower ends reach the weak fold's errors and the anchor and stratified means' lower ends,
the intervals cover 0.99 / 1.00 (seeds 0 / 2), and the blend with the stratified mean lowers the error.
"""

from __future__ import annotations

import json

import numpy as np
import pytest
from test_extrapolation import _frontier_panel

from benchsift.compression.extrapolation import WEAK_SHARE, low_edge_warning, stratified_blend_below
from benchsift.compression.full_score import FullScoreModel, _make_folds, fit_full_score


def test_weak_fold_holds_the_weakest_fifth_and_never_an_unscored_model() -> None:
    overall = np.array([0.5, np.nan, 0.1, 0.9, 0.3, 0.2, 0.7, 0.4, 0.8, 0.6])
    folds = _make_folds(overall, 5, 0)
    n_weak = int(round(WEAK_SHARE * overall.size))  # 2 of 10
    assert np.flatnonzero(folds.weak).tolist() == [2, 5]  # 0.1 and 0.2, by hand
    assert folds.weak.sum() == n_weak and not folds.weak[1]
    # the shift folds as before: the strongest 2 and 4
    assert np.flatnonzero(folds.shifts[0]).tolist() == [3, 8]


def test_stratified_blend_below_by_hand() -> None:
    score = np.array([[0.40, 0.40], [0.40, 0.40], [0.40, 0.40]])
    strat = np.array([[0.10, 0.30], [0.10, 0.10], [0.10, np.nan]])
    upper = np.array([[0.20, 0.45], [0.20, 0.20], [0.20, np.nan]])
    below = np.array([True, False, True])
    ref = np.array([[0.30, 0.35], [0.60, 0.70], [np.nan, 0.50]])  # lowest per column: 0.30, 0.35
    out, moved = stratified_blend_below(score, strat, upper, below, ref)
    # row 0: col 0 upper 0.20 < 0.30 -> (0.40 + 0.10) / 2; col 1 upper 0.45 >= 0.35 -> kept
    # row 1: not at the lower edge; row 2: col 1 has no stratified mean
    assert moved.tolist() == [[True, False], [False, False], [True, False]]
    np.testing.assert_allclose(out, [[0.25, 0.40], [0.40, 0.40], [0.25, 0.40]])


def test_low_edge_warning_names_the_models_and_the_blend() -> None:
    assert low_edge_warning(["a", "b"], np.array([False, False]), -1.0, 50) is None
    said = low_edge_warning(["a", "b", "c"], np.array([True, False, True]), -1.234, 50, n_blended=1)
    assert said is not None
    assert said.startswith("2 model(s) ('a', 'c') are as weak on the suite as the weakest 20% of the 50 ")
    assert "(ability <= -1.23)" in said and "too high" in said
    assert said.endswith(
        "; 1 of them scores below every reference model on that stratified mean: their "
        "estimates are the mean of the two (outside the build range)"
    )


@pytest.mark.parametrize("seed", [0, 2])
def test_weaker_models_are_flagged_and_covered(seed: int) -> None:
    panel = _frontier_panel(seed)
    full = panel.scores.mean(axis=1)
    order = np.argsort(-full, kind="stable")
    build, held = panel.subset(models=np.sort(order[:120])), panel.subset(models=np.sort(order[120:]))
    suite = np.arange(0, panel.n_items, 10)
    fs = fit_full_score(build, suite, random_state=0)
    X, ref = held.scores[:, suite], build.scores[:, suite]
    truth = held.scores.mean(axis=1)
    # the weak fold: the 24 weakest build models; the lower edge starts at their highest suite ability
    b_full = build.scores.mean(axis=1)
    weak = np.argsort(b_full, kind="stable")[:24]
    theta_b = fs._predict_all(ref)[2]
    assert fs.theta_weak == pytest.approx(theta_b[weak].max())
    assert fs.halfwidth_weak is not None and np.isfinite(fs.halfwidth_weak[fs.method]).all()
    est = fs.predict(X, held.model_ids, reference=ref)
    # a file written before the lower edge: the same fit, no lower edge (the intervals of before)
    doc = json.loads(json.dumps(fs.to_dict()))
    del doc["halfwidth_weak"], doc["theta_weak"]
    old = FullScoreModel.from_dict(doc).predict(X, held.model_ids, reference=ref)
    assert old.below_edge is not None and not old.below_edge.any()
    m = fs.method

    def covered(e) -> float:
        return float(np.mean((e.low[m][:, -1] <= truth) & (truth <= e.high[m][:, -1])))

    assert covered(old) <= 0.75  # 0.6125 (seed 0), 0.75 (seed 2): too high and too narrow, unflagged
    assert covered(est) >= 0.95
    assert est.below_edge is not None and est.below_edge.mean() >= 0.9
    assert np.array_equal(est.below_edge, np.isfinite(est.theta) & (est.theta <= fs.theta_weak))
    (said,) = [w for w in est.warnings if "are as weak on the suite as the weakest" in w]
    assert said.startswith(f"{int(est.below_edge.sum())} model(s) (")
    # the lower ends: at most the weak fold's width below the estimate before the blend, the anchor mean's
    # lower end and the stratified mean's
    assert (est.low[m][est.below_edge] <= old.low[m][est.below_edge] + 1e-12).all()
    assert (est.low[m] <= est.low["anchor"] + 1e-12)[est.below_edge].all()
    # the upper ends did not move, except where the blend lowered an estimate (never raised)
    assert (est.high[m] <= old.high[m] + 1e-12).all()
    blended = np.array([e.endswith("+stratified") for e in est.estimator])
    assert blended.any() and (est.score[m][blended, -1] < old.score[m][blended, -1]).all()
    np.testing.assert_array_equal(est.score[m][~blended, -1], old.score[m][~blended, -1])
    # the estimates are too high; the blend lowers the error (0.120 -> 0.096 and 0.110 -> 0.086 here)
    err_old = np.mean(np.abs(old.score[m][:, -1] - truth))
    err_new = np.mean(np.abs(est.score[m][:, -1] - truth))
    assert np.mean(old.score[m][:, -1] - truth) > 0.05 and err_new < err_old - 0.01
    assert est.to_dict()["models"][int(np.argmax(est.below_edge))]["below_edge"] is True


def test_a_random_split_leaves_models_inside_alone() -> None:
    """On a random 60 / 40 split only the models as weak as the weakest fifth of the build models are at the
    lower edge; the others' estimates and intervals are those of a fit without the lower edge."""
    panel = _frontier_panel(1)
    perm = np.random.default_rng(5).permutation(panel.n_models)
    build, held = panel.subset(models=np.sort(perm[:120])), panel.subset(models=np.sort(perm[120:]))
    suite = np.arange(0, panel.n_items, 10)
    fs = fit_full_score(build, suite, random_state=0)
    X, ref = held.scores[:, suite], build.scores[:, suite]
    est = fs.predict(X, held.model_ids, reference=ref)
    doc = json.loads(json.dumps(fs.to_dict()))
    del doc["halfwidth_weak"], doc["theta_weak"]
    old = FullScoreModel.from_dict(doc).predict(X, held.model_ids, reference=ref)
    m = fs.method
    inside = ~est.below_edge
    assert 0.05 < est.below_edge.mean() < 0.4
    for arr_new, arr_old in ((est.score, old.score), (est.low, old.low), (est.high, old.high)):
        np.testing.assert_array_equal(arr_new[m][inside], arr_old[m][inside])
