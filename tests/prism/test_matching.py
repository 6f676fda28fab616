"""Deterministic graders: VQA-style normalisation and matching, integer and letter extraction."""

from __future__ import annotations

from benchsift.prism.grade import split_numbered
from benchsift.prism.matching import (
    expresses_uncertainty,
    extract_answer,
    extract_int,
    extract_letter,
    match_answer,
    normalize_answer,
)


def test_normalize() -> None:
    assert normalize_answer("The Two apples!") == "2 apples"
    assert normalize_answer("An  Autumn, day.") == "autumn day"
    assert normalize_answer("1,000 and 3.5") == "1000 and 3.5"


def test_match_against_several_golds() -> None:
    golds = ["autumn", "autumn", "spring"]
    assert match_answer("Spring.", golds)
    assert match_answer("Based on the view, it appears to be **autumn (fall)**.", golds)
    assert not match_answer("summer", golds)
    assert match_answer("two", ["2"]) and not match_answer("12", ["2"])
    assert match_answer("Yes, there are.", ["yes"]) and not match_answer("Yes or no? I'd say no.", ["yes"])
    assert not match_answer(None, ["a"]) and not match_answer("  ", ["a"])
    assert match_answer("The answer is B.", ["B"], letter=True)
    assert match_answer("Louisiana", ["B"], letter=True, options=["West Virginia", "Louisiana"])
    assert not match_answer("C", ["B"], letter=True)


def test_extract_int_takes_the_committed_count() -> None:
    assert extract_int("There are 12 small rectangular panes in the rightmost window.") == 12
    assert extract_int("1. Snake 2. Cougar 3. Mouse 7. Insects") == 7
    assert extract_int("I count three birds, so the final answer: 4") == 4
    assert extract_int("five") == 5 and extract_int("no number here") is None


def test_extract_letter() -> None:
    assert extract_letter("A") == "A" and extract_letter("(B)") == "B" and extract_letter("B. because") == "B"
    assert extract_letter("The correct answer is **A**. Here's why") == "A"
    assert extract_letter("```text B```") == "B"
    assert extract_letter("A picture of three cats") is None
    assert extract_letter("A or B, hard to say", "AB") is None
    assert extract_letter(None) is None


def test_change_detection_core_and_uncertainty() -> None:
    assert extract_answer("3", numeric=True) == extract_answer("I still count 3.", numeric=True)
    assert extract_answer("B", letter=True) != extract_answer("The answer is C", letter=True)
    assert expresses_uncertainty("I cannot see a logo on the mug.")
    assert expresses_uncertainty("There is no dragon in this picture.")
    assert not expresses_uncertainty("The logo is a red star.")


def test_split_numbered() -> None:
    text = "Here you go:\n1. red\n2) **three**\n   more on three\n4. yes"
    assert split_numbered(text, 4) == ["red", "**three** more on three", None, "yes"]
