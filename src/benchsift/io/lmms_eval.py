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
"""

from __future__ import annotations

import re

import pandas as pd

from benchsift.io._common import Paths
from benchsift.io._harness import HarnessLayout, read_harness_panel
from benchsift.io.rescale import RescaleMode, ScaleMap
from benchsift.panel import Panel

LAYOUT = HarnessLayout(
    samples_glob="*_samples_*.jsonl",
    name_re=re.compile(r"^(?P<date>.+?)_samples_(?P<task>.+)\.jsonl$"),
    results_name=lambda date: f"{date}_results.json",
    results_glob="*_results.json",
)


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
) -> Panel:
    """Read lmms-eval ``<date>_samples_<task>.jsonl`` files (or folders of them) into a panel.

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
