"""``audit()`` as a whole and ``benchsift audit``: the JSON shape, the files, degenerate input refused."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
from typer.testing import CliRunner
from warned import calling

from benchsift.audit import FLAGS, audit
from benchsift.cli.main import app
from benchsift.errors import DegenerateError, InputError
from benchsift.panel import Panel

from .conftest import planted

runner = CliRunner()


@pytest.fixture(scope="module")
def small(tmp_path_factory: pytest.TempPathFactory):
    sim = planted(1, n_benchmarks=2, n_categories=1, items_per_benchmark=150)
    path = sim.panel.save(tmp_path_factory.mktemp("audit") / "panel.parquet")
    return sim, path


def test_json_shape_one_entry_per_flagged_item(small) -> None:
    sim, path = small
    r = runner.invoke(app, ["audit", str(path), "--json"])
    assert r.exit_code == 0, r.output
    doc = json.loads(r.stdout)
    assert set(doc) >= {"benchmarks", "items", "warnings", "duplicates", "flag_counts", "parameters"}
    assert set(doc["benchmarks"]) == set(sim.panel.benchmarks)
    res = audit(sim.panel)
    assert doc == json.loads(json.dumps(res.to_dict()))  # the CLI prints the library's result
    assert len(doc["items"]) == res.n_flagged == len({(e["benchmark"], e["item"]) for e in doc["items"]})
    for e in doc["items"]:
        assert e["flags"] and set(e["flags"]) <= set(FLAGS)
        assert {"benchmark", "item", "discrimination", "p_negative", "dif_q"} <= set(e)
    assert doc["flag_counts"] == res.flag_counts
    bench = doc["benchmarks"][sim.panel.benchmarks[0]]
    assert bench["snr"] > 1 and 0 < bench["mdd"] < 1


def test_measure_and_dif_options_are_the_library_parameters(small) -> None:
    sim, path = small
    opts = [
        "--discrimination",
        "2pl",
        "--min-slope",
        "0.5",
        "--dif-matching",
        "rest-score",
        "--dif-test",
        "lr",
    ]
    r = runner.invoke(app, ["audit", str(path), *opts, "--json"])
    assert r.exit_code == 0, r.output
    res = audit(sim.panel, discrimination="2pl", min_slope=0.5, dif_matching="rest-score", dif_test="lr")
    assert json.loads(r.stdout) == json.loads(json.dumps(res.to_dict()))
    assert json.loads(r.stdout) != json.loads(json.dumps(audit(sim.panel).to_dict()))
    bad = runner.invoke(app, ["audit", str(path), "--dif-test", "wald", "--json"])
    assert (
        bad.exit_code == 2
        and "--dif-test: expected rstar or lr, got 'wald'" in bad.stderr
        and bad.stdout == ""
    )


def test_table_mode_and_out_folder(small, tmp_path) -> None:
    _, path = small
    out = tmp_path / "audit"
    r = runner.invoke(app, ["audit", str(path), "--out", str(out), "--top", "5"])
    assert r.exit_code == 0, r.output
    assert "negative discrimination" in r.stdout and "benchmark health" in r.stdout
    assert {p.name for p in out.iterdir()} >= {"audit.json", "benchmarks.csv", "items.csv", "index.html"}
    page = (out / "index.html").read_text()
    assert "benchsift audit" in page and "negative-discrimination" in page
    items = pd.read_csv(out / "items.csv")
    assert (items["flags"].str.len() > 0).all()


def test_too_few_models_is_refused(tmp_path) -> None:
    panel = Panel(np.eye(4), ["a", "b", "c", "d"], pd.DataFrame({"benchmark": "b", "item": list("wxyz")}))
    with pytest.raises(DegenerateError, match="at least 5 needed"):
        audit(panel)
    path = panel.save(tmp_path / "p.parquet")
    r = runner.invoke(app, ["audit", str(path), "--json"])
    assert r.exit_code == 2 and "at least 5 needed" in r.stderr and r.stdout == ""


def test_bad_parameters_name_the_option(small) -> None:
    sim, path = small
    with pytest.raises(InputError, match="alpha"):
        audit(sim.panel, alpha=1.5)
    with pytest.raises(InputError, match="dif_by"):
        audit(sim.panel, dif_by="era")
    r = runner.invoke(app, ["audit", str(path), "--power", "0"])
    assert r.exit_code == 2 and "--power" in r.stderr


def test_a_benchmark_with_too_few_models_is_skipped_with_a_warning() -> None:
    rng = np.random.default_rng(0)
    X = (rng.random((12, 40)) < 0.5).astype(float)
    X[3:, 30:] = np.nan  # benchmark "small": three models only
    items = pd.DataFrame({"benchmark": ["big"] * 30 + ["small"] * 10, "item": [str(i) for i in range(40)]})
    res = calling(audit, Panel(X, [f"m{i}" for i in range(12)], items), dif_by="none")
    assert any("'small': 3 image-condition model(s)" in w for w in res.warnings)
    small_items = res.items[res.items["benchmark"] == "small"]
    assert small_items["discrimination"].isna().all() and small_items["n_models"].eq(3).all()


def test_ranked_and_unknown_flag(small) -> None:
    sim, _ = small
    res = audit(sim.panel)
    ranked = res.ranked("dif")
    assert ranked["dif_p"].is_monotonic_increasing and len(ranked) == res.flag_counts["dif"]
    with pytest.raises(InputError, match=r"ranked `flag`: expected one of .*, got "):
        res.ranked("wrong-key")


def test_same_input_same_result(small) -> None:
    sim, _ = small
    a, b = audit(sim.panel).to_dict(), audit(sim.panel).to_dict()
    assert json.dumps(a, sort_keys=True) == json.dumps(b, sort_keys=True)


def test_counts_of_signals_not_computed_are_missing_not_zero() -> None:
    """No text-only runs, no `question` column, `dif_by` "none": the blind-solvable, duplicate-text and DIF
    counts of a benchmark are missing (None in JSON), as its blind-solvable share already was, never 0
    (before: `share_blind_solvable` None beside `n_blind_solvable` 0). A benchmark with too few models also
    has no discrimination or duplicate-response count; the counts that were computed stay integers."""
    rng = np.random.default_rng(0)
    X = (rng.random((12, 40)) < 0.5).astype(float)
    X[:, 0] = 1.0  # one all-correct item of "big"
    X[3:, 30:] = np.nan  # benchmark "small": three models only
    items = pd.DataFrame({"benchmark": ["big"] * 30 + ["small"] * 10, "item": [str(i) for i in range(40)]})
    res = calling(audit, Panel(X, [f"m{i}" for i in range(12)], items), dif_by="none")
    doc = res.to_dict()["benchmarks"]
    for b in ("big", "small"):
        assert doc[b]["share_blind_solvable"] is None
        assert doc[b]["n_blind_solvable"] is None
        assert doc[b]["n_duplicate_text"] is None and doc[b]["n_dif"] is None
    assert doc["big"]["n_all_correct"] == 1 and isinstance(doc["big"]["n_negative_discrimination"], int)
    assert doc["small"]["n_negative_discrimination"] is None and doc["small"]["n_duplicate_responses"] is None
    # saturation is computed on any number of models: the items the three models all solve, counted by hand
    assert doc["small"]["n_all_correct"] == int((X[:3, 30:] == 1.0).all(axis=0).sum())
    json.dumps(doc)
