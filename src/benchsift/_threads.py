"""The one thread policy of benchsift's hot loops: BLAS and OpenMP pools limited to one thread.

Stage 2 cells, IRT fits and protocol sweeps run thousands of small k-means, matrix-vector, matrix-product and
EM problems; a threaded BLAS or OpenMP pool costs more in start-up and spin-waiting than it saves on them, and
on a loaded machine far more. Measured on the 2-core development machine (load average 4, min / median of
200 calls): ``weighted_group_means`` of the validate scoring (85 held-out models x 3,088 items, 6 kept-item
sets) 0.71 / 0.82 ms on one thread, 0.52 / 34 ms on two; a (15 x 386k) @ (386k x 108) product 221 / 235 ms
on one thread, 287 / 1,620 ms on two; one VAW selection 2.5 s with the default pool, 0.18 s on one thread.
Parallelism comes from the tasks instead (joblib in the protocols, threads over categories in Stage 2).

Every hot loop enters :func:`single_thread` (entering costs about 10 us once the controller is built), so
the policy is this one function: change the limit here and every loop follows.
"""

from __future__ import annotations

from contextlib import AbstractContextManager
from typing import Any

from threadpoolctl import ThreadpoolController

_CONTROLLER: ThreadpoolController | None = None


#: BLAS / OpenMP threads inside benchsift's hot loops (chosen by measurement, see the module docstring).
HOT_LOOP_THREADS = 1


def single_thread() -> AbstractContextManager[Any]:
    """A context manager limiting BLAS and OpenMP to ``HOT_LOOP_THREADS`` (the controller is built once,
    ~20 ms; later entries cost about 10 us)."""
    global _CONTROLLER
    if _CONTROLLER is None:
        _CONTROLLER = ThreadpoolController()
    return _CONTROLLER.limit(limits=HOT_LOOP_THREADS)
