"""``benchsift report DIR``: write ``DIR/index.html``, one self-contained page of what DIR holds."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

from benchsift.cli._common import arg, emit, opt
from benchsift.report.html import report_folder


def report_command(
    directory: Annotated[
        Path, arg("An output folder of a benchsift command (--out DIR, a suite, the demo).")
    ],
    title: Annotated[str | None, opt("Page title (default: the folder's name).")] = None,
    panel: Annotated[
        Path | None,
        opt("The panel the results were computed on: every item a table names links to a view of it."),
    ] = None,
    images: Annotated[
        Path | None,
        opt("Root folder of the item images the panel's item metadata names (thumbnails in item views)."),
    ] = None,
    answers: Annotated[
        Path | None,
        opt(
            "The models' logged answers (long table: model, benchmark, item, answer; `import ... "
            "--answers-out` writes it): item views show what each model answered. Needs --panel or a panel "
            "inside DIR."
        ),
    ] = None,
    answer_column: Annotated[
        str, opt("Column of --answers holding the answer (VLMEvalKit's raw files: prediction).")
    ] = "answer",
    json_output: Annotated[
        bool, opt("Print one JSON object (the page's path and contents).", "--json")
    ] = False,
) -> None:
    """Write DIR/index.html: each section's answer, then its tables, figures, notes, parameters and files.

    Only files benchsift wrote are shown (those its manifest lists unchanged): a working folder's own
    CSV files stay off the page. Item views come from --panel, or from the panel benchsift wrote inside DIR.
    """
    loaded = None
    if panel is not None:
        from benchsift.io import read_scores

        loaded = read_scores(panel)
    contents = report_folder(
        directory,
        title=title,
        panel=loaded,
        images=images,
        answers=answers,
        answer_column=answer_column,
        allow_empty=False,
    )
    sections = contents["sections"]
    n_fig, n_tab = (sum(s[what] for s in sections) for what in ("figures", "tables"))
    line = (
        f"report written: {contents['report']} ({len(sections)} sections, {n_fig} figures, {n_tab} tables"
        + (f", {contents['items']} item views" if contents["items"] else "")
        + ")"
    )
    after = [line]
    if contents["not_benchsift"]:
        after.append(f"left out {contents['not_benchsift']} file(s) benchsift did not write")
    emit(json_output, contents, warnings=contents["warnings"], after=after)
