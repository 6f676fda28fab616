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
  ``corr_with_vector`` gains nothing (0.9-1.0x), so those paths run without the limit;
* the 2PL fit on 200 x 3,000 (``benchmarks/bench_irt.py``): 2.1-2.9x faster under load, 0.88-1.0x on a
  quiet machine.

Parallelism comes from the tasks instead (joblib in the protocols, threads over categories in Stage 2).

This module is a leaf (it imports nothing of benchsift), like :mod:`benchsift.errors`, so every layer may
use it, ``stats`` and ``irt`` included: the policy is this one function and ``HOT_LOOP_THREADS``. The
threadpoolctl controller is built once, on first use (``threadpool_limits(limits=1)`` per call inspects every
loaded library each time, 3-7 ms). Nested calls share the outermost call's limit, and the pools are left
alone when they already run ``HOT_LOOP_THREADS`` (reading costs ~1 us, setting 20-50 us). The depth is kept
per thread (Stage 2's category threads each enter on their own): the bundled OpenBLAS keeps its thread count
per calling thread, so each thread sets and restores its own.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager

from threadpoolctl import ThreadpoolController

__all__ = ["HOT_LOOP_THREADS", "single_thread"]

#: BLAS / OpenMP threads inside benchsift's hot loops (chosen by measurement, see the module docstring).
HOT_LOOP_THREADS = 1

_LOCK = threading.Lock()
_CONTROLLER: ThreadpoolController | None = None
_LOCAL = threading.local()  # per thread: nesting depth and the limiter to undo on the outermost exit


def _controller() -> ThreadpoolController:
    global _CONTROLLER
    with _LOCK:
        if _CONTROLLER is None:
            _CONTROLLER = ThreadpoolController()
        return _CONTROLLER


@contextmanager
def single_thread() -> Iterator[None]:
    """Limit BLAS and OpenMP to ``HOT_LOOP_THREADS`` inside the block (re-entrant; each thread its own)."""
    depth = getattr(_LOCAL, "depth", 0)
    if depth == 0:
        controller = _controller()
        pools = controller.lib_controllers
        _LOCAL.limiter = (
            controller.limit(limits=HOT_LOOP_THREADS)
            if any(lib.num_threads != HOT_LOOP_THREADS for lib in pools)
            else None
        )
    _LOCAL.depth = depth + 1
    try:
        yield
    finally:
        _LOCAL.depth -= 1
        if _LOCAL.depth == 0 and _LOCAL.limiter is not None:
            _LOCAL.limiter.restore_original_limits()
            _LOCAL.limiter = None
