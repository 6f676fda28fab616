"""Workflows: one function per user task, between the CLI and the methods.

A workflow runs the methods, writes its files atomically (a failed write leaves what was there before; a
file benchsift did not write is never touched) and returns a :class:`~benchsift.workflows.result.
WorkflowResult`: the method's result, the JSON ``--json`` prints, the files written, notes and warnings. The
CLI parses its options, calls one workflow and prints the result; :mod:`benchsift.report` only renders
(tables, figures, HTML, terminal).

* :func:`compress_to_suite` (``benchsift compress``): Stages 0-3 -> the suite directory;
* :mod:`~benchsift.workflows.outputs`: the ``--out DIR`` folders of the commands (``validate``,
  ``estimate``, ``adaptive simulate``, the ``prism`` and ``redundancy`` commands);
* :func:`run_demo` (``benchsift demo``) and its sections ``demo_<name>.py``.

The names are imported on first use (PEP 562), so ``import benchsift.workflows`` stays cheap.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from benchsift.workflows.compress import compress_to_suite
    from benchsift.workflows.demo import run_demo
    from benchsift.workflows.result import WorkflowResult

__all__ = ["WorkflowResult", "compress_to_suite", "run_demo"]

_LAZY = {
    "WorkflowResult": "benchsift.workflows.result",
    "compress_to_suite": "benchsift.workflows.compress",
    "run_demo": "benchsift.workflows.demo",
}


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        value = getattr(importlib.import_module(_LAZY[name]), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'benchsift.workflows' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
