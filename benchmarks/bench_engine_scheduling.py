"""Scheduling cost of the engine's ``gather_bounded`` (prism build / run / grade) against the strongest simple
baselines and the loop it replaced, in the same process: each pair timed with ``_timing.timed_pair``
(alternating, the same ``--repeats``, min and median), the results asserted identical.

* simple baseline, ``asyncio.Semaphore + gather``: the textbook bound, one task per job up front;
* simple baseline, ``worker pool (shared iterator)``: ``window`` worker coroutines pulling ``(index, job)``
  from one shared iterator, ``gather`` of the workers (about ten lines; gather_bounded is this plus
  progress and cancelling the rest on the first error);
* strawman, ``asyncio.wait loop (previous implementation)``: benchsift's own scheduler before, kept as a
  reference point, not the comparison to quote.

The headline per N is the ratio against the faster (by median) of the two simple baselines, printed
under the table.

Each job awaits a short sleep (a stand-in for an HTTP reply) and returns. The wait loop re-registers a
callback on every pending task after every completion batch, so its cost grows with N x window; the worker
pool pulls jobs from one iterator and costs O(1) per job. The paper's full run is 42 models x 7 axes x
6,238 items, about 1.8 million requests.

Usage: ``python benchmarks/bench_engine_scheduling.py [--n 20000 100000] [--window 4096] [--repeats 3]
[--json FILE]``
"""

from __future__ import annotations

import argparse
import asyncio
import json
import time
from collections.abc import Awaitable, Callable, Coroutine, Sequence
from functools import partial
from typing import Any

from _timing import Timing, load_average, machine_line, ratio_cell, timed_pair
from rich.console import Console
from rich.table import Table

from benchsift.prism.stage_io import gather_bounded


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


async def semaphore_gather(factories: Sequence[Callable[[], Awaitable[Any]]], window: int) -> list[Any]:
    """The textbook bound: one task per job up front, an ``asyncio.Semaphore(window)``, ``gather``."""
    sem = asyncio.Semaphore(window)

    async def one(f: Callable[[], Awaitable[Any]]) -> Any:
        async with sem:
            return await f()

    return await asyncio.gather(*(one(f) for f in factories))


async def worker_pool(factories: Sequence[Callable[[], Awaitable[Any]]], window: int) -> list[Any]:
    """``window`` worker coroutines pulling ``(index, job)`` from one shared iterator, gathered."""
    results: list[Any] = [None] * len(factories)
    todo = iter(enumerate(factories))

    async def worker() -> None:
        for i, f in todo:  # next() never yields to the event loop: each job taken once
            results[i] = await f()

    await asyncio.gather(*(worker() for _ in range(min(window, len(factories)))))
    return results


SIMPLE = ("simple: asyncio.Semaphore + gather", "simple: worker pool (shared iterator)")
SCHEDULERS: dict[
    str, Callable[[Sequence[Callable[[], Awaitable[Any]]], int], Coroutine[Any, Any, list[Any]]]
] = {
    SIMPLE[0]: semaphore_gather,
    SIMPLE[1]: worker_pool,
    "strawman: asyncio.wait loop (previous implementation)": wait_loop,
}


def _run(coro_fn: Callable[[], Coroutine[Any, Any, list[Any]]], cpu: list[float]) -> list[Any]:
    """One ``asyncio.run`` of a scheduler; its process CPU seconds are appended to ``cpu``."""
    c = time.process_time()
    out = asyncio.run(coro_fn())
    cpu.append(time.process_time() - c)
    return out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, nargs="+", default=[20_000, 100_000])
    ap.add_argument("--window", type=int, default=4096)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--json", default=None, help="also write the rows (all repeat times) to this file")
    args = ap.parse_args()
    con = Console(width=160)
    con.print(machine_line())
    con.print(f"window {args.window}; min / median of {args.repeats} alternated runs (asyncio.run each)")
    table = Table(title="engine scheduler: N short jobs (sleeps of 0-6 ms)")
    for col in ("N", "baseline", "gather_bounded s", "baseline s", "speed-up", "", "CPU us/job ours / base"):
        table.add_column(col, justify="right" if col != "baseline" else "left", no_wrap=col == "baseline")
    records: list[dict[str, object]] = []
    headlines: list[str] = []
    for n in args.n:
        factories = jobs(n)
        simple: dict[str, tuple[Timing, Timing]] = {}
        for name, sched in SCHEDULERS.items():
            cpu: dict[str, list[float]] = {"ours": [], "base": []}
            ours, base = timed_pair(
                partial(_run, partial(gather_bounded, factories, window=args.window), cpu["ours"]),
                partial(_run, partial(sched, factories, args.window), cpu["base"]),
                args.repeats,
            )
            assert ours.result == base.result == list(range(n)), f"{name}: different results"
            table.add_row(
                f"{n:,}",
                name,
                ours.cell(),
                base.cell(),
                ratio_cell(ours, base),
                "[bold red]benchsift SLOWER[/]" if base.median < ours.median else "",
                f"{min(cpu['ours']) / n * 1e6:.0f} / {min(cpu['base']) / n * 1e6:.0f}",
            )
            records.append(
                {"workload": f"N={n}", "baseline": name, "ours": ours.seconds, "base": base.seconds}
            )
            if name in SIMPLE:
                simple[name] = (ours, base)
        best = min(simple, key=lambda k: simple[k][1].median)
        headlines.append(
            f"N = {n:,}: against the faster simple baseline ({best.removeprefix('simple: ')}): "
            f"{ratio_cell(*simple[best])} (min / median)"
        )
    con.print(table)
    for line in headlines:
        con.print(line)
    con.print(f"same results (the job indices in order) on every side; load average after: {load_average()}")
    if args.json:
        with open(args.json, "w") as fh:
            json.dump({"script": "bench_engine_scheduling", "rows": records}, fh)


if __name__ == "__main__":
    main()
