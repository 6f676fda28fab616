"""Several ``prism run`` processes on one cache: each distinct request reaches the server once (leases).

Counted at the scripted server (every request it received, with the sha256 of its body). Without leases,
two processes on one cache sent 1,467 requests for 744 distinct ones (issue 17).
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import pytest
from engine_world import invoke, run_args, write_config
from fake_server import API_KEY, FakeServer

from benchsift.clients.base import Request, Response
from benchsift.clients.cache import ResponseCache


def _prepare(world: dict, tmp: Path, url: str, n: int) -> tuple[Path, Path, Path]:
    root, img = world["root"], world["images"]
    cfg = write_config(tmp / "models.toml", url, ["correct", "stubborn"], concurrency=4)
    items = tmp / "items.jsonl"
    invoke("sources", "--raw", f"okvqa={root / 'okvqa.jsonl'}", "--raw", f"ai2d={root / 'ai2d.jsonl'}",
           "--no-sample", "--out", str(items))  # fmt: skip
    items.write_text("\n".join(items.read_text().splitlines()[:n]) + "\n")
    arts = tmp / "artifacts.jsonl"
    invoke("build", "--items", str(items), "--images", str(img), "--config", str(cfg), "--out", str(arts))
    return cfg, items, arts


def _start(
    world: dict, tmp: Path, inputs: tuple[Path, Path, Path], cache: Path, tag: str
) -> subprocess.Popen:
    cfg, items, arts = inputs
    out = tmp / f"rec-{tag}.jsonl"
    run = run_args(items, arts, world["images"], cfg, out, "--cache", str(cache), "--sc-rules", "--quiet")
    cmd = [sys.executable, "-m", "benchsift.cli.prism_engine", *run, "--json"]
    env = {**os.environ, "BENCHSIFT_TEST_KEY": API_KEY}
    return subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def _records(path: Path) -> list[tuple]:
    rows = [json.loads(x) for x in path.read_text().splitlines()]
    return sorted((r["model"], r["item"], r["axis"], json.dumps(r["response"], sort_keys=True)) for r in rows)


@pytest.mark.slow
def test_concurrent_runs_on_one_cache_send_each_request_once(world: dict, tmp_path: Path) -> None:
    srv = FakeServer(world["world"], latency=0.03).start()
    try:
        inputs = _prepare(world, tmp_path, srv.url, 16)
        base = len(srv.requests())
        # one process alone: the distinct requests of the run
        solo = _start(world, tmp_path, inputs, tmp_path / "solo.sqlite", "solo")
        _, err = solo.communicate(timeout=180)
        assert solo.returncode == 0, err
        alone = srv.requests()[base:]
        unique = {x["key"] for x in alone}
        assert len(alone) == len(unique) > 100
        reference = _records(tmp_path / "rec-solo.jsonl")
        for n_proc in (2, 4):
            cache = tmp_path / f"shared-{n_proc}.sqlite"
            start = len(srv.requests())
            procs = [_start(world, tmp_path, inputs, cache, f"{n_proc}-{i}") for i in range(n_proc)]
            requests = 0
            for p in procs:
                out, err = p.communicate(timeout=240)
                assert p.returncode == 0, err
                requests += json.loads(out.strip().splitlines()[-1])["calls"]["requests"]
            assert requests == len(unique)  # the processes' own counts agree with the server's
            sent = srv.requests()[start:]
            counts = Counter(x["key"] for x in sent)
            # a fresh cache has nothing in flight at the start: at most the distinct requests, each once
            assert set(counts) == unique
            assert len(sent) == len(unique), f"{n_proc} processes: {len(sent)} sent for {len(unique)}"
            for i in range(n_proc):
                assert _records(tmp_path / f"rec-{n_proc}-{i}.jsonl") == reference
            c = ResponseCache(cache)
            assert len(c) == len(unique) and c.leases() == {}  # every lease dropped at commit / close
            c.close()
    finally:
        srv.stop()


@pytest.mark.slow
def test_a_killed_holder_is_taken_over(world: dict, tmp_path: Path) -> None:
    """SIGKILL one of two processes mid-run: the survivor takes over the dead one's leases (a process of
    this host that no longer exists) and finishes; over both, the only repeats are the requests the dead
    process had in flight (at most its concurrency limits: two endpoints of 4, and 4 for each judge)."""
    srv = FakeServer(world["world"], latency=0.03).start()
    try:
        inputs = _prepare(world, tmp_path, srv.url, 16)
        base = len(srv.requests())
        cache = tmp_path / "shared.sqlite"
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


def test_lease_claim_expiry_and_takeover(tmp_path: Path) -> None:
    """One key, two cache handles (two owners): held while live, taken over once expired or released."""
    a = ResponseCache(tmp_path / "c.sqlite", lease_ttl=0.3)
    b = ResponseCache(tmp_path / "c.sqlite", lease_ttl=0.3)
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
        # a lease of a process of this host that no longer exists is taken over at once
        dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True)
        owner = f"{a.owner.split(':')[0]}:{int(dead.stdout)}:x"
        a._conn.execute("INSERT INTO leases VALUES (?, ?, ?)", ("k2", owner, time.time() + 60))
        assert a.claim("k2") == "claimed"
    finally:
        a.close()
        b.close()
