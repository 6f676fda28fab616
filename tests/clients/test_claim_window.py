"""The claim window of the cache layer and the one-transaction batches of the cache's thread (issue 36).

A stack built by :class:`ClientPool` hashes and claims at most twice its endpoint's concurrency of requests
ahead (real HTTP on 127.0.0.1, the lease table of the real SQLite file read by the server at each arrival),
still stores every answer before its slot serves the next request, and a request whose key another owner
holds waits outside the window, so the requests behind it go on.
"""

from __future__ import annotations

import asyncio
import sqlite3
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from fake_server import FakeServer

from benchsift.clients import ClientPool, Request
from benchsift.clients.base import Response
from benchsift.clients.cache import ResponseCache
from benchsift.clients.cache_sqlite import SQLiteCache
from benchsift.clients.cached_client import CachedClient
from benchsift.clients.config import config_from_dict
from benchsift.clients.limits import LimitedClient


def _trace(cache: SQLiteCache, callback: Callable[[str], object]) -> None:
    """Trace every statement of the cache's two connections (the waiting one and the one that never
    waits, for the batches run on the loop)."""
    for conn in (cache._conn, cache._conn_now):
        conn.set_trace_callback(callback)


def _judge(i: int) -> Request:
    prompt = f"You are extracting the letter (A or B) ...\nModel response: {'AB'[i % 2]} ({i})\n"
    return Request(model="judge", messages=({"role": "user", "content": prompt},), max_tokens=64)


def _gather(
    url: str, model: str, concurrency: int, cache_path: Path, reqs: list[Request], **kw: Any
) -> list[Any]:
    """``reqs`` through a :class:`ClientPool` of one endpoint (``model`` at ``url``) over the SQLite cache
    at ``cache_path``, all started together (one ``gather``; ``kw`` passed to it)."""
    cfg = config_from_dict(
        {
            "endpoint": [
                {
                    "name": "e",
                    "base_url": url,
                    "model": model,
                    "api_key_env": "BENCHSIFT_TEST_KEY",
                    "concurrency": concurrency,
                }
            ]
        }
    )

    async def go() -> list[Any]:
        cache = ResponseCache(cache_path)
        pool = ClientPool(cfg, cache)
        try:
            return await asyncio.gather(*(pool.get("e").generate(r) for r in reqs), **kw)
        finally:
            await pool.aclose()
            cache.close()

    return asyncio.run(go())


class _Watching(FakeServer):
    """The scripted server, noting at each arrival the leases and answers in the client's cache file."""

    def __init__(self, world: dict[str, Any], cache: Path) -> None:
        super().__init__(world, latency=0.002)
        self.cache = cache
        self.seen: list[tuple[int, int, int]] = []  # (arrivals so far, leases, answers stored)
        self._seen_lock = threading.Lock()

    def handle(self, path: str, headers: dict[str, str], raw: bytes) -> tuple[int, bytes, dict[str, str]]:
        with self._seen_lock:
            with sqlite3.connect(self.cache) as conn:
                leases = conn.execute("SELECT COUNT(*) FROM leases").fetchone()[0]
                stored = conn.execute("SELECT COUNT(*) FROM responses").fetchone()[0]
            self.seen.append((len(self.seen) + 1, leases, stored))
        return super().handle(path, headers, raw)


def test_the_stack_claims_at_most_twice_its_concurrency_ahead(world: dict, tmp_path: Path) -> None:
    path = tmp_path / "cache.sqlite"
    ResponseCache(path).close()  # the file exists before the server first reads it
    srv = _Watching(world["world"], path).start()
    conc, n = 4, 120
    reqs = [_judge(i) for i in range(n)]
    try:
        out = _gather(srv.url, "judge", conc, path, reqs + reqs[:10])
    finally:
        srv.stop()
    assert all(r.text for r in out) and [r.text for r in out[n:]] == [r.text for r in out[:10]]
    assert len(srv.seen) == n  # each distinct request sent once
    # never more than 2 x concurrency keys claimed at once (the code before claimed all 120 at the start)
    assert max(leases for _, leases, _ in srv.seen) <= 2 * conc
    assert srv.seen[0][1] > 1  # the window is used: keys are claimed ahead of the first request
    # the SIGKILL bound is kept: at any arrival, the requests sent but not stored are at most `conc`
    assert all(k - stored <= conc for k, _, stored in srv.seen)
    cache = SQLiteCache(path)
    try:
        assert len(cache) == n and cache.leases() == {}
    finally:
        cache.close()


class _Echo:
    """A model client answering each request with its own text; notes the requests it was sent."""

    def __init__(self) -> None:
        self.sent: list[str] = []
        self.arrived = asyncio.Event()

    async def generate(self, request: Request) -> Response:
        text = str(request.messages[0]["content"])
        self.sent.append(text)
        self.arrived.set()
        await asyncio.sleep(0)
        return Response(text=text)


def _ask(i: int) -> Request:
    return Request(model="m", messages=({"role": "user", "content": f"question {i}"},))


def test_a_key_held_elsewhere_waits_outside_the_window(tmp_path: Path) -> None:
    """Window 1: request 0's key is leased by another live owner; request 1, behind it, is sent while
    request 0 waits, and request 0 is then answered from the other owner's stored answer."""
    path = tmp_path / "cache.sqlite"
    other, mine = SQLiteCache(path), SQLiteCache(path)
    echo = _Echo()
    client = CachedClient(LimitedClient(echo, 1), mine, endpoint="u", window=1)
    held = _ask(0).key("u")
    assert other.claim(held) == "claimed"

    async def go() -> list[Response]:
        async def answer_later() -> None:
            await echo.arrived.wait()  # request 1 went out while request 0's key was held
            other.put(held, "u", _ask(0), Response(text="from the other process"))

        both = asyncio.gather(client.generate(_ask(0)), client.generate(_ask(1)), answer_later())
        out = await asyncio.wait_for(both, 120)  # the code that kept its place would never send request 1
        return [r for r in out if r is not None]

    try:
        out = asyncio.run(go())
        assert [r.text for r in out] == ["from the other process", "question 1"]
        assert out[0].cached and not out[1].cached
        assert echo.sent == ["question 1"]
        assert mine.leases() == {} and len(mine) == 2
    finally:
        other.close()
        mine.close()


def test_a_copy_in_flight_waits_outside_the_window(tmp_path: Path) -> None:
    """Window 2, the same request three times among others: each distinct request is sent once, and the
    copies wait for it without holding the places the others need."""
    cache = SQLiteCache(tmp_path / "cache.sqlite")
    echo = _Echo()
    client = CachedClient(LimitedClient(echo, 1), cache, endpoint="u", window=2)
    reqs = [_ask(0), _ask(0), _ask(0), _ask(1), _ask(2), _ask(1)]

    async def go() -> list[Response]:
        return await asyncio.wait_for(asyncio.gather(*(client.generate(r) for r in reqs)), 120)

    try:
        out = asyncio.run(go())
        assert [r.text for r in out] == [f"question {i}" for i in (0, 0, 0, 1, 2, 1)]
        assert sorted(echo.sent) == ["question 0", "question 1", "question 2"]
        assert [r.cached for r in out] == [False, True, True, False, False, True]
        assert cache.leases() == {} and len(cache) == 3
    finally:
        cache.close()


def test_cancelled_requests_leave_no_place_and_no_lease_behind(tmp_path: Path) -> None:
    """Window 1: request 1 is cancelled while it queues for the place request 0 holds, request 2 while its
    claim is at the cache's thread; requests 0 and 3 are answered, the window is not left short of its
    place (request 3 would wait forever) and no lease stays in the file."""
    cache = SQLiteCache(tmp_path / "cache.sqlite")
    echo = _Echo()
    client = CachedClient(LimitedClient(echo, 1), cache, endpoint="u", window=1)

    async def go() -> list[str | None]:
        first = asyncio.create_task(client.generate(_ask(0)))
        queued = asyncio.create_task(client.generate(_ask(1)))
        await asyncio.sleep(0)  # both started: 0 holds the place (its claim is out), 1 queues for it
        queued.cancel()
        done = await first
        claiming = asyncio.create_task(client.generate(_ask(2)))
        await asyncio.sleep(0)  # 2 took the place and its claim went to the thread
        claiming.cancel()
        last = await asyncio.wait_for(client.generate(_ask(3)), 120)
        for task in (queued, claiming):
            with pytest.raises(asyncio.CancelledError):
                await task
        return [done.text, last.text]

    try:
        assert asyncio.run(go()) == ["question 0", "question 3"]
        assert echo.sent == ["question 0", "question 3"]
        assert cache.leases() == {} and len(cache) == 2
    finally:
        cache.close()


def test_a_store_and_the_next_claim_share_one_transaction(tmp_path: Path) -> None:
    """Window 1, concurrency 1, five requests: a request gives back its place as it queues its answer's
    store, so the next request's claim reaches the cache's thread in the same hand-off and both commit
    in one transaction (6 commits for 5 requests: the first claim alone, 4 store + claim, the last store
    alone); before, each store and each claim had its own (10 commits, and a read before each claim)."""
    cache = SQLiteCache(tmp_path / "cache.sqlite")
    statements: list[str] = []
    _trace(cache, statements.append)
    echo = _Echo()
    client = CachedClient(LimitedClient(echo, 1), cache, endpoint="u", window=1)

    async def go() -> list[Response]:
        return await asyncio.wait_for(asyncio.gather(*(client.generate(_ask(i)) for i in range(5))), 120)

    try:
        out = asyncio.run(go())
        assert [r.text for r in out] == [f"question {i}" for i in range(5)]
        assert echo.sent == [f"question {i}" for i in range(5)]
        transactions: list[list[str]] = []
        for sql in statements:
            if sql.startswith("BEGIN"):
                transactions.append([])
            elif transactions and not sql.startswith("COMMIT"):
                transactions[-1].append(sql.split(" (")[0])
        kinds = [
            ("store" if any(s.startswith("INSERT INTO responses") for s in t) else "")
            + ("claim" if any(s.startswith("INSERT INTO leases") for s in t) else "")
            for t in transactions
        ]
        assert kinds == ["claim", "storeclaim", "storeclaim", "storeclaim", "storeclaim", "store"]
        assert sum(sql == "COMMIT" for sql in statements) == 6
        assert cache.leases() == {} and len(cache) == 5
    finally:
        cache.close()


def test_window_must_be_positive() -> None:
    for bad in (0, -3):
        with pytest.raises(ValueError, match="window"):
            CachedClient(_Echo(), None, window=bad)


def test_copies_far_apart_in_a_gather_share_one_failed_call(world: dict, tmp_path: Path) -> None:
    """Two copies of a request that fails (HTTP 400, never cached) with 20 other requests between them, a
    window of 4: the second copy joins the first (its key is registered before the window is taken), so
    the server sees it once and both copies raise the same error. With the key computed only after the
    window was taken, the second copy came after the first had failed and was sent again (2 arrivals)."""
    srv = FakeServer(world["world"], latency=0.002).start()

    def ask(text: str) -> Request:
        return Request(model="broken", messages=({"role": "user", "content": text},), max_tokens=8)

    reqs = [ask("twice"), *(ask(f"other {i}") for i in range(20)), ask("twice")]
    try:
        out = _gather(srv.url, "broken", 2, tmp_path / "cache.sqlite", reqs, return_exceptions=True)
    finally:
        srv.stop()
    assert all(isinstance(r, Exception) for r in out)
    assert str(out[0]) == str(out[-1])
    log = srv.requests(model="broken")
    assert len(log) == 21 and len({r["key"] for r in log}) == 21  # 21 distinct requests, each sent once
