"""The 2PL fitter: parameter recovery on simulated responses, missing data, sign anchoring, EAP scoring."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import integrate
from scipy.special import expit

from benchsift import InputError
from benchsift.irt import TwoPL


def simulate(n_resp: int, n_items: int, seed: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    theta = rng.standard_normal(n_resp)
    a = rng.uniform(0.6, 2.2, n_items)
    b = rng.normal(0, 1, n_items)
    p = expit(a * (theta[:, None] - b))
    return (rng.random(p.shape) < p).astype(float), theta, a, b


def test_parameter_recovery() -> None:
    X, theta, a, b = simulate(1000, 40, seed=1)
    model = TwoPL().fit(X)
    assert model.converged_
    assert np.corrcoef(model.discrimination_, a)[0, 1] > 0.9
    assert np.corrcoef(model.difficulty_, b)[0, 1] > 0.97
    assert np.corrcoef(model.theta_, theta)[0, 1] > 0.9
    # On the right scale, not just correlated: N(0, 1) abilities make a and b identifiable.
    assert np.median(np.abs(model.difficulty_ - b)) < 0.15
    assert np.median(np.abs(model.discrimination_ / a - 1)) < 0.15


def test_objective_increases() -> None:
    X, *_ = simulate(300, 30, seed=2)
    model = TwoPL().fit(X)
    steps = np.diff(model.objective_)
    assert (steps > -1e-6 * np.abs(model.objective_[1:])).all()


def test_missing_cells_are_ignored_not_zero() -> None:
    X, theta, a, b = simulate(800, 30, seed=3)
    rng = np.random.default_rng(0)
    Xm = X.copy()
    Xm[rng.random(X.shape) < 0.25] = np.nan
    model = TwoPL().fit(Xm)
    assert np.corrcoef(model.difficulty_, b)[0, 1] > 0.95
    # Treating missing as wrong would bias difficulties upward by a lot; ignoring them does not.
    assert abs(np.mean(model.difficulty_ - b)) < 0.15


def test_sign_anchoring() -> None:
    X, theta, *_ = simulate(300, 25, seed=4)
    model = TwoPL().fit(X)
    assert np.corrcoef(model.theta_, X.mean(axis=1))[0, 1] > 0
    assert np.median(model.discrimination_) > 0


def test_eap_matches_numerical_integration() -> None:
    X, *_ = simulate(200, 15, seed=5)
    model = TwoPL(n_quadrature=61).fit(X)
    x = X[0].copy()
    x[3] = np.nan
    a, d = model.discrimination_, model.intercept_
    obs = ~np.isnan(x)

    def lik(t: float) -> float:
        p = expit(a[obs] * t + d[obs])
        return float(np.prod(np.where(x[obs] == 1, p, 1 - p)) * np.exp(-t * t / 2))

    z = integrate.quad(lik, -10, 10)[0]
    mean = integrate.quad(lambda t: t * lik(t), -10, 10)[0] / z
    second = integrate.quad(lambda t: t * t * lik(t), -10, 10)[0] / z
    est = model.score(x[None, :])
    assert est.theta[0] == pytest.approx(mean, abs=1e-6)
    assert est.se[0] == pytest.approx(np.sqrt(second - mean**2), abs=1e-5)  # 61-point quadrature error


def test_score_new_respondents_on_item_subset() -> None:
    X, theta, *_ = simulate(1200, 60, seed=6)
    model = TwoPL().fit(X[:600])
    items = np.arange(0, 60, 2)
    est = model.score(X[600:, items], items=items)
    assert np.corrcoef(est.theta, theta[600:])[0, 1] > 0.8
    assert (est.se > 0).all()
    with pytest.raises(InputError, match="expected 30"):
        model.score(X[600:, :10], items=items)


def test_bad_input() -> None:
    with pytest.raises(InputError, match=r"row 0, item 1 is 2.0"):
        TwoPL().fit(np.array([[0, 2.0], [1, 0]]))
    with pytest.raises(InputError, match="not fitted"):
        TwoPL().score(np.zeros((1, 3)))


def test_perfect_items_stay_finite() -> None:
    X, *_ = simulate(100, 20, seed=7)
    X[:, 0] = 1.0
    X[:, 1] = 0.0
    model = TwoPL().fit(X)
    assert np.isfinite(model.intercept_).all() and np.isfinite(model.discrimination_).all()
    assert model.intercept_[0] > 2 and model.intercept_[1] < -2
