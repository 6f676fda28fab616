"""The response cache's calls off the event loop: one thread runs them for every loop, in batches.

Every cache call of :class:`~benchsift.clients.cached_client.CachedClient` (claim a key or read its answer,
store an answer, drop a lease) is queued; the calls queued during one pass of the event loop go to the cache's
thread in one hand-off (or at once, 256 at a time, in a pass that queues more), and the thread runs all the
calls handed to it so far as few statements: stores, dropped leases and up to 500 claims in one transaction
(:meth:`ResponseCache.write_batch`; on SQLite one commit for the whole batch), or, for a batch of claims
alone, one read and one transaction per 500 keys (:meth:`ResponseCache.claim_many`), the callers of each chunk
woken as soon as it is claimed. The loop is woken once per batch (``call_soon_threadsafe``), so a busy run no
longer spends its loop on SQLite (issue 36: 11 statements per request, all on the loop, were 17 % of a run at
concurrency 64). Running the same batches on the loop itself was slower (0.60x against 0.77x of a bare aiohttp
loop at the median, load 15): a batched commit holds up every socket for its duration. The lease renewals have
their own thread (:meth:`ResponseCache._renew`), as before.

Nothing in the rules of :mod:`benchsift.clients.cache` changes: a stored answer is committed before the
awaiting request goes on (the caller awaits it while still holding its concurrency slot:
:data:`benchsift.clients.limits.ON_ANSWER`), so after a SIGKILL the requests sent again are still only
those in flight, at most the concurrency limits. A claim whose caller was cancelled while it was queued is
released at once, so no lease is left behind.
"""

from __future__ import annotations

import asyncio
import queue
import threading
from typing import Any

from benchsift.clients.base import Request, Response
from benchsift.clients.cache import _CHUNK, Claim, ResponseCache

__all__ = ["CacheWorker", "worker_for"]

_CREATE = threading.Lock()

#: calls queued in one pass of a loop after which they go to the thread at once, without waiting for the
#: pass to end: a run that starts thousands of requests together (one ``gather``) has its first claims
#: answered while the loop is still hashing the later keys, so its first requests go out sooner
_FLUSH_AT = 256

# one queued call: (kind, payload, loop, future); kind "claim" (payload: key), "put" (key, endpoint,
# request, response), "release" (key; future None when nobody waits)
_Call = tuple[str, Any, asyncio.AbstractEventLoop | None, "asyncio.Future[Any] | None"]
# one result: (future, value, error); a claim's value is (key, answer or state)
_Result = tuple["asyncio.Future[Any]", Any, Exception | None]


def worker_for(cache: ResponseCache) -> CacheWorker:
    """The cache's worker thread, started on first use (one per cache object, stopped by ``close``)."""
    worker = cache._worker
    if worker is None:
        with _CREATE:
            worker = cache._worker
            if worker is None:
                worker = cache._worker = CacheWorker(cache)
    assert isinstance(worker, CacheWorker)
    return worker


class CacheWorker:
    """One daemon thread running a :class:`ResponseCache`'s calls for asyncio callers, in batches."""

    def __init__(self, cache: ResponseCache) -> None:
        self.cache = cache
        self._queue: queue.SimpleQueue[list[_Call] | None] = queue.SimpleQueue()
        self._pending: dict[asyncio.AbstractEventLoop, list[_Call]] = {}
        self._thread = threading.Thread(target=self._serve, name="benchsift-cache-writer", daemon=True)
        self._thread.start()

    # --- the callers' side (on an event loop) -------------------------------------------------------

    def _submit(self, kind: str, payload: Any, fut: asyncio.Future[Any] | None = None) -> asyncio.Future[Any]:
        loop = asyncio.get_running_loop()
        if fut is None:
            fut = loop.create_future()
        pending = self._pending.get(loop)
        if pending is None:
            pending = self._pending[loop] = []
            loop.call_soon(self._flush, loop)
        pending.append((kind, payload, loop, fut))
        if len(pending) >= _FLUSH_AT:  # a long pass: hand these over now (the scheduled flush sends the rest)
            self._pending[loop] = []
            self._queue.put(pending)
        return fut

    def _flush(self, loop: asyncio.AbstractEventLoop) -> None:
        """Hand the calls queued during one pass of ``loop`` to the thread (one wake-up per pass)."""
        pending = self._pending.pop(loop, None)
        if pending:
            self._queue.put(pending)

    # the three calls return the queued call's future itself (no coroutine around it: one frame less on
    # every resume of the awaiting request)

    def claim(self, key: str, fut: asyncio.Future[Any] | None = None) -> asyncio.Future[Response | Claim]:
        """:meth:`ResponseCache.claim_many` for one key: a future (``fut``, or a new one) of its stored
        answer, ``"claimed"`` or ``"held"``."""
        return self._submit("claim", key, fut)

    def put(self, key: str, endpoint: str, request: Request, response: Response) -> asyncio.Future[None]:
        """Store one answer and drop its lease (committed when the future is done)."""
        return self._submit("put", (key, endpoint, request, response))

    def release(self, key: str) -> asyncio.Future[None]:
        """Drop this process's lease on ``key``."""
        return self._submit("release", key)

    def stop(self) -> None:
        """Run what is queued, then end the thread."""
        if self._thread.is_alive():
            self._queue.put(None)
            self._thread.join()

    # --- the thread --------------------------------------------------------------------------------

    def _serve(self) -> None:
        while True:
            first = self._queue.get()
            batch: list[_Call] = []
            stop = first is None
            if first is not None:
                batch.extend(first)
            while not stop:
                try:
                    calls = self._queue.get_nowait()
                except queue.Empty:
                    break
                if calls is None:
                    stop = True
                else:
                    batch.extend(calls)
            if batch:
                self._run(batch)
            if stop:
                return

    def _run(self, batch: list[_Call]) -> None:
        """Run one batch: stores first (they drop leases), then released leases, then claims; wake each
        caller's loop once with the results of the stores and releases, then once per chunk of claims
        (:data:`benchsift.clients.cache._CHUNK` keys), so the first claimed requests go on while the
        thread claims the next chunk."""
        puts: list[_Call] = []
        releases: list[_Call] = []
        claims: list[_Call] = []
        for call in batch:
            (puts if call[0] == "put" else releases if call[0] == "release" else claims).append(call)
        loops: dict[asyncio.AbstractEventLoop, list[_Result]] = {}
        if (puts or releases) and 0 < len(claims) <= _CHUNK:  # one transaction for the whole batch
            self._write_batch(puts, releases, claims, loops)
            self._wake(loops)
            return
        self._call(self.cache.put_many, puts, loops)
        self._call(self.cache.release_many, releases, loops)
        for start in range(0, len(claims), _CHUNK):
            self._wake(loops)
            loops = {}
            self._call(self.cache.claim_many, claims[start : start + _CHUNK], loops)
        self._wake(loops)

    def _write_batch(
        self,
        puts: list[_Call],
        releases: list[_Call],
        claims: list[_Call],
        loops: dict[asyncio.AbstractEventLoop, list[_Result]],
    ) -> None:
        """Stores, releases and claims in one :meth:`ResponseCache.write_batch` (one commit on SQLite);
        an error reaches every caller of the batch."""
        result: dict[str, Any] = {}
        err: Exception | None = None
        try:
            result = self.cache.write_batch(
                [c[1] for c in puts], [c[1] for c in releases], [c[1] for c in claims]
            )
        except Exception as exc:
            err = exc
        for kind, payload, loop, fut in (*puts, *releases, *claims):
            if loop is not None and fut is not None:
                value = (payload, result[payload]) if kind == "claim" and err is None else None
                loops.setdefault(loop, []).append((fut, value, err))

    @staticmethod
    def _call(work: Any, calls: list[_Call], loops: dict[asyncio.AbstractEventLoop, list[_Result]]) -> None:
        """Run ``work`` on the payloads of ``calls`` (one kind); add each waiting caller's result to
        ``loops``."""
        if not calls:
            return
        result: Any = None
        err: Exception | None = None
        try:
            result = work([c[1] for c in calls])
        except Exception as exc:  # every caller of the batch gets the error
            err = exc
        claim = calls[0][0] == "claim"
        for _, payload, loop, fut in calls:
            if loop is not None and fut is not None:
                value = (payload, result[payload]) if claim and err is None else None
                loops.setdefault(loop, []).append((fut, value, err))

    def _wake(self, loops: dict[asyncio.AbstractEventLoop, list[_Result]]) -> None:
        """Hand each loop its results (one ``call_soon_threadsafe`` per loop)."""
        for loop, results in loops.items():
            try:
                loop.call_soon_threadsafe(self._deliver, results)
            except RuntimeError:  # that loop is closed: its callers are gone; drop any lease they claimed
                self._release_unwanted(results)

    def _deliver(self, results: list[_Result]) -> None:
        """On the caller's loop: resolve the futures of one batch."""
        self._release_unwanted([r for r in results if r[0].done()])
        for fut, value, err in results:
            if fut.done():
                continue
            if err is not None:
                fut.set_exception(err)
            elif isinstance(value, tuple):  # a claim: (key, state)
                fut.set_result(value[1])
            else:
                fut.set_result(value)

    def _release_unwanted(self, results: list[_Result]) -> None:
        """Queue the release of every key claimed for a caller that is gone (cancelled, loop closed)."""
        for _, value, err in results:
            if err is None and isinstance(value, tuple) and value[1] == "claimed":
                self._queue.put([("release", value[0], None, None)])
