"""An OpenAI-compatible chat-completions client (OpenAI, vLLM, OpenRouter, ... any ``/v1`` server).

One ``POST {base_url}/chat/completions`` per request through the ``openai`` SDK's ``AsyncOpenAI`` client
(its auth, timeouts, keep-alive connections and error classes) with ``max_retries=0``: our retry layer
(:mod:`benchsift.clients.retry`) owns every retry. The SDK's low-level ``post`` is used with a plain JSON
body and a plain dict result, skipping its typed-parameter transform and response models, which were the
main part of its client CPU cost per request. A bare HTTP post would save about 0.6-1.2 ms more of client
CPU per request on the 2-core test machine (``benchmarks/bench_engine_throughput.py`` measures both), but
the SDK is the dependency benchsift chose for OpenAI-compatible endpoints.
Errors are classified here:

* retryable: 429 (with its ``Retry-After``), 408, 409, 5xx, timeouts, connection errors, replies that
  are not valid JSON or not a chat completion;
* not retryable: other 4xx (bad request, authentication, unknown model).

The API key is read from the environment variable named in the config and sent only in the
``Authorization`` header; it is never logged, cached or put in an error message (error messages carry
the endpoint name, the HTTP status and the exception type, never the request or the reply body).
"""

from __future__ import annotations

import email.utils
import json
import time
from typing import Any

from benchsift.clients.base import ClientError, ClientStats, Request, Response
from benchsift.clients.config import EndpointConfig

__all__ = ["OpenAICompatClient", "parse_retry_after"]


def parse_retry_after(headers: Any) -> float | None:
    """Seconds to wait from ``retry-after-ms`` or ``Retry-After`` (seconds or an HTTP date)."""
    if headers is None:
        return None
    try:
        ms = headers.get("retry-after-ms")
        if ms is not None:
            return max(0.0, float(ms) / 1000.0)
        value = headers.get("retry-after")
    except Exception:
        return None
    if value is None:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(0.0, when.timestamp() - time.time())


class OpenAICompatClient:
    """``generate(request)`` -> one ``POST {base_url}/chat/completions``."""

    def __init__(
        self,
        endpoint: EndpointConfig,
        *,
        timeout: float = 120.0,
        stats: ClientStats | None = None,
    ) -> None:
        import openai

        self._openai = openai
        self.endpoint = endpoint
        self.stats = stats if stats is not None else ClientStats()
        self._client = openai.AsyncOpenAI(
            api_key=endpoint.api_key(),
            base_url=endpoint.base_url,
            timeout=endpoint.timeout if endpoint.timeout is not None else timeout,
            max_retries=0,
        )

    def body(self, request: Request) -> dict[str, Any]:
        """The JSON body: the request payload, the configured budget field, extra body fields."""
        payload = request.payload()
        budget = payload.pop("max_tokens")
        return {**self.endpoint.extra_body, **payload, self.endpoint.max_tokens_field: budget}

    async def generate(self, request: Request) -> Response:
        oa = self._openai
        self.stats.requests += 1
        name = self.endpoint.name
        try:
            data: Any = await self._client.post("/chat/completions", cast_to=object, body=self.body(request))
        except oa.APITimeoutError as err:
            self.stats.count_error("timeout")
            raise ClientError(f"{name}: request timed out", retryable=True) from err
        except oa.APIConnectionError as err:
            self.stats.count_error("connection")
            raise ClientError(f"{name}: connection error ({type(err).__name__})", retryable=True) from err
        except oa.APIStatusError as err:
            status = int(err.status_code)
            self.stats.count_error(str(status))
            retryable = status in (408, 409, 429) or status >= 500
            raise ClientError(
                f"{name}: HTTP {status}",
                retryable=retryable,
                status=status,
                retry_after=parse_retry_after(getattr(err.response, "headers", None)),
            ) from err
        except (oa.APIResponseValidationError, json.JSONDecodeError, ValueError) as err:
            self.stats.count_error("malformed")
            raise ClientError(f"{name}: malformed reply ({type(err).__name__})", retryable=True) from err
        try:
            choice = data["choices"][0]
            text = choice["message"].get("content")
            finish = choice.get("finish_reason")
            usage = data.get("usage") or {}
            if text is not None and not isinstance(text, str):
                raise TypeError("content is not a string")
            resp = Response(
                text=text,
                finish_reason=finish,
                prompt_tokens=int(usage.get("prompt_tokens") or 0),
                completion_tokens=int(usage.get("completion_tokens") or 0),
            )
        except (AttributeError, IndexError, KeyError, TypeError, ValueError) as err:
            self.stats.count_error("malformed")
            raise ClientError(f"{name}: reply is not a chat completion", retryable=True) from err
        self.stats.succeeded += 1
        self.stats.prompt_tokens += resp.prompt_tokens
        self.stats.completion_tokens += resp.completion_tokens
        return resp

    async def aclose(self) -> None:
        await self._client.close()
