"""Run one piece of code in fresh processes under every BLAS kernel this CPU can run, to check that a result
does not depend on the machine: OpenBLAS picks its kernels by CPU kind at start-up (AVX-512, AVX2, AVX,
SSE3), and they add the terms of a dot product in different orders. ``OPENBLAS_CORETYPE`` forces one, so
one machine can stand for several."""

from __future__ import annotations

import json
import os
import platform
import subprocess
import sys
from pathlib import Path
from typing import Any


def kernels() -> list[str]:
    """The OpenBLAS kernels this CPU can run besides its own: SSE3 (every x86-64) and AVX where present."""
    if platform.machine().lower() not in ("x86_64", "amd64"):
        return []
    info = Path("/proc/cpuinfo")
    flags = info.read_text().split() if info.exists() else []
    return ["Prescott", *(["Sandybridge"] if "avx" in flags else [])]


def under_every_kernel(code: str) -> dict[str, Any]:
    """``code`` (a script printing one JSON document) run in a fresh interpreter with the default kernel,
    with one BLAS thread and under each of :func:`kernels`: ``{setting: its JSON}``."""
    settings = [("default", {}), ("1 thread", {"OPENBLAS_NUM_THREADS": "1"})]
    settings += [(k, {"OPENBLAS_CORETYPE": k}) for k in kernels()]
    runs = {}
    for name, extra in settings:
        env = {k: v for k, v in os.environ.items() if not k.startswith("OPENBLAS_")} | extra
        done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
        assert done.returncode == 0, done.stderr[-2000:]
        runs[name] = json.loads(done.stdout)
    return runs
