"""What a spreadsheet adds to a table of scores, recognised so that it is not read as data.

A wide table exported from Excel or Google Sheets often carries, besides the scores: columns without a
header (trailing empty columns), empty rows at the end (``,,,`` lines), and a summary row or column (an
``Average`` or ``Total`` the sheet computed from the others). Read as data they become a model named ``""``,
an empty item id, or an item whose scores are the others' mean. The wide importer leaves the empty ones out
with a note and refuses a summary line naming it; the aggregate importer warns of a column named like one.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np
import pandas as pd

from benchsift.errors import InputError
from benchsift.io._common import blank
from benchsift.io._rows import row_name

__all__ = [
    "SUMMARY_NAME",
    "SUMMARY_TOLERANCE",
    "UNNAMED",
    "empty_tail",
    "headerless_columns",
    "summary_line",
    "tail_note",
]

#: pandas' name for a column read without a header
UNNAMED = re.compile(r"Unnamed: \d+(_level_\d+)?")


def headerless_columns(
    df: pd.DataFrame,
    header: list[str],
    named: tuple[str | None, ...],
    spreadsheet: bool,
    path: Path,
    what: str,
    notes: list[str] | None,
) -> bool:
    """Blank the header of every score column written without one (``""`` in a CSV, pandas' ``Unnamed: N``
    in a spreadsheet) so that it is left out, when all its cells are empty too (a spreadsheet's trailing
    empty columns, noted); a header-less column holding a value is an error: whose scores are they?
    Returns whether any column was left out. The first column (the id, or pandas' index) is not looked at.
    """
    empty_cols = [
        j
        for j in range(1, len(header))
        if header[j] not in named and (header[j] == "" or (spreadsheet and UNNAMED.fullmatch(header[j])))
    ]
    for j in empty_cols:
        column = df.iloc[:, j]
        filled = ~column.map(blank).astype(bool)
        if filled.any():
            i = int(np.flatnonzero(filled.to_numpy())[0])
            raise InputError(
                f"{path}, {row_name(path, i)}, column {j + 1}: a value ({str(column.iloc[i])!r}) in a column "
                f"without a header; expected the {what} id as the column's header"
            )
        header[j] = ""
    if empty_cols and notes is not None:
        notes.append(
            f"{path}: left out {len(empty_cols)} empty column(s) without a header "
            f"(column {', '.join(str(j + 1) for j in empty_cols)})"
        )
    return bool(empty_cols)


def empty_tail(n: int, row_is_blank: Callable[[int], bool]) -> int:
    """How many of the last rows of ``n`` are blank (a spreadsheet's trailing ``,,,`` lines), read from the
    end until the first row with a value; 0 when every row is blank (the usual "no data" error decides)."""
    k = 0
    while k < n and row_is_blank(n - 1 - k):
        k += 1
    return 0 if k == n else k


def tail_note(path: Path, k: int, notes: list[str] | None) -> None:
    if k and notes is not None:
        notes.append(f"{path}: left out {k} empty row(s) at the end (no id and no score)")


#: names a spreadsheet gives its summary row or column
SUMMARY_NAME = re.compile(r"(average|avg\.?|mean|total|sum|overall)( ?(score|accuracy|acc))?", re.IGNORECASE)

#: a summary agrees with the mean (or sum) it was computed from when it is within this share of the scale
#: (two decimals of a 0-1 score, an integer percentage)
SUMMARY_TOLERANCE = 0.01


def summary_line(ids: Sequence[str], matrix: np.ndarray) -> tuple[str, str] | None:
    """The first line (a row of ``matrix``, named by ``ids``) named like a spreadsheet's summary (``Average``,
    ``Total``, ...) whose values are, in every column where it and another line have one, the mean or the
    sum of the other lines' values (within :data:`SUMMARY_TOLERANCE` of the scale): ``(name, "mean" |
    "sum")``, else None. The name alone is not enough (a model may be called ``Overall``), nor are values
    (a 0/1 row may equal the others' mean by chance)."""
    for i, name in enumerate(ids):
        if not SUMMARY_NAME.fullmatch(name.strip()) or matrix.shape[0] < 3:
            continue
        v = matrix[i]
        before, after = matrix[:i], matrix[i + 1 :]  # views: the other lines, never copied
        counts = (~np.isnan(before)).sum(axis=0) + (~np.isnan(after)).sum(axis=0)
        sums = np.nansum(before, axis=0) + np.nansum(after, axis=0)
        ok = ~np.isnan(v) & (counts > 0)
        if ok.sum() < 2:
            continue
        # the largest observed |value| of the other lines (fmax skips NaN, and an all-NaN part, e.g. an empty
        # first row, gives NaN instead of nanmax's RuntimeWarning)
        peaks = [float(np.fmax.reduce(np.abs(part), axis=None)) for part in (before, after) if part.size]
        scale = max([1.0, *(p for p in peaks if not np.isnan(p))])
        means = sums[ok] / counts[ok]
        tol = SUMMARY_TOLERANCE * scale
        if np.all(np.abs(v[ok] - means) <= tol):
            return name, "mean"
        if np.all(np.abs(v[ok] - sums[ok]) <= np.maximum(tol, SUMMARY_TOLERANCE / 2 * np.abs(sums[ok]))):
            return name, "sum"
    return None
