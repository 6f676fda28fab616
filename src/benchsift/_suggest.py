"""``did you mean ...?`` for a mistyped name: the closest known names by :func:`difflib.get_close_matches`."""

from __future__ import annotations

import difflib
from collections.abc import Iterable

__all__ = ["did_you_mean"]


def did_you_mean(name: object, choices: Iterable[object], n: int = 3, cutoff: float = 0.6) -> str:
    """``" (did you mean 'x'?)"`` (or ``'x' or 'y'``) for the known names closest to ``name``, else ``""``.

    Matching ignores case; ``cutoff`` is difflib's similarity ratio (0.6, its default).
    """
    known = [str(c) for c in choices]
    lower = {k.lower(): k for k in known}
    hits = difflib.get_close_matches(str(name).lower(), list(lower), n=n, cutoff=cutoff)
    if not hits:
        return ""
    shown = " or ".join(repr(lower[h]) for h in hits)
    return f" (did you mean {shown}?)"
