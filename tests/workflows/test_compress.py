"""``workflows.compress_to_suite``: the suite the pipeline selects, the files written, the JSON printed."""

from __future__ import annotations

import json
import warnings
from pathlib import Path

import numpy as np
import pytest
import typer
from typer.testing import CliRunner

from benchsift.cli._common import BenchsiftGroup
from benchsift.cli.compress import compress_command
from benchsift.compression.pipeline import CompressionConfig, run_pipeline
from benchsift.compression.suite import load_suite
from benchsift.errors import FloorWarning, ResultWarning
from benchsift.simulate import SimulationConfig, simulate_panel
from benchsift.workflows import WorkflowResult, compress_to_suite

app = typer.Typer(cls=BenchsiftGroup, pretty_exceptions_enable=False)
app.command("compress")(compress_command)


@pytest.fixture(scope="module")
def panel_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    sim = simulate_panel(
        SimulationConfig.small(n_benchmarks=6, n_categories=3, items_per_benchmark=60, n_models=30), 1
    )
    path = tmp_path_factory.mktemp("wf") / "panel.parquet"
    sim.panel.save(path)
    return path


def test_the_suite_is_the_pipelines_selection_and_every_file_is_listed(
    panel_file: Path, tmp_path: Path
) -> None:
    from benchsift.io import read_scores

    panel = read_scores(panel_file)
    cfg = CompressionConfig(retention=0.1, k=2, random_state=3, floor=0)
    with warnings.catch_warnings(record=True) as said:
        warnings.simplefilter("always")
        run = compress_to_suite(panel, tmp_path / "suite", cfg, holdout=0.25)
        assert isinstance(run, WorkflowResult)
        # the same split by hand: the suite is run_pipeline's selection on the build models
        from benchsift.compression.holdout import split_models

        build, held = split_models(panel, 0.25, 3)
        direct = run_pipeline(panel.subset(models=build), cfg)
    # what a notebook shows: each line of the pipeline's warnings, once from each call (the workflow's
    # result adds the held-out estimate's)
    lines = [f"run_pipeline: {w}" for w in direct.warnings]
    assert [str(w.message) for w in said if issubclass(w.category, ResultWarning)] == lines + lines
    assert all(issubclass(w.category, (ResultWarning, FloorWarning)) for w in said)
    assert np.array_equal(run.value.suite_items, direct.suite_items)
    suite = load_suite(tmp_path / "suite")
    assert suite.n_items == direct.suite_items.size
    assert run.value.holdout is not None and run.value.holdout.n_held <= int(held.sum())
    out = tmp_path / "suite"
    assert run.files == [out, out / "holdout.json", out / "holdout.csv", out / "index.html"]
    assert all(p.exists() for p in run.files)
    assert run.payload == {**run.value.summary(), "out": str(out)}
    assert run.to_dict() is run.payload
    assert run.warnings == list(run.value.warnings) and run.notes == list(run.value.notes)
    assert json.loads((out / "holdout.json").read_text()) == json.loads(
        json.dumps(run.value.holdout.to_dict())
    )


def test_the_cli_prints_the_workflows_payload(panel_file: Path, tmp_path: Path) -> None:
    from benchsift._jsonutil import to_jsonable
    from benchsift.cli._common import said
    from benchsift.io import read_scores

    argv = [str(panel_file), "--out", str(tmp_path / "a"), "--k", "2", "--seed", "1", "--json"]
    res = CliRunner().invoke(app, argv)
    assert res.exit_code == 0, res.output
    with warnings.catch_warnings():  # (said in run.payload's warnings, compared with the CLI's below)
        warnings.simplefilter("ignore", FloorWarning)
        warnings.simplefilter("ignore", ResultWarning)
        run = compress_to_suite(
            read_scores(panel_file), tmp_path / "b", CompressionConfig(k=2, random_state=1)
        )
    printed = json.loads(res.stdout)
    expected = to_jsonable(said({**run.payload, "out": str(tmp_path / "a")}))  # `floor` -> --floor
    assert {k: v for k, v in printed.items() if k != "seconds"} == {
        k: v for k, v in expected.items() if k != "seconds"
    }
