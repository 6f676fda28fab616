"""New models stronger than the build models (benchsift.compression.extrapolation).

Hand-computed half-widths, and a simulated panel with known truth where the strongest 40 % of the models
answer the suite like the strongest build models (their extra strength is on items the suite does not
measure): the upper ends of their intervals are widened, they are warned of, and the intervals cover. On a
stratified random suite (the end of the file) they move to its design-based mean, by hand and on the same
panel, where a random split of the models must leave the estimates alone; on any other suite with enough
reference models they are raised by the strongest fold's underestimate (by hand, and on the same panel).
"""

from __future__ import annotations

import dataclasses
import json
import math

import numpy as np
import pandas as pd
import pytest
from scipy.stats import norm

from benchsift.compression.extrapolation import (
    SHIFT_CORRECTION_MIN_REFERENCE,
    beyond_mix,
    edge_upper_halfwidth,
    shift_correction,
    shift_upper_halfwidth,
    stratified_blend,
    stratified_estimate,
)
from benchsift.compression.full_score import EDGE_CHOSEN_FROM, FullScoreModel, fit_full_score
from benchsift.compression.selectors.estimation import estimation_items
from benchsift.panel import Panel


def test_shift_upper_halfwidth_by_hand() -> None:
    u = np.array([0.1, -0.2, 0.05, 0.3, np.nan])
    # max(u, 0) over the 4 finite: 0, .05, .1, .3; level 0.5 -> ceil(5 * 0.5) = 3rd -> 0.1
    assert shift_upper_halfwidth(u, 0.5) == pytest.approx(0.1)
    # level 0.95 -> ceil(5 * 0.95) = 5 > 4: the largest times (4 + 1) / 4
    assert shift_upper_halfwidth(u, 0.95) == pytest.approx(0.3 * 5 / 4)
    assert math.isnan(shift_upper_halfwidth(np.array([np.nan]), 0.95))


def test_edge_upper_halfwidth_by_hand() -> None:
    hw = np.full((4, 2), 0.05)
    theta = np.array([-1.0, 0.5, 1.5, np.nan])
    up, edge = edge_upper_halfwidth(
        hw, np.array([0.08, np.nan]), theta, theta_edge=0.0, theta_max=1.0, span=0.5
    )
    assert edge.tolist() == [False, True, True, False]
    # below the edge and NaN ability: unchanged; at the edge inside the range: max(0.05, 0.08);
    # beyond theta_max by 0.5 = one span: 0.08 * (1 + 1); a group with nothing measured keeps hw
    np.testing.assert_allclose(up[:, 0], [0.05, 0.08, 0.16, 0.05])
    np.testing.assert_allclose(up[:, 1], 0.05)


def _frontier_panel(seed: int, n_models: int = 200) -> Panel:
    """200 models, 200 'general' items on ability t1 and 100 'frontier' items on t2 = 0.5 t1 + noise; the
    suite (every 10th item) is mostly general items, so a model strong on the frontier items looks like
    the strongest build models on it."""
    rng = np.random.default_rng(seed)
    t1 = rng.standard_normal(n_models)
    t2 = 0.5 * t1 + math.sqrt(0.75) * rng.standard_normal(n_models)
    n_gen, n_front = 200, 100
    a = rng.uniform(0.8, 2.0, n_gen + n_front)
    b = np.concatenate([rng.normal(-0.3, 1.0, n_gen), rng.normal(1.0, 0.7, n_front)])
    th = np.column_stack([np.repeat(t1[:, None], n_gen, 1), np.repeat(t2[:, None], n_front, 1)])
    x = (rng.random(th.shape) < 1 / (1 + np.exp(-a * (th - b)))).astype(float)
    items = pd.DataFrame({"benchmark": "B", "item": [str(i) for i in range(x.shape[1])]})
    return Panel(x, [f"m{j}" for j in range(n_models)], items)


def test_stronger_release_is_warned_and_covered_after_widening() -> None:
    panel = _frontier_panel(0)
    full = panel.scores.mean(axis=1)
    order = np.argsort(full, kind="stable")
    build, held = panel.subset(models=np.sort(order[:120])), panel.subset(models=np.sort(order[120:]))
    suite = np.arange(0, panel.n_items, 10)
    fs = fit_full_score(build, suite, random_state=0)
    assert fs.halfwidth_up is not None and np.isfinite(fs.theta_edge)
    est = fs.predict(held.scores[:, suite], held.model_ids)
    truth = held.scores.mean(axis=1)
    m = fs.method
    # the same fit read back without the shift folds' widths: the intervals as they were before (and
    # without the inside models' headline, which needs the edge to tell them apart, and without the strongest
    # fold's underestimate, which raises edge models: test_edge_headline_raised_by_the_strongest_folds_...)
    doc = json.loads(json.dumps(fs.to_dict()))
    del doc["underestimate_strong"], doc["theta_bins"], doc["halfwidth_bins"]  # (and the ability bins)
    plain = FullScoreModel.from_dict(doc).predict(held.scores[:, suite], held.model_ids)
    del doc["halfwidth_up"], doc["theta_edge"], doc["inside_method"]
    old = FullScoreModel.from_dict(doc).predict(held.scores[:, suite], held.model_ids)
    np.testing.assert_array_equal(old.score[m], plain.score[m])  # the widths do not move the estimate
    np.testing.assert_array_equal(old.low[m], plain.low[m])  # nor the lower end
    covered = (est.low[m][:, -1] <= truth) & (truth <= est.high[m][:, -1])
    covered_old = (old.low[m][:, -1] <= truth) & (truth <= old.high[m][:, -1])
    # most of these models are inside the build models' ability range on the suite, yet all are stronger
    assert est.extrapolating is not None and est.extrapolating.mean() == pytest.approx(34 / 80)
    # (64 / 80 with the shift folds' widths alone, 80 / 80 with the anchor mean's upper end too: below)
    # (51 / 80 before the factor estimator joined the stack; 50 / 80 with the cross-validated choice, and
    # before the difference estimator joined the average and the stack)
    assert covered_old.mean() == pytest.approx(57 / 80)
    assert covered.mean() == pytest.approx(80 / 80)
    # every held-out model is at the edge: named in one warning; its upper end is at least h_up
    assert est.at_edge is not None and est.at_edge.all()
    assert sum(w.startswith("80 model(s) ('m") for w in est.warnings) == 1
    up = (est.high[m] - plain.score[m])[:, -1]  # (above the estimate before the underestimate raised it)
    below_one = est.high[m][:, -1] < 1.0
    assert (up[below_one] >= fs.halfwidth_up[m][-1] - 1e-12).all()
    assert est.to_dict()["models"][0]["at_edge"] is True


def test_edge_models_get_the_estimator_the_shift_folds_choose() -> None:
    panel = _frontier_panel(1, n_models=100)
    full = panel.scores.mean(axis=1)
    order = np.argsort(full, kind="stable")
    build, held = panel.subset(models=np.sort(order[:60])), panel.subset(models=np.sort(order[60:]))
    suite = np.arange(0, panel.n_items, 10)
    fs = fit_full_score(build, suite, random_state=0, edge_estimator=True)
    assert fs.cv_mae_shift is not None and fs.edge_method in EDGE_CHOSEN_FROM
    # the suite mean needs no fit: its error on the shift folds by hand (the strongest 12 and 24 of the 60
    # build models by full score, each fold's mean absolute error, then their mean)
    b_full = build.scores.mean(axis=1)
    b_suite = build.scores[:, suite].mean(axis=1)
    strongest = np.argsort(-b_full, kind="stable")
    by_hand = np.mean([np.mean(np.abs(b_suite - b_full)[strongest[:n]]) for n in (12, 24)])
    assert fs.cv_mae_shift["suite_mean"][-1] == pytest.approx(by_hand)
    # the edge method is the one of EDGE_CHOSEN_FROM with the least of those errors
    assert fs.edge_method == min(EDGE_CHOSEN_FROM, key=lambda m: fs.cv_mae_shift[m][0])
    fs.underestimate_strong = None  # (which raises the edge models' headline: tested on its own below)
    est = fs.predict(held.scores[:, suite], held.model_ids)
    assert est.at_edge is not None and est.extrapolating is not None and est.estimator is not None
    m = fs.method
    for j in range(len(est.models)):
        want = fs.edge_method if est.at_edge[j] else m
        if est.extrapolating[j] and want in ("ridge", "stack"):
            want = "pirt"
        assert est.estimator[j] == want
        raw = fs.predict(held.scores[[j]][:, suite], [est.models[j]])  # alone: the method's own row
        np.testing.assert_allclose(est.score[m][j], raw.score[want][0], rtol=0, atol=1e-9)
    # stored and read back
    again = FullScoreModel.from_dict(json.loads(json.dumps(fs.to_dict())))
    assert again.edge_method == fs.edge_method
    np.testing.assert_allclose(again.cv_mae_shift["anchor"], fs.cv_mae_shift["anchor"])
    assert est.to_dict()["models"][0]["estimator"] == est.estimator[0]
    # off by default: the same shift-fold errors, no edge estimator
    plain = fit_full_score(build, suite, random_state=0)
    assert plain.edge_method is None and plain.method == fs.method
    np.testing.assert_array_equal(plain.cv_mae_shift["anchor"], fs.cv_mae_shift["anchor"])


# seed 0: 71 of the 80 held-out models covered before the widening with the average as headline (66 before
# the difference estimator joined it; 64 with the cross-validated choice)
@pytest.mark.parametrize(("seed", "n_models", "before", "after"), [(0, 200, 71, 80), (2, 100, 38, 40)])
def test_edge_upper_end_reaches_the_anchor_means_upper_end(
    monkeypatch: pytest.MonkeyPatch, seed: int, n_models: int, before: int, after: int
) -> None:
    # Simulated truth (the two-skill panel): the strongest 40 % are stronger on items the suite hardly
    # measures, so every estimate through the ability is low; the anchor mean weighs the model's own answers
    # on the frontier items by their share of the pool and is not pulled down. The upper end of an edge
    # model is at least the anchor mean's; the estimate and the lower end do not move.
    import benchsift.compression.full_score as fs_mod

    panel = _frontier_panel(seed, n_models)
    full = panel.scores.mean(axis=1)
    order = np.argsort(full, kind="stable")
    n_build = int(0.6 * n_models)
    build = panel.subset(models=np.sort(order[:n_build]))
    held = panel.subset(models=np.sort(order[n_build:]))
    suite = np.arange(0, panel.n_items, 10)
    fs = fit_full_score(build, suite, random_state=0)
    truth = held.scores.mean(axis=1)
    m = fs.method
    monkeypatch.setattr(fs_mod, "EDGE_ANCHOR_UPPER", False)
    old = fs.predict(held.scores[:, suite], held.model_ids)
    monkeypatch.setattr(fs_mod, "EDGE_ANCHOR_UPPER", True)
    est = fs.predict(held.scores[:, suite], held.model_ids)
    assert est.at_edge is not None and est.at_edge.all()
    np.testing.assert_array_equal(est.score[m], old.score[m])
    np.testing.assert_array_equal(est.low[m], old.low[m])
    assert (est.high[m] >= est.high["anchor"] - 1e-12).all()
    assert (est.high[m] >= old.high[m]).all()
    covered = (est.low[m][:, -1] <= truth) & (truth <= est.high[m][:, -1])
    covered_old = (old.low[m][:, -1] <= truth) & (truth <= old.high[m][:, -1])
    assert int(covered_old.sum()) == before
    assert int(covered.sum()) == after


def test_stratified_estimate_by_hand() -> None:
    # one group of 8 suite items, J = min(STRATA, 8 // 4) = 2 strata cut at the suite difficulties' median
    # (0.5): items 0-3 and 4-7; the 3 other pool items fall 2 / 1 -> shares 6/11 and 5/11
    p_suite = [np.array([0.1, 0.2, 0.3, 0.4, 0.6, 0.7, 0.8, 0.9])]
    p_rest = [np.array([0.05, 0.15, 0.95])]
    X = np.array(
        [
            [1, 0, 0, 0, 1, 1, 1, 0],
            [1, 0, np.nan, 0, np.nan, np.nan, np.nan, np.nan],  # no answer in stratum 2: stratum 1 alone
            [np.nan] * 8,
        ]
    )
    est, hi = stratified_estimate(X, [np.arange(8)], p_suite, p_rest, n_benchmarks=1, level=0.95)
    # 6/11 * 1/4 + 5/11 * 3/4; variance (6/11)^2 * .3 * .7 / 4 + (5/11)^2 * .7 * .3 / 4 with the
    # smoothed stratum means (1 + .5) / 5 = .3 and (3 + .5) / 5 = .7
    want = 6 / 11 * 0.25 + 5 / 11 * 0.75
    sd = math.sqrt((36 / 121 + 25 / 121) * 0.21 / 4)
    np.testing.assert_allclose(est[0], [want, want])  # the group and the overall column (one benchmark)
    np.testing.assert_allclose(hi[0], want + 1.959963984540054 * sd)
    # the second model: 1 right of 3 answered in stratum 1 (weight renormalised to 1); (1.5/4)(2.5/4)/3
    np.testing.assert_allclose(est[1], 1 / 3)
    np.testing.assert_allclose(hi[1], 1 / 3 + 1.959963984540054 * math.sqrt(0.375 * 0.625 / 3))
    assert np.isnan(est[2]).all() and np.isnan(hi[2]).all()


def test_stratified_blend_by_hand() -> None:
    score = np.array([[0.5, 0.5], [0.6, 0.6], [0.7, 0.7]])
    strat = np.array([[0.9, 0.9], [0.65, 0.65], [0.95, 0.95]])
    ref = np.array([[0.6, 0.6], [0.8, np.nan]])  # the best reference model: 0.8 and 0.6
    out, beyond = stratified_blend(score, strat, np.array([True, True, False]), ref)
    # row 0 at the edge and above every reference model: (0.5 + 0.9) / 2; row 1: 0.65 is above 0.6 only in
    # the overall column; row 2 is not at the edge
    np.testing.assert_allclose(out, [[0.7, 0.7], [0.6, 0.625], [0.7, 0.7]])
    assert beyond.tolist() == [[True, True], [False, True], [False, False]]


def _jump_panel(seed: int, jump: float) -> tuple[Panel, np.ndarray]:
    """Simulated truth: a 2PL panel of 150 models and 400 items whose strongest 40 % are ``jump`` stronger
    still (a release stronger than every build model), and a suite of the items most informative for the
    weakest 60 % (every 4th item they answer right 15-85 % of the time)."""
    rng = np.random.default_rng(seed)
    th = rng.standard_normal(150)
    th[np.argsort(th)[90:]] += jump
    a, b = rng.uniform(0.7, 2.0, 400), rng.normal(0.5, 1.3, 400)
    x = (rng.random((150, 400)) < 1 / (1 + np.exp(-a * (th[:, None] - b[None, :])))).astype(float)
    items = pd.DataFrame({"benchmark": "B", "item": [str(i) for i in range(400)]})
    panel = Panel(x, [f"m{j}" for j in range(150)], items)
    build = np.argsort(panel.scores.mean(axis=1), kind="stable")[:90]
    p = panel.scores[build].mean(axis=0)
    return panel, np.flatnonzero((p > 0.15) & (p < 0.85))[::4]


def test_stronger_release_gets_the_stratified_mean_and_its_upper_end(monkeypatch: pytest.MonkeyPatch) -> None:
    import benchsift.compression.full_score as fs_mod

    panel, suite = _jump_panel(0, 1.0)
    order = np.argsort(panel.scores.mean(axis=1), kind="stable")
    build, held = panel.subset(models=np.sort(order[:90])), panel.subset(models=np.sort(order[90:]))
    fs = fit_full_score(build, suite, random_state=0)
    truth = held.scores.mean(axis=1)
    X, R = held.scores[:, suite], build.scores[:, suite]
    m = fs.method
    est = fs.predict(X, held.model_ids, reference=R)
    monkeypatch.setattr(fs_mod, "EDGE_STRATIFIED_BLEND", False)
    monkeypatch.setattr(fs_mod, "EDGE_STRATIFIED_UPPER", False)
    old = fs.predict(X, held.model_ids, reference=R)
    s, lo, hi = est.score[m][:, -1], est.low[m][:, -1], est.high[m][:, -1]
    # every held-out model is at the edge; the estimators through the ability are pulled down by the jump
    assert est.at_edge is not None and est.at_edge.all() and est.estimator is not None
    mae_old, mae = np.mean(np.abs(old.score[m][:, -1] - truth)), np.mean(np.abs(s - truth))
    assert np.mean(old.score[m][:, -1] - truth) < -0.09 and mae_old > 0.09
    # the mean with the stratified mean halves the error (0.105 -> 0.049 with this seed)
    assert mae < 0.6 * mae_old and abs(np.mean(s - truth)) < 0.04
    blended = np.array([e.endswith("+stratified") for e in est.estimator])
    assert blended.mean() > 0.9
    strat, st_hi = fs._stratified(X, R)
    np.testing.assert_allclose(s[blended], 0.5 * (old.score[m][blended, -1] + strat[blended, -1]))
    np.testing.assert_array_equal(s[~blended], old.score[m][~blended, -1])
    # the interval holds the headline; the lower end is the estimator's, the upper end at least the
    # stratified mean's design-based one; it covers the stronger release
    assert ((lo <= s) & (s <= hi)).all()
    np.testing.assert_array_equal(est.low[m], old.low[m])
    assert (hi >= st_hi[:, -1] - 1e-12).all() and (hi >= old.high[m][:, -1]).all()
    assert np.mean((lo <= truth) & (truth <= hi)) >= 0.9
    (said,) = [w for w in est.warnings if w.startswith("60 model(s) (")]
    n = int(blended.sum())
    assert f"; {n} of them {'scores' if n == 1 else 'score'} above every reference model" in said


def test_stratified_blend_needs_the_lower_end_beyond_with_upper_ends() -> None:
    score = np.array([[0.5, 0.5], [0.6, 0.6]])
    strat = np.array([[0.9, 0.9], [0.9, 0.9]])
    upper = np.array([[0.95, 0.95], [1.0, 1.0]])  # mirrored lower ends 0.85 and 0.8
    ref = np.array([[0.6, 0.6], [0.82, 0.82]])  # the best reference model: 0.82
    out, beyond = stratified_blend(score, strat, np.array([True, True]), ref, upper)
    # row 0: 0.85 > 0.82, the mean of the two; row 1: 0.8 is not beyond 0.82, kept (without the upper
    # ends both rows would be blended: 0.9 > 0.82)
    np.testing.assert_allclose(out, [[0.7, 0.7], [0.6, 0.6]])
    assert beyond.tolist() == [[True, True], [False, False]]
    assert stratified_blend(score, strat, np.array([True, True]), ref)[1].all()


# --- a stratified random suite: the models beyond the build range move to its design-based mean (beyond_mix)


def test_beyond_mix_by_hand() -> None:
    score = np.full((5, 2), 0.5)
    design = np.array([[0.8, 0.8], [0.8 + 0.05, 0.85], [0.7, 0.7], [np.nan, 0.9], [0.9, 0.9]])
    ref = np.array([[0.6, 0.7], [0.8, np.nan]])  # the best reference model: 0.8 and 0.7
    # half-widths 0.05 / 1.96 sd at 95 %: the scale s = 0.05 / 1.959964 in column 0, inf (no weight) in 1
    hw = np.array([0.05, math.inf])
    edge = np.array([True, True, True, True, False])
    out, beyond = beyond_mix(score, design, hw, edge, ref, 0.95)
    # row 0: the design mean equals the best reference model's: w = Phi(0) = 0.5 -> 0.65
    # row 1: 1.96 scales above it: w = Phi(1.959964) = 0.975 -> 0.5 + 0.975 * 0.35
    # row 2: two scales below: w = Phi(-3.92) ~ 4.4e-5; row 3: no design mean; row 4: not at the edge
    s = 0.05 / norm.ppf(0.975)
    want0 = [0.65, 0.5 + 0.975 * 0.35, 0.5 + norm.cdf(-0.1 / s) * 0.2, 0.5, 0.5]
    np.testing.assert_allclose(out[:, 0], want0, rtol=1e-12)
    np.testing.assert_array_equal(out[:, 1], 0.5)  # an infinite half-width: nothing measured, kept
    assert beyond[:, 0].tolist() == [False, True, False, False, False]  # w > 0.5 (row 0 is exactly 0.5)
    # a column with no finite reference score is left alone
    out2, _ = beyond_mix(score, design, np.array([0.05, 0.05]), edge, np.array([[0.6, np.nan]]), 0.95)
    np.testing.assert_array_equal(out2[:, 1], 0.5)


def _fit(seed: int, split: str) -> tuple[FullScoreModel, np.ndarray, np.ndarray, np.ndarray, list[str]]:
    """A stratified random suite of 40 items (one per difficulty stratum of the build models) and its
    estimators on the jump panel: the fit, the held-out models' suite answers, the build models', their true
    full scores and names."""
    panel, _ = _jump_panel(seed, 1.0)
    if split == "strongest":
        order = np.argsort(panel.scores.mean(axis=1), kind="stable")
    else:
        order = np.random.default_rng(seed).permutation(panel.n_models)
    build, held = panel.subset(models=np.sort(order[:90])), panel.subset(models=np.sort(order[90:]))
    suite, _ = estimation_items(build.scores, 40, random_state=seed, info_share=1.0, strata="difficulty")
    fs = fit_full_score(build, suite, random_state=0, stratified=True)
    return fs, held.scores[:, suite], build.scores[:, suite], held.scores.mean(axis=1), held.model_ids


def test_a_stronger_release_moves_to_the_design_mean_and_a_random_split_does_not(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import benchsift.compression.full_score as fs_mod

    fs, X, R, truth, names = _fit(0, "strongest")
    assert fs.stratified
    m = fs.method
    est = fs.predict(X, names, reference=R)
    old = dataclasses.replace(fs, stratified=False, underestimate_strong=None).predict(
        X, names, reference=R
    )  # the rule before
    s, lo, hi = est.score[m][:, -1], est.low[m][:, -1], est.high[m][:, -1]
    assert est.at_edge is not None and est.at_edge.all() and est.estimator is not None
    # the estimators through the ability are pulled down by the jump; the design mean is not
    mae_old, mae = np.mean(np.abs(old.score[m][:, -1] - truth)), np.mean(np.abs(s - truth))
    assert np.mean(old.score[m][:, -1] - truth) < -0.06 and mae_old > 0.07  # 0.078 with this seed
    assert mae < 0.65 * mae_old and abs(np.mean(s - truth)) < 0.03  # 0.045, bias -0.022
    # the headline is (1 - w) x the estimate before + w x the design mean (the anchor estimate), with w from
    # the design mean's distance above the best reference model in its own error scale, per column
    anchor = est.score["anchor"]
    assert fs.reference_full is not None
    best = np.nanmax(fs.reference_full, axis=0)
    w = norm.cdf((anchor - best) / (fs.halfwidth["anchor"] / norm.ppf(0.975)))
    before = dataclasses.replace(fs, stratified=False, underestimate_strong=None)
    # (the blend of the rule before is not applied under this one: its estimate without any edge blend)
    with monkeypatch.context() as mp:
        mp.setattr(fs_mod, "EDGE_STRATIFIED_BLEND", False)
        plain = before.predict(X, names, reference=R).score[m]
    np.testing.assert_allclose(est.score[m], (1 - w) * plain + w * anchor, atol=1e-12)
    moved = np.array([e.endswith("+stratified") for e in est.estimator])
    np.testing.assert_array_equal(moved, w[:, -1] > 0.5)
    assert moved.mean() > 0.5
    # the interval holds the headline and covers the stronger release
    assert ((lo <= s + 1e-12) & (s <= hi + 1e-12)).all()
    assert np.mean((lo <= truth) & (truth <= hi)) >= 0.9
    (said,) = [x for x in est.warnings if x.startswith("60 model(s) (")]
    scores = "scores" if moved.sum() == 1 else "score"
    assert f"; {int(moved.sum())} of them {scores} above every reference model on the suite's design" in said
    # a random split of the same panel: the models at the edge are no stronger than the build models, and
    # the estimates hardly move (MAE 0.0432 -> 0.0423 with this seed)
    fs, X, R, truth, names = _fit(0, "random")
    m = fs.method
    est = fs.predict(X, names, reference=R)
    old = dataclasses.replace(fs, stratified=False, underestimate_strong=None).predict(X, names, reference=R)
    assert est.at_edge is not None and 0.2 < est.at_edge.mean() < 0.8
    mae_old, mae = np.mean(np.abs(old.score[m][:, -1] - truth)), np.mean(np.abs(est.score[m][:, -1] - truth))
    assert mae <= 1.02 * mae_old
    assert np.max(np.abs(est.score[m][:, -1] - old.score[m][:, -1])) < 0.05


def test_the_stratified_flag_is_stored_and_an_older_file_keeps_the_rule_before() -> None:
    fs, X, R, _, names = _fit(1, "strongest")
    doc = json.loads(json.dumps(fs.to_dict()))
    assert doc["stratified"] is True
    back = FullScoreModel.from_dict(doc)
    assert back.stratified
    m = fs.method
    np.testing.assert_array_equal(
        back.predict(X, names, reference=R).score[m], fs.predict(X, names, R).score[m]
    )
    del doc["stratified"], doc["underestimate_strong"]  # a file written before: the blend, as it was
    old = FullScoreModel.from_dict(doc)
    assert not old.stratified
    want = (
        dataclasses.replace(fs, stratified=False, underestimate_strong=None)
        .predict(X, names, reference=R)
        .score[m]
    )
    np.testing.assert_array_equal(old.predict(X, names, reference=R).score[m], want)
    assert np.abs(want - fs.predict(X, names, reference=R).score[m]).max() > 0.01


def test_shift_correction_by_hand() -> None:
    score = np.array([[0.50, 0.60], [0.72, 0.70], [0.99, 0.90], [0.80, np.nan]])
    under, hw = np.array([0.04, -0.01]), np.array([0.098, 0.05])
    at_edge = np.array([False, True, True, True])
    reference_full = np.array([[0.6, 0.7], [0.7, np.nan]])  # the best: 0.7 in both columns
    out, w = shift_correction(score, under, hw, at_edge, reference_full, 0.95)
    # column 0: w = Phi((estimate - 0.7) / (0.098 / z_0.975)) at the edge, 0 elsewhere; raised by w x 0.04
    w0 = norm.cdf((score[1:, 0] - 0.7) / (0.098 / norm.ppf(0.975)))
    np.testing.assert_allclose(w[:, 0], [0.0, *w0], rtol=0, atol=1e-15)
    np.testing.assert_allclose(out[:, 0], [0.50, 0.72 + 0.04 * w0[0], 1.0, 0.80 + 0.04 * w0[2]], atol=1e-15)
    assert 0.99 + 0.04 * w0[1] > 1.0  # (clipped to 1)
    # column 1: an overestimate on the fold (b < 0) lowers nothing; NaN stays NaN
    np.testing.assert_array_equal(out[:, 1], score[:, 1])
    # one row per model (each model's own estimator's underestimate and width): the same as one for all
    again, w_again = shift_correction(
        score, np.tile(under, (4, 1)), np.tile(hw, (4, 1)), at_edge, reference_full, 0.95
    )
    np.testing.assert_array_equal(again, out)
    np.testing.assert_array_equal(w_again, w)
    # nothing measured (NaN underestimate): nothing raised
    same, _ = shift_correction(score, np.full(2, np.nan), hw, at_edge, reference_full, 0.95)
    np.testing.assert_array_equal(same, score)


def _jump_fit(split: str, n_build: int = 90) -> tuple[FullScoreModel, np.ndarray, np.ndarray, Panel]:
    """The jump panel's estimators on its strongest-40 % or a random split (seed 0), not a stratified suite:
    the fit, the held-out models' and the build models' suite answers, and the held-out panel."""
    panel, suite = _jump_panel(0, 1.0)
    if split == "strongest":
        order = np.argsort(panel.scores.mean(axis=1), kind="stable")
    else:
        order = np.random.default_rng(0).permutation(panel.n_models)
    build, held = panel.subset(models=np.sort(order[:n_build])), panel.subset(models=np.sort(order[90:]))
    fs = fit_full_score(build, suite, random_state=0)
    return fs, held.scores[:, suite], build.scores[:, suite], held


def test_edge_headline_raised_by_the_strongest_folds_underestimate(monkeypatch: pytest.MonkeyPatch) -> None:
    import benchsift.compression.full_score as fs_mod

    fs, X, R, held = _jump_fit("strongest")
    truth, names, m = held.scores.mean(axis=1), held.model_ids, fs.method
    assert fs.n_reference >= SHIFT_CORRECTION_MIN_REFERENCE and not fs.stratified
    assert fs.underestimate_strong is not None and fs.underestimate_strong[m][-1] > 0.01  # 0.026: too low
    assert fs.summary()["underestimate_strongest_overall"][m] == pytest.approx(fs.underestimate_strong[m][-1])
    est = fs.predict(X, names, reference=R)
    plain = dataclasses.replace(fs, underestimate_strong=None).predict(X, names, reference=R)
    assert est.at_edge is not None and est.at_edge.all()
    # the stronger release is estimated less far below its truth: MAE 0.0514 -> 0.0467, bias -0.034 -> -0.021
    mae, mae_plain = (
        np.mean(np.abs(est.score[m][:, -1] - truth)),
        np.mean(np.abs(plain.score[m][:, -1] - truth)),
    )
    assert mae < 0.95 * mae_plain
    assert np.mean(plain.score[m][:, -1] - truth) < np.mean(est.score[m][:, -1] - truth) < 0
    # the interval keeps its ends (it holds the raised estimate) and covers as much
    cover = np.mean((est.low[m][:, -1] <= truth) & (truth <= est.high[m][:, -1]))
    assert cover >= np.mean((plain.low[m][:, -1] <= truth) & (truth <= plain.high[m][:, -1]))
    assert (est.low[m] <= est.score[m] + 1e-12).all() and (est.score[m] <= est.high[m] + 1e-12).all()
    # by hand, without the blend that follows: each model's estimator's underestimate, times
    # w = Phi((estimate - best reference) / (its half-width / z_0.975)), per column
    monkeypatch.setattr(fs_mod, "EDGE_STRATIFIED_BLEND", False)
    raised = fs.predict(X, names, reference=R)
    before = dataclasses.replace(fs, underestimate_strong=None).predict(X, names, reference=R).score[m]
    assert raised.estimator is not None and fs.reference_full is not None
    best = np.nanmax(fs.reference_full, axis=0)
    for j, e in enumerate(raised.estimator):
        w = norm.cdf((before[j] - best) / (fs.halfwidth[e] / norm.ppf(0.975)))
        want = np.clip(before[j] + w * np.maximum(fs.underestimate_strong[e], 0.0), 0.0, 1.0)
        np.testing.assert_allclose(raised.score[m][j], want, rtol=0, atol=1e-12)
    # said once, with how many were raised by more than half of it (estimated above every reference model)
    n_above = int(np.sum(before[:, -1] > best[-1]))
    assert n_above > 30
    (said,) = [x for x in raised.warnings if x.startswith("60 model(s) (")]
    assert (
        f"; {n_above} of them {'is' if n_above == 1 else 'are'} estimated above every reference model: their "
        "estimates were raised" in said
    )
    assert f"raised by up to {(raised.score[m] - before)[:, -1].max():.3f}, by the mean underestimate" in said
    # stored and read back; a file written before it existed raises nothing
    doc = json.loads(json.dumps(fs.to_dict()))
    back = FullScoreModel.from_dict(doc).predict(X, names, reference=R)
    np.testing.assert_array_equal(back.score[m], raised.score[m])
    for forged in ([0.1, 0.2], {m: [0.1]}, {m: "0.1"}):  # not per-method lists of one number per column
        with pytest.raises(ValueError, match="expected"):
            FullScoreModel.from_dict({**doc, "underestimate_strong": forged})
    del doc["underestimate_strong"]
    np.testing.assert_array_equal(
        FullScoreModel.from_dict(doc).predict(X, names, reference=R).score[m], before
    )


def test_shift_correction_leaves_random_splits_and_small_panels_alone() -> None:
    # a random split: the edge models are no stronger than the strongest build models (MAE 0.0403 -> 0.0415)
    fs, X, R, held = _jump_fit("random")
    truth, names, m = held.scores.mean(axis=1), held.model_ids, fs.method
    est = fs.predict(X, names, reference=R).score[m][:, -1]
    plain = dataclasses.replace(fs, underestimate_strong=None).predict(X, names, reference=R).score[m][:, -1]
    assert np.mean(np.abs(est - truth)) <= 1.05 * np.mean(np.abs(plain - truth))
    # under SHIFT_CORRECTION_MIN_REFERENCE reference models: not applied
    fs, X, R, held = _jump_fit("strongest", n_build=40)
    assert fs.n_reference < SHIFT_CORRECTION_MIN_REFERENCE and fs.underestimate_strong is not None
    est = fs.predict(X, held.model_ids, reference=R)
    plain = dataclasses.replace(fs, underestimate_strong=None).predict(X, held.model_ids, reference=R)
    np.testing.assert_array_equal(est.score[fs.method], plain.score[fs.method])
