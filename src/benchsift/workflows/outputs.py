"""The output folders of ``--out DIR``: the result as JSON, its tables as CSV, its figures, an index.html.

Every folder is written atomically (:func:`benchsift._fileio.atomic_dir`): a failed write leaves what was
there before. Several commands may write into one folder: a command's rerun replaces its own earlier files
there (those it does not write again are removed, so the page shows no stale result) and keeps the other
commands' (:mod:`benchsift._fileio`). The page is checked before anything is written
(:func:`check_folder`), so a refused page leaves the folder as it was.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pandas as pd

from benchsift._fileio import atomic_dir, check_output_page, spreadsheet_frame
from benchsift._jsonutil import to_jsonable
from benchsift.report.html import check_page, write_report

if TYPE_CHECKING:
    from benchsift.panel import Panel
    from benchsift.prism.scoring import MeansReport, ScoreReport

__all__ = [
    "check_folder",
    "write_command_dir",
    "write_analysis_dir",
    "write_means_dir",
    "write_result_dir",
    "write_score_dir",
    "write_validate_dir",
]


def check_folder(out: Path) -> None:
    """Refuse the folder ``out`` before any of its files is written when its ``index.html`` is a page that
    benchsift did not write (:func:`~benchsift.report.html.check_page`) or one it would not overwrite
    (:func:`~benchsift._fileio.check_output_page`: changed since benchsift wrote it, unless ``--force``)."""
    check_page(out)
    check_output_page(out)


def write_analysis_dir(
    out: Path, name: str, result: dict[str, Any], figures: Callable[[Path], object]
) -> None:
    """``out/<name>.json`` and the figures ``figures(folder)`` writes, added to ``out``, then
    ``out/index.html`` over everything in it (the redundancy commands). Other analyses' files stay; the
    files an earlier run of the same analysis wrote and this one does not (the curves of a metric no longer
    asked for) are removed."""
    check_folder(out)  # refused before any file is written
    with atomic_dir(out, command=f"redundancy {name.partition('_')[0]}") as tmp:
        (tmp / f"{name}.json").write_text(json.dumps(result, indent=2))
        figures(tmp)
    write_report(out)


def write_result_dir(
    out: Path,
    payload: dict[str, Any],
    frames: Mapping[str, pd.DataFrame],
    figures: Callable[[Path], object] | None = None,
) -> None:
    """``out/result.json``, one ``out/<name>.csv`` per frame (with its index), the figures under
    ``out/figures`` and ``out/index.html``, replacing the folder's earlier contents (the ``prism``
    commands): :func:`write_command_dir` of ``"result"``, whose page is written over ``out`` once the
    folder's files are listed in its manifest (written inside the temporary folder, it read only the figures
    and left the tables out)."""

    def draw(folder: Path) -> object:
        return figures(folder / "figures") if figures is not None else None

    write_command_dir(
        out, "result", payload, frames, draw if figures is not None else None, index=True,
        title=f"benchsift results: {out.name}", command="prism",
    )  # fmt: skip


def write_command_dir(
    out: Path,
    name: str,
    payload: dict[str, Any],
    frames: Mapping[str, pd.DataFrame],
    figures: Callable[[Path], object] | None = None,
    *,
    index: bool = False,
    panel: Panel | None = None,
    title: str | None = None,
    command: str | None = None,
) -> Path:
    """``--out DIR`` of a command whose result ``report`` reads back (``validate``, ``estimate``,
    ``adaptive simulate``, and any new one): ``DIR/<name>.json`` (``payload``, its notes and warnings
    included), one ``DIR/<frame>.csv`` per frame (``index``: with the frame's index), the figures
    ``figures(DIR)`` writes and ``DIR/index.html`` (with item views when ``panel`` is given; ``title``: the
    page's, by default ``benchsift <name>: <DIR's name>``). The files an earlier run of the same command
    (the CLI's, else ``command``, by default ``name``) wrote there are replaced, and those it does not
    write again removed; other commands' files stay, a file another command wrote under one of these names
    refuses the write, and a file benchsift did not write is never touched. Returns the path of the page."""
    check_folder(out)  # refused before any file is written
    with atomic_dir(out, command=command or name) as tmp:
        (tmp / f"{name}.json").write_text(json.dumps(to_jsonable(payload), indent=2))
        for fname, df in frames.items():
            spreadsheet_frame(df).to_csv(tmp / f"{fname}.csv", index=index, lineterminator="\n")
        if figures is not None:
            figures(tmp)
    return write_report(out, title=title or f"benchsift {name}: {out.name}", panel=panel)


def write_validate_dir(
    out: Path, payload: dict[str, Any], summary: Any, protocol: str, data: str, n_splits: int
) -> Path:
    """``validate --out DIR``: :func:`write_command_dir` of the report's JSON ``payload``, its results as
    ``results.csv`` and, except for the end-to-end protocol, the selector-vs-retention figure."""
    from benchsift.report.validation_figures import save_selector_figure

    def draw(folder: Path) -> object:
        return save_selector_figure(summary, folder / "selector_retention", protocol, data, n_splits)

    frames = {"results": pd.DataFrame(payload.get("results") or [])}
    return write_command_dir(out, "validate", payload, frames, draw if protocol != "end-to-end" else None)


def write_score_dir(out: Path, report: ScoreReport, data: str) -> None:
    """``prism score --out``: :func:`write_result_dir` of the summary and the report's tables, with the
    profile, axis-correlation, forest and domain figures (:func:`~benchsift.report.prism_figures.
    write_prism_figures`); ``data`` names the input in the captions."""
    from benchsift.prism.analyses import axis_correlation
    from benchsift.report.prism_figures import write_prism_figures

    means, frame, domains = report.means, report.bootstrap.to_frame(), report.domain_correlation
    corr = axis_correlation(means)
    figures = lambda d: write_prism_figures(d, means, corr, frame, domain_corr=domains, data=data)  # noqa: E731
    write_result_dir(out, report.summary, report.tables, figures)


def write_means_dir(out: Path, report: MeansReport, data: str) -> None:
    """``prism analyze --out``: :func:`write_result_dir` of the summary and the axis means, with the
    profile and axis-correlation figures."""
    from benchsift.prism.analyses import axis_correlation
    from benchsift.report.prism_figures import write_prism_figures

    means = report.means
    figures = lambda d: write_prism_figures(d, means, axis_correlation(means), data=data)  # noqa: E731
    write_result_dir(out, report.summary, {"axis_means": means}, figures)
