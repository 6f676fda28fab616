"""Importer ``lighteval``: the per-sample details parquet files of Hugging Face lighteval.

With ``--save-details`` lighteval's ``EvaluationTracker.save`` (``lighteval/logging/evaluation_tracker.py``,
0.13) writes, per task, ``<output_dir>/details/<model_name>/<date_id>/details_<task>_<date_id>.parquet``:
``Dataset.from_list([asdict(detail)])`` of the ``DetailsLogger.Detail`` records
(``logging/info_loggers.py``), columns sorted, i.e. one row per document with the struct columns ``doc``
(``Doc``: ``query``, ``choices``, ``gold_index``, ``id``, ``task_name``, ...), ``metric`` (the sample-level
metric values the pipeline computed, e.g. ``{"acc": 1}``) and ``model_response`` (``text``, ``logprobs``,
...). The aggregates are in ``<output_dir>/results/<model_name>/results_<date_id>.json``.

Model: ``model``, else the folders between ``details/`` and the ``<date_id>`` folder (lighteval's
``model_name``, e.g. ``org/alpha``). Benchmark: ``benchmark``, else ``doc.task_name`` as lighteval keys its
results (``arith_mc|0``: task and few-shot count). Item: ``doc.id``. Score: the ``metric`` field named by
``metric``, else the only one, else the first of :data:`PREFERRED` present (a file with several others is
refused with the choices). A null metric value is missing. The logged answer is the first
``model_response.text`` (post-processed when lighteval kept that), for generative tasks.

Re-runs: a model evaluated again into the same ``--output-dir`` leaves a second ``<date_id>`` folder beside
the first; of the details files of one task in one ``details/<model>/`` folder only the newest
``<date_id>``'s is read (lighteval reads a model's newest folder, ``_get_details_sub_folder("last")``, and
its details dataset card's ``latest`` split of a task is its newest run), with a warning naming the
others; ``keep_all_runs`` keeps every run as its own model run ``<model> (run <date_id>)``
(:mod:`benchsift.io._runs`), also for one model run into two output folders (whose differing scores are
otherwise an error naming them).

Rows are named 1-based (``row 1`` is the first document), as the other importers count lines.

Item metadata where lighteval logged it (issue 34; the report's item view shows it): ``question`` =
``doc.query``, ``choices`` = ``doc.choices`` (a JSON list), ``answer`` = the gold choice(s)
``doc.choices[doc.gold_index]`` (several joined by ", "; the index itself when it points outside the
choices), each cut to 2,000 characters.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import pandas as pd

from benchsift._inputs import choose
from benchsift.errors import FormatError, InputError
from benchsift.io._coded_frames import read_sample_panel
from benchsift.io._common import (
    ANSWER_COL,
    FILE_COL,
    PYTHON_VALUE_BYTES,
    ROW_COL,
    Paths,
    as_paths,
    check_file,
    check_parquet,
)
from benchsift.io._harness import choices_text, text_columns
from benchsift.io._runs import RunFile, candidate_files, choose_runs, explain_conflicts
from benchsift.io._walk import NotThisFormat
from benchsift.io.notes import raises_uncollected
from benchsift.io.rescale import RescaleMode, ScaleMap
from benchsift.panel import Panel

PATTERNS = ("details_*.parquet",)
COLUMNS = ("doc", "metric", "model_response")
PREFERRED = ("acc", "em", "exact_match", "pass@1", "accuracy")


def model_from_path(path: Path) -> str | None:
    """lighteval's ``model_name`` from ``.../details/<model_name>/<date_id>/details_*.parquet``."""
    parts = path.parent.parts
    if "details" not in parts[:-1]:
        return None
    at = len(parts) - 1 - parts[::-1].index("details")
    name = "/".join(parts[at + 1 : -1])
    return name or None


def detail_runs(
    paths: list[Path], *, model: str | None = None, benchmark: str | None = None
) -> list[RunFile]:
    """Each ``details/<model>/<date_id>/details_<task>_<date_id>.parquet`` file's task as lighteval's
    newest run takes it: its ``details/<model>`` folder and task, newest by ``<date_id>``; its clash key:
    the model and task the panel names it by (``model`` and ``benchmark`` override them; the task is
    ``doc.task_name``, which lighteval also writes into the file name) (:mod:`benchsift.io._runs`)."""
    runs = []
    for path in paths:
        date = path.parent.name
        prefix, suffix = "details_", f"_{date}.parquet"
        name = model_from_path(path)
        if name is None or not (path.name.startswith(prefix) and path.name.endswith(suffix)):
            continue
        task = path.name[len(prefix) : -len(suffix)]
        if not task:
            continue
        folder = path.parent.parent.resolve()
        clash = (model or name, benchmark or task)
        runs.append(RunFile(path, (folder, task), (date,), date, f"run {date}", owner=folder, clash=clash))
    return runs


def _choose_metric(keys: list[str], path: Path, metric: str | None) -> str:
    if metric is None and len(keys) > 1:
        metric = next((m for m in PREFERRED if m in keys), None)
    chosen: str = choose(metric, keys, what="metric", param="metric", where=f"{path}: details")
    return chosen


def _doc_text(doc: dict[str, Any]) -> tuple[str | None, str | None, str | None]:
    """``(question, choices, answer)`` of a lighteval ``Doc`` (module docstring)."""
    query = doc.get("query")
    question = query if isinstance(query, str) and query else None
    options = doc.get("choices")
    gold = doc.get("gold_index")
    golds = [
        g
        for g in (gold if isinstance(gold, list) else [gold])
        if isinstance(g, int) and not isinstance(g, bool)
    ]
    answer = None
    if golds:
        n = len(options) if isinstance(options, list) else 0
        answer = ", ".join(str(options[g]) if 0 <= g < n else str(g) for g in golds)  # type: ignore[index]
    return question, choices_text(options), answer


def _read_one(
    path: Path,
    *,
    model: str | None,
    benchmark: str | None,
    metric: str | None,
    condition: str | None,
    notes: list[str] | None,
) -> pd.DataFrame:
    import pyarrow as pa
    import pyarrow.parquet as pq

    check_file(path)
    check_parquet(path, value_bytes=PYTHON_VALUE_BYTES)  # the footer's counts: to_pylist below
    try:
        table = pq.read_table(path)
    except (pa.ArrowException, OSError, ValueError) as exc:
        raise FormatError(f"{path}: cannot be read as a parquet file ({str(exc).splitlines()[0]})") from None
    missing = [c for c in COLUMNS if c not in table.column_names]
    if missing:
        raise NotThisFormat(
            f"{path}: missing column(s) {missing}: not a lighteval details file "
            f"(columns {table.column_names})"
        )
    rows = table.to_pylist()
    if not rows:
        raise FormatError(f"{path}: no rows")
    name = model or model_from_path(path)
    if name is None:
        raise InputError(f"{path}: cannot tell the model (not under details/<model>/<date>/); give `model`")
    first_metric = rows[0]["metric"]
    if not isinstance(first_metric, dict):
        raise FormatError(f"{path}, row 1: 'metric' is not a struct of metric values")
    chosen = _choose_metric(list(first_metric), path, metric)
    out: dict[str, list[Any]] = {k: [] for k in ("benchmark", "item", "score", ROW_COL, ANSWER_COL)}
    logged: list[tuple[str | None, str | None, str | None]] = []
    for k, row in enumerate(rows, start=1):
        doc, values, response = row["doc"], row["metric"], row["model_response"]
        if not isinstance(doc, dict) or not isinstance(values, dict):
            raise FormatError(f"{path}, row {k}: 'doc' / 'metric' is not a struct")
        value = values.get(chosen)
        if value is None:
            score = math.nan
        elif isinstance(value, bool | int | float):
            score = float(value)
        else:
            raise FormatError(f"{path}, row {k}: metric {chosen!r} value {value!r} is not a number")
        item = doc.get("id")
        task = benchmark or doc.get("task_name")
        if item is None or task is None:
            raise FormatError(f"{path}, row {k}: doc without 'id' / 'task_name'")
        out["benchmark"].append(str(task))
        out["item"].append(str(item))
        out["score"].append(score)
        out[ROW_COL].append(f"row {k}")
        answer = None
        if isinstance(response, dict):
            texts = response.get("text_post_processed") or response.get("text") or []
            answer = str(texts[0]) if texts and texts[0] is not None else None
        out[ANSWER_COL].append(answer)
        logged.append(_doc_text(doc))
    if notes is not None:
        notes.append(f"{path.name}: model {name!r}, metric {chosen!r}, {len(rows)} samples")
    frame = pd.DataFrame(out)
    for col, values in text_columns(logged).items():
        frame[col] = values
    frame["model"] = name
    frame["condition"] = condition or "image"
    frame[FILE_COL] = str(path)
    return frame


@raises_uncollected
def read_lighteval(
    paths: Paths,
    *,
    model: str | None = None,
    benchmark: str | None = None,
    metric: str | None = None,
    condition: str | None = None,
    rescale: RescaleMode = "auto",
    scales: ScaleMap | None = None,
    notes: list[str] | None = None,
    answers: list[pd.DataFrame] | None = None,
    keep_all_runs: bool = False,
) -> Panel:
    """Read lighteval ``details_<task>_<date>.parquet`` files (or folders of them) into a panel.

    Re-runs: of the details files of one task in one ``details/<model>/`` folder only the newest
    ``<date_id>``'s is read; a warning names the others. ``keep_all_runs`` reads them all, each run of such
    a model as its own model run ``<model> (run <date_id>)`` (module docstring)."""

    def one(path: Path, file_notes: list[str] | None, _root: Path) -> pd.DataFrame:
        return _read_one(
            path, model=model, benchmark=benchmark, metric=metric, condition=condition, notes=file_notes
        )

    given = as_paths(paths)
    runs = detail_runs(candidate_files(given, PATTERNS), model=model, benchmark=benchmark)
    read = choose_runs(runs, one, keep_all_runs=keep_all_runs, tool="lighteval (its newest <date_id>)")
    with explain_conflicts(runs, keep_all_runs=keep_all_runs):
        return read_sample_panel(
            given,
            PATTERNS,
            read,
            what="lighteval details",
            rescale=rescale,
            scales=scales,
            notes=notes,
            answers=answers,
        )
