"""A :class:`~benchsift.clients.base.ModelClient` answered from the response cache when it can.

Concurrent requests with the same key share one call (single flight); a key leased by another process is
waited on until its answer is committed or the lease is gone (the rules: :mod:`benchsift.clients.cache`).
"""

from __future__ import annotations

import asyncio

from benchsift.clients.base import ClientStats, ModelClient, Request, Response
from benchsift.clients.cache import ResponseCache

__all__ = ["CachedClient"]


class CachedClient:
    """Wrap a client: answer from the cache when possible, store every successful response."""

    def __init__(
        self,
        inner: ModelClient,
        cache: ResponseCache | None,
        *,
        endpoint: str = "",
        stats: ClientStats | None = None,
    ) -> None:
        self.inner = inner
        self.cache = cache
        self.endpoint = endpoint
        self.stats = stats if stats is not None else ClientStats()
        self._in_flight: dict[str, asyncio.Future[Response]] = {}

    async def generate(self, request: Request) -> Response:
        key = request.key(self.endpoint)
        if self.cache is not None:
            hit = self.cache.get(key)
            if hit is not None:
                self.stats.cache_hits += 1
                return hit
        pending = self._in_flight.get(key)
        if pending is not None:
            self.stats.cache_hits += 1
            resp = await asyncio.shield(pending)
            return Response(**{**resp.__dict__, "cached": True})
        fut: asyncio.Future[Response] = asyncio.get_running_loop().create_future()
        self._in_flight[key] = fut
        claimed = False
        try:
            if self.cache is not None:
                shared = await self._lease(key)
                if shared is not None:  # another process sent it and committed its answer
                    self.stats.cache_hits += 1
                    fut.set_result(shared)
                    return shared
                claimed = True
            resp = await self.inner.generate(request)
        except BaseException as err:
            if claimed and self.cache is not None:
                self.cache.release(key)
            if not fut.done():
                if isinstance(err, Exception):
                    fut.set_exception(err)
                    fut.exception()  # mark retrieved: waiters re-raise it themselves
                else:
                    fut.cancel()
            raise
        else:
            if self.cache is not None:
                self.cache.put(key, self.endpoint, request, resp)
            fut.set_result(resp)
            return resp
        finally:
            self._in_flight.pop(key, None)

    async def _lease(self, key: str) -> Response | None:
        """Claim ``key`` across processes: ``None`` once claimed (send it), else the answer another process
        committed while this one waited (polling from 10 ms up to 0.5 s)."""
        assert self.cache is not None
        delay = 0.01
        while True:
            state = self.cache.claim(key)
            if state == "claimed":
                return None
            if state == "answered":
                hit = self.cache.get(key)
                if hit is not None:
                    return hit
                continue
            await asyncio.sleep(delay)
            delay = min(0.5, delay * 1.5)
