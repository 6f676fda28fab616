"""``benchsift report DIR``: write ``DIR/index.html``, one self-contained page of what DIR holds."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from benchsift.cli._common import console, print_json
from benchsift.report.html import collect_report, write_report


def report_command(
    directory: Annotated[
        Path, typer.Argument(help="An output folder of a benchsift command (--out DIR, a suite, the demo).")
    ],
    title: Annotated[str | None, typer.Option(help="Page title (default: the folder's name).")] = None,
    json_output: Annotated[
        bool, typer.Option("--json", help="Print one JSON object (the page's path and contents).")
    ] = False,
) -> None:
    """Write DIR/index.html: every section's run, headline numbers, tables, figures, notes and files."""
    path = write_report(directory, title=title)
    page, sections = collect_report(directory)
    if json_output:
        print_json(
            {
                "report": str(path),
                "sections": [
                    {
                        "name": s.title,
                        "figures": len(s.figures),
                        "tables": len(s.tables),
                        "files": len(s.files),
                    }
                    for s in sections
                ],
                "warnings": [*page["warnings"], *(w for s in sections for w in s.warnings)],
            }
        )
        return
    for w in page["warnings"]:
        console.print(f"[yellow]warning: {w}[/]")
    n_fig = sum(len(s.figures) for s in sections)
    n_tab = sum(len(s.tables) for s in sections)
    console.print(f"report written: {path} ({len(sections)} sections, {n_fig} figures, {n_tab} tables)")
