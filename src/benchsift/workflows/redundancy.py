"""``benchsift redundancy dimensions|instances|benchmarks --out DIR``: the analysis' JSON and figures."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from benchsift.workflows.result import WorkflowResult

__all__ = ["redundancy_outputs"]


def redundancy_outputs(
    res: Any, name: str, figures: Callable[[Path], object], out: Path | None = None
) -> WorkflowResult[Any]:
    """A redundancy result ``res`` (:mod:`benchsift.redundancy`) as a workflow result: with ``out``,
    ``out/<name>.json`` and the figures ``figures(folder)`` draws are added to ``out`` (other analyses'
    files stay) and ``out/index.html`` is written over everything in it
    (:func:`~benchsift.workflows.outputs.write_analysis_dir`). The notes are the result's."""
    from benchsift.workflows.outputs import write_analysis_dir

    payload = res.to_dict()
    files = []
    if out is not None:
        write_analysis_dir(out, name, payload, figures)
        files = [out / f"{name}.json", out / "index.html"]
    return WorkflowResult(res, payload, files, list(getattr(res, "notes", [])), [])
