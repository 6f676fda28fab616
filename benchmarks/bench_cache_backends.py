"""Claims and puts per second on the two response-cache backends, with 1, 2 and 4 processes at once.

Each worker process opens the cache (a ``ResponseCache``: an SQLite file, or a database on a PostgreSQL
server this script starts with ``tests/support/pg_server.py`` with the server's durable defaults; the cache
commits asynchronously by default, row ``postgresql``, or waits for each WAL flush, row ``pg durable``),
waits for a common start, then goes through its keys: ``claim(key)`` and, when claimed,
``put(key, ...)`` of a 300-byte response, which is what the engine does for every request it sends (the
HTTP exchange left out: this measures the cache alone). Two layouts:

* ``disjoint``: 4,000 keys (``--keys``) split among the processes (processes running different models);
* ``shared``: every process goes through the same 2,000 keys (half of ``--keys``) in its own shuffled
  order (the same run started several times): each key is claimed once over all processes; a process that
  finds a key held moves on and comes back to it at the end.

Baseline, beside each backend (rows ``... baseline``): the strongest simple cache a good programmer would
write in about ten lines, doing the same durable writes: one table ``responses (key PRIMARY KEY, endpoint,
request, response, created)``, one connection per process in autocommit (every statement its own committed
transaction, so each claim and each answer is durable as soon as the call returns, as benchsift's are), the
claim an ``INSERT OR IGNORE`` (SQLite) / ``INSERT ... ON CONFLICT (key) DO NOTHING`` (PostgreSQL) of a row
with no response (inserted: claimed; else a read of the row: answered, or held when its response is still
NULL), the store an ``UPDATE`` of that row with the same request and response text benchsift stores. SQLite
in WAL mode with ``synchronous=NORMAL`` (benchsift's setting); PostgreSQL with ``synchronous_commit = off``
beside ``postgresql`` and the server's default (on) beside ``pg durable``. What the baseline leaves out:
leases. A claim is a row with a NULL response and no owner or expiry, so a process killed with ``kill -9``
between its claim and its store leaves the key "held" for ever (every later run skips it until someone
deletes the row by hand), where benchsift's lease expires (``lease_ttl``) or is taken over at once when its
owner process is gone; no renewal thread; no owner check on the store; no refusal of a file that is not a
cache (empty file, another SQLite database); no batched claims and stores (``claim_many`` /
``write_batch``, which the engine uses and this benchmark does not). One difference runs the other way: the
baseline's claim writes a row of the (logged) answers table, so beside ``pg durable`` each of its claims
waits for a WAL flush, where benchsift's leases are an UNLOGGED table and only its stores wait.

The table shows, per backend and process count, the wall time from the start to the last worker's end (min
and median over the repeats, all backends alternated within each repeat), the keys answered per second and
the cache operations (claims + puts) per second over all processes (best repeat), and on each benchsift row
the speed-up over its baseline (baseline wall / benchsift wall, of the minima / of the medians; below 1:
benchsift is slower). Run it with the test extra installed (psycopg) and PostgreSQL's server binaries
(``.ci/run`` installs Debian's ``postgresql``)::

    .venv/bin/python benchmarks/bench_cache_backends.py [--repeats 3] [--procs 1,2,4] [--keys 4000]
"""

from __future__ import annotations

import argparse
import json
import multiprocessing as mp
import random
import sqlite3
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from _timing import Timing, load_average, machine_line, ratio_cell
from rich.console import Console
from rich.table import Table

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests" / "support"))

from pg_server import PostgresServer  # noqa: E402

from benchsift.clients.base import Request, Response  # noqa: E402
from benchsift.clients.cache import ResponseCache  # noqa: E402
from benchsift.clients.cache_postgres import PostgresCache  # noqa: E402

#: each benchsift backend followed by its baseline (alternated in this order within a repeat)
BACKENDS = tuple(b for name in ("sqlite", "postgresql", "pg durable") for b in (name, f"{name} baseline"))
REQ = Request(model="bench", messages=({"role": "user", "content": "x" * 200},))
RESP = Response(text="y" * 300, finish_reason="stop", prompt_tokens=50, completion_tokens=80)
_TABLE = (
    "CREATE TABLE IF NOT EXISTS responses (key TEXT PRIMARY KEY, endpoint TEXT, request TEXT, response TEXT, "
    "created REAL)"
)


class PlainCache:
    """The baseline (module docstring): one table, claim = insert-if-absent, store = update, autocommit."""

    def __init__(self, location: str) -> None:
        self.pg = location.startswith(("postgresql://", "durable+"))
        if self.pg:
            import psycopg

            self.conn: Any = psycopg.connect(location.removeprefix("durable+"), autocommit=True)
            if not location.startswith("durable+"):
                self.conn.execute("SET synchronous_commit = off")
            self.claim_sql = "INSERT INTO responses (key) VALUES (%s) ON CONFLICT (key) DO NOTHING"
        else:
            self.conn = sqlite3.connect(location, timeout=30.0, isolation_level=None)  # autocommit
            self.conn.execute("PRAGMA journal_mode=WAL")
            self.conn.execute("PRAGMA synchronous=NORMAL")
            self.claim_sql = "INSERT OR IGNORE INTO responses (key) VALUES (?)"
        self.mark = "%s" if self.pg else "?"

    def claim(self, key: str) -> str:
        if self.conn.execute(self.claim_sql, (key,)).rowcount == 1:
            return "claimed"
        row = self.conn.execute(f"SELECT response FROM responses WHERE key = {self.mark}", (key,)).fetchone()
        return "held" if row[0] is None else "answered"

    def put(self, key: str, endpoint: str, request: Request, response: Response) -> None:
        m = self.mark
        self.conn.execute(
            f"UPDATE responses SET endpoint = {m}, request = {m}, response = {m}, created = {m} "
            f"WHERE key = {m}",
            (endpoint, request.canonical, json.dumps(response.to_dict(), sort_keys=True), time.time(), key),
        )

    def close(self) -> None:
        self.conn.close()


def _prepare_plain(location: str) -> None:
    """Create the baseline's table before the workers start (outside the timing, as benchsift's setup is)."""
    cache = PlainCache(location)
    cache.conn.execute(_TABLE.replace("REAL", "DOUBLE PRECISION") if cache.pg else _TABLE)
    cache.close()


def _open(location: str) -> ResponseCache | PlainCache:
    if location.startswith("plain+"):
        return PlainCache(location.removeprefix("plain+"))
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


def _run(location: str, n_proc: int, layout: str, total: int) -> tuple[float, int, int]:
    """One timed round: wall seconds from the common start to the last worker's end, claims, puts."""
    ctx = mp.get_context("spawn")
    ready, out, go = ctx.Queue(), ctx.Queue(), ctx.Event()
    if location.startswith("plain+"):
        _prepare_plain(location.removeprefix("plain+"))
    if layout == "disjoint":
        keys = [[f"k{j}" for j in range(i, total, n_proc)] for i in range(n_proc)]
    else:
        keys = [[f"k{j}" for j in range(total // 2)] for _ in range(n_proc)]
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
    ap.add_argument("--keys", type=int, default=4000, help="keys of the disjoint layout (shared: half)")
    args = ap.parse_args()
    procs = [int(x) for x in args.procs.split(",")]
    con = Console(width=150)
    con.print(machine_line())
    tmp = Path(tempfile.mkdtemp(prefix="bench-cache-"))
    import psycopg

    with PostgresServer(fsync=True) as srv:
        table = Table(title="response cache: claim + put per key, all processes together")
        cols = ("layout", "processes", "backend", "wall s (min / median)", "keys/s", "claims+puts/s")
        for col in (*cols, "speed-up"):
            table.add_column(col, justify="left" if col in ("layout", "backend") else "right")
        slower = []
        counter = 0
        for layout in ("disjoint", "shared"):
            for n in procs:
                runs: dict[str, list[tuple[float, int, int]]] = {b: [] for b in BACKENDS}
                for _ in range(args.repeats):
                    for backend in runs:  # alternated: a burst of load hits both
                        counter += 1
                        if backend.startswith("sqlite"):
                            where = str(tmp / f"c{counter}.sqlite")
                        else:
                            with psycopg.connect(srv.url, autocommit=True) as conn:
                                conn.execute(f"CREATE DATABASE b{counter}")
                            where = srv.url.rsplit("/", 1)[0] + f"/b{counter}"
                            if backend.startswith("pg durable"):
                                where = f"durable+{where}"
                        if backend.endswith("baseline"):
                            where = f"plain+{where}"
                        runs[backend].append(_run(where, n, layout, args.keys))
                walls = {b: Timing(tuple(r[0] for r in rs), None) for b, rs in runs.items()}
                for backend, rs in runs.items():
                    best = min(rs)
                    speed = ""
                    if not backend.endswith("baseline"):
                        base = walls[f"{backend} baseline"]
                        speed = ratio_cell(walls[backend], base)
                        if base.median < walls[backend].median:
                            slower.append(f"{layout} {n} {backend}")
                    table.add_row(
                        layout,
                        str(n),
                        backend,
                        f"{walls[backend].min:.2f} / {statistics.median(walls[backend].seconds):.2f}",
                        f"{best[2] / best[0]:,.0f}",
                        f"{(best[1] + best[2]) / best[0]:,.0f}",
                        speed,
                    )
                    expected = args.keys if layout == "disjoint" else args.keys // 2
                    if any(r[2] != expected for r in rs):
                        stored = [r[2] for r in rs]
                        raise SystemExit(f"{layout} {n} {backend}: stored {stored}, not {expected}")
        con.print(table)
        con.print(
            f"speed-up: baseline wall / benchsift wall (min-ratio / median-ratio, {args.repeats} repeats); "
            "every run stored each key once (checked)"
        )
        if slower:
            con.print("benchsift SLOWER than its baseline (median) in: " + "; ".join(slower))
    con.print(f"load average after: {load_average()}")


if __name__ == "__main__":
    main()
