"""What the commands print besides errors: warnings, and (see :func:`print_table`) tables in any format.

Warnings are the settings that changed what the user asked (a floor above the retention, a protocol using
only part of the models, a selector missing its inputs, files written). In table mode each is one line
``warning: ...`` on stdout after the tables; with ``--json`` the same lines are the ``"warnings"`` list of
the JSON object, so nothing is said in one mode and hidden in the other.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from rich.console import Console
from rich.markup import escape

from benchsift.cli._common import console as _console


def print_warnings(warnings: Iterable[str], console: Console | None = None) -> None:
    """Print each warning as one yellow ``warning: ...`` line."""
    con = console if console is not None else _console
    for w in warnings:
        con.print(f"[yellow]warning: {escape(str(w))}[/]", soft_wrap=True)


def with_warnings(obj: dict[str, Any], *extra: Iterable[str]) -> dict[str, Any]:
    """``obj`` with ``extra`` warnings appended to its ``"warnings"`` list (created, in order, unique)."""
    merged: list[str] = [str(w) for w in obj.get("warnings") or []]
    for group in extra:
        for w in group:
            if w not in merged:
                merged.append(str(w))
    out = dict(obj)
    out["warnings"] = merged
    return out
