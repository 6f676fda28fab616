"""``benchsift diagnose ... --json`` on a small simulated aggregate panel."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from benchsift.cli.main import app
from benchsift.simulate import SimulationConfig, simulate_panel


@pytest.fixture(scope="module")
def panel_path(tmp_path_factory: pytest.TempPathFactory) -> Path:
    cfg = SimulationConfig.openvlm(
        n_models=60, n_families=10, items_per_benchmark=60, min_items_per_benchmark=30
    )
    path = tmp_path_factory.mktemp("diag") / "panel.parquet"
    simulate_panel(cfg, 0).panel.save(path)
    return path


@pytest.mark.parametrize(
    ("args", "key"),
    [
        (["spectrum", "--by", "benchmark", "--eras", "2024-06-01,2025-01-01"], "spectra"),
        (["stage3", "--k", "3", "--n-boot", "100"], "rows"),
        (["shelf-life", "--k", "3"], "rows"),
        (["leftout", "--targets", "bench00", "--sizes", "2,8", "--splits", "3"], "mae"),
        (["families"], "pairs"),
    ],
)
def test_diagnose_json(panel_path: Path, args: list[str], key: str) -> None:
    out = CliRunner().invoke(app, ["diagnose", args[0], str(panel_path), *args[1:], "--json"])
    assert out.exit_code == 0, out.output
    data = json.loads(out.stdout)
    assert key in data
