"""The anchor-weighted estimate and the stack of full-score estimators (compression.full_score_stack).

Hand-computed anchor weights and means, a stack that recovers known mixing weights, and on simulated panels
with known truth: the stack's out-of-fold error is at most that of each estimator it mixes, the anchor
estimate is the full mean when the suite is the pool, and a stored model predicts the same.
"""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from benchsift.compression import full_score as full_score_module
from benchsift.compression import full_score_factor as factor_module
from benchsift.compression.full_score import CHOSEN_FROM, METHODS, FullScoreModel, fit_full_score
from benchsift.compression.full_score_factor import FACTOR_MIN_REFERENCE
from benchsift.compression.full_score_stack import (
    STACK_COMPONENTS,
    anchor_means,
    anchor_weights,
    calibrated_loo,
    calibration_line,
    design_weights,
    stack_grid,
    stack_weights,
)
from benchsift.compression.selectors.estimation import estimation_items
from benchsift.panel import Panel


def test_stack_grid_is_the_simplex_at_step_one_tenth() -> None:
    g = stack_grid()
    assert g.shape == (66, 3)  # C(12, 2) points with coordinates k/10 summing to 1
    np.testing.assert_allclose(g.sum(axis=1), 1.0)
    assert np.unique(np.round(g * 10).astype(int), axis=0).shape[0] == 66
    np.testing.assert_array_equal(g[:3], np.eye(3)[::-1])  # the vertices first


def test_anchor_weights_by_hand() -> None:
    # 4 reference models x 6 items; suite items 0 and 3 (each its own anchor).
    X = np.array(
        [
            [1, 1, 0, 0, 0, 0],
            [1, 1, 1, 0, 0, 0],
            [1, 0, 1, 1, 1, 1],
            [0, 0, 1, 1, 1, 1],
        ],
        dtype=float,
    )
    # squared distances to item 0 (1,1,1,0) / item 3 (0,0,1,1): item1 (1,1,0,0): 1 / 4 -> 0;
    # item2 (0,1,1,1): 2 / 1 -> 3; item4 = item5 = (0,0,1,1): 3 / 0 -> 3. So 0 holds {0, 1}, 3 holds {2..5}
    w = anchor_weights(X, [np.arange(6)], np.array([0, 3]), [np.array([0, 1])])
    np.testing.assert_allclose(w[0], [2 / 6, 4 / 6])
    # a missing score is the item's mean: item 1's model-3 entry NaN -> mean of (1, 1, 0) = 2/3, nearer 0
    Xn = X.copy()
    Xn[3, 1] = np.nan
    wn = anchor_weights(Xn, [np.arange(6)], np.array([0, 3]), [np.array([0, 1])])
    np.testing.assert_allclose(wn[0], w[0])


def test_anchor_weights_share_an_item_equidistant_from_several_anchors() -> None:
    # 3 reference models x 5 items; suite items 0 (1,0,0) and 1 (0,1,0). Item 2 (1,1,0) is at squared
    # distance 1 from both, item 3 (0,0,0) at 1 from both, item 4 (1,0,1) at 1 / 3 -> 0. On 0/1 vectors
    # distances are integers, so such ties are common; each tied item is shared equally (the old rule gave
    # it to the first suite item: weights 4/5, 1/5).
    X = np.array([[1, 0, 1, 0, 1], [0, 1, 1, 0, 0], [0, 0, 0, 0, 1]], dtype=float)
    w = anchor_weights(X, [np.arange(5)], np.array([0, 1]), [np.array([0, 1])])
    np.testing.assert_allclose(w[0], [(1 + 0.5 + 0.5 + 1) / 5, (1 + 0.5 + 0.5) / 5])


def test_anchor_weights_recover_known_shares_and_split_tied_items() -> None:
    # Simulated truth: 400 items of 4 kinds with known shares (0.1, 0.2, 0.3, 0.4) and correctness vectors
    # over 6 reference models; items of one kind are identical, and the suite has one item of each kind.
    # Each pool item is nearest to its own kind's anchor (distance 0), so the weights are the shares exactly;
    # an extra all-wrong kind with 40 items is equidistant from the anchors of kinds 0 and 1 and splits.
    kinds = np.array([[1, 1, 0, 0, 0, 0], [0, 0, 1, 1, 0, 0], [1, 1, 1, 1, 1, 0], [1, 1, 1, 1, 1, 1]], float)
    counts = [40, 80, 120, 160]
    cols = np.concatenate([np.repeat(kinds[k][:, None], c, axis=1) for k, c in enumerate(counts)], axis=1)
    cols = np.concatenate([cols, np.zeros((6, 40))], axis=1)  # 40 all-wrong items: 2 from kinds 0 and 1
    suite = np.array([0, 40, 120, 240])
    w = anchor_weights(cols, [np.arange(440)], suite, [np.arange(4)])[0]
    np.testing.assert_allclose(w, np.array([40 + 20, 80 + 20, 120, 160]) / 440)


def test_anchor_means_renormalise_over_the_items_a_model_has() -> None:
    w = [np.array([0.2, 0.5, 0.3]), np.zeros(0)]
    cols = [np.array([0, 1, 2]), np.array([], dtype=np.int64)]
    X = np.array([[1.0, 0.0, 1.0], [np.nan, 1.0, 0.0], [np.nan, np.nan, np.nan]])
    out = anchor_means(X, cols, w)
    assert out[0, 0] == pytest.approx(0.5)
    assert out[1, 0] == pytest.approx(0.5 / 0.8)
    assert np.isnan(out[2, 0]) and np.isnan(out[:, 1]).all()


def test_stack_weights_recover_a_known_mixture() -> None:
    rng = np.random.default_rng(3)
    n = 200
    parts = rng.random((3, n, 2))
    full = np.column_stack(
        [0.3 * parts[0, :, 0] + 0.7 * parts[2, :, 0], 0.6 * parts[1, :, 1] + 0.4 * parts[2, :, 1]]
    )
    strong = np.zeros(n, dtype=bool)
    strong[:40] = True
    w = stack_weights(parts, parts, full, strong)
    np.testing.assert_allclose(w, [[0.3, 0.0, 0.7], [0.0, 0.6, 0.4]], atol=1e-12)


def _panel(n_models: int, n_items: int, seed: int) -> Panel:
    """One benchmark, a 2PL with a second, item-specific factor the 1-D 2PL cannot see."""
    rng = np.random.default_rng(seed)
    theta = rng.standard_normal(n_models)
    eta = rng.standard_normal(n_models)
    a = rng.uniform(0.5, 2.0, n_items)
    c = rng.normal(0.0, 0.8, n_items) * (rng.random(n_items) < 0.4)
    b = rng.normal(0.0, 1.0, n_items)
    p = 1.0 / (1.0 + np.exp(-(a[None, :] * (theta[:, None] - b[None, :]) + c[None, :] * eta[:, None])))
    x = (rng.random(p.shape) < p).astype(float)
    items = pd.DataFrame({"benchmark": "B", "item": [str(i) for i in range(n_items)]})
    return Panel(x, [f"m{j}" for j in range(n_models)], items)


def test_anchor_is_the_full_mean_when_the_suite_is_the_pool() -> None:
    panel = _panel(30, 60, seed=1)
    fs = fit_full_score(panel, np.arange(60), n_folds=5)
    est = fs.predict(panel.scores)
    np.testing.assert_allclose(est.score["anchor"][:, 0], panel.scores.mean(axis=1), atol=1e-12)
    assert fs.anchor_weight is not None
    np.testing.assert_allclose(fs.anchor_weight[0], 1 / 60)


def test_stack_is_chosen_from_and_no_worse_out_of_fold_than_what_it_mixes() -> None:
    """On a simulated panel with a second factor: the stack's random-fold error (the criterion that chooses
    its weights) is at most each component's, it is among the methods chosen from, and a model
    read back from JSON predicts the same numbers; held-out models are covered at about the level."""
    panel = _panel(200, 400, seed=5)
    build, held = panel.subset(models=np.arange(120)), panel.subset(models=np.arange(120, 200))
    suite = np.arange(0, 400, 10)
    with pytest.MonkeyPatch.context() as mp:  # the in-sample errors the weights are chosen on
        mp.setattr(full_score_module, "STACK_CROSS_FITTED", False)
        fs = fit_full_score(build, suite, random_state=0)
    assert "stack" in METHODS and "stack" in CHOSEN_FROM and fs.stack_weight is not None
    assert fs.cv_mae_strong is not None

    def crit(m: str) -> float:  # the random folds' error, on which the stack's weights are chosen
        return float(fs.cv_mae[m][0])

    # 120 reference models: with the factor
    assert fs.factor is not None and fs.stack_weight.shape == (1, len(STACK_COMPONENTS))
    for m in STACK_COMPONENTS:
        assert crit("stack") <= crit(m) + 1e-12, (m, crit("stack"), crit(m))
    truth = held.scores.mean(axis=1)
    est = fs.predict(held.scores[:, suite])
    w = fs.stack_weight[0]
    mix = sum(w[k] * est.score[m][:, 0] for k, m in enumerate(STACK_COMPONENTS))
    # (a model beyond the reference abilities gets p-IRT as the chosen method's headline: not a mix of rows)
    inside = ~est.extrapolating if est.extrapolating is not None else np.ones(mix.shape[0], dtype=bool)
    assert inside.mean() > 0.9
    np.testing.assert_allclose(est.score["stack"][inside, 0], np.clip(mix, 0, 1)[inside], atol=1e-12)
    cover = np.mean((est.low["stack"][:, -1] <= truth) & (truth <= est.high["stack"][:, -1]))
    assert cover >= 0.85
    back = FullScoreModel.from_dict(json.loads(json.dumps(fs.to_dict())))
    np.testing.assert_array_equal(back.predict(held.scores[:, suite]).score["stack"], est.score["stack"])


def test_a_file_written_before_the_stack_reads_back_as_pirt() -> None:
    panel = _panel(40, 80, seed=8)
    pos = np.arange(0, 80, 5)
    doc = fit_full_score(panel, pos, n_folds=5).to_dict()
    del doc["anchor_weight"], doc["stack_weight"]
    for key in ("halfwidth", "cv_mae"):
        del doc[key]["stack"], doc[key]["anchor"]
    old = FullScoreModel.from_dict(json.loads(json.dumps(doc)))
    est = old.predict(panel.scores[:4, pos])
    np.testing.assert_array_equal(est.score["stack"], est.score["pirt"])
    np.testing.assert_array_equal(est.score["anchor"], est.score["pirt"])


def test_the_factor_estimator_needs_enough_reference_models_and_old_files_read_back_without_it() -> None:
    """Below FACTOR_MIN_REFERENCE reference models (or above FACTOR_MAX_CELLS cells) no factor model is
    fitted: ``factor`` is p-IRT and its stack weight 0. A file written before the factor estimator (three
    stack weights, no ``factor``) reads back with a factor weight of 0 and predicts what it predicted."""
    small = _panel(FACTOR_MIN_REFERENCE - 1, 80, seed=8)
    pos = np.arange(0, 80, 5)
    fs = fit_full_score(small, pos, n_folds=5)
    n_parts, k_factor = len(STACK_COMPONENTS), STACK_COMPONENTS.index("factor")
    assert fs.factor is None and fs.stack_weight is not None and fs.stack_weight.shape == (1, n_parts)
    assert fs.stack_weight[0, k_factor] == 0.0
    est = fs.predict(small.scores[:6, pos])
    np.testing.assert_array_equal(est.score["factor"], est.score["pirt"])
    # files written before the factor (three weights) and before the difference estimator (four): the
    # missing weights read back as 0, and the stack is the mix of the parts the file has weights for
    for n_old in (3, 4):
        doc = fs.to_dict()
        w_old = np.array([0.2, 0.5, 0.3, 0.0][:n_old])
        doc["stack_weight"] = [w_old.tolist()]
        if n_old == 3:
            del doc["factor"]
            for key in ("halfwidth", "cv_mae"):
                del doc[key]["factor"]
        for key in ("halfwidth", "cv_mae"):
            del doc[key]["greg"]
        old = FullScoreModel.from_dict(json.loads(json.dumps(doc)))
        assert old.stack_weight is not None and old.stack_weight.shape == (1, n_parts)
        np.testing.assert_array_equal(old.stack_weight[0, n_old:], 0.0)
        got = old.predict(small.scores[:6, pos]).score
        mix = 0.2 * got["anchor"] + 0.5 * got["ridge"] + 0.3 * got["pirt"]
        inside = (got["stack"] > 0) & (got["stack"] < 1)
        np.testing.assert_allclose(got["stack"][inside], mix[inside], rtol=0, atol=1e-12)
    # enough models, but more reference cells than FACTOR_MAX_CELLS: no factor model either
    big = _panel(FACTOR_MIN_REFERENCE + 5, 80, seed=8)
    assert fit_full_score(big, pos, n_folds=5).factor is not None
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(factor_module, "FACTOR_MAX_CELLS", big.n_models * 80 - 1)
        assert fit_full_score(big, pos, n_folds=5).factor is None


def test_calibration_line_matches_polyfit_and_loo_by_hand() -> None:
    rng = np.random.default_rng(4)
    p = rng.random(12)
    y = 0.1 + 1.3 * p + 0.02 * rng.standard_normal(12)
    y[3] = np.nan
    alpha, beta = calibration_line(p, y)
    ok = np.isfinite(y)
    ref_beta, ref_alpha = np.polyfit(p[ok], y[ok], 1)
    assert alpha == pytest.approx(ref_alpha, abs=1e-12) and beta == pytest.approx(ref_beta, abs=1e-12)
    loo = calibrated_loo(p, y)
    for i in (0, 3, 7):  # row 3 has no truth: its estimate uses every other row
        keep = ok & (np.arange(12) != i)
        b_i, a_i = np.polyfit(p[keep], y[keep], 1)
        assert loo[i] == pytest.approx(a_i + b_i * p[i], abs=1e-12)
    assert calibration_line(np.full(5, 0.3), np.arange(5.0)) == (pytest.approx(2.0), 0.0)


def test_calibrated_pirt_corrects_the_spread_of_a_misfitting_2pl() -> None:
    """Responses from a 3PL with guessing 0.25 (a four-option test): a 2PL fitted on the build models has no
    floor, so from a 12-item suite its p-IRT spreads the weak models too far down; the line on the
    out-of-fold p-IRT estimates has a slope below 1 and a lower error on held-out models."""
    rng = np.random.default_rng(2)
    n_models, n_items = 160, 300
    a = rng.uniform(0.7, 2.0, n_items)
    b = rng.normal(-1.0, 1.0, n_items)
    theta = rng.normal(0, 1.2, n_models)
    p = 0.25 + 0.75 / (1.0 + np.exp(-a[None, :] * (theta[:, None] - b[None, :])))
    x = (rng.random(p.shape) < p).astype(float)
    items = pd.DataFrame({"benchmark": "B", "item": [str(i) for i in range(n_items)]})
    panel = Panel(x, [f"m{j}" for j in range(n_models)], items)
    build, held = panel.subset(models=np.arange(100)), panel.subset(models=np.arange(100, n_models))
    suite = np.sort(rng.choice(n_items, 12, replace=False))
    fs = fit_full_score(build, suite, random_state=0)
    assert fs.pirt_line is not None and fs.pirt_line[0, 1] < 0.9
    est = fs.predict(held.scores[:, suite])
    truth = held.scores.mean(axis=1)
    mae = {m: float(np.mean(np.abs(est.score[m][:, 0] - truth))) for m in ("pirt", "pirt_cal")}
    assert mae["pirt_cal"] < mae["pirt"], mae
    alpha, beta = fs.pirt_line[0]
    cal = np.clip(alpha + beta * est.score["pirt"][:, 0], 0, 1)
    np.testing.assert_allclose(est.score["pirt_cal"][:, 0], cal, atol=1e-12)


def test_cross_fitted_stack_predicts_each_fold_with_the_other_folds_weights() -> None:
    """Fold 0's three models are predicted exactly by the anchor part, the other twelve by p-IRT (the other
    parts 0.3 off). In-sample the weights are p-IRT's for everyone; cross-fitted, fold 0 gets the weights the
    other folds choose (p-IRT: 0.3 off), folds 1 and 2 (six models each) the ones chosen with fold 0 and
    the other fold (p-IRT: exact); the shift fold holding out folds 1 and 2 gets fold 0's choice (anchor), and
    the weak fold holding out fold 0 the other folds' (p-IRT)."""
    y = np.linspace(0.2, 0.8, 15)[:, None]
    fold = np.array([0] * 3 + [1] * 6 + [2] * 6)
    anchor = np.where(fold[:, None] == 0, y, y + 0.3)
    pirt = np.where(fold[:, None] == 0, y + 0.3, y)
    parts = np.stack([anchor, y + 0.3, pirt])
    shift = fold > 0
    # the weak fold holds out fold 0: the weights the other folds choose (p-IRT)
    folds = full_score_module._Folds([fold == k for k in range(3)], [shift], fold == 0)
    preds = [{"stack": np.zeros_like(y)}, {"stack": np.zeros_like(y)}, {"stack": np.zeros_like(y)}]
    full_score_module._cross_fit_stack(preds, [parts, parts, parts], y, folds)
    np.testing.assert_allclose(preds[0]["stack"][fold == 0], y[fold == 0] + 0.3, atol=1e-12)
    np.testing.assert_allclose(preds[0]["stack"][fold > 0], y[fold > 0], atol=1e-12)
    np.testing.assert_allclose(preds[1]["stack"], anchor, atol=1e-12)
    np.testing.assert_allclose(preds[2]["stack"], pirt, atol=1e-12)


def test_design_weights_by_hand() -> None:
    # 10 items: the benchmark (all of them), category A (items 0-5) and B (6-9); suite items 1, 4 (A) and 8
    # (B). In the benchmark an A item stands for 6 / 2 = 3 items, the B item for 4 / 1: weights 3, 3, 4 over
    # 10; inside a category its items are equal.
    pool = [np.arange(10), np.arange(6), np.arange(6, 10)]
    suite = np.array([1, 4, 8])
    cols = [np.array([0, 1, 2]), np.array([0, 1]), np.array([2])]
    w = design_weights(10, pool, suite, cols)
    np.testing.assert_allclose(w[0], [0.3, 0.3, 0.4])
    np.testing.assert_allclose(w[1], [0.5, 0.5])
    np.testing.assert_allclose(w[2], [1.0])
    X = np.zeros((3, 10))  # (anchor_weights with design=True reads no scores)
    for a, b in zip(anchor_weights(X, pool, suite, cols, design=True), w, strict=True):
        np.testing.assert_array_equal(a, b)


def test_the_stratified_mean_is_unbiased_where_the_equal_weight_mean_is_not() -> None:
    """Known truth: one model's answers on two categories (300 items at 0.8, 100 at 0.2), a stratified sample
    with 10 items of each (the smaller category over-sampled, as Stage 2's budgets may be). Over 2,000 draws
    the design-weighted mean averages to the full mean 0.65 (within 4 Monte Carlo SE), the suite's plain mean
    to 0.5."""
    rng = np.random.default_rng(0)
    y = np.concatenate([rng.random(300) < 0.8, rng.random(100) < 0.2]).astype(float)
    truth = y.mean()
    build = (rng.random((15, 400)) < np.concatenate([np.full(300, 0.7), np.full(100, 0.3)])).astype(float)
    pool = [np.arange(400), np.arange(300), np.arange(300, 400)]
    ests, plain = [], []
    for seed in range(2000):
        a, _ = estimation_items(build[:, :300], 10, random_state=seed, info_share=1.0, strata="difficulty")
        b, _ = estimation_items(build[:, 300:], 10, random_state=seed, info_share=1.0, strata="difficulty")
        suite = np.concatenate([a, 300 + b])
        (w,) = design_weights(400, pool, suite, [np.arange(20), np.arange(10), np.arange(10, 20)])[:1]
        ests.append(float(w @ y[suite]))
        plain.append(float(y[suite].mean()))
    se = np.std(ests) / np.sqrt(len(ests))
    assert abs(np.mean(ests) - truth) < 4 * se, (np.mean(ests), truth, se)
    assert abs(np.mean(plain) - truth) > 0.1


def test_a_stratified_fit_gives_the_stratified_mean_and_a_design_based_difference_estimator() -> None:
    """``fit_full_score(stratified=True)`` on a benchmark of two categories with a non-proportional suite: its
    ``anchor`` estimate is the stratified mean by hand (sum over categories of N_c / N times the category's
    suite mean) and ``greg`` is the 2PL's pool mean plus the design-weighted mean of the suite residuals."""
    base = _panel(40, 120, seed=4)
    items = base.items.assign(category=["A"] * 90 + ["B"] * 30)
    panel = Panel(base.scores, base.model_ids, items)
    suite = np.concatenate([np.arange(0, 90, 9), np.arange(90, 120, 3)])  # 10 of 90 (A), 10 of 30 (B)
    fs = fit_full_score(panel, suite, n_folds=5, stratified=True)
    est = fs.predict(panel.scores[:, suite])
    Y = panel.scores[:, suite]
    want = 0.75 * Y[:, :10].mean(axis=1) + 0.25 * Y[:, 10:].mean(axis=1)
    np.testing.assert_allclose(est.score["anchor"][:, 0], want, atol=1e-12)
    raw, _, theta = fs._predict_all(Y)
    p_suite = 1.0 / (1.0 + np.exp(-(np.outer(theta, fs.a_suite) + fs.d_suite[None, :])))
    p_rest = 1.0 / (1.0 + np.exp(-(np.outer(theta, fs.a_rest[0]) + fs.d_rest[0][None, :])))
    w = np.r_[np.full(10, 0.075), np.full(10, 0.025)]  # 9 and 3 items per suite item, over 120
    greg = (p_suite.sum(axis=1) + p_rest.sum(axis=1)) / 120 + (Y - p_suite) @ w
    np.testing.assert_allclose(raw["greg"][:, 0], greg, atol=1e-10)
    plain = fit_full_score(panel, suite, n_folds=5)  # the nearest-item weights differ
    assert np.abs(plain.predict(Y).score["anchor"][:, 0] - want).max() > 1e-3
