"""An OpenAI-compatible chat-completions client (OpenAI, vLLM, OpenRouter, ... any ``/v1`` server).

One ``POST {base_url}/chat/completions`` per request through the endpoint's transport
(:mod:`benchsift.clients.transport`: aiohttp by default, or the ``openai`` SDK), with no retries of its
own: the retry layer (:mod:`benchsift.clients.retry`) owns every retry. This module builds the JSON body,
reads the chat completion out of the reply and keeps the endpoint's counters; a reply that is valid JSON
but not a chat completion is a retryable ``malformed`` error, like one that is not JSON at all, and so is one
whose text holds a lone surrogate (``"\\ud83d"``, half an emoji cut by a gateway: valid JSON, but no text
that can be stored as UTF-8). A generation the server reports as failed (``finish_reason`` ``"error"`` or
``"abort"``: vLLM, OpenRouter) is a retryable failure too, never an answer, so never cached nor graded.
"""

from __future__ import annotations

import json
from typing import Any

from benchsift.clients.base import ClientError, ClientStats, Request, Response
from benchsift.clients.config import MAX_REPLY_BYTES, EndpointConfig
from benchsift.clients.transport import make_transport, parse_retry_after

__all__ = ["FAILED_FINISH_REASONS", "OpenAICompatClient", "parse_retry_after"]

#: finish reasons of a generation that failed on the server (vLLM's "abort" and "error", OpenRouter's "error")
FAILED_FINISH_REASONS = ("error", "abort")


class OpenAICompatClient:
    """``generate(request)`` -> one ``POST {base_url}/chat/completions``."""

    def __init__(
        self,
        endpoint: EndpointConfig,
        *,
        timeout: float = 120.0,
        stats: ClientStats | None = None,
        max_reply_bytes: int = MAX_REPLY_BYTES,
    ) -> None:
        self.endpoint = endpoint
        self.stats = stats if stats is not None else ClientStats()
        self.transport = make_transport(
            endpoint,
            timeout=endpoint.timeout if endpoint.timeout is not None else timeout,
            max_reply_bytes=max_reply_bytes,
        )
        # an image in the configured extra body fields (unusual) makes every body worth searching
        self._extra_urls = "data:" in json.dumps(endpoint.extra_body)

    def body(self, request: Request) -> dict[str, Any]:
        """The JSON body: the request payload, the configured budget field, extra body fields."""
        payload = request.payload()
        budget = payload.pop("max_tokens")
        return {**self.endpoint.extra_body, **payload, self.endpoint.max_tokens_field: budget}

    async def generate(self, request: Request) -> Response:
        self.stats.requests += 1
        try:
            data: Any = await self.transport.post_json(
                "/chat/completions", self.body(request), data_urls=request.has_data_urls or self._extra_urls
            )
        except ClientError as err:
            self.stats.count_error(err.kind or "error")
            raise
        try:
            choice = data["choices"][0]
            text = choice["message"].get("content")
            finish = choice.get("finish_reason")
            usage = data.get("usage") or {}
            if text is not None and not isinstance(text, str):
                raise TypeError("content is not a string")
            if finish is not None and not isinstance(finish, str):
                raise TypeError("finish_reason is not a string")
            if not (_storable(text) and _storable(finish)):
                raise UnicodeError("a lone surrogate in the reply's text")
            resp = Response(
                text=text,
                finish_reason=finish,
                prompt_tokens=_token_count(usage.get("prompt_tokens")),
                completion_tokens=_token_count(usage.get("completion_tokens")),
            )
        except UnicodeError as err:
            self.stats.count_error("malformed")
            raise ClientError(
                f"{self.endpoint.name}: malformed reply (a lone surrogate in its text, not valid Unicode)",
                retryable=True,
                kind="malformed",
            ) from err
        except (AttributeError, IndexError, KeyError, TypeError, ValueError, OverflowError) as err:
            self.stats.count_error("malformed")
            raise ClientError(
                f"{self.endpoint.name}: reply is not a chat completion", retryable=True, kind="malformed"
            ) from err
        if finish in FAILED_FINISH_REASONS:
            self.stats.count_error(f"finish_{finish}")
            raise ClientError(
                f"{self.endpoint.name}: the server reports the generation failed (finish_reason {finish!r}); "
                "not an answer",
                retryable=True,
                kind=f"finish_{finish}",
            )
        self.stats.succeeded += 1
        self.stats.prompt_tokens += resp.prompt_tokens
        self.stats.completion_tokens += resp.completion_tokens
        return resp

    async def aclose(self) -> None:
        await self.transport.aclose()


def _storable(text: str | None) -> bool:
    """True unless ``text`` holds a lone surrogate (which no UTF-8 file or database can store)."""
    if text is None or text.isascii():
        return True
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _token_count(value: Any) -> int:
    """A reply's token count as a non-negative int (missing or null: 0); else ``ValueError`` (the reply is
    malformed). A finish reason or count of another type was stored and made the cache read as corrupt on
    the next run, and a count of ``1e400`` (infinity) was an ``OverflowError`` that stopped the run."""
    n = int(value or 0)
    if n < 0:
        raise ValueError("negative token count")
    return n
