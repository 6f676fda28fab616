"""The multidimensional logistic factor model and its posterior-mean full score (benchsift.irt.factor).

Against known truth: a simulated two-factor panel (the fitted logits track the true ones; the posterior mean
of held-out models' full scores from 60 items beats the mean of those items), the importance weights by hand,
the prior draws' moments and reproducibility, and the joint MAP objective against an independent evaluation
of the same objective at the fitted point (scipy's gradient check).
"""

from __future__ import annotations

import numpy as np
import pytest
from scipy.optimize import check_grad
from scipy.special import expit, log_expit

from benchsift.errors import DegenerateError, InputError
from benchsift.irt.factor import LogisticFactor, ability_samples, expected_correct, posterior_weights


def _two_factor(n_models: int, n_items: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    theta = rng.standard_normal((n_models, 2))
    A = rng.normal(0.0, 0.9, (n_items, 2))
    d = rng.normal(0.0, 1.0, n_items)
    p = expit(theta @ A.T + d)
    return (rng.random(p.shape) < p).astype(float), p


def test_fitted_logits_track_the_true_probabilities() -> None:
    X, p = _two_factor(150, 400, seed=0)
    f = LogisticFactor(n_factors=2).fit(X)
    assert f.theta_.shape == (150, 2) and f.loadings_.shape == (400, 2) and f.intercept_.shape == (400,)
    fitted = expit(f.theta_ @ f.loadings_.T + f.intercept_)
    assert np.corrcoef(fitted.ravel(), p.ravel())[0, 1] > 0.85
    # one factor cannot: its fit of the same probabilities is worse
    one = LogisticFactor(n_factors=1).fit(X)
    fitted1 = expit(one.theta_ @ one.loadings_.T + one.intercept_)
    assert np.abs(fitted - p).mean() < np.abs(fitted1 - p).mean()


def test_the_fit_is_a_stationary_point_of_the_penalised_likelihood() -> None:
    """At the fitted point the gradient of the objective of the module docstring (written here again,
    independently) is near zero, and that gradient matches finite differences (scipy.optimize.check_grad)."""
    X, _ = _two_factor(30, 40, seed=3)
    X[0, :5] = np.nan
    f = LogisticFactor(n_factors=2, max_iter=2000).fit(X)
    seen = ~np.isnan(X)
    y = np.where(seen, X, 0.0)
    n, N, D = 30, 40, 2

    def obj(v: np.ndarray) -> float:
        T, A, d = v[: n * D].reshape(n, D), v[n * D : n * D + N * D].reshape(N, D), v[n * D + N * D :]
        z = T @ A.T + d
        ll = np.sum(seen * (y * z - np.logaddexp(0.0, z)))
        return float(-ll + 0.5 * (T**2).sum() + 0.5 * (A**2).sum() + 0.5 / 9.0 * (d**2).sum())

    def grad(v: np.ndarray) -> np.ndarray:
        T, A, d = v[: n * D].reshape(n, D), v[n * D : n * D + N * D].reshape(N, D), v[n * D + N * D :]
        r = seen * (y - expit(T @ A.T + d))
        return np.concatenate([(-(r @ A) + T).ravel(), (-(r.T @ T) + A).ravel(), -r.sum(axis=0) + d / 9.0])

    v = np.concatenate([f.theta_.ravel(), f.loadings_.ravel(), f.intercept_])
    assert check_grad(obj, grad, v) < 1e-3
    assert np.abs(grad(v)).max() < 1e-2
    assert f.converged_


def test_posterior_weights_by_hand() -> None:
    # two prior draws, one item with a = 1, d = 0: P = sigmoid(-1), sigmoid(2)
    samples = np.array([[-1.0], [2.0]])
    p = expit(np.array([-1.0, 2.0]))
    W = posterior_weights(np.array([[1.0], [0.0], [np.nan]]), np.array([[1.0]]), np.array([0.0]), samples)
    np.testing.assert_allclose(W[0], p / p.sum())
    np.testing.assert_allclose(W[1], (1 - p) / (1 - p).sum())
    np.testing.assert_allclose(W[2], [0.5, 0.5])  # nothing answered: the prior


def test_ability_samples_reproduce_and_follow_the_kernel_density() -> None:
    rng = np.random.default_rng(1)
    theta = rng.multivariate_normal([0.5, -1.0], [[1.0, 0.6], [0.6, 2.0]], size=300)
    a = ability_samples(theta, 20000, 0.3, seed=7)
    np.testing.assert_array_equal(a, ability_samples(theta, 20000, 0.3, seed=7))
    assert not np.array_equal(a, ability_samples(theta, 20000, 0.3, seed=8))
    np.testing.assert_allclose(a.mean(axis=0), theta.mean(axis=0), atol=0.05)
    # a smoothed bootstrap's covariance is (1 + h^2) times the data's
    np.testing.assert_allclose(np.cov(a.T), 1.09 * np.cov(theta.T), rtol=0.06, atol=0.03)


def test_posterior_mean_full_score_beats_the_items_own_mean() -> None:
    """Known truth: held-out models of a two-factor panel answer 60 random items; the posterior mean of
    their full score (answers plus expected scores of the other items) errs less than the 60 items' mean."""
    X, _ = _two_factor(200, 600, seed=2)
    build, held = X[:140], X[140:]
    f = LogisticFactor(n_factors=2).fit(build)
    S = np.sort(np.random.default_rng(0).choice(600, 60, replace=False))
    rest = np.setdiff1d(np.arange(600), S)
    draws = ability_samples(f.theta_, 4000, 0.3, seed=0)
    W = posterior_weights(held[:, S], f.loadings_[S], f.intercept_[S], draws)
    expected_rest = W @ expit(draws @ f.loadings_[rest].T + f.intercept_[rest]).sum(axis=1)
    est = (held[:, S].sum(axis=1) + expected_rest) / 600
    truth = held.mean(axis=1)
    assert np.abs(est - truth).mean() < 0.7 * np.abs(held[:, S].mean(axis=1) - truth).mean()


def test_refuses_too_few_respondents_and_bad_parameters() -> None:
    with pytest.raises(DegenerateError, match="at least 2 respondents"):
        LogisticFactor().fit(np.ones((1, 5)))
    with pytest.raises(Exception, match="n_factors"):
        LogisticFactor(n_factors=0).fit(np.ones((3, 5)))
    with pytest.raises(InputError, match="responses"):  # the 2PL's check: a score outside [0, 1]
        LogisticFactor().fit(np.array([[0.0, 1.0], [2.0, 0.0], [1.0, np.inf]]))


def test_expected_correct_and_posterior_weights_match_scipy() -> None:
    """The vectorised sums against scipy's ``expit`` / ``log_expit`` written directly: the expected number
    correct per draw (in blocks that do not divide the draws), and the importance weights of rows with
    missing answers (a row with none gets the prior's equal weights)."""
    rng = np.random.default_rng(11)
    samples = rng.normal(size=(501, 2)) * 2.0
    A, d = rng.normal(size=(40, 2)) * 1.5, rng.normal(size=40) * 2.0
    z = samples @ A.T + d
    np.testing.assert_allclose(expected_correct(samples, A, d, block=64), expit(z).sum(axis=1), rtol=1e-13)
    X = (rng.random((6, 40)) < 0.6).astype(float)
    X[rng.random(X.shape) < 0.2] = np.nan
    X[5] = np.nan
    seen = ~np.isnan(X)
    ll = np.where(seen, X, 0.0) @ log_expit(z).T + np.where(seen, 1.0 - X, 0.0) @ log_expit(-z).T
    want = np.exp(ll - ll.max(axis=1, keepdims=True))
    want /= want.sum(axis=1, keepdims=True)
    got = posterior_weights(X, A, d, samples)
    np.testing.assert_allclose(got, want, rtol=1e-9, atol=1e-300)
    np.testing.assert_allclose(got[5], np.full(501, 1 / 501), rtol=1e-12)
    with pytest.raises(ValueError, match="block"):
        expected_correct(samples, A, d, block=0)
