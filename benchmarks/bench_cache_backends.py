"""Claims and puts per second on the two response-cache backends, with 1, 2 and 4 processes at once.

Each worker process opens the cache (a ``ResponseCache``: an SQLite file, or a database on a PostgreSQL
server this script starts with ``tests/support/pg_server.py`` with the server's durable defaults; the cache
commits asynchronously by default, row ``postgresql``, or waits for each WAL flush, row ``pg durable``),
waits for a common start, then goes through its keys: ``claim(key)`` and, when claimed,
``put(key, ...)`` of a 300-byte response, which is what the engine does for every request it sends (the
HTTP exchange left out: this measures the cache alone). Two layouts:

* ``disjoint``: 4,000 keys split among the processes (processes running different models);
* ``shared``: every process goes through the same 2,000 keys in its own shuffled order (the same run
  started several times): each key is claimed once over all processes; a process that finds a key held
  moves on and comes back to it at the end.

The table shows, per backend and process count, the wall time from the start to the last worker's end (min
and median over the repeats, the backends alternated), the keys answered per second and the cache
operations (claims + puts) per second over all processes. Run it with the test extra installed (psycopg)
and PostgreSQL's server binaries (``.ci/run`` installs Debian's ``postgresql``)::

    .venv/bin/python benchmarks/bench_cache_backends.py [--repeats 3] [--procs 1,2,4]
"""

from __future__ import annotations

import argparse
import multiprocessing as mp
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

from _timing import load_average, machine_line
from rich.console import Console
from rich.table import Table

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests" / "support"))

from pg_server import PostgresServer  # noqa: E402

from benchsift.clients.base import Request, Response  # noqa: E402
from benchsift.clients.cache import ResponseCache  # noqa: E402
from benchsift.clients.cache_postgres import PostgresCache  # noqa: E402

BACKENDS = ("sqlite", "postgresql", "pg durable")
REQ = Request(model="bench", messages=({"role": "user", "content": "x" * 200},))
RESP = Response(text="y" * 300, finish_reason="stop", prompt_tokens=50, completion_tokens=80)


def _open(location: str) -> ResponseCache:
    if location.startswith("durable+"):
        return PostgresCache(location.removeprefix("durable+"), synchronous_commit=True)
    return ResponseCache(location)


def _worker(location: str, keys: list[str], seed: int, ready: object, go: object, out: object) -> None:
    cache = _open(location)
    order = keys[:]
    random.Random(seed).shuffle(order)
    claims = puts = 0
    ready.put(seed)  # type: ignore[attr-defined]
    go.wait()  # type: ignore[attr-defined]
    while order:
        later = []
        for key in order:
            claims += 1
            state = cache.claim(key)
            if state == "claimed":
                cache.put(key, "bench", REQ, RESP)
                puts += 1
            elif state == "held":
                later.append(key)
        order = later
    cache.close()
    out.put((claims, puts))  # type: ignore[attr-defined]


def _run(location: str, n_proc: int, layout: str) -> tuple[float, int, int]:
    """One timed round: wall seconds from the common start to the last worker's end, claims, puts."""
    ctx = mp.get_context("spawn")
    ready, out, go = ctx.Queue(), ctx.Queue(), ctx.Event()
    if layout == "disjoint":
        total = 4000
        keys = [[f"k{j}" for j in range(i, total, n_proc)] for i in range(n_proc)]
    else:
        keys = [[f"k{j}" for j in range(2000)] for _ in range(n_proc)]
    procs = [ctx.Process(target=_worker, args=(location, keys[i], i, ready, go, out)) for i in range(n_proc)]
    for p in procs:
        p.start()
    for _ in procs:
        ready.get(timeout=120)
    t0 = time.perf_counter()
    go.set()
    results = [out.get(timeout=600) for _ in procs]
    wall = time.perf_counter() - t0
    for p in procs:
        p.join()
    return wall, sum(r[0] for r in results), sum(r[1] for r in results)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--procs", default="1,2,4")
    args = ap.parse_args()
    procs = [int(x) for x in args.procs.split(",")]
    con = Console()
    con.print(machine_line())
    tmp = Path(tempfile.mkdtemp(prefix="bench-cache-"))
    import psycopg

    with PostgresServer(fsync=True) as srv:
        table = Table(title="response cache: claim + put per key, all processes together")
        for col in ("layout", "processes", "backend", "wall s (min / median)", "keys/s", "claims+puts/s"):
            table.add_column(col, justify="left" if col in ("layout", "backend") else "right")
        counter = 0
        for layout in ("disjoint", "shared"):
            for n in procs:
                runs: dict[str, list[tuple[float, int, int]]] = {b: [] for b in BACKENDS}
                for _ in range(args.repeats):
                    for backend in runs:  # alternated: a burst of load hits both
                        counter += 1
                        if backend == "sqlite":
                            where = str(tmp / f"c{counter}.sqlite")
                        else:
                            with psycopg.connect(srv.url, autocommit=True) as conn:
                                conn.execute(f"CREATE DATABASE b{counter}")
                            where = srv.url.rsplit("/", 1)[0] + f"/b{counter}"
                            if backend == "pg durable":
                                where = f"durable+{where}"
                        runs[backend].append(_run(where, n, layout))
                for backend, rs in runs.items():
                    walls = [r[0] for r in rs]
                    best = min(rs)
                    keys = best[2]
                    table.add_row(
                        layout,
                        str(n),
                        backend,
                        f"{min(walls):.2f} / {statistics.median(walls):.2f}",
                        f"{keys / best[0]:,.0f}",
                        f"{(best[1] + best[2]) / best[0]:,.0f}",
                    )
        con.print(table)
    con.print(f"load average after: {load_average()}")


if __name__ == "__main__":
    main()
