"""What a default or limit changed is said where a notebook shows it (brief, "No silent wrong numbers"):
``audit``, ``compare``, ``run_pipeline`` and ``score_report`` raise each line of their result's
``warnings`` as a :class:`~benchsift.errors.ResultWarning`, attributed to the caller's own line whatever
decorators lie between; the CLI prints each such line once (with the tables, or in ``--json``), not again
on stderr. Before, these lines were in ``result.warnings`` only (Python API audit, session 32)."""

from __future__ import annotations

import json
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from typer.testing import CliRunner
from warned import calling

from benchsift.audit import audit
from benchsift.cli.main import app
from benchsift.compression.pipeline import CompressionConfig, run_pipeline
from benchsift.errors import BenchsiftWarning, ResultWarning
from benchsift.leaderboard import compare
from benchsift.panel import Panel
from benchsift.prism import score_report
from benchsift.simulate import simulate_verdicts


def _panel(text_only: bool) -> Panel:
    """12 image runs (and, with ``text_only``, one text-only run) on 2 benchmarks of 30 items, no text."""
    rng = np.random.default_rng(4)
    n = 13 if text_only else 12
    ability = np.linspace(-1.5, 1.5, n)[:, None]
    X = (rng.random((n, 60)) < 1 / (1 + np.exp(-(ability - rng.normal(size=60))))).astype(float)
    models = pd.DataFrame(
        {"model": [f"m{i:02d}" for i in range(n)], "condition": ["image"] * 12 + ["text-only"] * (n - 12)}
    )
    models.loc[12:, "model"] = "m00"  # the text-only run of m00
    items = pd.DataFrame({"benchmark": ["A"] * 30 + ["B"] * 30, "item": [f"q{j}" for j in range(60)]})
    return Panel(X, models, items)


def _raised(func, *args, **kwargs) -> tuple[object, list[warnings.WarningMessage]]:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = func(*args, **kwargs)
    return result, [w for w in caught if issubclass(w.category, ResultWarning)]


def test_each_call_raises_its_result_warnings_at_the_callers_line() -> None:
    verdicts = simulate_verdicts(n_models=4, n_items=40, random_state=0).table
    local = verdicts.groupby("benchmark")["item"].transform(lambda s: pd.factorize(s)[0] // 4)
    verdicts = verdicts.assign(image_path=["img" + str(v) for v in local])  # an inferred clustering
    calls = {
        "audit": (audit, (_panel(False),), {"dif_by": "none"}),
        "compare": (compare, (_panel(True),), {"n_boot": 50, "random_state": 0}),
        "run_pipeline": (run_pipeline, (_panel(False), CompressionConfig(retention=None, k=5)), {}),
        "score_report": (score_report, (verdicts,), {"n_boot": 50, "random_state": 0}),
    }
    expected = {
        "audit": "blind-solvable share not computed",
        "compare": "1 text-only run(s) left out",
        "run_pipeline": "k=5 exceeds the 2 categories",
        "score_report": "column 'image_path'",
    }
    for name, (func, args, kwargs) in calls.items():
        result, raised = _raised(func, *args, **kwargs)
        lines = list(result.warnings)
        assert any(expected[name] in w for w in lines), (name, lines)
        assert [str(w.message) for w in raised] == [f"{name}: {w}" for w in lines], name
        assert all(issubclass(w.category, BenchsiftWarning) for w in raised)
        # the notebook's cell, not benchsift's decorators (compare and score_report have one or two)
        assert {Path(w.filename).resolve() for w in raised} == {Path(__file__).resolve()}, name
        assert calling(func, *args, **kwargs).warnings == lines  # the same again: deterministic


def test_nothing_raised_when_nothing_was_changed() -> None:
    panel = _panel(False)
    _, raised = _raised(compare, panel, n_boot=50, random_state=0)
    assert raised == []


@pytest.mark.parametrize("json_output", [False, True])
def test_the_cli_says_each_line_once(tmp_path: Path, json_output: bool) -> None:
    path = _panel(True).save(tmp_path / "panel.parquet")
    args = ["compare", str(path), "--n-boot", "50", *(["--json"] if json_output else [])]
    r = CliRunner().invoke(app, args, env={"COLUMNS": "300"})
    assert r.exit_code == 0, r.output
    assert "text-only run(s) left out" not in r.stderr
    if json_output:
        assert [w for w in json.loads(r.stdout)["warnings"] if "text-only run(s) left out" in w]
    else:
        assert r.stdout.count("text-only run(s) left out") == 1
