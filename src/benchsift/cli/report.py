"""``benchsift report DIR``: write ``DIR/index.html``, one self-contained page of what DIR holds."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

from benchsift.cli._common import arg, emit, opt
from benchsift.report.html import report_contents, write_report


def report_command(
    directory: Annotated[
        Path, arg("An output folder of a benchsift command (--out DIR, a suite, the demo).")
    ],
    title: Annotated[str | None, opt("Page title (default: the folder's name).")] = None,
    json_output: Annotated[
        bool, opt("Print one JSON object (the page's path and contents).", "--json")
    ] = False,
) -> None:
    """Write DIR/index.html: every section's run, headline numbers, tables, figures, notes and files."""
    path = write_report(directory, title=title)
    contents = report_contents(directory, path)
    sections = contents["sections"]
    n_fig, n_tab = (sum(s[what] for s in sections) for what in ("figures", "tables"))
    line = f"report written: {path} ({len(sections)} sections, {n_fig} figures, {n_tab} tables)"
    emit(json_output, contents, warnings=contents["warnings"], after=[line])
