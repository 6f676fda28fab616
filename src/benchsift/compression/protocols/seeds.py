"""Seeds of a protocol sweep: one per selection, a function of the run seed and the task's keys only.

Keyed by selector name and retention value (not list positions), so results do not depend on ``n_jobs``,
the backend or which other selectors and retentions run beside them.
"""

from __future__ import annotations

import zlib
from typing import Any

import numpy as np

from benchsift.compression.protocols.specs import SelectorSpec, selector_label
from benchsift.stats import check_random_state

__all__ = ["base_seed", "retention_key", "selector_key", "task_seed"]


def task_seed(base: int, *keys: int) -> int:
    """A 31-bit seed for one selection, a function of the run seed and the task's indices only.

    Independent of the order tasks run in, so the results do not depend on ``n_jobs`` or the backend.
    """
    return int(np.random.SeedSequence([int(base), *(int(k) for k in keys)]).generate_state(1)[0] >> 1)


def selector_key(spec: SelectorSpec) -> int:
    """A stable integer key of a selector (CRC-32 of its label) for :func:`task_seed`.

    Keyed by name, not by list position, so a selector's selections do not depend on which other selectors
    run beside it.
    """
    return zlib.crc32(selector_label(spec).encode("utf-8"))


def retention_key(retention: float) -> int:
    """A stable integer key of a retention (``round(r * 1e9)``) for :func:`task_seed`.

    Keyed by value, not by list position, so ``--retentions 0.05`` alone reproduces the r = 5 % column of a
    run over all six retentions.
    """
    return int(round(float(retention) * 1e9))


def base_seed(random_state: Any) -> int:
    return int(check_random_state(random_state).integers(0, 2**31 - 1))
