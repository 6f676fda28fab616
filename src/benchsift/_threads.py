"""The one thread policy of benchsift's hot loops: BLAS and OpenMP pools limited to one thread.

Stage 2 cells, IRT fits, correlation matrices and protocol sweeps run thousands of small k-means,
matrix-vector, matrix-product and EM problems; a threaded BLAS or OpenMP pool costs more in start-up and
spin-waiting than it saves on them, and on a loaded machine far more. Measured on the 2-core development
machine (min / median; one thread against the default pool of two):

* ``weighted_group_means`` of the validate scoring (85 held-out models x 3,088 items, 6 kept-item sets):
  0.71 / 0.82 ms against 0.52 / 34 ms; a (15 x 386k) @ (386k x 108) product 221 / 235 ms against
  287 / 1,620 ms; one VAW selection 0.18 s against 2.5 s;
* ``corr_matrix`` 169 x 200 (``benchmarks/bench_stats.py``): Pearson 18x, Kendall 4.5x (1.9x with 5 % NaN),
  Spearman 1.2x faster at the median; the single matrix-vector product of Pearson / R^2 / Spearman
  ``corr_with_vector`` gains nothing (0.9-1.0x), so those paths run without the limit, as does Kendall's
  (column sums of row-pair signs, no BLAS product large enough to be threaded);
* the 2PL fit on 200 x 3,000 (``benchmarks/bench_irt.py``): 2.1-2.9x faster under load, 0.88-1.0x on a
  quiet machine.

Parallelism comes from the tasks instead (joblib in the protocols, threads over categories in Stage 2).

This module is a leaf (it imports nothing of benchsift), like :mod:`benchsift.errors`, so every layer may
use it, ``stats`` and ``irt`` included: the policy is this one function and ``HOT_LOOP_THREADS``. The
threadpoolctl controller is built once, on first use (``threadpool_limits(limits=1)`` per call inspects every
loaded library each time, 3-7 ms). Nested calls share the outermost call's limit; the outermost call sets
only the pools not already at ``HOT_LOOP_THREADS`` and sets them back on exit, through their controllers
directly (enter and exit ~5 us with two OpenBLAS pools, against ~11 us through ``controller.limit``, which
reads every library's full info first). A BLAS pool's size is one setting of the process (OpenBLAS's), so
it is set by the first thread to open a block and set back by the last to close one, under a lock: when
Stage 2's category threads or the ``threading`` backend's workers enter at once, a per-thread restore let the
first thread to leave give another, still computing, two BLAS threads (the ``threading`` backend's numbers
then differed from the other backends'). An OpenMP pool's size is each thread's own (``omp_set_num_threads``
sets the calling thread's), so each thread's outermost block sets and restores it. OpenBLAS also ignores a
worker thread's change once the main thread has set the size: a pool of threads is therefore run inside a
block of the thread that starts it (Stage 2, :func:`benchsift.parallel.sweep_backend`).
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from threadpoolctl import ThreadpoolController

__all__ = ["HOT_LOOP_THREADS", "single_thread"]

#: BLAS / OpenMP threads inside benchsift's hot loops (chosen by measurement, see the module docstring).
HOT_LOOP_THREADS = 1

_LOCK = threading.Lock()
_CONTROLLER: ThreadpoolController | None = None
_DEPTH = 0  # threads inside a block, in the whole process
_RESTORE: list[tuple[Any, int]] = []  # (process-wide pool, its size) to set back when the last block ends
_LOCAL = threading.local()  # per thread: its depth and its OpenMP pools' sizes to set back


def _controller() -> ThreadpoolController:
    global _CONTROLLER
    if _CONTROLLER is None:
        _CONTROLLER = ThreadpoolController()
    return _CONTROLLER


def _limit(libs: list[Any]) -> list[tuple[Any, int]]:
    """Set each pool not at the limit to it; returns (pool, its size before) of those."""
    changed = []
    for lib in libs:
        n = lib.num_threads
        if n != HOT_LOOP_THREADS:
            lib.set_num_threads(HOT_LOOP_THREADS)
            changed.append((lib, n))
    return changed


@contextmanager
def single_thread() -> Iterator[None]:
    """Limit BLAS and OpenMP to ``HOT_LOOP_THREADS`` inside the block (re-entrant). A BLAS pool's size is one
    setting of the process: set by the first block to open in any thread, set back when the last one ends.
    An OpenMP pool's size is each thread's own: set and set back by each thread's outermost block."""
    global _DEPTH
    depth = getattr(_LOCAL, "depth", 0)
    if depth == 0:
        libs = _controller().lib_controllers
        with _LOCK:
            if _DEPTH == 0:
                _RESTORE[:] = _limit([lib for lib in libs if lib.user_api != "openmp"])
            _DEPTH += 1
        _LOCAL.restore = _limit([lib for lib in libs if lib.user_api == "openmp"])
    _LOCAL.depth = depth + 1
    try:
        yield
    finally:
        _LOCAL.depth = depth
        if depth == 0:
            for lib, n in _LOCAL.restore:
                lib.set_num_threads(n)
            with _LOCK:
                _DEPTH -= 1
                if _DEPTH == 0:
                    for lib, n in _RESTORE:
                        lib.set_num_threads(n)
                    _RESTORE.clear()
