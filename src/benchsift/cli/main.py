"""``benchsift`` entry point: registers the command groups, nothing else."""

from __future__ import annotations

import typer

from benchsift.cli._common import BenchsiftGroup
from benchsift.cli.demo import demo_command
from benchsift.cli.info import info_command

app = typer.Typer(
    cls=BenchsiftGroup,
    name="benchsift",
    help="Cheaper, sharper VLM evaluation: redundancy analysis, benchmark compression, multi-axis scoring.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)

app.command("info")(info_command)
app.command("demo")(demo_command)
# Command groups (one module each) are registered below.


def main() -> None:
    app()


if __name__ == "__main__":
    main()
