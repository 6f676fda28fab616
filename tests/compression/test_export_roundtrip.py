"""The new-model loop with the real harnesses: compress -> export -> lm-eval / inspect run -> estimate.

The logs under ``tests/fixtures/roundtrip/logs`` were written by lm-eval and inspect-ai themselves, running
the exports of the suite beside them (``make_suite.py``, ``run_lm_eval.py``, ``run_inspect.py``; tool
versions in ``logs/*/VERSION``). ``.ci/side_tools.sh`` regenerates the whole chain with the current tools
and points ``BENCHSIFT_ROUNDTRIP`` at it, so a change in either tool's selection or logging fails here.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from typer.testing import CliRunner

from benchsift.cli.main import app
from benchsift.compression.estimate import estimate_new_models
from benchsift.compression.export import export_suite
from benchsift.compression.suite import load_suite
from benchsift.io import import_panel

ROOT = Path(os.environ.get("BENCHSIFT_ROUNDTRIP") or Path(__file__).parents[1] / "fixtures" / "roundtrip")
TOOLS = {"lm-eval": ROOT / "logs" / "lm-eval", "inspect": ROOT / "logs" / "inspect"}


def _model(name: str) -> str:
    return name.removeprefix("mockllm/")  # inspect names the model by its provider


@pytest.fixture(scope="module")
def truth() -> pd.DataFrame:
    return pd.read_csv(ROOT / "truth.csv", dtype={"model": str, "benchmark": str, "item": str})


def _suite_keys() -> set[tuple[str, str]]:
    items = load_suite(ROOT / "suite").items
    return set(zip(items["benchmark"].astype(str), items["item"].astype(str), strict=True))


@pytest.mark.parametrize("tool", sorted(TOOLS))
def test_the_export_of_the_suite_is_what_the_logs_ran(tool: str, tmp_path: Path) -> None:
    res = export_suite(ROOT / "suite", tool, tmp_path / tool)
    exported = {(b, i) for b, ids in res.items.items() for i in ids}
    assert exported == _suite_keys()
    panel = import_panel(tool, [TOOLS[tool]])
    assert panel.n_models == 4
    keys = list(zip(panel.items["benchmark"].astype(str), panel.items["item"].astype(str), strict=True))
    assert set(keys) == exported and len(keys) == len(exported)  # no item more, none less
    assert not np.isnan(panel.scores).any()  # every model ran every suite item


@pytest.mark.parametrize("tool", sorted(TOOLS))
def test_logged_scores_are_the_held_out_models_responses(tool: str, truth: pd.DataFrame) -> None:
    panel = import_panel(tool, [TOOLS[tool]])
    want = truth.set_index(["model", "benchmark", "item"])["score"]
    for r, name in enumerate(panel.models["model"].astype(str)):
        for c, (b, i) in enumerate(zip(panel.items["benchmark"], panel.items["item"], strict=True)):
            assert panel.scores[r, c] == want[(_model(name), str(b), str(i))]


def test_estimate_from_both_harnesses(truth: pd.DataFrame) -> None:
    runner = CliRunner()
    out = {}
    for tool, logs in TOOLS.items():
        r = runner.invoke(
            app, ["estimate", str(ROOT / "suite"), str(logs), "--from", tool, "--n-boot", "200", "--json"]
        )
        assert r.exit_code == 0, r.output
        out[tool] = json.loads(r.stdout)
        assert out[tool]["warnings"] == []  # the runs hold exactly the suite's items
        assert [m["coverage"] for m in out[tool]["models"]] == [1.0] * 4
    a = {_model(m["model"]): m for m in out["lm-eval"]["models"]}
    b = {_model(m["model"]): m for m in out["inspect"]["models"]}
    assert a.keys() == b.keys() == set(truth["model"])
    full = truth.groupby(["model", "benchmark"])["score"].mean()
    err_est, err_suite = [], []
    for name in a:
        # the same responses through two harnesses give the same estimates
        assert a[name]["estimates"] == b[name]["estimates"] and a[name]["overall"] == b[name]["overall"]
        for bench, e in a[name]["estimates"].items():
            err_est.append(abs(e["score"] - full[(name, bench)]))
            err_suite.append(abs(e["suite_mean"] - full[(name, bench)]))
    # the suite keeps hard items: its mean is far from the benchmark score, the full-score estimate is not
    assert np.mean(err_est) < 0.5 * np.mean(err_suite)


def test_library_call_matches_the_cli() -> None:
    res = estimate_new_models(ROOT / "suite", TOOLS["lm-eval"], from_format="lm-eval", n_boot=200)
    assert res.warnings == [] and res.full is not None
    assert sorted(res.models) == sorted(_model(m) for m in res.models)
