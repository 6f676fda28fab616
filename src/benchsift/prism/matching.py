"""Deterministic answer matching (PRISM-VLM Sec. 3: c and vis by exact extraction; q by VQA-style matching).

* :func:`normalize_answer`: VQA-style normalisation (lower case, punctuation, articles, number words
  to digits), after the official VQA evaluation script.
* :func:`match_answer`: a response is correct when its committed answer equals one of the golds after
  normalisation (multiple choice: the extracted option letter equals the gold letter). The committed
  answer is the text after "final answer:" / "the answer is" when present, else the whole response;
  a longer response also counts when a gold appears in it as a whole phrase and, for yes/no golds, the
  opposite answer does not.
* :func:`extract_int` (c), :func:`extract_letter` (vis and multiple choice), :func:`extract_answer`
  (the core answer compared across sc turns), :func:`expresses_uncertainty` (the rule-only h grader,
  a refusal/uncertainty phrase heuristic).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

__all__ = [
    "expresses_uncertainty",
    "extract_answer",
    "extract_int",
    "extract_letter",
    "match_answer",
    "normalize_answer",
]

_NUM_WORDS = {
    w: str(i)
    for i, w in enumerate(
        "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen "
        "sixteen seventeen eighteen nineteen twenty".split()
    )
}
_NUM_WORDS["none"] = "0"
_ARTICLES = {"a", "an", "the"}
_FINAL = re.compile(
    r"(?:final answer|the answer is|my answer is|answer is|answer)\s*[:\-]?\s*(.+)", re.IGNORECASE | re.DOTALL
)


def normalize_answer(text: str) -> str:
    """Lower-case, drop punctuation (keeping decimal points), map number words, drop articles."""
    s = text.lower().replace("\n", " ").replace("*", " ")
    s = re.sub(r"(?<=\d),(?=\d{3}\b)", "", s)  # 1,000 -> 1000
    s = re.sub(r"(?!(?<=\d)\.(?=\d))[^\w\s]", " ", s)
    toks = [_NUM_WORDS.get(t, t) for t in s.split()]
    return " ".join(t for t in toks if t not in _ARTICLES)


def _committed(text: str) -> str:
    matches = list(_FINAL.finditer(text))
    return matches[-1].group(1).strip() if matches else text.strip()


def extract_letter(text: str | None, letters: str = "ABCDEFGHIJ") -> str | None:
    """The option letter a response commits to, or None when there is none or it is ambiguous."""
    if not text:
        return None
    t = text.strip().replace("*", "")
    cls = f"[{letters}]"
    if re.search(rf"(?<![A-Za-z]){cls}\s*(?:or|and|/|vs\.?)\s*{cls}(?![A-Za-z])", t):
        return None  # hedged between options
    pats = (
        rf"(?:final answer|answer is|answer|option|caption|choice)"
        rf"\s*(?:is)?\s*[:\-]?\s*\(?({cls})\)?(?![A-Za-z])",
        rf"^\(?({cls})\)?(?:[.):,]|$|\s+(?![a-z]))",
    )
    for pat in pats:
        found = re.findall(pat, t, flags=re.IGNORECASE if pat.startswith("(?:") else 0)
        found = [f.upper() for f in found if f.upper() in letters]
        if found and len(set(found)) == 1:
            return found[0]
        if found:
            return found[-1] if pat.startswith("(?:") else None
    lone = set(re.findall(rf"(?<![A-Za-z'])({cls})(?![A-Za-z'])(?!\s+[a-z])", t))
    lone.discard("I")
    if len(lone) == 1 and len(t) <= 40:
        return lone.pop()
    return None


def extract_int(text: str | None) -> int | None:
    """The committed integer: the one after "answer"/"final answer" if any, else the last integer."""
    if not text:
        return None
    part = _committed(text)
    norm = normalize_answer(part)
    nums = re.findall(r"(?<![\d.])\d+(?![\d.]*\d)", norm)
    if not nums:
        nums = re.findall(r"\d+", normalize_answer(text))
    return int(nums[-1]) if nums else None


def _yes_no_conflict(gold: str, norm_resp: str) -> bool:
    opposite = {"yes": "no", "no": "yes", "true": "false", "false": "true"}.get(gold)
    return opposite is not None and re.search(rf"\b{opposite}\b", norm_resp) is not None


def match_answer(
    response: str | None, golds: Sequence[str], *, letter: bool = False, options: Sequence[str] | None = None
) -> bool:
    """Whether ``response`` commits to one of ``golds`` (see module docstring)."""
    if not response or not response.strip():
        return False
    if letter:
        got = extract_letter(response)
        if got is None and options:
            norm = normalize_answer(_committed(response))
            hits = [i for i, o in enumerate(options) if normalize_answer(str(o)) == norm]
            got = "ABCDEFGHIJ"[hits[0]] if len(hits) == 1 else None
        return got is not None and got in {g.strip().upper() for g in golds}
    committed = normalize_answer(_committed(response))
    full = normalize_answer(response)
    for gold in golds:
        g = normalize_answer(gold)
        if not g:
            continue
        if committed == g or full == g:
            return True
        for cand in (committed, full):
            if re.search(rf"(?<![\w.]){re.escape(g)}(?![\w]|\.\d)", cand) and not _yes_no_conflict(g, cand):
                return True
    return False


def extract_answer(text: str | None, *, letter: bool = False, numeric: bool = False) -> str:
    """The core answer of a turn, for rule-based change detection across sc turns."""
    if not text:
        return ""
    if letter:
        return extract_letter(text) or normalize_answer(_committed(text))
    if numeric:
        n = extract_int(text)
        return str(n) if n is not None else normalize_answer(_committed(text))
    return normalize_answer(_committed(text))


_UNCERTAIN = re.compile(
    r"\b(cannot|can ?not|can't|unable|not able|don't see|do not see|doesn't (?:appear|seem|show)|"
    r"does not (?:appear|seem|show)|there (?:is|are) no|no (?:such|visible)|not (?:visible|present|shown|"
    r"possible|clear|sure|certain)|isn't (?:any|visible|present)|unclear|impossible|too (?:small|blurry|"
    r"far)|hard to (?:tell|say|determine)|difficult to (?:tell|say|determine)|uncertain|no way to)\b",
    re.IGNORECASE,
)


def expresses_uncertainty(text: str | None) -> bool:
    """Rule-only h grader: the response refuses, doubts or rejects (a phrase heuristic, no judge)."""
    return bool(text) and _UNCERTAIN.search(text or "") is not None
