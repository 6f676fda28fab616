"""``--help`` at 80 columns never cuts an option name.

typer lays a help panel out as a rich table whose columns rich shrank evenly when the rows did not fit, with
an ellipsis: at ``COLUMNS=80`` ``adaptive simulate --help`` printed ``--no-benchmark-offse…``, ``adaptive
bank --help`` ``--benchmark-offse…  --no-benchmark-of…`` and ``validate --help`` cut its ``--selectors``
default (:func:`benchsift.cli._common.names_whole`). Every command, group and sub-command is walked.
"""

from __future__ import annotations

import re

import pytest
from _commands import all_commands
from typer.testing import CliRunner

from benchsift.cli.main import app

runner = CliRunner()

COMMANDS = all_commands()
GROUPS = sorted({tuple(path[:1]) for path, _ in COMMANDS if len(path) > 1})
SCREENS = [[]] + [list(g) for g in GROUPS] + [path for path, _ in COMMANDS]


def _help(path: list[str], columns: int = 80) -> str:
    r = runner.invoke(app, [*path, "--help"], env={"COLUMNS": str(columns)}, terminal_width=columns)
    assert r.exit_code == 0, r.output
    return r.stdout


def _names(path: list[str]) -> list[str]:
    """The long option names of the command at ``path`` (the flag and its --no- form, aliases)."""
    command = dict((tuple(p), c) for p, c in COMMANDS).get(tuple(path))
    if command is None:
        return ["--help"]
    return [o for p in command.params for o in [*p.opts, *p.secondary_opts] if o.startswith("--")]


@pytest.mark.parametrize("path", SCREENS, ids=lambda p: " ".join(p) or "benchsift")
def test_help_at_80_columns_shows_every_option_name_whole(path: list[str]) -> None:
    screen = _help(path)
    assert max(len(line) for line in screen.splitlines()) <= 80, path
    cut = re.findall(r"--[\w-]*…", screen)
    assert not cut, (path, cut)
    assert "…" not in screen, (path, [line for line in screen.splitlines() if "…" in line])
    for name in _names(path):
        # whole, on one line: not cut, not folded onto the next line
        assert re.search(rf"(?<![\w-]){re.escape(name)}(?![\w-])", screen), (path, name)


@pytest.mark.parametrize(
    ("path", "names"),
    [
        (["adaptive", "simulate"], ["--no-benchmark-offsets", "--no-balance"]),
        (["adaptive", "bank"], ["--benchmark-offsets", "--no-benchmark-offsets"]),
    ],
)
def test_the_names_that_were_cut(path: list[str], names: list[str]) -> None:
    screen = _help(path)
    for name in names:
        assert any(name in line.split() for line in screen.splitlines()), (path, name)


def test_validate_lists_its_default_selectors_whole() -> None:
    flat = " ".join(_help(["validate"]).replace("│", " ").split())
    assert "(default: random, variance, vaw, disco, pointbiserial, irt2pl, anchorpoints)" in flat, flat[:2000]


def _help_column(screen: str) -> int:
    """Where the help text starts on the options panel's rows: the column after the widest name cells."""
    starts = []
    for line in screen.splitlines():
        cells = re.match(r"│ (?:\*  |   )?(--[\w-]+)(.*?)(\S.*)│$", line)
        if cells:
            starts.append(len(line) - len(cells.group(3)) - 1)
    return max(starts, default=0)


@pytest.mark.parametrize("path", [p for p, _ in COMMANDS], ids=" ".join)
def test_the_help_text_keeps_room_at_80_columns(path: list[str]) -> None:
    """A flag's negative name (``--no-benchmark-offsets``) goes under the flag instead of a column of its own,
    which left ``adaptive bank --help`` a help column of about 15 characters (217 lines; audit s32 F08)."""
    screen = _help(path)
    assert 80 - _help_column(screen) >= 30, (path, screen[:3000])
