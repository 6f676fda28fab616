"""``benchsift adaptive bank|next|simulate`` through the CLI: files written, JSON shapes, refusals."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
from scipy.special import expit
from typer.testing import CliRunner

from benchsift.cli.main import app
from benchsift.panel import Panel

runner = CliRunner()


def _panel_file(tmp_path: Path) -> Path:
    rng = np.random.default_rng(0)
    theta = rng.standard_normal(60)
    a, b = rng.uniform(0.5, 2.0, 300), rng.normal(0, 1, 300)
    x = (rng.random((60, 300)) < expit(a * (theta[:, None] - b))).astype(float)
    items = pd.DataFrame({"benchmark": np.repeat(["A", "B"], 150), "item": [f"q{i}" for i in range(300)]})
    path = tmp_path / "panel.parquet"
    Panel(x, [f"m{j}" for j in range(60)], items).save(path)
    return path


def test_bank_then_next_then_stop(tmp_path: Path) -> None:
    panel = _panel_file(tmp_path)
    bank = tmp_path / "bank.json"
    res = runner.invoke(app, ["adaptive", "bank", str(panel), "-o", str(bank), "--json"])
    assert res.exit_code == 0, res.output
    assert json.loads(res.stdout)["kind"] == "2pl" and bank.is_file()
    answered = pd.DataFrame({"model": "new", "benchmark": "A", "item": ["q0", "q1"], "score": [1.0, 0.0]})
    answered.to_csv(tmp_path / "resp.csv", index=False)
    res = runner.invoke(
        app, ["adaptive", "next", str(bank), str(tmp_path / "resp.csv"), "--batch", "4", "--json"]
    )
    assert res.exit_code == 0, res.output
    (row,) = json.loads(res.stdout)["models"]
    got = [(k["benchmark"], k["item"]) for k in row["next"]]
    assert len(got) == 4 and ("A", "q0") not in got and ("A", "q1") not in got and row["stop"] is None
    # run them (append the new results) and ask again with a budget of 8: two more
    more = pd.DataFrame(
        {"model": "new", "benchmark": [g[0] for g in got], "item": [g[1] for g in got], "score": 1.0}
    )
    pd.concat([answered, more]).to_csv(tmp_path / "resp2.csv", index=False)
    res = runner.invoke(
        app, ["adaptive", "next", str(bank), str(tmp_path / "resp2.csv"), "--max-items", "8", "--json"]
    )
    (row,) = json.loads(res.stdout)["models"]
    assert len(row["next"]) == 2 and row["n_answered"] == 6 and row["stop"] is None
    res = runner.invoke(
        app, ["adaptive", "next", str(bank), str(tmp_path / "resp2.csv"), "--max-items", "6", "--json"]
    )
    (row,) = json.loads(res.stdout)["models"]
    assert row["next"] == [] and row["stop"] == "max_items 6 reached"
    # a model with no responses yet gets its first batch (the most informative items at the prior mean)
    res = runner.invoke(app, ["adaptive", "next", str(bank), "--start", "fresh", "--batch", "3", "--json"])
    assert res.exit_code == 0, res.output
    (row,) = json.loads(res.stdout)["models"]
    assert row["model"] == "fresh" and row["n_answered"] == 0 and len(row["next"]) == 3
    assert runner.invoke(app, ["adaptive", "next", str(bank)]).exit_code == 2  # neither responses nor --start
    table = runner.invoke(app, ["adaptive", "next", str(bank), str(tmp_path / "resp2.csv"), "--batch", "2"])
    assert table.exit_code == 0 and "new" in table.stdout


def test_simulate_json_and_refusals(tmp_path: Path) -> None:
    panel = _panel_file(tmp_path)
    res = runner.invoke(
        app, ["adaptive", "simulate", str(panel), "--splits", "1", "--budget", "0.1", "--json"]
    )
    assert res.exit_code == 0, res.output
    doc = json.loads(res.stdout)
    assert [r["method"] for r in doc["results"]] == ["adaptive", "static", "random"]
    assert all({"budget", "rho_mean", "mae_mean", "n_items"} <= r.keys() for r in doc["results"])
    # items chosen over the whole bank of the two benchmarks: the same static and random rows
    args = ["adaptive", "simulate", str(panel), "--splits", "1", "--budget", "0.1", "--json"]
    off = runner.invoke(app, [*args, "--no-balance"])
    assert off.exit_code == 0, off.output
    assert json.loads(off.stdout)["results"][1:] == doc["results"][1:]
    bad = runner.invoke(app, ["adaptive", "simulate", str(panel), "--holdout", "1.5"])
    assert bad.exit_code == 2 and "holdout" in bad.output
    missing = runner.invoke(app, ["adaptive", "next", str(tmp_path / "none.json"), str(panel)])
    assert missing.exit_code == 2 and "no such file" in missing.output


def test_bank_polish_flag(tmp_path: Path) -> None:
    # the bank file holds the polished parameters by default (the library's fit_bank), the EM fit with
    # --no-polish
    from benchsift.adaptive import fit_bank, load_bank
    from benchsift.io import read_scores

    panel = _panel_file(tmp_path)
    for flag, polish in (([], True), (["--no-polish"], False)):
        out = tmp_path / f"bank-{polish}.json"
        # the item parameters only: no misfit folds (tested in test_design.py)
        args = ["adaptive", "bank", str(panel), "-o", str(out), "--misfit-folds", "0", *flag]
        res = runner.invoke(app, args)
        assert res.exit_code == 0, res.output
        want = fit_bank(read_scores(panel), polish=polish, misfit_folds=0)
        got = load_bank(out)
        np.testing.assert_allclose(got.model.discrimination_, want.model.discrimination_)  # type: ignore[union-attr]
        np.testing.assert_allclose(got.reference_theta, want.reference_theta)


def test_bank_prior_and_residual_factor_options(tmp_path: Path) -> None:
    # --prior and --residual-factors reach the library's fit_bank; the summary names them
    import json

    from benchsift.adaptive import fit_bank, load_bank
    from benchsift.io import read_scores

    panel = _panel_file(tmp_path)
    out = tmp_path / "bank.json"
    flags = ["--prior", "empirical", "--residual-factors", "2", "--json"]
    res = runner.invoke(app, ["adaptive", "bank", str(panel), "-o", str(out), *flags])
    assert res.exit_code == 0, res.output
    doc = json.loads(res.output)
    assert doc["prior"] == "empirical" and doc["residual_factors"] == 2
    want = fit_bank(read_scores(panel), prior="empirical", residual_factors=2)
    got = load_bank(out)
    assert got.prior == "empirical"
    np.testing.assert_allclose(got.residual_loadings, want.residual_loadings)
    bad = runner.invoke(
        app, ["adaptive", "bank", str(panel), "-o", str(tmp_path / "b.json"), "--prior", "flat"]
    )
    assert bad.exit_code == 2 and "prior" in bad.output and not (tmp_path / "b.json").exists()


def _two_benchmark_files(tmp_path: Path) -> tuple[Path, Path, np.ndarray]:
    """A bank panel (benchmark A, 80 reference models) and a prior panel with benchmarks A and B for the
    reference models and 20 new models; the abilities on A and B correlate 0.95 (simulated truth)."""
    rng = np.random.default_rng(5)
    n_ref, n_new = 80, 20
    th_a = rng.standard_normal(n_ref + n_new)
    th_b = 0.95 * th_a + np.sqrt(1 - 0.95**2) * rng.standard_normal(n_ref + n_new)

    def answers(theta: np.ndarray, n: int, bench: str) -> tuple[np.ndarray, pd.DataFrame]:
        a, b = rng.uniform(0.8, 2.0, n), rng.normal(0, 1, n)
        x = (rng.random((theta.size, n)) < expit(a * (theta[:, None] - b))).astype(float)
        return x, pd.DataFrame({"benchmark": bench, "item": [f"{bench}{i}" for i in range(n)]})

    xa, ia = answers(th_a, 200, "A")
    xb, ib = answers(th_b, 200, "B")
    ref = [f"r{j}" for j in range(n_ref)]
    new = [f"new{j}" for j in range(n_new)]
    bank_panel = tmp_path / "a.parquet"
    Panel(xa[:n_ref], ref, ia).save(bank_panel)
    prior_panel = tmp_path / "ab.parquet"  # the new models' A answers are unknown (NaN): only B tells
    xa_known = np.vstack([xa[:n_ref], np.full((n_new, 200), np.nan)])
    Panel(np.hstack([xa_known, xb]), [*ref, *new], pd.concat([ia, ib], ignore_index=True)).save(prior_panel)
    return bank_panel, prior_panel, th_a[n_ref:]


def test_next_prior_from_other_benchmarks(tmp_path: Path) -> None:
    from benchsift.stats import spearman

    bank_panel, prior_panel, truth = _two_benchmark_files(tmp_path)
    bank = tmp_path / "bank.json"
    assert runner.invoke(app, ["adaptive", "bank", str(bank_panel), "-o", str(bank)]).exit_code == 0
    start = ",".join(f"new{j}" for j in range(20))
    plain = runner.invoke(app, ["adaptive", "next", str(bank), "--start", start, "--batch", "3", "--json"])
    assert plain.exit_code == 0, plain.output
    rows = json.loads(plain.stdout)["models"]
    assert np.ptp([r["theta"] for r in rows]) < 1e-9  # no responses, no prior: everyone the same
    res = runner.invoke(
        app,
        ["adaptive", "next", str(bank), "--start", start, "--batch", "3", "--prior-from", str(prior_panel)]
        + ["--json"],
    )
    assert res.exit_code == 0, res.output
    doc = json.loads(res.stdout)
    assert doc["prior"]["features"] == ["B"]  # the bank's own benchmark A is left out by default
    assert doc["prior"]["n_models"] == 80 and doc["prior"]["r2"] > 0.7
    theta = np.array([r["theta"] for r in doc["models"]])
    # before a single item, the abilities follow the new models' true abilities on A through B
    assert spearman(theta, truth) > 0.8
    assert all(np.isfinite(r["prior_mean"]) for r in doc["models"])
    # each model's prior sd is the regression's prediction sd: above the residual sd, by its leverage
    sds = np.array([r["prior_sd"] for r in doc["models"]])
    assert (sds > doc["prior"]["sd"]).all() and (sds < 1.2 * doc["prior"]["sd"]).all()
    # without the exposure draw, a strong and a weak model get the same first items by default (chosen from
    # the responses alone) and different ones with --prior-in-choice (maximum information at their own prior)
    strong, weak = f"new{int(np.argmax(truth))}", f"new{int(np.argmin(truth))}"
    firsts = []
    for extra in ([], ["--prior-in-choice"]):
        res = runner.invoke(
            app,
            ["adaptive", "next", str(bank), "--start", f"{strong},{weak}", "--batch", "3", "--exposure", "1"]
            + ["--prior-from", str(prior_panel), "--json", *extra],
        )
        assert res.exit_code == 0, res.output
        firsts.append({r["model"]: {k["item"] for k in r["next"]} for r in json.loads(res.stdout)["models"]})
    assert firsts[0][strong] == firsts[0][weak] and firsts[1][strong] != firsts[1][weak]
    # the same with B named; the bank's own benchmark alone is refused; --prior-benchmarks needs the panel
    named = runner.invoke(
        app,
        ["adaptive", "next", str(bank), "--start", start, "--prior-from", str(prior_panel)]
        + ["--prior-benchmarks", "B", "--json"],
    )
    assert [r["theta"] for r in json.loads(named.stdout)["models"]] == theta.tolist()
    only_own = runner.invoke(
        app, ["adaptive", "next", str(bank), "--start", "x", "--prior-from", str(bank_panel)]
    )
    assert only_own.exit_code == 2 and "all the bank's own" in only_own.output
    loose = runner.invoke(app, ["adaptive", "next", str(bank), "--start", "x", "--prior-benchmarks", "B"])
    assert loose.exit_code == 2 and "--prior-from" in loose.output
    idle = runner.invoke(app, ["adaptive", "next", str(bank), "--start", "x", "--prior-in-choice"])
    assert idle.exit_code == 2 and "--prior-in-choice needs --prior-from" in idle.output
    table = runner.invoke(
        app, ["adaptive", "next", str(bank), "--start", "new0,stranger", "--prior-from", str(prior_panel)]
    )
    assert table.exit_code == 0, table.output
    assert "ability prior regressed on B" in table.output and "stranger" in table.output


def test_simulate_prior_from_other_benchmarks(tmp_path: Path) -> None:
    # the replay with the other benchmark's prior estimates held-out models better than without it
    bank_panel, prior_panel, _ = _two_benchmark_files(tmp_path)
    args = ["adaptive", "simulate", str(bank_panel), "--splits", "2", "--budget", "0.03", "--json"]
    plain = runner.invoke(app, args)
    res = runner.invoke(app, [*args, "--prior-from", str(prior_panel)])
    assert plain.exit_code == 0 and res.exit_code == 0, res.output
    without = {r["method"]: r for r in json.loads(plain.stdout)["results"]}["adaptive"]
    doc = json.loads(res.stdout)
    with_prior = {r["method"]: r for r in doc["results"]}["adaptive"]
    assert with_prior["mae_mean"] < 0.8 * without["mae_mean"]
    assert with_prior["rho_mean"] > without["rho_mean"]
    assert any("regressed on the models' B" in n for n in doc["notes"])
    loose = runner.invoke(app, ["adaptive", "simulate", str(bank_panel), "--prior-benchmarks", "B"])
    assert loose.exit_code == 2 and "--prior-from" in loose.output


def test_next_and_simulate_static_start(tmp_path: Path) -> None:
    from benchsift.adaptive import load_bank

    panel = _panel_file(tmp_path)
    bank = tmp_path / "bank.json"
    assert runner.invoke(app, ["adaptive", "bank", str(panel), "-o", str(bank)]).exit_code == 0
    spread = load_bank(bank).spread_items(4)
    keys = [(str(b), str(i)) for b, i in load_bank(bank).items[["benchmark", "item"]].to_numpy()[spread]]
    args = [
        "adaptive",
        "next",
        str(bank),
        "--start",
        "fresh",
        "--batch",
        "3",
        "--static-start",
        "4",
        "--json",
    ]
    res = runner.invoke(app, args)
    assert res.exit_code == 0, res.output
    (row,) = json.loads(res.stdout)["models"]
    assert [(k["benchmark"], k["item"]) for k in row["next"]] == keys[:3]  # the spread items, in order
    bad = runner.invoke(app, ["adaptive", "next", str(bank), "--start", "x", "--static-start", "-1"])
    assert bad.exit_code == 2 and "--static-start" in bad.output
    sim = ["adaptive", "simulate", str(panel), "--splits", "1", "--budget", "0.1", "--json"]
    res = runner.invoke(app, [*sim, "--static-start", "0.25"])
    assert res.exit_code == 0, res.output
    bad = runner.invoke(app, [*sim, "--static-start", "2"])
    assert bad.exit_code == 2 and "--static-start" in bad.output


def test_a_small_bank_reports_its_misfit_and_designs_and_warns_when_it_spreads(tmp_path: Path) -> None:
    from benchsift.adaptive import load_bank

    rng = np.random.default_rng(5)
    theta = rng.standard_normal(12)
    a, b = rng.uniform(0.8, 2.0, 600), rng.normal(0, 1, 600)
    x = (rng.random((12, 600)) < expit(a * (theta[:, None] - b))).astype(float)
    items = pd.DataFrame({"benchmark": "A", "item": [f"q{i}" for i in range(600)]})
    Panel(x, [f"m{j}" for j in range(12)], items).save(tmp_path / "small.parquet")
    bank = tmp_path / "bank.json"
    fit = ["adaptive", "bank", str(tmp_path / "small.parquet"), "--json", "-o"]
    res = runner.invoke(app, [*fit, str(bank)])
    assert res.exit_code == 0, res.output
    doc = json.loads(res.stdout)
    fitted = load_bank(bank)
    assert doc["misfit_rms"] == {"A": float(np.sqrt(fitted.misfit_var[0]))}
    assert doc["designs"] == []  # not measured by default
    res = runner.invoke(app, [*fit, str(bank), "--design-budgets", "0.01,0.02,0.05,0.1"])
    assert res.exit_code == 0, res.output
    doc = json.loads(res.stdout)
    fitted = load_bank(bank)
    assert doc["designs"] == fitted.designs() and [r["items"] for r in doc["designs"]] == [6, 12, 30, 60]
    assert all(r["spread"] == fitted.spread_wins(r["items"]) for r in doc["designs"])
    # the measured errors replaced by ones where the whole budget spread wins at 5 % (30 items) only
    saved = json.loads(bank.read_text())
    rows = [[0.03, 0.04, 0.001], [0.03, 0.029, 0.002], [0.03, 0.02, 0.001], [0.02, 0.03, 0.001]]
    saved["design_mae"] = rows
    bank.write_text(json.dumps(saved))
    args = ["adaptive", "next", str(bank), "--start", "new", "--batch", "5", "--max-items", "30"]
    res = runner.invoke(app, [*args, "--json"])
    assert res.exit_code == 0, res.output
    out = json.loads(res.stdout)
    assert [w for w in out["warnings"] if "all 30 items are given spread" in w]
    got = [k["item"] for k in out["models"][0]["next"]]
    assert got == [f"q{i}" for i in load_bank(bank).spread_items(30)[:5]]
    res = runner.invoke(app, args)
    assert res.exit_code == 0 and "given spread" in res.output
    res = runner.invoke(app, [*args[:-1], "12", "--json"])  # 2 %: adaptive, no warning
    assert not [w for w in json.loads(res.stdout)["warnings"] if "given spread" in w]
    # --misfit-folds 0: not measured, no designs; --seed: other folds
    no_folds = ["--misfit-folds", "0", "--design-budgets", "0.1"]
    res = runner.invoke(app, [*fit, str(tmp_path / "b0.json"), *no_folds])
    assert json.loads(res.stdout)["misfit_rms"] is None and json.loads(res.stdout)["designs"] == []
    res = runner.invoke(app, [*fit, str(tmp_path / "b2.json"), "--design-budgets", "0.1,x"])
    assert res.exit_code == 2 and "--design-budgets" in res.output
    res = runner.invoke(app, [*fit, str(tmp_path / "b1.json"), "--seed", "1"])
    assert json.loads(res.stdout)["misfit_rms"] != doc["misfit_rms"]
