"""A :class:`~benchsift.clients.base.ModelClient` answered from the response cache when it can.

Concurrent requests with the same key share one call (single flight); a key leased by another process is
waited on until its answer is committed or the lease is gone (the rules: :mod:`benchsift.clients.cache`).
The cache calls run on the cache's worker thread in batches (:mod:`benchsift.clients.cache_worker`), not
on the event loop.
"""

from __future__ import annotations

import asyncio

from benchsift.clients.base import ClientStats, ModelClient, Request, Response
from benchsift.clients.cache import ResponseCache
from benchsift.clients.cache_worker import CacheWorker, worker_for
from benchsift.clients.limits import ON_ANSWER

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
        pending = self._in_flight.get(key)
        if pending is not None:
            self.stats.cache_hits += 1
            resp = await asyncio.shield(pending)
            return Response(**{**resp.__dict__, "cached": True})
        fut: asyncio.Future[Response] = asyncio.get_running_loop().create_future()
        self._in_flight[key] = fut
        if self.cache is None:
            return await self._send(key, request, fut, None)
        worker = worker_for(self.cache)
        try:
            hit = await self._lease(worker, key)
        except BaseException as err:
            self._fail(fut, err)
            self._in_flight.pop(key, None)
            raise
        if hit is not None:  # stored already, or by another process while this one waited
            self.stats.cache_hits += 1
            fut.set_result(hit)
            self._in_flight.pop(key, None)
            return hit
        return await self._send(key, request, fut, worker)

    async def _send(
        self, key: str, request: Request, fut: asyncio.Future[Response], worker: CacheWorker | None
    ) -> Response:
        """Send a request this process holds (its lease claimed, or no cache) and store its answer.

        The answer is committed inside the concurrency slot: the limit layer awaits :data:`ON_ANSWER` (set
        here for this request's context) before it frees the slot. A stack without a limit layer commits
        it after ``inner.generate`` returns.
        """
        stored = False

        async def store(resp: Response) -> None:
            nonlocal stored
            if worker is not None and not stored:
                await worker.put(key, self.endpoint, request, resp)
            stored = True

        token = ON_ANSWER.set(store)
        try:
            resp = await self.inner.generate(request)
            if not stored:
                await store(resp)
        except BaseException as err:
            if worker is not None and not stored:
                await asyncio.shield(worker.release(key))
            self._fail(fut, err)
            raise
        else:
            fut.set_result(resp)
            return resp
        finally:
            ON_ANSWER.reset(token)
            self._in_flight.pop(key, None)

    @staticmethod
    def _fail(fut: asyncio.Future[Response], err: BaseException) -> None:
        if fut.done():
            return
        if isinstance(err, Exception):
            fut.set_exception(err)
            fut.exception()  # mark retrieved: waiters re-raise it themselves
        else:
            fut.cancel()

    async def _lease(self, worker: CacheWorker, key: str) -> Response | None:
        """Claim ``key`` across processes: ``None`` once claimed (send it), else its stored answer (stored
        before, or committed by another process while this one waited, polling from 10 ms up to 0.5 s)."""
        delay = 0.01
        while True:
            state = await worker.claim(key)
            if state == "claimed":
                return None
            if isinstance(state, Response):
                return state
            await asyncio.sleep(delay)
            delay = min(0.5, delay * 1.5)
