"""Shared CLI plumbing: error handling, JSON output, consoles."""

from __future__ import annotations

import contextlib
import contextvars
import errno
import json
import os
import re
import sys
import warnings
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, overload

import typer
from typer.core import TyperGroup

from benchsift._fileio import (
    ENVIRONMENT_ERRNOS,
    check_output_dir,
    check_output_file,
    check_output_page,
    force_overwrite,
    output_command,
)
from benchsift._inputs import check_distinct
from benchsift.errors import BenchsiftError, BenchsiftWarning, InputError, ResultWarning
from benchsift.parallel import BACKENDS, sweep_backend  # joblib is imported on use
from benchsift.report.progress import close_all

#: Human-readable output goes to stderr when --json is active, so stdout carries one JSON object only.
#: Both render rich tables in the chosen ``--format``, fitted to the terminal
#: (:mod:`benchsift.report.console`). They are made on first use (module ``__getattr__``), so
#: ``benchsift --version`` never imports rich, and anew for each command (:class:`BenchsiftGroup`): a
#: rich console fixes its width (``COLUMNS``), colours and terminal detection when it is made, so one
#: kept for the process printed a second command run in it (a notebook, ``CliRunner``) at the first one's
#: width: 300 columns after a run under ``COLUMNS=300``. Read them as ``_common.console`` when printing,
#: never ``from benchsift.cli._common import console`` (that keeps one).
if TYPE_CHECKING:
    from rich.console import Console
    from rich.text import Text

    console: Console
    err_console: Console

_CONSOLES: dict[str, dict[str, Any]] = {"console": {}, "err_console": {"stderr": True}}
#: the consoles of the running command (None outside a command: each use makes a fresh one)
_MADE: contextvars.ContextVar[dict[str, Any] | None] = contextvars.ContextVar(
    "benchsift_consoles", default=None
)


def __getattr__(name: str) -> Any:
    if name in _CONSOLES:
        from benchsift.report.console import TableConsole

        made = _MADE.get()
        if made is None:
            return TableConsole(**_CONSOLES[name])
        if name not in made:
            made[name] = TableConsole(**_CONSOLES[name])
        return made[name]
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def _in_own_consoles(func: Callable[..., Any], running: RunningCommand | None, *args: Any) -> Any:
    """``func(*args)`` with consoles of its own, made on first use in the environment it runs in (run in a
    copied context: they end with it), and ``running`` as the command whose flags messages name."""
    _MADE.set({})
    _RUNNING.set(running)
    return _printing_warnings(func, *args)


#: click's exception base (raised for usage errors), reached through typer's public BadParameter
_ClickException: type[Exception] = next(
    c for c in typer.BadParameter.__mro__ if c.__name__ == "ClickException"
)

#: exit code of an internal error (a bug): distinct from 2, the code of every refused input
EXIT_BUG = 70


#: a parameter named in a library message: `name` (the library never names CLI flags, the CLI does)
_PARAMETER = re.compile(r"`([a-z][a-z_]*)`")
#: a message's subject written bare: ``random_state: expected ...``
_BARE_SUBJECT = re.compile(r"^([a-z][a-z_]*)(?=: )")
#: library parameters whose CLI flag has another name (the library's `random_state` is every command's --seed)
_FLAG_NAMES = {"random_state": "seed"}
#: library parameters a command may take under another name: tried, in order, after the parameter's own
#: name among the running command's options. `validate --retentions 0.05,0` checks each value as
#: `retention`; `--splits` is the library's `n_splits`; `prism score --sc-variant` its `variant`.
_CLI_NAMES: dict[str, tuple[str, ...]] = {
    "random_state": ("seed",),
    "retention": ("retentions",),
    "n_splits": ("splits",),
    "variant": ("sc_variant",),
    "ks": ("k",),
}


class RunningCommand:
    """The command a group is running: its options (parameter name -> flags) and the arguments typed, so
    that a message names the flag the user typed (``--bootstrap``, the old name of ``--n-boot``) and a
    library parameter the command takes under another name its option (`retention` -> ``--retentions``)."""

    def __init__(self, command: Any, argv: Iterable[str]) -> None:
        self.flags: dict[str, list[str]] = {}
        for param in getattr(command, "params", []):
            opts = [o for o in [*param.opts, *param.secondary_opts] if o.startswith("--")]
            if opts and param.name:
                self.flags[param.name] = opts
        self.typed = [str(a).partition("=")[0] for a in argv]

    def flag(self, name: str) -> str | None:
        """The option that stands for the library parameter ``name`` in this command (the one of its flags
        that was typed, else its first), or None when it has none."""
        for candidate in (name, *_CLI_NAMES.get(name, ())):
            opts = self.flags.get(candidate)
            if opts:
                return next((o for o in opts if o in self.typed), opts[0])
        return None


#: the command running in this context (None outside one): set by :class:`BenchsiftGroup`
_RUNNING: contextvars.ContextVar[RunningCommand | None] = contextvars.ContextVar(
    "benchsift_running", default=None
)


def as_options(message: str, running: RunningCommand | None = None) -> str:
    """A library message with each parameter it names in backticks (`` `max_lost` ``) written as this
    CLI's option (``--max-lost``): the library phrases errors by parameter name, the CLI by flag. Within a
    command (``running``, by default the one running) the option is the command's own: the flag typed when
    an option has two (``--bootstrap`` / ``--n-boot``), and a parameter the command takes under another
    name by that name (:data:`_CLI_NAMES`: `retention` is ``validate --retentions``)."""
    running = running if running is not None else _RUNNING.get()

    def flag(m: re.Match[str]) -> str:
        own = running.flag(m.group(1)) if running is not None else None
        return own or "--" + _FLAG_NAMES.get(m.group(1), m.group(1)).replace("_", "-")

    def bare(m: re.Match[str]) -> str:
        own = running.flag(m.group(1)) if running is not None and m.group(1) in _CLI_NAMES else None
        return own or m.group(1)

    # a message that opens with a bare parameter name (`check_random_state`'s "random_state: expected ...")
    return _PARAMETER.sub(flag, _BARE_SUBJECT.sub(bare, message))


def said(obj: Any) -> Any:
    """``obj`` (a command's JSON object) with its top-level ``"warnings"`` and ``"notes"`` lines written as
    this CLI says them (:func:`as_options`): the library names parameters, ``--json`` the command's flags, as
    the printed lines do."""
    if not isinstance(obj, dict):
        return obj
    out = dict(obj)
    for key in ("warnings", "notes"):
        lines = out.get(key)
        if isinstance(lines, list) and all(isinstance(x, str) for x in lines):
            out[key] = [as_options(x) for x in lines]
    return out


def one_line(message: str, running: RunningCommand | None = None) -> str:
    """``benchsift: error: <message>`` with every run of whitespace (newlines too) collapsed to one space,
    the parameters the message names written as options (:func:`as_options`; ``running``: the command that
    failed) and control characters escaped (:func:`~benchsift.report.console.printable`: a file name with an
    ESC cannot drive the terminal)."""
    from benchsift.report.console import printable  # rich: imported when there is something to print

    text = " ".join(as_options(str(message), running).split())
    return "benchsift: error: " + printable(text, newlines=False)


def _printing_warnings(func: Callable[..., Any], *args: Any) -> Any:
    """``func(*args)``, each :class:`~benchsift.errors.BenchsiftWarning` it issues printed once as one line
    ``benchsift: warning: ...`` on stderr when issued (stdout stays one JSON object with ``--json``); other
    warnings go where they went. A :class:`~benchsift.errors.ResultWarning` is a line of the result's
    ``warnings``, which the command prints with its tables (and in ``--json``): not printed twice."""
    seen: set[str] = set()
    with warnings.catch_warnings():
        warnings.simplefilter("always", BenchsiftWarning)
        warnings.simplefilter("ignore", ResultWarning)
        shown = warnings.showwarning

        def show(message: Any, category: type[Warning], *rest: Any, **kw: Any) -> None:
            if not issubclass(category, BenchsiftWarning):
                shown(message, category, *rest, **kw)
                return
            from benchsift.report.console import printable

            text = printable(" ".join(as_options(str(message)).split()), newlines=False)
            if text not in seen:
                seen.add(text)
                typer.echo(f"benchsift: warning: {text}", err=True)

        warnings.showwarning = show
        return func(*args)


def _environment_error(exc: BaseException) -> str | None:
    """``"<file>: <error> [<ERRNO>]"`` for an ``OSError`` of an environment that does not take a write (a
    full disk, a file-size limit, a read-only file system, no permission:
    :data:`benchsift._fileio.ENVIRONMENT_ERRNOS`), a line saying memory ran out for a ``MemoryError`` or
    ``ENOMEM`` (numpy refuses an allocation larger than the machine before making it: a count option of
    1e12 asked for 87 TiB), None for any other exception."""
    if isinstance(exc, MemoryError) or (isinstance(exc, OSError) and exc.errno == errno.ENOMEM):
        detail = " ".join(str(exc).split())[:200]
        return (
            "not enough memory for this command"
            + (f" ({detail})" if detail else "")
            + ": a smaller input, or smaller counts (--n-boot, --repeats, --splits, sizes), need less"
        )
    if not isinstance(exc, OSError) or exc.errno is None or exc.errno not in ENVIRONMENT_ERRNOS:
        return None
    where = f"{os.fsdecode(exc.filename)}: " if exc.filename is not None else ""
    return f"{where}{os.strerror(exc.errno)} [{errno.errorcode[exc.errno]}]"


@contextlib.contextmanager
def names_whole() -> Iterator[None]:
    """typer's ``--help`` tables (:mod:`typer.rich_utils`) with every option and command name whole.

    typer builds the table of a panel with rich's default columns, which rich shrinks evenly when the
    rows do not fit: at 80 columns ``adaptive bank --help`` printed ``--benchmark-offse…`` and
    ``--no-benchmark-of…``, names nobody can type. typer has no setting for it, so while a help screen is
    rendered its tables are made with the name columns ``no_wrap`` (rich then narrows the help column
    first) and every column folding instead of cutting with an ellipsis (a name, or a long default such
    as ``validate --selectors``'s, goes on the next line whole)."""
    from rich.table import Table
    from rich.text import Text
    from typer import rich_utils

    class HelpTable(Table):
        def add_row(self, *renderables: Any, **kw: Any) -> None:
            renderables = _negative_under(renderables)
            for cell in renderables:  # the help cell: a Columns of Text (the text, its default), or a Text
                for text in [cell, *getattr(cell, "renderables", [])]:
                    if isinstance(text, Text):
                        text.overflow = "fold"
            super().add_row(*renderables, **kw)
            for i, column in enumerate(self.columns):
                column.overflow = "fold"
                column.no_wrap = i < len(self.columns) - 1  # the help text (last) wraps

    def _negative_under(cells: tuple[Any, ...]) -> tuple[Any, ...]:
        """An option row (typer: [required], long, short, negative long, negative short, type, help) with
        its negative name (``--no-benchmark-offsets``) under the long one: a column of its own took ~24 of
        80 columns from every option's help (``adaptive bank --help`` wrapped it at ~15 characters)."""
        base = len(cells) - 6
        if base not in (0, 1):
            return cells
        long, negative = cells[base], cells[base + 2]
        if not (isinstance(long, Text) and isinstance(negative, Text) and long.plain and negative.plain):
            return cells
        out = list(cells)
        out[base], out[base + 2] = Text.assemble(long, "\n", negative), Text("")
        return tuple(out)

    saved = rich_utils.Table
    rich_utils.Table = HelpTable  # type: ignore[misc]
    try:
        yield
    finally:
        rich_utils.Table = saved  # type: ignore[misc]


class BenchsiftGroup(TyperGroup):
    """Root command group: the CLI's error boundary.

    * a :class:`~benchsift.errors.BenchsiftWarning` becomes one line ``benchsift: warning: ...`` on stderr;
    * a :class:`~benchsift.errors.BenchsiftError` raised by a command becomes one line
      ``benchsift: error: ...`` on stderr and exit code 2;
    * a usage error (unknown option, bad integer, missing argument) becomes the same one line, exit 2;
    * an ``OSError`` of a failing environment (a full disk, a file-size limit, a read-only file system, no
      permission) becomes the same one line naming the file and the errno, exit 2; so does running out of
      memory (``MemoryError``, ``ENOMEM``), in a line saying so;
    * any other exception is a bug in benchsift: one line ``benchsift: internal error: ...`` asking for a
      report, exit code 70 (``EX_SOFTWARE``); ``BENCHSIFT_TRACEBACK=1`` re-raises it for the traceback.
    """

    def format_help(self, ctx: Any, formatter: Any) -> None:
        with names_whole():
            super().format_help(ctx, formatter)

    def _running(self, ctx: Any) -> RunningCommand | None:
        """The sub-command this group is about to run, with the arguments typed (None when there is none:
        the error is then the group's own, "no such command")."""
        argv = [*getattr(ctx, "_protected_args", []), *ctx.args]
        try:
            _, command, rest = self.resolve_command(ctx, argv)
        except Exception:
            return None
        return RunningCommand(command, rest) if command is not None else None

    def invoke(self, ctx: Any) -> Any:
        running = self._running(ctx)
        try:
            # a fresh context per command: --force (benchsift._fileio.force_overwrite), --format and the
            # consoles end with it
            return contextvars.copy_context().run(_in_own_consoles, super().invoke, running, ctx)
        except (typer.Exit, typer.Abort):
            raise
        except BenchsiftError as exc:
            close_all()  # a bar still drawn must not cover the error line
            typer.echo(one_line(str(exc), running), err=True)
            raise typer.Exit(code=2) from None
        except _ClickException as exc:
            sub = getattr(exc, "ctx", None)
            hint = f" (see {sub.command_path} --help)" if sub is not None else ""
            text = f"{exc.format_message()}{hint}"  # type: ignore[attr-defined]
            typer.echo(one_line(text, running), err=True)
            raise typer.Exit(code=int(getattr(exc, "exit_code", 2))) from None
        except BrokenPipeError:
            # the reader of stdout went away (``benchsift ... | head``): not a bug; stop quietly with the
            # shell's code for a process ended by SIGPIPE (Python docs, "Note on SIGPIPE")
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, sys.stdout.fileno())
            raise typer.Exit(code=141) from None
        except Exception as exc:
            line = _environment_error(exc)
            if line is not None:  # e.g. a full disk under a write that does not go through _fileio
                close_all()
                typer.echo(one_line(line), err=True)
                raise typer.Exit(code=2) from None
            if os.environ.get("BENCHSIFT_TRACEBACK"):
                raise
            from benchsift.report.console import printable

            what = printable(" ".join(f"{type(exc).__name__}: {exc}".split())[:300], newlines=False)
            typer.echo(
                f"benchsift: internal error: {what} -- a bug in benchsift; please report it with the "
                "command line (BENCHSIFT_TRACEBACK=1 shows the traceback)",
                err=True,
            )
            raise typer.Exit(code=EXIT_BUG) from None
        finally:
            close_all()  # a bar left open by a failed command must not cover the error line


def opt(help: str, *flags: str, **kw: Any) -> Any:
    """``typer.Option(*flags, help=help, **kw)``: an option declared on one line (``Annotated[T, opt(...)]``;
    without ``flags`` typer names it after the parameter, ``max_lost`` -> ``--max-lost``)."""
    return typer.Option(*flags, help=help, **kw)


def arg(help: str, **kw: Any) -> Any:
    """``typer.Argument(help=help, **kw)``."""
    return typer.Argument(help=help, **kw)


# The options and arguments several commands share, declared once.
ForceOpt = Annotated[
    bool, opt("Overwrite existing files that benchsift did not write (it never deletes any).", "--force")
]
JsonOpt = Annotated[bool, opt("Print one JSON object instead of tables.", "--json")]
PanelArg = Annotated[Path, arg("Panel file (benchsift parquet) or a long CSV/parquet table.")]
SuiteArg = Annotated[Path, arg("A suite directory written by `benchsift compress`.")]
BackendOpt = Annotated[
    str | None,
    opt(
        f"Where the sweep's tasks run: {', '.join(BACKENDS)} (dask, ray: pip install 'benchsift[dask]' /"
        " '[ray]'; without --address a local cluster is started). Results do not depend on it.",
        "--backend",
    ),
]
AddressOpt = Annotated[
    str | None,
    opt(
        "With --backend dask / ray: the address of a running cluster (tcp://host:8786, ray://host:10001).",
        "--address",
    ),
]
ClustersOpt = Annotated[
    str,
    opt(
        "Item clusters the bootstraps resample whole: auto (a 'cluster' item column, else items sharing an"
        " image), none (every item on its own), or the name of an item column.",
        "--clusters",
    ),
]
NJobsOpt = Annotated[
    int | None, opt("Concurrent tasks (-1: all cores; default 1 without --backend, every worker with one).")
]


def _checked_seed(value: int) -> int:
    """``--seed`` as parsed, checked by the library's own rule (:func:`~benchsift.stats.check_random_state`),
    so that a negative seed is the one line ``--seed: expected an integer >= 0 ...`` (exit 2) before the
    command runs, not a numpy error wherever the seed is first used (``adaptive next``'s exposure draw,
    ``adaptive bank``'s folds: exit 70)."""
    from benchsift.stats import check_random_state  # numpy: imported when a command runs

    check_random_state(value)
    return value


def seed_opt(help: str) -> Any:
    """``--seed`` (an int) with ``help``, checked when it is parsed (:func:`_checked_seed`)."""
    return opt(help, "--seed", callback=_checked_seed)


def _name_the_command() -> None:
    """Record this run's files as the running command's (``redundancy instances``: click's command path
    without the program, reached through typer's Context, as typer 0.2x bundles its own click) until the
    command ends (:func:`benchsift._fileio.output_command`)."""
    import importlib

    base = next(c for c in typer.Context.__mro__[1:] if c.__name__ == "Context")
    click_globals = importlib.import_module(base.__module__.rpartition(".")[0] + ".globals")
    ctx = click_globals.get_current_context(silent=True)
    output_command(None if ctx is None else ctx.command_path.partition(" ")[2] or ctx.command_path)
    if ctx is not None:  # also where no group runs the command in a context of its own
        ctx.call_on_close(lambda: output_command(None))


def outputs(
    force: bool,
    files: Iterable[os.PathLike[str] | str | None] = (),
    dirs: Iterable[os.PathLike[str] | str | None] = (),
    pages: bool = True,
) -> None:
    """Before any work: apply ``--force``, name the command whose files this run writes, and refuse output
    paths that cannot be written.

    The rule is :mod:`benchsift._fileio`'s: an output file must not be a directory nor a file benchsift
    did not write (unless ``--force``); an output directory must not be a file, nor (``pages``: the
    command writes ``index.html`` there) hold a page benchsift would not overwrite. The files are recorded
    as this command's (``redundancy instances``): its rerun replaces them, other commands' stay.
    ``None`` entries (options not given) are skipped.
    """
    force_overwrite(force)
    _name_the_command()
    for f in files:
        if f is not None:
            check_output_file(f)
    for d in dirs:
        if d is not None:
            check_output_dir(d)
            if pages:
                check_output_page(d)


def figure_files(stem: os.PathLike[str] | str | None) -> list[str]:
    """The files ``save_figure(fig, stem)`` writes (``stem.png``, ``stem.svg``); [] for None."""
    from benchsift.report.figures import FORMATS

    return [] if stem is None else [f"{os.fspath(stem)}.{fmt}" for fmt in FORMATS]


def cluster_spec(value: str) -> str | None:
    """``--clusters``: ``none`` -> ``None`` (no clusters); ``auto`` or a column name as given."""
    return None if value == "none" else value


@overload
def split_list(value: str, option: str | None = None) -> list[str]: ...
@overload
def split_list(value: None, option: str | None = None) -> None: ...
@overload
def split_list(value: str | None, option: str | None = None) -> list[str] | None: ...
def split_list(value: str | None, option: str | None = None) -> list[str] | None:
    """A comma-separated option as a list of stripped names (``None`` stays ``None``); empty is an error
    (naming ``option`` when given)."""
    if value is None:
        return None
    parts = [p.strip() for p in value.split(",") if p.strip()]
    if not parts:
        where = f"{option}: " if option else ""
        raise InputError(f"{where}expected a comma-separated list, got {value!r}")
    return parts


def numbers(value: str, option: str, kind: type = float, percent: bool = False) -> list[Any]:
    """A comma-separated option of numbers (``kind`` int or float; with ``percent``, ``5%`` is 0.05)."""
    out: list[Any] = []
    for part in split_list(value, option):
        pct = percent and part.endswith("%")
        try:
            number = kind(part.removesuffix("%") if pct else part)
        except ValueError:
            if kind is int:
                raise InputError(f"{option}: expected comma-separated integers, got {value!r}") from None
            raise InputError(
                f"{option}: {part!r} is not a number (expected fractions like 0.05,0.5)"
            ) from None
        out.append(number / 100.0 if pct else number)
    return out


def pairs(values: Iterable[str] | None, option: str, what: str = "BENCHMARK=VALUE") -> list[tuple[str, str]]:
    """Repeated ``NAME=VALUE`` options as ``(name, value)`` pairs; one line naming the option when one has
    no ``=`` or an empty side."""
    out: list[tuple[str, str]] = []
    for v in values or []:
        name, sep, value = v.partition("=")
        if not sep or not name.strip() or not value.strip():
            raise InputError(f"{option} {v!r}: expected {what}")
        out.append((name.strip(), value.strip()))
    return out


def unique_pairs(values: Iterable[str] | None, option: str) -> dict[str, str]:
    """:func:`pairs` as a dict; a name given twice is an error."""
    given = pairs(values, option)
    if given:
        check_distinct(option, [name for name, _ in given], what="benchmark")
    return dict(given)


def emit(
    json_output: bool,
    obj: Any,
    *shown: Callable[[], Any],
    notes: Iterable[str] = (),
    warnings: Iterable[str] = (),
    after: Iterable[str | Text] = (),
    verbatim: Iterable[str] = (),
) -> None:
    """Print a command's result: with ``--json`` the object ``obj`` (a dict, or a result with
    ``to_dict()``); else what each of ``shown`` returns (a table, a line, or a list of them), then each
    note (dim), each warning (yellow), the ``after`` lines (a string as written, a
    :class:`rich.text.Text` with its style) and the ``verbatim`` lines (commands to copy: never wrapped,
    a line longer than the terminal runs on): none of them is read as markup, so a file or model name with
    a bracketed word (``suite[v2]``) prints whole."""
    if json_output:
        print_json(obj.to_dict() if hasattr(obj, "to_dict") else obj)
        return
    from rich.markup import escape

    from benchsift.cli._output import print_warnings

    con = __getattr__("console")
    for make in shown:
        made = make()
        for item in made if isinstance(made, list | tuple) else [made]:
            con.print(item)
    for n in notes:
        con.print(f"[dim]note: {escape(as_options(str(n)))}[/]")
    print_warnings(warnings)
    for line in after:
        con.print(escape(line) if isinstance(line, str) else line)
    for line in verbatim:
        con.print(line, markup=False, soft_wrap=True)


def print_json(obj: Any) -> None:
    """Print one JSON object on stdout (NaN as null)."""
    from benchsift._jsonutil import to_jsonable  # numpy: imported when a command prints JSON

    sys.stdout.write(json.dumps(to_jsonable(said(obj)), indent=2) + "\n")
    sys.stdout.flush()


def fail(message: str) -> typer.Exit:
    """Print a one-line error and return an Exit(2) to raise."""
    typer.echo(one_line(message), err=True)
    return typer.Exit(code=2)


def sweep_workers(
    ctx: typer.Context, backend: str | None, address: str | None, n_jobs: int | None
) -> int | None:
    """Enter :func:`benchsift.parallel.sweep_backend` for the rest of the running command (closed, and a
    local cluster it started shut down, when the command ends); returns the ``n_jobs`` to pass on."""
    return ctx.with_resource(sweep_backend(backend, address, n_jobs))
