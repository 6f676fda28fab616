"""Importer ``lm-eval``: per-sample logs of EleutherAI's lm-evaluation-harness.

``lm_eval --output_path OUT --log_samples`` writes, per model, a folder ``OUT/<model_name_sanitized>/`` with
``results_<date>.json`` and one ``samples_<task>_<date>.jsonl`` per task (``lm_eval/loggers/
evaluation_tracker.py``: ``save_results_aggregated`` / ``save_results_samples``). Each sample line holds
``doc_id``, ``doc``, ``target``, ``arguments``, ``resps``, ``filtered_resps``, ``filter``, ``metrics`` (the
metric names), hashes and one key per metric (``acc``, ``acc_norm``, ``exact_match``, ...); see
:mod:`benchsift.io._harness` for how the score is taken.

Mapping: benchmark = task (from the file name), item = ``doc_id``, model = ``model``, else the results
json's ``model_name`` (or ``pretrained=`` in ``config.model_args``), else the folder name with ``__`` read as
``/`` (lm-eval's sanitising of ``org/name``). Inputs may be sample files or folders (searched for
``samples_*.jsonl``).
"""

from __future__ import annotations

import re

import pandas as pd

from benchsift.io._common import Paths
from benchsift.io._harness import HarnessLayout, read_harness_panel
from benchsift.io.rescale import RescaleMode
from benchsift.panel import Panel

LAYOUT = HarnessLayout(
    samples_glob="samples_*.jsonl",
    name_re=re.compile(r"^samples_(?P<task>.+)_(?P<date>\d{4}-\d{2}-\d{2}T[0-9.\-]+)\.jsonl$"),
    results_name=lambda date: f"results_{date}.json",
    results_glob="results_*.json",
    dated_glob=lambda date: f"*_{date}.json",  # --output_path <stem>.json writes <stem>_<date>.json
)


def read_lm_eval(
    paths: Paths,
    *,
    model: str | None = None,
    metric: str | None = None,
    filter: str | None = None,  # noqa: A002 - the harness calls it "filter"
    benchmark: str | None = None,
    condition: str | None = None,
    rescale: RescaleMode = "auto",
    scales: dict[str, float] | None = None,
    notes: list[str] | None = None,
    answers: list[pd.DataFrame] | None = None,
) -> Panel:
    """Read lm-evaluation-harness ``samples_<task>_<date>.jsonl`` files (or folders of them) into a panel.

    ``metric`` and ``filter`` choose among several (see :mod:`benchsift.io._harness`); ``benchmark``
    renames the task; ``model`` overrides the recorded model name.
    ``answers``: a list that receives the long table of logged answers (the first filtered response,
    or the most likely option of a log-likelihood task), see :mod:`benchsift.io.answers`.
    """
    return read_harness_panel(
        paths,
        LAYOUT,
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
