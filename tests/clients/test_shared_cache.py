"""Several ``prism run`` processes on one cache: each distinct request reaches the server once (leases).

Counted at the scripted server (every request it received, with the sha256 of its body). Without leases,
two processes on one cache sent 1,467 requests for 744 distinct ones (issue 17). Every test runs on both
backends: an SQLite file, and a database on a real PostgreSQL server started for the session
(``pg_server`` of tests/support/engine_fixtures.py), through the ``new_cache`` fixture.
"""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import threading
import time
from collections import Counter
from pathlib import Path

import pytest
from engine_world import prepare_run, run_args
from fake_server import API_KEY, FakeServer

from benchsift.clients.base import Request, Response
from benchsift.clients.cache import MAX_LEASE_TTL, ResponseCache, _owner_name
from benchsift.clients.cache_postgres import PostgresCache
from benchsift.clients.cache_sqlite import SQLiteCache
from benchsift.errors import InputError


def _start(world: dict, tmp: Path, inputs: tuple[Path, Path, Path], cache: str, tag: str) -> subprocess.Popen:
    cfg, items, arts = inputs
    out = tmp / f"rec-{tag}.jsonl"
    run = run_args(items, arts, world["images"], cfg, out, "--cache", str(cache), "--sc-rules", "--quiet")
    cmd = [sys.executable, "-m", "benchsift.cli.prism_engine", *run, "--json"]
    env = {**os.environ, "BENCHSIFT_TEST_KEY": API_KEY}
    return subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def _records(path: Path) -> list[tuple]:
    rows = [json.loads(x) for x in path.read_text().splitlines()]
    return sorted((r["model"], r["item"], r["axis"], json.dumps(r["response"], sort_keys=True)) for r in rows)


def _paid_twice(sent: list[dict], calls: list[dict]) -> int:
    """Requests the server received more often than the clients' own retries explain: a duplicate that is
    not a retry (of a request whose reply came too late, or never) is one the cache paid for twice."""
    extra = len(sent) - len({x["key"] for x in sent})
    return extra - sum(int(c["retries"]) for c in calls)


@pytest.mark.slow
def test_concurrent_runs_on_one_cache_send_each_request_once(world: dict, tmp_path: Path, new_cache) -> None:
    """Counted as the cache pays: each distinct request is sent by one process only. A request a process
    retried (its attempt timed out on a loaded machine: the server then answers it twice) is told apart
    by the processes' own retry counts, so the verdict does not depend on the machine's speed; the client
    timeout is generous (120 s) so that retries are rare to begin with (issue 32)."""
    srv = FakeServer(world["world"], latency=0.03).start()
    try:
        inputs = prepare_run(
            world, tmp_path, srv.url, ["correct", "stubborn"], 16, concurrency=4, timeout=120.0
        )
        base = len(srv.requests())
        # one process alone: the distinct requests of the run
        solo = _start(world, tmp_path, inputs, new_cache(), "solo")
        out, err = solo.communicate(timeout=600)
        assert solo.returncode == 0, err
        alone = srv.requests()[base:]
        unique = {x["key"] for x in alone}
        assert len(unique) > 100 and _paid_twice(alone, [json.loads(out)["calls"]]) <= 0
        reference = _records(tmp_path / "rec-solo.jsonl")
        for n_proc in (2, 4):
            cache = new_cache()
            start = len(srv.requests())
            procs = [_start(world, tmp_path, inputs, cache, f"{n_proc}-{i}") for i in range(n_proc)]
            calls = []
            for p in procs:
                out, err = p.communicate(timeout=600)
                assert p.returncode == 0, err
                calls.append(json.loads(out)["calls"])
            sent = srv.requests()[start:]
            counts = Counter(x["key"] for x in sent)
            repeated = [(x["t"], x["status"], x["attempt"]) for x in sent if counts[x["key"]] > 1]
            # a fresh cache has nothing in flight at the start: every distinct request, no other
            assert set(counts) == unique
            # the processes' first attempts are the distinct requests, each once; every further arrival at
            # the server is one of their own retries (counted by them), never a second process paying again
            assert _paid_twice(sent, calls) <= 0, (calls, repeated)
            # the processes' own counts agree with the server's (an attempt lost before it reached the
            # server is counted by its process only)
            assert sum(c["requests"] for c in calls) >= len(sent), (calls, len(sent))
            for i in range(n_proc):
                assert _records(tmp_path / f"rec-{n_proc}-{i}.jsonl") == reference
            c = ResponseCache(cache)
            assert len(c) == len(unique) and c.leases() == {}  # every lease dropped at commit / close
            c.close()
    finally:
        srv.stop()


@pytest.mark.slow
def test_a_killed_holder_is_taken_over(world: dict, tmp_path: Path, new_cache) -> None:
    """SIGKILL one of two processes mid-run: the survivor takes over the dead one's leases (a process of
    this host that no longer exists) and finishes; over both, the only repeats are the requests the dead
    process had in flight (at most its concurrency limits: two endpoints of 4, and 4 for each judge)."""
    srv = FakeServer(world["world"], latency=0.03).start()
    try:
        inputs = prepare_run(world, tmp_path, srv.url, ["correct", "stubborn"], 16, concurrency=4)
        base = len(srv.requests())
        cache = new_cache()
        victim = _start(world, tmp_path, inputs, cache, "victim")
        deadline = time.time() + 60
        while len(srv.requests(status=200)) - base < 40 and time.time() < deadline:
            time.sleep(0.02)
        survivor = _start(world, tmp_path, inputs, cache, "survivor")
        time.sleep(0.3)
        victim.send_signal(signal.SIGKILL)
        victim.communicate()
        _, err = survivor.communicate(timeout=240)
        assert survivor.returncode == 0, err
        sent = srv.requests()[base:]
        counts = Counter(x["key"] for x in sent)
        repeats = sum(v - 1 for v in counts.values())
        assert repeats <= 4 * 5  # 5 endpoints (2 models, gen, judge, judge2) of concurrency 4
        c = ResponseCache(cache)
        assert len(c) == len(counts)  # nothing lost: every distinct request answered and stored
        c.close()
        rows = [json.loads(x) for x in (tmp_path / "rec-survivor.jsonl").read_text().splitlines()]
        assert rows and all(r["answered"] for r in rows)
    finally:
        srv.stop()


def test_lease_claim_expiry_and_takeover(new_cache) -> None:
    """One key, two cache handles (two owners): held while live, taken over once expired or released."""
    where = new_cache()
    a = ResponseCache(where, lease_ttl=0.3)
    b = ResponseCache(where, lease_ttl=0.3)
    assert type(a) is (PostgresCache if where.startswith("postgresql://") else SQLiteCache)
    try:
        assert a.claim("k") == "claimed"
        assert b.claim("k") == "held"
        a.release("k")
        assert b.claim("k") == "claimed" and a.claim("k") == "held"
        b._stop.set()  # the holder stops renewing, as a hung or killed process would
        if b._renewer is not None:
            b._renewer.join()
        time.sleep(0.4)
        assert a.claim("k") == "claimed"  # expired: taken over
        req = Request(model="m", messages=({"role": "user", "content": "hi"},))
        a.put("k", "u", req, Response(text="x"))
        assert b.claim("k") == "answered" and a.leases() == {}
        # a lease of a process of this kernel and PID namespace that no longer exists is taken over at once
        dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True)
        owner = _owner_name(int(dead.stdout), "x")
        a._execute("INSERT INTO leases VALUES (?, ?, ?)", ("k2", owner, time.time() + 60))
        assert a.claim("k2") == "claimed"
    finally:
        a.close()
        b.close()


def test_a_stored_answer_another_program_damaged_is_one_line(new_cache) -> None:
    """A row of the responses table overwritten with something that is not a stored answer: reading it
    (get, a claim, a batch's claim) raises the one-line InputError naming the cache, on both backends;
    the intact rows still read."""
    where = new_cache()
    c = ResponseCache(where)
    req = Request(model="m", messages=({"role": "user", "content": "hi"},))
    try:
        for key in ("a", "b", "ok"):
            c.put(
                key, "u", req, Response(text="x", finish_reason="stop", prompt_tokens=2, completion_tokens=1)
            )
        c._execute("UPDATE responses SET response = ? WHERE key = ?", ("[1, 2]", "a"))
        c._execute("UPDATE responses SET response = ? WHERE key = ?", ('{"text": 5}', "b"))
        got = c.get("ok")
        assert got is not None and (got.text, got.prompt_tokens, got.cached) == ("x", 2, True)
        for key in ("a", "b"):
            with pytest.raises(
                InputError, match=r": corrupt response cache \(a stored answer is not an object"
            ):
                c.get(key)
            with pytest.raises(InputError, match="corrupt response cache"):
                c.claim_many([key, "ok"])
            with pytest.raises(InputError, match="corrupt response cache"):
                c.write_batch([], [], [key])
        c._execute(
            "UPDATE responses SET response = ? WHERE key = ?", ('{"text": "y", "prompt_tokens": -1}', "a")
        )
        with pytest.raises(InputError, match="corrupt response cache"):
            c.get("a")
    finally:
        c.close()


def test_a_lease_no_benchsift_process_could_have_written_is_taken_over(new_cache) -> None:
    """A lease of another host expiring further ahead than MAX_LEASE_TTL (plus a minute) was forged: it is
    taken over as an expired one (it made every request of the key wait for ever), by claim, claim_many and
    the SQLite batch alike; one within the horizon is still held."""
    where = new_cache()
    c = ResponseCache(where)
    try:
        now = c._execute("SELECT {now}")[0][0]
        for key, ahead in (("far", 1e12), ("far2", MAX_LEASE_TTL + 120), ("near", 600.0), ("near2", 600.0)):
            c._execute("INSERT INTO leases VALUES (?, ?, ?)", (key, "elsewhere:1:abc", now + ahead))
        assert c.claim("near") == "held" and c.claim_many(["near2"]) == {"near2": "held"}
        assert c.claim("far") == "claimed" and c.claim_many(["far2"]) == {"far2": "claimed"}
        assert {k: o for k, (o, _) in c.leases().items()} == {
            "near": "elsewhere:1:abc",
            "near2": "elsewhere:1:abc",
            "far": c.owner,
            "far2": c.owner,
        }
        c.release_many(["far", "far2"])
        c._execute("UPDATE leases SET expires = ? WHERE key = 'near'", (now + 1e12,))
        assert c.write_batch([], [], ["near"]) == {"near": "claimed"}
    finally:
        c.close()
    with pytest.raises(ValueError, match="lease_ttl must be positive and at most 3600 s"):
        ResponseCache(where, lease_ttl=MAX_LEASE_TTL + 1)


def test_racing_claims_give_each_key_to_one_owner(new_cache) -> None:
    """Eight handles (eight owners, eight connections) race over the same 150 keys in shuffled orders; a
    claimed key is answered at once. Each key is claimed exactly once (no key claimed after its answer
    was stored, none by two owners), every other attempt sees it held or answered."""
    where = new_cache()
    handles = [ResponseCache(where, lease_ttl=30) for _ in range(8)]
    keys = [f"k{i}" for i in range(150)]
    req = Request(model="m", messages=({"role": "user", "content": "hi"},))
    claims: list[tuple[str, int]] = []
    seen: list[str] = []
    lock = threading.Lock()
    start = threading.Barrier(len(handles))

    def worker(i: int) -> None:
        order = keys[:]
        random.Random(i).shuffle(order)
        start.wait()
        for k in order:
            state = handles[i].claim(k)
            with lock:
                seen.append(state)
            if state == "claimed":
                with lock:
                    claims.append((k, i))
                handles[i].put(k, "u", req, Response(text=f"{k} by {i}"))

    threads = [threading.Thread(target=worker, args=(i,)) for i in range(len(handles))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    try:
        assert Counter(k for k, _ in claims) == Counter(keys)  # every key once, none twice
        assert len(seen) == 8 * 150 and seen.count("claimed") == 150
        owner = dict(claims)
        assert {k: handles[0].get(k).text for k in keys} == {k: f"{k} by {owner[k]}" for k in keys}
        assert handles[0].leases() == {} and len(handles[0]) == 150
    finally:
        for h in handles:
            h.close()
