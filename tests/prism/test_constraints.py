"""The 11-constraint if pool: each rule on hand-made passing and failing responses; the draw."""

from __future__ import annotations

import collections

import pytest

from benchsift.errors import InputError
from benchsift.prism.constraints import (
    _INCOMPATIBLE,
    CONSTRAINTS,
    FAMILIES,
    draw_constraints,
    verify,
    verify_all,
)

CASES = {
    "length.max_words": (["one two three", " ".join(["w"] * 30)], [" ".join(["w"] * 31)]),
    "length.min_words": ([" ".join(["w"] * 40)], [" ".join(["w"] * 39), ""]),
    "casing.lowercase": (["all lower, 3 apples."], ["One capital", "123 !!"]),
    "casing.uppercase": (["ALL UPPER, 3 APPLES."], ["ALMOST all", "42"]),
    "keyword.include": (["The Evidence is clear", "evidence."], ["evidenced", "no keyword"]),
    "keyword.forbid": (["a picture", "imagery is fine"], ["the image shows", "two Images"]),
    "format.json": (
        ['{"answer": "blue"}', '```json\n{"answer": 3}\n```'],
        ['{"answer": "blue", "x": 1}', "answer: blue", '["answer"]'],
    ),
    "format.code_block": (["```\nB\n```", "```text B```"], ["B", "```a``` and ```b```", "``` open"]),
    "format.bullets": (["- one\n- two", "* a\n* b\ntext"], ["- one", "- a\n- b\n- c", "-no space\n-x"]),
    "shape.start": (["My answer: blue", "  my answer: blue"], ["Answer: blue", "blue. My answer: blue"]),
    "shape.end": (
        ["blue. Is there anything else I can help with?  ", "IS THERE ANYTHING ELSE I CAN HELP WITH?"],
        ["Is there anything else I can help with? Bye", "blue"],
    ),
}


def test_pool_has_eleven_constraints_in_five_families() -> None:
    assert len(CONSTRAINTS) == 11 and set(CASES) == set(CONSTRAINTS)
    assert {c.family for c in CONSTRAINTS.values()} == set(FAMILIES) and len(FAMILIES) == 5


@pytest.mark.parametrize("cid", sorted(CASES))
def test_rule_verifiers(cid: str) -> None:
    good, bad = CASES[cid]
    assert all(verify(cid, t) for t in good), cid
    assert not any(verify(cid, t) for t in bad), cid


def test_verify_all_and_unknown_id() -> None:
    assert verify_all(["length.max_words", "casing.uppercase"], "all good") == [1, 0]
    with pytest.raises(InputError, match="unknown if constraint"):
        verify("length.exactly", "x")


def test_draw_is_deterministic_compatible_and_spread() -> None:
    draws = {f"b/{i}": draw_constraints(f"b/{i}") for i in range(1500)}
    assert draws == {k: draw_constraints(k) for k in draws}
    assert (
        draw_constraints("b/1", seed=1) != draw_constraints("b/1")
        or draw_constraints("b/2", seed=1) != draws["b/2"]
    )
    sizes = collections.Counter(len(v) for v in draws.values())
    assert set(sizes) == {1, 2, 3} and all(abs(n / 1500 - 1 / 3) < 0.05 for n in sizes.values())
    used = collections.Counter(c for v in draws.values() for c in v)
    assert set(used) == set(CONSTRAINTS)
    for ids in draws.values():
        fams = [CONSTRAINTS[c].family for c in ids]
        assert len(set(fams)) == len(fams)
        assert not any(frozenset((a, b)) in _INCOMPATIBLE for a in ids for b in ids if a != b)
