"""`benchsift compare`: --json is the library's to_dict, the table fits 80 columns, --out writes the files,
the rank figure and index.html; --suite compares new models on a compressed suite."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from benchsift.cli.main import app
from benchsift.compression.pipeline import CompressionConfig, run_pipeline
from benchsift.compression.suite import load_suite, write_suite
from benchsift.errors import EstimateWarning
from benchsift.leaderboard import compare, compare_suite
from benchsift.panel import Panel
from benchsift.simulate import SimulationConfig, simulate_leaderboard, simulate_panel

runner = CliRunner()


@pytest.fixture(scope="module")
def panel_file(tmp_path_factory: pytest.TempPathFactory) -> tuple[Panel, Path]:
    sim = simulate_leaderboard(np.linspace(-1.0, 1.0, 5), 200, random_state=0)
    path = tmp_path_factory.mktemp("cmp") / "p.parquet"
    return sim.panel, sim.panel.save(path)


def test_json_is_the_library_result(panel_file: tuple[Panel, Path]) -> None:
    panel, path = panel_file
    out = runner.invoke(app, ["compare", str(path), "--json", "--n-boot", "300", "--seed", "2"])
    assert out.exit_code == 0, out.output
    doc = json.loads(out.stdout)
    assert doc == json.loads(json.dumps(compare(panel, n_boot=300, random_state=2).to_dict()))
    assert set(doc["sections"]["sim"]) == {"leaderboard", "ties", "resolution", "pairs"}


def test_table_fits_80_columns_and_out_writes_the_report(
    panel_file: tuple[Panel, Path], tmp_path: Path
) -> None:
    panel, path = panel_file
    a, b = panel.model_ids[0], panel.model_ids[1]
    args = ["compare", str(path), "--n-boot", "200", "--pair", f"{a},{b}", "--out", str(tmp_path / "o")]
    out = runner.invoke(app, args, env={"COLUMNS": "80"}, terminal_width=80)
    assert out.exit_code == 0, out.output
    assert max(len(line) for line in out.stdout.splitlines()) <= 80
    assert "tie groups" in out.stdout and "resolution" in out.stdout
    for name in ("compare.json", "leaderboard.csv", "pairs.csv", "resolution.csv", "pair_power.csv"):
        assert (tmp_path / "o" / name).is_file()
    html = (tmp_path / "o" / "index.html").read_text()
    assert 'src="data:image/svg+xml;base64,' in html and "tie groups" in html  # (a figure, as an image)


def test_each_run_prints_at_its_own_terminal_width(panel_file: tuple[Panel, Path]) -> None:
    """Two runs in one process (a notebook, CliRunner): each fits the COLUMNS it runs under. The consoles
    were made once, on first use, and kept the first run's width: after a run under COLUMNS=300 the note
    under the resolution table printed 170 characters wide at 80 columns."""
    _, path = panel_file
    args = ["compare", str(path), "--n-boot", "200"]
    widths = {}
    for columns in (300, 80, 300):
        out = runner.invoke(app, args, env={"COLUMNS": str(columns)})
        assert out.exit_code == 0, out.output
        widths[columns] = max(widths.get(columns, 0), max(len(line) for line in out.stdout.splitlines()))
    assert widths[80] <= 80 < widths[300]  # the note is one line at 300 columns, wrapped at 80


def test_bad_pair_is_one_line_exit_2(panel_file: tuple[Panel, Path]) -> None:
    _, path = panel_file
    out = runner.invoke(app, ["compare", str(path), "--pair", "m000"])
    assert out.exit_code == 2
    assert "--pair: expected two model ids" in out.output


def test_rank_critical_worst_is_the_wider_interval(panel_file: tuple[Panel, Path]) -> None:
    # --rank-critical worst: the interval before (both directions at the larger critical value), the
    # library's, and never narrower than the default's; an unknown value is one line, exit 2
    panel, path = panel_file
    out = runner.invoke(app, ["compare", str(path), "--json", "--n-boot", "300", "--rank-critical", "worst"])
    assert out.exit_code == 0, out.output
    doc = json.loads(out.stdout)
    assert doc == json.loads(json.dumps(compare(panel, n_boot=300, rank_critical="worst").to_dict()))
    assert doc["parameters"]["rank_critical"] == "worst"
    worst = {r["model"]: (r["rank_low"], r["rank_high"]) for r in doc["sections"]["sim"]["leaderboard"]}
    each = compare(panel, n_boot=300).leaderboard.set_index("model")
    for m, (lo, hi) in worst.items():
        assert lo <= each.loc[m, "rank_low"] <= each.loc[m, "rank_high"] <= hi
    out = runner.invoke(app, ["compare", str(path), "--rank-critical", "both"])
    assert out.exit_code == 2 and "--rank-critical: expected each or worst" in out.output


def test_suite_comparison(tmp_path: Path) -> None:
    sim = simulate_panel(SimulationConfig.small(n_benchmarks=4, n_categories=2, items_per_benchmark=80), 0)
    res = run_pipeline(sim.panel, CompressionConfig(retention=None, k=2))
    write_suite(res, sim.panel, tmp_path / "suite")
    suite = load_suite(tmp_path / "suite")
    items = suite.items[["benchmark", "item", "category"]]
    rng = np.random.default_rng(3)
    X = np.vstack([np.ones(suite.n_items), np.zeros(suite.n_items), (rng.random(suite.n_items) < 0.5) * 1.0])
    X[2, 0] = 1.0
    new = Panel(X, ["top", "bottom", "middle"], items)
    with (
        pytest.warns(EstimateWarning, match="2 of 3 new model"),
        pytest.warns(  # all right / all wrong
            EstimateWarning,
            match=r"1 of 3 new model\(s\) are as weak",  # the all-wrong one: the lower edge
        ),
    ):
        got = compare_suite(suite, new, n_boot=200, random_state=0)
    assert sum("extrapolat" in w for w in got.warnings) == 2
    overall = got.models[got.models["group"] == "overall"].set_index("model")
    np.testing.assert_allclose(overall["half_width"], (overall["high"] - overall["low"]) / 2)
    pairs = got.pairs[got.pairs["group"] == "overall"]
    top_bottom = pairs[(pairs["model_a"] == "top") & (pairs["model_b"] == "bottom")].iloc[0]
    assert top_bottom["delta"] == pytest.approx(
        overall.loc["top", "estimate"] - overall.loc["bottom", "estimate"]
    )
    se = np.hypot(overall.loc["top", "se"], overall.loc["bottom", "se"])
    assert top_bottom["se"] == pytest.approx(se)
    assert any("independent" in n for n in got.notes)
    row = got.resolution[got.resolution["group"] == "overall"].iloc[0]
    assert row["n_resolved"] + row["n_unresolved"] == 3
    path = new.save(tmp_path / "new.parquet")
    out = runner.invoke(
        app, ["compare", str(path), "--suite", str(tmp_path / "suite"), "--json", "--n-boot", "200"]
    )
    assert out.exit_code == 0, out.output
    doc = json.loads(out.stdout)
    assert doc["method"] == got.method and doc["warnings"] == got.warnings


def test_compare_without_out_loads_neither_compression_nor_matplotlib(panel_file: tuple[Panel, Path]) -> None:
    # `benchsift compare PANEL` (no --out, no --suite) needs no compression method (sklearn, scipy.spatial)
    # and no figure: a fresh interpreter runs the command and reports which heavy packages it loaded
    import subprocess
    import sys

    _, path = panel_file
    code = (
        "import sys\n"
        "from benchsift.cli.main import app\n"
        f'try:\n    app(["compare", {str(path)!r}, "--n-boot", "50", "--json"])\n'
        "except SystemExit:\n    pass\n"
        "heavy = ('sklearn', 'matplotlib', 'benchsift.compression')\n"
        "print('LOADED', sorted(m for m in heavy if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert '"sections"' in out  # the command ran and printed its JSON
    assert out.strip().splitlines()[-1] == "LOADED []"
