"""Importer ``inspect``: UK AISI inspect_ai evaluation logs (``.eval`` and ``.json``, files or folders).

An inspect log is an ``EvalLog`` (``inspect_ai/log/_log.py``): ``version``, ``status``, ``eval`` (an
``EvalSpec`` with ``task``, ``model``, ``config.epochs_reducer``, ...), ``results``, ``samples`` (a list of
``EvalSample`` with ``id``, ``epoch``, ``metadata``, ``error`` and ``scores``: ``{scorer name: Score}``, a
``Score`` having a ``value`` and optional ``answer``) and ``reductions`` (``EvalSampleReductions``: per
scorer and reducer, the reduced ``Score`` of every sample, as ``inspect_ai/_eval/task/results.py``
``reduce_scores`` computed them for the log's metrics).

* ``.json`` (``--log-format json``): the whole ``EvalLog`` as one JSON document.
* ``.eval`` (the default): a zip archive (``inspect_ai/log/_recorders/eval.py``) with ``header.json``,
  ``reductions.json``, ``summaries.json`` and one ``samples/<id>_epoch_<n>.json`` per sample and epoch; an
  unfinished run has ``_journal/start.json`` instead of ``header.json``. From inspect-ai 0.3.206 the
  members are zstd-compressed (zip method 93), read by :mod:`benchsift.io._zipmembers`.

Score values become floats as inspect's own ``value_to_float`` (``inspect_ai/scorer/_metric.py``) does:
``C`` (correct) 1, ``P`` (partial) 0.5, ``I`` (incorrect) 0, ``N`` (no answer) 0, ``yes``/``true`` 1,
``no``/``false`` 0, numbers and numeric strings as they are. A sample that errored, has no score or a NaN
value (``Score.unscored``) is missing. A dict-valued score needs ``score_key`` (``--metric``; given for
single values it is unused, with a warning). With several scorers, ``scorer`` picks one (default: the only
one, else an error listing them).

Epochs: the per-sample score is inspect's own reduced score from ``reductions`` when the log holds them
(any reducer, custom ones included); with several reducers ``reducer`` picks one. A log without reductions
(an unfinished run) is reduced here with the reducer named in ``eval.config.epochs_reducer`` (default
``mean``), ported in :func:`reduce_epochs`; a sample holding fewer epochs than the run's
``eval.config.epochs`` (a run stopped between them) is missing (NaN), with a warning naming the log and
how many samples lack epochs: reduced over the epochs written it would be another number than the run's.

Retries and re-runs: of several logs of one ``eval.task_id`` only the newest is read (warning naming the
others), as inspect's eval sets take it; ``keep_all_runs`` keeps each as its own model run (see
:mod:`benchsift.io._runs`), as it does separate runs of one task and model (each its own ``task_id``), whose
differing scores are otherwise an error naming the runs and these choices.

Refusals and warnings: a log whose ``status`` is not ``success`` (``started``: a run still going or killed;
``error``; ``cancelled``) is imported with a warning naming it: its samples count, and the samples the run
planned (``eval.dataset.sample_ids``) that it lacks are missing (NaN rows, so the coverage shows the run is
partial, also when the log is imported alone). (Importing rather than refusing keeps the work of a long run
that died; the warning and the missing cells say it is partial.) A run made with ``limit``
(``eval.config.limit``) is warned of: its task is part of the dataset. A log in which every sample errored
gives its model missing scores (NaN) on that task, with a warning, so one failed run does not stop a
multi-log import. An ``.eval`` that starts as a zip archive but has no central directory is said to look
truncated. The per-item mean is checked against the log's own ``accuracy`` / ``mean`` of the scorer (of the
chosen key's entry, for a dict score).

Mapping: model = ``eval.model`` (e.g. ``openai/gpt-4o``) unless ``model`` is given, benchmark = ``eval.task``
unless ``benchmark`` is given, item = sample ``id``, category = sample ``metadata.category`` /
``subject`` when present.
"""

from __future__ import annotations

import json
import math
import statistics
import zipfile
from collections import Counter
from numbers import Real
from pathlib import Path
from typing import Any, NamedTuple

import numpy as np
import pandas as pd

from benchsift._inputs import check_choice, choose
from benchsift._jsonutil import loads_bounded
from benchsift._params import ConstraintLike, Interval, validate_params
from benchsift.errors import FormatError, InputError
from benchsift.io._coded_frames import read_sample_panel
from benchsift.io._common import (
    ANSWER_COL,
    FILE_COL,
    ROW_COL,
    Paths,
    as_paths,
    check_file,
)
from benchsift.io._harness import check_reported, item_text_columns, read_json
from benchsift.io._runs import RunFile, candidate_files, choose_runs, explain_conflicts
from benchsift.io._walk import NotThisFormat
from benchsift.io._zipmembers import MAX_MEMBER_BYTES, MAX_RATIO, read_member
from benchsift.io.notes import SUBSET_RUN, raises_uncollected
from benchsift.io.rescale import RescaleMode, ScaleMap
from benchsift.panel import Panel

LETTER_VALUES = {"C": 1.0, "P": 0.5, "I": 0.0, "N": 0.0}
TEXT_VALUES = {"yes": 1.0, "true": 1.0, "no": 0.0, "false": 0.0}
CATEGORY_KEYS = ("category", "subject", "subdomain")
HEADER_JSON = "header.json"
JOURNAL_START = "_journal/start.json"
REDUCTIONS_JSON = "reductions.json"
LOG_PATTERNS = ("*.eval", "*.json")


Row = tuple[str, dict[str, Any], Any, float]  # (row label, sample, its Score, the reduced float value)


class RawLog(NamedTuple):
    """One log as read: the header dict, ``(label, sample)`` pairs and the ``reductions`` list (or None)."""

    header: dict[str, Any]
    samples: list[tuple[str, Any]]
    reductions: Any


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
                f"{where}: score value is a dict with keys {sorted(value)}; choose one with `metric`"
            )
        check_choice(f"{where}: score value", score_key, sorted(value), what="key")
        return score_to_float(value[score_key], where, None)
    raise InputError(f"{where}: score value {value!r} is not a scalar")


def _unscored(value: Any) -> bool:
    return value is None or (isinstance(value, float) and math.isnan(value))


def reduce_epochs(values: list[Any], reducer: str, where: str, score_key: str | None) -> float:
    """Reduce the score values of one sample's epochs as inspect's reducer ``reducer`` does.

    Ported from ``inspect_ai/scorer/_reducer/reducer.py`` (scalar values; a dict value is first narrowed
    to ``score_key``, which is what inspect's key-by-key reduction gives for that key): ``mean``,
    ``median`` (of ``value_to_float``), ``max`` (the value with the largest float), ``mode`` (the most
    common value, ties to the first seen, ``Counter.most_common``), ``majority`` (the value held by more
    than half of all epochs, unscored ones counted, else unscored), ``at_least_<k>`` (1 when at least k
    values are >= 1), ``pass_at_<k>`` (Chen et al. 2021: 1 - prod(1 - k / (n-c+1 .. n)), 1 when
    n - c < k, unscored when n < k) and ``pass_k_<k>`` (C(c, k) / C(n, k)). Unscored epochs (NaN) are
    dropped first; none left is NaN. Another (custom) reducer is an :class:`InputError`.
    """
    narrowed = [v.get(score_key) if isinstance(v, dict) and score_key is not None else v for v in values]
    kept = [v for v in narrowed if not _unscored(v)]
    floats = [score_to_float(v, where, score_key) for v in kept]
    if not kept:
        return float("nan")
    name, _, k_text = reducer.rpartition("_")
    k = int(k_text) if k_text.isdigit() and name else None
    if reducer == "mean":
        return float(statistics.mean(floats))
    if reducer == "median":
        return float(statistics.median(floats))
    if reducer == "max":
        return max(floats)
    if reducer in ("mode", "majority"):
        counts = Counter(kept)
        value, count = counts.most_common(1)[0]
        if reducer == "majority" and count * 2 <= len(narrowed):
            return float("nan")
        return score_to_float(value, where, score_key)
    if k is not None and name == "at_least":
        return 1.0 if sum(f >= 1.0 for f in floats) >= k else 0.0
    if k is not None and name == "pass_at":
        total, correct = len(floats), sum(f >= 1.0 for f in floats)
        if total < k:
            return float("nan")
        if total - correct < k:
            return 1.0
        return float(1.0 - np.prod(1.0 - k / np.arange(total - correct + 1, total + 1)))
    if k is not None and name == "pass_k":
        total, correct = len(floats), sum(f >= 1.0 for f in floats)
        if total < k:
            return float("nan")
        return math.comb(correct, k) / math.comb(total, k)
    raise InputError(
        f"{where}: the log has no reductions and its epoch reducer {reducer!r} is not one of inspect's "
        "built-in reducers (mean, median, max, mode, majority, at_least_k, pass_at_k, pass_k_k)"
    )


class Bounds(NamedTuple):
    """Bounds on an ``.eval`` archive's members (:mod:`benchsift.io._zipmembers`)."""

    max_member_bytes: int = MAX_MEMBER_BYTES
    max_ratio: float = MAX_RATIO


ZIP_LOCAL_HEADER = b"PK\x03\x04"


def _not_a_zip(path: Path) -> FormatError:
    """The error for an ``.eval`` file ``zipfile`` cannot open: one that starts as a zip archive (a local
    file header) but has no central directory at its end was cut short (a copy, download or disk that
    stopped; inspect writes the directory last)."""
    try:
        with open(path, "rb") as fh:
            head = fh.read(len(ZIP_LOCAL_HEADER))
    except OSError:
        head = b""
    if head == ZIP_LOCAL_HEADER:
        return FormatError(
            f"{path}: the .eval archive looks truncated: it starts as a zip archive but its end (the zip "
            "central directory) is missing; was the file cut short while copied or written?"
        )
    return FormatError(f"{path}: not an inspect .eval archive (not a zip file)")


def _load_eval_zip(path: Path, bounds: Bounds = Bounds()) -> RawLog:
    check_file(path)
    try:
        zf = zipfile.ZipFile(path)
    except (zipfile.BadZipFile, OSError):
        raise _not_a_zip(path) from None
    with zf:
        infos = {i.filename: i for i in zf.infolist()}
        header_name = HEADER_JSON if HEADER_JSON in infos else JOURNAL_START
        if header_name not in infos:
            raise FormatError(f"{path}: .eval archive without {HEADER_JSON} or {JOURNAL_START}")

        def member(name: str) -> Any:
            try:
                data = read_member(zf, path, infos[name], **bounds._asdict())
                return loads_bounded(data, f"{path}, member {name}")
            except (json.JSONDecodeError, UnicodeDecodeError) as exc:
                raise FormatError(f"{path}, member {name}: not valid JSON ({exc})") from None

        header = member(header_name)
        sample_names = [n for n in sorted(infos) if n.startswith("samples/") and n.endswith(".json")]
        samples = [(f"member {n}", member(n)) for n in sample_names]
        reductions = member(REDUCTIONS_JSON) if REDUCTIONS_JSON in infos else None
    if not isinstance(header, dict):
        raise FormatError(f"{path}, member {header_name}: expected a JSON object")
    if header_name == JOURNAL_START:
        header = {**header, "status": header.get("status", "started")}
    return RawLog(header, samples, reductions)


def _load_json_log(path: Path) -> RawLog:
    log = read_json(path)
    if not isinstance(log, dict) or "eval" not in log:
        raise NotThisFormat(f"{path}: not an inspect EvalLog (no 'eval' field)")
    samples = log.get("samples") or []
    if not isinstance(samples, list):
        raise FormatError(f"{path}: 'samples' is not a list")
    return RawLog(log, [(f"samples[{i}]", s) for i, s in enumerate(samples)], log.get("reductions"))


def read_header(path: Path, bounds: Bounds = Bounds()) -> dict[str, Any] | None:
    """The header of one log (``header.json`` or ``_journal/start.json`` of an ``.eval`` archive, the
    whole ``EvalLog`` of a ``.json`` log), or None when the file is not an inspect log."""
    try:
        if path.suffix.lower() == ".eval":
            with zipfile.ZipFile(path) as zf:
                infos = {i.filename: i for i in zf.infolist()}
                name = HEADER_JSON if HEADER_JSON in infos else JOURNAL_START
                if name not in infos:
                    return None
                data = read_member(zf, path, infos[name], **bounds._asdict())
                header = loads_bounded(data, f"{path}, member {name}")
        else:
            header = read_json(path)
    except (zipfile.BadZipFile, OSError, ValueError, UnicodeDecodeError, FormatError):
        return None
    return header if isinstance(header, dict) and isinstance(header.get("eval"), dict) else None


def log_runs(
    paths: list[Path], bounds: Bounds = Bounds(), *, model: str | None = None, benchmark: str | None = None
) -> list[RunFile]:
    """Each log's task as inspect groups retries and eval-set attempts: ``eval.task_id`` (with the model),
    newest by ``eval.created``; its clash key: the model and task the panel names it by (``model`` and
    ``benchmark`` override them), which two runs of one task that are not retries share
    (:mod:`benchsift.io._runs`)."""
    runs = []
    for path in paths:
        header = read_header(path, bounds)
        if header is None:
            continue
        spec = header["eval"]
        task_id = spec.get("task_id")
        if not isinstance(task_id, str) or not task_id:
            continue
        created = str(spec.get("created") or "")
        status = header.get("status", "started" if path.suffix.lower() == ".eval" else None)
        run = created or str(spec.get("eval_id"))  # one per log: eval-set attempts share the run_id
        about = f"status {status!r}, created {created}"
        clash = (str(model or spec.get("model")), str(benchmark or spec.get("task")))
        order = (created, str(spec.get("eval_id")))
        runs.append(RunFile(path, (task_id, spec.get("model")), order, run, about, clash=clash))
    return runs


def load_log(path: Path, bounds: Bounds = Bounds()) -> RawLog:
    """The header (``EvalLog`` without samples), the samples and the ``reductions`` of one log file."""
    suffix = path.suffix.lower()
    if suffix == ".eval":
        return _load_eval_zip(path, bounds)
    if suffix == ".json":
        return _load_json_log(path)
    raise FormatError(f"{path}: expected an inspect log ending in .eval or .json")


def _scorer_names(raw: RawLog) -> list[str]:
    names = [k for _, s in raw.samples if isinstance(s, dict) for k in (s.get("scores") or {})]
    if isinstance(raw.reductions, list):
        names += [str(r["scorer"]) for r in raw.reductions if isinstance(r, dict) and "scorer" in r]
    return list(dict.fromkeys(names))


def _pick_scorer(names: list[str], path: Path, scorer: str | None) -> str:
    chosen: str = choose(scorer, names, what="scorer", param="scorer", where=str(path))
    return chosen


def _logged_answer(sample: dict[str, Any], score: Any) -> str | None:
    """The model's answer: the scorer's extracted ``answer``, else the output's ``completion``."""
    if isinstance(score, dict) and score.get("answer") is not None:
        return str(score["answer"])
    output = sample.get("output")
    completion = output.get("completion") if isinstance(output, dict) else None
    return completion if isinstance(completion, str) else None


def _pick_reduction(
    raw: RawLog, path: Path, scorer: str, reducer: str | None, configured: list[str]
) -> tuple[str | None, list[Any] | None]:
    """The reducer to apply and, when the log holds them, inspect's own reduced scores for it."""
    stored = [r for r in raw.reductions or [] if isinstance(r, dict) and r.get("scorer") == scorer]
    names = [str(r.get("reducer") or "mean") for r in stored] or configured
    where = f"{path}: scorer {scorer!r}"
    chosen = choose(reducer, names, what="epoch reducer", param="reducer", where=where) if names else reducer
    for r in stored:
        if str(r.get("reducer") or "mean") == (chosen or "mean"):
            samples = r.get("samples")
            if not isinstance(samples, list):
                raise FormatError(f"{path}: reductions of scorer {scorer!r} without a 'samples' list")
            return chosen, samples
    return chosen, None


def _planned_ids(spec: dict[str, Any]) -> list[str] | None:
    """The ids of the samples the run set out to evaluate (``eval.dataset.sample_ids``, inspect-ai 0.3.x:
    the dataset's ids after ``limit`` / ``sample_id``), or None when the header does not list them."""
    dataset = spec.get("dataset")
    ids = dataset.get("sample_ids") if isinstance(dataset, dict) else None
    if not isinstance(ids, list) or not all(isinstance(i, str | int) for i in ids):
        return None
    return [str(i) for i in ids]


def _whole(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _coverage_notes(
    path: Path, spec: dict[str, Any], status: Any, held: set[str], absent: list[str], name: str
) -> list[str]:
    """Warnings on what of the run the log holds: an unfinished run (status other than ``success``), the
    planned samples it lacks (missing, NaN), a run made with ``limit``."""
    out = []
    dataset = spec.get("dataset")
    in_dataset = _whole(dataset.get("samples")) if isinstance(dataset, dict) else None
    listed = _planned_ids(spec) is not None
    planned = len(held) + len(absent) if listed else in_dataset
    of = f" of the task's {planned}" if planned is not None else ""
    lacks = f", the {len(absent)} it lacks are missing (NaN)" if absent else ""
    if status != "success":
        kinds = {"started": "an unfinished run", "error": "a run that failed", "cancelled": "a cancelled run"}
        if not listed:
            lacks = ", samples it lacks are missing"
        out.append(
            f"warning: {path}: log status {status!r} ({kinds.get(str(status), 'not a finished run')}); "
            f"imported the {len(held)}{of} samples it holds{lacks}, for model {name!r}"
        )
    elif absent:
        out.append(
            f"warning: {path}: the log's header lists {len(absent)} samples (eval.dataset.sample_ids) it "
            f"holds no record of; they are missing (NaN) for model {name!r}"
        )
    raw_config = spec.get("config")
    limit = raw_config.get("limit") if isinstance(raw_config, dict) else None
    if limit is not None:
        of_dataset = f" of the dataset's {in_dataset}" if in_dataset is not None else ""
        out.append(
            f"warning: {path}: a run with limit {limit}: {planned if listed else 'some'}{of_dataset} "
            f"samples were evaluated; task {spec.get('task')!r} of model {name!r} is those samples, "
            + SUBSET_RUN
        )
    return out


Group = list[tuple[int, str, dict[str, Any], Any]]  # one sample's (epoch, row label, sample, its Score)


def _reduce_here(
    by_id: dict[str, Group],
    path: Path,
    epochs: int | None,
    reducer_name: str | None,
    score_key: str | None,
    name: str,
    notes: list[str] | None,
) -> list[Row]:
    """Each sample's score reduced over its epochs with :func:`reduce_epochs` (a log without reductions).

    The run's epochs (``eval.config.epochs``): a sample holding fewer (a run stopped between its epochs) is
    missing, not reduced over the epochs written as if they were all, with one warning naming the log."""
    rows: list[Row] = []
    short: list[int] = []
    for group in by_id.values():
        group.sort(key=lambda g: g[0])
        _, row, s, score = group[0]
        written = len({g[0] for g in group})
        if epochs is not None and written < epochs:
            short.append(written)
            rows.append((row, s, score, float("nan")))
            continue
        raw_values = [
            g[3].get("value") if isinstance(g[3], dict) else None for g in group if not g[2].get("error")
        ]
        where = f"{path}, {row}"
        if len(group) == 1 and reducer_name is None:
            value = score_to_float(raw_values[0] if raw_values else None, where, score_key)
        else:
            value = reduce_epochs(raw_values, reducer_name or "mean", where, score_key)
        rows.append((row, s, score, value))
    if short and notes is not None:
        span = f"{min(short)}" if min(short) == max(short) else f"{min(short)} to {max(short)}"
        notes.append(
            f"warning: {path}: {len(short)} of the {len(by_id)} samples hold fewer epochs than the run's "
            f"{epochs} ({span} written before the run stopped): they are missing (NaN) for model {name!r}, "
            "not reduced over the epochs written"
        )
    return rows


def _read_one(
    path: Path,
    *,
    model: str | None,
    benchmark: str | None,
    scorer: str | None,
    score_key: str | None,
    reducer: str | None,
    condition: str | None,
    notes: list[str] | None,
    bounds: Bounds,
) -> pd.DataFrame:
    raw = load_log(path, bounds)
    spec = raw.header.get("eval")
    if not isinstance(spec, dict):
        raise FormatError(f"{path}: header without an 'eval' specification")
    name = model or spec.get("model")
    task = benchmark or spec.get("task")
    if not name or not task:
        raise FormatError(f"{path}: 'eval.model' or 'eval.task' missing; give `model` / `benchmark`")
    if not raw.samples:
        raise FormatError(f"{path}: the log holds no samples (written with --no-log-samples?)")
    for row, s in raw.samples:
        if not isinstance(s, dict) or "id" not in s:
            raise FormatError(f"{path}, {row}: sample without 'id'")
    held = {str(s["id"]) for _, s in raw.samples}
    planned = _planned_ids(spec) or []
    # the samples the run planned but never wrote (an unfinished or failed run): missing, not left out
    absent: list[Row] = [
        (f"eval.dataset.sample_ids[{k}]", {"id": sid}, None, float("nan"))
        for k, sid in enumerate(planned)
        if sid not in held
    ]
    if notes is not None:
        absent_ids = [str(r[1]["id"]) for r in absent]
        notes.extend(_coverage_notes(path, spec, raw.header.get("status"), held, absent_ids, str(name)))
    names = _scorer_names(raw)
    errored = [s for _, s in raw.samples if s.get("error")]
    if not names:
        if len(errored) < len(raw.samples):
            raise FormatError(f"{path}: no sample has scores")
        first = errored[0]["error"]
        message = first.get("message") if isinstance(first, dict) else first
        if notes is not None:
            notes.append(
                f"warning: {path.name}: every sample errored (first error: {str(message)[:120]}); model "
                f"{name!r} gets missing scores on task {task!r}"
            )
        errored_rows: list[Row] = [(row, s, None, float("nan")) for row, s in raw.samples]
        return _frame([*errored_rows, *absent], path, name, task, condition)
    chosen = _pick_scorer(names, path, scorer)
    raw_config = spec.get("config")
    config: dict[str, Any] = raw_config if isinstance(raw_config, dict) else {}
    configured = [str(r) for r in (config.get("epochs_reducer") or [])]
    reducer_name, reduced = _pick_reduction(raw, path, chosen, reducer, configured)
    rows: list[Row] = []
    by_id: dict[str, Group] = {}
    for row, s in raw.samples:
        score = (s.get("scores") or {}).get(chosen)
        epoch = s.get("epoch") if isinstance(s.get("epoch"), int) else 1
        by_id.setdefault(str(s["id"]), []).append((epoch, row, s, score))
    if score_key is not None and notes is not None and not _any_dict_value(raw, chosen):
        notes.append(
            f"warning: {path}: `metric` {score_key!r} is not used: the values of scorer {chosen!r} are "
            "single scores, not dicts with keys to choose from"
        )
    n_epochs = max(len(v) for v in by_id.values())
    if reduced is not None:
        # inspect's own reduced score per sample (``reductions``), whatever the reducer
        values = {}
        for k, r in enumerate(reduced):
            if not isinstance(r, dict) or "sample_id" not in r:
                raise FormatError(f"{path}: reductions entry {k} without 'sample_id'")
            where = f"{path}, reductions[{k}]"
            values[str(r["sample_id"])] = score_to_float(r.get("value"), where, score_key)
        for sid, group in by_id.items():
            group.sort(key=lambda g: g[0])
            _, row, s, score = group[0]
            rows.append((row, s, score, values.get(sid, float("nan"))))
    else:
        if n_epochs > 1 and reducer_name is None:
            reducer_name = "mean"  # inspect's default reducer
        epochs = _whole(config.get("epochs"))
        rows = _reduce_here(by_id, path, epochs, reducer_name, score_key, str(name), notes)
    if notes is not None:
        n_rows = len(raw.samples)
        how = ""
        if n_rows > len(by_id):
            source = "inspect's reductions" if reduced is not None else "reduced here"
            how = f" ({n_rows} sample-epochs, reducer {reducer_name or 'mean'!r}, {source})"
        failed = f", {len(errored)} errored (missing)" if errored else ""
        about = f"task {task!r}, model {name!r}, scorer {chosen!r}"
        notes.append(f"{path.name}: {about}, {len(by_id)} samples{how}{failed}")
        reported = _reported_mean(raw.header, chosen, reducer_name, score_key)
        if reported is not None:
            reduced_values = np.asarray([v for *_, v in rows], dtype=np.float64)
            notes.extend(
                check_reported(reduced_values, reported, f"{path.name}: scorer {chosen!r}", str(name))
            )
    return _frame([*rows, *absent], path, name, task, condition)


def _any_dict_value(raw: RawLog, scorer: str) -> bool:
    """Whether some value of ``scorer`` (a sample's score or a reduced one) is a dict."""
    for _, s in raw.samples:
        score = (s.get("scores") or {}).get(scorer)
        if isinstance(score, dict) and isinstance(score.get("value"), dict):
            return True
    for r in raw.reductions or []:
        if isinstance(r, dict) and r.get("scorer") == scorer and isinstance(r.get("samples"), list):
            if any(isinstance(x, dict) and isinstance(x.get("value"), dict) for x in r["samples"]):
                return True
    return False


def _reported_mean(
    header: dict[str, Any], scorer: str, reducer: str | None, score_key: str | None = None
) -> float | None:
    """The log's own ``accuracy`` (or ``mean``) of ``scorer`` under ``reducer`` (``results.scores``).

    A dict-valued score has one ``results.scores`` entry per key, named by the key (``name``) with the
    scorer in ``scorer``: with ``score_key`` only the entry of that key is the aggregate (none: not checked).
    """
    results = header.get("results")
    scores = results.get("scores") if isinstance(results, dict) else None
    entries = [
        e
        for e in (scores if isinstance(scores, list) else [])
        if isinstance(e, dict)
        and e.get("scorer", e.get("name")) == scorer
        and (e.get("reducer") or "mean") == (reducer or "mean")
    ]
    if score_key is not None and len({e.get("name") for e in entries}) > 1:
        entries = [e for e in entries if e.get("name") == score_key]
    for entry in entries:
        metrics = entry.get("metrics") or {}
        for key in ("accuracy", "mean"):
            metric = metrics.get(key) if isinstance(metrics, dict) else None
            value = metric.get("value") if isinstance(metric, dict) else None
            if isinstance(value, int | float) and not isinstance(value, bool):
                return float(value)
    return None


def _frame(rows: list[Row], path: Path, name: str, task: str, condition: str | None) -> pd.DataFrame:
    cats = []
    for _, s, _, _ in rows:
        raw_meta = s.get("metadata")
        meta: dict[str, Any] = raw_meta if isinstance(raw_meta, dict) else {}
        cats.append(next((meta[k] for k in CATEGORY_KEYS if isinstance(meta.get(k), str)), None))
    table = pd.DataFrame(
        {
            "model": str(name),
            "condition": condition or "image",
            "benchmark": str(task),
            "item": [str(s["id"]) for _, s, _, _ in rows],
            "score": np.asarray([v for *_, v in rows], dtype=np.float64),
            "category": pd.Series(cats, dtype=object),
            FILE_COL: str(path),
            ROW_COL: [row for row, *_ in rows],
            # the first epoch's answer
            ANSWER_COL: pd.Series([_logged_answer(s, score) for _, s, score, _ in rows], dtype=object),
        }
    )
    for col, values in item_text_columns([s for _, s, _, _ in rows]).items():  # question, choices, target
        table[col] = values
    return table


_POSITIVE: list[ConstraintLike] = [Interval(Real, 0, None, closed="neither"), None]


@validate_params({"max_member_bytes": _POSITIVE, "max_ratio": _POSITIVE})
@raises_uncollected
def read_inspect(
    paths: Paths,
    *,
    model: str | None = None,
    benchmark: str | None = None,
    scorer: str | None = None,
    metric: str | None = None,
    reducer: str | None = None,
    condition: str | None = None,
    rescale: RescaleMode = "auto",
    scales: ScaleMap | None = None,
    notes: list[str] | None = None,
    answers: list[pd.DataFrame] | None = None,
    keep_all_runs: bool = False,
    max_member_bytes: int | None = None,
    max_ratio: float | None = None,
) -> Panel:
    """Read inspect_ai logs (``.eval`` / ``.json`` files, or folders of them) into a panel.

    ``metric`` picks a field of dict scores, ``scorer`` one of several scorers, ``reducer`` one of several
    epoch reducers. A folder is walked for ``*.eval`` and ``*.json``; a file there that is not an inspect
    log (inspect's own ``logs.json`` listing, say) is skipped and named in ``notes``.
    ``answers``: a list that receives the long table of logged answers (the scorer's ``answer``, else the
    output's ``completion``; the first epoch's when a sample ran several), see :mod:`benchsift.io.answers`.

    Retries: of the logs of one ``eval.task_id`` (a failed log and its ``eval-retry``, eval-set attempts)
    only the newest is read, as inspect takes it; a warning names the others. ``keep_all_runs`` reads them
    all, each as its own model run ``<model> (run <eval.created>)`` (:mod:`benchsift.io._runs`); so are
    separate runs of one task and model (each with its own ``task_id``), whose differing scores are
    otherwise an error that names them and these choices.

    ``max_member_bytes`` (default 256 MiB) and ``max_ratio`` (default 200) bound what one member of an
    ``.eval`` archive may decompress to (:mod:`benchsift.io._zipmembers`); a member over them is refused
    before it is read. Every JSON document read (a member, a ``.json`` log) may nest at most 256 levels.
    """
    bounds = Bounds(
        MAX_MEMBER_BYTES if max_member_bytes is None else max_member_bytes,
        MAX_RATIO if max_ratio is None else max_ratio,
    )
    given = as_paths(paths)
    options: dict[str, Any] = dict(model=model, benchmark=benchmark, scorer=scorer, score_key=metric)
    options.update(reducer=reducer, condition=condition, bounds=bounds)
    runs = log_runs(candidate_files(given, LOG_PATTERNS), bounds, model=model, benchmark=benchmark)
    read = choose_runs(
        runs,
        lambda p, n, _root: _read_one(p, notes=n, **options),
        keep_all_runs=keep_all_runs,
        tool="inspect (eval-retry, eval-set)",
    )
    with explain_conflicts(runs, keep_all_runs=keep_all_runs):
        return read_sample_panel(
            given,
            LOG_PATTERNS,
            read,
            what="inspect log",
            rescale=rescale,
            scales=scales,
            notes=notes,
            answers=answers,
        )
