"""The 2PL fit's item-side sums (issue 36, point 3): slope groups, their Chebyshev and Gauss rules, and the
fit on random panels against the plain EM on the full grid (direct sums over every node)."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import integrate
from scipy.special import expit, log_expit

import benchsift.irt.twopl as twopl
from benchsift.irt import TwoPL
from benchsift.irt.quadrature import gauss_hermite_grid


def _direct_item_sum(a: np.ndarray, d: np.ndarray, nodes: np.ndarray) -> np.ndarray:
    return -log_expit(-(np.outer(a, nodes) + d[:, None])).sum(axis=0)


def test_slope_partition_holds_every_item_once_by_increasing_slope() -> None:
    rng = np.random.default_rng(0)
    a = rng.lognormal(0.0, 0.6, 1003) * rng.choice([-1.0, 1.0], 1003)
    part = twopl._SlopePartition(a)
    groups = [part.group(g) for g in range(part.groups)]
    assert part.groups == 4
    assert sorted(np.concatenate(groups).tolist()) == list(range(a.size))
    sizes = [g.size for g in groups]  # 64 pieces of 15 or 16 items (the first 43 hold 16), 16 per group
    assert sizes == [256, 256, 251, 240]
    for lower, upper in zip(groups, groups[1:], strict=False):
        assert np.abs(a[lower]).max() <= np.abs(a[upper]).min()
    assert twopl._SlopePartition(a[:100]).groups == 1  # too few items to be worth splitting


@pytest.mark.parametrize("seed", range(6))
def test_grouped_item_sum_matches_the_direct_sum_on_random_inputs(seed: int) -> None:
    """The E-step's ``sum_j softplus(a_j q + d_j)``, slope group by slope group, matches the direct (N, K) sum
    to ``_CHEB_TOL`` per item on random slopes (uniform, long-tailed log-normal, either sign), intercepts and
    grids; the flatter groups take fewer Chebyshev points than the steepest."""
    rng = np.random.default_rng(seed)
    n_items = int(rng.integers(300, 4000))
    if seed % 2:
        a = rng.lognormal(0.0, 0.5, n_items) * rng.choice([-1.0, 1.0], n_items, p=[0.1, 0.9])
    else:
        a = rng.uniform(0.2, 3.0, n_items)
    d = rng.normal(0.0, 2.0, n_items)
    lo = -rng.uniform(2.0, 6.0)
    nodes = np.arange(lo, rng.uniform(2.0, 6.0), rng.uniform(0.01, 0.08))
    part = twopl._SlopePartition(a)
    counts = twopl._chebyshev_counts(a, d, nodes, part)
    assert (np.diff(counts) >= 0).all() and counts[0] < counts[-1]
    got = twopl._item_sum(a, d, nodes, part)
    assert np.abs(got - _direct_item_sum(a, d, nodes)).max() < twopl._CHEB_TOL * n_items


def test_chebyshev_coefficients_and_series_match_numpy() -> None:
    """Coefficients from the DCT of values at the Chebyshev points equal numpy's Chebyshev fit through those
    points (an interpolation: as many points as coefficients), and the series equals ``chebval``."""
    lo, hi, n = -3.2, 4.1, 23
    x = twopl._chebyshev_nodes(lo, hi, n)
    values = np.log1p(np.exp(1.7 * x - 0.4)) + 0.1 * x**3
    t = (2 * x - (lo + hi)) / (hi - lo)
    want = np.polynomial.chebyshev.chebfit(t, values, n - 1)
    got = twopl._chebyshev_coefficients(values)
    np.testing.assert_allclose(got, want, rtol=0, atol=1e-11 * np.abs(values).max())
    at = np.linspace(lo, hi, 37)
    cache: dict[bytes, np.ndarray] = {}
    for _ in range(2):  # the second call reads the kept basis
        series = twopl._chebyshev_series(got, lo, hi, at, cache)
        np.testing.assert_allclose(
            series, np.polynomial.chebyshev.chebval((2 * at - (lo + hi)) / (hi - lo), want), atol=1e-11
        )
    assert len(cache) == 1


def test_gauss_rules_are_leading_blocks_of_one_jacobi_matrix() -> None:
    """One Lanczos run on a 200-point Gauss-Hermite measure gives every smaller Gauss rule of the standard
    normal (numpy's ``hermegauss``, an independent computation) as a leading block of its Jacobi matrix."""
    x200, w200 = np.polynomial.hermite_e.hermegauss(200)
    jacobi = twopl._jacobi_matrix(x200, w200 / w200.sum() * 2.0, 40)
    assert jacobi[0].size == 40 and jacobi[1].size == 39
    for n_points in (3, 16, 25, 40):
        points, weights = twopl._rule_of_jacobi(*jacobi, n_points)
        x, w = np.polynomial.hermite_e.hermegauss(n_points)
        np.testing.assert_allclose(points, x, atol=1e-9)
        np.testing.assert_allclose(weights, 2.0 * w / w.sum(), rtol=1e-8, atol=1e-13)


def test_objective_is_the_log_marginal_posterior() -> None:
    """The E-step leaves the term ``(X d)_m`` out of the posteriors and adds its sum to the objective: the
    objective still equals the log marginal likelihood by numerical integration (missing cells included)
    plus the log item priors at floating centres."""
    from benchsift.irt.twopl import _Responses

    rng = np.random.default_rng(3)
    X = (rng.random((12, 7)) < 0.6).astype(float)
    X[rng.random(X.shape) < 0.2] = np.nan
    a, d = rng.uniform(0.5, 2.0, 7), rng.normal(0, 1, 7)
    model = TwoPL(n_quadrature=81)
    _, _, objective, _ = model._em_step(_Responses(X), a, d, gauss_hermite_grid(81))
    log_lik = 0.0
    for row in X:
        obs = ~np.isnan(row)

        def lik(t: float, row: np.ndarray = row, obs: np.ndarray = obs) -> float:
            p = expit(a[obs] * t + d[obs])
            return float(np.prod(np.where(row[obs] == 1, p, 1 - p)) * np.exp(-t * t / 2) / np.sqrt(2 * np.pi))

        log_lik += np.log(integrate.quad(lik, -12, 12, epsabs=0, epsrel=1e-12)[0])
    log_a = np.log(a)
    prior = -((log_a - log_a.mean()) ** 2).sum() / (2 * 0.5**2) - ((d - d.mean()) ** 2).sum() / (2 * 3.0**2)
    assert objective == pytest.approx(log_lik + prior, rel=1e-9)


def _random_panel(seed: int) -> tuple[np.ndarray, dict[str, object]]:
    rng = np.random.default_rng(100 + seed)
    n_resp, n_items = int(rng.integers(30, 160)), int(rng.integers(300, 1500))
    theta = rng.normal(size=n_resp)
    a = rng.lognormal(0.2, 0.4, n_items)
    d = rng.normal(0.0, 1.5, n_items)
    p = expit(np.outer(theta, a) + d)
    X = rng.random(p.shape) < p if seed % 3 else np.round(p * 4) / 4  # 0/1, or fractional scores
    X = X.astype(float)
    if seed % 2:
        X[rng.random(X.shape) < 0.15] = np.nan
    params: dict[str, object] = {"a_prior": "normal"} if seed == 4 else {}
    return X, params


@pytest.mark.parametrize("seed", range(6))
def test_fit_equals_the_plain_em_on_random_panels(seed: int, monkeypatch) -> None:
    """On random panels (30-160 respondents x 300-1,500 items, 0/1 or fractional scores, complete or 15 %
    missing, log-normal or normal slope prior) the fit equals the plain Bock-Aitkin EM on the full grid: the
    Chebyshev and Gauss-rule tolerances set to zero, so every slope group's softplus and expit are summed
    directly over every node."""
    X, params = _random_panel(seed)
    fast = TwoPL(**params).fit(X)  # type: ignore[arg-type]
    monkeypatch.setattr(twopl, "_CHEB_TOL", 0.0)
    monkeypatch.setattr(twopl, "_GAUSS_TOL", 1e-300)
    exact = TwoPL(**params).fit(X)  # type: ignore[arg-type]
    assert fast.n_iter_ == exact.n_iter_
    np.testing.assert_allclose(fast.discrimination_, exact.discrimination_, rtol=0, atol=1e-8)
    np.testing.assert_allclose(fast.intercept_, exact.intercept_, rtol=0, atol=1e-8)
    np.testing.assert_allclose(fast.theta_, exact.theta_, rtol=0, atol=1e-8)
    np.testing.assert_allclose(fast.objective_, exact.objective_, rtol=1e-11)
