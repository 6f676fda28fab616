"""Throughput of the engine's client stack against the local scripted server (issue 7).

Setup: the test server of ``tests/engine/fake_server.py`` in its own process, 50 ms latency per request,
one endpoint with concurrency 64. N distinct grading-judge requests (text only) go through the full stack
(cache -> retry -> limit -> HTTP client). Ideal time = N x 0.05 s / 64 (latency-bound); throughput is
reported as a fraction of the ideal (target >= 80 %). Side by side in the same process: 64 raw asyncio
HTTP/1.1 connections with no library (the ceiling of the server and the event loop) and a bare ``httpx``
client with the same 64-request semaphore (the library transport without retries or cache). Then the same N
requests again with the cache: the server must see zero new requests.

Usage: ``python benchmarks/bench_engine_throughput.py [--n 2000] [--latency 0.05] [--concurrency 64]``
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import platform
import subprocess
import sys
import tempfile
import time
import urllib.parse
import urllib.request
from pathlib import Path

from rich.console import Console
from rich.table import Table

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests" / "engine"))

from fake_server import API_KEY  # noqa: E402

from benchsift.clients import ClientPool, Request, ResponseCache, config_from_dict  # noqa: E402


def _prompt(i: int) -> str:
    return (
        "You are checking whether a model changed its answer between two consecutive turns\n"
        f"Original question: question {i}\nPrevious answer: {i}\nCurrent answer: {i}\n"
    )


def _server_requests(url: str) -> int:
    with urllib.request.urlopen(url.replace("/v1", "/stats")) as r:
        return int(json.loads(r.read())["requests"])


async def _stack(url: str, n: int, conc: int, cache_path: Path | None) -> tuple[float, float, dict]:
    cfg = config_from_dict(
        {
            "timeout": 60,
            "endpoint": [
                {
                    "name": "j",
                    "base_url": url,
                    "model": "judge",
                    "api_key_env": "BENCH_KEY",
                    "concurrency": conc,
                }
            ],
        }
    )
    pool = ClientPool(cfg, ResponseCache(cache_path) if cache_path else None)
    client = pool.get("j")
    reqs = [
        Request(model="judge", messages=({"role": "user", "content": _prompt(i)},), max_tokens=384)
        for i in range(n)
    ]
    t, cpu = time.perf_counter(), time.process_time()
    await asyncio.gather(*(client.generate(r) for r in reqs))
    dt, dcpu = time.perf_counter() - t, time.process_time() - cpu
    stats = pool.total().to_dict()
    await pool.aclose()
    return dt, dcpu, stats


async def _bare(url: str, n: int, conc: int) -> tuple[float, float]:
    try:
        import httpx2 as httpx  # the transport of recent openai SDKs
    except ImportError:
        import httpx  # older SDKs

    sem = asyncio.Semaphore(conc)
    limits = httpx.Limits(max_connections=conc, max_keepalive_connections=conc)
    async with httpx.AsyncClient(
        limits=limits, timeout=60, headers={"Authorization": f"Bearer {API_KEY}"}
    ) as c:

        async def one(i: int) -> None:
            async with sem:
                body = {
                    "model": "judge",
                    "messages": [{"role": "user", "content": _prompt(n + i)}],
                    "max_tokens": 384,
                }
                r = await c.post(url + "/chat/completions", json=body)
                r.raise_for_status()

        t, cpu = time.perf_counter(), time.process_time()
        await asyncio.gather(*(one(i) for i in range(n)))
        return time.perf_counter() - t, time.process_time() - cpu


async def _raw(url: str, n: int, conc: int) -> tuple[float, float]:
    """The ceiling: ``conc`` keep-alive connections speaking minimal HTTP/1.1 over asyncio streams.

    No HTTP library at all (fixed Content-Length replies from the test server only); it shows how fast the
    server and the event loop can go, so the gap to the library rows is the libraries' per-request cost.
    """
    parsed = urllib.parse.urlparse(url)
    host, port, path = parsed.hostname or "127.0.0.1", parsed.port or 80, parsed.path + "/chat/completions"
    todo = list(range(n))

    async def connection() -> None:
        reader, writer = await asyncio.open_connection(host, port)
        while todo:
            i = todo.pop()
            body = json.dumps(
                {
                    "model": "judge",
                    "messages": [{"role": "user", "content": _prompt(2 * n + i)}],
                    "max_tokens": 384,
                }
            ).encode()
            head = (
                f"POST {path} HTTP/1.1\r\nHost: {host}\r\nAuthorization: Bearer {API_KEY}\r\n"
                f"Content-Type: application/json\r\nContent-Length: {len(body)}\r\n\r\n"
            )
            writer.write(head.encode() + body)
            status = await reader.readline()
            length = 0
            while (line := await reader.readline()) not in (b"\r\n", b""):
                name, _, value = line.decode().partition(":")
                if name.lower() == "content-length":
                    length = int(value)
            json.loads(await reader.readexactly(length))
            if b" 200 " not in status:
                raise RuntimeError(f"raw client: {status!r}")
        writer.close()

    t, cpu = time.perf_counter(), time.process_time()
    await asyncio.gather(*(connection() for _ in range(conc)))
    return time.perf_counter() - t, time.process_time() - cpu


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=2000)
    ap.add_argument("--latency", type=float, default=0.05)
    ap.add_argument("--concurrency", type=int, default=64)
    args = ap.parse_args()
    os.environ["BENCH_KEY"] = API_KEY
    tmp = Path(tempfile.mkdtemp())
    (tmp / "world.json").write_text("{}")
    port_file = tmp / "url"
    srv = subprocess.Popen(
        [
            sys.executable,
            str(ROOT / "tests" / "engine" / "fake_server.py"),
            str(tmp / "world.json"),
            str(port_file),
            str(args.latency),
        ]
    )
    try:
        while not port_file.exists():
            time.sleep(0.05)
        url = port_file.read_text()
        asyncio.run(_stack(url, 64, args.concurrency, None))  # warm-up (connections, imports)
        ideal = args.n * args.latency / args.concurrency
        t_raw, c_raw = asyncio.run(_raw(url, args.n, args.concurrency))
        t_bare, c_bare = asyncio.run(_bare(url, args.n, args.concurrency))
        t_stack, c_stack, s1 = asyncio.run(_stack(url, args.n, args.concurrency, tmp / "cache.sqlite"))
        before = _server_requests(url)
        t_cached, c_cached, s2 = asyncio.run(_stack(url, args.n, args.concurrency, tmp / "cache.sqlite"))
        new = _server_requests(url) - before
    finally:
        srv.terminate()
        srv.wait()
    con = Console(width=140)
    load = os.getloadavg() if hasattr(os, "getloadavg") else ("?",)
    con.print(
        f"machine: {platform.machine()} {platform.system()}, {os.cpu_count()} CPUs, "
        f"Python {platform.python_version()}, load avg {load[0]:.2f}"
    )
    con.print(
        f"N = {args.n} requests, latency {args.latency * 1000:.0f} ms, concurrency {args.concurrency}; "
        f"ideal time {ideal:.2f} s = {args.n / ideal:.0f} req/s"
    )
    t = Table(title="engine client throughput")
    # client CPU per request: what the client process itself spends (the server runs in another
    # process); on a loaded machine the wall-clock columns are noisy, this one much less so
    cols = (
        "run",
        "seconds",
        "req/s",
        "fraction of ideal",
        "client CPU ms/req",
        "server requests",
        "cache hits",
    )
    for col in cols:
        t.add_column(col, justify="right" if col != "run" else "left")
    t.add_row(
        "ideal (latency-bound)", f"{ideal:.2f}", f"{args.n / ideal:.0f}", "100 %", "-", str(args.n), "-"
    )
    t.add_row(
        "raw asyncio HTTP/1.1, no library",
        f"{t_raw:.2f}",
        f"{args.n / t_raw:.0f}",
        f"{ideal / t_raw:.0%}",
        f"{c_raw / args.n * 1e3:.2f}",
        str(args.n),
        "-",
    )
    t.add_row(
        "bare httpx + semaphore",
        f"{t_bare:.2f}",
        f"{args.n / t_bare:.0f}",
        f"{ideal / t_bare:.0%}",
        f"{c_bare / args.n * 1e3:.2f}",
        str(args.n),
        "-",
    )
    t.add_row(
        "benchsift stack (cold)",
        f"{t_stack:.2f}",
        f"{args.n / t_stack:.0f}",
        f"{ideal / t_stack:.0%}",
        f"{c_stack / args.n * 1e3:.2f}",
        str(s1["requests"]),
        str(s1["cache_hits"]),
    )
    t.add_row(
        "benchsift stack (cached rerun)",
        f"{t_cached:.2f}",
        f"{args.n / t_cached:.0f}",
        "-",
        f"{c_cached / args.n * 1e3:.2f}",
        str(new),
        str(s2["cache_hits"]),
    )
    con.print(t)
    con.print(
        f"target: cold >= 80 % of ideal -> {'met' if ideal / t_stack >= 0.8 else 'NOT met'}; "
        f"cached rerun requests at the server: {new}"
    )


if __name__ == "__main__":
    main()
