"""Human names of rows for error messages, built only when an error is raised.

Readers keep the bookkeeping column ``_row`` as the 0-based data-row index of a table file (an int) or as
a ready label (``"line 7"``, ``"samples[3]"``); :func:`row_label` turns either into text. Naming rows
lazily keeps a 10-million-row import from building 10 million strings it will never print.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import overload

import numpy as np


def row_name(path: Path | str, index: int) -> str:
    """Name of data row ``index`` (0-based) of a table file: the line for CSV/TSV (after the header) and
    JSON lines, the sheet row for Excel, the row index otherwise."""
    suffix = Path(path).suffix.lower()
    if suffix in (".csv", ".tsv"):
        return f"line {index + 2}"
    if suffix == ".jsonl":
        return f"line {index + 1}"
    if suffix in (".xlsx", ".xls"):
        return f"row {index + 2}"
    return f"row {index}"


def row_label(path: Path | str, row: object) -> str:
    """Text for a ``_row`` value: an int is a data-row index of ``path``, anything else is already a label."""
    if isinstance(row, int | np.integer):
        return row_name(path, int(row))
    return str(row)


class RowNames(Sequence[str]):
    """A lazy sequence of the row names of a table file (``rows[i] == row_name(path, i)``)."""

    def __init__(self, path: Path | str, n: int) -> None:
        self._path = path
        self._n = n

    def __len__(self) -> int:
        return self._n

    @overload
    def __getitem__(self, index: int) -> str: ...

    @overload
    def __getitem__(self, index: slice) -> Sequence[str]: ...

    def __getitem__(self, index: int | slice) -> str | Sequence[str]:
        if isinstance(index, slice):
            return [row_name(self._path, i) for i in range(*index.indices(self._n))]
        if not -self._n <= index < self._n:
            raise IndexError(index)
        return row_name(self._path, index % self._n)
