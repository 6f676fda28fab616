"""`benchsift redundancy dimensions|instances|benchmarks`: JSON shapes, tables, files, errors."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
from typer.testing import CliRunner

from benchsift import Panel
from benchsift.cli.main import app

runner = CliRunner()


@pytest.fixture
def panel_file(tmp_path):
    rng = np.random.default_rng(0)
    n_models, n_items = 12, 60
    ability = np.linspace(-1, 1, n_models)
    p = 1 / (1 + np.exp(-(ability[:, None] - rng.normal(size=n_items)[None, :])))
    scores = (rng.random(p.shape) < p).astype(float)
    scores[0, 5] = np.nan
    items = pd.DataFrame(
        {
            "benchmark": ["A"] * 30 + ["B"] * 20 + ["C"] * 10,
            "item": [f"q{j}" for j in range(n_items)],
            "category": [f"d{j % 3}" for j in range(n_items)],
        }
    )
    panel = Panel(scores, [f"m{i}" for i in range(n_models)], items)
    return panel.save(tmp_path / "panel.parquet")


def _json(args: list[str]) -> dict:
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def test_instances_json_shape(panel_file):
    out = _json(
        ["redundancy", "instances", str(panel_file), "--benchmark", "A", "--ratios", "0.1,0.5,1.0"]
        + ["--repeats", "5", "--metric", "srcc,r2", "--seed", "3", "--json"]
    )
    assert out["n_models"] == 12 and out["n_items"] == 30
    assert out["ratios"] == [0.1, 0.5, 1.0]
    assert set(out["metrics"]) == {"srcc", "r2"}
    for m in ("srcc", "r2"):
        assert set(out["metrics"][m]) == {"mean", "sd"}
        assert len(out["metrics"][m]["mean"]) == 3 and len(out["metrics"][m]["sd"]) == 3
        assert out["metrics"][m]["mean"][2] == pytest.approx(1.0)
    assert set(out["saturation"]) == {"srcc", "r2"}
    assert out["saturation"]["srcc"] in (0.1, 0.5, 1.0)
    again = _json(
        ["redundancy", "instances", str(panel_file), "--benchmark", "A", "--ratios", "0.1,0.5,1.0"]
        + ["--repeats", "5", "--metric", "srcc,r2", "--seed", "3", "--json"]
    )
    assert again == out


def test_dimensions_json_shape_and_top_k(panel_file):
    out = _json(["redundancy", "dimensions", str(panel_file), "--benchmark", "A", "--top-k", "8", "--json"])
    assert out["dimensions"] == ["d0", "d1", "d2"]
    assert set(out["matrix"]) == {"srcc", "plcc", "r2", "kendall"}
    assert np.array(out["matrix"]["srcc"], dtype=float).shape == (3, 3)
    assert set(out["redundancy"]["plcc"]) == {"d0", "d1", "d2"}
    assert set(out["internal_redundancy"]) == {"srcc", "plcc", "r2", "kendall"}
    assert out["n_models"] == 8 and out["selection"]["mode"] == "top"
    alt = _json(["redundancy", "dimensions", str(panel_file), "--dimension-column", "benchmark", "--json"])
    assert alt["dimensions"] == ["A", "B", "C"]


def test_benchmarks_json_shape(panel_file):
    out = _json(
        ["redundancy", "benchmarks", str(panel_file), "--benchmarks", "A,C", "--metric", "plcc", "--json"]
    )
    assert out["benchmarks"] == ["A", "C"]
    assert set(out) >= {"benchmarks", "matrix", "redundancy", "anchor"}
    assert out["anchor"]["plcc"] in ("A", "C")
    assert out["redundancy"]["plcc"]["A"] == pytest.approx(out["matrix"]["plcc"][0][1])


def test_tables_and_out_folder(panel_file, tmp_path):
    out_dir = tmp_path / "res"
    result = runner.invoke(
        app,
        ["redundancy", "instances", str(panel_file), "--ratios", "0.2,0.6", "--repeats", "4"]
        + ["--metric", "srcc", "--bottom-k", "6", "--out", str(out_dir)],
    )
    assert result.exit_code == 0, result.output
    assert "saturation" in result.stdout and "bottom-6" in result.stdout
    assert json.loads((out_dir / "instances.json").read_text())["n_models"] == 6
    assert (out_dir / "instances_curve_srcc.png").stat().st_size > 0
    assert (out_dir / "instances_curve_srcc.svg").exists()
    result = runner.invoke(app, ["redundancy", "dimensions", str(panel_file), "--metric", "srcc"])
    assert result.exit_code == 0, result.output
    assert "ρ_BI" in result.stdout and "d1" in result.stdout


def test_errors_exit_2(panel_file):
    for args in (
        ["redundancy", "instances", str(panel_file), "--top-k", "3", "--bottom-k", "3"],
        ["redundancy", "instances", str(panel_file), "--ratios", "0,0.5"],
        ["redundancy", "dimensions", str(panel_file), "--metric", "nope"],
        ["redundancy", "benchmarks", str(panel_file), "--benchmarks", "A,Z"],
        ["redundancy", "dimensions", str(panel_file), "--top-k", "99"],
    ):
        result = runner.invoke(app, args)
        assert result.exit_code == 2, (args, result.output)
        assert "error" in result.stderr


def test_condition_option_and_appendix_c_outputs(tmp_path, panel_file):
    panel = Panel.load(panel_file)
    models = panel.models
    models.loc[len(models) - 1, "condition"] = "text-only"
    mixed = Panel(panel.scores, models, panel.items).save(tmp_path / "mixed.parquet")
    base = ["redundancy", "dimensions", str(mixed), "--benchmark", "A", "--json"]
    assert _json(base)["n_models"] == 11
    assert _json(base + ["--condition", "all"])["n_models"] == 12
    one = runner.invoke(app, base + ["--condition", "text-only"])  # 1 model: refused with the reason
    assert one.exit_code == 2 and "models with scores: 1 found, at least 3 needed" in one.stderr
    out = _json(base)
    assert set(out["top_pairs"]) == set(out["matrix"]) and len(out["top_pairs"]["srcc"]) == 3
    bad = runner.invoke(app, base + ["--condition", "audio"])
    assert bad.exit_code == 2 and "--condition" in bad.stderr
    result = runner.invoke(app, ["redundancy", "benchmarks", str(panel_file), "--metric", "srcc"])
    assert result.exit_code == 0, result.output
    assert "anchor" in result.stdout and "most distinct" in result.stdout


def test_instances_compare_k_overlays_all_top_bottom(panel_file, tmp_path):
    args = ["redundancy", "instances", str(panel_file), "--benchmark", "A", "--ratios", "0.2,0.6"]
    args += ["--repeats", "4", "--metric", "srcc,r2", "--compare-k", "5"]
    out = _json(args + ["--json"])
    assert list(out) == ["all", "top-5", "bottom-5"]
    assert [out[k]["n_models"] for k in out] == [12, 5, 5]
    single = _json(args[:-2] + ["--top-k", "5", "--json"])
    assert single["metrics"] == out["top-5"]["metrics"]  # same seed, same draws
    out_dir = tmp_path / "cmp"
    result = runner.invoke(app, args + ["--out", str(out_dir)])
    assert result.exit_code == 0, result.output
    assert "bottom-5" in result.stdout and "top-5" in result.stdout
    from matplotlib import image

    assert image.imread(out_dir / "instances_curve_r2.png").shape[0] > 0
    assert (out_dir / "instances_curve_srcc.svg").read_text().count("top-5") >= 1
    bad = runner.invoke(app, args + ["--top-k", "3"])
    assert bad.exit_code == 2 and "not both" in bad.stderr


def test_notes_print_on_stdout_after_the_tables(panel_file):
    # without --benchmark the items of every benchmark are pooled, and a note says so: on stdout, as every
    # other command's notes (emit), not on stderr
    res = runner.invoke(app, ["redundancy", "dimensions", str(panel_file)])
    assert res.exit_code == 0, res.output
    assert "note:" in res.stdout and "pooled" in res.stdout.split("note:", 1)[1]
    assert "note:" not in res.stderr
