"""``--help`` prints every help text as it is written, and a flag shows no value type.

typer renders help as rich markup, where a bracketed word is a style tag: ``pip install 'benchsift[dask]'``
was printed as ``pip install 'benchsift'`` and ``[judges] audit`` as ``audit``
(:func:`benchsift.cli._output.literal_help`). typer shows ``<bool>`` in the type column of a flag, which
reads as if ``--json`` took a value; the column is blank for flags.
"""

from __future__ import annotations

import pytest
from _commands import all_commands
from typer.testing import CliRunner

from benchsift.cli.main import app

runner = CliRunner()


COMMANDS = all_commands()


def _written(escaped: str) -> str:
    """The help text as its author wrote it: the escaped text with rich's escapes taken out."""
    return escaped.replace("\\[", "[")


def _flat(text: str) -> str:
    """The help screen as one line of words: box borders dropped, whitespace folded."""
    return " ".join(text.replace("│", " ").replace("╭", " ").replace("╰", " ").split())


@pytest.mark.parametrize("path", [p for p, _ in COMMANDS], ids=" ".join)
def test_help_prints_every_text_as_written(path: list[str]) -> None:
    command = dict((tuple(p), c) for p, c in COMMANDS)[tuple(path)]
    r = runner.invoke(app, [*path, "--help"], env={"COLUMNS": "400"}, terminal_width=400)
    assert r.exit_code == 0, r.output
    screen = _flat(r.stdout)
    for param in command.params:
        if getattr(param, "help", None):
            assert _flat(_written(param.help)) in screen, (path, param.name)
    first = _flat(_written((command.help or "").split("\n\n")[0]))
    assert first in screen, path
    assert "<bool>" not in screen, path


def test_the_texts_that_lost_words() -> None:
    """The help texts that printed without their bracketed words before (each named here)."""
    shown = {
        " ".join(path): _flat(runner.invoke(app, [*path, "--help"], terminal_width=400).stdout)
        for path in (["validate"], ["prism", "grade"], ["prism", "sources"], ["prism", "run"])
    }
    assert "pip install 'benchsift[dask]' / '[ray]'" in shown["validate"]
    assert "with [judges] audit into this table" in shown["prism grade"]
    assert "postgresql:// URL (benchsift[postgres])" in shown["prism grade"]
    assert "(needs benchsift[hf])" in shown["prism sources"]
    assert "postgresql:// URL (benchsift[postgres])" in shown["prism run"]


def test_the_root_help_shows_no_value_type_for_its_flags() -> None:
    r = runner.invoke(app, ["--help"], terminal_width=200)
    assert r.exit_code == 0
    flags = [ln for ln in r.stdout.splitlines() if "--version" in ln or "--help" in ln]
    assert len(flags) == 2 and not any("<bool>" in ln for ln in flags)
