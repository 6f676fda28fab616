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
        for key in ("id", "benchmark", "question", "answers"):
            if key not in d:
                raise FormatError(f"{where}: missing field '{key}'")
        answers = d["answers"]
        if isinstance(answers, str):
            answers = [answers]
        if not isinstance(answers, list) or not answers or not all(isinstance(a, str) for a in answers):
            raise FormatError(f"{where}: 'answers' must be a non-empty list of strings")
        images = d.get("images") or []
        if isinstance(images, str):
            images = [images]
        return cls(
            id=str(d["id"]),
            benchmark=str(d["benchmark"]),
            domain=str(d.get("domain") or domain_of(str(d["benchmark"]))),
            question=str(d["question"]),
            answers=list(answers),
            images=[str(i) for i in images],
            options=list(d["options"]) if d.get("options") else None,
            letter_answer=bool(d.get("letter_answer", False)),
            options_in_question=bool(d.get("options_in_question", False)),
            category=d.get("category"),
            meta=dict(d.get("meta") or {}),
        )


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
