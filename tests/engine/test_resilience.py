"""Retries against a flaky server; a run killed with SIGKILL resumes with nothing lost or repeated."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
import typer
from engine_world import write_config
from fake_server import API_KEY
from typer.testing import CliRunner

from benchsift.cli.prism_engine import register
from benchsift.clients.cache import ResponseCache


def invoke(*args: str) -> dict:
    app = typer.Typer()
    register(app)
    res = CliRunner().invoke(app, [*args, "--json"])
    assert res.exit_code == 0, res.output
    return json.loads(res.stdout.strip().splitlines()[-1])


def _prepare(
    world: dict, tmp: Path, url: str, models: list[str], n: int, **cfg_kw
) -> tuple[Path, Path, Path]:
    root, img = world["root"], world["images"]
    cfg = write_config(tmp / "models.toml", url, models, **cfg_kw)
    items = tmp / "items.jsonl"
    invoke(
        "sources",
        "--raw",
        f"okvqa={root / 'okvqa.jsonl'}",
        "--raw",
        f"ai2d={root / 'ai2d.jsonl'}",
        "--no-sample",
        "--out",
        str(items),
    )
    lines = items.read_text().splitlines()[:n]
    items.write_text("\n".join(lines) + "\n")
    arts = tmp / "artifacts.jsonl"
    invoke("build", "--items", str(items), "--images", str(img), "--config", str(cfg), "--out", str(arts))
    return cfg, items, arts


@pytest.mark.slow
def test_flaky_server_gives_the_correct_verdicts(world: dict, server, tmp_path: Path) -> None:
    server.slow = 2.0  # past the 1 s client timeout
    cfg, items, arts = _prepare(world, tmp_path, server.url, ["flaky", "correct"], 8, timeout=1.0)
    recs = tmp_path / "records.jsonl"
    r = invoke(
        "run",
        "--items",
        str(items),
        "--artifacts",
        str(arts),
        "--images",
        str(world["images"]),
        "--config",
        str(cfg),
        "--out",
        str(recs),
        "--sc-rules",
    )
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
def test_sigkill_mid_run_resumes_without_loss_or_duplicates(world: dict, tmp_path: Path) -> None:
    from fake_server import FakeServer

    srv = FakeServer(world["world"], latency=0.03).start()
    try:
        cfg, items, arts = _prepare(world, tmp_path, srv.url, ["correct", "stubborn"], 24, concurrency=4)
        base = len(srv.requests())
        cache = tmp_path / "run-cache.sqlite"
        cmd = [
            sys.executable,
            "-m",
            "benchsift.cli.prism_engine",
            "run",
            "--items",
            str(items),
            "--artifacts",
            str(arts),
            "--images",
            str(world["images"]),
            "--config",
            str(cfg),
            "--out",
            str(tmp_path / "rec.jsonl"),
            "--cache",
            str(cache),
            "--sc-rules",
            "--quiet",
            "--json",
        ]
        env = {**os.environ, "BENCHSIFT_TEST_KEY": API_KEY}
        proc = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.time() + 60
        while len(srv.requests(status=200)) - base < 60 and time.time() < deadline:
            time.sleep(0.02)
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        assert not (tmp_path / "rec.jsonl").exists()  # nothing half-written
        phase1 = srv.requests()[base:]
        c1 = ResponseCache(cache)
        committed = len(c1)
        c1.close()
        ok1 = {x["key"] for x in phase1 if x["status"] == 200}
        assert 60 <= len(ok1) and committed <= len(ok1)

        done = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=120)
        assert done.returncode == 0, done.stderr
        phase2 = srv.requests()[base + len(phase1) :]
        keys2 = [x["key"] for x in phase2]
        assert len(keys2) == len(set(keys2))  # no request asked twice after the restart
        again = ok1 & set(keys2)
        # only the requests in flight at the kill (answered but not yet committed) are asked again
        assert len(again) == len(ok1) - committed <= 2 * 4  # two endpoints, 4 in flight each
        records = [json.loads(x) for x in (tmp_path / "rec.jsonl").read_text().splitlines()]
        assert all(r["answered"] for r in records)
        c2 = ResponseCache(cache)
        assert len(c2) == len(ok1 | set(keys2))  # every distinct request, once
        c2.close()
        summary = json.loads(done.stdout.strip().splitlines()[-1])
        assert summary["calls"]["requests"] == len(keys2)
    finally:
        srv.stop()


def test_full_dialogue_plays_all_turns_and_budgets(world: dict, server, tmp_path: Path) -> None:
    import asyncio

    from benchsift.clients import ClientPool, ResponseCache, load_config
    from benchsift.prism.build import read_artifacts
    from benchsift.prism.run import ModelSpec, run_models
    from benchsift.prism.sources import read_items

    cfg_path, items_path, arts_path = _prepare(world, tmp_path, server.url, ["sycophant", "adopter"], 6)
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
