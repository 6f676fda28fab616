"""``benchsift validate --json``: the JSON shape of every protocol."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from benchsift.cli.main import app
from benchsift.panel import Panel

KEYS = {"selector", "retention", "rho_mean", "rho_sd", "rho_min", "rho_max", "wins"}


@pytest.fixture(scope="module")
def one_benchmark(tmp_path_factory: pytest.TempPathFactory) -> Path:
    rng = np.random.default_rng(0)
    theta = rng.normal(size=(30, 1))
    S = (rng.random((30, 300)) < 1 / (1 + np.exp(-(theta - rng.normal(size=(1, 300)))))).astype(float)
    p = Panel.from_matrix(S, [f"m{i}" for i in range(30)], [f"q{j}" for j in range(300)], benchmark="only")
    path = tmp_path_factory.mktemp("cli") / "panel.parquet"
    p.save(path)
    return path


@pytest.mark.parametrize("protocol", ["random", "same-model", "end-to-end"])
def test_validate_json_shape(one_benchmark: Path, protocol: str) -> None:
    args = [
        "validate",
        str(one_benchmark),
        "--protocol",
        protocol,
        "--selectors",
        "random,variance",
        "--retentions",
        "0.05,0.2",
        "--splits",
        "3",
        "--floor",
        "0",
        "--json",
    ]
    out = CliRunner().invoke(app, args)
    assert out.exit_code == 0, out.output
    data = json.loads(out.stdout)
    assert data["protocol"] == protocol
    assert len(data["results"]) == 4
    for row in data["results"]:
        assert KEYS <= set(row)
        assert row["selector"] in ("random", "variance") and row["retention"] in (0.05, 0.2)
    if protocol == "random":
        assert data["categories"] == ["only"]  # one benchmark, no categories: one category
        assert len(data["splits"]) == 3


def test_validate_rejects_unknown_selector(one_benchmark: Path) -> None:
    out = CliRunner().invoke(app, ["validate", str(one_benchmark), "--selectors", "nope", "--json"])
    assert out.exit_code == 2
    assert "unknown" in out.output


def test_validate_chronological_needs_release_dates(one_benchmark: Path) -> None:
    out = CliRunner().invoke(app, ["validate", str(one_benchmark), "--protocol", "chronological", "--json"])
    assert out.exit_code == 2
    assert "release date" in out.output
