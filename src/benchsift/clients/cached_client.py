"""A :class:`~benchsift.clients.base.ModelClient` answered from the response cache when it can.

Concurrent requests with the same key share one call (single flight); a key leased by another process is
waited on until its answer is committed or the lease is gone (the rules: :mod:`benchsift.clients.cache`).
The cache calls run on the cache's worker thread in batches (:mod:`benchsift.clients.cache_worker`), not
on the event loop.

``window`` (the stack gives twice the endpoint's concurrency) bounds how many requests are being claimed,
sent or stored at once; the others wait on it after their key is computed (so that every copy of a request
started while it is pending shares its outcome, whatever the order). A run that starts thousands of
requests together (one ``gather``) then claims the first ``window`` of them, not all of them, before its
first request goes out, and the requests that follow are claimed while those
ahead of them are in flight, so a free concurrency slot still finds a claimed request waiting. A request
whose key another process holds leaves the window while it waits for that answer.
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
        window: int | None = None,
    ) -> None:
        if window is not None and int(window) < 1:
            raise ValueError(f"window must be a positive integer or None, got {window!r}")
        self.inner = inner
        self.cache = cache
        self.endpoint = endpoint
        self.stats = stats if stats is not None else ClientStats()
        self.window = None if window is None else int(window)
        self._window: asyncio.Semaphore | None = None
        self._in_flight: dict[str, asyncio.Future[Response]] = {}

    async def generate(self, request: Request) -> Response:
        # The key is registered before the window is taken, so every copy of a request started while it
        # is pending shares its outcome (an error too: errors are never cached), however far apart the
        # copies are in a long gather: the count of requests sent does not depend on timing.
        key = request.key(self.endpoint)
        pending = self._in_flight.get(key)
        if pending is not None:  # a copy is pending: this one waits outside the window
            self.stats.cache_hits += 1
            resp = await asyncio.shield(pending)
            return Response(**{**resp.__dict__, "cached": True})
        fut: asyncio.Future[Response] = asyncio.get_running_loop().create_future()
        self._in_flight[key] = fut
        if self.window is None:
            return await self._generate(key, request, fut, None)
        if self._window is None:  # created lazily, in the running loop
            self._window = asyncio.Semaphore(self.window)
        place = _Place(self._window)
        try:
            await place.take()
        except BaseException as err:
            self._fail(fut, err)
            self._in_flight.pop(key, None)
            raise
        try:
            return await self._generate(key, request, fut, place)
        finally:
            place.leave()

    async def _generate(
        self, key: str, request: Request, fut: asyncio.Future[Response], place: _Place | None
    ) -> Response:
        if self.cache is None:
            return await self._send(key, request, fut, None)
        worker = worker_for(self.cache)
        try:
            hit = await self._lease(worker, key, place)
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

    async def _lease(self, worker: CacheWorker, key: str, place: _Place | None) -> Response | None:
        """Claim ``key`` across processes: ``None`` once claimed (send it), else its stored answer (stored
        before, or committed by another process while this one waited, polling from 10 ms up to 0.5 s,
        outside the window)."""
        delay = 0.01
        while True:
            state = await worker.claim(key)
            if state == "claimed":
                return None
            if isinstance(state, Response):
                return state
            if place is not None:
                place.leave()
            await asyncio.sleep(delay)
            if place is not None:
                await place.take()
            delay = min(0.5, delay * 1.5)


class _Place:
    """One request's place in the window (a semaphore), left and taken again around its waits."""

    __slots__ = ("gate", "held")

    def __init__(self, gate: asyncio.Semaphore) -> None:
        self.gate = gate
        self.held = False

    async def take(self) -> None:
        await self.gate.acquire()  # a cancelled acquire takes nothing
        self.held = True

    def leave(self) -> None:
        if self.held:
            self.held = False
            self.gate.release()
