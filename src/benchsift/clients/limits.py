"""Per-endpoint concurrency limits: at most ``concurrency`` requests in flight to one endpoint.

The limiter sits inside the retry layer, so a request waiting out a backoff does not hold a slot.
"""

from __future__ import annotations

import asyncio

from benchsift.clients.base import ModelClient, Request, Response
from benchsift.errors import InputError

__all__ = ["LimitedClient"]


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
                return await self.inner.generate(request)
            finally:
                self.in_flight -= 1
