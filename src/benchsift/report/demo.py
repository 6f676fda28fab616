"""The demo: runs each method's demo section on simulated data and writes everything into one folder.

Each section lives in ``benchsift/report/demo_<name>.py`` and exposes
``run_demo_section(out_dir, seed, console) -> dict`` (it makes its own simulated data, writes into
``out_dir/<name>/`` and returns a JSON-able summary).
"""

from __future__ import annotations

import importlib
import json
import time
from pathlib import Path
from typing import Any

from rich.console import Console

from benchsift._fileio import atomic_path
from benchsift._jsonutil import to_jsonable

SECTIONS: tuple[str, ...] = ("panel", "redundancy", "compression", "validation", "prism")


def run_demo(out: str | Path, seed: int = 0, console: Console | None = None) -> dict[str, Any]:
    """Run every demo section into ``out`` and write ``out/summary.json``."""
    out_dir = Path(out)
    out_dir.mkdir(parents=True, exist_ok=True)
    con = console if console is not None else Console(quiet=True)
    start = time.perf_counter()
    sections: dict[str, Any] = {}
    for name in SECTIONS:
        module = importlib.import_module(f"benchsift.report.demo_{name}")
        t0 = time.perf_counter()
        con.rule(f"[bold]{name}")
        result = module.run_demo_section(out_dir, seed, con)
        sections[name] = {"seconds": round(time.perf_counter() - t0, 3), **result}
    summary = {"seed": seed, "seconds": time.perf_counter() - start, "sections": sections}
    with atomic_path(out_dir / "summary.json") as tmp:
        tmp.write_text(json.dumps(to_jsonable(summary), indent=2))
    return summary
