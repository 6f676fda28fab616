"""The workflows of ``import``, ``simulate``, ``info`` and ``compare``: the method's result, the files
written, and the JSON the command prints (the CLI's ``--json`` is the workflow's payload)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from typer.testing import CliRunner
from warned import calling

from benchsift.cli.main import app
from benchsift.errors import ResultWarning
from benchsift.io.importing import import_files
from benchsift.leaderboard import compare
from benchsift.panel import Panel
from benchsift.simulate import SimulationConfig, simulate_panel
from benchsift.workflows import (
    WorkflowResult,
    compare_panel,
    import_panel,
    panel_info,
    simulate_to_files,
)

FIX = Path(__file__).resolve().parents[1] / "fixtures" / "io" / "long"


def _cli(*args: str) -> dict:
    r = CliRunner().invoke(app, [*args, "--json"])
    assert r.exit_code == 0, r.output
    return json.loads(r.stdout)


def test_import_panel_writes_the_panel_and_its_payload_is_the_cli_json(tmp_path: Path) -> None:
    run = import_panel("long", [FIX / "scores.csv"], tmp_path / "a.parquet")
    assert isinstance(run, WorkflowResult) and run.files == [tmp_path / "a.parquet"]
    direct = import_files("long", [FIX / "scores.csv"], tmp_path / "b.parquet")
    loaded = Panel.load(tmp_path / "a.parquet")
    np.testing.assert_array_equal(loaded.scores, direct.panel.scores)
    assert (
        run.payload["n_model_runs"] == direct.panel.n_models
        and run.payload["n_items"] == direct.panel.n_items
    )
    cli = _cli("import", "long", str(FIX / "scores.csv"), "-o", str(tmp_path / "c.parquet"))
    assert {**cli, "output": None} == {**run.payload, "output": None}


def test_simulate_to_files_is_simulate_panel_and_writes_both_files(tmp_path: Path) -> None:
    cfg = SimulationConfig.small(n_models=8, n_benchmarks=2, n_categories=2, items_per_benchmark=60)
    run = simulate_to_files(cfg, tmp_path / "p.parquet", truth=tmp_path / "t.npz", random_state=5, preset="x")
    assert run.files == [tmp_path / "p.parquet", tmp_path / "t.npz"] and (tmp_path / "t.npz").is_file()
    np.testing.assert_array_equal(
        Panel.load(tmp_path / "p.parquet").scores, simulate_panel(cfg, 5).panel.scores
    )
    assert (
        run.payload["seed"] == 5
        and run.payload["preset"] == "x"
        and run.payload["truth"] == str(tmp_path / "t.npz")
    )


def test_panel_info_matches_the_side_file_and_is_the_cli_json(tmp_path: Path) -> None:
    side = tmp_path / "models.csv"
    pd.DataFrame({"model": ["nobody"], "family": ["f"]}).to_csv(side, index=False)
    panel = import_panel("long", [FIX / "scores.csv"], tmp_path / "a.parquet").value.panel
    run = panel_info(tmp_path / "a.parquet", side)
    assert panel_info(panel, side).payload == run.payload  # a Panel or its file
    assert any("nobody" in w for w in run.warnings)
    assert run.payload is run.value and run.warnings == run.value["warnings"]
    frame = run.to_frame()  # the per-model records (was TypeError "dict has no table"; audit s32)
    assert frame["model"].tolist() == [m["model"] for m in run.value["models"]] == panel.model_ids
    assert frame["mean_score"].tolist() == [m["mean_score"] for m in run.value["models"]]
    assert _cli("info", str(tmp_path / "a.parquet"), "--models", str(side)) == json.loads(
        json.dumps(run.payload)
    )


@pytest.fixture(scope="module")
def small_panel() -> Panel:
    cfg = SimulationConfig.small(n_models=8, n_benchmarks=2, n_categories=2, items_per_benchmark=60)
    return simulate_panel(cfg, 3).panel


def test_compare_panel_is_compare_and_writes_the_folder(small_panel: Panel, tmp_path: Path) -> None:
    with pytest.warns(ResultWarning, match="compare: 6 text-only run"):  # (the workflow calls compare)
        run = compare_panel(small_panel, out=tmp_path / "cmp", data="p", n_boot=100, random_state=1)
    lib = calling(compare, small_panel, n_boot=100, random_state=1)
    assert json.dumps(run.payload, sort_keys=True, default=str) == json.dumps(
        lib.to_dict(), sort_keys=True, default=str
    )
    assert run.files == [tmp_path / "cmp"] and (tmp_path / "cmp" / "index.html").is_file()
    with pytest.warns(ResultWarning, match="compare: 6 text-only run"):
        assert compare_panel(small_panel, n_boot=100, random_state=1).files == []
