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
        res = runner.invoke(app, ["adaptive", "bank", str(panel), "-o", str(out), *flag])
        assert res.exit_code == 0, res.output
        want = fit_bank(read_scores(panel), polish=polish)
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
