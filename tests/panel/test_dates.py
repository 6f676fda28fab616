"""Release dates (:func:`benchsift.panel.dates.parse_release_dates`): each accepted form, hand-checked."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from benchsift.errors import InputError
from benchsift.panel import Panel
from benchsift.panel.dates import parse_release_dates


def test_each_form_reads_as_its_first_day_and_missing_stays_missing() -> None:
    values = pd.Series(
        ["2024-07-05", "2024-7", "2024", "2024.11", "2024/3", "2024/03/09", "July 2024", None, ""]
    )
    parsed, notes = parse_release_dates(values, "m.csv")
    expected = [
        "2024-07-05",
        "2024-07-01",
        "2024-01-01",
        "2024-11-01",
        "2024-03-01",
        "2024-03-09",
        "2024-07-01",
    ]
    assert parsed.dtype == "datetime64[ns]"
    assert [f"{d:%Y-%m-%d}" for d in parsed.iloc[:7]] == expected
    assert parsed.iloc[7:].isna().all()
    assert notes == []  # nothing ambiguous: a month name is not


def test_year_dot_one_and_digit_dates_are_read_but_said() -> None:
    # '2024.1' may be October whose trailing zero a spreadsheet dropped; '07/05/2024' may be 7 May
    parsed, notes = parse_release_dates(pd.Series(["2024.1", "2024.1", "07/05/2024"]), "m.csv")
    assert [f"{d:%Y-%m-%d}" for d in parsed] == ["2024-01-01", "2024-01-01", "2024-07-05"]
    assert len(notes) == 2
    assert notes[0].startswith("m.csv: 2 release_date value(s) like '2024.1' read as January")
    assert "'07/05/2024' -> 2024-07-05" in notes[1]


def test_numbers_are_year_month_or_year() -> None:
    parsed, notes = parse_release_dates(pd.Series([2024.7, 2024.11, 2023.0, np.nan, 2024.1]), "m.xlsx")
    assert [None if pd.isna(d) else f"{d:%Y-%m}" for d in parsed] == [
        "2024-07",
        "2024-11",
        "2023-01",
        None,
        "2024-01",
    ]
    assert len(notes) == 1 and "like '2024.1' read as January" in notes[0]


def test_missing_of_every_kind_is_missing() -> None:
    values = pd.Series(["2024-07", None, np.nan, pd.NaT, pd.NA, "NaN"], dtype=object)
    parsed, notes = parse_release_dates(values, "x")
    assert parsed.iloc[0] == pd.Timestamp("2024-07-01") and parsed.iloc[1:].isna().all() and notes == []
    dates = pd.Series([pd.Timestamp("2024-01-02").date(), None], dtype=object)  # parquet date32 values
    assert parse_release_dates(dates, "x")[0].iloc[0] == pd.Timestamp("2024-01-02")


def test_datetimes_pass_through() -> None:
    dates = pd.Series(pd.to_datetime(["2024-02-29", None]))
    parsed, notes = parse_release_dates(dates, "x")
    assert parsed.iloc[0] == pd.Timestamp("2024-02-29") and pd.isna(parsed.iloc[1]) and notes == []


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ("soon", r"line 2: release_date 'soon' is not a date$"),
        ("2024.13", r"line 2: release_date '2024.13' is not a date \(month 13\)"),
    ],
)
def test_a_value_that_is_no_date_names_its_row(value: str, message: str) -> None:
    with pytest.raises(InputError, match=r"^m\.csv, " + message):
        parse_release_dates(pd.Series([value]), "m.csv", ["line 2"])


def test_a_panel_reads_its_model_dates_with_the_same_rules() -> None:
    models = pd.DataFrame({"model": ["a", "b"], "release_date": ["2024.7", "2024-08"]})
    items = pd.DataFrame({"benchmark": "B", "item": ["q"]})
    panel = Panel(np.array([[1.0], [0.0]]), models, items)
    assert list(panel.models["release_date"]) == [pd.Timestamp("2024-07-01"), pd.Timestamp("2024-08-01")]
    with pytest.raises(InputError, match="panel models table, row 1: release_date 'later' is not a date"):
        Panel(np.array([[1.0], [0.0]]), models.assign(release_date=["2024-01", "later"]), items)
