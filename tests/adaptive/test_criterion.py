"""The item-choice criterion of adaptive testing (benchsift.adaptive.select, ItemBank.posterior_information):
the posterior-weighted information against numerical integration (scipy quad), the choice it makes where
it differs from the information at the EAP (by hand), and the option through the CLI."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from scipy import integrate
from scipy.special import expit
from scipy.stats import norm
from typer.testing import CliRunner

from benchsift.adaptive import next_items
from benchsift.adaptive.bank import ItemBank
from benchsift.cli.main import app
from benchsift.errors import InputError
from benchsift.irt import GradedResponse, TwoPL


def _bank(a: np.ndarray, d: np.ndarray) -> ItemBank:
    items = pd.DataFrame({"benchmark": "B", "item": [f"q{i}" for i in range(a.size)], "category": None})
    models = [f"r{k}" for k in range(5)]
    ref = np.linspace(-1.0, 1.0, 5)
    return ItemBank("2pl", TwoPL.from_parameters(a, d), items, models, ref, np.zeros(5), "normal")


def _quad_info(info_at, mean: float, sd: float) -> float:  # type: ignore[no-untyped-def]
    """Fisher information averaged over N(mean, sd^2), by adaptive quadrature."""
    return integrate.quad(lambda t: info_at(t) * norm.pdf(t, mean, sd), mean - 12 * sd, mean + 12 * sd,
                          limit=400, epsabs=1e-12)[0]  # fmt: skip


def test_posterior_information_is_the_information_averaged_over_the_normal_posterior() -> None:
    a = np.array([0.6, 1.3, 2.5, 4.0, 6.0])
    d = np.array([0.2, -0.5, 1.5, -2.0, 3.0])
    bank = _bank(a, d)
    theta = np.array([-0.5, 0.3, 1.2, 0.0])
    sd = np.array([0.2, 0.7, 1.1, 2.0])
    got = bank.posterior_information(theta, sd)
    assert got.shape == (4, 5)
    for j in range(4):
        for i in range(5):

            def info(t: float, i: int = i) -> float:
                p = expit(a[i] * t + d[i])
                return float(a[i] ** 2 * p * (1 - p))

            want = _quad_info(info, theta[j], sd[j])
            assert got[j, i] == pytest.approx(want, rel=1e-3)
    # a sharp posterior: the information at the point; a NaN sd counts as sharp
    np.testing.assert_allclose(bank.posterior_information(theta, np.zeros(4)), bank.information(theta))
    np.testing.assert_allclose(bank.posterior_information(theta, np.full(4, np.nan)), bank.information(theta))


def test_posterior_information_of_a_graded_bank() -> None:
    grm = GradedResponse.from_dict(
        {
            "discrimination": [1.7],
            "thresholds": [[-0.4, 0.9]],
            "levels": [[0.0, 0.5, 1.0]],
            "max_categories": 5,
        }
    )
    items = pd.DataFrame({"benchmark": "B", "item": ["0"], "category": None})
    bank = ItemBank("graded", grm, items, ["r0", "r1"], np.array([0.0, 1.0]), np.zeros(2))
    want = _quad_info(lambda t: float(grm.item_information(np.array([t]))[0, 0]), 0.4, 0.8)
    assert bank.posterior_information(np.array([0.4]), np.array([0.8]))[0, 0] == pytest.approx(want, rel=1e-3)


def test_the_criterion_decides_between_a_steep_far_item_and_a_flat_near_one() -> None:
    """A fresh model under N(0, 1): EAP 0, posterior sd 1. At theta = 0 the flat item centred there is the
    more informative (1.2^2 / 4 = 0.36 against 16 sigma(-4) (1 - sigma(-4)) = 0.28); averaged over the
    posterior the steep item at b = 1 is: its information integrates to a over the abilities, so its average
    is about a phi(b) = 4 x 0.242 = 0.97 (0.96 by quadrature), against 0.28 for the flat one (1.44 times the
    average of p (1 - p) over N(0, 1), 0.194)."""
    bank = _bank(np.array([4.0, 1.2]), np.array([-4.0, 0.0]))  # b = 1 and b = 0
    X = np.full((1, 2), np.nan)
    est = bank.score(X)
    assert est.theta[0] == pytest.approx(0.0, abs=1e-9) and est.se[0] == pytest.approx(1.0, abs=1e-3)
    point = bank.information(est.theta)[0]
    post = bank.posterior_information(est.theta, est.se)[0]
    assert point[1] > point[0] and post[0] > post[1]  # the hand numbers of the docstring
    assert point[1] == pytest.approx(0.36) and point[0] == pytest.approx(16 * expit(-4) * expit(4))
    assert post[0] == pytest.approx(4 * norm.pdf(1.0), abs=0.02) and post[1] == pytest.approx(0.28, abs=0.01)
    kw = {"batch": 1, "exposure": 1.0}
    assert next_items(bank, X, ["new"], **kw).items == [[0]]  # the default: posterior
    assert next_items(bank, X, ["new"], criterion="point", **kw).items == [[1]]
    with pytest.raises(InputError, match="criterion"):
        next_items(bank, X, ["new"], criterion="kl", **kw)


def test_cli_next_criterion(tmp_path: Path) -> None:
    runner = CliRunner()
    bank = _bank(np.array([4.0, 1.2]), np.array([-4.0, 0.0]))
    path = tmp_path / "bank.json"
    bank.save(path)
    got = {}
    for crit in ("posterior", "point"):
        res = runner.invoke(
            app,
            ["adaptive", "next", str(path), "--start", "new", "--batch", "1", "--exposure", "1"]
            + ["--criterion", crit, "--json"],
        )
        assert res.exit_code == 0, res.output
        (row,) = json.loads(res.stdout)["models"]
        got[crit] = [k["item"] for k in row["next"]]
    assert got == {"posterior": ["q0"], "point": ["q1"]}
    bad = runner.invoke(app, ["adaptive", "next", str(path), "--start", "new", "--criterion", "kl"])
    assert bad.exit_code == 2 and "criterion" in bad.output
