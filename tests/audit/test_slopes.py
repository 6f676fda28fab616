"""The 2PL-slope variant of discrimination: the Wald information against a direct integral, interval coverage
and flags against known slopes, and the mislabelled items of the planted panels found by ``audit``."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import integrate, stats
from scipy.special import expit

from benchsift.audit import audit, twopl_slopes
from benchsift.audit.slopes import PRIOR_A_SD
from benchsift.errors import InputError
from benchsift.irt import TwoPL
from benchsift.report.tables.audit import render_audit

from .conftest import planted


def _panel(seed: int, m: int = 300, n: int = 200) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``m`` models with N(0, 1) abilities; slopes: 10 zero, 10 at -1 (wrong keys), the rest log-normal."""
    rng = np.random.default_rng(seed)
    theta = rng.standard_normal(m)
    a = 1.2 * np.exp(0.3 * rng.standard_normal(n))
    a[:10], a[10:20] = 0.0, -1.0
    d = rng.normal(0.0, 1.2, n)
    X = (rng.random((m, n)) < expit(np.outer(theta, a) + d)).astype(float)
    return X, a, theta


def test_standard_error_matches_the_information_integrated_directly() -> None:
    X, _, _ = _panel(0, m=120, n=60)
    res = twopl_slopes(X)
    fit = TwoPL(a_prior="normal", prior_a_sd=PRIOR_A_SD, tol=1e-3).fit(X)
    assert np.allclose(res.slope, fit.discrimination_, atol=1e-12)
    for j in (0, 15, 33):
        a, d = fit.discrimination_[j], fit.intercept_[j]
        info = np.zeros((2, 2))
        for t, s in zip(fit.theta_, fit.theta_se_, strict=True):
            for r, c in ((0, 0), (0, 1), (1, 1)):

                def f(
                    u: float, r: int = r, c: int = c, t: float = t, s: float = s, a: float = a, d: float = d
                ) -> float:
                    p = expit(a * u + d)
                    z = (u, 1.0)
                    return float(p * (1 - p) * z[r] * z[c] * stats.norm.pdf(u, t, s))

                info[r, c] += integrate.quad(f, t - 10 * s, t + 10 * s)[0]
        info[1, 0] = info[0, 1]
        info += np.diag([1 / PRIOR_A_SD**2, 1 / fit.prior_d_sd**2])
        se = np.sqrt(np.linalg.inv(info)[0, 0])
        assert res.se[j] == pytest.approx(se, rel=1e-3)
        assert res.p_negative[j] == pytest.approx(stats.norm.cdf(a / se), rel=1e-3, abs=1e-12)
        assert res.high[j] - res.slope[j] == pytest.approx(stats.norm.ppf(0.975) * se, rel=1e-3)


def test_intervals_cover_the_true_slopes_and_flags_find_the_wrong_keys() -> None:
    cover = []
    for seed in range(3):
        X, a, theta = _panel(seed)
        res = twopl_slopes(X)
        # the fit puts the sample's abilities on N(0, 1): the true slope on that scale is a * sd(theta)
        truth = a * theta.std()
        cover.append(((res.low <= truth) & (truth <= res.high)).mean())
        negative = res.p_negative < 0.05 / 200  # Bonferroni: every wrong key, no other item
        assert negative[10:20].all() and not negative[:10].any() and not negative[20:].any()
        assert (res.slope[20:] > 0).all()
        # near zero: the interval of most zero-slope items lies below 0.5, of no good item
        assert (res.high[:10] < 0.5).sum() >= 7 and not (res.high[20:] < 0.5).any()
    assert np.mean(cover) >= 0.9


def test_undefined_items_are_nan() -> None:
    X, _, _ = _panel(1, m=60, n=40)
    X[:, 5] = 1.0
    X[2:, 6] = np.nan
    res = twopl_slopes(X)
    assert np.isnan(res.slope[[5, 6]]).all() and np.isnan(res.p_negative[[5, 6]]).all()
    assert res.n_models[6] == 2 and np.isfinite(res.slope[7])


def test_audit_2pl_finds_the_planted_wrong_keys() -> None:
    """discrimination="2pl" on the audit test bed: precision >= 0.9 at recall >= 0.8 over three seeds, and
    the columns hold the slope and its interval."""
    prec, rec = [], []
    for seed in range(3):
        sim = planted(seed)
        res = audit(sim.panel, discrimination="2pl", dif_by="none")
        assert res.parameters["discrimination"] == "2pl"
        flagged = res.items["flags"].map(lambda f: "negative-discrimination" in f).to_numpy()
        truth = sim.truth.mislabelled
        prec.append((flagged & truth).sum() / max(flagged.sum(), 1))
        rec.append((flagged & truth).sum() / truth.sum())
        items = res.items
        ok = items["discrimination"].notna()
        assert (items.loc[ok, "discrimination_low"] < items.loc[ok, "discrimination"]).all()
        # a slope, not a correlation: good items reach well above 1
        assert items.loc[ok & ~truth, "discrimination"].median() > 1.0
        low = items["flags"].map(lambda f: "low-discrimination" in f).to_numpy()
        assert (items.loc[low, "discrimination_high"] < 0.3).all()
    # measured: precision 1.0, 1.0, 1.0, recall 0.875, 0.906, 0.938
    assert np.mean(prec) >= 0.9 and np.mean(rec) >= 0.8
    headers = [str(c.header) for c in render_audit(res)[-1].columns]
    assert "a (2PL slope)" in headers and "95% CI" in headers


def test_audit_refuses_an_unknown_discrimination() -> None:
    sim = planted(0, n_benchmarks=1, items_per_benchmark=60, n_categories=1)
    with pytest.raises(InputError, match="discrimination"):
        audit(sim.panel, discrimination="slope")
    with pytest.raises(InputError, match="min_slope"):
        audit(sim.panel, discrimination="2pl", min_slope=float("nan"))
