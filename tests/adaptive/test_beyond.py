"""The EM curves a polished bank keeps (ItemBank.beyond, ItemBank.beyond_weight): the weight by hand, the
curves equal to the EM fit's, their own misfit and edge error equal to those of an EM bank fitted by hand on
the same folds, the estimates of next_items the stated mix of the two banks' own, the interval calibrated on
mixed replays, and the bank file."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from scipy.special import expit
from scipy.stats import norm
from typer.testing import CliRunner

from benchsift.adaptive import fit_bank, load_bank, next_items
from benchsift.adaptive.bank import ItemBank
from benchsift.cli.main import app
from benchsift.errors import FormatError, InputError
from benchsift.irt import TwoPL
from benchsift.panel import Panel


def _world(n_models: int, n_items: int, seed: int) -> np.ndarray:
    """0/1 responses of a 2PL world (a ~ U(0.5, 2), b ~ N(0, 1), theta ~ N(0, 1)), models weakest first."""
    rng = np.random.default_rng(seed)
    a, b = rng.uniform(0.5, 2.0, n_items), rng.normal(0.0, 1.0, n_items)
    th = np.sort(rng.standard_normal(n_models))
    return (rng.random((n_models, n_items)) < expit(a * (th[:, None] - b))).astype(float)


def _panel(x: np.ndarray, prefix: str = "m") -> Panel:
    items = pd.DataFrame({"benchmark": "B", "item": [str(i) for i in range(x.shape[1])]})
    return Panel(x, [f"{prefix}{j}" for j in range(x.shape[0])], items)


def _bank(a: np.ndarray, d: np.ndarray, theta: np.ndarray, beyond: ItemBank | None = None) -> ItemBank:
    items = pd.DataFrame({"benchmark": "B", "item": [str(i) for i in range(a.size)], "category": None})
    models = [f"r{j}" for j in range(theta.size)]
    return ItemBank("2pl", TwoPL.from_parameters(a, d), items, models, theta, np.full(theta.size, 0.5),
                    "normal", beyond=beyond)  # fmt: skip


def test_beyond_weight_is_the_one_sided_score_statistic_at_the_strongest_reference_model() -> None:
    """Three items with a = (1, 2, 0.5), d = (0, -1, 1), reference abilities (-1, 0.5, 1.5): at theta_max
    = 1.5 the curves give p = expit(1.5, 2, 1.75); a model that answered items 0 and 1 (1, 0) has
    z = (1 - p0 + 0 - p1) / sqrt(p0 q0 + p1 q1) and the weight Phi(z); one without answers 0; a bank without
    EM curves 0 for every model."""
    a, d = np.array([1.0, 2.0, 0.5]), np.array([0.0, -1.0, 1.0])
    plain = _bank(a, d, np.array([-1.0, 0.5, 1.5]))
    bank = replace(plain, beyond=plain)  # the weight reads this bank's curves, not the other's
    p = expit(np.array([1.5, 2.0, 1.75]))
    z_first = (1.0 - p[0] + 0.0 - p[1]) / np.sqrt(p[0] * (1 - p[0]) + p[1] * (1 - p[1]))
    z_all = (3.0 - p.sum()) / np.sqrt((p * (1 - p)).sum())
    X = np.array([[1.0, 0.0, np.nan], [np.nan] * 3, [1.0, 1.0, 1.0]])
    w = bank.beyond_weight(X)
    assert w == pytest.approx([norm.cdf(z_first), 0.0, norm.cdf(z_all)], abs=1e-14)
    assert 0.0 < w[0] < 0.5 < w[2] < 1.0
    assert plain.beyond_weight(X).tolist() == [0.0, 0.0, 0.0]


def test_a_polished_bank_keeps_the_em_curves_with_their_own_measures() -> None:
    """fit_bank of 80 models: polished by default, and its ``beyond`` holds the EM fit's curves and
    abilities (those of fit_bank(polish=False)), with the misfit and the edge error of the EM curves on the
    same folds (equal to those of the EM bank fitted by hand); beyond_curve=False leaves it out, and asking
    for it where the bank is not polished is refused."""
    x = _world(80, 150, 3)
    bank = fit_bank(_panel(x), interval_budgets=())
    em = fit_bank(_panel(x), polish=False, interval_budgets=())
    assert bank.beyond is not None and bank.beyond.beyond is None
    assert not np.allclose(bank.model.discrimination_, em.model.discrimination_)  # it was polished
    assert np.array_equal(bank.beyond.model.discrimination_, em.model.discrimination_)
    assert np.array_equal(bank.beyond.model.intercept_, em.model.intercept_)
    assert np.array_equal(bank.beyond.reference_theta, em.reference_theta)
    assert bank.beyond.misfit_var is not None and em.misfit_var is not None
    assert bank.beyond.misfit_var == pytest.approx(em.misfit_var, rel=1e-12)
    assert bank.beyond.edge_error == pytest.approx(em.edge_error, abs=1e-14)
    assert bank.beyond.edge_rms == pytest.approx(em.edge_rms, abs=1e-14)
    assert bank.beyond.edge_error != pytest.approx(bank.edge_error, abs=1e-6)  # another curve, other errors
    assert fit_bank(_panel(x), beyond_curve=False, misfit_folds=0).beyond is None
    with pytest.raises(InputError, match=r"beyond_curve=True needs a polished 2PL bank .* 40 models"):
        fit_bank(_panel(x[:40]), beyond_curve=True, misfit_folds=0)
    with pytest.raises(InputError, match="not polished"):
        fit_bank(_panel(x), polish=False, beyond_curve=True, misfit_folds=0)


def test_next_items_mixes_the_two_banks_estimates_by_the_weight() -> None:
    """The estimates and their standard errors of a bank with EM curves are (1 - w) x those of the polished
    bank alone plus w x those of the EM bank alone, on the same responses and static start; the interval is
    the polished bank's calibration applied to the mixed estimate and standard error; the weights are
    reported; the models stronger than the bank's lean on the EM curves, the weaker ones do not."""
    x = _world(100, 200, 5)
    bank = fit_bank(_panel(x[10:90]), interval_budgets=(0.1,))
    assert bank.beyond is not None
    held = np.vstack([x[:10], x[90:]])  # the ten weakest and the ten strongest
    rng = np.random.default_rng(0)
    R = np.where(rng.random(held.shape) < 0.15, held, np.nan)
    models = [f"h{j}" for j in range(20)]
    start = bank.spread_items(8)
    mixed = next_items(bank, R, models, start_items=start)
    alone = next_items(replace(bank, beyond=None), R, models, start_items=start)
    em = next_items(bank.beyond, R, models, start_items=start)
    w = bank.beyond_weight(R)
    assert mixed.beyond_weight is not None and np.array_equal(mixed.beyond_weight, w)
    assert alone.beyond_weight is None
    want = (1 - w)[:, None] * alone.estimates + w[:, None] * em.estimates
    assert mixed.estimates == pytest.approx(want, abs=1e-12)
    assert mixed.estimate_se is not None and alone.estimate_se is not None and em.estimate_se is not None
    se = (1 - w) * alone.estimate_se + w * em.estimate_se
    assert mixed.estimate_se == pytest.approx(se, abs=1e-12)
    assert mixed.at_edge is not None
    iv, _ = bank.full_score_interval(want[:, -1], se, mixed.at_edge, mixed.n_answered)
    assert mixed.interval == pytest.approx(iv, abs=1e-12)
    assert np.array_equal(mixed.theta, alone.theta) and mixed.items == alone.items  # the same item choice
    assert w[10:].mean() > 0.5 > 0.05 > w[:10].max()
    frame = mixed.to_frame()
    assert frame["beyond_weight"].to_numpy() == pytest.approx(w, abs=0)
    doc = mixed.to_dict()
    assert [r["beyond_weight"] for r in doc["models"]] == pytest.approx(w.tolist(), abs=0)


def test_the_bank_file_keeps_the_em_curves_and_refuses_a_forged_one(tmp_path: Path) -> None:
    """Saved and loaded, the bank gives the same estimates; a file written before the EM curves were kept
    (no "beyond") loads without them; a "beyond" of other items or with one of its own is refused in one
    line naming the file."""
    x = _world(70, 120, 7)
    bank = fit_bank(_panel(x), misfit_folds=0)
    path = bank.save(tmp_path / "bank.json")
    loaded = load_bank(path)
    assert loaded.to_dict() == bank.to_dict()
    R = np.where(np.random.default_rng(1).random((6, 120)) < 0.2, _world(6, 120, 7), np.nan)
    names = [f"n{j}" for j in range(6)]
    assert np.array_equal(next_items(loaded, R, names).estimates, next_items(bank, R, names).estimates)
    doc = json.loads(path.read_text())
    old = dict(doc, beyond=None)
    del old["beyond"]
    (tmp_path / "old.json").write_text(json.dumps(old))
    assert load_bank(tmp_path / "old.json").beyond is None
    other = json.loads(json.dumps(doc))
    other["beyond"]["items"]["item"][0] = "not-an-item"
    (tmp_path / "other.json").write_text(json.dumps(other))
    with pytest.raises(FormatError, match=r"other\.json: beyond needs a 2PL bank of the same items"):
        load_bank(tmp_path / "other.json")
    nested = json.loads(json.dumps(doc))
    nested["beyond"]["beyond"] = doc["beyond"]
    (tmp_path / "nested.json").write_text(json.dumps(nested))
    with pytest.raises(FormatError, match="without a beyond of its own"):
        load_bank(tmp_path / "nested.json")


def test_the_cli_keeps_the_em_curves_unless_told_not_to(tmp_path: Path) -> None:
    """``adaptive bank`` of 70 models: the file holds the EM curves and the summary says so, with their edge
    error; ``--no-beyond-curve`` leaves them out; ``--beyond-curve`` on a bank that is not polished is refused
    in one line, exit 2, nothing written."""
    _panel(_world(70, 120, 9)).save(tmp_path / "p.parquet")
    runs = {}
    for flag in ("", "--no-beyond-curve", "--beyond-curve --no-polish"):
        out = tmp_path / f"bank{len(runs)}.json"
        args = ["adaptive", "bank", str(tmp_path / "p.parquet"), "-o", str(out), "--no-interval", "--json"]
        runs[flag] = (CliRunner().invoke(app, args + flag.split()), out)
    res, out = runs[""]
    assert res.exit_code == 0, res.output
    summary = json.loads(res.stdout)
    bank = load_bank(out)
    assert summary["beyond_curve"] is True and bank.beyond is not None
    assert summary["beyond_edge_error"] == pytest.approx(bank.beyond.edge_error, abs=1e-15)
    res, out = runs["--no-beyond-curve"]
    assert res.exit_code == 0, res.output
    assert json.loads(res.stdout)["beyond_curve"] is False and load_bank(out).beyond is None
    res, out = runs["--beyond-curve --no-polish"]
    assert res.exit_code == 2 and not out.exists()
    assert "beyond_curve=True needs a polished 2PL bank" in res.output


def test_a_covariate_prior_is_carried_to_the_em_curves_scale() -> None:
    """With a per-model prior N(mu, sd^2) on the polished abilities, the EM curves' estimate uses it on their
    own scale: by the least-squares line of the reference models' EM abilities on their polished ones
    (scipy.stats.linregress), mean alpha + beta mu and sd sqrt(beta^2 sd^2 + residual variance); a NaN
    mean keeps the EM bank's own prior. The mixed estimate equals (1 - w) x the polished bank's under the
    prior plus w x the EM bank's under the carried prior."""
    from scipy.stats import linregress

    x = _world(90, 160, 11)
    bank = fit_bank(_panel(x[5:85]), misfit_folds=0)
    assert bank.beyond is not None
    fit = linregress(bank.reference_theta, bank.beyond.reference_theta)
    resid = bank.beyond.reference_theta - (fit.intercept + fit.slope * bank.reference_theta)
    s2 = float(np.sum(resid**2)) / (resid.size - 2)
    assert abs(fit.slope - 1.0) > 0.05  # the two scales differ (here the polish narrows them)
    held = np.vstack([x[:5], x[85:]])
    R = np.where(np.random.default_rng(2).random(held.shape) < 0.2, held, np.nan)
    models = [f"h{j}" for j in range(10)]
    mu = np.array([-1.5, -1.0, np.nan, -1.2, -1.4, 1.5, 1.8, np.nan, 2.0, 1.6])
    sd = np.full(10, 0.4)
    mixed = next_items(bank, R, models, prior_mean=mu, prior_sd=sd)
    alone = next_items(replace(bank, beyond=None), R, models, prior_mean=mu, prior_sd=sd)
    em_mu = fit.intercept + fit.slope * mu
    em_sd = np.sqrt(fit.slope**2 * sd**2 + s2)
    em = next_items(bank.beyond, R, models, prior_mean=em_mu, prior_sd=em_sd)
    w = bank.beyond_weight(R)
    want = (1 - w)[:, None] * alone.estimates + w[:, None] * em.estimates
    assert mixed.estimates == pytest.approx(want, abs=1e-10)
    unmapped = next_items(bank.beyond, R, models, prior_mean=mu, prior_sd=sd)
    assert not np.allclose(unmapped.estimates[w > 0.5], em.estimates[w > 0.5], atol=1e-4)  # it matters
