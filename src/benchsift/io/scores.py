"""The one loader of per-item scores whatever their layout: a benchsift panel file or a long table."""

from __future__ import annotations

import os
from pathlib import Path

import pandas as pd

from benchsift._inputs import existing_file
from benchsift.errors import FormatError, InputError, wide_table_hint
from benchsift.io._common import check_field_counts, check_parquet, id_strings
from benchsift.io._rows import RowNames
from benchsift.panel import Panel

__all__ = ["read_scores"]


def _has_panel_metadata(path: Path) -> bool:
    """Whether the parquet file ``path`` carries benchsift's panel metadata key (its schema is readable)."""
    import pyarrow.parquet as pq

    try:
        return b"benchsift" in (pq.read_schema(path).metadata or {})
    except (ValueError, OSError):
        return False


def read_scores(path: str | os.PathLike[str]) -> Panel:
    """Per-item scores from a panel file (benchsift parquet) or a long CSV/TSV/parquet table
    (``model, benchmark, item, score``, plus any model or item metadata columns).

    The one panel-or-long loader: ``compress``, ``estimate``, ``validate``, ``diagnose`` and ``adaptive``
    read their score input with it. A parquet file that is not a benchsift panel is read as a long table.
    Bad input is a :class:`~benchsift.errors.FormatError` / :class:`~benchsift.errors.InputError` naming
    the file (and the column or line).
    """
    p = existing_file(path, "scores: a long CSV or a panel parquet")  # (a folder: "is a directory")
    suffix = p.suffix.lower()
    if suffix == ".parquet":
        try:
            return Panel.load(p)
        except FormatError as not_panel:
            if _has_panel_metadata(p):
                raise  # a benchsift panel, damaged: its own error, not "missing column(s)" of a long table
            check_parquet(p)  # the footer's counts, before pandas reads a row
            try:
                df = pd.read_parquet(p)
            except (ValueError, OSError):  # pyarrow's ArrowInvalid is a ValueError
                raise not_panel from None
    elif suffix in (".csv", ".tsv", ".txt"):
        sep = "\t" if suffix == ".tsv" else ","
        try:
            check_field_counts(p, sep)
        except UnicodeDecodeError:
            raise FormatError(f"{p}: not a UTF-8 text file") from None
        try:
            df = pd.read_csv(
                p,
                sep=sep,
                dtype={"model": str, "benchmark": str, "item": str},
                keep_default_na=False,
                na_values={"score": ["", "NA", "NaN", "nan"]},
            )
        except pd.errors.EmptyDataError:
            raise FormatError(f"{p}: empty file (expected a header model, benchmark, item, score)") from None
        except (pd.errors.ParserError, UnicodeDecodeError) as err:
            raise FormatError(f"{p}: not a readable CSV ({' '.join(str(err).split())[:120]})") from None
    else:
        raise InputError(f"{p}: unknown file type {suffix!r} (expected .csv, .tsv or .parquet)")
    missing = [c for c in ("model", "benchmark", "item", "score") if c not in df.columns]
    if missing:
        raise FormatError(
            f"{p}: missing column(s) {missing} (long table needs model, benchmark, item, score)"
            + wide_table_hint(df.columns)
        )
    # the keys as `benchsift import long` reads them: stripped, an integral float id (a parquet column
    # of 12.0) as "12", an empty one refused with its line; else a run's "12 " or 12.0 silently misses
    # the suite's or bank's "12"
    df = df.reset_index(drop=True)
    rows = RowNames(p, len(df))
    for col in ("model", "benchmark", "item"):
        df[col] = id_strings(df[col], p, col, rows).to_numpy()
    return Panel.from_long(df, source=str(p), rows=rows)
