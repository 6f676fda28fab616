"""Importer ``eee`` and exporter: the Every Eval Ever schema (evaleval/every_eval_ever, schema 0.3.0).

Every Eval Ever stores one evaluation run of one model as an aggregate file
``data/<evaluation>/<developer>/<model>/<uuid>.json`` (``every_eval_ever/schemas/eval.schema.json``: model,
source, library, and per metric ``evaluation_results[].score_details.score``) and, beside it, its
instance-level file ``<uuid>_samples.jsonl`` (``schemas/instance_level_eval.schema.json``): one JSON object
per sample and aggregate result with ``model_id``, ``evaluation_name``, ``sample_id``,
``evaluation.score`` (a number) and ``evaluation.is_correct``, the model's ``output`` and the
``answer_attribution`` of its final answer.

**Import** reads instance-level files (``*.jsonl``; folders are walked): model = ``model_id``, benchmark =
``evaluation_name``, item = ``sample_id``, score = ``evaluation.score``. A record with a non-null
``error`` is missing (NaN), not its logged score. When one file holds several records per sample for
different aggregate results (``evaluation_result_id``, or ``metadata.filter`` as EEE's lm-eval converter
writes it) under the same ``evaluation_name``, ``filter`` picks one; without it the import is refused
with the choices. (EEE's lm-eval converter names a filtered result ``<task>/<filter>``, so its files
import as one benchmark per filter.) The answer is the
terminal ``answer_attribution``'s ``extracted_value``. Aggregate ``.json`` files hold no per-item scores
and are refused when named (skipped in a walk); item metadata where the record logged it (issue 34):
``question`` = ``input.raw``, ``choices`` = ``input.choices`` (a JSON list), ``answer`` =
``input.reference`` as logged (a list joined by ", "; EEE's lm-eval converter logs the index of the right
choice), each cut to 2,000 characters; the aggregate file beside a samples file
(``<uuid>.json``, read only when it resolves inside the folder given: one linking outside is not read,
with a warning) is read to check, per model and evaluation, that the per-item mean reproduces its
score (a warning names both numbers when not: EEE 0.3.0's lm-eval converter fills the samples file of
task ``arith_mc`` with the samples of ``arith_mc_rev`` when both ran, its ``samples_arith_mc_*`` pattern
matching both files).

**Export** (:func:`write_eee`) writes a panel as that layout: per model and benchmark one aggregate file
(the mean of the observed items as its score, the count of them as ``num_samples``) and its samples file
(missing items are left out: the schema's score must be a number). File names are UUIDs derived from
the model, benchmark and timestamp, so the same panel and timestamp give the same bytes.
"""

from __future__ import annotations

import hashlib
import json
import math
import re
import time
import uuid
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from benchsift._fileio import atomic_dir
from benchsift._inputs import choose
from benchsift.errors import FormatError, InputError
from benchsift.io._coded_frames import read_sample_panel
from benchsift.io._common import ANSWER_COL, FILE_COL, ROW_COL, Paths, as_paths
from benchsift.io._harness import check_reported, choices_text, read_json, read_jsonl, text_columns
from benchsift.io._walk import NotThisFormat, root_of, side_file
from benchsift.io.notes import raises_uncollected
from benchsift.io.rescale import RescaleMode, ScaleMap
from benchsift.panel import Panel

SCHEMA_VERSION = "0.3.0"
PATTERNS = ("*.jsonl",)
REQUIRED = ("model_id", "evaluation_name", "sample_id", "evaluation")


def _result_key(rec: dict[str, Any]) -> str | None:
    key = rec.get("evaluation_result_id")
    if key is None and isinstance(rec.get("metadata"), dict):
        key = rec["metadata"].get("filter")
    return None if key is None else str(key)


def _answer(rec: dict[str, Any]) -> str | None:
    attribution = rec.get("answer_attribution")
    if isinstance(attribution, list):
        for a in reversed(attribution):
            if isinstance(a, dict) and a.get("is_terminal") and isinstance(a.get("extracted_value"), str):
                return str(a["extracted_value"])
    return None


def _input_text(rec: dict[str, Any]) -> tuple[str | None, str | None, str | None]:
    """``(question, choices, answer)`` of an instance record's ``input`` (module docstring)."""
    inp = rec.get("input")
    if not isinstance(inp, dict):
        return None, None, None
    raw = inp.get("raw")
    ref = inp.get("reference")
    if isinstance(ref, list):
        ref = ", ".join(str(r) for r in ref) if ref else None
    answer = None if ref is None or isinstance(ref, dict) else str(ref)
    return (raw if isinstance(raw, str) and raw else None), choices_text(inp.get("choices")), answer


def _read_one(
    path: Path,
    *,
    filter_name: str | None,
    condition: str | None,
    notes: list[str] | None,
    root: Path | None = None,
) -> pd.DataFrame:
    if path.suffix.lower() == ".json":
        raise NotThisFormat(
            f"{path}: an Every Eval Ever aggregate file; its per-item scores are in the _samples.jsonl file "
            "named by detailed_evaluation_results.file_path"
        )
    records = read_jsonl(path)
    n0, first = records[0]
    if "schema_version" not in first or "evaluation_id" not in first:
        raise NotThisFormat(
            f"{path}, line {n0}: not an Every Eval Ever instance record (no schema_version/evaluation_id)"
        )
    # several aggregate results for the same evaluation_name: one must be chosen
    by_name: dict[Any, list[str | None]] = {}
    for _, r in records:
        keys = by_name.setdefault((r.get("model_id"), r.get("evaluation_name")), [])
        if _result_key(r) not in keys:
            keys.append(_result_key(r))
    shared = {name for name, keys in by_name.items() if len(keys) > 1}
    if shared:
        choices = sorted({str(k) for name in shared for k in by_name[name]})
        where = f"{path}: records under one evaluation_name (evaluation_result_id / metadata.filter)"
        filter_name = choose(filter_name, choices, what="aggregate result", param="filter", where=where)
        records = [
            (n, r)
            for n, r in records
            if (r.get("model_id"), r.get("evaluation_name")) not in shared or _result_key(r) == filter_name
        ]
    rows: dict[str, list[Any]] = {k: [] for k in ("model", "benchmark", "item", "score", ROW_COL, ANSWER_COL)}
    errored = 0
    texts: list[tuple[str | None, str | None, str | None]] = []
    for n, rec in records:
        missing = [k for k in REQUIRED if k not in rec]
        if missing:
            raise FormatError(f"{path}, line {n}: missing {missing} (an Every Eval Ever instance record)")
        ev = rec["evaluation"]
        score = ev.get("score") if isinstance(ev, dict) else None
        if isinstance(score, bool) or not isinstance(score, int | float):
            raise FormatError(f"{path}, line {n}: evaluation.score {score!r} is not a number")
        if rec.get("error") is not None:
            errored += 1
            score = math.nan
        rows["model"].append(str(rec["model_id"]))
        rows["benchmark"].append(str(rec["evaluation_name"]))
        rows["item"].append(str(rec["sample_id"]))
        rows["score"].append(float(score))
        rows[ROW_COL].append(f"line {n}")
        rows[ANSWER_COL].append(_answer(rec))
        texts.append(_input_text(rec))
    if errored and notes is not None:
        notes.append(f"{path.name}: {errored} record(s) with an error counted as missing")
    table = pd.DataFrame(rows)
    for col, values in text_columns(texts).items():
        table[col] = values
    if notes is not None:
        chosen = {k: (filter_name if k in shared else v[0]) for k, v in by_name.items()}
        root = root_of(path) if root is None else root
        notes.extend(_check_aggregate(path, table, chosen, root, notes))
    table["condition"] = condition or "image"
    table[FILE_COL] = str(path)
    return table


def _check_aggregate(
    path: Path, table: pd.DataFrame, keys: dict[Any, str | None], root: Path, notes: list[str]
) -> list[str]:
    """Warnings where the per-item mean of a model and evaluation differs from the score of the aggregate
    file beside the samples (``<uuid>.json``, ``evaluation_results[].score_details.score`` of the same
    ``evaluation_name`` and ``evaluation_result_id``), read only inside ``root``
    (:func:`~benchsift.io._walk.side_file`, whose warning goes to ``notes``) and only as deep as any JSON
    benchsift reads (:func:`~benchsift.io._harness.read_json`)."""
    aggregate = path.with_name(path.name.removesuffix("_samples.jsonl") + ".json")
    if aggregate == path or side_file(aggregate, root, notes) is None:
        return []
    try:
        doc = read_json(aggregate)
    except FormatError as exc:  # not JSON, not UTF-8, nested too deep: nothing to check against
        return [f"warning: {path.name}: the aggregate beside it is not checked ({exc})"]
    except OSError:
        return []
    results = doc.get("evaluation_results") if isinstance(doc, dict) else None
    entries = [r for r in results if isinstance(r, dict)] if isinstance(results, list) else []
    out: list[str] = []
    for (model, name), group in table.groupby(["model", "benchmark"], sort=False):
        key = keys.get((model, name))
        found = [
            r
            for r in entries
            if r.get("evaluation_name") == name and (key is None or r.get("evaluation_result_id", key) == key)
        ]
        details = found[0].get("score_details") if len(found) == 1 else None
        value = details.get("score") if isinstance(details, dict) else None
        where = f"{path.name}: evaluation {name!r}" + (f" result {key!r}" if key else "")
        out += check_reported(group["score"].to_numpy(dtype=np.float64), value, where, str(model))
    return out


@raises_uncollected
def read_eee(
    paths: Paths,
    *,
    filter: str | None = None,  # noqa: A002 - the CLI's --filter, as for lm-eval
    condition: str | None = None,
    rescale: RescaleMode = "auto",
    scales: ScaleMap | None = None,
    notes: list[str] | None = None,
    answers: list[pd.DataFrame] | None = None,
) -> Panel:
    """Read Every Eval Ever instance-level files (``*_samples.jsonl``, or folders of them) into a panel."""

    def one(path: Path, file_notes: list[str] | None, root: Path) -> pd.DataFrame:
        return _read_one(path, filter_name=filter, condition=condition, notes=file_notes, root=root)

    return read_sample_panel(
        as_paths(paths),
        PATTERNS,
        one,
        what="Every Eval Ever samples",
        rescale=rescale,
        scales=scales,
        notes=notes,
        answers=answers,
    )


_UNSAFE = re.compile(r"[^A-Za-z0-9._+-]+")


def _part(text: str) -> str:
    """One path component of the data/<evaluation>/<developer>/<model>/ layout."""
    out = _UNSAFE.sub("_", text).strip("._") or "unknown"
    return out


def _uuid4(*parts: str) -> str:
    """A version-4-shaped UUID derived from ``parts`` (the schema's file_path pattern wants version 4)."""
    digest = hashlib.sha256("\x1f".join(parts).encode()).digest()[:16]
    return str(uuid.UUID(bytes=digest, version=4))


def write_eee(
    panel: Panel,
    out_dir: Path | str,
    *,
    condition: str = "image",
    source_organization: str = "benchsift",
    retrieved_timestamp: str | None = None,
) -> list[Path]:
    """Write ``panel`` (the models of ``condition``) in the Every Eval Ever layout under ``out_dir``.

    Returns the files written (aggregate ``.json`` then ``_samples.jsonl`` per model and benchmark), all
    at once through :func:`benchsift._fileio.atomic_dir` (a file benchsift did not write is never
    replaced). ``retrieved_timestamp`` (Unix seconds, as text) defaults to now.
    """
    out = Path(out_dir)
    stamp = retrieved_timestamp if retrieved_timestamp is not None else str(int(time.time()))
    models = panel.models
    rows = np.flatnonzero((models["condition"] == condition).to_numpy())
    if len(rows) == 0:
        raise InputError(f"the panel has no models of condition {condition!r}")
    items = panel.items
    planned: list[tuple[Path, bytes]] = []
    for i in rows:
        model = str(models["model"].iloc[i])
        developer, _, name = model.rpartition("/")
        for bench in panel.benchmarks:
            cols = np.flatnonzero((items["benchmark"] == bench).to_numpy())
            scores = panel.scores[i, cols]
            seen = ~np.isnan(scores)
            if not seen.any():
                continue
            uid = _uuid4(model, bench, stamp)
            folder = out / _part(bench) / _part(developer or "unknown") / _part(name)
            rel = f"data/{_part(bench)}/{_part(developer or 'unknown')}/{_part(name)}/{uid}_samples.jsonl"
            evaluation_id = f"{bench}/{model}/{stamp}"
            lines = []
            for j, s in zip(cols[seen], scores[seen], strict=True):
                question = items["question"].iloc[j] if "question" in items.columns else None
                answer = items["answer"].iloc[j] if "answer" in items.columns else None
                record = {
                    "schema_version": SCHEMA_VERSION,
                    "evaluation_id": evaluation_id,
                    "model_id": model,
                    "evaluation_name": bench,
                    "sample_id": str(items["item"].iloc[j]),
                    "interaction_type": "single_turn",
                    "input": {
                        "raw": "" if question is None or pd.isna(question) else str(question),
                        "reference": [] if answer is None or pd.isna(answer) else [str(answer)],
                    },
                    "output": {"raw": []},
                    "answer_attribution": [],
                    "evaluation": {"score": float(s), "is_correct": bool(s == 1.0)},
                }
                lines.append(json.dumps(record, ensure_ascii=False, sort_keys=True))
            samples = ("\n".join(lines) + "\n").encode()
            aggregate = {
                "schema_version": SCHEMA_VERSION,
                "evaluation_id": evaluation_id,
                "retrieved_timestamp": stamp,
                "source_metadata": {
                    "source_name": "benchsift panel",
                    "source_type": "evaluation_run",
                    "source_organization_name": source_organization,
                    "evaluator_relationship": "third_party",
                },
                "eval_library": {"name": "benchsift", "version": _version()},
                "model_info": {
                    "name": model,
                    "id": model,
                    "additional_details": {"deployment_type": "unknown", "model_availability": "unknown"},
                },
                "evaluation_results": [
                    {
                        "evaluation_name": bench,
                        "source_data": {"dataset_name": bench, "source_type": "other"},
                        "metric_config": {
                            "evaluation_description": "mean of the per-item scores in the panel",
                            "lower_is_better": False,
                            "score_type": "continuous",
                            "min_score": 0.0,
                            "max_score": 1.0,
                        },
                        "score_details": {
                            "score": float(np.mean(scores[seen])),
                            "uncertainty": {"num_samples": int(seen.sum())},
                        },
                    }
                ],
                "detailed_evaluation_results": {
                    "format": "jsonl",
                    "file_path": rel,
                    "hash_algorithm": "sha256",
                    "checksum": hashlib.sha256(samples).hexdigest(),
                    "total_rows": len(lines),
                },
            }
            agg = (json.dumps(aggregate, indent=2, ensure_ascii=False, sort_keys=True) + "\n").encode()
            planned += [(folder / f"{uid}.json", agg), (folder / f"{uid}_samples.jsonl", samples)]
    with atomic_dir(out, prune=False) as tmp:
        for path, data in planned:
            target = tmp / path.relative_to(out)
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(data)
    return [p for p, _ in planned]


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("benchsift")
    except PackageNotFoundError:
        return "unknown"
