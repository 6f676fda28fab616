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
reads every library's full info first). The depth is kept for the whole process, under a lock: OpenBLAS's
thread count is one setting of the process, not of the calling thread, so when Stage 2's category threads or
the ``threading`` backend's workers enter at once, the first to enter sets the limit and the last to leave
sets the pools back (a per-thread depth let the first thread to leave restore two BLAS threads while another
was still computing, and the ``threading`` backend's numbers then differed from the other backends').
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
_DEPTH = 0  # blocks open in the whole process (every thread, nested ones too)
_RESTORE: list[tuple[Any, int]] = []  # (pool controller, its size) to set back when the last block ends


def _controller() -> ThreadpoolController:
    global _CONTROLLER
    if _CONTROLLER is None:
        _CONTROLLER = ThreadpoolController()
    return _CONTROLLER


@contextmanager
def single_thread() -> Iterator[None]:
    """Limit BLAS and OpenMP to ``HOT_LOOP_THREADS`` inside the block (re-entrant; shared by every thread:
    the pools are set back when the last open block of the process ends)."""
    global _DEPTH
    with _LOCK:
        if _DEPTH == 0:
            _RESTORE.clear()
            for lib in _controller().lib_controllers:
                n = lib.num_threads
                if n != HOT_LOOP_THREADS:
                    lib.set_num_threads(HOT_LOOP_THREADS)
                    _RESTORE.append((lib, n))
        _DEPTH += 1
    try:
        yield
    finally:
        with _LOCK:
            _DEPTH -= 1
            if _DEPTH == 0:
                for lib, n in _RESTORE:
                    lib.set_num_threads(n)
                _RESTORE.clear()
