"""Release dates as a model table holds them: one parser, no guessing where a format is ambiguous.

Model release dates order models into eras (shelf life, era spectra, the audit's DIF by release era), so a
wrong month moves a model between eras without any error. :func:`parse_release_dates` reads:

* datetime values as they are;
* ISO 8601 text: ``YYYY-MM-DD`` (with or without a time), ``YYYY-MM``, ``YYYY`` (the first day of the month or
  year), and ``YYYY/MM/DD``, ``YYYY/MM``;
* year-month text ``YYYY.M`` or ``YYYY.MM`` (the form of many leaderboard tables, e.g. ``2024.7``), and the
  same as a number (``2024.7``). A number cannot tell ``2024.1`` from ``2024.10`` (October, whose trailing
  zero a spreadsheet or a float drops), and neither can text a spreadsheet wrote: such a date is read as
  January and said in a warning;
* anything else pandas can read (``July 2024``, ``07/05/2024``) is read as pandas reads it (month first); a
  date of digits alone (``07/05/2024``, which may be 7 May) with a warning naming the first such value.

Text that is no date at all is an error naming the row.
"""

from __future__ import annotations

import re
import warnings
from collections.abc import Sequence

import numpy as np
import pandas as pd

from benchsift.errors import InputError

__all__ = ["parse_release_dates"]

_ISO = re.compile(r"^\d{4}(-\d{1,2}(-\d{1,2})?([T ].*)?)?$")
_SLASH = re.compile(r"^(\d{4})/(\d{1,2})(?:/(\d{1,2}))?$")
_YEAR_MONTH = re.compile(r"^(\d{4})\.(\d{1,2})$")


def _year_month(year: int, month: int, value: object, where: str, row: str) -> pd.Timestamp:
    if not 1 <= month <= 12:
        raise InputError(f"{where}, {row}: release_date {value!r} is not a date (month {month})")
    return pd.Timestamp(year=year, month=month, day=1)


def parse_release_dates(
    values: pd.Series, where: str, rows: Sequence[str] | None = None
) -> tuple[pd.Series, list[str]]:
    """``values`` as ``datetime64[ns]`` (missing: NaT) and the warnings of the reading (module docstring).

    ``where`` names the table in messages and ``rows[i]`` the row of ``values.iloc[i]`` (default
    ``row i``). Raises :class:`~benchsift.errors.InputError` naming the first value that is no date.
    """
    if pd.api.types.is_datetime64_any_dtype(values):
        return pd.Series(values.to_numpy().astype("datetime64[ns]"), index=values.index), []
    names = rows if rows is not None else [f"row {i}" for i in range(len(values))]
    out = np.full(len(values), np.datetime64("NaT"), dtype="datetime64[ns]")
    january: list[str] = []
    guessed: list[tuple[str, pd.Timestamp]] = []
    for i, value in enumerate(values.tolist()):
        if value is None or (not isinstance(value, str) and bool(pd.isna(value))):  # None, NaN, NaT, pd.NA
            continue
        if isinstance(value, pd.Timestamp):
            out[i] = value.to_datetime64()
            continue
        if isinstance(value, int | float | np.integer | np.floating) and not isinstance(value, bool):
            text = f"{float(value):.2f}".rstrip("0").rstrip(".") if float(value) % 1 else str(int(value))
            if re.fullmatch(r"\d{4}", text):
                out[i] = pd.Timestamp(year=int(text), month=1, day=1).to_datetime64()
                continue
        else:
            text = str(value).strip()
        if not text or text.lower() in ("nan", "nat", "none", "na"):
            continue
        if m := _YEAR_MONTH.match(text):
            if m.group(2) == "1":
                january.append(text)
            out[i] = _year_month(int(m.group(1)), int(m.group(2)), value, where, names[i]).to_datetime64()
            continue
        if m := _SLASH.match(text):
            year, month, day = int(m.group(1)), int(m.group(2)), int(m.group(3) or 1)
            try:
                out[i] = pd.Timestamp(year=year, month=month, day=day).to_datetime64()
            except ValueError:
                raise InputError(f"{where}, {names[i]}: release_date {value!r} is not a date") from None
            continue
        iso = _ISO.match(text) is not None
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # pandas' "could not infer format": the warning below says it
            parsed = pd.to_datetime(text, errors="coerce", format="ISO8601" if iso else None)
        if pd.isna(parsed):
            raise InputError(f"{where}, {names[i]}: release_date {value!r} is not a date")
        if not iso and re.fullmatch(r"[\d\s./-]+", text):
            guessed.append((text, parsed))  # digits only: day and month may be either way round
        out[i] = pd.Timestamp(parsed).tz_localize(None).to_datetime64()
    notes: list[str] = []
    if january:
        notes.append(
            f"{where}: {len(january)} release_date value(s) like {january[0]!r} read as January; if a "
            "spreadsheet or a number dropped the trailing zero of October (2024.10 -> 2024.1), write "
            "the dates as YYYY-MM"
        )
    if guessed:
        text, parsed = guessed[0]
        notes.append(
            f"{where}: {len(guessed)} release_date value(s) of digits not in YYYY-MM-DD form read month "
            f"first, e.g. {text!r} -> {parsed:%Y-%m-%d}; write the dates as YYYY-MM-DD"
        )
    return pd.Series(out, index=values.index), notes
