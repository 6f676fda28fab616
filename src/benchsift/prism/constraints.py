"""The instruction-following (``if``) constraint pool and its rule verifiers (PRISM-VLM App. B, Table 10).

Eleven verifiable formatting constraints adapted from IFEval (Zhou et al., 2023), in the paper's five
families: length, casing, keyword, output format, answer shape. The paper lists the families but not
the eleven texts; ours are:

=========  ====================  ===========================================================
family     id                    rule
=========  ====================  ===========================================================
length     length.max_words      at most 30 words (whitespace tokens)
length     length.min_words      at least 40 words
casing     casing.lowercase      no upper-case letter, at least one letter
casing     casing.uppercase      no lower-case letter, at least one letter
keyword    keyword.include       the word "evidence" appears (case-insensitive, whole word)
keyword    keyword.forbid        the word "image"/"images" does not appear
format     format.json           the response (optionally in a ```json fence) is a JSON object
                                 whose only key is "answer"
format     format.code_block     the response is one Markdown code block: starts and ends with ```
                                 and contains no other fence
format     format.bullets        exactly 2 lines are Markdown bullets ("* " or "- ")
shape      shape.start           starts with "My answer:" (case-insensitive)
shape      shape.end             ends with "Is there anything else I can help with?"
                                 (case-insensitive, trailing whitespace ignored)
=========  ====================  ===========================================================

Each item draws 1-3 constraints (:func:`draw_constraints`): the number k = 1 + h mod 3 and the
constraints come from a generator seeded by the item's stable hash, at most one per family and no
incompatible pair (e.g. a JSON object cannot start with "My answer:"), so every drawn set is
satisfiable. The per-item score is the mean compliance over the drawn set (Sec. 3).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from benchsift._jsonutil import loads_bounded
from benchsift.errors import InputError
from benchsift.prism.axes import stable_hash

__all__ = ["CONSTRAINTS", "FAMILIES", "Constraint", "draw_constraints", "verify", "verify_all"]

_WORD = re.compile(r"\S+")
_FENCE = "```"


def _words(text: str) -> int:
    return len(_WORD.findall(text))


def _has_letter(text: str) -> bool:
    return any(ch.isalpha() for ch in text)


def _json_answer(text: str) -> bool:
    body = text.strip()
    m = re.fullmatch(r"```(?:json)?\s*(.*?)\s*```", body, flags=re.DOTALL)
    if m:
        body = m.group(1)
    try:
        obj = loads_bounded(body, "answer")
    except ValueError:  # not JSON, or nested too deeply (a FormatError is a ValueError)
        return False
    return isinstance(obj, dict) and set(obj) == {"answer"}


def _code_block(text: str) -> bool:
    body = text.strip()
    return len(body) >= 6 and body.startswith(_FENCE) and body.endswith(_FENCE) and body.count(_FENCE) == 2


def _bullets(text: str) -> bool:
    return sum(1 for line in text.splitlines() if re.match(r"^\s*[*-]\s+\S", line)) == 2


_END = "Is there anything else I can help with?"


@dataclass(frozen=True)
class Constraint:
    """One verifiable constraint: the instruction shown to the model and its rule."""

    id: str
    family: str
    instruction: str
    rule: Callable[[str], bool]

    def check(self, response: str) -> bool:
        return bool(self.rule(response))


CONSTRAINTS: dict[str, Constraint] = {
    c.id: c
    for c in (
        Constraint("length.max_words", "length", "Answer in at most 30 words.", lambda t: _words(t) <= 30),
        Constraint("length.min_words", "length", "Answer in at least 40 words.", lambda t: _words(t) >= 40),
        Constraint(
            "casing.lowercase",
            "casing",
            "Your entire response must be in lowercase letters; no capital letters are allowed.",
            lambda t: _has_letter(t) and t == t.lower(),
        ),
        Constraint(
            "casing.uppercase",
            "casing",
            "Your entire response must be in capital letters; no lowercase letters are allowed.",
            lambda t: _has_letter(t) and t == t.upper(),
        ),
        Constraint(
            "keyword.include",
            "keyword",
            'Include the word "evidence" in your response.',
            lambda t: re.search(r"\bevidence\b", t, flags=re.IGNORECASE) is not None,
        ),
        Constraint(
            "keyword.forbid",
            "keyword",
            'Do not use the word "image" anywhere in your response.',
            lambda t: re.search(r"\bimages?\b", t, flags=re.IGNORECASE) is None,
        ),
        Constraint(
            "format.json",
            "format",
            'Give your entire response as a JSON object with a single key "answer".',
            _json_answer,
        ),
        Constraint(
            "format.code_block",
            "format",
            "Wrap your entire response in a single Markdown code block (``` ... ```).",
            _code_block,
        ),
        Constraint(
            "format.bullets",
            "format",
            'Format your response as exactly 2 Markdown bullet points (lines starting with "* " or "- ").',
            _bullets,
        ),
        Constraint(
            "shape.start",
            "shape",
            'Begin your response with the exact words "My answer:".',
            lambda t: t.strip().lower().startswith("my answer:"),
        ),
        Constraint(
            "shape.end",
            "shape",
            f'End your response with the exact phrase "{_END}" and put nothing after it.',
            lambda t: t.rstrip().lower().endswith(_END.lower()),
        ),
    )
}

FAMILIES: tuple[str, ...] = ("length", "casing", "keyword", "format", "shape")

_INCOMPATIBLE: frozenset[frozenset[str]] = frozenset(
    frozenset(p)
    for p in (
        ("format.json", "shape.start"),
        ("format.json", "shape.end"),
        ("format.json", "casing.uppercase"),
        ("format.code_block", "shape.start"),
        ("format.code_block", "shape.end"),
    )
)


def _compatible(ids: Sequence[str]) -> bool:
    return all(frozenset((a, b)) not in _INCOMPATIBLE for i, a in enumerate(ids) for b in ids[i + 1 :])


def draw_constraints(item_key: str, seed: int = 0) -> list[str]:
    """1-3 compatible constraint ids for one item, a deterministic function of (item_key, seed)."""
    k = 1 + stable_hash("if-k", seed, item_key) % 3
    rng = np.random.default_rng(stable_hash("if-draw", seed, item_key))
    by_family = {f: [c.id for c in CONSTRAINTS.values() if c.family == f] for f in FAMILIES}
    for _ in range(1000):
        fams = rng.choice(len(FAMILIES), size=k, replace=False)
        ids = [by_family[FAMILIES[f]][rng.integers(len(by_family[FAMILIES[f]]))] for f in sorted(fams)]
        if _compatible(ids):
            return ids
    raise RuntimeError("no compatible constraint set found")  # unreachable: singletons always fit


def verify(constraint_id: str, response: str) -> bool:
    """Whether ``response`` satisfies the constraint ``constraint_id``."""
    if constraint_id not in CONSTRAINTS:
        raise InputError(f"unknown if constraint {constraint_id!r} (known: {sorted(CONSTRAINTS)})")
    return CONSTRAINTS[constraint_id].check(response)


def verify_all(constraint_ids: Sequence[str], response: str) -> list[int]:
    """Per-constraint compliance (1/0), in order: the rule-based ``if`` grade (mean = item score)."""
    return [int(verify(c, response)) for c in constraint_ids]


def instructions(constraint_ids: Sequence[str]) -> str:
    """The numbered instruction block shown to the model and to the Fig. 12 judge."""
    return "\n".join(f"{i}. {CONSTRAINTS[c].instruction}" for i, c in enumerate(constraint_ids, 1))
