"""Workflows: one function per user task, between the CLI and the methods.

A workflow runs the methods, writes its files atomically (a failed write leaves what was there before; a
file benchsift did not write is never touched) and returns a :class:`~benchsift.workflows.result.
WorkflowResult`: the method's result, the JSON ``--json`` prints, the files written, notes and warnings. The
CLI parses its options, calls one workflow and prints the result; :mod:`benchsift.report` only renders
(tables, figures, HTML, terminal).

* :func:`compress_to_suite` (``benchsift compress``): Stages 0-3 -> the suite directory;
* :func:`import_panel` (``import FORMAT``), :func:`simulate_to_files` (``simulate``), :func:`panel_info`
  (``info``); :func:`compare_panel` / :func:`compare_on_suite` (``compare``, ``compare --suite``);
* :func:`validate_panel` (``validate``), :func:`leftout_prediction` / :func:`checkpoint_ranking`
  (``diagnose leftout|checkpoints``): the method, its figure and ``--out`` folder;
* :func:`estimate_scores` (``estimate``), :func:`simulate_adaptive_replay` (``adaptive simulate``);
* :func:`score_verdicts` / :func:`score_axis_means` / :func:`audit_judges` (``prism score|analyze|audit``);
* :func:`redundancy_outputs` (``redundancy * --out``); :func:`audit_panel` (``audit``);
* :mod:`~benchsift.workflows.outputs`: the ``--out DIR`` folders of the commands (``validate``,
  ``estimate``, ``adaptive simulate``, the ``prism`` and ``redundancy`` commands);
* :func:`run_demo` (``benchsift demo``) and its sections ``demo_<name>.py``.

The names are imported on first use (PEP 562), so ``import benchsift.workflows`` stays cheap.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from benchsift.workflows.audit import audit_panel
    from benchsift.workflows.compare import compare_on_suite, compare_panel
    from benchsift.workflows.compress import compress_to_suite
    from benchsift.workflows.demo import run_demo
    from benchsift.workflows.diagnose import checkpoint_ranking, leftout_prediction
    from benchsift.workflows.estimate import estimate_scores, simulate_adaptive_replay
    from benchsift.workflows.panels import import_panel, panel_info, simulate_to_files
    from benchsift.workflows.prism import audit_judges, score_axis_means, score_verdicts
    from benchsift.workflows.redundancy import redundancy_outputs
    from benchsift.workflows.result import WorkflowResult
    from benchsift.workflows.validate import validate_panel

_LAZY = {
    "WorkflowResult": "benchsift.workflows.result",
    "audit_panel": "benchsift.workflows.audit",
    "audit_judges": "benchsift.workflows.prism",
    "checkpoint_ranking": "benchsift.workflows.diagnose",
    "compare_on_suite": "benchsift.workflows.compare",
    "compare_panel": "benchsift.workflows.compare",
    "compress_to_suite": "benchsift.workflows.compress",
    "estimate_scores": "benchsift.workflows.estimate",
    "import_panel": "benchsift.workflows.panels",
    "leftout_prediction": "benchsift.workflows.diagnose",
    "panel_info": "benchsift.workflows.panels",
    "redundancy_outputs": "benchsift.workflows.redundancy",
    "run_demo": "benchsift.workflows.demo",
    "score_axis_means": "benchsift.workflows.prism",
    "score_verdicts": "benchsift.workflows.prism",
    "simulate_adaptive_replay": "benchsift.workflows.estimate",
    "simulate_to_files": "benchsift.workflows.panels",
    "validate_panel": "benchsift.workflows.validate",
}
__all__ = [
    "WorkflowResult",
    "audit_judges",
    "audit_panel",
    "checkpoint_ranking",
    "compare_on_suite",
    "compare_panel",
    "compress_to_suite",
    "estimate_scores",
    "import_panel",
    "leftout_prediction",
    "panel_info",
    "redundancy_outputs",
    "run_demo",
    "score_axis_means",
    "score_verdicts",
    "simulate_adaptive_replay",
    "simulate_to_files",
    "validate_panel",
]


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        value = getattr(importlib.import_module(_LAZY[name]), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'benchsift.workflows' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
