"""What a workflow returns: the method's result, the JSON the CLI prints, the files written, notes, warnings.

A workflow (one user task: compress to a suite, validate, a diagnostic with its figure, a PRISM score with
its ``--out`` folder, a demo section) computes, writes its files atomically and returns a
:class:`WorkflowResult`. The CLI prints it with ``emit`` (``--json``: :meth:`WorkflowResult.to_dict`, the
result's JSON with the warnings the workflow added); a notebook reads ``value`` (the method's own result) and
``files``.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Generic, TypeVar

from benchsift.results import Result

__all__ = ["WorkflowResult", "section_result", "with_warnings", "wrote_figure"]

T = TypeVar("T")


@dataclass(repr=False)
class WorkflowResult(Result, Generic[T]):
    """One workflow's outcome.

    ``value``: the method's result (e.g. a :class:`~benchsift.compression.pipeline.CompressionResult`);
    ``payload``: its JSON object as ``--json`` prints it (the workflow's warnings included);
    ``files``: the files and folders the workflow wrote, in order; ``notes`` and ``warnings``: the lines
    printed after the tables (a warning is a setting that changed what was asked, or a file written).
    """

    value: T
    payload: dict[str, Any] = field(default_factory=dict)
    files: list[Path] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)

    _repr_fields = ("value", "files", "warnings")

    def to_dict(self) -> dict[str, Any]:
        """The JSON object ``--json`` prints (``payload``)."""
        return self.payload

    def to_frame(self) -> Any:
        """The method result's main table; for a summary (a dict, :func:`~benchsift.workflows.panel_info`'s)
        its per-model records (``"models"``) as a DataFrame (it raised "dict has no table")."""
        to_frame = getattr(self.value, "to_frame", None)
        if to_frame is not None:
            return to_frame()
        rows = self.value.get("models") if isinstance(self.value, dict) else None
        if isinstance(rows, list):
            import pandas as pd

            return pd.DataFrame.from_records(rows)
        raise TypeError(f"{type(self.value).__name__} has no table")


def with_warnings(obj: dict[str, Any], *extra: Iterable[str]) -> dict[str, Any]:
    """``obj`` with ``extra`` warnings appended to its ``"warnings"`` list (created, in order, unique)."""
    merged: list[str] = [str(w) for w in obj.get("warnings") or []]
    for group in extra:
        for w in group:
            if w not in merged:
                merged.append(str(w))
    out = dict(obj)
    out["warnings"] = merged
    return out


def wrote_figure(paths: Iterable[os.PathLike[str] | str]) -> str:
    """The warning line of a ``--figure`` option: the files written."""
    return f"--figure: wrote {', '.join(str(p) for p in paths)}"


def section_result(value: T, payload: dict[str, Any]) -> WorkflowResult[T]:
    """A demo section's result: ``value`` (its method's result) and ``payload`` (its JSON-able summary, as
    ``summary.json`` holds it), the files, notes and warnings read from the payload's ``"files"``,
    ``"notes"`` and ``"warnings"`` lists."""
    return WorkflowResult(
        value,
        payload,
        [Path(f) for f in payload.get("files") or []],
        [str(n) for n in payload.get("notes") or []],
        [str(w) for w in payload.get("warnings") or []],
    )
