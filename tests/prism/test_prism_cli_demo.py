"""`benchsift prism score|analyze` end to end, and the demo section."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import typer
from rich.console import Console
from typer.testing import CliRunner

from benchsift.cli._common import BenchsiftGroup
from benchsift.cli.prism import app as prism_app
from benchsift.simulate.verdicts import simulate_verdicts
from benchsift.workflows.demo_prism import run_demo_section

# the `prism` group wired like benchsift.cli.main (BenchsiftGroup: BenchsiftError -> exit 2)
root = typer.Typer(cls=BenchsiftGroup, pretty_exceptions_enable=False)
root.add_typer(prism_app, name="prism")


def test_score_json_and_out(tmp_path: Path, check_summary_keys: Callable[..., None]) -> None:
    sim = simulate_verdicts(4, 150, unanswered_rate=0.02, random_state=0)
    path = tmp_path / "v.csv"
    sim.table.to_csv(path, index=False)
    out = tmp_path / "out"
    r = CliRunner().invoke(
        root,
        [
            "prism",
            "score",
            str(path),
            "--bootstrap",
            "100",
            "--json",
            "--out",
            str(out),
            "--near-tie",
            "model01,model02",
        ],
    )
    assert r.exit_code == 0, r.output
    obj = json.loads(r.stdout)
    check_summary_keys(obj, set(sim.arrays.axes), set(sim.arrays.models), True)
    assert (out / "result.json").exists() and (out / "leaderboard.csv").exists()
    assert (out / "figures" / "pscore_forest.png").exists()
    # same seed, same numbers
    r2 = CliRunner().invoke(root, ["prism", "score", str(path), "--bootstrap", "100", "--json"])
    assert json.loads(r2.stdout)["ci"] == obj["ci"]


def test_errors_exit_2(tmp_path: Path) -> None:
    bad = tmp_path / "bad.csv"
    bad.write_text("model,item\na,1\n")
    r = CliRunner().invoke(root, ["prism", "score", str(bad)])
    assert r.exit_code == 2 and "missing column" in r.output
    r = CliRunner().invoke(root, ["prism", "analyze", "--axis-means", str(tmp_path / "none.csv")])
    assert r.exit_code == 2 and "not found" in r.output


def test_demo_section(tmp_path: Path) -> None:
    run = run_demo_section(tmp_path, 0, Console(quiet=True))
    summary = run.payload
    assert run.files == [Path(f) for f in summary["files"]] and run.warnings == []
    assert (tmp_path / "prism" / "result.json").exists()
    assert all(Path(f).exists() for f in summary["files"])
    json.dumps(summary)
    assert summary["near_tie_p"] > 0.05  # planted identical pair
    assert summary["pscore_recovery_max_abs_error"] < 0.05


def test_registered_in_main() -> None:
    import typer.main

    from benchsift.cli.main import COMMANDS, app

    assert COMMANDS["prism"].module == "benchsift.cli.prism"
    group = typer.main.get_command(app)
    assert group.load("prism").name == "prism"  # type: ignore[attr-defined]
