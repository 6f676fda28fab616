"""Limit BLAS / OpenMP thread pools to one thread around many small numeric problems.

Stage 2 cells, IRT fits and protocol sweeps run thousands of small k-means, matrix-vector and EM problems; a
threaded BLAS or OpenMP pool costs more in start-up and spin-waiting than it saves on them (measured: one
VAW selection 2.5 s with the default pool on a busy 2-core machine, 0.18 s single-threaded). Parallelism comes
from the tasks instead (joblib in the protocols, threads over categories in Stage 2).
"""

from __future__ import annotations

from contextlib import AbstractContextManager
from typing import Any

from threadpoolctl import ThreadpoolController

_CONTROLLER: ThreadpoolController | None = None


def single_thread() -> AbstractContextManager[Any]:
    """A context manager limiting BLAS and OpenMP to one thread (the controller is built once, ~20 ms)."""
    global _CONTROLLER
    if _CONTROLLER is None:
        _CONTROLLER = ThreadpoolController()
    return _CONTROLLER.limit(limits=1)
