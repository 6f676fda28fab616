"""Throughput of the engine's client stack against the local scripted server (issue 7).

Setup: the test server of ``tests/support/fake_server.py`` in its own process, 50 ms latency per request,
one endpoint with concurrency 64. N distinct grading-judge requests (text only) go through the full stack
(cache -> retry -> limit -> HTTP client), once with the default ``aiohttp`` transport and once with the
``openai`` SDK transport. Ideal time = N x 0.05 s / 64 (latency-bound); throughput is reported as a
fraction of the ideal (target >= 80 %). Side by side in the same process, the baselines: 64 raw asyncio
HTTP/1.1 connections with no library (the ceiling of the server and the event loop), and bare ``aiohttp``
and ``httpx`` clients with the same 64-request semaphore (each library without retries or cache). Then the
same N requests again with the cache: the server must see zero new requests. Every row sends the same N
requests in every run; the rows take turns for ``--repeats`` runs (so a burst of load elsewhere hits all of
them), each cold stack run starts from an empty cache file, and the table shows the min and median time of
each row, the fraction of the ideal at both, and the spread of that fraction over the runs.

With ``--image-kb K`` every request also carries one K-kilobyte image as a base64 data URL, as the
evaluated models' requests do (the default, 0, sends the text-only judge requests of the grading stage).

``--busy K`` runs K busy-loop processes (pure Python, at the benchmark's own priority) for the whole timed
part, so every row competes for the CPUs as on a loaded machine (issue 36 asks for load 1 and load 4).
``--before-src DIR`` adds a row: the same cold stack run from an older source tree (``git archive <commit>
src | tar -x -C DIR``), in a child process started and warmed up before each of its runs (not timed), taking
its turn in the round robin, so the change and the code before it are measured in one run. Repeat it for
several trees (a row each, labelled with the tree's folder); the current tree given this way is measured
under the same conditions as the older ones (a fresh child process), which separates the change from any
advantage of the in-process row.

``--no-cache-row`` adds the stack without its response cache (diagnostic: a run through the CLI always has
one), so the gap to bare aiohttp splits into the cache's share and the other layers'.

Usage: ``python benchmarks/bench_engine_throughput.py [--n 2000] [--latency 0.05] [--concurrency 64]
[--image-kb 0] [--repeats 5] [--busy 0] [--before-src DIR ...] [--no-sdk] [--no-cache-row] [--json FILE]``
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.parse
import urllib.request
from pathlib import Path

from _timing import Timing, load_average, machine_line, ratio_cell
from rich.console import Console
from rich.table import Table

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests" / "support"))

from fake_server import API_KEY  # noqa: E402

from benchsift.clients import ClientPool, Request, image_data_url  # noqa: E402
from benchsift.clients.cache import ResponseCache  # noqa: E402
from benchsift.clients.config import config_from_dict  # noqa: E402

IMAGE: list[str] = []  # the data URL every message carries when --image-kb > 0 (one image, as in a run)


def _message(i: int) -> dict:
    """Request ``i``'s user message: the judge prompt, plus the image part when one is set."""
    if not IMAGE:
        return {"role": "user", "content": _prompt(i)}
    parts = [{"type": "text", "text": _prompt(i)}, {"type": "image_url", "image_url": {"url": IMAGE[0]}}]
    return {"role": "user", "content": parts}


def _body(i: int) -> dict:
    """The JSON body of request ``i`` as the baseline clients send it."""
    return {"model": "judge", "messages": [_message(i)], "max_tokens": 384}


def _prompt(i: int) -> str:
    return (
        "You are checking whether a model changed its answer between two consecutive turns\n"
        f"Original question: question {i}\nPrevious answer: {i}\nCurrent answer: {i}\n"
    )


def _server_requests(url: str) -> int:
    with urllib.request.urlopen(url.replace("/v1", "/stats")) as r:
        return int(json.loads(r.read())["requests"])


async def _stack(
    url: str, n: int, conc: int, cache_path: Path | None, transport: str, offset: int
) -> tuple[float, float, dict]:
    cfg = config_from_dict(
        {
            "timeout": 60,
            "transport": transport,
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
    cache = ResponseCache(cache_path) if cache_path else None
    pool = ClientPool(cfg, cache)
    client = pool.get("j")
    reqs = [Request(model="judge", messages=(_message(offset + i),), max_tokens=384) for i in range(n)]
    t, cpu = time.perf_counter(), time.process_time()
    await asyncio.gather(*(client.generate(r) for r in reqs))
    dt, dcpu = time.perf_counter() - t, time.process_time() - cpu
    stats = pool.total().to_dict()
    await pool.aclose()
    if cache is not None:  # as a run does: its threads stop, its connection closes (none left to later rows)
        cache.close()
    return dt, dcpu, stats


async def _bare_aiohttp(url: str, n: int, conc: int, offset: int) -> tuple[float, float]:
    import aiohttp

    sem = asyncio.Semaphore(conc)
    headers = {"Authorization": f"Bearer {API_KEY}", "Content-Type": "application/json"}
    async with aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=conc), headers=headers) as s:

        async def one(i: int) -> None:
            async with sem:
                data = json.dumps(_body(offset + i)).encode()
                async with s.post(url + "/chat/completions", data=data) as r:
                    r.raise_for_status()
                    json.loads(await r.read())

        t, cpu = time.perf_counter(), time.process_time()
        await asyncio.gather(*(one(i) for i in range(n)))
        return time.perf_counter() - t, time.process_time() - cpu


async def _bare_httpx(url: str, n: int, conc: int, offset: int) -> tuple[float, float]:
    try:
        import httpx2 as httpx  # the transport of recent openai SDKs
    except ImportError:
        import httpx  # type: ignore[no-redef]  # older SDKs

    sem = asyncio.Semaphore(conc)
    limits = httpx.Limits(max_connections=conc, max_keepalive_connections=conc)
    async with httpx.AsyncClient(
        limits=limits, timeout=60, headers={"Authorization": f"Bearer {API_KEY}"}
    ) as c:

        async def one(i: int) -> None:
            async with sem:
                r = await c.post(url + "/chat/completions", json=_body(offset + i))
                r.raise_for_status()
                r.json()

        t, cpu = time.perf_counter(), time.process_time()
        await asyncio.gather(*(one(i) for i in range(n)))
        return time.perf_counter() - t, time.process_time() - cpu


async def _raw(url: str, n: int, conc: int, offset: int) -> tuple[float, float]:
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
            body = json.dumps(_body(offset + i)).encode()
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


ROWS = (
    "raw asyncio HTTP/1.1, no library",
    "bare aiohttp + semaphore",
    "bare httpx + semaphore",
    "benchsift stack, openai SDK transport (cold)",
    "benchsift stack, aiohttp transport (cold)",
    "benchsift stack, cached rerun",
    "benchsift stack without its cache, aiohttp (diagnostic)",
)


def _before_row(src: str) -> str:
    """The row of one ``--before-src`` tree (named by the folder holding its ``src``)."""
    return f"benchsift stack of {Path(src).resolve().parent.name}/src in a child process, aiohttp (cold)"


def _busy_loop() -> None:
    """A CPU hog for --busy: one process that only spins."""
    while True:
        pass


_CHILD = """
import asyncio, json, sys
sys.path.insert(0, {bench!r})
import bench_engine_throughput as B
asyncio.run(B._stack({url!r}, 64, {conc}, None, "aiohttp", 100 * {n}))  # warm-up, as the parent's
sys.stdin.readline()  # started, imported and warm: wait for the go
t, c, s = asyncio.run(B._stack({url!r}, {n}, {conc}, __import__("pathlib").Path({cache!r}), "aiohttp", 0))
print(json.dumps([t, c, s["requests"], s["cache_hits"]]))
"""


def _stack_before(src: str, url: str, n: int, conc: int, cache: Path) -> tuple[float, float, int, int]:
    """One cold stack run of the code in ``src`` (a child process; its start-up and imports are not timed)."""
    code = _CHILD.format(bench=str(ROOT / "benchmarks"), url=url, n=n, conc=conc, cache=str(cache))
    env = dict(os.environ, PYTHONPATH=src)
    child = subprocess.Popen(
        [sys.executable, "-c", code], env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
    )
    out, _ = child.communicate("go\n")
    if child.returncode != 0:
        raise RuntimeError(f"--before-src run failed (exit {child.returncode})")
    t, c, reqs, hits = json.loads(out.strip().splitlines()[-1])
    return float(t), float(c), int(reqs), int(hits)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=2000)
    ap.add_argument("--latency", type=float, default=0.05)
    ap.add_argument("--concurrency", type=int, default=64)
    ap.add_argument("--repeats", type=int, default=5, help="runs of every row (round robin over the rows)")
    ap.add_argument("--image-kb", type=int, default=0, help="attach an image of this size to every request")
    ap.add_argument("--json", default=None, help="also write the rows (all repeat times) to this file")
    ap.add_argument("--busy", type=int, default=0, help="busy-loop processes running during the timed runs")
    ap.add_argument(
        "--before-src",
        action="append",
        default=[],
        help="an older src/ tree: adds its stack as a row (repeatable)",
    )
    ap.add_argument(
        "--no-sdk", action="store_true", help="leave out the httpx and openai SDK rows (the slow ones)"
    )
    ap.add_argument(
        "--no-cache-row",
        action="store_true",
        help="add a row: the stack without its response cache (what the cache's writes cost; a run "
        "through the CLI always has one)",
    )
    args = ap.parse_args()
    skipped = ((ROWS[2], ROWS[3]) if args.no_sdk else ()) + (() if args.no_cache_row else (ROWS[6],))
    befores = {_before_row(src): src for src in args.before_src}
    rows = tuple(r for r in ROWS if r not in skipped) + tuple(befores)
    if args.image_kb > 0:
        IMAGE.append(image_data_url(random.Random(0).randbytes(args.image_kb * 1024)))
    n, conc = args.n, args.concurrency
    con = Console(width=160)
    con.print(machine_line())
    os.environ["BENCH_KEY"] = API_KEY
    tmp = Path(tempfile.mkdtemp())
    (tmp / "world.json").write_text("{}")
    port_file = tmp / "url"
    srv = subprocess.Popen(
        [
            sys.executable,
            str(ROOT / "tests" / "support" / "fake_server.py"),
            str(tmp / "world.json"),
            str(port_file),
            str(args.latency),
        ]
    )
    # per row: wall seconds, client CPU seconds, server requests, cache hits of every repeat
    wall: dict[str, list[float]] = {r: [] for r in rows}
    cpu: dict[str, list[float]] = {r: [] for r in rows}
    reqs: dict[str, list[int]] = {r: [] for r in rows}
    hits: dict[str, list[int]] = {r: [] for r in rows}

    def add(row: str, t: float, c: float, server: int, cache_hits: int = 0) -> None:
        wall[row].append(t)
        cpu[row].append(c)
        reqs[row].append(server)
        hits[row].append(cache_hits)

    try:
        while not port_file.exists():
            time.sleep(0.05)
        url = port_file.read_text()
        for transport in ("aiohttp",) if args.no_sdk else ("aiohttp", "openai"):  # warm-up (imports)
            asyncio.run(_stack(url, 64, conc, None, transport, 100 * n))
        import multiprocessing

        hogs = [multiprocessing.Process(target=_busy_loop, daemon=True) for _ in range(args.busy)]
        for hog in hogs:
            hog.start()
        # the same N requests in every row and every repeat; the rows take turns, so a burst of load
        # from elsewhere hits all of them; every cold stack run starts from an empty cache file
        for rep in range(args.repeats):
            t, c = asyncio.run(_raw(url, n, conc, 0))
            add(ROWS[0], t, c, n)
            t, c = asyncio.run(_bare_aiohttp(url, n, conc, 0))
            add(ROWS[1], t, c, n)
            if not args.no_sdk:
                t, c = asyncio.run(_bare_httpx(url, n, conc, 0))
                add(ROWS[2], t, c, n)
                t, c, s = asyncio.run(_stack(url, n, conc, tmp / f"sdk-{rep}.sqlite", "openai", 0))
                add(ROWS[3], t, c, s["requests"], s["cache_hits"])
            cache = tmp / f"cache-{rep}.sqlite"
            t, c, s = asyncio.run(_stack(url, n, conc, cache, "aiohttp", 0))
            add(ROWS[4], t, c, s["requests"], s["cache_hits"])
            before = _server_requests(url)
            t, c, s = asyncio.run(_stack(url, n, conc, cache, "aiohttp", 0))
            add(ROWS[5], t, c, _server_requests(url) - before, s["cache_hits"])
            if args.no_cache_row:
                t, c, s = asyncio.run(_stack(url, n, conc, None, "aiohttp", 0))
                add(ROWS[6], t, c, s["requests"], s["cache_hits"])
            for b, (row, src) in enumerate(befores.items()):
                t, c, r, h = _stack_before(src, url, n, conc, tmp / f"before-{b}-{rep}.sqlite")
                add(row, t, c, r, h)
    finally:
        for hog in locals().get("hogs", []):
            hog.terminate()
        srv.terminate()
        srv.wait()
    ideal = n * args.latency / conc
    con.print(
        f"N = {n} requests ({args.image_kb} KB image each, the same N in every row and repeat), latency "
        f"{args.latency * 1000:.0f} ms, concurrency {conc}; ideal time {ideal:.2f} s = "
        f"{n / ideal:.0f} req/s; {args.repeats} runs of every row, round robin; {args.busy} busy-loop "
        f"processes during the timed runs"
    )
    table = Table(title="engine client throughput (min / median over the runs; spread = range over the runs)")
    # client CPU per request: what the client process itself spends (the server runs in another
    # process); on a loaded machine the wall-clock columns are noisy, this one much less so
    cols = [
        "run",
        "seconds",
        "fraction of ideal",
        "spread of fraction",
        "client CPU ms/req",
        "vs bare aiohttp",
    ]
    cols += ["server requests", "cache hits"]
    for col in cols:
        table.add_column(col, justify="right" if col != "run" else "left")
    table.add_row("ideal (latency-bound)", f"{ideal:.2f}", "100 %", "-", "-", "-", str(n), "-")
    timings = {r: Timing(tuple(wall[r]), None) for r in rows}
    records: list[dict[str, object]] = []
    for row in rows:
        tm = timings[row]
        cached = "cached" in row
        frac = "-" if cached else f"{ideal / tm.min:.0%} / {ideal / tm.median:.0%}"
        spread = "-" if cached else f"{ideal / max(tm.seconds):.0%}..{ideal / tm.min:.0%}"
        vs = "-" if row == ROWS[1] else ratio_cell(tm, timings[ROWS[1]])
        table.add_row(
            row,
            tm.cell(),
            frac,
            spread,
            f"{min(cpu[row]) / n * 1e3:.2f} / {statistics.median(cpu[row]) / n * 1e3:.2f}",
            vs,
            f"{min(reqs[row])}..{max(reqs[row])}",
            "-" if row in ROWS[:3] else f"{min(hits[row])}..{max(hits[row])}",
        )
        records.append(
            {"workload": row, "baseline": "ideal", "ours": tm.seconds, "ideal": ideal, "cpu": cpu[row]}
        )
    con.print(table)
    cold = timings[ROWS[4]]
    con.print(
        f"vs bare aiohttp: bare aiohttp time / this row's time (min-ratio / median-ratio; < 1: slower "
        f"than bare aiohttp). target: default stack (aiohttp) cold >= 80 % of ideal -> "
        f"{'met' if ideal / cold.median >= 0.8 else 'NOT met'} at the median ({ideal / cold.median:.0%}; "
        f"{ideal / max(cold.seconds):.0%}..{ideal / cold.min:.0%} over the runs); cached rerun requests "
        f"at the server: {max(reqs[ROWS[5]])}; load average after: {load_average()}"
    )
    if args.json:
        with open(args.json, "w") as fh:
            json.dump({"script": "bench_engine_throughput", "rows": records}, fh)


if __name__ == "__main__":
    main()
