"""``--version`` and "did you mean ...?" for mistyped commands and names."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

import benchsift
from benchsift._suggest import did_you_mean
from benchsift.cli.main import app
from benchsift.simulate import SimulationConfig, simulate_panel
from benchsift.simulate.verdicts import simulate_verdicts

runner = CliRunner()


def test_did_you_mean() -> None:
    assert did_you_mean("vaww", ["random", "vaw", "variance"]) == " (did you mean 'vaw'?)"
    assert did_you_mean("MMMU_dev", ["MMMU_DEV_VAL", "MMBench"]) == " (did you mean 'MMMU_DEV_VAL'?)"
    assert did_you_mean("zzzz", ["random", "vaw"]) == ""


def test_version() -> None:
    r = runner.invoke(app, ["--version"])
    assert r.exit_code == 0 and r.stdout == f"benchsift {benchsift.__version__}\n"


@pytest.mark.parametrize(
    ("args", "hint"),
    [
        (["valdate"], "No such command 'valdate' (did you mean 'validate'"),
        (["redundancy", "dimension"], "No such command 'dimension' (did you mean 'dimensions'?)"),
        (["diagnose", "familes"], "(did you mean 'families'?)"),
        (["prism", "scor"], "(did you mean 'score'?)"),
    ],
)
def test_mistyped_subcommands(args: list[str], hint: str) -> None:
    r = runner.invoke(app, args)
    assert r.exit_code == 2
    assert hint in r.output


@pytest.fixture(scope="module")
def panel_path(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("sugg") / "p.parquet"
    simulate_panel(SimulationConfig.small(items_per_benchmark=60), random_state=0).panel.save(path)
    return path


def test_mistyped_names(panel_path: Path, tmp_path: Path) -> None:
    cases = [
        (
            ["validate", str(panel_path), "--selectors", "varaince"],
            "(did you mean 'variance' or 'variance-index'?)",
        ),
        (["validate", str(panel_path), "--protocol", "chronologic"], "(did you mean 'chronological'?)"),
        (
            ["compress", str(panel_path), "--out", str(tmp_path / "s"), "--selector", "autoo"],
            "(did you mean 'auto'?)",
        ),
        (
            ["compress", str(panel_path), "--out", str(tmp_path / "s"), "--variant", "cell"],
            "(did you mean 'cells'",
        ),
        (["redundancy", "dimensions", str(panel_path), "--benchmark", "bench_03"], "(did you mean 'bench03'"),
        (["redundancy", "benchmarks", str(panel_path), "--metric", "srcs"], "(did you mean 'srcc'?)"),
        (["info", str(panel_path), "--format", "markdwn"], "(did you mean 'markdown'?)"),
        (["simulate", "-o", str(tmp_path / "x.parquet"), "--preset", "smal"], "(did you mean 'small'?)"),
    ]
    v = tmp_path / "v.csv"
    simulate_verdicts(4, 60, random_state=0).table.to_csv(v, index=False)
    cases.append((["prism", "score", str(v), "--bootstrap", "20", "--near-tie", "model01,modl02"], "model02"))
    for args, hint in cases:
        r = runner.invoke(app, args)
        assert r.exit_code == 2, (args, r.output)
        assert hint in r.output, (args, r.output)
    # one message for an unknown selector, naming the option it came from
    for args, option in (
        (["validate", str(panel_path), "--selectors", "varaince"], "--selectors"),
        (["compress", str(panel_path), "--out", str(tmp_path / "s"), "--selector", "autoo"], "--selector"),
    ):
        r = runner.invoke(app, args)
        assert f"benchsift: error: {option}: unknown selector " in r.output, r.output
        assert not (tmp_path / "s").exists()
