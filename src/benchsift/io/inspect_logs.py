"""Importer ``inspect``: UK AISI inspect_ai evaluation logs (``.json`` and ``.eval``).

An inspect log is an ``EvalLog`` (``inspect_ai/log/_log.py``): ``version``, ``status``, ``eval`` (an
``EvalSpec`` with ``task``, ``model``, ``dataset``, ...), ``plan``, ``results``, ``stats`` and ``samples``, a
list of ``EvalSample`` with ``id``, ``epoch``, ``input``, ``target``, ``metadata``, ``error`` and ``scores``:
``{scorer name: Score}`` where a ``Score`` has a ``value`` and optional ``answer`` / ``explanation``.

* ``.json``: the whole ``EvalLog`` as one JSON document.
* ``.eval``: a zip archive (``inspect_ai/log/_recorders/eval.py``) with ``header.json`` (the ``EvalLog``
  without samples; an unfinished log has ``_journal/start.json`` instead) and one
  ``samples/<id>_epoch_<n>.json`` per sample and epoch.

Score values become floats as inspect's own ``value_to_float`` does: ``C`` (correct) 1, ``P`` (partial)
0.5, ``I`` (incorrect) 0, ``N`` (no answer) 0, ``yes``/``true`` 1, ``no``/``false`` 0, numbers and numeric
strings as they are. A sample without scores (it errored) or with a NaN value (``Score.unscored``) is
missing. A dict-valued score needs ``score_key`` to pick the field. With several scorers, ``scorer`` picks
one (default: the only one, else an error listing them). Several epochs of a sample are averaged (inspect's
default ``mean`` reducer).

Mapping: model = ``eval.model`` (e.g. ``openai/gpt-4o``) unless ``model`` is given, benchmark = ``eval.task``
unless ``benchmark`` is given, item = sample ``id``, category = sample ``metadata.category`` /
``subject`` when present.
"""

from __future__ import annotations

import json
import math
import zipfile
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from benchsift.errors import FormatError, InputError
from benchsift.io._common import (
    ANSWER_COL,
    FILE_COL,
    ROW_COL,
    Paths,
    as_paths,
    assemble_panel,
    check_file,
    source_label,
)
from benchsift.io._harness import read_json
from benchsift.io.rescale import RescaleMode
from benchsift.panel import Panel

LETTER_VALUES = {"C": 1.0, "P": 0.5, "I": 0.0, "N": 0.0}
TEXT_VALUES = {"yes": 1.0, "true": 1.0, "no": 0.0, "false": 0.0}
CATEGORY_KEYS = ("category", "subject", "subdomain")


def score_to_float(value: Any, where: str, score_key: str | None) -> float:
    """One ``Score.value`` as a float (rules in the module docstring)."""
    if value is None:
        return float("nan")
    if isinstance(value, bool | int | float):
        return float(value)
    if isinstance(value, str):
        if value in LETTER_VALUES:
            return LETTER_VALUES[value]
        low = value.strip().lower()
        if low in TEXT_VALUES:
            return TEXT_VALUES[low]
        try:
            number = float(low)
        except ValueError:
            raise InputError(f"{where}: score value {value!r} is not C/I/P/N, yes/no or a number") from None
        if math.isinf(number):
            raise InputError(f"{where}: score value {value!r} is infinite")
        return number
    if isinstance(value, dict):
        if score_key is None:
            raise InputError(
                f"{where}: score value is a dict with keys {sorted(value)}; choose one with --metric"
            )
        if score_key not in value:
            raise InputError(f"{where}: score value has no key {score_key!r} (keys {sorted(value)})")
        return score_to_float(value[score_key], where, None)
    raise InputError(f"{where}: score value {value!r} is not a scalar")


def _load_eval_zip(path: Path) -> tuple[dict[str, Any], list[tuple[str, dict[str, Any]]]]:
    check_file(path)
    try:
        zf = zipfile.ZipFile(path)
    except zipfile.BadZipFile:
        raise FormatError(f"{path}: not an inspect .eval archive (not a zip file)") from None
    with zf:
        names = zf.namelist()
        header_name = "header.json" if "header.json" in names else "_journal/start.json"
        if header_name not in names:
            raise FormatError(f"{path}: .eval archive without header.json or _journal/start.json")
        try:
            header = json.loads(zf.read(header_name))
            samples = [
                (f"member {n}", json.loads(zf.read(n)))
                for n in sorted(names)
                if n.startswith("samples/") and n.endswith(".json")
            ]
        except json.JSONDecodeError as exc:
            raise FormatError(f"{path}: a member of the archive is not valid JSON ({exc.msg})") from None
    return header, samples


def _load_json_log(path: Path) -> tuple[dict[str, Any], list[tuple[str, dict[str, Any]]]]:
    log = read_json(path)
    if not isinstance(log, dict) or "eval" not in log:
        raise FormatError(f"{path}: not an inspect EvalLog (no 'eval' field)")
    samples = log.get("samples") or []
    if not isinstance(samples, list):
        raise FormatError(f"{path}: 'samples' is not a list")
    return log, [(f"samples[{i}]", s) for i, s in enumerate(samples)]


def _pick_scorer(samples: list[tuple[str, dict[str, Any]]], path: Path, scorer: str | None) -> str:
    names = list(dict.fromkeys(k for _, s in samples for k in (s.get("scores") or {})))
    if scorer is not None:
        if scorer not in names:
            raise InputError(f"{path}: no scorer {scorer!r} (scorers: {names})")
        return scorer
    if not names:
        raise FormatError(f"{path}: no sample has scores")
    if len(names) > 1:
        raise InputError(f"{path}: several scorers {names}; choose one with --scorer")
    return names[0]


def _logged_answer(sample: dict[str, Any], score: Any) -> str | None:
    """The model's answer: the scorer's extracted ``answer``, else the output's ``completion``."""
    if isinstance(score, dict) and score.get("answer") is not None:
        return str(score["answer"])
    output = sample.get("output")
    completion = output.get("completion") if isinstance(output, dict) else None
    return completion if isinstance(completion, str) else None


def _read_one(
    path: Path,
    *,
    model: str | None,
    benchmark: str | None,
    scorer: str | None,
    score_key: str | None,
    condition: str | None,
    notes: list[str] | None,
) -> pd.DataFrame:
    if path.suffix.lower() == ".eval":
        header, samples = _load_eval_zip(path)
    elif path.suffix.lower() == ".json":
        header, samples = _load_json_log(path)
    else:
        raise FormatError(f"{path}: expected an inspect log ending in .eval or .json")
    spec = header.get("eval")
    if not isinstance(spec, dict):
        raise FormatError(f"{path}: header without an 'eval' specification")
    if not samples:
        raise FormatError(f"{path}: the log holds no samples (written with --no-log-samples?)")
    name = model or spec.get("model")
    task = benchmark or spec.get("task")
    if not name or not task:
        raise FormatError(f"{path}: 'eval.model' or 'eval.task' missing; give --model / --benchmark")
    chosen = _pick_scorer(samples, path, scorer)
    ids, values, cats, where, answers = [], [], [], [], []
    for row, s in samples:
        label = f"{path}, {row}"
        if "id" not in s:
            raise FormatError(f"{label}: sample without 'id'")
        score = (s.get("scores") or {}).get(chosen)
        value = score.get("value") if isinstance(score, dict) else None
        ids.append(str(s["id"]))
        values.append(score_to_float(value, label, score_key))
        raw_meta = s.get("metadata")
        meta: dict[str, Any] = raw_meta if isinstance(raw_meta, dict) else {}
        cats.append(next((meta[k] for k in CATEGORY_KEYS if isinstance(meta.get(k), str)), None))
        where.append(row)
        answers.append(_logged_answer(s, score))
    table = pd.DataFrame({"item": ids, "score": np.asarray(values, dtype=np.float64), "category": cats})
    table[ROW_COL] = where
    table[ANSWER_COL] = pd.Series(answers, dtype=object)
    n_rows = len(table)
    # several epochs of one sample: inspect's default reducer, the mean (NaN-aware)
    grouped = table.groupby("item", sort=False)
    table = grouped.agg(
        score=("score", "mean"),
        category=("category", "first"),
        **{ROW_COL: (ROW_COL, "first"), ANSWER_COL: (ANSWER_COL, "first")},  # the first epoch's answer
    )
    table = table.reset_index()
    if notes is not None:
        epochs = f" ({n_rows} sample-epochs averaged)" if n_rows > len(table) else ""
        notes.append(
            f"{path.name}: task {task!r}, model {name!r}, scorer {chosen!r}, {len(table)} samples{epochs}"
        )
    table["model"] = str(name)
    table["condition"] = condition or "image"
    table["benchmark"] = str(task)
    table[FILE_COL] = str(path)
    return table


def read_inspect(
    paths: Paths,
    *,
    model: str | None = None,
    benchmark: str | None = None,
    scorer: str | None = None,
    metric: str | None = None,
    condition: str | None = None,
    rescale: RescaleMode = "auto",
    scales: dict[str, float] | None = None,
    notes: list[str] | None = None,
    answers: list[pd.DataFrame] | None = None,
) -> Panel:
    """Read inspect_ai logs (``.json`` or ``.eval``) into a panel; ``metric`` picks a field of dict scores.

    ``answers``: a list that receives the long table of logged answers (the scorer's ``answer``, else the
    output's ``completion``; the first epoch's when a sample ran several), see :mod:`benchsift.io.answers`.
    """
    files = as_paths(paths)
    parts = [
        _read_one(
            p,
            model=model,
            benchmark=benchmark,
            scorer=scorer,
            score_key=metric,
            condition=condition,
            notes=notes,
        )
        for p in files
    ]
    long = pd.concat(parts, ignore_index=True) if len(parts) > 1 else parts[0]
    return assemble_panel(
        long, source=source_label(files), rescale=rescale, scales=scales, notes=notes, answers=answers
    )
