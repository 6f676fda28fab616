"""``gather_bounded``: the engine's scheduler (results in order, a bounded window, errors propagate)."""

from __future__ import annotations

import asyncio
import random

import pytest

from benchsift.prism.stage_io import gather_bounded


def test_results_in_input_order_with_at_most_window_running() -> None:
    running, peak, seen = 0, 0, []
    rng = random.Random(0)
    delays = [rng.random() * 0.01 for _ in range(200)]

    def job(i: int):
        async def run() -> int:
            nonlocal running, peak
            running += 1
            peak = max(peak, running)
            await asyncio.sleep(delays[i])
            running -= 1
            return i * i

        return run

    out = asyncio.run(
        gather_bounded([job(i) for i in range(200)], window=16, progress=lambda d, t: seen.append((d, t)))
    )
    assert out == [i * i for i in range(200)]
    assert peak == 16  # full, never over
    assert seen == [(d, 200) for d in range(201)]  # progress(done, total): the start, then each result
    assert asyncio.run(gather_bounded([], window=4)) == []


def _sleeping_jobs(n: int, delay, fails: int | None = None):
    """``n`` job factories: job ``i`` records its start, sleeps ``delay(i)`` seconds (recording a
    cancellation), then raises if it is job ``fails``, else returns ``i``; and the two records."""
    started: list[int] = []
    cancelled: list[int] = []

    def job(i: int):
        async def run() -> int:
            started.append(i)
            try:
                await asyncio.sleep(delay(i))
            except asyncio.CancelledError:
                cancelled.append(i)
                raise
            if i == fails:
                raise ValueError(f"item {i}")
            return i

        return run

    return [job(i) for i in range(n)], started, cancelled


def test_the_first_error_cancels_the_rest_and_propagates() -> None:
    jobs, started, cancelled = _sleeping_jobs(100, lambda i: 0.001 if i == 3 else 0.05, fails=3)

    async def go() -> None:
        with pytest.raises(ValueError, match="item 3"):
            await gather_bounded(jobs, window=8)
        assert all(t.done() for t in asyncio.all_tasks() if t is not asyncio.current_task())

    asyncio.run(go())
    assert sorted(started) == list(range(8))  # nothing new starts after the failure
    assert sorted(cancelled) == [0, 1, 2, 4, 5, 6, 7]  # the others in flight were cancelled


def test_cancelling_the_call_cancels_every_running_job_and_starts_no_more() -> None:
    jobs, started, cancelled = _sleeping_jobs(50, lambda i: 10.0)

    async def go() -> None:
        call = asyncio.ensure_future(gather_bounded(jobs, window=8))
        while len(started) < 8:
            await asyncio.sleep(0)
        call.cancel()
        with pytest.raises(asyncio.CancelledError):
            await call
        assert all(t.done() for t in asyncio.all_tasks() if t is not asyncio.current_task())

    asyncio.run(go())
    assert started == list(range(8))  # the window, and no job after the cancellation
    assert sorted(cancelled) == started
