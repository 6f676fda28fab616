"""One timing rule for every benchmark script: both sides the same way, min and median of repeats, load shown.

Every script compares benchsift with the strongest simple baseline in the same run. To keep that comparison
fair, both sides go through :func:`timed` with the same ``repeats`` (runs alternate between the sides when a
script calls :func:`timed_pair`, so a burst of load hits both), and the table shows the minimum and the
median of the repeats, never a single best figure against a single run. :func:`machine_line` prints the
machine and the 1/5/15-minute load average before and after, so a reader can tell a quiet run from a busy one.
"""

from __future__ import annotations

import os
import platform
import statistics
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np


@dataclass(frozen=True)
class Timing:
    """Wall-clock seconds of each repeat, with the last call's result and the process CPU seconds.

    ``cpu_seconds`` (``time.process_time``, all threads of this process) tells the work done apart from the
    waiting: on a machine other processes load, wall time grows with the load while CPU time of a
    single-threaded hot loop barely moves, so a scaling ratio is best read on both.
    """

    seconds: tuple[float, ...]
    result: Any
    cpu_seconds: tuple[float, ...] = ()

    @property
    def min(self) -> float:
        return min(self.seconds)

    @property
    def median(self) -> float:
        return float(statistics.median(self.seconds))

    def cell(self, unit: str = "s") -> str:
        """``"min / median"`` in seconds (``unit="s"``) or milliseconds (``unit="ms"``)."""
        k = 1000.0 if unit == "ms" else 1.0
        return f"{self.min * k:.3g} / {self.median * k:.3g}"


def timed(fn: Callable[[], Any], repeats: int) -> Timing:
    """Run ``fn`` ``repeats`` times (at least once), timing each call with ``time.perf_counter`` (wall) and
    ``time.process_time`` (CPU)."""
    seconds = []
    cpu = []
    result: Any = None
    for _ in range(max(1, repeats)):
        c0 = time.process_time()
        t0 = time.perf_counter()
        result = fn()
        seconds.append(time.perf_counter() - t0)
        cpu.append(time.process_time() - c0)
    return Timing(tuple(seconds), result, tuple(cpu))


def timed_pair(ours: Callable[[], Any], baseline: Callable[[], Any], repeats: int) -> tuple[Timing, Timing]:
    """Time two callables alternately (ours, baseline, ours, ...), ``repeats`` calls each."""
    a: list[float] = []
    b: list[float] = []
    ra: Any = None
    rb: Any = None
    for _ in range(max(1, repeats)):
        t0 = time.perf_counter()
        ra = ours()
        a.append(time.perf_counter() - t0)
        t0 = time.perf_counter()
        rb = baseline()
        b.append(time.perf_counter() - t0)
    return Timing(tuple(a), ra), Timing(tuple(b), rb)


def ratio_cell(ours: Timing, baseline: Timing) -> str:
    """Speed-up of ours over the baseline as ``"min-ratio / median-ratio"`` (> 1: benchsift is faster)."""
    return f"{baseline.min / ours.min:.2f}x / {baseline.median / ours.median:.2f}x"


def load_average() -> str:
    """The 1, 5 and 15-minute load averages, or ``"n/a"`` where the platform has none."""
    try:
        one, five, fifteen = os.getloadavg()
    except OSError:
        return "n/a"
    return f"{one:.2f} {five:.2f} {fifteen:.2f}"


def machine_line() -> str:
    """Platform, CPU count, Python and numpy versions, and the current load average."""
    return (
        f"machine: {platform.platform()}, {platform.processor() or platform.machine()}, "
        f"{os.cpu_count()} CPUs, python {platform.python_version()}, numpy {np.__version__}; "
        f"load average {load_average()}"
    )
