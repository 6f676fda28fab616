"""The byte-level JSON depth measure behind every bounded JSON reader (benchsift._jsonutil, issue 32)."""

from __future__ import annotations

import json
import random
from typing import Any

import pytest

from benchsift._jsonutil import MAX_JSON_DEPTH, json_depth, loads_bounded
from benchsift.errors import FormatError


def _depth(obj: Any) -> int:  # the definition, recursive (the documents here are shallow)
    if isinstance(obj, dict):
        return 1 + max((_depth(v) for v in obj.values()), default=0)
    if isinstance(obj, list):
        return 1 + max((_depth(v) for v in obj), default=0)
    return 0


ALPHABET = '[]{}"\\ab\n\u00e9,:'


def _document(rng: random.Random, level: int = 0) -> Any:
    """Nested lists and objects whose strings are full of brackets, quotes and backslashes."""
    r = rng.random()
    if level > 8 or r < 0.3:
        if rng.random() < 0.7:
            return "".join(rng.choice(ALPHABET) for _ in range(rng.randint(0, 6)))
        return rng.random()
    if r < 0.65:
        return [_document(rng, level + 1) for _ in range(rng.randint(0, 3))]
    return {"".join(rng.choice(ALPHABET) for _ in range(3)): _document(rng, level + 1) for _ in range(3)}


def test_depth_equals_the_recursive_definition_on_random_documents() -> None:
    rng = random.Random(0)
    for _ in range(3000):
        doc = _document(rng)
        text = json.dumps(doc, ensure_ascii=rng.random() < 0.5, indent=rng.choice([None, 1]))
        assert json_depth(text.encode()) == _depth(doc), text


@pytest.mark.parametrize(
    "text, depth",
    [("1", 0), ('"[[["', 0), ("[]", 1), ('{"a": "\\\\"}', 1), ('["\\"[", [[]]]', 3), ('[["\\\\\\\\"]]', 2)],
)
def test_depth_hand_cases(text: str, depth: int) -> None:
    assert json_depth(text.encode()) == depth == _depth(json.loads(text))


def test_loads_bounded_refuses_past_the_cap_without_recursion() -> None:
    at_cap = "[" * MAX_JSON_DEPTH + "]" * MAX_JSON_DEPTH
    assert _depth(loads_bounded(at_cap, "x")) == MAX_JSON_DEPTH
    for depth in (MAX_JSON_DEPTH + 1, 5_000, 200_000):
        with pytest.raises(FormatError, match=r"^f.json, line 3: JSON nested more than 256 levels deep"):
            loads_bounded("[" * depth + "]" * depth, "f.json, line 3")
    with pytest.raises(json.JSONDecodeError):
        loads_bounded("{not json", "x")
