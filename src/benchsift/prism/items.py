"""Source items (PRISM-VLM Sec. 4): the :class:`Item` record, its five domains (Table 8), item files.

An :class:`Item` is one source question: id, benchmark, domain, question, gold answer(s), options and
image file(s). A canonical item file is JSONL, one :meth:`Item.to_dict` per line, with image paths
relative to an image folder (:func:`read_items` / :func:`write_items`).
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from benchsift._fileio import atomic_path, bounded_lines, open_regular
from benchsift._jsonutil import loads_bounded
from benchsift.errors import FormatError
from benchsift.prism._images import resolve_image

__all__ = [
    "DOMAINS",
    "LETTERS",
    "Item",
    "check_item_images",
    "domain_of",
    "read_items",
    "read_jsonl_records",
    "write_items",
]

LETTERS = "ABCDEFGHIJ"

DOMAINS: dict[str, tuple[str, ...]] = {
    "General-VQA": ("mmstar", "gqa", "okvqa"),
    "Math & Sci.": ("mmmu", "mathvista", "scienceqa"),
    "Chart/Doc": ("ai2d", "chartqa", "docvqa"),
    "Grounding": ("refcocog", "refcoco+", "blink_counting"),
    "Multi-Image": ("mantis", "nlvr2", "blink"),
}


def domain_of(benchmark: str) -> str:
    for dom, names in DOMAINS.items():
        if benchmark in names:
            return dom
    return "other"


@dataclass
class Item:
    """One source item. ``answers`` holds every acceptable gold (VQA-style several golds).

    ``letter_answer``: the gold is an option letter (multiple choice); ``options`` are then shown to
    the model as ``A. ...`` lines unless the question already embeds them (``options_in_question``).
    """

    id: str
    benchmark: str
    domain: str
    question: str
    answers: list[str]
    images: list[str] = field(default_factory=list)
    options: list[str] | None = None
    letter_answer: bool = False
    options_in_question: bool = False
    category: str | None = None
    meta: dict[str, Any] = field(default_factory=dict)

    @property
    def prompt(self) -> str:
        """The question as shown to the model (options appended for multiple choice)."""
        if self.options and not self.options_in_question:
            opts = " ".join(f"{LETTERS[i]}. {o}" for i, o in enumerate(self.options))
            return f"{self.question}\nOptions: {opts}\nAnswer with the letter."
        return self.question

    @property
    def gold(self) -> str:
        """The golds joined for prompts (``a / b / c``), as in the paper's worked samples."""
        return " / ".join(self.answers)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, d: dict[str, Any], where: str = "item") -> Item:
        """An item from its JSON object; every field of the wrong type is refused in one line naming it
        (an options string is not split into letters, ``"no"`` is not read as true, a null question is
        not sent as ``"None"``)."""
        for key in ("id", "benchmark", "question", "answers"):
            if key not in d:
                raise FormatError(f"{where}: missing field '{key}'")
        answers = d["answers"]
        if isinstance(answers, str):
            answers = [answers]
        if not isinstance(answers, list) or not answers or not all(isinstance(a, str) for a in answers):
            raise FormatError(f"{where}: 'answers' must be a non-empty list of strings")
        benchmark = _text(d, "benchmark", where, empty=False)
        options = _strings(d, "options", where, scalars=True) or None
        if options is not None and len(options) > len(LETTERS):
            raise FormatError(
                f"{where}: 'options' has {len(options)} entries; at most {len(LETTERS)} (letters "
                f"{LETTERS[0]}-{LETTERS[-1]}) can be shown"
            )
        item = cls(
            id=_identifier(d["id"], where),
            benchmark=benchmark,
            domain=_text(d, "domain", where, empty=False, optional=True) or domain_of(benchmark),
            question=_text(d, "question", where),
            answers=list(answers),
            images=_strings(d, "images", where),
            options=options,
            letter_answer=_flag(d, "letter_answer", where),
            options_in_question=_flag(d, "options_in_question", where),
            category=_text(d, "category", where, optional=True),
            meta=_mapping(d, "meta", where),
        )
        if item.letter_answer and item.options and not item.options_in_question:
            letters = LETTERS[: len(item.options)]
            bad = [a for a in item.answers if a.strip().upper() not in letters]
            if bad:
                raise FormatError(
                    f"{where}: 'letter_answer' is true but answer {bad[0][:40]!r} is not one of the "
                    f"{len(item.options)} options' letters {letters[0]}-{letters[-1]}"
                )
        return item


def _identifier(v: object, where: str) -> str:
    """An item id: a non-empty string, or an integer (written as its digits)."""
    if isinstance(v, int) and not isinstance(v, bool):
        return str(v)
    if isinstance(v, str) and v.strip():
        return v
    raise FormatError(f"{where}: 'id' must be a non-empty string or an integer, got {_shown(v)}")


def _text(d: dict[str, Any], key: str, where: str, empty: bool = True, optional: bool = False) -> Any:
    """``d[key]`` as a string (``None`` when ``optional`` and missing or null); else one line."""
    v = d.get(key)
    if v is None and optional:
        return None
    if isinstance(v, str) and (empty or v.strip()):
        return v
    kind = "a string" if empty else "a non-empty string"
    raise FormatError(f"{where}: {key!r} must be {kind}{' or null' if optional else ''}, got {_shown(v)}")


def _strings(d: dict[str, Any], key: str, where: str, scalars: bool = False) -> list[str]:
    """``d[key]``: a list of strings (a lone string is a list of one; missing or null is empty). With
    ``scalars`` a number in the list is written as text (options such as ``[1, 2, 3]``)."""
    v = d.get(key)
    if v is None:
        return []
    if isinstance(v, str) and not scalars:
        return [v]
    ok = (str, int, float) if scalars else (str,)
    if isinstance(v, list) and all(isinstance(x, ok) and not isinstance(x, bool) for x in v):
        return [str(x) for x in v]
    what = "strings or numbers" if scalars else "strings (or one string)"
    raise FormatError(f"{where}: {key!r} must be a list of {what}, got {_shown(v)}")


def _flag(d: dict[str, Any], key: str, where: str) -> bool:
    v = d.get(key, False)
    if isinstance(v, bool):
        return v
    raise FormatError(f"{where}: {key!r} must be true or false, got {_shown(v)}")


def _mapping(d: dict[str, Any], key: str, where: str) -> dict[str, Any]:
    v = d.get(key)
    if v is None:
        return {}
    if isinstance(v, dict):
        return dict(v)
    raise FormatError(f"{where}: {key!r} must be a JSON object or null, got {_shown(v)}")


def _shown(v: object) -> str:
    """A JSON value as shown in an error: its type and at most 40 characters of it."""
    return f"{type(v).__name__} {json.dumps(v, default=str)[:40]}"


def read_jsonl_records(path: Path) -> list[dict[str, Any]]:
    """The JSON objects of a JSONL file (blank lines skipped); one line naming the file and line when bad.

    Only a regular file is read (:func:`benchsift._fileio.open_regular`: a FIFO or a device is refused,
    never waited on or read), a line at a time, each at most :data:`benchsift._fileio.MAX_LINE_BYTES` long
    (a file without line breaks is refused after that much, not read whole), each object nested at most
    :data:`benchsift._jsonutil.MAX_JSON_DEPTH` deep. Lines end at ``\\n`` only: a raw U+2028 or U+0085
    inside a string (``json.dumps(..., ensure_ascii=False)`` writes them) stays in its line.
    """
    lines = []
    offset = 0
    with open_regular(path, "a JSON lines file") as fh:
        for n, raw in enumerate(bounded_lines(fh, str(path), what="expected one JSON object per line"), 1):
            try:
                lines.append(raw.decode("utf-8"))
            except UnicodeDecodeError as err:
                at = offset + err.start
                raise FormatError(
                    f"{path}: not a UTF-8 text file of JSON lines ({err.reason} at byte {at}, line {n})"
                ) from None
            offset += len(raw)
    rows = []  # parsed once the whole file is known to be UTF-8 text: a binary file is said to be one
    for n, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            obj = loads_bounded(line, f"{path}, line {n}")
        except FormatError:
            raise
        except ValueError as err:
            raise FormatError(f"{path}, line {n}: not valid JSON ({err})") from err
        if not isinstance(obj, dict):
            raise FormatError(f"{path}, line {n}: expected a JSON object")
        rows.append(obj)
    return rows


def read_items(path: str | os.PathLike[str]) -> list[Item]:
    """Items from a canonical JSONL file; ids must be unique."""
    p = Path(path)
    items = [Item.from_dict(d, f"{p}, record {i + 1}") for i, d in enumerate(read_jsonl_records(p))]
    if not items:
        raise FormatError(f"{p}: no items (the file holds no JSON lines); expected one item object per line")
    seen: set[str] = set()
    for it in items:
        if it.id in seen:
            raise FormatError(f"{p}: item id {it.id!r} appears twice")
        seen.add(it.id)
    return items


def check_item_images(items: Iterable[Item], image_dir: str | os.PathLike[str] | None) -> None:
    """Refuse any image path of ``items`` that is absolute or resolves outside ``image_dir``.

    ``image_dir`` is the image folder (the current directory when None); symlinks that exist are
    followed before the check (:func:`benchsift.prism._images.resolve_image`). The files need not exist
    yet: ``prism build`` and ``prism run`` check existence and image signatures when they read them.
    """
    for it in items:
        for name in it.images:
            resolve_image(name, image_dir, f"item {it.id}")


def write_items(items: Sequence[Item], path: str | os.PathLike[str]) -> None:
    with atomic_path(path) as tmp:
        with open(tmp, "w", encoding="utf-8") as fh:
            for it in items:
                fh.write(json.dumps(it.to_dict(), ensure_ascii=False) + "\n")
