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
from collections.abc import Callable
from pathlib import Path

from benchsift.clients.base import Request, Response
from benchsift.clients.cache import ResponseCache, _owner_name
from benchsift.clients.cache_sqlite import SQLiteCache
from benchsift.clients.cached_client import CachedClient
from benchsift.clients.limits import LimitedClient


def _trace(cache: SQLiteCache, callback: Callable[[str], object]) -> None:
    """Trace every statement of the cache's two connections (the waiting one and the one that never
    waits, for the batches run on the loop)."""
    for conn in (cache._conn, cache._conn_now):
        conn.set_trace_callback(callback)


def _request(i: int) -> Request:
    return Request(model="m", messages=({"role": "user", "content": f"question {i}"},))


def _dead_owner(cache: ResponseCache) -> str:
    pid = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True).stdout
    return _owner_name(int(pid), "gone")


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


def test_cache_calls_run_on_the_loop_when_the_file_is_free_and_answers_are_stored_within_the_slot(
    tmp_path: Path,
) -> None:
    path = tmp_path / "cache.sqlite"
    cache = SQLiteCache(path, lease_ttl=3600)  # no lease renewal (it takes the cache's lock) in the test
    threads: set[int] = set()
    _trace(cache, lambda _sql: threads.add(threading.get_ident()))
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
        # nothing else holds the file: every batch ran on the loop's thread, and no thread was started
        assert threads == {loop_thread} and cache._worker._thread is None
        # concurrency 1: the k-th request reached the client only once the k answers before it were stored
        assert echo.stored_at_arrival == list(range(12))
        assert len(cache) == 12 and cache.leases() == {}
        again = asyncio.run(run())  # a rerun is answered from the cache
        assert all(r.cached for r in again) and len(echo.stored_at_arrival) == 12
    finally:
        cache.close()


def test_a_locked_file_sends_the_batches_to_the_thread_and_the_loop_goes_on(tmp_path: Path) -> None:
    """Another connection holds the file's write lock (another process's transaction): the first pass's
    claims cannot commit without waiting, so they go to the cache's thread, which waits for the lock while
    the loop goes on (a batch run on the loop never waits: it would stall every socket); once the lock
    is free every request is answered and stored, and the calls after the thread's batch run on the loop
    again."""
    path = tmp_path / "cache.sqlite"
    cache = SQLiteCache(path, lease_ttl=3600)
    threads: set[int] = set()
    statements: list[tuple[int, str, str]] = []  # (thread, connection, statement)

    def tracer(conn: str) -> Callable[[str], None]:
        def trace(sql: str) -> None:
            threads.add(threading.get_ident())
            statements.append((threading.get_ident(), conn, sql))

        return trace

    cache._conn.set_trace_callback(tracer("waits"))
    cache._conn_now.set_trace_callback(tracer("never waits"))
    echo = _Echo(path)
    client = CachedClient(LimitedClient(echo, 4), cache, endpoint="u")
    other = sqlite3.connect(path, isolation_level=None)
    other.execute("BEGIN IMMEDIATE")

    async def go() -> tuple[list[Response], int]:
        run = asyncio.gather(*(client.generate(_request(i)) for i in range(10)))
        ticks = 0
        while cache._worker is None or cache._worker._backlog == 0:  # until the claims reach the thread
            await asyncio.sleep(0.01)
            ticks += 1
            assert ticks < 6000, "the claims never reached the cache's thread"
        for _ in range(5):  # the loop keeps running while the thread waits for the lock
            await asyncio.sleep(0.01)
        waiting = int(not run.done() and echo.stored_at_arrival == [])
        other.execute("COMMIT")
        return await asyncio.wait_for(run, 120), waiting

    try:
        out, waiting = asyncio.run(go())
        assert waiting == 1  # nothing was answered while the lock was held
        assert [r.text for r in out] == [f"question {i}" for i in range(10)]
        assert len(cache) == 10 and cache.leases() == {}
        assert len(echo.stored_at_arrival) == 10
        loop_thread = threading.get_ident()
        assert loop_thread in threads and len(threads) == 2  # the thread's batch, then the loop's
        # every transaction on the loop ran on the connection whose busy timeout is 0 (it never waits),
        # the thread's on the one that waits
        begins = {(t == loop_thread, conn) for t, conn, sql in statements if sql == "BEGIN IMMEDIATE"}
        assert begins == {(True, "never waits"), (False, "waits")}
        assert cache._conn_now.execute("PRAGMA busy_timeout").fetchone()[0] == 0
        assert cache._conn.execute("PRAGMA busy_timeout").fetchone()[0] == 30_000
    finally:
        other.close()
        cache.close()


def test_checkpoints_run_on_the_thread(tmp_path: Path) -> None:
    """A cache's connection does not checkpoint on its own: after 200 commits made on the loop, the
    checkpoint goes to the cache's thread (its fsyncs would stall the loop); no checkpoint runs on the
    loop. Window 1, concurrency 1: 420 requests make 421 commits."""
    path = tmp_path / "cache.sqlite"
    cache = SQLiteCache(path, lease_ttl=3600)
    calls: list[tuple[int, str]] = []
    _trace(cache, lambda sql: calls.append((threading.get_ident(), sql)))
    client = CachedClient(LimitedClient(_Instant(), 1), cache, endpoint="u", window=1)

    async def go() -> list[Response]:
        run = asyncio.gather(*(client.generate(_request(i)) for i in range(420)))
        return await asyncio.wait_for(run, 300)

    try:
        out = asyncio.run(go())
        cache._worker.stop()  # the queued checkpoint has run
        loop_thread = threading.get_ident()
        assert [r.text for r in out] == [f"question {i}" for i in range(420)]
        commits = [t for t, sql in calls if sql == "COMMIT"]
        checkpoints = [t for t, sql in calls if "wal_checkpoint" in sql]
        assert len(commits) == 421 and loop_thread in commits
        # (a batch queued while the checkpoint waits for the thread commits there, after it)
        assert checkpoints and loop_thread not in checkpoints
        assert len(cache) == 420 and cache.leases() == {}
    finally:
        cache.close()


class _Instant:
    """A model client answering each request with its own text at once."""

    async def generate(self, request: Request) -> Response:
        return Response(text=str(request.messages[0]["content"]))


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


def test_try_write_batch_gives_what_write_batch_gives_or_does_nothing(tmp_path: Path) -> None:
    """On a free file ``try_write_batch`` is ``write_batch`` (the same answer and the same file, on copies
    of a random state); while another connection holds the write lock, or another thread holds the
    cache's lock, it returns None and changes nothing."""
    read = "SELECT key, endpoint, request, response FROM responses ORDER BY key"
    for seed in range(3):
        paths = [tmp_path / f"{name}{seed}.sqlite" for name in ("a", "b", "c")]
        asked, mine = _random_state(str(paths[0]), seed)
        for copy in paths[1:]:
            copy.write_bytes(paths[0].read_bytes())
        waits, tries, locked = (SQLiteCache(p) for p in paths)
        for cache in (waits, tries, locked):
            cache.owner = mine
        try:
            fresh = [f"new{seed}-{i}" for i in range(4)]
            for cache in (waits, tries, locked):
                cache.claim_many(fresh)
            rows = [(k, "u", _request(i), Response(text=f"stored {i}")) for i, k in enumerate(fresh[:2])]
            keys = random.Random(seed).sample(asked, 20) + fresh[3:]
            want = waits.write_batch(rows, fresh[2:3], keys)
            assert tries.try_write_batch(rows, fresh[2:3], keys) == want
            owners = [{k: o for k, (o, _) in c.leases().items()} for c in (tries, waits)]
            assert tries._execute(read) == waits._execute(read) and owners[0] == owners[1]

            before = (locked._execute(read), locked.leases())
            other = sqlite3.connect(paths[2], isolation_level=None)
            other.execute("BEGIN IMMEDIATE")
            try:
                assert locked.try_write_batch(rows, fresh[2:3], keys) is None
            finally:
                other.execute("COMMIT")
                other.close()
            holder = threading.Thread(target=locked._lock.acquire)
            holder.start()
            holder.join()
            try:
                assert locked.try_write_batch(rows, fresh[2:3], keys) is None
            finally:
                locked._lock.release()
            assert (locked._execute(read), locked.leases()) == before
            assert locked.try_write_batch(rows, fresh[2:3], keys) == want  # free again
        finally:
            for cache in (waits, tries, locked):
                cache.close()


def test_a_batch_whose_statement_fails_is_rolled_back_whole(tmp_path: Path) -> None:
    """A statement of a batch fails (a row the table refuses: no endpoint) after the batch's claims and
    stores began: on either connection (``try_write_batch`` on the one that never waits, ``write_batch``
    on the one that waits) the error reaches the caller, nothing of the batch is kept (the good store, the
    claims) and no transaction is left open, so the next batch commits."""
    cache = SQLiteCache(tmp_path / "cache.sqlite", lease_ttl=3600)
    try:
        cache.claim_many(["a", "b"])
        good = ("a", "u", _request(0), Response(text="stored 0"))
        bad = ("b", None, _request(1), Response(text="stored 1"))  # endpoint NOT NULL
        before = (len(cache), cache.leases())
        for write in (cache.try_write_batch, cache.write_batch):
            try:
                write([good, bad], [], ["c", "d"])  # type: ignore[list-item]
            except sqlite3.IntegrityError:
                pass
            else:
                raise AssertionError("the refused row was stored")
            assert not cache._conn.in_transaction and not cache._conn_now.in_transaction
            assert (len(cache), cache.leases()) == before
        assert cache.try_write_batch([good], [], ["c"]) == {"c": "claimed"}
        assert len(cache) == 1 and set(cache.leases()) == {"b", "c"}
    finally:
        cache.close()


def test_a_burst_of_claims_goes_in_chunks_and_every_answer_is_stored(tmp_path: Path) -> None:
    """700 distinct requests (and 50 copies) started in one pass: their claims reach the thread in several
    hand-offs (256 at a time) and come back per chunk; every request is answered once and stored, and no
    lease is left."""
    path = tmp_path / "cache.sqlite"
    cache = SQLiteCache(path)
    threads: set[int] = set()
    _trace(cache, lambda _sql: threads.add(threading.get_ident()))
    echo = _Echo(path)
    client = CachedClient(LimitedClient(echo, 8), cache, endpoint="u")
    reqs = [_request(i) for i in range(700)]

    async def run() -> list[Response]:
        return await asyncio.gather(*(client.generate(r) for r in reqs + reqs[:50]))

    try:
        out = asyncio.run(run())
        assert cache._worker._thread is not None and threads - {threading.get_ident()}  # the hand-offs
        assert [r.text for r in out] == [f"question {i}" for i in range(700)] + [
            f"question {i}" for i in range(50)
        ]
        assert len(echo.stored_at_arrival) == 700 and len(cache) == 700 and cache.leases() == {}
        # concurrency 8: at each arrival, the requests sent before it and not yet stored are fewer than 8
        assert all(k - stored < 8 for k, stored in enumerate(echo.stored_at_arrival))
    finally:
        cache.close()
