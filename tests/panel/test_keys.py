"""Item ids that are the same number written another way, paired one to one (``benchsift.panel.keys``)."""

from __future__ import annotations

import pytest

from benchsift.panel.keys import number_form, numeric_twins, twins_text


@pytest.mark.parametrize(
    ("item", "number"),
    [("12", "12"), ("0012", "12"), ("12.0", "12"), (" 007 ", "7"), ("0", "0"), ("000", "0"), ("0.00", "0")],
)
def test_number_form_of_integer_ids(item: str, number: str) -> None:
    assert number_form(item) == number


@pytest.mark.parametrize("item", ["q12", "12.5", "1e3", "-3", "12a", "", "1,2"])
def test_other_ids_have_no_number_form(item: str) -> None:
    assert number_form(item) is None


def test_twins_are_paired_one_to_one_within_a_benchmark() -> None:
    known = [("A", "7"), ("A", "12"), ("A", "30"), ("B", "7"), ("A", "9")]
    given = [("A", "007"), ("A", "12"), ("A", "012"), ("B", "07.0"), ("A", "030"), ("A", "30.0"), ("C", "9")]
    # "007" -> "7"; "012" is an extra item: "12" itself is given; "07.0" -> B's "7"; "030" and "30.0"
    # both write 30: ambiguous, not paired; C's "9" is another benchmark's
    assert numeric_twins(given, known) == [(("A", "007"), ("A", "7")), (("B", "07.0"), ("B", "7"))]
    # two known ids of one number ("7" and "07" are two documents): nothing is paired to either
    assert numeric_twins([("A", "007")], [("A", "7"), ("A", "07")]) == []
    assert numeric_twins(known, known) == []


def test_twins_text_shows_three_and_counts_the_rest() -> None:
    pairs = [(("A", f"0{i}"), ("A", str(i))) for i in range(1, 6)]
    assert twins_text(pairs) == "'01' for '1', '02' for '2', '03' for '3', ... (2 more)"
    assert twins_text(pairs[:1]) == "'01' for '1'"
