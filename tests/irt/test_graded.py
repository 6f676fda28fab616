"""The graded response model: recovery on simulated ordered scores, the 2PL as its two-level case, levels."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.special import expit

from benchsift import DegenerateError, InputError
from benchsift.irt import GradedResponse, TwoPL
from benchsift.irt.graded import score_levels


def simulate_graded(n_resp: int, n_items: int, seed: int) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(seed)
    theta = rng.standard_normal(n_resp)
    a = rng.uniform(0.6, 2.2, n_items)
    b = np.sort(rng.normal(0.0, 1.0, (n_items, 2)), axis=1)
    d = -a[:, None] * b  # d_1 > d_2
    p_at_least = expit(a[None, :, None] * theta[:, None, None] + d[None, :, :])
    cats = (rng.random((n_resp, n_items))[:, :, None] < p_at_least).sum(axis=2)
    return {"X": cats / 2.0, "theta": theta, "a": a, "d": d}


def _rmse(x: np.ndarray, y: np.ndarray) -> float:
    return float(np.sqrt(np.mean((x - y) ** 2)))


def test_recovers_slopes_thresholds_and_abilities() -> None:
    sim = simulate_graded(200, 1000, seed=0)
    model = GradedResponse().fit(sim["X"])
    assert model.converged_
    assert [lv.tolist() for lv in model.levels_[:3]] == [[0.0, 0.5, 1.0]] * 3
    assert _rmse(model.discrimination_, sim["a"]) < 0.25
    three = np.array([lv.size == 3 for lv in model.levels_])  # items where all three levels were seen
    assert three.mean() > 0.9
    assert _rmse(model.thresholds_[three, :2], sim["d"][three]) < 0.25
    assert _rmse(model.theta_, sim["theta"]) < 0.08
    assert (np.diff(model.thresholds_[three, :2], axis=1) < 0).all()  # thresholds stay ordered
    steps = np.diff(model.objective_)
    assert (steps > -1e-6 * np.abs(model.objective_[1:])).all()


def test_two_levels_is_the_2pl() -> None:
    rng = np.random.default_rng(1)
    theta = rng.standard_normal(300)
    a = rng.uniform(0.6, 2.0, 40)
    b = rng.normal(0, 1, 40)
    X = (rng.random((300, 40)) < expit(a * (theta[:, None] - b))).astype(float)
    graded = GradedResponse(tol=1e-7).fit(X)
    twopl = TwoPL(tol=1e-7).fit(X)
    assert np.allclose(graded.discrimination_, twopl.discrimination_, atol=1e-4)
    assert np.allclose(graded.thresholds_[:, 0], twopl.intercept_, atol=1e-4)
    assert np.allclose(graded.theta_, twopl.theta_, atol=1e-4)
    assert np.isnan(graded.thresholds_[:, 1:]).all()


def test_probabilities_and_expected_score() -> None:
    sim = simulate_graded(150, 60, seed=2)
    model = GradedResponse().fit(sim["X"])
    theta = np.linspace(-3, 3, 13)
    probs = model.category_probabilities(theta)
    assert probs.shape == (13, 60, 3)
    assert np.allclose(probs.sum(axis=2), 1.0)
    assert (probs >= 0).all()
    expected = model.expected_score(theta)
    assert (np.diff(expected, axis=0) > 0).all()  # positive slopes: expected score rises with ability
    assert ((expected >= 0) & (expected <= 1)).all()
    # a subset of the items (in any order) is the same columns of the whole
    items = np.array([41, 3, 17, 59, 0])
    assert np.array_equal(model.category_probabilities(theta, items), probs[:, items])
    assert np.array_equal(model.expected_score(theta, items), expected[:, items])


def test_scoring_new_respondents_matches_the_fit() -> None:
    sim = simulate_graded(300, 80, seed=3)
    model = GradedResponse().fit(sim["X"])
    est = model.score(sim["X"][:25])
    assert np.allclose(est.theta, model.theta_[:25], atol=1e-4)
    assert np.allclose(est.se, model.theta_se_[:25], rtol=1e-3)
    with pytest.raises(InputError, match=r"shape \(n, 80\), got shape \(2, 10\)"):
        model.score(sim["X"][:2, :10])


def test_levels_and_binning() -> None:
    X = np.array([[0.0, 0.1, 0.3], [0.5, 0.2, 0.35], [1.0, 0.9, np.nan], [0.5, 0.95, 0.3]])
    cats, levels = score_levels(X, max_categories=2)
    # Column 0 has three levels > 2: binned at 0.5 -> [0, 0.5) and [0.5, 1]; bin means are the levels.
    assert cats[:, 0].tolist() == [0, 1, 1, 1]
    assert levels[0].tolist() == pytest.approx([0.0, 2.0 / 3.0])
    assert levels[2].tolist() == [0.3, 0.35]
    assert cats[2, 2] == -1  # missing stays missing


def test_items_without_two_levels() -> None:
    sim = simulate_graded(120, 20, seed=4)
    X = sim["X"].copy()
    X[:, 0] = 0.5  # one level only: not fitted
    model = GradedResponse().fit(X)
    assert np.isnan(model.discrimination_[0]) and np.isnan(model.thresholds_[0]).all()
    assert np.isfinite(model.discrimination_[1:]).all()
    with pytest.raises(DegenerateError, match="two or more observed score levels"):
        GradedResponse().fit(np.full((10, 3), 0.5))
    with pytest.raises(InputError, match="max_categories"):
        GradedResponse(max_categories=1).fit(sim["X"])
