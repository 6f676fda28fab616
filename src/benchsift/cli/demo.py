"""``benchsift demo``: every method end to end on built-in simulated data."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

from rich.text import Text

from benchsift.cli import _common
from benchsift.cli._common import ForceOpt, emit, opt, outputs
from benchsift.workflows.demo import run_demo


def demo_command(
    out: Annotated[Path, opt("Folder for everything the demo makes.", "--out")] = Path("benchsift-demo"),
    seed: Annotated[int, opt("Seed for the simulated data and every random choice.")] = 0,
    long_csv: Annotated[
        bool, opt("Also write the simulated panel as a long CSV (panel/long.csv, ~23 MB).", "--long-csv")
    ] = False,
    json_output: Annotated[bool, opt("Print the demo summary as JSON at the end.", "--json")] = False,
    force: ForceOpt = False,
) -> None:
    """Run the demo on simulated data; write tables, figures, suites and OUT/index.html (open it)."""
    outputs(force, dirs=[out])
    run = run_demo(
        out, random_state=seed, console=_common.console if not json_output else None, long_csv=long_csv
    )
    done = Text.assemble(
        ("demo finished", "bold green"), f" in {run.payload['seconds']:.1f} s; outputs in {out}/"
    )
    emit(json_output, run, after=[done, f"open the report: {run.payload['report']}"])
