"""A :class:`~benchsift.clients.base.ModelClient` answered from the response cache when it can.

Concurrent requests with the same key share one call (single flight); a key leased by another process is
waited on until its answer is committed or the lease is gone (the rules: :mod:`benchsift.clients.cache`).
The cache calls run in batches, one per pass of the event loop (:mod:`benchsift.clients.cache_worker`: on
the loop when the file is free, else on the cache's thread).

``window`` (the stack gives twice the endpoint's concurrency) bounds how many requests are being claimed or
sent at once (a request gives back its place as it queues its answer's store, which its concurrency slot
holds until the store is committed); the others wait on it after their key is computed (so that every copy
of a request started while it is pending shares its outcome, whatever the order). A run that starts
thousands of requests together (one ``gather``) then claims the first ``window`` of them, not all of them,
before its first request goes out, and the requests that follow are claimed while those ahead of them are in
flight, so a free concurrency slot still finds a claimed request waiting. A request whose key another
process holds leaves the window while it waits for that answer.

The window is a queue of *tickets*, not a semaphore: a request that finds the window full queues its
ticket, and the request that leaves the window hands its place to the first ticket in the queue and submits
that ticket's claim to the cache's worker itself, with the ticket as the claim's future. The waiting request
is then woken once, when its claim is answered, rather than twice (its place, then its claim); the claims
submitted in one pass of the loop go to the worker in one batch with the other calls of that pass.
"""

from __future__ import annotations

import asyncio
from collections import deque
from typing import Any

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
        self._in_flight: dict[str, asyncio.Future[Response]] = {}
        #: tickets waiting for a place in the window, first come first served
        self._queue: deque[_Ticket] = deque()
        #: requests holding a place (being claimed, sent or stored)
        self._active = 0

    async def generate(self, request: Request) -> Response:
        # The key is registered before the window is taken, so every copy of a request started while it
        # is pending shares its outcome (an error too: errors are never cached), however far apart the
        # copies are in a long gather: the count of requests sent does not depend on timing.
        key = request.key(self.endpoint)
        pending = self._in_flight.get(key)
        if pending is not None:  # a copy is pending: this one waits outside the window
            resp = await asyncio.shield(pending)
            self.stats.cache_hits += 1  # answered without a request; a copy of a failed one is no hit
            return Response(**{**resp.__dict__, "cached": True})
        fut: asyncio.Future[Response] = asyncio.get_running_loop().create_future()
        self._in_flight[key] = fut
        worker = worker_for(self.cache) if self.cache is not None else None
        try:
            hit = await self._enter(key, worker)
        except BaseException as err:
            self._fail(fut, err)
            self._in_flight.pop(key, None)
            raise
        place = _Place(self)
        try:
            if hit is not None:  # stored already, or by another process while this one waited
                self.stats.cache_hits += 1
                fut.set_result(hit)
                self._in_flight.pop(key, None)
                return hit
            return await self._send(key, request, fut, worker, place)
        finally:
            place.leave()

    async def _enter(self, key: str, worker: CacheWorker | None) -> Response | None:
        """Take a place in the window and claim ``key`` across processes: ``None`` once claimed (send it;
        without a cache, at once), else its stored answer (stored before, or committed by another process
        while this one waited, polling from 10 ms up to 0.5 s, outside the window). On return the request
        holds its place (:meth:`_leave` gives it back); on an error or a cancellation it holds none."""
        delay = 0.01
        while True:
            ticket = _Ticket(key, asyncio.get_running_loop().create_future(), worker)
            self._queue.append(ticket)
            self._pump()
            try:
                state = await ticket.future
            except BaseException:
                if ticket.placed:
                    if (
                        worker is not None
                        and ticket.future.done()
                        and not ticket.future.cancelled()
                        and ticket.future.exception() is None
                        and ticket.future.result() == "claimed"
                    ):  # claimed, but this request is gone (cancelled as it was woken): drop the lease
                        worker.release(key)
                    self._leave()
                raise
            if state is None or state == "claimed":
                return None
            if isinstance(state, Response):
                return state
            self._leave()  # "held" by another owner: wait outside the window, then claim again
            await asyncio.sleep(delay)
            delay = min(0.5, delay * 1.5)

    def _pump(self) -> None:
        """Give the free places to the first tickets in the queue: each placed ticket's claim goes to the
        cache's worker with the ticket as its future (without a cache the ticket is done at once)."""
        queue, window = self._queue, self.window
        while queue and (window is None or self._active < window):
            ticket = queue.popleft()
            if ticket.future.done():  # its request was cancelled while it queued
                continue
            self._active += 1
            ticket.placed = True
            if ticket.worker is None:
                ticket.future.set_result(None)
            else:
                ticket.worker.claim(ticket.key, ticket.future)

    def _leave(self) -> None:
        """Give back a place and hand it to the next ticket."""
        self._active -= 1
        if self._queue:
            self._pump()

    async def _send(
        self,
        key: str,
        request: Request,
        fut: asyncio.Future[Response],
        worker: CacheWorker | None,
        place: _Place,
    ) -> Response:
        """Send a request this process holds (its lease claimed, or no cache) and store its answer.

        The answer is committed inside the concurrency slot: the limit layer awaits :data:`ON_ANSWER` (set
        here for this request's context) before it frees the slot. A stack without a limit layer commits
        it after ``inner.generate`` returns. The request gives back its place in the window as it queues
        its answer's store, so the next ticket's claim goes to the cache's worker in the same batch as the
        store (one transaction for both, instead of one for the store and, after its commit, one for the
        claim); the concurrency slot, not the window, is what the store holds.
        """
        stored = False

        async def store(resp: Response) -> None:
            nonlocal stored
            if worker is not None and not stored:
                put = worker.put(key, self.endpoint, request, resp)
                place.leave()
                await put
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


class _Place:
    """A request's place in a :class:`CachedClient`'s window, given back once (:meth:`leave`)."""

    __slots__ = ("client", "held")

    def __init__(self, client: CachedClient) -> None:
        self.client = client
        self.held = True

    def leave(self) -> None:
        if self.held:
            self.held = False
            self.client._leave()


class _Ticket:
    """One request's turn for a place in the window: its key, the future its claim answers (``None``
    without a cache), the cache's worker, and whether the ticket was given a place."""

    __slots__ = ("future", "key", "placed", "worker")

    def __init__(self, key: str, future: asyncio.Future[Any], worker: CacheWorker | None) -> None:
        self.key = key
        self.future = future
        self.worker = worker
        self.placed = False
