"""The response cache's calls in batches: one transaction per pass of the event loop, on the loop when the
file is free, else on the cache's thread.

Every cache call of :class:`~benchsift.clients.cached_client.CachedClient` (claim a key or read its answer,
store an answer, drop a lease) is queued; at the end of a pass of the event loop the calls queued during it
run as few statements: stores, dropped leases and up to 500 claims in one transaction
(:meth:`ResponseCache.write_batch`; on SQLite one commit for the whole batch), and their futures are
resolved. Where they run:

* On the loop itself when nothing waits: the thread has nothing queued, and the cache can take the batch
  without waiting for a lock (:meth:`ResponseCache.try_write_batch`: on SQLite, its own lock free and
  ``BEGIN IMMEDIATE`` with the busy timeout at 0). A run that is the file's only writer, the usual case,
  runs every batch there, and starts no thread.
* On the cache's thread otherwise: the file is locked by another process's transaction, or the lease
  renewal holds the cache, or the backend is a database server (every call waits on the network), or a
  pass queued more than one chunk of claims (a run that starts thousands of requests together hands them
  over 256 at a time, so its first claims are answered while the loop still hashes the later keys). The
  thread runs all the calls handed to it so far (for claims alone, one read and one transaction per 500
  keys, :meth:`ResponseCache.claim_many`, the callers of each chunk woken as soon as it is claimed) and
  wakes each loop once per batch (``call_soon_threadsafe``). While it has calls queued, every later batch
  goes to it too, so the calls of one loop run in the order they were made.
* Checkpoints (SQLite) on the thread: a commit on the loop never runs one (its fsyncs would stall every
  socket); once due, the checkpoint is queued to the thread.

Issue 36, measured with benchmarks/bench_engine_throughput.py (2,000 requests, 50 ms server, concurrency
64; each tree in a fresh child process, both in one run; min / median ratio to a bare aiohttp loop): at load
4 (three runs of 7-12 rounds) a thread for every batch 0.79-0.85x / 0.80-0.84x, the loop when the file is
free 0.85-0.89x / 0.80-0.90x; at load 1 (two runs) 0.95-0.96x / 0.91-0.94x and 0.94-0.96x / 0.94-0.95x, with
less CPU per request (0.48-0.51 -> 0.44-0.50 ms at the median). Under load, a batch handed to a thread
waits to be scheduled twice (the thread, then the loop's wake-up) while its requests hold their concurrency
slots; on the loop it commits in the pass after the one that made it. At load 10 (two runs of 5 and 7
rounds) the loop lost at the median (0.76-0.77x -> 0.68-0.72x; at the minimum 0.72-0.77x -> 0.72-0.81x): a
process with a busy second thread gets a larger share of an oversubscribed machine. The lease renewals
have their own thread (:meth:`ResponseCache._renew`), as before.

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
from collections.abc import Callable
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
        self._thread: threading.Thread | None = None  # started by the first hand-off (_send)
        #: hand-offs queued to the thread and not yet run (a batch runs on a loop only when there are none,
        #: so the calls of one loop run in the order they were made)
        self._backlog = 0
        self._checkpoint_queued = False
        self._mutex = threading.Lock()  # guards the thread's start, _backlog and _checkpoint_queued

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
            self._send(pending)
        return fut

    def _flush(self, loop: asyncio.AbstractEventLoop) -> None:
        """Run the calls queued during one pass of ``loop``: here, when the thread has nothing queued and
        the cache can take them without waiting (:meth:`_run_here`), else on the thread."""
        pending = self._pending.pop(loop, None)
        if pending and not (self._backlog == 0 and self._run_here(pending)):
            self._send(pending)

    def _run_here(self, calls: list[_Call]) -> bool:
        """Run one pass's calls on the caller's loop in one transaction if the cache can do it without
        waiting (:meth:`ResponseCache.try_write_batch`) and resolve their futures; False (nothing done)
        otherwise, or when the claims are more than one chunk."""
        puts, releases, claims = _split(calls)
        if len(claims) > _CHUNK:
            return False
        loops: dict[asyncio.AbstractEventLoop, list[_Result]] = {}
        if not self._write_batch(puts, releases, claims, loops, self.cache.try_write_batch):
            return False
        for results in loops.values():  # one loop: these calls were queued on it
            self._deliver(results)
        if self.cache.checkpoint_due:
            with self._mutex:
                due, self._checkpoint_queued = not self._checkpoint_queued, True
            if due:
                self._send([("checkpoint", None, None, None)])
        return True

    def _send(self, calls: list[_Call]) -> None:
        """Hand ``calls`` to the thread (started on first use)."""
        with self._mutex:
            if self._thread is None:
                name = "benchsift-cache-writer"
                self._thread = threading.Thread(target=self._serve, name=name, daemon=True)
                self._thread.start()
            self._backlog += 1
        self._queue.put(calls)

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
        if self._thread is not None and self._thread.is_alive():
            self._queue.put(None)
            self._thread.join()

    # --- the thread --------------------------------------------------------------------------------

    def _serve(self) -> None:
        while True:
            first = self._queue.get()
            batch: list[_Call] = []
            stop = first is None
            handed = 0 if stop else 1
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
                    handed += 1
            self._run(batch, handed)
            if stop:
                return

    def _run(self, batch: list[_Call], handed: int = 1) -> None:
        """Run one batch (``handed`` hand-offs): stores first (they drop leases), then released leases,
        then claims; wake each caller's loop once with the results of the stores and releases, then once
        per chunk of claims (:data:`benchsift.clients.cache._CHUNK` keys), so the first claimed requests
        go on while the thread claims the next chunk. The hand-offs leave the backlog before the last
        wake-up (their writes are done), so the next pass of a woken loop may run its calls itself; a
        checkpoint that a batch run on a loop left due runs last."""
        puts, releases, claims = _split(batch)
        loops: dict[asyncio.AbstractEventLoop, list[_Result]] = {}
        if (puts or releases) and 0 < len(claims) <= _CHUNK:  # one transaction for the whole batch
            self._write_batch(puts, releases, claims, loops)
        else:
            self._call(self.cache.put_many, puts, loops)
            self._call(self.cache.release_many, releases, loops)
            for start in range(0, len(claims), _CHUNK):
                self._wake(loops)
                loops = {}
                self._call(self.cache.claim_many, claims[start : start + _CHUNK], loops)
        checkpoint = any(call[0] == "checkpoint" for call in batch)
        with self._mutex:
            self._backlog -= handed
            if checkpoint:
                self._checkpoint_queued = False
        self._wake(loops)
        if checkpoint:
            try:
                self.cache.checkpoint()
            except Exception:  # a failed checkpoint leaves the WAL to the next one
                pass

    def _write_batch(
        self,
        puts: list[_Call],
        releases: list[_Call],
        claims: list[_Call],
        loops: dict[asyncio.AbstractEventLoop, list[_Result]],
        write: Callable[..., dict[str, Any] | None] | None = None,
    ) -> bool:
        """Stores, releases and claims in one :meth:`ResponseCache.write_batch` (one commit on SQLite), or
        in ``write`` (:meth:`ResponseCache.try_write_batch` on a loop); an error reaches every caller of the
        batch. False, with nothing added to ``loops``, when ``write`` did nothing (it would have waited)."""
        result: dict[str, Any] | None = {}
        err: Exception | None = None
        try:
            result = (self.cache.write_batch if write is None else write)(
                [c[1] for c in puts], [c[1] for c in releases], [c[1] for c in claims]
            )
        except Exception as exc:
            result, err = {}, exc
        if result is None:
            return False
        _collect((*puts, *releases, *claims), result, err, loops)
        return True

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
        _collect(tuple(calls), result or {}, err, loops)

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
                self._send([("release", value[0], None, None)])


def _split(calls: list[_Call]) -> tuple[list[_Call], list[_Call], list[_Call]]:
    """The stores, the releases and the claims among ``calls``, each in its order."""
    puts: list[_Call] = []
    releases: list[_Call] = []
    claims: list[_Call] = []
    for call in calls:
        kind = call[0]
        if kind == "put":
            puts.append(call)
        elif kind == "release":
            releases.append(call)
        elif kind == "claim":
            claims.append(call)
    return puts, releases, claims


def _collect(
    calls: tuple[_Call, ...],
    result: dict[str, Any],
    err: Exception | None,
    loops: dict[asyncio.AbstractEventLoop, list[_Result]],
) -> None:
    """Add each waiting caller's result of one batch (``result``: the claims' states) to ``loops``; an
    error reaches every caller of the batch."""
    for kind, payload, loop, fut in calls:
        if loop is not None and fut is not None:
            value = (payload, result[payload]) if kind == "claim" and err is None else None
            loops.setdefault(loop, []).append((fut, value, err))
