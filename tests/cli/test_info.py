"""`benchsift info` and the CLI's error contract (one line, exit code 2, nothing written)."""

from __future__ import annotations

import json
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest
from typer.testing import CliRunner

from benchsift import Panel
from benchsift._fileio import atomic_dir, atomic_path
from benchsift.cli.main import app

runner = CliRunner()


@pytest.fixture
def panel_file(tmp_path):
    rng = np.random.default_rng(0)
    scores = (rng.random((4, 10)) > 0.4).astype(float)
    scores[0, :3] = np.nan
    items = pd.DataFrame({"benchmark": ["A"] * 6 + ["B"] * 4, "item": [str(i) for i in range(10)]})
    p = Panel(scores, [f"m{i}" for i in range(4)], items)
    return p, p.save(tmp_path / "p.parquet")


def test_info_json(panel_file) -> None:
    p, path = panel_file
    result = runner.invoke(app, ["info", str(path), "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    obs = p.scores[~np.isnan(p.scores)]
    assert data["n_models"] == 4 and data["n_items"] == 10 and data["n_benchmarks"] == 2
    assert data["mean_score"] == pytest.approx(obs.mean())
    assert data["coverage"] == pytest.approx(37 / 40)
    assert data["benchmarks"]["B"]["n_items"] == 4
    assert data["benchmarks"]["B"]["mean_score"] == pytest.approx(p.scores[:, 6:].mean())


def test_info_table(panel_file) -> None:
    _, path = panel_file
    result = runner.invoke(app, ["info", str(path)])
    assert result.exit_code == 0
    assert "benchmark" in result.stdout and "0.9250" in result.stdout


def test_error_is_one_line_exit_2(tmp_path) -> None:
    junk = tmp_path / "junk.parquet"
    junk.write_text("nope")
    proc = subprocess.run(
        [sys.executable, "-m", "benchsift", "info", str(junk)], capture_output=True, text=True, check=False
    )
    assert proc.returncode == 2
    assert proc.stderr.strip().count("\n") == 0
    assert "junk.parquet" in proc.stderr and "not a parquet file" in proc.stderr
    assert proc.stdout == ""


def test_atomic_path_leaves_nothing_on_error(tmp_path) -> None:
    target = tmp_path / "out.txt"
    with pytest.raises(RuntimeError), atomic_path(target) as tmp:
        tmp.write_text("half")
        raise RuntimeError("boom")
    assert list(tmp_path.iterdir()) == []
    with atomic_path(target) as tmp:
        tmp.write_text("done")
    assert target.read_text() == "done"


def test_atomic_dir_replaces_only_when_complete(tmp_path) -> None:
    target = tmp_path / "suite"
    with atomic_dir(target) as tmp:
        (tmp / "a.txt").write_text("1")
    with pytest.raises(RuntimeError), atomic_dir(target) as tmp:
        (tmp / "a.txt").write_text("2")
        raise RuntimeError("boom")
    assert (target / "a.txt").read_text() == "1"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["suite"]


def test_info_and_redundancy_read_a_long_table_as_they_read_its_panel(panel_file, tmp_path) -> None:
    # like compress, validate and diagnose, the panel argument may be a long CSV (no import step needed)
    from benchsift.panel.long import panel_to_long

    panel, path = panel_file
    long = tmp_path / "scores.csv"
    panel_to_long(panel)[["model", "benchmark", "item", "score"]].to_csv(long, index=False)
    for command in (["info"], ["redundancy", "benchmarks"]):
        from_panel = runner.invoke(app, [*command, str(path), "--json"])
        from_long = runner.invoke(app, [*command, str(long), "--json"])
        assert from_panel.exit_code == 0 and from_long.exit_code == 0, from_long.output
        a, b = json.loads(from_panel.stdout), json.loads(from_long.stdout)
        assert a == b
