"""The demo: runs each method's demo section on simulated data and writes everything into one folder.

Each section lives in ``benchsift/workflows/demo_<name>.py`` and exposes
``run_demo_section(out_dir, seed, console) -> WorkflowResult`` (it makes its own simulated data, writes into
``out_dir/<name>/`` and returns its method's result with a JSON-able summary as payload, whose ``"run"``
entry says what was run: the library call, its parameters, the input and its fingerprint, the data sizes;
:func:`~benchsift.workflows.result.section_result`). The demo ends with ``out/index.html``
(:func:`benchsift.report.html.write_report`), the page a person opens.
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
from benchsift._params import renamed_params
from benchsift.report.html import check_page, write_report
from benchsift.workflows.result import WorkflowResult

SECTIONS: tuple[str, ...] = ("panel", "redundancy", "compression", "loop", "validation", "prism", "audit")


@renamed_params({"seed": "random_state"}, until="0.3")
def run_demo(
    out: str | Path, random_state: int = 0, console: Console | None = None, long_csv: bool = False
) -> WorkflowResult[dict[str, WorkflowResult[Any]]]:
    """Run every demo section into ``out``, write ``out/summary.json`` and ``out/index.html``.

    The value holds each section's result by name; the payload is ``summary.json`` with ``"report"`` (the
    path of ``index.html``) added; the files are ``summary.json`` and ``index.html``. ``random_state`` (was
    ``seed``, accepted until 0.3) seeds every section; ``summary.json`` keeps the key ``seed`` (the CLI's
    ``--seed``).

    ``long_csv`` also writes the simulated panel as a long CSV (``panel/long.csv``, about 23 MB; the
    panel itself is always in ``panel/panel.parquet``).
    """
    seed = random_state
    out_dir = Path(out)
    check_page(out_dir)  # a page benchsift did not write: refused before any section writes its files
    out_dir.mkdir(parents=True, exist_ok=True)
    con = console if console is not None else Console(quiet=True)
    start = time.perf_counter()
    sections: dict[str, Any] = {}
    results: dict[str, WorkflowResult[Any]] = {}
    for name in SECTIONS:
        module = importlib.import_module(f"benchsift.workflows.demo_{name}")
        t0 = time.perf_counter()
        con.rule(f"[bold]{name}")
        options = {"long_csv": long_csv} if name == "panel" else {}
        results[name] = module.run_demo_section(out_dir, seed, con, **options)
        sections[name] = {"seconds": round(time.perf_counter() - t0, 3), **results[name].to_dict()}
    command = f"benchsift demo --out {out_dir} --seed {seed}" + (" --long-csv" if long_csv else "")
    summary = {
        "run": {"command": command, "data": "simulated (benchsift.simulate), no input files", "seed": seed},
        "seed": seed,
        "seconds": time.perf_counter() - start,
        "sections": sections,
    }
    with atomic_path(out_dir / "summary.json") as tmp:
        tmp.write_text(json.dumps(to_jsonable(summary), indent=2))
    report = write_report(out_dir, title="benchsift demo (simulated data)")
    summary["report"] = str(report)
    return WorkflowResult(results, summary, [out_dir / "summary.json", Path(report)])
