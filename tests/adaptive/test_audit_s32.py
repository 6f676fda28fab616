"""Audit s32 of adaptive testing (F03-F07, F09): a negative seed, one-item banks, a bank file its reader
refuses, an unreachable se_target, response warnings in Python, the sd of one split, repeated --start."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from scipy.special import expit
from typer.testing import CliRunner

from benchsift.adaptive import StopRule, fit_bank, load_bank, next_items, next_items_for
from benchsift.adaptive.bank import ItemBank
from benchsift.adaptive.select import reachable_sd
from benchsift.adaptive.simulate import AdaptiveSimulation
from benchsift.cli.main import app
from benchsift.errors import DegenerateError, EstimateWarning, InputError
from benchsift.irt import TwoPL
from benchsift.irt.twopl import _gauss_points
from benchsift.panel import Panel

runner = CliRunner()


def _panel(n_models: int, n_items: int, seed: int = 0) -> Panel:
    rng = np.random.default_rng(seed)
    theta = rng.standard_normal(n_models)
    a = rng.uniform(0.5, 2.5, n_items)
    b = rng.normal(0.0, 1.2, n_items)
    x = (rng.random((n_models, n_items)) < expit(a * (theta[:, None] - b))).astype(float)
    items = pd.DataFrame({"benchmark": "B0", "item": [str(i) for i in range(n_items)]})
    return Panel(x, [f"m{j}" for j in range(n_models)], items)


def _bank(a: list[float], d: list[float]) -> ItemBank:
    """A 2PL bank of these slopes and intercepts under the N(0, 1) prior (log prior curvature 1)."""
    items = pd.DataFrame({"benchmark": "B0", "item": [str(i) for i in range(len(a))], "category": None})
    return ItemBank(
        "2pl",
        TwoPL.from_parameters(np.array(a), np.array(d)),
        items,
        ["r0", "r1", "r2"],
        np.array([-1.0, 0.0, 1.0]),
        np.array([0.3, 0.5, 0.7]),
    )


def _error(args: list[str]) -> str:
    r = runner.invoke(app, args)
    assert r.exit_code == 2, r.output
    assert r.stdout == "" and r.stderr.count("\n") == 1, r.output
    return r.stderr.strip()


@pytest.fixture(scope="module")
def small_bank(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("bank") / "bank.json"
    fit_bank(_panel(30, 40), misfit_folds=0).save(path)
    return path


# --- F03: a negative seed -------------------------------------------------------------------------------


def test_a_negative_seed_is_one_line_naming_seed_before_anything_runs(
    tmp_path: Path, small_bank: Path
) -> None:
    # was exit 70 (numpy's "expected non-negative integer") for next and bank
    panel = tmp_path / "p.parquet"
    _panel(30, 40).save(panel)
    out = tmp_path / "b.json"
    want = "benchsift: error: --seed: expected an integer >= 0"
    assert _error(["adaptive", "bank", str(panel), "-o", str(out), "--seed", "-1"]).startswith(want)
    assert not out.exists()
    assert _error(["adaptive", "next", str(small_bank), "--start", "x", "--seed", "-1"]).startswith(want)
    assert _error(["adaptive", "simulate", str(panel), "--seed", "-2"]).startswith(want)
    # prism grade's audit subset seed reached numpy after grading (exit 70 with an audit judge)
    grade = ["prism", "grade", "--items", "i.jsonl", "--artifacts", "a.jsonl", "--records", "r.jsonl"]
    assert _error([*grade, "--config", "c.toml", "--out", "v.jsonl", "--seed", "-1"]).startswith(want)
    # the library refuses it too, naming its parameter (was a ValueError from numpy's SeedSequence)
    with pytest.raises(InputError, match="random_state"):
        next_items(load_bank(small_bank), np.full((1, 40), np.nan), ["x"], random_state=-1)


# --- F04: banks of one item, and bank files the reader refuses -------------------------------------------


def test_a_one_item_panel_is_refused_before_fitting(tmp_path: Path) -> None:
    panel = _panel(10, 1)
    with pytest.raises(DegenerateError, match="at least 2 items .* got 1"):
        fit_bank(panel)
    path, out = tmp_path / "p.parquet", tmp_path / "b.json"
    panel.save(path)
    line = _error(["adaptive", "bank", str(path), "-o", str(out)])
    assert line.startswith("benchsift: error: item bank needs at least 2 items") and not out.exists()


def test_save_refuses_a_bank_its_reader_would_refuse_and_writes_nothing(tmp_path: Path) -> None:
    bank = _bank([1.0, 1039.3], [0.0, 0.0])  # a slope past the file's bound of 1000 (60 models x 1 item)
    out = tmp_path / "bank.json"
    with pytest.raises(DegenerateError) as err:
        bank.save(out)
    assert str(err.value).startswith(
        f"{out}: not written: its reader would refuse this bank (parameters.discrimination: expected 2 "
        "finite numbers in [-1000, 1000], one per item, got 1039.3 at [1])"
    )
    assert not out.exists()
    good = _bank([1.0, 2.0], [0.0, 0.5])
    good.save(out)  # within the bound: written, and read back as saved
    assert load_bank(out).model.discrimination_.tolist() == [1.0, 2.0]


# the EM fit of a perfect split says numpy's divide-by-zero on its way (twopl's Chebyshev error bound)
@pytest.mark.filterwarnings("ignore:divide by zero:RuntimeWarning")
def test_a_fit_whose_slopes_run_off_is_refused_on_save_not_an_overflow(tmp_path: Path) -> None:
    # 10 models answering 3 items identically (a perfect split): the EM slopes run off to ~1e11, where the
    # M-step's Gauss rule size was int(inf): OverflowError, exit 70
    nodes = np.linspace(-6.0, 6.0, 81)
    assert _gauss_points(nodes, 1e300) == nodes.size
    assert _gauss_points(nodes, 1.0) == math.ceil(
        math.log(1e11) / (2 * math.log(np.pi / 6 + math.sqrt(1 + (np.pi / 6) ** 2)))
    )
    x = np.tile((np.arange(10) % 2).astype(float)[:, None], (1, 3))
    panel = Panel(x, [f"m{j}" for j in range(10)], pd.DataFrame({"benchmark": "B0", "item": ["0", "1", "2"]}))
    path, out = tmp_path / "p.parquet", tmp_path / "b.json"
    panel.save(path)
    line = _error(["adaptive", "bank", str(path), "-o", str(out)])
    assert line.startswith(f"benchsift: error: {out}: not written: its reader would refuse this bank")
    assert not out.exists()


# --- F05: an se_target out of reach ------------------------------------------------------------------------


def test_reachable_sd_is_one_over_the_largest_posterior_curvature() -> None:
    bank = _bank([1.0, 1.0, 1.0], [0.0, 0.0, 0.0])
    every = np.ones(3, dtype=bool)
    # N(0, 1) prior (curvature 1) plus three items of a = 1 at their steepest (theta = 0 on the grid): 3/4
    assert reachable_sd(bank, 0.0, 0.5, every) == pytest.approx(1 / math.sqrt(1.75), rel=1e-6)
    # far from the items, theta 6 +- 3 * 0.2: the largest curvature is at 5.4
    p = expit(5.4)
    want = 1 / math.sqrt(1 + 3 * p * (1 - p))
    assert reachable_sd(bank, 6.0, 0.2, every) == pytest.approx(want, rel=1e-6)
    # an own Gaussian prior of sd 0.5: curvature 4
    assert reachable_sd(bank, 0.0, 0.5, every, (0.0, 0.5)) == pytest.approx(1 / math.sqrt(4.75), rel=1e-6)
    # never above the sd the posterior reaches with every item answered
    for answers in ([1.0, 1.0, 1.0], [0.0, 0.0, 0.0], [1.0, 0.0, 1.0]):
        est = bank.score(np.array([answers[:1] + [np.nan, np.nan]]))
        final = bank.score(np.array([answers]))
        assert reachable_sd(bank, float(est.theta[0]), float(est.se[0]), every) <= final.se[0]


def test_an_unreachable_se_target_stops_the_test_and_says_so(tmp_path: Path) -> None:
    bank = _bank([1.0, 1.0, 1.0, 1.0], [0.0, 0.5, -0.5, 1.0])
    results = tmp_path / "r.csv"
    pd.DataFrame([("m", "B0", "0", 1.0)], columns=["model", "benchmark", "item", "score"]).to_csv(
        results, index=False
    )
    best = 1 / math.sqrt(1 + 4 * 0.25)  # the N(0, 1) prior and four items: at most curvature 2
    with pytest.warns(EstimateWarning, match="cannot reach se_target 0.3"):
        res = next_items_for(bank, results, stop=StopRule(se_target=0.3), batch=2)
    assert res.items == [[]]
    sd = float(res.se[0])
    reach = reachable_sd(bank, float(res.theta[0]), sd, np.ones(4, dtype=bool))
    grid = float(res.theta[0]) + sd * np.linspace(-3, 3, 61)
    p = expit(grid[:, None] + np.array([0.0, 0.5, -0.5, 1.0]))
    assert reach == pytest.approx(1 / math.sqrt(float((1 + (p * (1 - p)).sum(axis=1)).max())), rel=1e-6)
    assert sd > 0.3 and 0.3 < best <= reach  # the items are not all steepest at one ability
    assert res.stop == [
        f"se_target 0.3 out of reach: ability sd {sd:.3f}, at best about {reach:.3f} with all 3 items left"
    ]
    assert res.warnings == [
        "1 model(s) cannot reach se_target 0.3 even with every item left answered (their ability sd, now "
        f"and at best): m (sd {sd:.3f}, at best about {reach:.3f}); their tests stop "
        "(the prior's tails and the bank's items bound the sd of a model beyond most of them): a larger "
        "se_target, max_items or rank_width to go on"
    ]
    # a reachable target: the same items as with no se_target (the rule unchanged)
    plain = next_items(bank, np.array([[1.0, np.nan, np.nan, np.nan]]), ["m"], batch=2)
    within = next_items(bank, np.array([[1.0, np.nan, np.nan, np.nan]]), ["m"], batch=2,
                        stop=StopRule(se_target=0.8))  # fmt: skip
    assert within.stop == [None] and within.items == plain.items and within.warnings == plain.warnings


# --- F06: responses left out, in Python ---------------------------------------------------------------


def test_responses_left_out_and_models_restarted_are_python_warnings(
    tmp_path: Path, small_bank: Path
) -> None:
    bank = load_bank(small_bank)
    results = tmp_path / "r.csv"
    rows = [("m-a", "b0", "1", 1.0), ("m-a", "b0", "2", 0.0)]  # the benchmark in lower case
    pd.DataFrame(rows, columns=["model", "benchmark", "item", "score"]).to_csv(results, index=False)
    with pytest.warns(EstimateWarning) as caught:
        res = next_items_for(bank, results, batch=3)
    said = [str(w.message) for w in caught]
    assert (
        said
        == res.warnings
        == [
            "2 item(s) of the responses are not in the bank and were ignored: ['b0/1', 'b0/2']",
            "1 model(s) have no response on a bank item, so they get a first batch: ['m-a'] (are the "
            "benchmark and item ids the bank's?)",
        ]
    )
    assert int(res.n_answered[0]) == 0


# --- F07: the sd over one split ------------------------------------------------------------------------


def _simulation(rhos: list[float], maes: list[float]) -> AdaptiveSimulation:
    per = {m: list(zip(rhos, maes, strict=True)) for m in ("adaptive", "static", "random")}
    return AdaptiveSimulation(0.4, 0.05, 0, [52] * len(rhos), per)


def test_the_sd_over_splits_is_the_sample_sd_and_nan_for_one_split() -> None:
    one = _simulation([0.9], [0.03])
    row = one.rows()[0]
    assert math.isnan(row["rho_sd"]) and math.isnan(row["mae_sd"])  # was 0.0
    assert row["n_items"] == 52 and isinstance(row["n_items"], int)  # was 52.0
    doc = json.loads(json.dumps(one.to_dict()))
    assert doc["results"][0]["rho_sd"] is None and doc["results"][0]["n_items"] == 52
    two = _simulation([0.9, 0.8], [0.03, 0.05]).rows()[0]
    # sample sd of two values: |x1 - x2| / sqrt(2) (np.nanstd's ddof=0 gave half the gap)
    assert two["rho_sd"] == pytest.approx(0.1 / math.sqrt(2)) and two["mae_sd"] == pytest.approx(
        0.02 / math.sqrt(2)
    )
    nan_split = _simulation([0.9, math.nan, 0.7], [0.03, 0.04, 0.05]).rows()[0]
    assert nan_split["rho_sd"] == pytest.approx(0.2 / math.sqrt(2))  # over the finite splits
    assert nan_split["mae_sd"] == pytest.approx(0.01)


def test_the_terminal_shows_an_undefined_sd_as_a_dash() -> None:
    from rich.console import Console

    from benchsift.report.tables.adaptive import render_simulation

    con = Console(width=200, record=True)
    con.print(render_simulation(_simulation([0.9], [0.03]), "t"))
    text = con.export_text()
    assert "0.900 (-)" in text and "0.0300 (-)" in text and "nan" not in text  # was "(nan)", "(0.000)" before


# --- F09: --start ------------------------------------------------------------------------------------------


def test_start_names_the_option_and_refuses_a_model_twice(small_bank: Path) -> None:
    bank = str(small_bank)
    assert _error(["adaptive", "next", bank, "--start", ""]) == (
        "benchsift: error: --start: expected a comma-separated list, got ''"
    )
    assert _error(["adaptive", "next", bank, "--start", "m,x,m"]) == (
        "benchsift: error: --start: duplicate models ['m']"
    )
    with pytest.raises(InputError, match=r"`start`: duplicate models \['m'\]"):
        next_items_for(load_bank(small_bank), start=["m", "m"])


def test_scores_outside_zero_one_are_refused_not_scored(small_bank: Path) -> None:
    """A score of 5 on a 0/1 item gave an ability of 16.5 and -3 one of -14.4, with no word (Python API audit
    s32 f02); the bank's fit refuses the same input. Now one InputError naming the cell."""
    bank = load_bank(small_bank)
    X = np.full((1, bank.n_items), np.nan)
    X[0, :5] = 1.0
    assert np.isfinite(next_items(bank, X, ["a"]).theta).all()
    for bad in (5.0, -3.0, np.inf):
        X[0, 3] = bad
        with pytest.raises(InputError, match=r"responses: row 0, column 3 is .*; expected a value in \[0, 1"):
            next_items(bank, X, ["a"])


def test_a_2pl_fit_of_no_score_is_refused() -> None:
    # it returned slopes of 1.4e62 (Python API audit s32 f03)
    with pytest.raises(DegenerateError, match="the matrix holds no score"):
        TwoPL().fit(np.full((5, 10), np.nan))
