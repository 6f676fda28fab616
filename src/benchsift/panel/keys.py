"""Why a run's ``(benchmark, item)`` keys miss a reference's (a suite, an item bank): item ids that are the
same number written another way (``"0012"``, ``"12.0"`` for ``"12"``).

Keys are compared as text everywhere (``"007"`` and ``"7"`` may be two documents of a harness), so such
ids never match. A run whose ids match the reference's only as numbers was almost always written by
other code (zero-padded, or a float column) than the one that numbered the reference; the commands that
read a run against a reference refuse it, naming a few pairs, rather than score the few ids that happen
to match.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

__all__ = ["number_form", "numeric_twins", "twins_text"]

Key = tuple[str, str]

_NUMBER = re.compile(r"0*(\d+)(?:\.0*)?")


def number_form(item: str) -> str | None:
    """The integer an id writes, as plain digits (``"0012"``, ``"12.0"``, ``"12"`` -> ``"12"``), else None."""
    m = _NUMBER.fullmatch(str(item).strip())
    return None if m is None else m.group(1)


def numeric_twins(given: Iterable[Key], known: Sequence[Key]) -> list[tuple[Key, Key]]:
    """``(given key, known key)`` pairs, in the order of ``given``: a given key that is not known, whose
    item id is the same integer as the id of exactly one known key of the same benchmark, when that known
    key is not given itself and no other given key writes the same integer (one to one, so nothing is
    paired by guess)."""
    known_set = set(known)
    given_list = list(dict.fromkeys(given))
    given_set = set(given_list)

    def by_number(keys: Iterable[Key]) -> dict[Key, list[Key]]:
        out: dict[Key, list[Key]] = {}
        for bench, item in keys:
            n = number_form(item)
            if n is not None:
                out.setdefault((bench, n), []).append((bench, item))
        return out

    missed = by_number(k for k in known if k not in given_set)
    extra = by_number(k for k in given_list if k not in known_set)
    pairs = []
    for number, keys in extra.items():
        targets = missed.get(number, [])
        if len(keys) == 1 and len(targets) == 1:
            pairs.append((keys[0], targets[0]))
    order = {k: i for i, k in enumerate(given_list)}
    return sorted(pairs, key=lambda p: order[p[0]])


def twins_text(pairs: Sequence[tuple[Key, Key]], shown: int = 3) -> str:
    """``'00733' for '733', ... (N more)``: a few pairs of :func:`numeric_twins` for a message."""
    text = ", ".join(f"{g[1]!r} for {k[1]!r}" for g, k in pairs[:shown])
    return text + (f", ... ({len(pairs) - shown} more)" if len(pairs) > shown else "")
