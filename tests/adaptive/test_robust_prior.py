"""The robust ability prior of a small bank: N(0, 1) with a wide tail (benchsift.adaptive.bank)."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
from scipy import integrate
from scipy.special import expit
from scipy.stats import norm

from benchsift.adaptive import fit_bank, load_bank
from benchsift.adaptive.bank import ROBUST_SD, ROBUST_WEIGHT, ItemBank
from benchsift.errors import BenchsiftWarning, FormatError, InputError
from benchsift.irt import TwoPL
from benchsift.panel import Panel


def _bank(a: np.ndarray, d: np.ndarray, prior: str, ref: np.ndarray | None = None) -> ItemBank:
    items = pd.DataFrame({"benchmark": "B", "item": [str(i) for i in range(a.size)], "category": None})
    ref = np.linspace(-2.0, 2.0, 30) if ref is None else ref
    models = [f"r{k}" for k in range(ref.size)]
    return ItemBank("2pl", TwoPL.from_parameters(a, d), items, models, ref, np.zeros(ref.size), prior)


def _simulated(n_models: int, n_items: int, seed: int) -> Panel:
    rng = np.random.default_rng(seed)
    theta = rng.standard_normal(n_models)
    a, b = rng.uniform(0.5, 2.5, n_items), rng.normal(0.0, 1.2, n_items)
    x = (rng.random((n_models, n_items)) < expit(a * (theta[:, None] - b))).astype(float)
    items = pd.DataFrame({"benchmark": "B", "item": [str(i) for i in range(n_items)]})
    return Panel(x, [f"m{j}" for j in range(n_models)], items)


def test_robust_prior_eap_is_the_numerical_posterior_mean() -> None:
    """The prior is 0.9 N(0, 1) + 0.1 N(0, 3^2) (scipy's normal densities); the EAP and posterior sd are the
    integrals of the posterior (scipy quad), whatever the reference abilities; with no response, the prior's
    own mean 0 and sd sqrt(0.9 + 0.1 x 9)."""
    assert (ROBUST_WEIGHT, ROBUST_SD) == (0.1, 3.0)
    a = np.array([1.5, 0.8, 2.0, 1.1, 1.7])
    d = np.array([0.5, -0.3, 1.0, -1.2, -3.0])
    bank = _bank(a, d, "robust", ref=np.array([-0.4, 0.1, 0.3, 0.9, 1.2]))

    def density(t: float) -> float:
        return float(0.9 * norm.pdf(t) + 0.1 * norm.pdf(t, scale=3.0))

    X = np.array(
        [
            [1.0, 0.0, 1.0, np.nan, 0.0],
            [np.nan] * 5,
            [1.0, 1.0, 1.0, 1.0, 1.0],  # every item right: the wide tail carries the estimate
            [0.0, 0.0, np.nan, 0.0, 0.0],
        ]
    )
    est = bank.score(X)
    for j in range(X.shape[0]):
        seen = ~np.isnan(X[j])

        def post(t: float, k: int, j: int = j, seen: np.ndarray = seen) -> float:
            p = expit(a[seen] * t + d[seen])
            y = X[j, seen]
            return float(t**k * density(t) * np.prod(p**y * (1 - p) ** (1 - y)))

        z = integrate.quad(post, -25, 25, args=(0,), limit=400)[0]
        m1 = integrate.quad(post, -25, 25, args=(1,), limit=400)[0] / z
        m2 = integrate.quad(post, -25, 25, args=(2,), limit=400)[0] / z
        assert est.theta[j] == pytest.approx(m1, abs=1e-3)
        assert est.se[j] == pytest.approx(np.sqrt(m2 - m1**2), abs=1e-3)
    assert est.theta[1] == pytest.approx(0.0, abs=1e-3)
    assert est.se[1] == pytest.approx(np.sqrt(1.8), abs=1e-3)
    # the all-correct model goes further under the robust prior than under N(0, 1)
    normal = _bank(a, d, "normal", ref=bank.reference_theta)
    assert est.theta[2] > normal.score(X[2:3]).theta[0] + 0.5


def test_robust_prior_halves_the_pull_on_a_model_beyond_the_bank() -> None:
    """Known truth: 20 items of a known 2PL, 4,000 response draws per true ability. For a model 2.5 or 3
    sds above the bank's middle, N(0, 1) pulls the EAP back by 0.58 / 0.89 and the full score by 0.061 /
    0.068; the robust prior by at most 0.1 in the ability and 0.031 in the score, with a lower score RMSE.
    At the middle (ability 0) it costs under 2 % of the score RMSE."""
    rng = np.random.default_rng(3)
    a, b = rng.uniform(0.8, 2.0, 20), rng.normal(0.0, 1.0, 20)
    banks = {p: _bank(a, -a * b, p) for p in ("normal", "robust")}
    for t in (0.0, 2.5, 3.0):
        X = (rng.random((4000, 20)) < expit(a * (t - b))).astype(float)
        truth = float(expit(a * (t - b)).mean())
        bias, rmse = {}, {}
        for prior, bank in banks.items():
            theta = bank.score(X).theta
            score = bank.expected(theta).mean(axis=1)
            bias[prior] = (float(theta.mean() - t), float(score.mean() - truth))
            rmse[prior] = float(np.sqrt(np.mean((score - truth) ** 2)))
        if t == 0.0:
            assert rmse["robust"] < 1.02 * rmse["normal"]
            continue
        assert bias["normal"][0] < -0.5 and bias["normal"][1] < -0.055
        assert abs(bias["robust"][0]) < 0.15 and abs(bias["robust"][1]) < 0.55 * abs(bias["normal"][1])
        assert rmse["robust"] < 0.95 * rmse["normal"]


def test_a_small_bank_gets_the_robust_prior_by_default(tmp_path) -> None:
    """Under 60 reference models the default is the robust prior (the empirical one from 60, N(0, 1) for a
    graded bank); an explicit prior is kept; the bank file keeps it and scores the same; a graded bank file
    that claims it is refused, as is an unknown prior."""
    small = _simulated(40, 30, seed=5)
    bank = fit_bank(small, misfit_folds=0)
    assert bank.prior == "robust"
    assert fit_bank(small, prior="normal", misfit_folds=0).prior == "normal"
    assert fit_bank(_simulated(60, 30, seed=5), misfit_folds=0).prior == "empirical"
    half = Panel(small.scores * 0.5, small.model_ids, small.items)
    graded = fit_bank(half, misfit_folds=0)
    assert graded.kind == "graded" and graded.prior == "normal"
    for asked in ("robust", "empirical"):  # asked for on a graded bank: N(0, 1), and a warning says so
        said = f"graded bank's ability prior is N.0, 1.: the {asked} prior asked for is not used"
        with pytest.warns(BenchsiftWarning, match=said):
            assert fit_bank(half, prior=asked, misfit_folds=0).prior == "normal"
    X = np.where(np.arange(30) < 6, small.scores[:4], np.nan)
    back = load_bank(bank.save(tmp_path / "bank.json"))
    assert back.prior == "robust"
    np.testing.assert_array_equal(back.score(X).theta, bank.score(X).theta)
    # not the N(0, 1) EAP of the 2PL model
    assert not np.allclose(bank.score(X).theta, bank.model.score(X).theta, atol=1e-3)
    doc = graded.to_dict()
    with pytest.raises(FormatError, match="the robust prior needs a 2PL bank"):
        ItemBank.from_dict({**doc, "prior": "robust"})
    with pytest.raises(InputError, match="prior: expected one of empirical, normal, robust"):
        fit_bank(small, prior="flat")


def test_adaptive_bank_prints_and_writes_the_prior(tmp_path) -> None:
    """`adaptive bank` names the ability prior in its table and `--json`; `--prior normal` keeps N(0, 1)."""
    from typer.testing import CliRunner

    from benchsift.cli.main import app

    panel = tmp_path / "panel.parquet"
    _simulated(40, 30, seed=6).save(panel)
    runner = CliRunner()
    out = str(tmp_path / "a.json")
    table = runner.invoke(app, ["adaptive", "bank", str(panel), "-o", out, "--no-interval"])
    assert table.exit_code == 0, table.output
    assert "ability" in table.output and "robust" in table.output
    assert load_bank(tmp_path / "a.json").prior == "robust"
    args = ["adaptive", "bank", str(panel), "-o", str(tmp_path / "b.json"), "--no-interval", "--json"]
    res = runner.invoke(app, [*args, "--prior", "normal"])
    assert res.exit_code == 0, res.output
    assert json.loads(res.output)["prior"] == "normal"
    assert load_bank(tmp_path / "b.json").prior == "normal"
