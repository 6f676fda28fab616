"""What the commands print besides errors: warnings, and (see :func:`print_table`) tables in any format.

Warnings are the settings that changed what the user asked (a floor above the retention, a protocol using
only part of the models, a selector missing its inputs, files written). In table mode each is one line
``warning: ...`` on stdout after the tables; with ``--json`` the same lines are the ``"warnings"`` list of
the JSON object, so nothing is said in one mode and hidden in the other.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any

import typer

from benchsift._suggest import did_you_mean
from benchsift.cli._common import BenchsiftGroup, names_whole

if TYPE_CHECKING:
    from rich.console import Console


def print_warnings(warnings: Iterable[str], console: Console | None = None) -> None:
    """Print each warning as a yellow ``warning: ...`` line, the parameters it names in backticks written
    as options (:func:`~benchsift.cli._common.as_options`). On a terminal a long warning is wrapped
    between words to its width (the terminal broke it mid-word); piped, each warning stays one line."""
    from rich.markup import escape

    from benchsift.cli import _common
    from benchsift.report.console import TableConsole

    con = console if console is not None else _common.console
    for w in map(_common.as_options, map(str, warnings)):  # the library's `floor` is the CLI's --floor
        if isinstance(con, TableConsole) and con.warn(w):
            continue  # --format json: in the JSON object's "warnings"
        con.print(f"[yellow]warning: {escape(w)}[/]", soft_wrap=not con.is_terminal)


def with_format(func: Callable[..., Any]) -> Callable[..., Any]:
    """``func`` (a typer command) with a ``--format table|csv|markdown|json`` option added.

    The option sets the format of every table the command prints (:mod:`benchsift.report.console`); with
    ``json`` the tables and warnings are printed as one JSON object when the command returns.
    """
    # eval_str: the commands' modules use postponed annotations, and typer reads a given __signature__ as
    # it is, so the Annotated[..., typer.Option(...)] hints must be evaluated here.
    sig = inspect.signature(func, eval_str=True)
    if "output_format" in sig.parameters:
        return func

    @functools.wraps(func)
    def wrapper(*args: Any, output_format: str = "table", **kwargs: Any) -> Any:
        from benchsift.report.console import flush_json, set_format

        set_format(output_format)
        result = func(*args, **kwargs)
        flush_json()
        return result

    option = inspect.Parameter(
        "output_format",
        inspect.Parameter.KEYWORD_ONLY,
        default=typer.Option(
            "table",
            "--format",
            help="Tables as: table (fitted to the terminal), csv, markdown or json. --json: the full result.",
        ),
        annotation=str,
    )
    params = [p for p in sig.parameters.values() if p.kind is not inspect.Parameter.VAR_KEYWORD]
    wrapper.__signature__ = sig.replace(parameters=[*params, option])  # type: ignore[attr-defined]
    wrapper.__annotations__ = {**getattr(func, "__annotations__", {}), "output_format": str}
    return wrapper


def add_format_option(app: typer.Typer, skip: Iterable[str] = ()) -> None:
    """Add ``--format`` (:func:`with_format`) to every command of ``app`` and of its sub-apps, except the
    command names in ``skip``."""
    skipped = set(skip)
    for info in app.registered_commands:
        name = info.name or (info.callback.__name__ if info.callback else "")
        if info.callback is not None and name not in skipped:
            info.callback = with_format(info.callback)
    for group in app.registered_groups:
        if group.typer_instance is not None:
            add_format_option(group.typer_instance, skipped)


def literal_help(command: Any) -> Any:
    """``command`` and its sub-commands (a click command built by typer), their help shown as written.

    typer renders help as rich markup, where a bracketed word is a style tag and vanishes: ``pip install
    'benchsift[dask]'`` read ``pip install 'benchsift'``. Every help text is escaped
    (:func:`rich.markup.escape`), so ``--help`` prints it verbatim. A flag's type column is left blank:
    typer shows ``<bool>`` there, which reads as if ``--json`` took a value (``--json true`` is an error).

    No ``rich_markup_mode`` of typer does this on both supported ends (checked on typer 0.12.5 and 0.29.2,
    ``benchsift validate --help``): ``"rich"`` set explicitly parses markup on both and drops the
    ``[dask]`` of the help; typer 0.12.5's implicit default leaves the text alone but 0.29.2's parses it;
    ``None`` prints click's plain help on both (no panels, every page changes); ``"markdown"`` keeps the
    brackets but drops backticks and moves ``[default: ...]`` to lines of their own. Hence the escaping here.
    """
    from rich.markup import escape

    command.help = escape(command.help) if command.help else command.help
    command.short_help = escape(command.short_help) if command.short_help else command.short_help
    helper = command.get_help_option(typer.Context(command))  # made once, kept by the command
    for param in [*command.params, *([helper] if helper is not None else [])]:
        if getattr(param, "help", None):
            param.help = escape(param.help)
        if getattr(param, "is_flag", False) and param.metavar is None:
            param.metavar = ""
    if not getattr(command, "_names_whole", False):  # names_whole: no option name cut at 80 columns
        command.format_help = _with_names_whole(command.format_help)
        command._names_whole = True
    for sub in getattr(command, "commands", {}).values():
        literal_help(sub)
    return command


def _with_names_whole(format_help: Callable[..., Any]) -> Callable[..., Any]:
    @functools.wraps(format_help)
    def render(*args: Any, **kwargs: Any) -> Any:
        with names_whole():
            return format_help(*args, **kwargs)

    return render


class SuggestingGroup(BenchsiftGroup):
    """A command group whose "no such command" error names the closest commands (did you mean ...?)."""

    def resolve_command(self, ctx: Any, args: list[str]) -> Any:
        name = args[0] if args else None
        if name is not None and not name.startswith("-") and self.get_command(ctx, name) is None:
            hint = did_you_mean(name, self.list_commands(ctx))
            ctx.fail(f"No such command {name!r}{hint}.")
        return super().resolve_command(ctx, args)
