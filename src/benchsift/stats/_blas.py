"""One BLAS thread around the matrix-product loops of ``benchsift.stats`` (private).

``corr_matrix`` (a few medium products, or one product per row block for Kendall) and Kendall's
``corr_with_vector`` (one matrix-vector product per row) run many small BLAS calls; a threaded OpenBLAS pool
costs more in hand-over and spin-waiting than it saves on them. Measured on a loaded 2-core machine
(``benchmarks/bench_stats.py`` data, default pool / one thread, medians): ``corr_matrix`` 169 x 200 Pearson
18x, Kendall 4.5x (1.9x with 5 % NaN), Spearman 1.2x; Kendall ``corr_with_vector`` 169 x 1000 1.16x; the
single matrix-vector product of Pearson / R² / Spearman ``corr_with_vector`` gains nothing (0.9-1.0x), so
those paths run without a limit.

This is the policy of :mod:`benchsift._threads` (one thread in hot loops), kept here because
``benchsift.stats`` is the bottom layer and imports nothing of benchsift but :mod:`benchsift.errors`. It does
not call ``threadpoolctl.threadpool_limits(limits=1)`` per call: that inspects every loaded library each time
(measured 3-7 ms per call, more than a whole 169 x 200 Pearson matrix); the controller is built once, on
first use, as in :mod:`benchsift._threads`. A counter keeps nested calls, and calls from several threads, in
one limit: the original thread counts come back when the last caller leaves.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from threadpoolctl import ThreadpoolController

__all__ = ["one_blas_thread"]

_LOCK = threading.Lock()
_CONTROLLER: ThreadpoolController | None = None
_LIMITER: Any = None
_DEPTH = 0


@contextmanager
def one_blas_thread() -> Iterator[None]:
    """Limit BLAS to one thread inside the block (re-entrant; ~20-50 us per outermost entry, ~1 us when BLAS
    already runs one thread)."""
    global _CONTROLLER, _LIMITER, _DEPTH
    with _LOCK:
        if _DEPTH == 0:
            if _CONTROLLER is None:
                _CONTROLLER = ThreadpoolController().select(user_api="blas")
            # Already one thread (a caller's benchsift._threads.single_thread(), say): leave the pools alone,
            # as setting a pool's size costs more than reading it (~50 us against ~1 us).
            if any(lib.num_threads != 1 for lib in _CONTROLLER.lib_controllers):
                _LIMITER = _CONTROLLER.limit(limits=1)
        _DEPTH += 1
    try:
        yield
    finally:
        with _LOCK:
            _DEPTH -= 1
            if _DEPTH == 0 and _LIMITER is not None:
                _LIMITER.restore_original_limits()
                _LIMITER = None
