"""Importer ``lm-eval``: per-sample logs of EleutherAI's lm-evaluation-harness.

``lm_eval --output_path OUT --log_samples`` writes, per model, a folder ``OUT/<model_name_sanitized>/`` with
``results_<date>.json`` and one ``samples_<task>_<date>.jsonl`` per task (``lm_eval/loggers/
evaluation_tracker.py``: ``save_results_aggregated`` / ``save_results_samples``). Each sample line holds
``doc_id``, ``doc``, ``target``, ``arguments``, ``resps``, ``filtered_resps``, ``filter``, ``metrics`` (the
metric names), hashes and one key per metric (``acc``, ``acc_norm``, ``exact_match``, ...); see
:mod:`benchsift.io._harness` for how the score is taken.

With ``--output_path RUN.json`` (a file name) the results are ``RUN_<date>.json`` and the sample files lie
beside it; the results json of a sample file is the one of the same ``<date>``. A results json (or
``results.json``) is read only when it is a regular file resolving inside the folder given (for a file
given by name, the folder that holds it; :func:`benchsift.io._walk.side_file`): one linking outside is
left unread, with a warning naming it.

lm-eval 0.4.0 - 0.4.2 (``lm_eval/__main__.py`` of 0.4.2) wrote ``OUT/results.json`` and one
``<model_args>_<task>.jsonl`` per task, where ``<model_args>`` is ``--model_args`` with ``/`` and ``=``
replaced by ``__`` (``pretrained__org__name_arith.jsonl``); the file is one JSON array (``indent=2``), the
samples carry no ``filter`` key and a task with several filters lists every document once per filter, in
the task's ``filter_list`` order (see :func:`benchsift.io._harness.label_filters`). The task is the name
left when the ``<model_args>_`` prefix of ``results.json``'s ``config.model_args`` is removed.

Mapping: benchmark = task (from the file name), item = ``doc_id``, model = ``model``, else the results
json's ``model_name`` (or ``pretrained=`` in ``config.model_args``), else the folder name with ``__`` read as
``/`` (lm-eval's sanitising of ``org/name``). Inputs may be sample files or folders (searched for
``samples_*.jsonl`` and, beside a ``results.json``, ``*.jsonl``).

Re-runs: a model evaluated again into the same output folder leaves two runs' files there; of the sample
files of one task and model in one folder only the latest ``<date>`` is read (lm-eval's own
``get_latest_filename``), with a warning naming the others; ``keep_all_runs`` keeps every run as its own
model run (:mod:`benchsift.io._runs`).

Details parquet: a ``samples_<task>_<date>.parquet`` (or any ``.parquet`` file given by name) holding
lm-eval's sample records as the ``datasets`` library stores them (the Open LLM Leaderboard's details: its
details repositories hold lm-eval's sample files, one dataset config per task, read back with
``load_dataset`` and saved with ``to_parquet``) is read like the JSON lines file it came from.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pandas as pd

from benchsift.io._common import Paths
from benchsift.io._harness import (
    HarnessLayout,
    read_harness_file,
    read_json,
    read_latest_runs,
    refuse_results_file,
    results_samples,
)
from benchsift.io._walk import NotThisFormat, root_of, side_file
from benchsift.io.notes import raises_uncollected
from benchsift.io.rescale import RescaleMode, ScaleMap
from benchsift.panel import Panel

LAYOUT = HarnessLayout(
    samples_glob="samples_*.jsonl",
    name_re=re.compile(r"^samples_(?P<task>.+)_(?P<date>\d{4}-\d{2}-\d{2}T[0-9.\-]+)\.(jsonl|parquet)$"),
    results_name=lambda date: f"results_{date}.json",
    results_glob="results_*.json",
    dated_glob=lambda date: f"*_{date}.json",  # --output_path <stem>.json writes <stem>_<date>.json
)


LEGACY_RESULTS = "results.json"


def _legacy_task(path: Path, results: dict[str, Any]) -> str | None:
    """The task of a 0.4.0 - 0.4.2 sample file ``<model_args>_<task>.jsonl``, from its ``results.json``."""
    config = results.get("config")
    args = config.get("model_args") if isinstance(config, dict) else None
    configs = results.get("configs")
    tasks = list(configs) if isinstance(configs, dict) else []
    if isinstance(args, str):
        prefix = re.sub("/|=", "__", args) + "_"  # lm_eval/__main__.py of 0.4.2
        if path.name.startswith(prefix) and path.stem[len(prefix) :] in tasks:
            return path.stem[len(prefix) :]
    ends = [t for t in tasks if path.stem.endswith("_" + t)]
    return max(ends, key=len) if ends else None


def _read_file(
    path: Path, layout: HarnessLayout, *, notes: list[str] | None, root: Path | None = None, **options: Any
) -> pd.DataFrame:
    root = root_of(path) if root is None else root
    named = LAYOUT.name_re.match(path.name)
    legacy = None if named else side_file(path.parent / LEGACY_RESULTS, root, notes)
    if legacy is None:  # (it refuses a results file given as the log)
        return read_harness_file(path, layout, notes=notes, root=root, **options)
    refuse_results_file(path, layout)
    results = read_json(legacy)
    if not isinstance(results, dict):
        raise NotThisFormat(f"{path.parent / LEGACY_RESULTS}: not an lm-eval results json")
    task = _legacy_task(path, results)
    if task is None:
        raise NotThisFormat(f"{path}: not a sample file of the tasks in {LEGACY_RESULTS} ({list(results)})")
    return results_samples(path, results, task, notes=notes, **options)


@raises_uncollected
def read_lm_eval(
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
    """Read lm-evaluation-harness ``samples_<task>_<date>.jsonl`` files (or folders of them) into a panel.

    ``metric`` and ``filter`` choose among several (see :mod:`benchsift.io._harness`); ``benchmark``
    renames the task; ``model`` overrides the recorded model name.
    ``answers``: a list that receives the long table of logged answers (the first filtered response,
    or the most likely option of a log-likelihood task), see :mod:`benchsift.io.answers`.
    Re-runs: of the sample files of one task and model in one folder only the latest ``<date>`` is read,
    as lm-eval takes it; a warning names the others. ``keep_all_runs`` reads them all, each run of such a
    model as its own model run ``<model> (run <date>)`` (:mod:`benchsift.io._runs`); so are runs of one
    model and task in different output folders, whose differing scores are otherwise an error that names
    them and these choices.
    """
    return read_latest_runs(
        paths,
        LAYOUT,
        _read_file,
        tool="lm-eval (get_latest_filename)",
        keep_all_runs=keep_all_runs,
        patterns=("*.jsonl", "samples_*.parquet"),
        model=model,
        metric=metric,
        filter_name=filter,
        benchmark=benchmark,
        condition=condition,
        rescale=rescale,
        scales=scales,
        notes=notes,
        answers=answers,
    )[0]
