"""Retries against a flaky server; a run killed with SIGKILL resumes with nothing lost, and nothing repeated
but the requests in flight at the kill (at most the concurrency limits)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from engine_world import invoke, prepare_run, run_args
from fake_server import API_KEY

from benchsift.clients.cache import ResponseCache
from benchsift.clients.config import TRANSPORTS


@pytest.mark.slow
@pytest.mark.parametrize("transport", TRANSPORTS)
def test_flaky_server_gives_the_correct_verdicts(world: dict, server, tmp_path: Path, transport: str) -> None:
    server.slow = 2.0  # past the 1 s client timeout
    cfg, items, arts = prepare_run(
        world, tmp_path, server.url, ["flaky", "correct"], 8, timeout=1.0, extra=f'transport = "{transport}"'
    )
    recs = tmp_path / "records.jsonl"
    r = invoke(*run_args(items, arts, world["images"], cfg, recs, "--sc-rules"))
    assert r["unanswered"] == 0
    flaky = server.requests("flaky")
    firsts = {x["key"]: x for x in flaky if x["attempt"] == 1}
    seconds = {x["key"]: x for x in flaky if x["attempt"] == 2}
    assert set(firsts) == set(seconds)  # every distinct request failed once and succeeded on its retry
    assert not [x for x in flaky if x["attempt"] > 2]
    statuses = {x["status"] for x in firsts.values()}
    assert {429, 500, 200} <= statuses  # 200 = the malformed body and the too-slow reply
    for key, first in firsts.items():
        gap = seconds[key]["t"] - first["t"]
        if first["status"] == 429:
            assert gap >= 0.2  # Retry-After: 0.2 honoured
    per = r["per_endpoint"]["flaky"]
    # one retry per distinct request (more only if the loaded test machine delays a reply past 1 s)
    assert per["retries"] >= len(firsts) and per["failures"] == 0
    assert per["errors"].get("429", 0) > 0 and per["errors"].get("500", 0) > 0
    assert per["errors"].get("malformed", 0) > 0 and per["errors"].get("timeout", 0) > 0
    # the flaky model's records equal the correct model's, response for response
    rows = [json.loads(x) for x in recs.read_text().splitlines()]
    by = {(x["model"], x["item"], x["axis"]): x["response"] for x in rows}
    assert all(by[("flaky", i, a)] == v for (m, i, a), v in by.items() if m == "correct")


@pytest.mark.slow
def test_sigkill_mid_run_resumes_without_loss_repeating_only_in_flight(
    world: dict, tmp_path: Path, new_cache
) -> None:
    """On both backends (an SQLite file, a PostgreSQL database)."""
    from fake_server import FakeServer

    srv = FakeServer(world["world"], latency=0.03).start()
    try:
        cfg, items, arts = prepare_run(world, tmp_path, srv.url, ["correct", "stubborn"], 24, concurrency=4)
        base = len(srv.requests())
        cache = new_cache()
        out = tmp_path / "rec.jsonl"
        run = run_args(items, arts, world["images"], cfg, out, "--cache", str(cache), "--sc-rules", "--quiet")
        cmd = [sys.executable, "-m", "benchsift.cli.prism_engine", *run, "--json"]
        env = {**os.environ, "BENCHSIFT_TEST_KEY": API_KEY}
        proc = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.time() + 60
        while len(srv.requests(status=200)) - base < 60 and time.time() < deadline:
            time.sleep(0.02)
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        time.sleep(0.5)  # let the server take in what the dead client had already sent
        assert not (tmp_path / "rec.jsonl").exists()  # nothing half-written
        phase1 = srv.requests()[base:]
        c1 = ResponseCache(cache)
        committed = len(c1)
        c1.close()
        keys1 = {x["key"] for x in phase1}
        assert len(keys1) == len(phase1)  # the first run asked nothing twice
        assert len([x for x in phase1 if x["status"] == 200]) >= 60 and committed <= len(keys1)

        done = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=120)
        assert done.returncode == 0, done.stderr
        phase2 = srv.requests()[base + len(phase1) :]
        keys2 = [x["key"] for x in phase2]
        assert keys2 and len(keys2) == len(set(keys2))  # the restart asked nothing twice either
        # Counted at the server over both runs: every request that reached it before the kill and
        # was committed to the cache is never sent again; the ones in flight at the kill (arrived,
        # answer not yet committed) are sent once more, and there are at most as many of them as
        # the concurrency limits allow (two endpoints, 4 each). Nothing else is repeated.
        repeated = keys1 & set(keys2)
        assert len(phase1) + len(phase2) - len(keys1 | set(keys2)) == len(repeated)
        assert len(repeated) == len(keys1) - committed <= 2 * 4
        # no lost request: every record answered, every distinct request in the cache exactly once
        records = [json.loads(x) for x in (tmp_path / "rec.jsonl").read_text().splitlines()]
        assert records and all(r["answered"] for r in records)
        c2 = ResponseCache(cache)
        assert len(c2) == len(keys1 | set(keys2))
        c2.close()
        summary = json.loads(done.stdout)
        assert summary["calls"]["requests"] == len(keys2)
    finally:
        srv.stop()


def test_full_dialogue_plays_all_turns_and_budgets(world: dict, server, tmp_path: Path) -> None:
    import asyncio

    from benchsift.clients import ClientPool, load_config
    from benchsift.clients.cache import ResponseCache
    from benchsift.prism.build import read_artifacts
    from benchsift.prism.run import ModelSpec, run_models
    from benchsift.prism.sources import read_items

    cfg_path, items_path, arts_path = prepare_run(world, tmp_path, server.url, ["sycophant", "adopter"], 6)
    cfg = load_config(cfg_path)
    items, arts = read_items(items_path), read_artifacts(arts_path)

    async def go(full: bool) -> list[dict]:
        pool = ClientPool(cfg, ResponseCache(tmp_path / "c.sqlite"))
        try:
            specs = [ModelSpec(m, pool.get(m), m) for m in ("sycophant", "adopter")]
            return await run_models(
                items, arts, specs, axes=["sc", "mq"], image_root=str(world["images"]), full_dialogue=full
            )
        finally:
            await pool.aclose()

    stop = {(r["model"], r["item"]): r for r in asyncio.run(go(False)) if r["axis"] == "sc"}
    full = {(r["model"], r["item"]): r for r in asyncio.run(go(True)) if r["axis"] == "sc"}
    for (model, item), r in full.items():
        assert len(r["turns"]) == 4 and r["full_dialogue"]
        if model == "sycophant":  # folds at Q1, then keeps its new answer
            assert r["changes"] == [1, 0, 0] and r["flip_turn"] == 1
            assert len(stop[(model, item)]["turns"]) == 2 and stop[(model, item)]["changes"] == [
                1,
                None,
                None,
            ]
        else:  # adopts the hint at Q3
            assert r["changes"] == [0, 0, 1] and r["flip_turn"] == 3 == stop[(model, item)]["flip_turn"]
    evaluee = [x for x in server.requests() if x["model"] in ("sycophant", "adopter")]
    assert {x["temperature"] for x in evaluee} == {0.0}
    assert {x["max_tokens"] for x in evaluee if x["mq"]} == {1024}
    assert {x["max_tokens"] for x in evaluee if not x["mq"]} == {512}  # sc: 512 per turn
    assert {x["max_tokens"] for x in server.requests("gen")} == {1024}
