"""Importer ``lmms-eval``: per-sample logs of EvolvingLMMs-Lab's lmms-eval.

``lmms-eval --output_path OUT --log_samples`` writes, per model, ``OUT/<model_name_sanitized>/`` with
``<date>_results.json`` and one ``<date>_samples_<task>.jsonl`` per task (``lmms_eval/loggers/
evaluation_tracker.py``). A sample line holds ``doc_id``, ``target``, ``input``, ``filtered_resps`` (and
``resps`` when different), ``doc_hash`` and one key per metric; many tasks log a dict per metric (MMMU
``mmmu_acc: {"id", "subdomain", "question_type", "answer", "parsed_pred"}``, MME
``mme_percetion_score: {"question_id", "category", "score"}``); see :mod:`benchsift.io._harness` for how
the score is read. A dict's ``category`` / ``subdomain`` / ``subject`` becomes the item's category.

Mapping: benchmark = task (from the file name), item = ``doc_id``, model = ``model``, else the results
json's ``model_name`` / ``config.model_args``, else the folder name (``__`` read as ``/``). The metric
defaults to the first of the task's ``metric_list`` in the results json. Inputs may be sample files or
folders (searched for ``*_samples_*.jsonl``).

Re-runs: a model evaluated again into the same ``--output_path`` (also by another lmms-eval version)
leaves two runs' files in its folder; of the sample files of one task and model in one folder only the
latest ``<date>`` is read (lmms-eval's ``EvaluationTracker.recreate_metadata_card`` takes the latest
datetime per model and task, the rule of lm-eval's ``get_latest_filename``; lmms-eval names its files
``<date>_...``, so the date is read from the start of the name), with a warning naming the others;
``keep_all_runs`` keeps every run as its own model run ``<model> (run <date>)`` (:mod:`benchsift.io._runs`).

A run stopped while writing its samples (``cli_evaluate`` writes ``<date>_results.json`` first, then one
samples file per task) leaves tasks with results but no samples file: a folder import names each in a
warning (its scores are not invented from the aggregate).
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pandas as pd

from benchsift.errors import FormatError
from benchsift.io._common import Paths, as_paths
from benchsift.io._harness import (
    HarnessLayout,
    model_from_results,
    read_harness_file,
    read_json,
    read_latest_runs,
)
from benchsift.io._runs import RunFile
from benchsift.io._walk import find_files
from benchsift.io.notes import raises_uncollected
from benchsift.io.rescale import RescaleMode, ScaleMap
from benchsift.panel import Panel

LAYOUT = HarnessLayout(
    samples_glob="*_samples_*.jsonl",
    name_re=re.compile(r"^(?P<date>.+?)_samples_(?P<task>.+)\.jsonl$"),
    results_name=lambda date: f"{date}_results.json",
    results_glob="*_results.json",
)


def _headline(entry: Any) -> str:
    """The first number of a task's results entry, ``"pope_accuracy,none 0.8"``, or ``""``."""
    if isinstance(entry, dict):
        for key, value in entry.items():
            if isinstance(value, int | float) and not isinstance(value, bool) and "stderr" not in key:
                return f" ({key} {value:g})"
    return ""


def missing_samples(given: list[Path], runs: list[RunFile]) -> list[str]:
    """Warnings for the tasks a ``<date>_results.json`` inside the folders ``given`` holds results of but
    whose model folder has no samples file of that run or a later one (a run stopped while writing its
    samples, or a task run without ``--log_samples``): they are not in the panel."""
    dates: dict[tuple[Path, str], list[str]] = {}
    for r in runs:
        if isinstance(r.task, tuple):  # (folder, model, task)
            dates.setdefault((r.path.parent.resolve(), str(r.task[2])), []).append(r.run)
    out: list[str] = []
    seen: set[Path] = set()
    for root in given:
        if not root.is_dir():
            continue
        for found in find_files(root, [LAYOUT.results_glob])[0]:
            real = found.resolve()
            date = found.name[: -len("_results.json")]
            if real in seen or not date:
                continue
            seen.add(real)
            try:
                results = read_json(found)
            except FormatError:
                continue
            entries, configs = results.get("results"), results.get("configs")
            if not isinstance(entries, dict) or not isinstance(configs, dict):
                continue
            name = model_from_results(results) or found.parent.name.replace("__", "/")
            for task in [t for t in entries if t in configs]:
                if any(d >= date for d in dates.get((real.parent, task), [])):
                    continue
                out.append(
                    f"warning: {found}: task {task!r} has results{_headline(entries[task])} but no samples "
                    f"file {date}_samples_{task}.jsonl (or a later run's) beside it, so it is not in the "
                    f"panel for model {name!r} (a run stopped while writing its samples?)"
                )
    return out


@raises_uncollected
def read_lmms_eval(
    paths: Paths,
    *,
    model: str | None = None,
    metric: str | None = None,
    filter: str | None = None,  # noqa: A002 - the harness calls it "filter"
    benchmark: str | None = None,
    condition: str | None = None,
    rescale: RescaleMode = "auto",
    scales: ScaleMap | None = None,
    notes: list[str] | None = None,
    answers: list[pd.DataFrame] | None = None,
    keep_all_runs: bool = False,
) -> Panel:
    """Read lmms-eval ``<date>_samples_<task>.jsonl`` files (or folders of them) into a panel.

    ``metric`` and ``filter`` choose among several (see :mod:`benchsift.io._harness`); ``benchmark``
    renames the task; ``model`` overrides the recorded model name.
    ``answers``: a list that receives the long table of logged answers (the first filtered response,
    or the most likely option of a log-likelihood task), see :mod:`benchsift.io.answers`.
    Re-runs: of the sample files of one task and model in one folder only the latest ``<date>`` is read,
    as lmms-eval takes it; a warning names the others. ``keep_all_runs`` reads them all, each run of such a
    model as its own model run ``<model> (run <date>)`` (module docstring). Tasks a folder's results json
    reports without a samples file are named in a warning.
    """
    panel, runs = read_latest_runs(
        paths,
        LAYOUT,
        read_harness_file,
        tool="lmms-eval (the latest <date> of a task)",
        keep_all_runs=keep_all_runs,
        model=model,
        metric=metric,
        filter_name=filter,
        benchmark=benchmark,
        condition=condition,
        rescale=rescale,
        scales=scales,
        notes=notes,
        answers=answers,
    )
    if notes is not None:
        notes.extend(missing_samples(as_paths(paths), runs))
    return panel
