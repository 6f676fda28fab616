"""``benchsift compress``: PRIMEBench Stages 0-3 on a panel -> the suite directory and its page."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

from benchsift._fileio import atomic_path, spreadsheet_frame
from benchsift.report.html import check_page, write_report
from benchsift.workflows.result import WorkflowResult

if TYPE_CHECKING:
    from benchsift.compression.pipeline import CompressionConfig, CompressionResult
    from benchsift.panel import Panel
    from benchsift.progress import ProgressFn

__all__ = ["compress_to_suite"]


def compress_to_suite(
    panel: Panel,
    out: Path,
    config: CompressionConfig,
    *,
    embeddings: Any = None,
    frontier: bool = False,
    frontier_gain: float | None = None,
    progress: ProgressFn | None = None,
    holdout: float | list[str] | None = None,
) -> WorkflowResult[CompressionResult]:
    """``benchsift compress``: PRIMEBench Stages 0-3 on ``panel``
    (:func:`~benchsift.compression.pipeline.run_pipeline`), then the suite directory ``out``
    (:func:`~benchsift.compression.suite.write_suite`, with the Capability Frontier of the Stage 0-cleaned
    pool when ``frontier``) and its ``index.html``.

    ``holdout`` (a fraction of the models, drawn with ``config.random_state``, or model names): the suite
    is built on the other models, and how its estimate did on the held-out ones
    (:func:`benchsift.compression.holdout.evaluate_holdout`) is the result's ``holdout`` and
    ``holdout.json`` / ``holdout.csv`` in ``out``.

    Returns the :class:`~benchsift.compression.pipeline.CompressionResult` as ``value``, its summary (with
    ``"out"``) as ``payload``, the suite folder, the hold-out files and the page as ``files``, and the
    result's notes and warnings."""
    from benchsift.compression.frontier import capability_frontier
    from benchsift.compression.holdout import evaluate_holdout, split_models
    from benchsift.compression.pipeline import run_pipeline
    from benchsift.compression.suite import load_suite, write_suite

    held = None
    if holdout is not None:
        build_mask, held_mask = split_models(panel, holdout, int(config.random_state))
        held = panel.subset(models=held_mask)
        panel = panel.subset(models=build_mask)
    result = run_pipeline(panel, config, embeddings=embeddings, progress=progress)
    fr = capability_frontier(result.stage0.panel, gain=frontier_gain) if frontier else None
    check_page(out)  # a page benchsift did not write: refused before any file is written
    write_suite(result, panel, out, frontier=fr)
    files = [out]
    if held is not None:
        check = evaluate_holdout(load_suite(out), held, int(config.random_state))
        with atomic_path(out / "holdout.json") as tmp:
            tmp.write_text(json.dumps(check.to_dict(), indent=1) + "\n")
        with atomic_path(out / "holdout.csv") as tmp:
            spreadsheet_frame(check.per_model).to_csv(tmp, index=False, lineterminator="\n")
        files += [out / "holdout.json", out / "holdout.csv"]
        result = dataclasses.replace(result, holdout=check, warnings=[*result.warnings, *check.warnings])
    files.append(write_report(out, title=f"benchsift suite: {out.name}", panel=panel))
    return WorkflowResult(
        result,
        payload={**result.summary(), "out": str(out)},
        files=files,
        notes=list(result.notes),
        warnings=list(result.warnings),
    )
