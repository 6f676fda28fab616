"""Differential item functioning: BH cross-checked against scipy, the planted contaminated items found at a
controlled false discovery rate, and the metadata it needs refused or skipped with the reason."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy import stats
from warned import calling

from benchsift.audit import audit, logistic_dif
from benchsift.audit.dif import irt_ability, matching_ability, modified_signed_root
from benchsift.errors import DegenerateError
from benchsift.irt import TwoPL
from benchsift.stats import bh_adjust

from .conftest import planted


def test_bh_matches_scipy() -> None:
    rng = np.random.default_rng(4)
    p = np.concatenate([rng.random(200), rng.random(20) * 1e-4])
    assert np.allclose(bh_adjust(p), stats.false_discovery_control(p, method="bh"), rtol=0, atol=1e-15)


def _direct_fit(x: np.ndarray, Z: np.ndarray) -> tuple[float, float, np.ndarray]:
    """Ridge-penalised logistic regression by scipy's BFGS: (log-lik., penalised log-lik., beta)."""
    from scipy.optimize import minimize

    pen = np.r_[0.0, np.full(Z.shape[1] - 1, 1e-2)]

    def f(b: np.ndarray) -> float:
        eta = Z @ b
        return float(-(x * eta - np.logaddexp(0, eta)).sum() + 0.5 * (pen * b * b).sum())

    b = minimize(f, np.zeros(Z.shape[1]), method="BFGS", options={"gtol": 1e-10}).x
    eta = Z @ b
    ll = float((x * eta - np.logaddexp(0, eta)).sum())
    return ll, ll - 0.5 * float((pen * b * b).sum()), b


def _item() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    rng = np.random.default_rng(1)
    m = 200
    theta = rng.standard_normal(m)
    g = (rng.random(m) < 0.5).astype(float)
    logit = 0.3 + 1.2 * theta + 0.9 * g
    x = (rng.random(m) < 1 / (1 + np.exp(-logit))).astype(float)
    return x, theta, g


def test_plain_root_matches_a_direct_likelihood_ratio() -> None:
    x, theta, g = _item()
    m = x.size
    res = logistic_dif(x[:, None], theta[:, None], g, test="lr")
    l0, _, _ = _direct_fit(x, np.c_[np.ones(m), theta])
    l1, _, b1 = _direct_fit(x, np.c_[np.ones(m), theta, g])
    assert res.coef[0] == pytest.approx(b1[2], abs=1e-4)
    assert res.g2[0] == pytest.approx(2 * (l1 - l0), abs=1e-4)
    assert res.p_greater[0] == pytest.approx(stats.norm.sf(np.sqrt(2 * (l1 - l0))), rel=1e-3)


def test_modified_root_matches_the_formula_by_hand() -> None:
    """r* = r + log(q / r) / r, q = b2 sqrt(|j(full fit)| / |j_nuisance(null fit)|) (Pierce & Peters 1992),
    from scipy fits and informations written out here."""
    x, theta, g = _item()
    m = x.size
    Z0, Z1 = np.c_[np.ones(m), theta], np.c_[np.ones(m), theta, g]
    _, lp0, b0 = _direct_fit(x, Z0)
    _, lp1, b1 = _direct_fit(x, Z1)

    def info(Z: np.ndarray, b: np.ndarray) -> np.ndarray:
        mu = 1 / (1 + np.exp(-(Z @ b)))
        return (Z * (mu * (1 - mu))[:, None]).T @ Z + np.diag(np.r_[0.0, np.full(Z.shape[1] - 1, 1e-2)])

    r = np.sqrt(2 * (lp1 - lp0)) * np.sign(b1[2])
    q = b1[2] * np.sqrt(np.linalg.det(info(Z1, b1)) / np.linalg.det(info(Z0, b0)))
    rstar = r + np.log(q / r) / r
    res = logistic_dif(x[:, None], theta[:, None], g)
    assert res.g2[0] == pytest.approx(r * r, abs=1e-4)
    assert res.p_greater[0] == pytest.approx(stats.norm.sf(rstar), rel=1e-3)
    assert modified_signed_root(np.array([r]), np.array([q]))[0] == pytest.approx(rstar, rel=1e-9)
    # the correction is third-order small here (200 models): close to the plain root, not equal
    assert 0 < abs(rstar - r) < 0.2


def test_modified_root_falls_back_to_r_where_it_is_undefined() -> None:
    r = np.array([0.01, -0.02, 1.0, 2.0])
    q = np.array([0.011, -0.021, -1.0, 2.2])
    out = modified_signed_root(r, q)
    assert out[0] == 0.01 and out[1] == -0.02 and out[2] == 1.0  # |r| < 0.05, or q and r of opposite sign
    assert out[3] == pytest.approx(2.0 + np.log(1.1) / 2.0)


def test_irt_ability_leaves_the_item_out() -> None:
    """The one-step leave-item-out ability against the EAP re-scored without the item."""
    rng = np.random.default_rng(3)
    m, n = 120, 60
    theta = rng.standard_normal(m)
    a, b = np.exp(0.3 * rng.standard_normal(n)), rng.standard_normal(n)
    X = (rng.random((m, n)) < 1 / (1 + np.exp(-a * (theta[:, None] - b)))).astype(float)
    X[rng.random((m, n)) < 0.05] = np.nan
    fit = TwoPL(tol=1e-3).fit(X)
    T = irt_ability(X, model=fit)
    full = fit.score(X).theta
    for i in (0, 17, 42):
        others = np.delete(np.arange(n), i)
        exact = fit.score(X[:, others], items=others).theta
        obs = ~np.isnan(X[:, i])
        assert np.isnan(T[~obs, i]).all()
        # one Newton step recovers the re-scored ability to a small fraction of the item's own effect
        moved = np.abs(full[obs] - exact[obs])
        assert np.abs(T[obs, i] - exact[obs]).max() < 0.1 * moved.max()
        assert moved.max() > 0.01
    # items outside the criterion do not move the matching ability, and it is the EAP on the criterion
    crit = np.ones(n, dtype=bool)
    crit[:10] = False
    T2 = irt_ability(X, crit, fit)
    on_crit = fit.score(X[:, crit], items=np.flatnonzero(crit)).theta
    obs = ~np.isnan(X[:, 3])
    assert np.allclose(T2[obs, 3], on_crit[obs])
    assert np.corrcoef(np.nanmean(T, axis=1), theta)[0, 1] > 0.9


def test_matching_ability_leaves_the_item_out() -> None:
    X = np.array([[1, 1, 0], [0, 1, 0], [1, 0, 1]], dtype=float)
    theta = matching_ability(X)
    rest = np.array([[1, 1, 2], [1, 0, 1], [1, 2, 1]])  # row sums without the item, over 2 other items
    prop = (rest + 0.5) / (2 + 1)
    raw = np.log(prop / (1 - prop))
    assert np.allclose(theta, (raw - raw.mean()) / raw.std())


def _fdp_recall(sim, res) -> tuple[float, float]:
    flagged = res.items["flags"].map(lambda f: "dif" in f).to_numpy()
    truth = sim.truth.contaminated
    return (flagged & ~truth).sum() / max(flagged.sum(), 1), (flagged & truth).sum() / truth.sum()


def test_planted_contamination_is_flagged_at_a_controlled_fdr(planted_runs) -> None:
    """Mean false discovery proportion over five seeds at most the nominal alpha, at 0.05 and at 0.10; the
    method before (rest-score matching, plain likelihood root) is above it on the same panels."""
    new, old = [], []
    for sim, res in planted_runs:
        assert sim.truth.contaminated.sum() == 48 and res.parameters["dif_by"] == "release_date"
        assert res.parameters["dif_matching"] == "irt" and res.parameters["dif_test"] == "rstar"
        new.append(_fdp_recall(sim, res))
        old.append(_fdp_recall(sim, audit(sim.panel, dif_matching="rest-score", dif_test="lr")))
    # measured on seeds 0-4: FDP 0.087, 0, 0, 0.05, 0 (mean 0.027), recall 0.46; before: mean 0.060
    assert np.mean([f for f, _ in new]) <= 0.05 < np.mean([f for f, _ in old])
    assert np.mean([r for _, r in new]) >= 0.4
    new10, old10 = [], []
    for sim, _ in planted_runs:
        new10.append(_fdp_recall(sim, audit(sim.panel, alpha=0.1))[0])
        before = audit(sim.panel, alpha=0.1, dif_matching="rest-score", dif_test="lr")
        old10.append(_fdp_recall(sim, before)[0])
    # measured: mean 0.076 (0.133, 0.036, 0, 0.179, 0.034); before: 0.168
    assert np.mean(new10) <= 0.10 < np.mean(old10)


def test_family_contamination() -> None:
    sim = planted(0, contamination_by="family", n_families=3, family_zipf=0.0)
    res = audit(sim.panel, dif_by="family")
    flagged = res.items["flags"].map(lambda f: "dif" in f).to_numpy()
    truth = sim.truth.contaminated
    family = sim.panel.models.set_index("model").loc[sim.truth.contaminated_models[0], "family"]
    assert (flagged & truth).sum() / truth.sum() >= 0.4
    assert (flagged & ~truth).sum() / max(flagged.sum(), 1) <= 0.2
    assert set(res.items.loc[flagged & truth, "dif_group"]) == {family}


def test_missing_metadata_is_skipped_with_a_warning_or_refused() -> None:
    sim = planted(0, n_benchmarks=1, items_per_benchmark=100, n_categories=1)
    models = sim.panel.models
    models["release_date"] = pd.NaT
    models["family"] = None
    bare = type(sim.panel)(sim.panel.scores, models, sim.panel.items)
    res = calling(audit, bare)
    assert any(w.startswith("DIF skipped") for w in res.warnings)
    assert res.items["dif_p"].isna().all() and res.parameters["dif_by"] == "none"
    with pytest.raises(DegenerateError, match="release_date"):
        audit(bare, dif_by="release_date")
    with pytest.raises(DegenerateError, match="family"):
        audit(bare, dif_by="family")


def test_undated_models_are_left_out_with_a_warning() -> None:
    sim = planted(0, n_benchmarks=1, items_per_benchmark=100, n_categories=1, undated_rate=0.2)
    res = calling(audit, sim.panel)
    assert any("without a release_date left out" in w for w in res.warnings)
    info = res.parameters["dif_groups"]
    assert info["n_newer"] + info["n_older"] == sim.panel.image_panel().models["release_date"].notna().sum()
