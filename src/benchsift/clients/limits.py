"""Per-endpoint concurrency limits: at most ``concurrency`` requests in flight to one endpoint.

The limiter sits inside the retry layer, so a request waiting out a backoff does not hold a slot. A
successful response is handed, still inside the slot, to the :data:`ON_ANSWER` callback of the request's
context when one is set: the response cache commits the answer there
(:class:`~benchsift.clients.cached_client.CachedClient`), so the slot serves no other request before the
answer is stored and the requests sent but not stored never exceed the limit (the SIGKILL guarantee of
:mod:`benchsift.clients.cache`).
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from contextvars import ContextVar

from benchsift.clients.base import ModelClient, Request, Response
from benchsift.errors import InputError

__all__ = ["ON_ANSWER", "LimitedClient"]

#: set by the cache layer for one request (its task's context): awaited with the successful response
#: before the slot is released
ON_ANSWER: ContextVar[Callable[[Response], Awaitable[None]] | None] = ContextVar(
    "benchsift_on_answer", default=None
)


class LimitedClient:
    """Wrap a client with an :class:`asyncio.Semaphore` of ``concurrency`` slots.

    Several clients may share one limiter by passing the same ``semaphore`` (several models served by
    one endpoint).
    """

    def __init__(
        self, inner: ModelClient, concurrency: int, semaphore: asyncio.Semaphore | None = None
    ) -> None:
        if int(concurrency) < 1:
            raise InputError(f"concurrency must be a positive integer, got {concurrency!r}")
        self.inner = inner
        self.concurrency = int(concurrency)
        self._semaphore = semaphore
        self.in_flight = 0
        self.max_in_flight = 0

    @property
    def semaphore(self) -> asyncio.Semaphore:
        # created lazily so that it binds to the running event loop
        if self._semaphore is None:
            self._semaphore = asyncio.Semaphore(self.concurrency)
        return self._semaphore

    async def generate(self, request: Request) -> Response:
        async with self.semaphore:
            self.in_flight += 1
            self.max_in_flight = max(self.max_in_flight, self.in_flight)
            try:
                resp = await self.inner.generate(request)
                on_answer = ON_ANSWER.get()
                if on_answer is not None:
                    await on_answer(resp)
                return resp
            finally:
                self.in_flight -= 1
