"""Scheduling cost of the engine's ``gather_bounded`` (prism build / run / grade) against the
``asyncio.wait(FIRST_COMPLETED)`` loop it replaced, in the same process.

Each job awaits a short sleep (a stand-in for an HTTP reply) and returns. The wait loop re-registers a
callback on every pending task after every completion batch, so its cost grows with N x window; the worker
pool pulls jobs from one iterator and costs O(1) per job. The paper's full run is 42 models x 7 axes x
6,238 items, about 1.8 million requests.

Usage: ``python benchmarks/bench_engine_scheduling.py [--n 20000 100000] [--window 4096]``
"""

from __future__ import annotations

import argparse
import asyncio
import os
import platform
import time
from collections.abc import Awaitable, Callable, Coroutine, Sequence
from typing import Any

from rich.console import Console
from rich.table import Table

from benchsift.prism._engine import gather_bounded


async def wait_loop(factories: Sequence[Callable[[], Awaitable[Any]]], window: int) -> list[Any]:
    """The previous scheduler: keep ``window`` tasks, ``asyncio.wait`` for the first to finish."""
    results: list[Any] = [None] * len(factories)
    it = iter(enumerate(factories))
    pending: set[asyncio.Task[tuple[int, Any]]] = set()

    async def one(i: int, f: Callable[[], Awaitable[Any]]) -> tuple[int, Any]:
        return i, await f()

    def fill() -> None:
        for i, f in it:
            pending.add(asyncio.ensure_future(one(i, f)))
            if len(pending) >= window:
                break

    fill()
    while pending:
        done, _ = await asyncio.wait(pending, return_when=asyncio.FIRST_COMPLETED)
        for t in done:
            pending.discard(t)
            i, r = t.result()
            results[i] = r
        fill()
    return results


def jobs(n: int) -> list[Callable[[], Awaitable[int]]]:
    def job(i: int) -> Callable[[], Awaitable[int]]:
        async def run() -> int:
            await asyncio.sleep(0.001 * (i % 7))
            return i

        return run

    return [job(i) for i in range(n)]


def timed(coro: Coroutine[Any, Any, list[Any]]) -> tuple[float, float, list[Any]]:
    t, cpu = time.perf_counter(), time.process_time()
    out = asyncio.run(coro)
    return time.perf_counter() - t, time.process_time() - cpu, out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, nargs="+", default=[20_000, 100_000])
    ap.add_argument("--window", type=int, default=4096)
    args = ap.parse_args()
    con = Console(width=120)
    con.print(
        f"machine: {platform.machine()} {platform.system()}, {os.cpu_count()} CPUs, Python "
        f"{platform.python_version()}, load avg {os.getloadavg()[0]:.2f}; window {args.window}"
    )
    table = Table(title="engine scheduler: N short jobs (sleeps of 0-6 ms)")
    for col in ("N", "scheduler", "seconds", "CPU seconds", "CPU us/job", "same results"):
        table.add_column(col, justify="right" if col != "scheduler" else "left")
    for n in args.n:
        t_new, c_new, r_new = timed(gather_bounded(jobs(n), window=args.window))
        t_old, c_old, r_old = timed(wait_loop(jobs(n), args.window))
        same = str(r_new == r_old == list(range(n)))
        table.add_row(
            f"{n:,}",
            "gather_bounded (workers)",
            f"{t_new:.2f}",
            f"{c_new:.2f}",
            f"{c_new / n * 1e6:.0f}",
            same,
        )
        table.add_row(
            f"{n:,}",
            "asyncio.wait loop (before)",
            f"{t_old:.2f}",
            f"{c_old:.2f}",
            f"{c_old / n * 1e6:.0f}",
            same,
        )
    con.print(table)


if __name__ == "__main__":
    main()
