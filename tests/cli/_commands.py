"""Every command of the CLI, for the tests that walk them all (help, declared ranges)."""

from __future__ import annotations

from typing import Any

import typer

from benchsift.cli.main import app


def all_commands() -> list[tuple[list[str], Any]]:
    """``(path, click command)`` of every command under the root, sub-commands included."""
    group = typer.main.get_command(app)
    out: list[tuple[list[str], Any]] = []
    for name in group.list_commands(typer.Context(group)):  # type: ignore[attr-defined]
        cmd = group.load(name)  # type: ignore[attr-defined]
        subs = getattr(cmd, "commands", {})
        out += [([name, sub], c) for sub, c in subs.items()] if subs else [([name], cmd)]
    return out
