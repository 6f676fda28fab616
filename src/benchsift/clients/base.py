"""The model-client protocol: one async ``generate(request) -> Response`` and a classified error.

Layering (inspect_ai style): a provider client only talks to its API and classifies its errors as
retryable or not; retries (:mod:`benchsift.clients.retry`), the concurrency limit
(:mod:`benchsift.clients.limits`) and the response cache (:mod:`benchsift.clients.cache`) wrap it from
outside. Clients know nothing of the evaluation axes they serve.

::

    BenchsiftError
    └── ClientError            a request that failed (retryable or not)
"""

from __future__ import annotations

import base64
import functools
import hashlib
import json
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

from benchsift.errors import BenchsiftError

__all__ = [
    "ClientError",
    "ClientStats",
    "ModelClient",
    "Request",
    "Response",
    "canonical_json",
    "image_data_url",
    "json_bytes",
]


# one encoder each, made once: ``json.dumps`` with any non-default option builds a new encoder per call (a
# few microseconds, three calls per request); ``encode`` keeps no state between calls
_CANONICAL = json.JSONEncoder(sort_keys=True, separators=(",", ":"), ensure_ascii=False)
_PLAIN = json.JSONEncoder(ensure_ascii=False)


def canonical_json(obj: Any) -> str:
    """Canonical JSON: sorted keys, no whitespace, UTF-8 kept (the input of every cache key).

    Equal to ``json.dumps(obj, sort_keys=True, separators=(",", ":"), ensure_ascii=False)``."""
    return _CANONICAL.encode(obj)


def image_data_url(data: bytes, mime: str = "image/png") -> str:
    """``data:<mime>;base64,<...>``: how images travel in OpenAI-style chat content parts."""
    return f"data:{mime};base64,{base64.b64encode(data).decode('ascii')}"


@functools.lru_cache(maxsize=256)
def _url_digest(url: str) -> str:
    # one image is sent with many requests (every axis, every model): hash its payload once; the cache
    # holds at most 256 data URLs (the engine's ImageStore keeps the same string objects anyway)
    return "sha256:" + hashlib.sha256(url.encode("ascii")).hexdigest()


@functools.lru_cache(maxsize=64)
def _endpoint_json(endpoint: str) -> str:
    """``canonical_json(endpoint.rstrip("/"))``: the endpoint part of every cache key (a run has a few)."""
    return canonical_json(endpoint.rstrip("/"))


def _map_data_urls(obj: Any, replace: Callable[[str], str]) -> Any:
    """A copy of a JSON-like tree with every ``"url": "data:..."`` value replaced by ``replace(value)``.

    Leaves (strings, numbers) are copied without a call of their own: a text-only chat request is a few
    small dicts, and one call per leaf was most of the cost of hashing it.
    """
    if isinstance(obj, dict):
        out = {}
        for k, v in obj.items():
            if isinstance(v, str):
                out[k] = replace(v) if k == "url" and v.startswith("data:") else v
            elif isinstance(v, dict | list | tuple):
                out[k] = _map_data_urls(v, replace)
            else:
                out[k] = v
        return out
    if isinstance(obj, list | tuple):
        return [_map_data_urls(m, replace) if isinstance(m, dict | list | tuple) else m for m in obj]
    return obj


def _digest_images(messages: Any) -> Any:
    """Replace every ``data:`` URL by the sha256 of its payload (for stored, human-readable requests)."""
    return _map_data_urls(messages, _url_digest)


def _json_safe(text: str) -> bool:
    """True when ``json.dumps(text)`` is ``'"' + text + '"'``: printable ASCII with no quote or backslash
    (every base64 data URL)."""
    return text.isascii() and text.isprintable() and '"' not in text and "\\" not in text


def json_bytes(obj: Any, *, data_urls: bool = True) -> bytes:
    """``json.dumps(obj, ensure_ascii=False).encode()``, with image data URLs copied in verbatim.

    The standard encoder scans every character of a string for escapes, about 1 ms per 200 KB image on
    the test machine; a base64 data URL needs none, so it is serialised as a placeholder and spliced in.
    The bytes equal the plain ``json.dumps`` output (tested). ``data_urls=False`` (the caller knows there
    are none, e.g. from :attr:`Request.has_data_urls`) skips the search for them: the same bytes.
    """
    if not data_urls:
        return _PLAIN.encode(obj).encode("utf-8")
    urls: list[str] = []

    def placeholder(url: str) -> str:
        if not _json_safe(url):
            return url
        urls.append(url)
        return f"\x00{len(urls) - 1}\x00"  # json_bytes checks each placeholder is unique in the text

    text = _PLAIN.encode(_map_data_urls(obj, placeholder))
    marks = [f'"\\u0000{i}\\u0000"' for i in range(len(urls))]
    if any(text.count(m) != 1 for m in marks):  # a text of the request holds a placeholder itself
        return _PLAIN.encode(obj).encode("utf-8")
    for mark, url in zip(marks, urls, strict=True):
        text = text.replace(mark, f'"{url}"', 1)
    return text.encode("utf-8")


@dataclass(frozen=True)
class Request:
    """One chat-completion request, in the fields that change the answer.

    ``messages`` follow the OpenAI chat format (content may be a list of ``text`` / ``image_url`` parts).
    Transport settings (API key, timeout, retry policy, concurrency) are deliberately not part of a
    request, so they never enter the cache key.
    """

    model: str
    messages: tuple[dict[str, Any], ...]
    max_tokens: int = 512
    temperature: float = 0.0
    top_p: float = 1.0
    extra: tuple[tuple[str, Any], ...] = ()

    def payload(self) -> dict[str, Any]:
        """The request as a JSON-able dict (without endpoint or credentials)."""
        out: dict[str, Any] = {
            "model": self.model,
            "messages": list(self.messages),
            "max_tokens": int(self.max_tokens),
            "temperature": float(self.temperature),
            "top_p": float(self.top_p),
        }
        for k, v in self.extra:
            out[k] = v
        return out

    def key(self, endpoint: str = "") -> str:
        """sha256 of the canonical request JSON plus the endpoint URL (never the API key).

        Images enter through the sha256 of their data URL (as in :meth:`loggable`), so the key depends
        on every byte of every image while each image is hashed once however many requests carry it.
        """
        # canonical_json({"endpoint": ..., "request": loggable}), assembled from the cached request text
        body = f'{{"endpoint":{_endpoint_json(endpoint)},"request":{self.canonical}}}'
        return hashlib.sha256(body.encode("utf-8")).hexdigest()

    def loggable(self) -> dict[str, Any]:
        """The payload with image data replaced by digests (for logs and the cache's request column)."""
        return _digest_images(self.payload())

    @functools.cached_property
    def canonical(self) -> str:
        """``canonical_json(self.loggable())``, computed once (the cache key and its request column).

        A request without an image data URL is its own loggable form, so its payload is serialised once,
        without the copy that replaces data URLs: in canonical JSON every ``"url"`` field whose value
        starts with ``data:`` reads ``"url":"data:`` (sorted keys, no whitespace, and a quote inside a
        string is always escaped), so when the text lacks that, the copy would have changed nothing.
        """
        payload = self.payload()
        text = canonical_json(payload)
        if '"url":"data:' in text:  # an image (or a text that spells the pattern out): the full copy
            return canonical_json(_digest_images(payload))
        return text

    @property
    def has_data_urls(self) -> bool:
        """Whether a ``"url": "data:..."`` value may be in the request (never false when one is).

        Read from :attr:`canonical`, where each data URL became ``"url":"sha256:..."``; a text that spells
        that out itself only makes it true, which costs speed, not correctness (:func:`json_bytes`).
        """
        return '"url":"sha256:' in self.canonical


@dataclass
class Response:
    """A model's answer. ``text`` is None when the API returned no content (e.g. a refusal)."""

    text: str | None
    finish_reason: str | None = None
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cached: bool = False

    def to_dict(self) -> dict[str, Any]:
        return {
            "text": self.text,
            "finish_reason": self.finish_reason,
            "prompt_tokens": self.prompt_tokens,
            "completion_tokens": self.completion_tokens,
        }

    @classmethod
    def from_dict(cls, d: dict[str, Any], cached: bool = False) -> Response:
        return cls(
            text=d.get("text"),
            finish_reason=d.get("finish_reason"),
            prompt_tokens=int(d.get("prompt_tokens") or 0),
            completion_tokens=int(d.get("completion_tokens") or 0),
            cached=cached,
        )


class ClientError(BenchsiftError):
    """A request that failed. ``retryable``: worth retrying (429, 5xx, timeouts, malformed replies, a
    generation the server reports as failed).

    ``kind`` names the error counter it feeds in :class:`ClientStats` (``"timeout"``, ``"connection"``,
    ``"malformed"``, ``"finish_error"`` or the HTTP status as a string). ``fatal``: every later request to the
    endpoint would fail the same way (HTTP 401/403, 402 or a 429 ``insufficient_quota``, an invalid URL, a
    refused connection, an untrusted certificate), so the endpoint is stopped
    (:class:`benchsift.clients.breaker.StopOnFatalClient`).
    """

    def __init__(
        self,
        message: str,
        *,
        retryable: bool,
        status: int | None = None,
        retry_after: float | None = None,
        kind: str | None = None,
        fatal: bool = False,
    ) -> None:
        super().__init__(message)
        self.retryable = retryable and not fatal
        self.status = status
        self.retry_after = retry_after
        self.kind = kind
        self.fatal = fatal


@dataclass
class ClientStats:
    """Counters shared by the layers of one client stack (summed over endpoints by the caller)."""

    requests: int = 0  # HTTP attempts that reached the network layer
    succeeded: int = 0
    retries: int = 0
    failures: int = 0  # requests that failed for good (after retries)
    cache_hits: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    errors: dict[str, int] = field(default_factory=dict)
    retry_after_capped: int = 0  # retries whose server-asked wait was longer than max_retry_after

    def count_error(self, kind: str) -> None:
        self.errors[kind] = self.errors.get(kind, 0) + 1

    def add(self, other: ClientStats) -> None:
        for name in ("requests", "succeeded", "retries", "failures", "cache_hits", "retry_after_capped"):
            setattr(self, name, getattr(self, name) + getattr(other, name))
        self.prompt_tokens += other.prompt_tokens
        self.completion_tokens += other.completion_tokens
        for k, v in other.errors.items():
            self.errors[k] = self.errors.get(k, 0) + v

    def to_dict(self) -> dict[str, Any]:
        return {
            "requests": self.requests,
            "succeeded": self.succeeded,
            "retries": self.retries,
            "failures": self.failures,
            "cache_hits": self.cache_hits,
            "prompt_tokens": self.prompt_tokens,
            "completion_tokens": self.completion_tokens,
            "errors": dict(self.errors),
            "retry_after_capped": self.retry_after_capped,
        }


@runtime_checkable
class ModelClient(Protocol):
    """Anything that answers a :class:`Request` asynchronously."""

    async def generate(self, request: Request) -> Response: ...
