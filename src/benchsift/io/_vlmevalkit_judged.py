"""Per-item correctness of VLMEvalKit's judge-scored MathVista, by its own post-check (ported).

VLMEvalKit's ``MathVista.evaluate`` (``vlmeval/dataset/image_vqa.py``, commit e8e78f05) writes the judge
file ``<model>_<dataset>_<judge>.xlsx``: the prediction table with the judge's extracted answer ``res`` and
its ``log``; ``MathVista_acc`` (``vlmeval/dataset/utils/mathvista.py``) then counts an item right when
``post_check(item, prefetch=False)`` holds and writes only the totals (``_score.csv``, ``acc`` in percent).
:func:`mathvista_correct` is that ``post_check`` on one row, with ``can_infer`` (``can_infer_option``, then
``can_infer_text``; ``vlmeval/utils/matching_util.py``) ported as they are, including what they do on
odd input: a free-form ``text`` answer is never right (``post_check`` compares ``str(None)``), a value
``int()`` / ``float()`` cannot read is wrong.
"""

from __future__ import annotations

import ast
import re
from typing import Any

_VERBOSE_ANSWER_RE = re.compile(r"(?i)(?:correct\s+)?answer\s+is\s+\**([ABCD])\**")
_REJECT = (
    "Sorry, I can't help with images of people yet.",
    "I can't process this file.",
    "I'm sorry, but without the image provided",
    "Cannot determine the answer",
)


def _count_choice(splits: list[str], choices: Any, prefix: str = "", suffix: str = "") -> int:
    return sum(1 for c in choices if prefix + c + suffix in splits)


def can_infer_option(answer: str, choices: dict[str, str]) -> str | bool:
    """VLMEvalKit's ``can_infer_option`` (the ``VERBOSE`` logging branch left out: it only logs)."""
    if "Failed to obtain answer via API" in answer:
        return False
    for err in _REJECT:
        if err in answer:
            return "Z"
    answer_mod = answer
    for c in ".()[],:;!*#{}":
        answer_mod = answer_mod.replace(c, " ")
    splits = [x.strip() for x in answer_mod.split()]
    count = _count_choice(splits, choices)
    if count == 1:
        for ch in choices:
            if ch in splits and splits.index(ch) > (len(splits) - 5):
                return ch
    elif count == 0 and _count_choice(splits, {"Z", ""}) == 1:
        return "Z"
    match = _VERBOSE_ANSWER_RE.search(answer or "")
    if match and match.group(1).upper() in choices:
        return match.group(1).upper()
    return False


def can_infer_text(answer: str, choices: dict[str, str]) -> str | bool:
    """VLMEvalKit's ``can_infer_text``."""
    answer = answer.lower()
    if len(answer) > 2 * sum(len(str(v)) for v in choices.values()):
        return False
    lowered = {k: str(v).lower() for k, v in choices.items()}
    cands = [k for k in lowered if lowered[k] in answer]
    return cands[0] if len(cands) == 1 else False


def can_infer(answer: Any, choices: dict[str, str]) -> str | bool:
    """VLMEvalKit's ``can_infer``: the option letter ``answer`` names, else False."""
    text = str(answer)
    option = can_infer_option(text, choices)
    return option if option else can_infer_text(text, choices)


def mathvista_correct(row: dict[str, Any]) -> float:
    """``post_check(row, prefetch=False)`` of ``vlmeval/dataset/utils/mathvista.py`` as 1.0 / 0.0.

    Multiple choice: the option ``can_infer`` reads from ``res`` equals ``answer_option``; free form:
    ``int(res) == int(answer)`` (``answer_type`` integer) or ``float(res) == float(answer)`` (float).
    ``choices`` is a Python list literal (VLMEvalKit ``eval``-s it; read here with ``ast.literal_eval``).
    Raises ``ValueError`` for ``choices`` that is not a list literal.
    """
    res: Any = None
    ans: Any = row.get("answer")
    response = row.get("res")
    try:
        if row.get("question_type") == "multi_choice":
            ans = row.get("answer_option")
            raw = row.get("choices")
            try:
                options = ast.literal_eval(str(raw))
            except (ValueError, SyntaxError):
                raise TypeError(f"choices {str(raw)[:40]!r} is not a list literal") from None
            if not isinstance(options, list | tuple):
                raise TypeError(f"choices {str(raw)[:40]!r} is not a list")
            res = can_infer(response, {chr(65 + i): v for i, v in enumerate(options)})
        elif row.get("answer_type") == "integer":
            res = int(response)  # type: ignore[arg-type]
            ans = int(ans)
        elif row.get("answer_type") == "float":
            res = float(response)  # type: ignore[arg-type]
            ans = float(ans)
        else:
            res = str(res)  # VLMEvalKit's own line: str(None), so a free-form text answer never matches
            ans = str(ans)
    except ValueError:
        pass
    except TypeError as exc:
        if "choices" in str(exc):
            raise ValueError(str(exc)) from None
    return 1.0 if res == ans else 0.0
