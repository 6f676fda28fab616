"""The response cache's batched calls and its worker thread (issue 36).

``claim_many`` must give, key by key, what ``claim`` gives on the same state (answered, held by a live
owner, expired, a dead owner's, free); ``put_many`` stores what ``put`` stores; the cache calls of a run
leave the event loop's thread; and an answer is stored before its concurrency slot serves the next request.
"""

from __future__ import annotations

import asyncio
import random
import sqlite3
import subprocess
import sys
import threading
import time
from pathlib import Path

from benchsift.clients.base import Request, Response
from benchsift.clients.cache import ResponseCache
from benchsift.clients.cache_sqlite import SQLiteCache
from benchsift.clients.cached_client import CachedClient
from benchsift.clients.limits import LimitedClient


def _request(i: int) -> Request:
    return Request(model="m", messages=({"role": "user", "content": f"question {i}"},))


def _dead_owner(cache: ResponseCache) -> str:
    pid = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True).stdout
    return f"{cache.owner.split(':')[0]}:{int(pid)}:gone"


def _random_state(where: str, seed: int) -> tuple[list[str], str]:
    """A cache holding 60 keys in random states: answered, leased by a live other owner (unexpired or
    expired), by a dead process of this host, by the claiming owner itself, or free; returns the keys
    (shuffled, with repeats) and the claiming owner's name."""
    rng = random.Random(seed)
    other = ResponseCache(where)
    try:
        dead = _dead_owner(other)
        mine = f"{other.owner.split(':')[0]}:{0}:mine"  # pid 0: never "gone", so only a name
        keys = [f"k{seed}-{i}" for i in range(60)]
        now = time.time()
        for i, key in enumerate(keys):
            state = rng.choice(["answered", "live", "expired", "dead", "mine", "free"])
            if state == "answered":
                other.put(key, "u", _request(i), Response(text=f"answer {i}", prompt_tokens=i))
            elif state != "free":
                owner = {"live": other.owner, "expired": other.owner, "dead": dead, "mine": mine}[state]
                expires = now - 5 if state == "expired" else now + 60
                other._execute("INSERT INTO leases VALUES (?, ?, ?)", (key, owner, expires))
        asked = keys + rng.sample(keys, 10)
        rng.shuffle(asked)
        return asked, mine
    finally:
        other._stop.set()  # keep its live leases in the file: close() would drop them
        other._disconnect()


def test_claim_many_gives_what_claim_gives_key_by_key(tmp_path: Path) -> None:
    for seed in range(4):
        a_path, b_path = tmp_path / f"a{seed}.sqlite", tmp_path / f"b{seed}.sqlite"
        asked, mine = _random_state(str(a_path), seed)
        b_path.write_bytes(a_path.read_bytes())  # the same state twice (WAL checkpointed at close)
        one, many = SQLiteCache(a_path), SQLiteCache(b_path)
        one.owner = many.owner = mine
        try:
            expected: dict[str, object] = {}
            for key in asked:
                state = one.claim(key)
                expected.setdefault(key, one.get(key) if state == "answered" else state)
            got = many.claim_many(asked)
            assert set(got) == set(asked)
            for key, want in expected.items():
                if isinstance(want, Response):
                    assert isinstance(got[key], Response) and got[key] == want and want.cached
                else:
                    assert got[key] == want, key
            states = {v for v in expected.values() if isinstance(v, str)}
            assert states == {"claimed", "held"}  # and answered: every case was met
            assert any(isinstance(v, Response) for v in expected.values())
            owners = [{k: o for k, (o, _) in c.leases().items()} for c in (one, many)]
            assert owners[0] == owners[1]  # the same leases taken over, dropped and left
        finally:
            one.close()
            many.close()


def test_put_many_stores_what_put_stores(tmp_path: Path) -> None:
    one, many = SQLiteCache(tmp_path / "one.sqlite"), SQLiteCache(tmp_path / "many.sqlite")
    try:
        rows = [(f"k{i}", "u", _request(i), Response(text=f"a{i}", finish_reason="stop")) for i in range(30)]
        for cache in (one, many):
            assert cache.claim_many([r[0] for r in rows[:20]]) == {r[0]: "claimed" for r in rows[:20]}
        for row in rows:
            one.put(*row)
        many.put_many(rows)
        read = "SELECT key, endpoint, request, response FROM responses ORDER BY key"
        assert one._execute(read) == many._execute(read) and len(many) == 30
        assert one.leases() == {} and many.leases() == {}
    finally:
        one.close()
        many.close()


class _Echo:
    """A model client answering each request with its own text; notes what the cache file holds (through
    a second connection) when each request arrives."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.stored_at_arrival: list[int] = []

    async def generate(self, request: Request) -> Response:
        with sqlite3.connect(self.path) as conn:
            self.stored_at_arrival.append(conn.execute("SELECT COUNT(*) FROM responses").fetchone()[0])
        await asyncio.sleep(0.001)
        return Response(text=str(request.messages[0]["content"]))


def test_cache_calls_leave_the_loop_and_answers_are_stored_within_the_slot(tmp_path: Path) -> None:
    path = tmp_path / "cache.sqlite"
    cache = SQLiteCache(path)
    threads: set[int] = set()
    cache._conn.set_trace_callback(lambda _sql: threads.add(threading.get_ident()))
    echo = _Echo(path)
    client = CachedClient(LimitedClient(echo, 1), cache, endpoint="u")

    async def run() -> list[Response]:
        reqs = [_request(i) for i in range(12)]
        return await asyncio.gather(*(client.generate(r) for r in reqs + reqs[:4]))

    try:
        out = asyncio.run(run())
        loop_thread = threading.get_ident()
        assert [r.text for r in out] == [f"question {i}" for i in range(12)] + [
            f"question {i}" for i in range(4)
        ]
        assert threads and loop_thread not in threads  # every statement ran off the loop's thread
        # concurrency 1: the k-th request reached the client only once the k answers before it were stored
        assert echo.stored_at_arrival == list(range(12))
        assert len(cache) == 12 and cache.leases() == {}
        again = asyncio.run(run())  # a rerun is answered from the cache
        assert all(r.cached for r in again) and len(echo.stored_at_arrival) == 12
    finally:
        cache.close()


def test_write_batch_gives_what_the_three_calls_give(tmp_path: Path) -> None:
    """SQLite's one-transaction batch (stores, released leases, claims) against ``put_many``,
    ``release_many`` and ``claim_many`` run one after another on a copy of the same random state."""
    for seed in range(4):
        a_path, b_path = tmp_path / f"a{seed}.sqlite", tmp_path / f"b{seed}.sqlite"
        asked, mine = _random_state(str(a_path), seed)
        b_path.write_bytes(a_path.read_bytes())
        three, one = SQLiteCache(a_path), SQLiteCache(b_path)
        three.owner = one.owner = mine
        try:
            rng = random.Random(seed)
            fresh = [f"new{seed}-{i}" for i in range(6)]
            for cache in (three, one):  # keys this owner holds: some answered below, some released
                assert cache.claim_many(fresh) == {k: "claimed" for k in fresh}
            rows = [(k, "u", _request(i), Response(text=f"stored {i}")) for i, k in enumerate(fresh[:3])]
            released = fresh[3:5]
            keys = rng.sample(asked, 30) + fresh[:1] + fresh[3:4] + fresh[5:]
            three.put_many(rows)
            three.release_many(released)
            expected = three.claim_many(keys)
            got = one.write_batch(rows, released, keys)
            assert got == expected and set(got) == set(keys)
            assert {v for v in got.values() if isinstance(v, str)} == {"claimed", "held"}
            assert isinstance(got[fresh[0]], Response) and got[fresh[0]].text == "stored 0"
            assert got[fresh[3]] == "claimed"  # released, then claimed again
            read = "SELECT key, endpoint, request, response FROM responses ORDER BY key"
            assert three._execute(read) == one._execute(read)
            owners = [{k: o for k, (o, _) in c.leases().items()} for c in (three, one)]
            assert owners[0] == owners[1]
        finally:
            three.close()
            one.close()


def test_a_burst_of_claims_goes_in_chunks_and_every_answer_is_stored(tmp_path: Path) -> None:
    """700 distinct requests (and 50 copies) started in one pass: their claims reach the thread in several
    hand-offs (256 at a time) and come back per chunk; every request is answered once and stored, no
    lease is left, and no statement runs on the loop's thread."""
    path = tmp_path / "cache.sqlite"
    cache = SQLiteCache(path)
    threads: set[int] = set()
    cache._conn.set_trace_callback(lambda _sql: threads.add(threading.get_ident()))
    echo = _Echo(path)
    client = CachedClient(LimitedClient(echo, 8), cache, endpoint="u")
    reqs = [_request(i) for i in range(700)]

    async def run() -> list[Response]:
        return await asyncio.gather(*(client.generate(r) for r in reqs + reqs[:50]))

    try:
        out = asyncio.run(run())
        assert threads and threading.get_ident() not in threads
        assert [r.text for r in out] == [f"question {i}" for i in range(700)] + [
            f"question {i}" for i in range(50)
        ]
        assert len(echo.stored_at_arrival) == 700 and len(cache) == 700 and cache.leases() == {}
        # concurrency 8: at each arrival, the requests sent before it and not yet stored are fewer than 8
        assert all(k - stored < 8 for k, stored in enumerate(echo.stored_at_arrival))
    finally:
        cache.close()
