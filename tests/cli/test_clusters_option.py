"""``--clusters`` and ``--resample-items``: the CLI gives what the library call with the same ``clusters``
gives (``diagnose stage3``, ``prism score``); ``none`` turns clustering off, and an unknown column is a
one-line error naming the option."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from benchsift._jsonutil import to_jsonable
from benchsift.cli.main import app
from benchsift.compression.diagnostics import aggregate_stage3
from benchsift.panel import Panel
from benchsift.prism.scoring import score_report
from benchsift.simulate import SimulationConfig, simulate_panel
from benchsift.simulate.verdicts import simulate_verdicts


def _cli(*args: str) -> Any:
    r = CliRunner().invoke(app, list(args))
    assert r.exit_code == 0, r.output
    return json.loads(r.stdout)


def _plain(obj: Any) -> Any:
    return json.loads(json.dumps(to_jsonable(obj)))


@pytest.fixture(scope="module")
def clustered_panel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    cfg = SimulationConfig.small(
        n_models=14,
        n_benchmarks=4,
        n_categories=2,
        items_per_benchmark=60,
        min_items_per_benchmark=40,
        items_per_image=3,
        image_response_sd=1.0,
    )
    path = tmp_path_factory.mktemp("clusters") / "panel.parquet"
    simulate_panel(cfg, 2).panel.save(path)
    return path


def test_stage3_clusters_match_the_library(clustered_panel: Path) -> None:
    panel = Panel.load(clustered_panel)
    common = ["diagnose", "stage3", str(clustered_panel), "--k", "2", "--n-boot", "60", "--json"]
    kw: dict[str, Any] = dict(ks=[2], n_boot=60, random_state=0)
    auto = _cli(*common)
    assert auto["items_resampled"] is True and auto["clusters"]["used"] is True
    assert auto == _plain(aggregate_stage3(panel, **kw).to_dict())
    off = _cli(*common, "--clusters", "none")
    assert off["items_resampled"] is False
    assert off == _plain(aggregate_stage3(panel, clusters=None, **kw).to_dict())
    assert off["rows"] != auto["rows"]  # the item clusters widen the intervals
    models_only = _cli(*common, "--no-resample-items")
    assert models_only["items_resampled"] is False
    assert models_only == _plain(aggregate_stage3(panel, resample_items=False, **kw).to_dict())
    by_column = _cli(*common, "--clusters", "image")
    assert by_column == _plain(aggregate_stage3(panel, clusters="image", **kw).to_dict())


def test_unknown_cluster_column_is_one_line(clustered_panel: Path) -> None:
    r = CliRunner().invoke(
        app, ["diagnose", "stage3", str(clustered_panel), "--clusters", "nosuch", "--json"]
    )
    assert r.exit_code == 2
    assert "--clusters: column 'nosuch' not in the item table" in r.output
    assert len(r.output.strip().splitlines()) == 1


def test_prism_score_clusters_match_the_library(tmp_path: Path) -> None:
    sim = simulate_verdicts(5, 120, random_state=1)
    table = sim.table.copy()
    # items item00000..item00119: four consecutive items share a cluster (e.g. one image)
    table["cluster"] = [f"c{int(i.removeprefix('item')) // 4}" for i in table["item"]]
    path = tmp_path / "v.csv"
    table.to_csv(path, index=False)
    args = ["prism", "score", str(path), "--bootstrap", "80", "--json"]
    auto = _cli(*args)
    assert auto["clusters"]["used"] is True
    assert auto == _plain(score_report(path, bootstrap=80, seed=0).summary)
    off = _cli(*args, "--clusters", "none")
    assert off["clusters"]["used"] is False
    assert off == _plain(score_report(path, bootstrap=80, seed=0, clusters=None).summary)
    assert off["ci"] != auto["ci"]
