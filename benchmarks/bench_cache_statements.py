"""Where the response cache's SQLite time goes, per request, against a plain answers table (issue 36).

benchsift: :meth:`SQLiteCache.write_batch` the way a run calls it, each transaction storing ``--batch``
answers and claiming as many next keys (the claims insert lease rows, the stores drop them), on a fresh cache
file (WAL, ``synchronous=NORMAL``, the checkpoint every 200 commits). Baseline: the least a durable
single-process answer store needs, a plain ``INSERT`` of the same rows into a table keyed by the request
key, one transaction per batch, on the same kind of file with SQLite's own automatic checkpoint (no leases,
so no sharing between processes). Both sides run the same N requests, alternating repeat by repeat, timed as
every script is (:mod:`_timing`, min / median); CPU seconds per request are printed beside the wall time.

Then one request's statements in their own transaction, each timed on its own (``--batch 1``): BEGIN
IMMEDIATE, the store, the lease drop, the lease insert, the two reads of a claim, COMMIT.

    python benchmarks/bench_cache_statements.py [--n 2000] [--batch 1] [--repeats 5]
"""

from __future__ import annotations

import argparse
import collections
import sqlite3
import statistics
import sys
import tempfile
import time
from pathlib import Path

from _timing import machine_line, timed_pair

from benchsift.clients.base import Request, Response, canonical_json
from benchsift.clients.cache_sqlite import SQLiteCache

RESPONSE = Response(
    text="The answer is yes. " * 20, finish_reason="stop", prompt_tokens=50, completion_tokens=40
)


def _requests(n: int) -> tuple[list[Request], list[str]]:
    reqs = [
        Request(
            model="judge", messages=({"role": "user", "content": f"Question {i}: is the answer correct?"},)
        )
        for i in range(n + 1)
    ]
    return reqs, [r.key("http://judge") for r in reqs]


def run_cache(folder: Path, reqs: list[Request], keys: list[str], batch: int) -> float:
    """Every request stored and the next claimed through ``write_batch``; returns CPU seconds."""
    cache = SQLiteCache(folder / f"cache-{time.perf_counter_ns()}.sqlite")
    cpu = time.process_time()
    n = len(keys) - 1
    cache.write_batch([], [], keys[:batch])
    for lo in range(0, n, batch):
        hi = min(lo + batch, n)
        rows = [(keys[i], "http://judge", reqs[i], RESPONSE) for i in range(lo, hi)]
        cache.write_batch(rows, [], keys[hi : min(hi + batch, n)])
    cpu = time.process_time() - cpu
    cache.close()
    return cpu


def run_plain(folder: Path, reqs: list[Request], keys: list[str], batch: int) -> float:
    """The baseline: the same rows into a plain table, one transaction per batch; returns CPU seconds."""
    conn = sqlite3.connect(folder / f"plain-{time.perf_counter_ns()}.sqlite", isolation_level=None)
    conn.execute("PRAGMA journal_mode=WAL")
    conn.execute("PRAGMA synchronous=NORMAL")
    conn.execute("CREATE TABLE answers (key TEXT PRIMARY KEY, request TEXT, response TEXT)")
    cpu = time.process_time()
    n = len(keys) - 1
    for lo in range(0, n, batch):
        rows = [
            (keys[i], reqs[i].canonical, canonical_json(RESPONSE.to_dict()))
            for i in range(lo, min(lo + batch, n))
        ]
        conn.execute("BEGIN IMMEDIATE")
        conn.executemany("INSERT INTO answers VALUES (?, ?, ?) ON CONFLICT (key) DO NOTHING", rows)
        conn.execute("COMMIT")
    cpu = time.process_time() - cpu
    conn.close()
    return cpu


def statement_costs(folder: Path, reqs: list[Request], keys: list[str]) -> dict[str, float]:
    """Microseconds per request of each statement of a one-request transaction, on the cache's connection."""
    cache = SQLiteCache(folder / "statements.sqlite")
    conn, owner, now = cache._conn, cache.owner, cache._now_sql
    spent: dict[str, float] = collections.defaultdict(float)
    steps = [
        ("BEGIN IMMEDIATE", "BEGIN IMMEDIATE", lambda i: ()),
        (
            "store the answer",
            "INSERT INTO responses (key, endpoint, request, response, created) "
            f"VALUES (?, ?, ?, ?, {now}) ON CONFLICT (key) DO NOTHING",
            lambda i: (keys[i], "u", reqs[i].canonical, canonical_json(RESPONSE.to_dict())),
        ),
        ("drop its lease", "DELETE FROM leases WHERE key = ? AND owner = ?", lambda i: (keys[i], owner)),
        (
            "lease the next key",
            f"INSERT INTO leases (key, owner, expires) VALUES (?, ?, {now} + ?) ON CONFLICT (key) DO NOTHING",
            lambda i: (keys[i + 1], owner, 30.0),
        ),
        (
            "read its lease",
            f"SELECT key, owner, expires, {now} FROM leases WHERE key IN (?)",
            lambda i: (keys[i + 1],),
        ),
        (
            "look for its answer",
            "SELECT key, response FROM responses WHERE key IN (?)",
            lambda i: (keys[i + 1],),
        ),
        ("COMMIT", "COMMIT", lambda i: ()),
    ]
    n = len(keys) - 1
    for i in range(n):
        for name, sql, params in steps:
            args = params(i)
            t = time.perf_counter()
            conn.execute(sql, args).fetchall()
            spent[name] += time.perf_counter() - t
        cache._commits = 0  # these commits are not counted for the checkpoint: none runs while timing
    cache.close()
    return {name: spent[name] / n * 1e6 for name, _, _ in steps}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=2000)
    ap.add_argument("--batch", type=int, default=1, help="requests per transaction")
    ap.add_argument("--repeats", type=int, default=5)
    args = ap.parse_args()
    print(machine_line())
    reqs, keys = _requests(args.n)
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        cpu: dict[str, list[float]] = {"benchsift": [], "plain": []}

        def ours() -> None:
            cpu["benchsift"].append(run_cache(folder, reqs, keys, args.batch))

        def plain() -> None:
            cpu["plain"].append(run_plain(folder, reqs, keys, args.batch))

        t_ours, t_plain = timed_pair(ours, plain, args.repeats)
        per = 1e6 / args.n
        print(f"{args.n} requests, {args.batch} per transaction, {args.repeats} repeats (min / median)")
        for name, t in (("benchsift write_batch", t_ours), ("plain INSERT table", t_plain)):
            side = cpu["benchsift" if name.startswith("benchsift") else "plain"]
            print(
                f"  {name:<22} wall {t.min * per:6.1f} / {t.median * per:6.1f} us per request, "
                f"CPU {min(side) * per:6.1f} / {statistics.median(side) * per:6.1f} us"
            )
        ratio = f"{t_plain.min / t_ours.min:.2f}x / {t_plain.median / t_ours.median:.2f}x"
        print(f"  plain / benchsift (wall): {ratio}")
        print("one request's statements in their own transaction (us per request, one pass):")
        for name, us in statement_costs(folder, reqs, keys).items():
            print(f"  {name:<20} {us:6.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
