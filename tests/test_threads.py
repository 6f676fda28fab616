"""The one thread policy: re-entrant, per thread, original pool sizes restored on the outermost exit."""

from __future__ import annotations

import threading

import numpy as np
from threadpoolctl import threadpool_info

from benchsift._threads import HOT_LOOP_THREADS, single_thread


def _pool_sizes() -> list[int]:
    np.ones(2) @ np.ones(2)  # make sure numpy's BLAS is loaded
    return [p["num_threads"] for p in threadpool_info()]


def test_nested_calls_keep_the_limit_and_restore() -> None:
    before = _pool_sizes()
    with single_thread():
        assert all(n == HOT_LOOP_THREADS for n in _pool_sizes())
        with single_thread():
            assert all(n == HOT_LOOP_THREADS for n in _pool_sizes())
        assert all(n == HOT_LOOP_THREADS for n in _pool_sizes())  # the inner exit keeps the outer limit
    assert _pool_sizes() == before


def test_another_thread_inside_and_out_leaves_this_threads_limit() -> None:
    before = _pool_sizes()
    seen: list[list[int]] = []

    def worker() -> None:
        with single_thread():
            seen.append(_pool_sizes())

    with single_thread():
        t = threading.Thread(target=worker)
        t.start()
        t.join(timeout=10)
        assert seen and all(n == HOT_LOOP_THREADS for n in seen[0])
        assert all(n == HOT_LOOP_THREADS for n in _pool_sizes())  # the worker's exit did not undo ours
    assert _pool_sizes() == before


def test_exception_inside_restores() -> None:
    before = _pool_sizes()
    try:
        with single_thread():
            raise RuntimeError("boom")
    except RuntimeError:
        pass
    assert _pool_sizes() == before
