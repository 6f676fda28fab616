"""Per-sample logs of the harness family (EleutherAI lm-evaluation-harness and its fork lmms-eval).

Both write, with ``--log_samples``, one JSON object per line and document, as built in their
``evaluator.py`` / ``loggers/evaluation_tracker.py``::

    {"doc_id": 0, "target": "B", "filtered_resps": ["B"], "filter": "none", "metrics": ["acc"],
     "doc_hash": "...", "acc": 1.0}

The bookkeeping keys are :data:`NON_METRIC_KEYS`; every other key is a metric value computed by the task's
``process_results``: a number or boolean (``acc``, ``exact_match``), or, in many lmms-eval tasks, a dict
handed to the task's aggregation function. A dict counts when it holds a numeric field named in
:data:`DICT_SCORE_KEYS` (MME's ``{"question_id", "category", "score"}``), or MMMU's
``{"answer", "parsed_pred"}`` (right when the parsed prediction equals the answer, or is one of a list of
answers, as lmms-eval's ``eval_multi_choice``; an open answer given as a list of candidates is right when one
of them equals an answer, case-insensitively or as the same number: a simplified ``eval_open``).

The metric is the one asked for, else the first of the sample's ``metrics`` list / the task's configured
``metric_list`` / the only metric-like key / ``acc``, ``exact_match``, ``accuracy``. Without an explicit
metric, a sample lacking that metric takes the first other configured metric it has (lmms-eval's MME logs
either ``mme_percetion_score`` or ``mme_cognition_score`` per sample, by category).

A document evaluated under several filters (lm-eval ``gsm8k``: ``strict-match`` and ``flexible-extract``)
appears once per filter; the filter must then be chosen.
"""

from __future__ import annotations

import glob
import json
import math
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from benchsift._fileio import bounded_lines
from benchsift._inputs import choose
from benchsift._jsonutil import loads_bounded
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
from benchsift.io._lmms_rules import (
    ITEM_MEAN_ALTERNATIVE,
    NOT_ITEM_MEANS,
    mmmu_char_rule,
    mmmu_correct,
    other_aggregate,
    seed_correct,
)
from benchsift.io._runs import RunFile, choose_runs, explain_conflicts, rooted_candidates
from benchsift.io._walk import root_of, side_file
from benchsift.io.notes import SUBSET_RUN
from benchsift.io.rescale import RescaleMode, ScaleMap
from benchsift.panel import Panel
from benchsift.panel.long import text_dtype

NON_METRIC_KEYS = frozenset(
    {
        "doc_id",
        "doc",
        "target",
        "arguments",
        "resps",
        "filtered_resps",
        "filter",
        "metrics",
        "doc_hash",
        "prompt_hash",
        "target_hash",
        "input",
        "task",
        "split",
        "input_text",
        "image_paths",
        "token_counts",
    }
)
DICT_SCORE_KEYS = ("score", "correct", "acc", "accuracy", "hit", "exact_match", "match")
CATEGORY_KEYS = ("category", "subdomain", "subject", "l2-category", "l2_category")
PREFERRED_METRICS = ("acc", "exact_match", "accuracy")


def read_jsonl(path: Path) -> list[tuple[int, dict[str, Any]]]:
    """``(line number, record)`` for every non-blank line; a line that is not a JSON object is an error.

    A file holding one JSON array of objects (lm-eval 0.4.0 - 0.4.2 wrote its ``.jsonl`` sample files so,
    ``json.dumps(samples, indent=2)`` in its ``__main__.py``) gives ``(array index, record)``.
    """
    check_file(path)
    if path.suffix.lower() == ".parquet":
        return _parquet_records(path)
    with open(path, "rb") as fh:
        head = fh.read(64).lstrip()
    if head.startswith(b"["):
        data = read_json(path)
        if not isinstance(data, list) or not all(isinstance(r, dict) for r in data):
            raise FormatError(f"{path}: expected a JSON array of sample objects")
        if not data:
            raise FormatError(f"{path}: no samples (empty array)")
        return list(enumerate(data))
    out: list[tuple[int, dict[str, Any]]] = []
    try:
        return _json_lines(path, out)
    except UnicodeDecodeError:
        raise FormatError(f"{path}: not a UTF-8 text file of JSON lines") from None


#: longest line of a JSON lines sample log that is read (characters)
MAX_LINE_CHARS = 64 << 20


def _json_lines(path: Path, out: list[tuple[int, dict[str, Any]]]) -> list[tuple[int, dict[str, Any]]]:
    with open(path, encoding="utf-8") as fh:
        # a line at a time, each read at most MAX_LINE_CHARS long: a file without line breaks (or a
        # hostile 2 GB line) is refused after that much, not read whole (issue 32)
        what = "a sample log line is a few kB: is this a JSON lines file?"
        for n, line in enumerate(bounded_lines(fh, str(path), MAX_LINE_CHARS, what), start=1):
            if not line.strip():
                continue
            try:
                rec = loads_bounded(line, f"{path}, line {n}")
            except json.JSONDecodeError as exc:
                raise FormatError(f"{path}, line {n}: not valid JSON ({exc.msg})") from None
            if not isinstance(rec, dict):
                raise FormatError(f"{path}, line {n}: expected a JSON object per line")
            out.append((n, rec))
    if not out:
        raise FormatError(f"{path}: no samples (empty file)")
    return out


def _parquet_records(path: Path) -> list[tuple[int, dict[str, Any]]]:
    """Sample records of a details parquet file: lm-eval's sample logs as the Hugging Face ``datasets``
    library stores them (``load_dataset("json", ...)`` then ``to_parquet``; the Open LLM Leaderboard's
    details), one row per sample line with the same keys; ``(row index + 1, record)``."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    check_parquet(path, value_bytes=PYTHON_VALUE_BYTES)  # the footer's counts: a Python object per cell
    try:
        rows = pq.read_table(path).to_pylist()
    except (pa.ArrowException, OSError, ValueError) as exc:
        raise FormatError(f"{path}: cannot be read as a parquet file ({str(exc).splitlines()[0]})") from None
    if not rows:
        raise FormatError(f"{path}: no samples (no rows)")
    # datasets fills keys missing from a line with null; drop them so a record has the keys its line had
    return [(i + 1, {k: v for k, v in r.items() if v is not None}) for i, r in enumerate(rows)]


def read_json(path: Path) -> Any:
    """Load one JSON document, with a one-line error naming the file."""
    check_file(path)
    try:
        return loads_bounded(path.read_bytes(), str(path))
    except json.JSONDecodeError as exc:
        raise FormatError(f"{path}: not valid JSON (line {exc.lineno}: {exc.msg})") from None
    except UnicodeDecodeError:
        raise FormatError(f"{path}: not a UTF-8 JSON file") from None


def model_from_results(results: dict[str, Any]) -> str | None:
    """The model name recorded in a harness results json (``model_name``, else ``pretrained=`` etc.)."""
    name = results.get("model_name")
    if isinstance(name, str) and name.strip():
        return name.strip()
    config = results.get("config")
    if isinstance(config, dict):
        args = config.get("model_args")
        if isinstance(args, str):
            for prefix in ("peft=", "delta=", "pretrained=", "model=", "path=", "engine="):
                if prefix in args:
                    return args.split(prefix, 1)[1].split(",", 1)[0].strip() or None
        if isinstance(args, dict):
            for key in ("pretrained", "model", "path", "engine"):
                if isinstance(args.get(key), str):
                    return str(args[key])
    return None


def _task_config_list(results: dict[str, Any], task: str, key: str) -> list[Any]:
    """``results["configs"][task][key]`` when it is a list, else ``[]``."""
    configs = results.get("configs")
    if not isinstance(configs, dict) or not isinstance(configs.get(task), dict):
        return []
    value = configs[task].get(key)
    return value if isinstance(value, list) else []


def metrics_from_results(results: dict[str, Any], task: str) -> list[str]:
    """The task's configured metrics (``configs[task].metric_list``), in order."""
    metric_list = _task_config_list(results, task, "metric_list")
    return [m["metric"] for m in metric_list if isinstance(m, dict) and isinstance(m.get("metric"), str)]


def filters_from_results(results: dict[str, Any], task: str) -> list[str]:
    """The task's configured filter names (``configs[task].filter_list[].name``), in order."""
    filter_list = _task_config_list(results, task, "filter_list")
    return [str(f["name"]) for f in filter_list if isinstance(f, dict) and "name" in f]


def label_filters(
    records: list[tuple[int, dict[str, Any]]], configured: Sequence[str]
) -> list[tuple[int, dict[str, Any]]]:
    """Give each record its filter when the log does not say it but the task has several filters.

    lm-eval 0.4.0 - 0.4.2 and lmms-eval log a document once per filter without a ``filter`` key: their
    ``evaluator.py`` loops ``for filter_key in task.instances[0].filtered_resps.keys()`` (the task's
    ``filter_list`` order) and, inside, over the documents. The k-th line of a document is therefore its
    k-th configured filter (also when ranks' samples are gathered one rank after the other).
    """
    if len(configured) < 2 or any("filter" in r for _, r in records):
        return records
    seen: dict[Any, int] = {}
    out = []
    for n, rec in records:
        k = seen.get(rec.get("doc_id"), 0)
        seen[rec.get("doc_id")] = k + 1
        if k >= len(configured):
            return records  # more repeats than filters: not this layout; left to the duplicate checks
        out.append((n, {**rec, "filter": configured[k]}))
    return out if max(seen.values()) == len(configured) else records


def dict_score(value: dict[str, Any], metric: str | None = None) -> float | None:
    """The score inside a dict-valued metric (rules in the module docstring), or None if there is none."""
    for key in DICT_SCORE_KEYS:
        v = value.get(key)
        if isinstance(v, bool | int | float) and v is not None:
            return float(v)
    if "answer" in value and "parsed_pred" in value:
        return mmmu_correct(value)
    if "pred" in value and "answer" in value and (metric or "").startswith("seed_"):
        return seed_correct(value)
    return None


def metric_value(value: Any, path: Path, line: int, metric: str) -> float:
    """A per-sample metric value as a float; ``None`` is missing (NaN)."""
    if value is None:
        return float("nan")
    if isinstance(value, bool | int | float):
        return float(value)
    if isinstance(value, dict):
        score = dict_score(value, metric)
        if score is not None:
            return score
        raise InputError(
            f"{path}, line {line}: metric {metric!r} is a dict without a score field "
            f"(keys {sorted(value)}); expected one of {list(DICT_SCORE_KEYS)}, MMMU's answer/parsed_pred "
            "or SEED-Bench's pred/answer"
        )
    raise InputError(f"{path}, line {line}: metric {metric!r} value {value!r} is not a number")


def _candidates(rec: dict[str, Any]) -> list[str]:
    return [
        k for k, v in rec.items() if k not in NON_METRIC_KEYS and isinstance(v, bool | int | float | dict)
    ]


def choose_metric(
    records: list[tuple[int, dict[str, Any]]], path: Path, metric: str | None, configured: Sequence[str]
) -> str:
    """Pick the metric: the one asked for, else the sample's own ``metrics`` list, else the task config's
    ``metric_list``, else the only candidate key, else ``acc`` / ``exact_match`` / ``accuracy``."""
    first = records[0][1]
    cands = _candidates(first)
    if metric is not None:
        if not any(metric in rec for _, rec in records):
            raise InputError(f"{path}: no metric {metric!r} in the samples (metrics found: {cands})")
        return metric
    listed = first.get("metrics")
    ordered = [m for m in listed if isinstance(m, str)] if isinstance(listed, list) else list(configured)
    # a metric every sample logs comes first: lmms-eval's MMStar logs its per-category metric only on that
    # category's samples and ``average`` on all (mmstar/utils.py mmstar_process_results)
    for m in ordered:
        if all(m in rec for _, rec in records):
            return m
    for m in ordered:
        if m in first:
            return m
    if len(cands) == 1:
        return cands[0]
    for m in PREFERRED_METRICS:
        if m in cands:
            return m
    if not cands:
        raise FormatError(
            f"{path}, line {records[0][0]}: no metric value in the sample (keys {sorted(first)})"
        )
    several: str = choose(None, cands, what="metric", param="metric", where=str(path))  # raises: several
    return several


#: the filter name the harnesses log for a task without filters (lm-eval's default ``take_first`` pipeline)
NO_FILTER = "none"


def choose_filter(
    records: list[tuple[int, dict[str, Any]]],
    path: Path,
    filter_name: str | None,
    notes: list[str] | None = None,
    task: str | None = None,
) -> str | None:
    """The filter to keep: the one asked for, else the only one present (None when samples carry none).

    A file with a single filter keeps it. When that filter is not the one asked for, a warning in
    ``notes`` says so (the scores are another filter's than asked), unless the file's filter is ``none``:
    a task without filters (a multiple-choice task beside the generation tasks the filter was named for),
    whose scores no filter changed.
    """
    filters = list(dict.fromkeys(rec["filter"] for _, rec in records if "filter" in rec))
    if len(filters) > 1:
        chosen: str = choose(filter_name, filters, what="filter", param="filter", where=f"{path}: samples")
        return chosen
    only = filters[0] if filters else None
    if (
        filter_name is not None
        and only is not None
        and only not in (filter_name, NO_FILTER)
        and notes is not None
    ):
        of = f"task {task!r}" if task is not None else "this task"
        notes.append(
            f"warning: {path}: {of} has no filter {filter_name!r}; its only filter is {only!r}, whose scores "
            f"are imported instead"
        )
    return only


def _loglikelihood(resp: Any) -> float | None:
    """The log-likelihood of one ``[loglik, is_greedy]`` pair (logged as numbers or as strings), else None."""
    if not isinstance(resp, list | tuple) or len(resp) != 2 or isinstance(resp[0], bool):
        return None
    try:
        return float(resp[0])
    except (TypeError, ValueError):
        return None


def logged_answer(rec: dict[str, Any]) -> str | None:
    """The model's answer in a sample record: the first filtered (else raw) response of a generation task,
    or, for a multiple-choice task scored by log-likelihood (one ``[loglik, is_greedy]`` pair per option),
    the index of the most likely option (``"2"``)."""
    resps = rec.get("filtered_resps", rec.get("resps"))
    if isinstance(resps, str):  # lmms-eval logs a single filtered response as a plain string
        return resps
    if not isinstance(resps, list) or not resps:
        return None
    lls = [_loglikelihood(r) for r in resps]
    if all(v is not None for v in lls):
        return str(int(np.argmax(np.asarray(lls, dtype=np.float64))))
    first = resps[0]
    while isinstance(first, list | tuple):  # raw resps nest one list per request
        first = first[0] if first else None
    return None if first is None else str(first)


#: the most characters of a logged question (or answer) kept as item metadata
ITEM_TEXT_CHARS = 2_000
ITEM_TEXT_COLUMNS = ("question", "choices", "answer")
_DOC_QUESTION_KEYS = ("question", "query", "problem", "prompt", "input", "text", "ctx", "sentence")
_DOC_CHOICE_KEYS = ("choices", "options")


def _bounded(text: str) -> str:
    return text if len(text) <= ITEM_TEXT_CHARS else text[: ITEM_TEXT_CHARS - 3] + "..."


def _input_text(value: Any) -> str | None:
    """A sample's ``input``: a string (lmms-eval's prompt, inspect's input), or inspect's chat messages
    (``[{"role": "user", "content": str | [{"type": "text", "text": ...}, {"type": "image", ...}]}]``):
    the text of the user messages, images left out."""
    if isinstance(value, str):
        return value or None
    if not isinstance(value, list):
        return None
    texts: list[str] = []
    for message in value:
        if not isinstance(message, dict) or message.get("role", "user") != "user":
            continue
        content = message.get("content")
        if isinstance(content, str):
            texts.append(content)
        elif isinstance(content, list):
            texts.extend(
                str(part["text"])
                for part in content
                if isinstance(part, dict) and part.get("type") == "text" and isinstance(part.get("text"), str)
            )
    return "\n".join(t for t in texts if t) or None


def logged_item_text(rec: dict[str, Any]) -> tuple[str | None, str | None, str | None]:
    """``(question, choices, answer)`` of a sample record where the harness logged them, each at most
    :data:`ITEM_TEXT_CHARS` characters, else ``None``.

    question: the text field of the logged ``doc`` (lm-eval: ``question``, ``query``, ``problem`` ...),
    else the sample's ``input`` (lmms-eval logs the prompt there; inspect the input string or the user
    messages' text); never lm-eval's ``arguments`` (the full prompt, few-shot examples and all, which would
    make every item of a task look alike to the audit's text duplicates); choices: the doc's
    ``choices``/``options`` list (else inspect's sample ``choices``) as a JSON list; answer: the sample's
    ``target`` as logged (for lm-eval's multiple-choice tasks, the index of the right choice; a list of
    targets joined by ", ")."""
    doc = rec.get("doc")
    question = None
    choices = None
    if isinstance(doc, dict):
        question = next((doc[k] for k in _DOC_QUESTION_KEYS if isinstance(doc.get(k), str) and doc[k]), None)
        options = next((doc[k] for k in _DOC_CHOICE_KEYS if isinstance(doc.get(k), list) and doc[k]), None)
        if options is not None:
            choices = _bounded(json.dumps([str(o) for o in options], ensure_ascii=False))
    if question is None:
        question = _input_text(rec.get("input"))
    if choices is None and isinstance(rec.get("choices"), list) and rec["choices"]:  # inspect's sample
        choices = _bounded(json.dumps([str(o) for o in rec["choices"]], ensure_ascii=False))
    target = rec.get("target")
    if isinstance(target, list):
        target = ", ".join(str(t) for t in target) if target else None
    answer = None if target is None or isinstance(target, dict) else _bounded(str(target))
    return (None if question is None else _bounded(question)), choices, answer


def item_text_columns(samples: Sequence[dict[str, Any]]) -> dict[str, pd.Series]:
    """The ``question``, ``choices`` and ``answer`` item columns of one file's samples, in row order
    (:func:`logged_item_text`), as text columns (what the coded import path takes, so an item's text is
    held once however many runs log it); a column no sample logged is left out."""
    return text_columns([logged_item_text(rec) for rec in samples])


def text_columns(
    texts: Sequence[Sequence[str | None]], names: Sequence[str] = ITEM_TEXT_COLUMNS
) -> dict[str, pd.Series]:
    """Item text columns ``names`` from one tuple of texts per row (``None`` = not logged), each cut to
    :data:`ITEM_TEXT_CHARS`; a column no row logged is left out."""
    out: dict[str, pd.Series] = {}
    for k, col in enumerate(names):
        values = [None if t[k] is None else _bounded(str(t[k])) for t in texts]
        if any(v is not None for v in values):
            out[col] = pd.Series(values, dtype=text_dtype())
    return out


def choices_text(options: Any) -> str | None:
    """A logged list of choices as the ``choices`` item column holds it (a JSON list of strings)."""
    if not isinstance(options, list | tuple) or not options:
        return None
    return _bounded(json.dumps([str(o) for o in options], ensure_ascii=False))


def check_reported(
    scores: np.ndarray, value: Any, where: str, model: str, tolerance: float = 1e-9
) -> list[str]:
    """A warning when the mean of the observed per-item ``scores`` is not the tool's own aggregate ``value``
    (a number; anything else is not checked), naming both numbers. Equal means: within ``tolerance``, or,
    when ``value`` has fewer than 9 decimals (a tool that rounds), equal once rounded as it is."""
    if not isinstance(value, int | float) or isinstance(value, bool) or not math.isfinite(value):
        return []
    observed = scores[~np.isnan(scores)]
    if not len(observed):
        return []
    mean = float(np.mean(observed))
    if abs(mean - float(value)) <= tolerance + 1e-12 * abs(float(value)):
        return []
    text = repr(float(value))
    if "e" not in text and len(text.split(".")[1]) < 9:  # a rounded number (lmms-eval's MMMU: 5 decimals)
        digits = len(text.split(".")[1])
        if abs(round(mean, digits) - float(value)) <= 10.0**-digits / 2:
            return []
    return [
        f"warning: {where}: the per-item mean is {mean:.10g} but the tool's own aggregate beside it says "
        f"{float(value):.10g} for model {model!r} (the panel holds the per-item scores)"
    ]


def samples_to_long(
    records: list[tuple[int, dict[str, Any]]],
    path: Path,
    *,
    task: str,
    model: str,
    metric: str | None,
    filter_name: str | None,
    condition: str | None,
    configured_metrics: Sequence[str] = (),
    configured_filters: Sequence[str] = (),
    notes: list[str] | None = None,
    reported: Any = None,
) -> pd.DataFrame:
    """One long-table row per document: item = ``doc_id``, benchmark = task, score = the chosen metric.

    ``reported``: the results json's entry of the task (``{"acc,none": 0.5, ...}``); when it holds the
    chosen ``<metric>,<filter>`` and the metric is a mean over items, the per-item mean is checked
    against it (:func:`check_reported`)."""
    records = label_filters(records, configured_filters)
    chosen_filter = choose_filter(records, path, filter_name, notes, task)
    if chosen_filter is not None:
        records = [(n, r) for n, r in records if r.get("filter", chosen_filter) == chosen_filter]
    name = choose_metric(records, path, metric, configured_metrics)
    if name in NOT_ITEM_MEANS:
        raise InputError(
            f"{path}: metric {name!r} is not a mean over items (lmms-eval computes {NOT_ITEM_MEANS[name]}); "
            f"its per-item 'score' is correctness: use `metric` {ITEM_MEAN_ALTERNATIVE[name]}"
        )
    aggregate = other_aggregate(task, name)
    if aggregate is not None and notes is not None:
        notes.append(
            f"warning: {path.name}: task {task!r} metric {name!r}: imported per-item correctness; the "
            f"panel's mean is their mean, not the number lmms-eval reports ({aggregate})"
        )
    # Without an explicit metric, a sample that lacks the chosen one takes the first other configured
    # metric it has: lmms-eval's MME logs ``mme_percetion_score`` or ``mme_cognition_score`` per sample.
    fallbacks = [] if metric is not None else [m for m in configured_metrics if m != name]
    items: list[str] = []
    scores = np.empty(len(records), dtype=np.float64)
    categories: list[Any] = []
    lines: list[str] = []
    answers: list[str | None] = []
    char_rule = np.full(len(records), np.nan)  # lmms-eval 0.7.2's MMMU score of a string-logged open answer
    for k, (n, rec) in enumerate(records):
        if "doc_id" not in rec:
            raise FormatError(f"{path}, line {n}: sample without 'doc_id'")
        items.append(str(rec["doc_id"]))
        key = name if name in rec else next((m for m in fallbacks if m in rec), name)
        value = rec.get(key)
        scores[k] = metric_value(value, path, n, key)
        old = mmmu_char_rule(value)
        char_rule[k] = scores[k] if old is None else old
        cat = None
        if isinstance(value, dict):
            cat = next((value[c] for c in CATEGORY_KEYS if isinstance(value.get(c), str)), None)
        categories.append(cat)
        lines.append(f"line {n}")
        answers.append(logged_answer(rec))
    if notes is not None:
        how = f", filter {chosen_filter!r}" if chosen_filter is not None else ""
        notes.append(
            f"{path.name}: task {task!r}, model {model!r}, metric {name!r}{how}, {len(records)} samples"
        )
        value = reported.get(f"{name},{chosen_filter or 'none'}") if isinstance(reported, dict) else None
        where = f"{path.name}: task {task!r} metric {name!r}"
        string_logged = _mmmu_string_note(scores, char_rule, value, where, model)
        notes.extend(string_logged)
        if aggregate is None and not (string_logged and not check_reported(char_rule, value, where, model)):
            notes.extend(check_reported(scores, value, where, model))
    return pd.DataFrame(
        {
            "model": model,
            "condition": condition or "image",
            "benchmark": task,
            "item": items,
            "score": scores,
            "category": pd.Series(categories, dtype=object),
            FILE_COL: str(path),
            ROW_COL: lines,
            ANSWER_COL: pd.Series(answers, dtype=object),
            # item metadata where the harness logged it (first row of an item wins, see Panel.from_long)
            **item_text_columns([rec for _, rec in records]),
        }
    )


def _mmmu_string_note(
    scores: np.ndarray, char_rule: np.ndarray, reported: Any, where: str, model: str
) -> list[str]:
    """A warning when MMMU items logged as lmms-eval 0.7.2 logged them (an open question's prediction as
    strings) score otherwise under 0.7.2's character-by-character rule than under 0.7.3's, which the panel
    holds (:mod:`benchsift.io._lmms_rules`); none when the tool's own aggregate ``reported`` is the panel's
    mean (an older log whose tool scored the strings as candidates, as 0.7.3 does)."""
    differ = int(np.sum(~np.isnan(char_rule) & (scores != char_rule)))
    tool_agrees = reported is not None and not check_reported(scores, reported, where, model)
    if not differ or tool_agrees:
        return []
    mean, old = float(np.nanmean(scores)), float(np.nanmean(char_rule))
    own = f"{float(reported):.5g}" if isinstance(reported, int | float) else "not in the results json"
    return [
        f"warning: {where}: {differ} open question(s) log parsed_pred as strings, as lmms-eval 0.7.2 did "
        f"(str of each response's first candidate), and 0.7.2's evaluate_mmmu ran eval_open over each "
        f"string character by character, so it counted them wrong (mean under that rule {old:.5g}; the "
        f"tool's own aggregate: {own}); the panel scores them by lmms-eval 0.7.3's rule (its "
        f"to_submission_answer fix; a logged number read back as a number, only the first candidate was "
        f"logged): mean {mean:.5g} for model {model!r}"
    ]


def _results_json(candidates: Sequence[Path], root: Path, notes: list[str] | None) -> dict[str, Any]:
    """The first of ``candidates`` that is a results json object, read only inside ``root``
    (:func:`~benchsift.io._walk.side_file`: one linking outside is not read, ``notes`` says so)."""
    return _results_json_at(candidates, root, notes)[0]


def _results_json_at(
    candidates: Sequence[Path], root: Path, notes: list[str] | None
) -> tuple[dict[str, Any], Path | None]:
    """:func:`_results_json` and the file it was read from (None: none was)."""
    for c in candidates:
        if side_file(c, root, notes) is not None:
            data = read_json(c)
            if isinstance(data, dict):
                return data, c
    return {}, None


def _count(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else None


def sample_count_notes(
    path: Path, results: dict[str, Any], task: str, frame: pd.DataFrame, source: Path | None
) -> list[str]:
    """Warnings when the samples of ``task`` in the file ``path`` (its long table ``frame``) are not the
    whole benchmark by the run's own count: its results json's ``n-samples`` (lm-eval and lmms-eval
    ``evaluator_utils.py``: ``original`` = the task's documents, ``effective`` = those evaluated),
    ``config.limit`` (``--limit``) and ``config.offset`` (lmms-eval's ``--offset``: each task starts at that
    document).

    * ``effective < original``, or an offset: a partial run (``--limit N``, ``--offset K``, or documents
      left out): the panel's benchmark is the evaluated part;
    * the file holds fewer documents than were evaluated: it was cut short (a line-boundary cut reads as a
      valid, smaller file); the documents it lacks are not in the panel. With an offset the run evaluated
      ``min(effective, original - offset)`` documents: lmms-eval's ``effective`` is ``min(limit, original)``
      (``evaluator.py``), which does not count the offset.
    """
    counts = results.get("n-samples")
    entry = counts.get(task) if isinstance(counts, dict) else None
    if not isinstance(entry, dict) or frame.empty:
        return []
    original, effective = _count(entry.get("original")), _count(entry.get("effective"))
    config = results.get("config")
    limit = config.get("limit") if isinstance(config, dict) else None
    offset = _count(config.get("offset")) if isinstance(config, dict) else None
    offset = offset or 0
    if offset and original is not None and effective is not None:
        effective = min(effective, max(original - offset, 0))
    named = source.name if source is not None else "the results json"
    model = str(frame["model"].iloc[0])
    out = []
    if original is not None and effective is not None and (effective < original or offset):
        flags = []
        if isinstance(limit, int | float) and not isinstance(limit, bool):
            flags.append(f"--limit {float(limit):g}")
        if offset:
            flags.append(f"--offset {offset}")
        why = f"a run with {' '.join(flags)}" if flags else "a partial run"
        which = f"documents {offset} to {offset + effective - 1}, " if offset and effective else ""
        out.append(
            f"warning: {path}: task {task!r} is {why}: {which}{effective} of its {original} documents were "
            f"evaluated ({named}, n-samples{', config.offset' if offset else ''}); model {model!r} has those "
            f"{effective} in the panel, {SUBSET_RUN}"
        )
    held = int(frame["item"].nunique())
    if effective is not None and held < effective:
        out.append(
            f"warning: {path}: holds {held} of the {effective} documents the run evaluated on task {task!r} "
            f"({named}, n-samples{', config.offset' if offset else ''}); the file looks cut short: the other "
            f"{effective - held} are not in the panel for model {model!r}"
        )
    return out


@dataclass(frozen=True)
class HarnessLayout:
    """Where a harness writes its logs: ``samples_glob`` finds sample files in a folder, ``name_re`` reads
    ``task`` and ``date`` from a sample file's name, ``results_name(date)`` / ``dated_glob(date)`` /
    ``results_glob`` find the results json beside it (the same run's date first: lm-eval names it
    ``results_<date>.json``, or ``<stem>_<date>.json`` with ``--output_path <stem>.json``)."""

    samples_glob: str
    name_re: re.Pattern[str]
    results_name: Callable[[str], str]
    results_glob: str
    dated_glob: Callable[[str], str] | None = None

    def results_candidates(self, path: Path, date: str | None) -> list[Path]:
        if date:
            first = [path.parent / self.results_name(date)]
            if self.dated_glob is not None:
                first += sorted(path.parent.glob(self.dated_glob(glob.escape(date))))
            return first
        return sorted(path.parent.glob(self.results_glob), reverse=True)


def refuse_results_file(path: Path, layout: HarnessLayout) -> None:
    """Refuse, naming where the per-item scores are, a harness's results file given as a sample log: a
    ``.json`` holding one object with a ``results`` key (read as JSON lines, its first line is ``{``, and
    the error would say "not valid JSON")."""
    if path.suffix.lower() != ".json" or not path.is_file():
        return
    try:
        data = loads_bounded(path.read_bytes(), str(path))
    except (ValueError, UnicodeDecodeError):  # a FormatError (too deep) is a ValueError too
        return
    if isinstance(data, dict) and "results" in data:
        raise FormatError(
            f"{path}: the run's results file (aggregate scores per task), not a per-sample log; the "
            f"per-item scores are in the sample files beside it ({layout.samples_glob}, written when the "
            "harness runs with --log_samples)"
        )


def read_harness_file(
    path: Path,
    layout: HarnessLayout,
    *,
    model: str | None,
    metric: str | None,
    filter_name: str | None,
    benchmark: str | None,
    condition: str | None,
    notes: list[str] | None,
    root: Path | None = None,
) -> pd.DataFrame:
    """The long table of one sample file written in ``layout``; its results json is read only inside
    ``root`` (default: the folder that holds the file, :func:`~benchsift.io._walk.root_of`)."""
    refuse_results_file(path, layout)
    m = layout.name_re.match(path.name)
    task = m.group("task") if m else path.stem
    if m is None and benchmark is None and notes is not None:
        # another harness's file, or one renamed: its task is not in the name, so the benchmark is the
        # whole file name (a run of lm-eval's samples_<task>_<date>.jsonl would be a benchmark of one run)
        notes.append(
            f"warning: {path}: not named as this harness names its sample files ({layout.samples_glob}), so "
            f"its benchmark is the file name {task!r} (`benchmark` names it)"
        )
    candidates = layout.results_candidates(path, m.group("date") if m else None)
    results, source = _results_json_at(candidates, root_of(path) if root is None else root, notes)
    return results_samples(
        path,
        results,
        task,
        model=model,
        metric=metric,
        filter_name=filter_name,
        benchmark=benchmark,
        condition=condition,
        notes=notes,
        source=source,
    )


def results_samples(
    path: Path,
    results: dict[str, Any],
    task: str,
    *,
    model: str | None,
    metric: str | None,
    filter_name: str | None,
    benchmark: str | None,
    condition: str | None,
    notes: list[str] | None,
    source: Path | None = None,
) -> pd.DataFrame:
    """The long table of the sample file ``path`` of ``task``, read with its results json ``results``
    (the configured metrics and filters, the model name, the reported aggregate and sample counts: see
    :func:`sample_count_notes`; ``source``: the file it came from, for the warnings); ``model`` and
    ``benchmark`` override the recorded model and the task."""
    name = model or model_from_results(results) or path.parent.name.replace("__", "/")
    reported = results.get("results")
    frame = samples_to_long(
        read_jsonl(path),
        path,
        task=benchmark or task,
        model=name,
        metric=metric,
        filter_name=filter_name,
        condition=condition,
        configured_metrics=metrics_from_results(results, task),
        configured_filters=filters_from_results(results, task),
        notes=notes,
        reported=reported.get(task) if isinstance(reported, dict) else None,
    )
    if notes is not None:
        notes.extend(sample_count_notes(path, results, task, frame, source))
    return frame


def read_harness_panel(
    paths: Paths,
    layout: HarnessLayout,
    *,
    model: str | None,
    metric: str | None,
    filter_name: str | None,
    benchmark: str | None,
    condition: str | None,
    rescale: RescaleMode,
    scales: ScaleMap | None,
    notes: list[str] | None,
    answers: list[pd.DataFrame] | None,
    read_file: Callable[..., pd.DataFrame | None] | None = None,
    patterns: Sequence[str] | None = None,
    what: str = "sample",
) -> Panel:
    """The panel of several sample files (or folders of them, walked by :func:`walk_inputs`)."""
    reader = read_file or read_harness_file
    options = dict(
        model=model, metric=metric, filter_name=filter_name, benchmark=benchmark, condition=condition
    )

    def one(path: Path, notes: list[str] | None, root: Path) -> pd.DataFrame | None:
        return reader(path, layout, notes=notes, root=root, **options)

    found = patterns or (layout.samples_glob,)
    return read_sample_panel(
        as_paths(paths), found, one, what=what, rescale=rescale, scales=scales, notes=notes, answers=answers
    )


def harness_runs(
    paths: list[tuple[Path, Path]],
    layout: HarnessLayout,
    *,
    model: str | None = None,
    benchmark: str | None = None,
) -> list[RunFile]:
    """Each sample file's task as the harness picks the latest run (lm-eval's ``get_latest_filename``,
    lmms-eval's metadata card): its folder, model (results json, read only inside the file's root: ``paths``
    are ``(file, root)``) and task; newest by ``<date>``; its clash key: the model and task as the panel
    names them (``model`` and ``benchmark`` override them), which runs in other folders share
    (:mod:`benchsift.io._runs`)."""
    runs = []
    for path, root in paths:
        m = layout.name_re.match(path.name)
        if m is None:
            continue
        date = m.group("date")
        try:
            results = _results_json(layout.results_candidates(path, date), root, None)
        except (FormatError, OSError):
            results = {}
        recorded = model_from_results(results)
        key = (path.parent.resolve(), recorded or path.parent.name, m.group("task"))
        # the model as results_samples names it
        clash = (model or recorded or path.parent.name.replace("__", "/"), benchmark or m.group("task"))
        runs.append(RunFile(path, key, (date,), date, f"run {date}", owner=key[:2], clash=clash))
    return runs


def read_latest_runs(
    paths: Paths,
    layout: HarnessLayout,
    read_file: Callable[..., pd.DataFrame | None],
    *,
    tool: str,
    keep_all_runs: bool,
    patterns: Sequence[str] | None = None,
    **options: Any,
) -> tuple[Panel, list[RunFile]]:
    """:func:`read_harness_panel` of ``paths`` (``options``: its ``model`` ... ``answers``) reading each
    sample file with ``read_file`` (``read_harness_file``'s signature), of a task run more than once into one
    folder only the latest run (:func:`harness_runs`, :func:`benchsift.io._runs.choose_runs`: the others
    skipped with a warning, or with ``keep_all_runs`` each its own model run); and the runs."""
    given = as_paths(paths)
    found = tuple(patterns or (layout.samples_glob,))
    runs = harness_runs(
        rooted_candidates(given, found), layout, model=options["model"], benchmark=options["benchmark"]
    )
    per_file = {k: options[k] for k in ("model", "metric", "filter_name", "benchmark", "condition")}
    choose = choose_runs(
        runs,
        lambda p, n, r: read_file(p, layout, notes=n, root=r, **per_file),
        keep_all_runs=keep_all_runs,
        tool=tool,
    )
    with explain_conflicts(runs, keep_all_runs=keep_all_runs):
        panel = read_harness_panel(
            given,
            layout,
            **options,
            read_file=lambda path, layout, notes, root, **_: choose(path, notes, root),
            patterns=found,
        )
    return panel, runs
