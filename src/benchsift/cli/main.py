"""``benchsift`` entry point: registers the command groups, nothing else.

The commands are registered lazily: :data:`COMMANDS` names each command's module, and a command's module
(with the library it calls: pandas, scipy, matplotlib, ...) is imported only when that command runs or
its own ``--help`` is asked for. ``benchsift --help`` lists the commands from the short help kept here
(tests/cli/test_startup.py checks it is each command's own), and ``benchsift --version`` imports nothing
of the library, so both start in a fraction of a second (benchmarks/bench_startup.py).
"""

from __future__ import annotations

import importlib
import signal
from dataclasses import dataclass
from typing import Any

import typer
import typer.core

from benchsift._version import __version__
from benchsift.cli._output import SuggestingGroup, add_format_option, literal_help, with_format


@dataclass(frozen=True)
class LazyCommand:
    """One command of the root group: where it lives and its one-line help for ``benchsift --help``."""

    module: str
    attribute: str
    short_help: str
    group: bool = False  #: a typer sub-app (``benchsift redundancy ...``) rather than one command
    suggesting: bool = True  #: a sub-app whose group class is the root's SuggestingGroup
    tables: bool = True  #: prints tables: gets ``--format`` (all but ``report``)


#: The root group's commands in the order ``benchsift --help`` lists them.
COMMANDS: dict[str, LazyCommand] = {
    "info": LazyCommand(
        "benchsift.cli.info",
        "info_command",
        "Describe a panel: models, items, benchmarks, mean score and coverage, per benchmark and per model.",
    ),
    "simulate": LazyCommand(
        "benchsift.cli.simulate",
        "simulate_command",
        "Simulate a panel with known ground truth (multidimensional 2PL; see benchsift.simulate).",
    ),
    "compress": LazyCommand(
        "benchsift.cli.compress",
        "compress_command",
        "Compress a panel into a small suite (PRIMEBench Stages 0-3) and write the suite directory.",
    ),
    "export": LazyCommand(
        "benchsift.cli.export",
        "export_command",
        "Write what the harness (--to) needs to run exactly the suite's items, and the command to run them.",
    ),
    "estimate": LazyCommand(
        "benchsift.cli.compress",
        "estimate_command",
        "Estimate new models' category means, overall score and rank from their scores on a suite.",
    ),
    "validate": LazyCommand(
        "benchsift.cli.validate",
        "validate_command",
        "Validate Stage 2 selectors on held-out models (PRIMEBench D.3) and print the paper's tables.",
    ),
    "audit": LazyCommand(
        "benchsift.cli.audit",
        "audit_command",
        "Audit every benchmark of a panel: discrimination, saturation, signal-to-noise, duplicates, DIF.",
    ),
    "compare": LazyCommand(
        "benchsift.cli.compare",
        "compare_command",
        "Which models are really apart (pairwise tests, rank intervals, tie groups) and the benchmark's MDD.",
    ),
    "report": LazyCommand(
        "benchsift.cli.report",
        "report_command",
        "Write DIR/index.html: each section's answer, then its tables, figures, notes, parameters and files.",
        tables=False,
    ),
    "demo": LazyCommand(
        "benchsift.cli.demo",
        "demo_command",
        "Run the demo on simulated data; write tables, figures, suites and OUT/index.html (open it).",
    ),
    "import": LazyCommand(
        "benchsift.cli.importers",
        "app",
        "Import evaluation results into a panel file (parquet).",
        group=True,
        suggesting=False,  # its own group class: an unknown format is a one-line input error
    ),
    "redundancy": LazyCommand(
        "benchsift.cli.redundancy",
        "app",
        "Redundancy analysis: dimensions (Eq. 1-2), instances (Eq. 3), benchmarks (Eq. 4).",
        group=True,
    ),
    "adaptive": LazyCommand(
        "benchsift.cli.adaptive",
        "app",
        "Adaptive testing: fit an item bank, choose the next items, replay logged runs.",
        group=True,
    ),
    "diagnose": LazyCommand(
        "benchsift.cli.diagnose",
        "app",
        "Diagnostics: spectrum, Stage 3 on aggregates, shelf life, left-out prediction, ...",
        group=True,
    ),
    "prism": LazyCommand(
        "benchsift.cli.prism",
        "app",
        "Multi-axis scoring (PRISM-VLM): PScore, paired bootstrap separation, axis analyses.",
        group=True,
    ),
}


def build_command(name: str) -> Any:
    """Import command ``name``'s module and build its click command, as ``app.command`` / ``add_typer``
    with ``--format`` (:func:`benchsift.cli._output.add_format_option`) would have."""
    spec = COMMANDS[name]
    target = getattr(importlib.import_module(spec.module), spec.attribute)
    holder = typer.Typer(add_completion=False)
    if spec.group:
        if spec.tables:
            add_format_option(target)  # idempotent: with_format skips a command that already has it
        if spec.suggesting:
            holder.add_typer(target, name=name, cls=SuggestingGroup)
        else:
            holder.add_typer(target, name=name)
        return literal_help(typer.main.get_command(holder).commands[name])  # type: ignore[attr-defined]
    holder.command(name)(with_format(target) if spec.tables else target)
    return literal_help(typer.main.get_command(holder))


class LazyGroup(SuggestingGroup):
    """The root group: lists :data:`COMMANDS` from their short help, imports a command when it runs."""

    def list_commands(self, ctx: Any) -> list[str]:
        return [*super().list_commands(ctx), *(n for n in COMMANDS if n not in self.commands)]

    def get_command(self, ctx: Any, cmd_name: str) -> Any:
        found = super().get_command(ctx, cmd_name)
        if found is None and cmd_name in COMMANDS:
            # for the listing of `benchsift --help` only: resolve_command loads the real command
            return typer.core.TyperCommand(cmd_name, short_help=COMMANDS[cmd_name].short_help)
        return found

    def load(self, cmd_name: str) -> Any:
        """The real command ``cmd_name`` (imported and built once)."""
        if cmd_name not in self.commands:
            self.commands[cmd_name] = build_command(cmd_name)
        return self.commands[cmd_name]

    def get_help_option(self, ctx: Any) -> Any:
        option = super().get_help_option(ctx)
        if option is not None:
            option.metavar = ""  # a flag: no <bool> type column (see literal_help)
        return option

    def resolve_command(self, ctx: Any, args: list[str]) -> Any:
        if args and args[0] in COMMANDS:
            self.load(args[0])
        return super().resolve_command(ctx, args)


app = typer.Typer(
    cls=LazyGroup,
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
        False, "--version", callback=_version, is_eager=True, help="Print the version and exit.", metavar=""
    ),
) -> None:
    """Cheaper, sharper VLM evaluation: redundancy analysis, benchmark compression, multi-axis scoring."""


#: the SIGTERMs received by :func:`main` (its handler records them)
_TERMINATED: list[int] = []


def _terminated(signum: int, frame: Any) -> None:
    """SIGTERM raises KeyboardInterrupt where the process is, as SIGINT does: the same clean-up runs."""
    _TERMINATED.append(signum)
    raise KeyboardInterrupt


def main() -> None:
    """``benchsift``: the root group, SIGTERM handled as SIGINT is (a write in flight removes its temporary
    files, nothing is printed), exit code 128 + 15 as SIGINT's is 128 + 2."""
    _TERMINATED.clear()
    previous = signal.signal(signal.SIGTERM, _terminated)
    try:
        app()
    except SystemExit:
        if _TERMINATED:
            raise SystemExit(128 + signal.SIGTERM) from None
        raise
    finally:
        signal.signal(signal.SIGTERM, previous)


if __name__ == "__main__":
    main()
