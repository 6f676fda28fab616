"""Quadrature grids: the rectangle rule on a posterior-following grid against closed-form Gaussian moments."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from benchsift.irt.quadrature import adaptive_grid, gauss_hermite_grid, grid_covers


@pytest.mark.parametrize(("mu", "sd"), [(0.0, 1.0), (1.2, 0.03), (-2.5, 0.01), (0.4, 0.3)])
def test_rectangle_rule_integrates_a_gaussian_likelihood(mu: float, sd: float) -> None:
    # int phi(t) N(t; mu, sd^2) dt = N(mu; 0, 1 + sd^2); posterior mean mu / (1 + sd^2),
    # posterior variance sd^2 / (1 + sd^2).
    grid = adaptive_grid(np.array([mu]), np.array([sd]))
    lik = stats.norm.pdf(grid.nodes, mu, sd)
    w = np.exp(grid.log_weights)
    total = float(np.sum(w * lik))
    assert total == pytest.approx(stats.norm.pdf(mu, 0, np.sqrt(1 + sd**2)), rel=1e-8)
    post = w * lik / total
    mean = float(post @ grid.nodes)
    var = float(post @ grid.nodes**2) - mean**2
    shrink = 1.0 / (1.0 + sd**2)
    assert mean == pytest.approx(mu * shrink, abs=1e-9)
    assert var == pytest.approx(sd**2 * shrink, rel=1e-5)  # moments converge a little slower


def test_grid_step_and_range_follow_the_posteriors() -> None:
    mean = np.array([-1.0, 0.5, 2.0])
    sd = np.array([0.05, 0.2, 0.5])
    grid = adaptive_grid(mean, sd, points_per_sd=2.0)
    assert grid.step == pytest.approx(0.025)
    assert grid.nodes[0] <= -1.0 - 8 * 0.05 + 1e-12
    assert grid.nodes[-1] >= 2.0 + 8 * 0.5 - grid.step
    assert np.allclose(np.diff(grid.nodes), grid.step)
    # Adequate for itself; not for much narrower posteriors, nor for posteriors outside its range.
    assert grid_covers(grid, mean, sd, points_per_sd=2.0)
    assert not grid_covers(grid, mean, sd / 10, points_per_sd=2.0)
    assert not grid_covers(grid, mean + 5.0, sd, points_per_sd=2.0)


def test_grid_size_is_capped() -> None:
    grid = adaptive_grid(np.array([-5.0, 5.0]), np.array([1e-6, 1e-6]), max_points=501)
    assert grid.size <= 501


def test_gauss_hermite_grid_is_normalised() -> None:
    grid = gauss_hermite_grid(21)
    w = np.exp(grid.log_weights)
    assert w.sum() == pytest.approx(1.0)
    assert float(w @ grid.nodes**2) == pytest.approx(1.0)
    assert np.isnan(grid.step)


def test_posterior_on_grid_in_place_equals_the_copy() -> None:
    """``overwrite=True`` (what follow_posteriors uses) builds the posteriors in the log-likelihood's memory,
    with the same values; by default the input is left as it was."""
    from benchsift.irt.quadrature import posterior_on_grid

    rng = np.random.default_rng(2)
    grid = adaptive_grid(rng.normal(size=30), rng.uniform(0.05, 0.5, 30))
    loglik = rng.normal(0, 30, (30, grid.size))
    kept = loglik.copy()
    want = posterior_on_grid(loglik, grid)
    np.testing.assert_array_equal(loglik, kept)
    got = posterior_on_grid(loglik, grid, overwrite=True)
    assert np.shares_memory(got[0], loglik)
    for g, w in zip(got, want, strict=True):
        np.testing.assert_array_equal(g, w)
    np.testing.assert_allclose(want[0].sum(axis=1), 1.0, rtol=1e-12)
