"""Shared helpers of the engine stages (sources -> build -> run -> grade).

Image parts, strict JSON, JSONL files, bounded async batching.
"""

from __future__ import annotations

import asyncio
import json
import os
import re
from collections.abc import Awaitable, Callable, Iterable, Sequence
from pathlib import Path
from typing import Any, TypeVar

from benchsift._fileio import atomic_path
from benchsift._jsonutil import MAX_JSON_DEPTH, loads_bounded
from benchsift.clients.base import image_data_url
from benchsift.errors import FormatError
from benchsift.prism._images import read_image
from benchsift.prism.sources import Item
from benchsift.progress import ProgressFn, Ticker

T = TypeVar("T")

__all__ = ["ImageStore", "gather_bounded", "parse_json_object", "user_message", "write_jsonl"]


class ImageStore:
    """Reads an item's image files (relative to ``root``) once and hands out data URLs.

    Every path goes through :func:`benchsift.prism._images.read_image`: it must resolve inside ``root``
    (the current directory when None) after following symlinks and start with an image signature.
    :meth:`check` reads every image of a list of items up front, so a bad path stops a run before any
    request is sent. ``source``, the item file, is named in the one-line error about a bad image path.
    """

    def __init__(
        self, root: str | os.PathLike[str] | None, source: str | os.PathLike[str] | None = None
    ) -> None:
        self.root = Path(root) if root is not None else None
        self.source = source  # the item file, named in an error about an image path
        self._urls: dict[str, str] = {}

    def check(self, items: Iterable[Item]) -> None:
        """Read (and cache) every image of ``items``; InputError at the first bad one."""
        for item in items:
            self.urls(item)

    def urls(self, item: Item) -> list[str]:
        out = []
        for name in item.images:
            if name not in self._urls:
                where = f"item {item.id}" if self.source is None else f"{self.source}: item {item.id}"
                data, mime = read_image(name, self.root, where)
                self._urls[name] = image_data_url(data, mime)
            out.append(self._urls[name])
        return out


def user_message(text: str, image_urls: Sequence[str] = ()) -> dict[str, Any]:
    """An OpenAI chat user message: the text part, then one ``image_url`` part per image."""
    if not image_urls:
        return {"role": "user", "content": text}
    parts: list[dict[str, Any]] = [{"type": "text", "text": text}]
    parts += [{"type": "image_url", "image_url": {"url": u}} for u in image_urls]
    return {"role": "user", "content": parts}


_FENCED = re.compile(r"```(?:json)?\s*(.*?)\s*```", re.DOTALL)


def parse_json_object(text: str | None) -> dict[str, Any]:
    """Strict JSON: the whole reply (optionally inside one ```json fence) must be a JSON object.

    Raises ValueError with the reason otherwise (used to re-ask the judge), a reply nested deeper than
    :data:`benchsift._jsonutil.MAX_JSON_DEPTH` included.
    """
    if text is None or not text.strip():
        raise ValueError("empty reply")
    body = text.strip()
    m = _FENCED.fullmatch(body)
    if m:
        body = m.group(1)
    try:
        obj = loads_bounded(body, "reply")
    except FormatError as err:  # nested deeper than MAX_JSON_DEPTH: never a RecursionError
        raise ValueError(f"JSON nested more than {MAX_JSON_DEPTH} levels deep") from err
    except json.JSONDecodeError as err:
        raise ValueError(f"not valid JSON ({err.msg} at position {err.pos})") from err
    if not isinstance(obj, dict):
        raise ValueError("expected a JSON object")
    return obj


def write_jsonl(rows: Iterable[dict[str, Any]], path: str | os.PathLike[str]) -> None:
    with atomic_path(path) as tmp:
        with open(tmp, "w", encoding="utf-8") as fh:
            for row in rows:
                fh.write(json.dumps(row, ensure_ascii=False, default=str) + "\n")


def read_jsonl(path: str | os.PathLike[str]) -> list[dict[str, Any]]:
    from benchsift.prism.items import read_jsonl_records

    return read_jsonl_records(Path(path))


async def gather_bounded(
    factories: Sequence[Callable[[], Awaitable[T]]],
    *,
    window: int = 4096,
    progress: ProgressFn | None = None,
) -> list[T]:
    """Run coroutine factories with at most ``window`` running at once; results in input order.

    ``window`` workers pull the next factory from one shared iterator as they finish, so the bookkeeping
    is O(1) per factory (waiting on the whole pending set after every completion would be O(window)).
    The first exception cancels the rest and propagates. ``progress(done, total)``
    (:data:`benchsift.progress.ProgressFn`) is called with ``(0, len(factories))`` at the start and after
    each factory's result, in completion order.
    """
    tick = Ticker(progress, len(factories))
    report = progress is not None
    results: list[Any] = [None] * len(factories)
    todo = iter(enumerate(factories))

    async def worker() -> None:
        for i, factory in todo:  # a shared iterator: next() never yields to the event loop
            results[i] = await factory()
            if report:
                tick()

    workers = [asyncio.ensure_future(worker()) for _ in range(min(max(int(window), 1), len(factories)))]
    try:
        await asyncio.gather(*workers)
    except BaseException:  # a factory failed, or this call was cancelled: stop the others, let them unwind
        for w in workers:
            w.cancel()
        await asyncio.gather(*workers, return_exceptions=True)
        raise
    return results
