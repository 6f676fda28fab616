"""The leaderboard's figure and files (:func:`benchsift.leaderboard.compare`); its tables are
:func:`benchsift.report.tables.leaderboard.render_compare`.

* :func:`rank_figure`: each model's rank with its bootstrap interval, best at the top, tie groups shaded;
* :func:`write_compare`: ``compare.json``, ``leaderboard.csv``, ``pairs.csv``, ``resolution.csv`` and one
  ``ranks_<section>`` figure per section (one file of its own for every section name: :func:`_stem`) into
  a folder, then its ``index.html``
  (:func:`benchsift.report.html.write_report`): the leaderboard's section of the HTML report.
"""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
from matplotlib.figure import Figure
from matplotlib.patches import Patch

from benchsift._fileio import atomic_dir, spreadsheet_frame
from benchsift.leaderboard import ComparisonResult, SuiteComparison
from benchsift.report.figures import new_figure, save_figure
from benchsift.report.html import check_page, write_report

__all__ = ["rank_figure", "write_compare", "write_suite_compare"]

_SHADES = ("#dbe8f5", "#f5f5f5")


def rank_figure(board: pd.DataFrame, title: str) -> Figure:
    """Ranks with intervals: one row per model (best at the top), the dot at its rank, the bar its rank
    interval; alternate tie groups shaded, each labelled with the positions it spans."""
    n = len(board)
    fig = new_figure(7.0, max(2.5, 0.6 + 0.13 * n))
    ax = fig.add_subplot()
    y = np.arange(n)
    groups = board["group"].to_numpy()
    for k, g in enumerate(pd.unique(groups)):
        rows = np.flatnonzero(groups == g)
        ax.axhspan(rows.min() - 0.5, rows.max() + 0.5, color=_SHADES[k % 2], zorder=0, lw=0)
        ax.text(
            1.01,
            (rows.min() + rows.max()) / 2,
            f"group {g}: {board['group_ranks'].iloc[rows[0]]}",
            transform=ax.get_yaxis_transform(),
            ha="left",
            va="center",
            fontsize=6,
            color="dimgrey",
        )
    rank = board["rank"].to_numpy(float)
    lo, hi = board["rank_low"].to_numpy(float), board["rank_high"].to_numpy(float)
    ax.hlines(y, lo, hi, color="tab:blue", lw=1.2, zorder=2)
    ax.plot(rank, y, "o", ms=2.5, color="tab:red", zorder=3)
    ax.set_yticks(y, [str(m) for m in board["model"]], fontsize=max(3.5, min(8.0, 400.0 / max(n, 1))))
    ax.set_ylim(n - 0.5, -0.5)
    ax.set_xlim(0.5, max(float(np.nanmax(hi)) if n else 1.0, float(n)) + 0.5)
    ax.set_xlabel("rank (1 = best): dot = rank of the score; bar = bootstrap rank interval")
    ax.set_title(title, fontsize=9)
    ax.legend(
        handles=[Patch(color=_SHADES[0]), Patch(color=_SHADES[1])],
        labels=["tie group (shaded alternately)", "next tie group"],
        fontsize=6,
        loc="lower left",
    )
    return fig


def _write_csv(df: pd.DataFrame, path: Path) -> None:
    """One of benchsift's CSVs: formula cells neutralised for spreadsheets (``_fileio.spreadsheet_frame``)."""
    spreadsheet_frame(df).to_csv(path, index=False, lineterminator="\n")


_SAFE = re.compile(r"[A-Za-z0-9_.-]+")
#: longest readable part of a figure's file name (a file name has at most 255 bytes)
_STEM_CHARS = 60


def _name_hash(section: str) -> str:
    """8 hex digits of the sha256 of the section's exact name (UTF-8): the same on every machine."""
    return hashlib.sha256(section.encode("utf-8", "surrogatepass")).hexdigest()[:8]


def _stem(section: str) -> str:
    """``ranks_<section>`` when the name is made of letters, digits, ``_``, ``.`` and ``-`` only (and not
    long); else a readable stem (every other run of characters as ``_``, cut to 60 characters) plus 8 hex
    digits of the name's sha256, so that ``数学`` and ``物理``, or ``A/B`` and ``A B``, get files of their
    own. Deterministic: the same name gives the same file on any machine."""
    if _SAFE.fullmatch(section) and len(section) <= _STEM_CHARS and section not in (".", ".."):
        return f"ranks_{section}"
    readable = re.sub(r"[^A-Za-z0-9_.-]+", "_", section).strip("_.")[:_STEM_CHARS].rstrip("_.")
    return f"ranks_{readable or 'section'}_{_name_hash(section)}"


def _stems(sections: list[str]) -> dict[str, str]:
    """Each section's figure stem (:func:`_stem`); two stems that differ only in case (one file on a
    case-insensitive file system: ``A`` and ``a``) both get the name's hash as well."""
    stems = {name: _stem(name) for name in sections}
    folded: dict[str, list[str]] = {}
    for name, stem in stems.items():
        folded.setdefault(stem.casefold(), []).append(name)
    for names in folded.values():
        if len(names) > 1:
            for name in names:
                if not stems[name].endswith(_name_hash(name)):
                    stems[name] = f"{stems[name]}_{_name_hash(name)}"
    return stems


def write_compare(
    result: ComparisonResult,
    out: str | Path,
    run: dict[str, Any] | None = None,
    data: str = "the panel given",
) -> Path:
    """Write the comparison's files and figures into folder ``out`` (atomically), then ``out/index.html``."""
    target = Path(out)
    doc = result.to_dict()
    doc.pop("sections")  # the tables are the CSV files; compare.json keeps what is not a table
    doc["ties"] = result.ties
    doc["resolution"] = result.resolution.to_dict(orient="records")
    if run:
        doc = {"run": run, **doc}
    level = float(result.parameters.get("level", 0.95))
    alpha = result.parameters.get("alpha", 0.05)
    correction = result.parameters.get("correction", "holm")
    check_page(target)  # a page benchsift did not write: refused before any file is written
    with atomic_dir(target, prune=False) as tmp:
        from benchsift._jsonutil import to_jsonable

        (tmp / "compare.json").write_text(json.dumps(to_jsonable(doc), indent=2))
        _write_csv(result.leaderboard, tmp / "leaderboard.csv")
        _write_csv(result.pairs, tmp / "pairs.csv")
        _write_csv(result.resolution, tmp / "resolution.csv")
        if result.pair_power is not None:
            _write_csv(result.pair_power, tmp / "pair_power.csv")
        stems = _stems(result.sections)
        for name in result.sections:
            board = result.section(name)
            save_figure(
                rank_figure(board, f"{name}: ranks with {level:.0%} bootstrap intervals"),
                tmp / stems[name],
                data=data,
                caption=(
                    f"Section {name}: one row per model, best at the top. Dot: the rank of its score (mean "
                    f"over its answered items); bar: its {level:.0%} rank interval (marginal per model, from "
                    "the pairwise bootstrap comparisons). Shaded "
                    "bands: tie groups (a group runs from its leader down to the first model separated from "
                    f"the leader; pairwise bootstrap test, {correction} correction at alpha = {alpha}). "
                    f"Data: {data}."
                ),
            )
    write_report(target, title="benchsift compare")
    return target


def write_suite_compare(result: SuiteComparison, out: str | Path, run: dict[str, Any] | None = None) -> Path:
    """Write ``compare_suite.json``, ``models.csv``, ``pairs.csv``, ``resolution.csv`` into ``out``, then
    ``out/index.html``."""
    target = Path(out)
    doc = result.to_dict()
    if run:
        doc = {"run": run, **doc}
    check_page(target)  # a page benchsift did not write: refused before any file is written
    with atomic_dir(target, prune=False) as tmp:
        from benchsift._jsonutil import to_jsonable

        (tmp / "compare_suite.json").write_text(json.dumps(to_jsonable(doc), indent=2))
        _write_csv(result.models, tmp / "models.csv")
        _write_csv(result.pairs, tmp / "pairs.csv")
        _write_csv(result.resolution, tmp / "resolution.csv")
    write_report(target, title="benchsift compare --suite")
    return target
