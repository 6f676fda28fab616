"""The bank file read back (ItemBank.from_dict, load_bank): a forged or damaged entry is refused in one line
that names the file, the entry and what was expected, never an internal error deep inside the next-items
step, a hang or other numbers; an entry set to null still reads as a bank written before it existed."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest
from scipy.special import expit

from benchsift.adaptive import fit_bank, load_bank, next_items
from benchsift.adaptive.bank import ItemBank
from benchsift.errors import FormatError
from benchsift.panel import Panel

NOT_A_BANK = "bank.json: not a benchsift item bank ("


def _panel(graded: bool) -> Panel:
    """40 models of a 2PL world on 60 items of two benchmarks (0/1 scores, or the mean of two draws)."""
    rng = np.random.default_rng(5)
    theta = np.sort(rng.standard_normal(40))
    a, b = rng.uniform(0.5, 2.0, 60), rng.normal(0.0, 1.0, 60)
    p = expit(a * (theta[:, None] - b))
    x = (rng.random(p.shape) < p).astype(float)
    if graded:
        x = (x + (rng.random(p.shape) < p)) / 2.0
    items = pd.DataFrame({"benchmark": np.repeat(["B0", "B1"], 30), "item": [str(i) for i in range(60)]})
    return Panel(x, [f"m{j}" for j in range(40)], items)


@pytest.fixture(scope="module")
def docs() -> dict[str, dict[str, Any]]:
    """A 2PL bank with every entry measured (polished, its EM curves, residual factors, offsets, misfit, edge
    error, designs, interval) and a graded one, as their files hold them."""
    measured = {"misfit_folds": 3, "interval_budgets": (0.1, 0.3)}
    full = fit_bank(
        _panel(False),
        polish=True,
        beyond_curve=True,
        residual_factors=2,
        prior="empirical",
        design_budgets=(0.1, 0.3),
        **measured,
    )
    graded = fit_bank(_panel(True), design_budgets=(0.1,), **measured)
    assert graded.kind == "graded"
    return {k: json.loads(json.dumps(b.to_dict())) for k, b in (("2pl", full), ("graded", graded))}


def _refused(doc: dict[str, Any], reason: str) -> None:
    with pytest.raises(FormatError, match=re.escape(reason)) as info:
        ItemBank.from_dict(doc, source="bank.json")
    assert "\n" not in str(info.value)


def test_a_forged_entry_of_a_2pl_bank_is_refused_with_its_reason(docs: dict[str, dict[str, Any]]) -> None:
    # every entry of the JSON type, the shape the items and the reference models give it and the range a
    # fitted bank gives it; each of the forgeries marked "was" crashed the next-items step (IndexError at
    # load, OverflowError or an empty grid at use) or was read as other numbers
    doc = docs["2pl"]
    n, n_ref = len(doc["items"]["item"]), len(doc["reference_models"])
    assert (
        doc["beyond"] is not None and doc["residual_loadings"] is not None and doc["design_mae"] is not None
    )
    items = doc["items"]
    abilities = (
        f"reference_theta: expected {n_ref} finite abilities in [-20, 20], one per reference model, got"
    )
    numbers = f"expected {n} finite numbers in [-1000, 1000], one per item, got"
    for key, forged, reason in (
        ("items", [1.0, 2.0], "items: expected an object of benchmark, item and category lists, got a list"),
        (
            "items",
            {**items, "item": "x"},
            "items.item: expected a list of item ids (strings), at least one, got",
        ),
        ("items", {**items, "benchmark": items["benchmark"][1:]}, f"items.benchmark: expected {n} benchmark"),
        (
            "items",
            {**items, "category": 1.5},
            f"items.category: expected {n} category names (strings or null)",
        ),
        (
            "items",
            {**items, "item": ["0"] * n},
            "items: expected one entry per (benchmark, item), got 'B0/0' twice",
        ),
        ("parameters", "x", "parameters: expected an object of item parameters, got the string 'x'"),
        (
            "parameters",
            {**doc["parameters"], "discrimination": None},
            f"parameters.discrimination: {numbers} null",
        ),
        (
            "parameters",
            {**doc["parameters"], "intercept": [1e300] * n},
            f"parameters.intercept: {numbers} 1e+300 at [0]",
        ),
        ("reference_models", ["m"] * n_ref, "reference_models: expected distinct model ids, got 'm' twice"),
        (
            "reference_models",
            list(range(n_ref)),
            "reference_models: expected a list of model ids (strings), got 0",
        ),
        ("reference_theta", 1.5, f"{abilities} 1.5)"),  # was IndexError
        ("reference_theta", None, f"{abilities} null)"),  # was IndexError
        ("reference_theta", [1e300] * n_ref, f"{abilities} 1e+300 at [0])"),  # was an empty grid at use
        (
            "reference_theta",
            [-1e5, *[1e5] * (n_ref - 1)],
            f"{abilities} -100000.0 at [0])",
        ),  # was MemoryError
        ("reference_theta", doc["reference_theta"][1:], f"{abilities} a list of shape ({n_ref - 1},))"),
        ("reference_overall", [1.5] * n_ref, f"reference_overall: expected {n_ref} scores in [0, 1] or null"),
        (
            "residual_loadings",
            [[1e300, 0.0]] * n,
            "residual_loadings: expected a row of factor loadings in [-1, 1]",
        ),
        ("misfit_var", "x", "misfit_var: expected a list of numbers, or null, got the string 'x'"),
        ("design_mae", {"a": 1}, "design_mae: expected a table of numbers, got an object"),
        (
            "offset_var",
            [[1.0]],
            "offset_var: expected a list of numbers, or null, got a list of shape (1, 1)",
        ),
        ("edge_error", True, "edge_error: expected a number, or null, got true"),
        ("edge_rms", "0.1", "edge_rms: expected a number, or null, got the string '0.1'"),
        (
            "interval_budgets",
            {"a": 1},
            "interval_budgets: expected a list of numbers, or null, got an object",
        ),
        ("interval_inner", [1.0, 2.0], "interval_inner[0]: expected a list of numbers, got 1.0)"),  # was read
        (
            "interval_edge",
            1.5,
            "interval_edge: expected a list of lists of numbers (one per budget), or null",
        ),
    ):
        _refused({**doc, key: forged}, NOT_A_BANK + reason)
    # the entries checked together keep their one line, now with the ranges a fitted bank gives them
    for key, forged, reason in (
        (
            "misfit_var",
            [1.0, 2.0],
            "bank.json: misfit_var and residual_var need one finite value in [0, 1] per benchmark",
        ),
        (
            "design_mae",
            [[np.inf, 0.1, 0.01]] * 2,
            "and design_mae (a row of three errors in [0, 1] per budget) go together",
        ),
        (
            "edge_rms",
            1e308,
            "bank.json: edge_rms needs a finite number at least |edge_error| and at most 1",
        ),  # was Overflow
        ("edge_error", 1.5, "bank.json: edge_error needs a finite number in [-1, 1] (or null)"),
    ):
        _refused({**doc, key: forged}, reason)
    for key, forged, reason in (
        ("kind", 1.5, "bank.json: kind 1.5, expected '2pl' or 'graded'"),  # was in a second source's words
        ("prior", None, "bank.json: prior null, expected one of empirical, normal, robust"),
        ("format", [1], "bank.json: format a list of shape (1,), expected 'benchsift-item-bank/1'"),
    ):
        _refused({**doc, key: forged}, reason)
    _refused([1, 2], NOT_A_BANK + "expected a JSON object, got a list of shape (2,))")  # type: ignore[arg-type]
    # the EM curves are a bank of their own: refused in their own words, once (was IndexError)
    em = {**doc, "beyond": {**doc["beyond"], "reference_theta": 1.5}}
    _refused(em, f"bank.json (beyond): not a benchsift item bank ({abilities} 1.5)")
    # equal abilities under the EM curves where the bank's differ: no line carries a prior between them (it
    # was a prior_sd error at use, naming no file)
    flat = {**doc, "beyond": {**doc["beyond"], "reference_theta": [0.0] * len(doc["reference_theta"])}}
    _refused(flat, "bank.json: beyond's reference abilities are all equal where the bank's are not")


def test_a_forged_entry_of_a_graded_bank_is_refused_with_its_reason(docs: dict[str, dict[str, Any]]) -> None:
    doc = docs["graded"]
    par = doc["parameters"]
    n, k = len(par["discrimination"]), par["max_categories"]
    assert all(a is not None for a in par["discrimination"])  # every item fitted, its thresholds decreasing
    first = [t for t in par["thresholds"][0] if t is not None]
    assert len(first) >= 2 and first == sorted(first, reverse=True)
    rising = [sorted(par["thresholds"][0][: len(first)]) + par["thresholds"][0][len(first) :]]
    slopes = f"parameters.discrimination: expected {n} slopes in (0, 1000] or null (an item not fitted)"
    rows = f"parameters.thresholds: expected {n} rows of {k - 1} thresholds in [-1000, 1000] or null"
    levels = len(par["levels"][0])
    for key, forged, reason in (
        ("max_categories", "x", "parameters.max_categories: expected an int >= 2, got the string 'x'"),
        ("discrimination", 1.5, f"{slopes}, one per item, got 1.5)"),  # was IndexError
        ("discrimination", [-1.0] * n, f"{slopes}, one per item, got -1.0 at [0])"),
        (
            "discrimination",
            [None] * n,  # was a broadcast error at use
            "graded response discrimination: expected a slope exactly for the items of two levels or more "
            f"(one at least), got item 0: slope nan, {levels} levels",
        ),
        (
            "thresholds",
            [row[:1] for row in par["thresholds"]],
            f"{rows} (past an item's last level), got a list",
        ),
        (
            "thresholds",
            rising + par["thresholds"][1:],
            "parameters.thresholds: expected decreasing thresholds",
        ),
        (
            "thresholds",
            [[0.0] * (k - 1)] + par["thresholds"][1:],  # a threshold past the last level was used
            "graded response thresholds: expected a finite value for each level of a fitted item but its "
            "first and NaN past them",
        ),
        (
            "levels",
            [[0.0, 5.0, 10.0]] * n,
            "parameters.levels[0]: expected a list of level values in [0, 1], got 5.0",
        ),
        (
            "levels",
            [[1.0, 0.5, 0.0]] * n,
            f"graded response levels[0]: expected at most {k} increasing values",
        ),
        ("levels", par["levels"][1:], f"parameters.levels: expected {n} lists of level values, one per item"),
    ):
        _refused({**doc, "parameters": {**par, key: forged}}, NOT_A_BANK + reason)


def test_a_null_entry_reads_as_a_bank_written_before_it(docs: dict[str, dict[str, Any]]) -> None:
    """Every optional entry set to null (a bank written before it) reads back as not there, and the bank as
    written gives the next items and estimates of the bank it was written from."""
    doc = docs["2pl"]
    groups = [
        ("residual_loadings",),
        ("misfit_var", "residual_var"),
        ("design_budgets", "design_mae"),
        ("offset_var",),
        ("edge_error", "edge_rms"),
        ("edge_rms",),
        ("interval_budgets", "interval_inner", "interval_edge"),
        ("beyond",),
    ]
    for keys in groups:
        back = ItemBank.from_dict({**doc, **dict.fromkeys(keys)})
        for key in keys:
            assert getattr(back, key) is None, key
    assert ItemBank.from_dict({k: v for k, v in doc.items() if k != "prior"}).prior == "normal"
    bank = ItemBank.from_dict(doc)
    assert json.loads(json.dumps(bank.to_dict())) == doc
    X = np.full((2, bank.n_items), np.nan)
    X[0, :6] = [1.0, 0.0, 1.0, 1.0, 0.0, 1.0]
    again = next_items(ItemBank.from_dict(json.loads(json.dumps(doc))), X, ["a", "b"], batch=5)
    first = next_items(bank, X, ["a", "b"], batch=5)
    assert again.items == first.items
    np.testing.assert_array_equal(again.estimates, first.estimates)


def test_a_bank_file_with_an_integer_too_long_to_read_is_refused(
    docs: dict[str, dict[str, Any]], tmp_path: Path
) -> None:
    # Python reads integers of at most 4,300 digits: a longer one was a ValueError past load_bank
    path = tmp_path / "bank.json"
    path.write_text(
        json.dumps(docs["2pl"]).replace('"edge_error": ', '"edge_error": ' + "9" * 5000 + ', "x": ')
    )
    with pytest.raises(FormatError, match=re.escape(f"{path}: not valid JSON (")):
        load_bank(path)
