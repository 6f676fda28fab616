"""A new model's ability prior from its other benchmarks (benchsift.adaptive.prior, ItemBank.score's
per-model prior): the regression against scikit-learn's OLS, the EAP against numerical integration
(scipy quad), and the gain on a simulated panel with known abilities."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
from scipy import integrate
from scipy.special import expit
from scipy.stats import norm
from sklearn.linear_model import LinearRegression

from benchsift.adaptive import fit_bank, next_items, replay_adaptive
from benchsift.adaptive.bank import ItemBank
from benchsift.adaptive.prior import benchmark_covariates, fit_covariate_prior
from benchsift.errors import DegenerateError, InputError
from benchsift.irt import GradedResponse, TwoPL
from benchsift.panel import Panel
from benchsift.results import REPR_LINES


def _bank(ref_theta: np.ndarray, prior: str = "normal") -> ItemBank:
    a = np.array([1.5, 0.8, 2.0, 1.1])
    d = np.array([0.5, -0.3, 1.0, -1.2])
    items = pd.DataFrame({"benchmark": "B", "item": [str(i) for i in range(4)], "category": None})
    models = [f"r{k}" for k in range(len(ref_theta))]
    return ItemBank(
        "2pl", TwoPL.from_parameters(a, d), items, models, ref_theta, np.zeros(len(models)), prior
    )


def test_covariate_prior_is_the_ols_fit_and_its_residual_sd() -> None:
    rng = np.random.default_rng(3)
    theta = rng.standard_normal(30)
    z1 = 0.6 * theta + 0.3 * rng.standard_normal(30)
    z2 = rng.standard_normal(30)
    bank = _bank(theta)
    cov = pd.DataFrame({"X": z1, "Y": z2}, index=bank.reference_models)
    cov.loc["r4", "Y"] = np.nan  # a reference model without a covariate is left out
    cov.loc["stranger"] = [0.0, 0.0]  # a model that is not in the bank is ignored
    cp = fit_covariate_prior(bank, cov)
    keep = np.arange(30) != 4
    Z = np.column_stack([z1, z2])[keep]
    ols = LinearRegression().fit(Z, theta[keep])
    params = np.array([ols.intercept_, *ols.coef_])
    resid = theta[keep] - ols.predict(Z)
    scale = float(resid @ resid / (29 - 3))  # residual variance, n - p - 1 degrees of freedom
    np.testing.assert_allclose(cp.coef, params, rtol=1e-10)
    assert cp.sd == pytest.approx(np.sqrt(scale), rel=1e-10)
    assert cp.r2 == pytest.approx(ols.score(Z, theta[keep]), rel=1e-10)
    assert cp.n_models == 29 and cp.features == ["X", "Y"]
    assert "1 reference model(s) lack a covariate" in cp.warnings[0]
    new = pd.DataFrame({"Y": [1.0, np.nan, 6.0], "X": [0.5, 0.2, 5.0]}, index=["n1", "n2", "far"])
    mean, sd = cp.predict(new, ["n2", "n1", "absent", "far"])
    assert mean[1] == pytest.approx(params @ [1.0, 0.5, 1.0])
    assert np.isnan(mean[2]) and np.isnan(sd[2])  # no covariate: the bank's own prior

    def prediction_sd(Z: np.ndarray, resid_var: float, x: np.ndarray) -> float:
        """sd of a new observation's prediction error, sqrt(s^2 (1 + h)), h = ||R^-T (1, x)||^2 from the QR
        factor of the design (an independent route to x (A^T A)^-1 x)."""
        _, R = np.linalg.qr(np.column_stack([np.ones(len(Z)), Z]))
        u = np.linalg.solve(R.T, np.concatenate([[1.0], x]))
        return float(np.sqrt(resid_var * (1.0 + u @ u)))

    # only X: the regression on X alone, over the 30 reference models that have X (r4 included)
    ols_x = LinearRegression().fit(z1[:, None], theta)
    resid_x = theta - ols_x.predict(z1[:, None])
    assert mean[0] == pytest.approx(ols_x.intercept_ + ols_x.coef_[0] * 0.2, rel=1e-10)
    var_x = float(resid_x @ resid_x / (30 - 2))
    assert sd[0] == pytest.approx(prediction_sd(z1[:, None], var_x, np.array([0.2])), rel=1e-10)
    assert sd[1] == pytest.approx(prediction_sd(Z, scale, np.array([0.5, 1.0])), rel=1e-10)
    # the prediction's sd: above the residual sd, and more so for a model far outside the reference models
    assert np.sqrt(scale) < sd[1] < 1.1 * np.sqrt(scale)
    assert sd[3] == pytest.approx(prediction_sd(Z, scale, np.array([5.0, 6.0])), rel=1e-10)
    assert sd[3] > 1.5 * sd[1]
    wide = fit_covariate_prior(bank, cov, width=2.0)
    assert wide.sd == pytest.approx(2 * np.sqrt(scale))
    np.testing.assert_allclose(wide.predict(new, ["n2", "n1", "far"])[1], 2 * sd[[0, 1, 3]], rtol=1e-12)
    # the result protocol: JSON as it is, a frame of the coefficients, a short repr
    doc = cp.to_dict()
    assert json.loads(json.dumps(doc))["coef"] == pytest.approx(list(params))
    assert list(cp.to_frame().index) == ["intercept", "X", "Y"]
    assert repr(cp).startswith("CovariatePrior(") and len(repr(cp).splitlines()) <= REPR_LINES
    assert cp._repr_html_().startswith("<pre>")


def test_score_under_a_per_model_prior_is_the_numerical_posterior_mean() -> None:
    bank = _bank(np.array([-1.0, 0.0, 0.4, 1.0, 2.0]), prior="empirical")
    a, d = bank.model.discrimination_, bank.model.intercept_
    X = np.array([[1.0, 0.0, 1.0, np.nan], [np.nan] * 4, [0.0, 0.0, np.nan, 0.0], [1.0, 1.0, 1.0, 1.0]])
    mu = np.array([0.7, -1.5, np.nan, 2.5])
    sd = np.array([0.4, 0.3, 0.5, 0.6])
    est = bank.score(X, mu, sd)
    plain = bank.score(X)
    for j in (0, 1, 3):
        seen = ~np.isnan(X[j])

        def post(t: float, k: int, j: int = j, seen: np.ndarray = seen) -> float:
            p = expit(a[seen] * t + d[seen])
            y = X[j, seen]
            return float(t**k * norm.pdf(t, mu[j], sd[j]) * np.prod(p**y * (1 - p) ** (1 - y)))

        z = integrate.quad(post, -15, 15, args=(0,), limit=200)[0]
        m1 = integrate.quad(post, -15, 15, args=(1,), limit=200)[0] / z
        m2 = integrate.quad(post, -15, 15, args=(2,), limit=200)[0] / z
        assert est.theta[j] == pytest.approx(m1, abs=1e-4)
        assert est.se[j] == pytest.approx(np.sqrt(m2 - m1**2), abs=1e-4)
    assert est.theta[1] == pytest.approx(-1.5, abs=1e-4)  # no response: the prior's mean
    # a NaN prior mean keeps the bank's prior (the same grid: the same numbers)
    assert est.theta[2] == pytest.approx(plain.theta[2], abs=1e-12)
    assert est.se[2] == pytest.approx(plain.se[2], abs=1e-12)
    # no finite prior mean at all: exactly the bank's prior
    np.testing.assert_array_equal(bank.score(X, np.full(4, np.nan), 1.0).theta, plain.theta)


def test_per_model_prior_refusals() -> None:
    bank = _bank(np.array([-1.0, 0.0, 1.0]))
    X = np.full((2, 4), np.nan)
    with pytest.raises(InputError, match="prior_mean: expected 2 values"):
        bank.score(X, np.zeros(3), 1.0)
    with pytest.raises(InputError, match="prior_sd: expected a value with prior_mean, got None"):
        bank.score(X, np.zeros(2))
    with pytest.raises(InputError, match="prior_sd: expected positive"):
        bank.score(X, np.zeros(2), np.array([1.0, 0.0]))
    grm = GradedResponse.from_dict(
        {"discrimination": [1.0], "thresholds": [[0.0]], "levels": [[0.0, 1.0]], "max_categories": 5}
    )
    items = pd.DataFrame({"benchmark": "B", "item": ["0"], "category": None})
    graded = ItemBank("graded", grm, items, ["r0", "r1"], np.array([0.0, 1.0]), np.zeros(2))
    with pytest.raises(InputError, match="needs a 2PL bank"):
        graded.score(np.full((1, 1), np.nan), np.zeros(1), 1.0)
    with pytest.raises(InputError, match="no columns"):
        fit_covariate_prior(bank, pd.DataFrame(index=bank.reference_models))
    few = pd.DataFrame({"X": [0.1, 0.2, 0.3]}, index=bank.reference_models)
    with pytest.raises(DegenerateError, match="at least 4 needed"):
        fit_covariate_prior(bank, few)
    with pytest.raises(InputError, match=r"missing column\(s\) \['X'\]"):
        fit_covariate_prior(
            _bank(np.linspace(-1, 1, 6)),
            pd.DataFrame({"X": np.arange(6.0)}, index=[f"r{k}" for k in range(6)]),
        ).predict(pd.DataFrame({"Z": [1.0]}, index=["n"]), ["n"])


def test_other_benchmarks_prior_cuts_the_error_at_few_items() -> None:
    """Known truth: a model's ability on the tested benchmark B correlates 0.9 with its ability on another
    benchmark O (run in full). After 8 adaptive items on B each, the held-out models' full-score estimate
    and rank are better with the prior regressed on their O score than with the bank's population prior."""
    rng = np.random.default_rng(11)
    n_models, n_items = 200, 400
    theta = rng.standard_normal(n_models)
    other_theta = 0.9 * theta + np.sqrt(1 - 0.81) * rng.standard_normal(n_models)
    a = rng.uniform(0.5, 2.0, n_items)
    b = rng.normal(0.0, 1.2, n_items)
    x = (rng.random((n_models, n_items)) < expit(a * (theta[:, None] - b))).astype(float)
    xo = (rng.random((n_models, n_items)) < expit(a * (other_theta[:, None] - b))).astype(float)
    ids = [f"m{j}" for j in range(n_models)]
    both = Panel(
        np.hstack([x, xo]),
        ids,
        pd.DataFrame({"benchmark": ["B"] * n_items + ["O"] * n_items, "item": [str(i) for i in range(800)]}),
    )
    cov = benchmark_covariates(both, ["O"])
    assert list(cov.columns) == ["O"]
    np.testing.assert_allclose(cov["O"].to_numpy(), xo.mean(axis=1))
    panel = Panel(x, ids, pd.DataFrame({"benchmark": "B", "item": [str(i) for i in range(n_items)]}))
    build, held = panel.subset(models=np.arange(120)), panel.subset(models=np.arange(120, 200))
    bank = fit_bank(build, residual_factors=0)
    cp = fit_covariate_prior(bank, cov)
    assert cp.r2 > 0.6
    mu, sd = cp.predict(cov, held.model_ids)
    truth = held.scores.mean(axis=1)
    plain, _ = replay_adaptive(bank, held.scores, held.model_ids, 8, random_state=0)
    prior, given = replay_adaptive(
        bank, held.scores, held.model_ids, 8, prior_mean=mu, prior_sd=sd, random_state=0
    )
    assert (given.sum(axis=1) == 8).all()
    mae_plain = float(np.mean(np.abs(plain[:, -1] - truth)))
    mae_prior = float(np.mean(np.abs(prior[:, -1] - truth)))
    assert mae_prior < 0.85 * mae_plain
    rho_plain = float(pd.Series(plain[:, -1]).corr(pd.Series(truth), method="spearman"))
    rho_prior = float(pd.Series(prior[:, -1]).corr(pd.Series(truth), method="spearman"))
    assert rho_prior > rho_plain + 0.01
    # by default the prior moves the ability and the estimate, not the items: both models get the item most
    # informative under the bank's own prior (no responses yet); with prior_in_choice (and the point rule)
    # the most informative at each prior mean
    fresh = np.full((2, n_items), np.nan)
    kw = {"batch": 1, "exposure": 1.0, "prior_mean": np.array([-2.0, 2.0]), "prior_sd": 0.3}
    first = next_items(bank, fresh, ["lo", "hi"], **kw)  # type: ignore[arg-type]
    assert first.theta[0] == pytest.approx(-2.0, abs=1e-3) and first.theta[1] == pytest.approx(2.0, abs=1e-3)
    own = bank.score(fresh[:1])
    same = int(np.argmax(bank.posterior_information(own.theta, own.se)[0]))
    assert first.items == [[same], [same]]
    steered = next_items(bank, fresh, ["lo", "hi"], prior_in_choice=True, criterion="point", **kw)  # type: ignore[arg-type]
    info = bank.information(np.array([-2.0, 2.0]))
    assert steered.items == [[int(np.argmax(info[0]))], [int(np.argmax(info[1]))]]
    assert steered.items[0] != steered.items[1]
