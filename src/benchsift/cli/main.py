"""``benchsift`` entry point: registers the command groups, nothing else."""

from __future__ import annotations

import typer

from benchsift import __version__
from benchsift.cli._output import SuggestingGroup, add_format_option
from benchsift.cli.adaptive import app as adaptive_app
from benchsift.cli.compress import compress_command, estimate_command
from benchsift.cli.demo import demo_command
from benchsift.cli.diagnose import app as diagnose_app
from benchsift.cli.export import export_command
from benchsift.cli.importers import app as import_app
from benchsift.cli.info import info_command
from benchsift.cli.prism import app as prism_app
from benchsift.cli.redundancy import app as redundancy_app
from benchsift.cli.report import report_command
from benchsift.cli.simulate import simulate_command
from benchsift.cli.validate import validate_command

app = typer.Typer(
    cls=SuggestingGroup,
    name="benchsift",
    help="Cheaper, sharper VLM evaluation: redundancy analysis, benchmark compression, multi-axis scoring.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)


def _version(value: bool) -> None:
    if value:
        typer.echo(f"benchsift {__version__}")
        raise typer.Exit()


@app.callback()
def _root(
    version: bool = typer.Option(
        False, "--version", callback=_version, is_eager=True, help="Print the version and exit."
    ),
) -> None:
    """Cheaper, sharper VLM evaluation: redundancy analysis, benchmark compression, multi-axis scoring."""


# In the order a user meets them: bring results in, look, analyse, compress, validate, score, report, demo.
app.add_typer(import_app, name="import")
app.command("info")(info_command)
app.command("simulate")(simulate_command)
app.add_typer(redundancy_app, name="redundancy", cls=SuggestingGroup)
app.command("compress")(compress_command)
app.command("export")(export_command)
app.command("estimate")(estimate_command)
app.command("validate")(validate_command)
app.add_typer(adaptive_app, name="adaptive", cls=SuggestingGroup)
app.add_typer(diagnose_app, name="diagnose", cls=SuggestingGroup)
app.add_typer(prism_app, name="prism", cls=SuggestingGroup)
app.command("report")(report_command)
app.command("demo")(demo_command)

# --format table|csv|markdown|json on every command that prints tables (all but `report`).
add_format_option(app, skip=("report",))


def main() -> None:
    app()


if __name__ == "__main__":
    main()
