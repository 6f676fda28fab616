"""``benchsift demo``: every method end to end on built-in simulated data."""

from __future__ import annotations

from pathlib import Path

import typer

from benchsift.cli._common import FORCE, console, outputs, print_json
from benchsift.report.demo import run_demo


def demo_command(
    out: Path = typer.Option(Path("benchsift-demo"), "--out", help="Folder for everything the demo makes."),
    seed: int = typer.Option(0, "--seed", help="Seed for the simulated data and every random choice."),
    long_csv: bool = typer.Option(
        False, "--long-csv", help="Also write the simulated panel as a long CSV (panel/long.csv, ~23 MB)."
    ),
    json_output: bool = typer.Option(False, "--json", help="Print the demo summary as JSON at the end."),
    force: bool = FORCE,
) -> None:
    """Run the demo on simulated data; write tables, figures, suites and OUT/index.html (open it)."""
    outputs(force, dirs=[out])
    summary = run_demo(out, seed=seed, console=console if not json_output else None, long_csv=long_csv)
    if json_output:
        print_json(summary)
    else:
        console.print(f"[bold green]demo finished[/] in {summary['seconds']:.1f} s; outputs in {out}/")
        console.print(f"open the report: {summary['report']}")
