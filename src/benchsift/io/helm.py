"""Importer ``helm``: Stanford CRFM HELM runs (``benchmark_output/runs/<suite>/<run spec>/``).

``helm-run`` writes one folder per run spec (``helm/benchmark/runner.py``, ``Runner.run_one``):
``run_spec.json`` (the ``RunSpec``: ``name`` such as ``mmlu:subject=anatomy,model=openai_gpt2``,
``adapter_spec.model``, ``groups``), ``scenario_state.json`` (the ``ScenarioState``: per request its
``instance``, ``train_trial_index`` and the model's ``result.completions``), ``stats.json`` (the aggregated
``Stat`` list) and ``per_instance_stats.json``: a list of ``PerInstanceStats``
(``helm/benchmark/metrics/metric.py``) with ``instance_id``, ``train_trial_index``, an optional
``perturbation`` and ``stats``, each ``Stat`` with ``name`` (``{name, split, perturbation?}``), ``count``,
``sum`` and ``mean``; HELM drops a stat whose value is NaN (``remove_per_instance_stats_nans``).

Mapping: model = ``adapter_spec.model`` (``model`` overrides), benchmark = the run spec name without its
``model=`` / ``model_deployment=`` arguments (``mmlu:subject=anatomy,method=multiple_choice_joint``;
``benchmark`` overrides), item = ``instance_id``, score = the mean of the chosen stat over the instance's
train trials (HELM averages a stat over instances and trials), unperturbed entries only (perturbed ones
are counted in a note). An instance without the stat is missing.

The stat: ``metric``, else the main metric of the run's group as HELM's own leaderboard shows it: the
``environment.main_name`` (and ``main_split``) of the run group in the ``schema.json`` that
``helm-summarize`` writes beside the runs (``helm/benchmark/presentation/summarize.py``; ``exact_match``
for MMLU, ``quasi_exact_match`` for BoolQ, ``f1_score`` for NarrativeQA ...), read only when it lies
inside the folder given: give the suite folder (``runs/<suite>``) for it to count; given a run folder (or
one of its files), the schema.json above it is outside what was given and not read, and the warning or
error says so. Without a schema entry for the group, ``exact_match`` when the run has it (with a warning
saying so), else the import is refused with the stats the run has. The split: ``split``, else the
schema's ``main_split``, else ``test`` when present, else the only split.

Every file read beside ``per_instance_stats.json`` (``run_spec.json``, ``scenario_state.json``,
``stats.json``) is read only when it is a regular file resolving inside the folder given (for a run folder
or file given by name, that run folder; :func:`benchsift.io._walk.side_file`): a ``run_spec.json`` linking
outside refuses the run, another such file is left unread with a warning naming it.

The aggregate check: the per-item mean is compared with HELM's own aggregate in ``stats.json`` (same stat,
split, no perturbation); a warning names both numbers when they differ by more than 1e-9. The model's
answer (for ``--answers-out``) is the first completion of the instance's first train trial in
``scenario_state.json`` (for a joint multiple-choice run, the option letter).

Item metadata from the same ``scenario_state.json`` (issue 34; the report's item view shows it):
``question`` = ``instance.input.text`` (VHELM: the text of ``input.multimedia_content``); ``choices`` =
the references' ``output.text`` (a JSON list), each prefixed with its option letter (``"A. Even"``) when
the request's ``output_mapping`` gives one; ``answer`` = the letter(s) of the references tagged
``correct`` when it does (what the model answers in a joint multiple-choice run), else their text;
``image`` = the ``location`` of the first image of ``input.multimedia_content`` (VHELM), a path the report
reads only inside the ``--images`` root it is given. Each cut to 2,000 characters.
"""

from __future__ import annotations

import math
import re
from pathlib import Path
from typing import Any

import pandas as pd

from benchsift._inputs import choose
from benchsift.errors import FormatError, InputError
from benchsift.io._coded_frames import read_sample_panel
from benchsift.io._common import ANSWER_COL, FILE_COL, ROW_COL, Paths, as_paths
from benchsift.io._harness import choices_text, read_json, text_columns
from benchsift.io._walk import NotThisFormat, inside, root_of, side_file
from benchsift.io.notes import raises_uncollected
from benchsift.io.rescale import RescaleMode
from benchsift.panel import Panel

PATTERNS = ("per_instance_stats.json",)
RUN_SPEC = "run_spec.json"
SCENARIO_STATE = "scenario_state.json"
STATS = "stats.json"
SCHEMA = "schema.json"
FALLBACK_METRIC = "exact_match"
_MODEL_ARG = re.compile(r"^(model|model_deployment)=")


def benchmark_of(run_name: str) -> str:
    """The run spec name without its ``model=`` / ``model_deployment=`` arguments."""
    head, sep, args = run_name.partition(":")
    if not sep:
        return head
    kept = [a for a in args.split(",") if a and not _MODEL_ARG.match(a)]
    return head + (":" + ",".join(kept) if kept else "")


def main_metric(schema: Any, groups: list[str]) -> tuple[str, str | None] | None:
    """``(main_name, main_split)`` of the first of ``groups`` with one in a HELM ``schema.json``."""
    run_groups = schema.get("run_groups") if isinstance(schema, dict) else None
    if not isinstance(run_groups, list):
        return None
    by_name = {g.get("name"): g for g in run_groups if isinstance(g, dict)}
    for group in groups:
        env = (by_name.get(group) or {}).get("environment") or {}
        name = env.get("main_name") if isinstance(env, dict) else None
        if isinstance(name, str) and name and name != "none":
            split = env.get("main_split")
            return name, split if isinstance(split, str) and split != "none" else None
    return None


def _stat_key(stat: Any) -> tuple[str, str | None, bool] | None:
    name = stat.get("name") if isinstance(stat, dict) else None
    if not isinstance(name, dict) or not isinstance(name.get("name"), str):
        return None
    return name["name"], name.get("split"), name.get("perturbation") is not None


def _stat_value(stat: dict[str, Any]) -> float:
    mean = stat.get("mean")
    if isinstance(mean, int | float) and not isinstance(mean, bool):
        return float(mean)
    count, total = stat.get("count"), stat.get("sum")
    if isinstance(count, int | float) and count and isinstance(total, int | float):
        return float(total) / float(count)
    return math.nan


#: The item metadata columns read from ``scenario_state.json``.
TEXT_COLUMNS = ("question", "choices", "answer", "image")


def _instance_text(instance: dict[str, Any], mapping: Any) -> tuple[str | None, ...]:
    """``(question, choices, answer, image)`` of a HELM ``Instance`` (module docstring)."""
    got = instance.get("input")
    inp: dict[str, Any] = got if isinstance(got, dict) else {}
    text = inp.get("text")
    question = text if isinstance(text, str) and text else None
    refs = [r for r in instance.get("references") or [] if isinstance(r, dict)]
    options = [str((r.get("output") or {}).get("text", "")) for r in refs]
    letter = {}
    if isinstance(mapping, dict):
        letter = {str(v): str(k) for k, v in mapping.items()}
    correct = [o for o, r in zip(options, refs, strict=True) if "correct" in (r.get("tags") or [])]
    shown = [f"{letter[o]}. {o}" if o in letter else o for o in options]
    answer = ", ".join(letter.get(o, o) for o in correct) if correct else None
    image = None
    media = (inp.get("multimedia_content") or {}).get("media_objects")
    parts: list[str] = []
    for m in media if isinstance(media, list) else []:
        if not isinstance(m, dict):
            continue
        kind, where = str(m.get("content_type", "")), m.get("location")
        if kind.startswith("image/") and isinstance(where, str) and where and image is None:
            image = where
        elif kind.startswith("text/") and isinstance(m.get("text"), str):
            parts.append(m["text"])
    if question is None and parts:  # VHELM: the question is the text media objects
        question = "\n".join(parts)
    return question, choices_text(shown), answer, image


def _answers(
    run_dir: Path, root: Path, notes: list[str] | None
) -> tuple[dict[str, str], dict[str, tuple[str | None, ...]]]:
    """The model's answer and the item text of each instance of the run's ``scenario_state.json``
    (read only inside ``root``, :func:`~benchsift.io._walk.side_file`)."""
    path = side_file(run_dir / SCENARIO_STATE, root, notes)
    if path is None:
        return {}, {}
    state = read_json(path)
    out: dict[str, str] = {}
    texts: dict[str, tuple[str | None, ...]] = {}
    for r in state.get("request_states") or [] if isinstance(state, dict) else []:
        if not isinstance(r, dict) or r.get("train_trial_index", 0) != 0:
            continue
        instance, result = r.get("instance") or {}, r.get("result") or {}
        completions = result.get("completions") if isinstance(result, dict) else None
        iid = instance.get("id") if isinstance(instance, dict) else None
        if iid is not None and str(iid) not in texts:
            texts[str(iid)] = _instance_text(instance, r.get("output_mapping"))
        if iid is not None and completions and isinstance(completions[0], dict) and str(iid) not in out:
            text = completions[0].get("text")
            if isinstance(text, str):
                out[str(iid)] = text
    return out, texts


def _schema(run_dir: Path, root: Path, notes: list[str] | None) -> tuple[Any, str]:
    """The suite's ``schema.json`` (in the folder that holds the run folder) and what the warning says of
    it; read only when it lies inside ``root``: given a run folder (or a file of it), the schema above it
    is outside what was given and not read, and the text says to give the suite folder."""
    schema_path = run_dir.parent / SCHEMA
    if not inside(run_dir.parent, root):
        if schema_path.is_file():
            return None, f"{schema_path} is outside {root}, not read: give the suite folder that holds it"
        return None, "no schema.json beside the runs"
    found = side_file(schema_path, root, notes)
    if found is None:
        return None, "no schema.json beside the runs"
    return read_json(found), str(found)


def _choose(
    path: Path,
    entries: list[dict[str, Any]],
    spec: dict[str, Any],
    metric: str | None,
    split: str | None,
    notes: list[str] | None,
    root: Path,
) -> tuple[str, str | None]:
    have: dict[str, set[str | None]] = {}
    for e in entries:
        for s in e.get("stats") or []:
            key = _stat_key(s)
            if key is not None and not key[2]:
                have.setdefault(key[0], set()).add(key[1])
    groups = [str(g) for g in spec.get("groups") or []]
    schema, where = _schema(path.resolve().parent, root, notes)
    main = main_metric(schema, groups)
    if metric is None:
        if main is not None:
            metric = main[0]
        elif FALLBACK_METRIC in have:
            metric = FALLBACK_METRIC
            if notes is not None:
                notes.append(
                    f"warning: {path.parent.name}: no main metric for groups {groups} ({where}); "
                    f"used {FALLBACK_METRIC!r} (`metric` chooses another)"
                )
        else:
            raise InputError(
                f"{path}: no main metric known for groups {groups} ({where}); choose one with `metric` "
                f"(stats: {sorted(have)[:20]})"
            )
    if metric not in have:
        raise InputError(f"{path}: no per-instance stat {metric!r} (stats: {sorted(have)[:20]})")
    splits = have[metric]
    if split is None:
        wanted = main[1] if main is not None and main[0] == metric else None
        split = wanted if wanted in splits else "test" if "test" in splits else None
    where = f"{path}: stat {metric!r}"
    split = choose(split, sorted(splits, key=str), what="split", param="split", where=where)
    return metric, split


def _aggregate(
    run_dir: Path, metric: str, split: str | None, root: Path, notes: list[str] | None
) -> float | None:
    path = side_file(run_dir / STATS, root, notes)
    if path is None:
        return None
    stats = read_json(path)
    for s in stats if isinstance(stats, list) else []:
        key = _stat_key(s)
        if key == (metric, split, False):
            value = _stat_value(s)
            return None if math.isnan(value) else value
    return None


def _read_one(
    path: Path,
    *,
    model: str | None,
    benchmark: str | None,
    metric: str | None,
    split: str | None,
    condition: str | None,
    notes: list[str] | None,
    root: Path | None = None,
) -> pd.DataFrame:
    run_dir = path.resolve().parent  # a bare file name given from inside the run folder names it too
    root = root_of(path) if root is None else root
    if not (run_dir / RUN_SPEC).is_file():
        raise NotThisFormat(f"{path}: no {RUN_SPEC} beside it (not a HELM run folder)")
    if side_file(run_dir / RUN_SPEC, root, None) is None:
        raise FormatError(f"{path}: its {RUN_SPEC} links outside the folder {root} (not read)")
    spec = read_json(run_dir / RUN_SPEC)
    entries = read_json(path)
    if not isinstance(spec, dict) or not isinstance(spec.get("name"), str):
        raise FormatError(f"{run_dir / RUN_SPEC}: not a HELM RunSpec (no 'name')")
    if not isinstance(entries, list) or not all(isinstance(e, dict) and "instance_id" in e for e in entries):
        raise FormatError(f"{path}: expected a list of PerInstanceStats (objects with 'instance_id')")
    adapter = spec.get("adapter_spec") or {}
    name = model or (adapter.get("model") if isinstance(adapter, dict) else None)
    if not name:
        raise FormatError(f"{run_dir / RUN_SPEC}: no adapter_spec.model; give `model`")
    task = benchmark or benchmark_of(spec["name"])
    chosen, chosen_split = _choose(path, entries, spec, metric, split, notes, root)
    values: dict[str, list[float]] = {}
    rows: dict[str, int] = {}
    perturbed = 0
    for k, e in enumerate(entries):
        if e.get("perturbation") is not None:
            perturbed += 1
            continue
        iid = str(e["instance_id"])
        rows.setdefault(iid, k)
        found = [s for s in e.get("stats") or [] if _stat_key(s) == (chosen, chosen_split, False)]
        values.setdefault(iid, [])
        if found:
            values[iid].append(_stat_value(found[0]))
    if not values:
        raise FormatError(f"{path}: no unperturbed instance")
    scores = {iid: (math.fsum(v) / len(v) if v else math.nan) for iid, v in values.items()}
    answers, texts = _answers(run_dir, root, notes)
    items = list(values)
    frame = pd.DataFrame(
        {
            "model": str(name),
            "condition": condition or "image",
            "benchmark": str(task),
            "item": items,
            "score": [scores[i] for i in items],
            FILE_COL: str(path),
            ROW_COL: [f"entry {rows[i]}" for i in items],
            ANSWER_COL: pd.Series([answers.get(i) for i in items], dtype=object),
            **text_columns([texts.get(i, (None,) * 4) for i in items], TEXT_COLUMNS),
        }
    )
    if notes is not None:
        extra = f", {perturbed} perturbed entries left out" if perturbed else ""
        notes.append(
            f"{run_dir.name}: model {name!r}, benchmark {task!r}, stat {chosen!r} on split "
            f"{chosen_split!r}, {len(items)} instances{extra}"
        )
        reported = _aggregate(run_dir, chosen, chosen_split, root, notes)
        observed = [s for s in scores.values() if not math.isnan(s)]
        mean = math.fsum(observed) / len(observed) if observed else math.nan
        if reported is not None and not abs(mean - reported) <= 1e-9:
            notes.append(
                f"warning: {run_dir.name}: the per-instance mean of {chosen!r} is {mean:.6g} but HELM's "
                f"stats.json reports {reported:.6g} for model {name!r}"
            )
    return frame


@raises_uncollected
def read_helm(
    paths: Paths,
    *,
    model: str | None = None,
    benchmark: str | None = None,
    metric: str | None = None,
    split: str | None = None,
    condition: str | None = None,
    rescale: RescaleMode = "auto",
    scales: dict[str, float] | None = None,
    notes: list[str] | None = None,
    answers: list[pd.DataFrame] | None = None,
) -> Panel:
    """Read HELM run folders (or a suite folder ``benchmark_output/runs/<suite>``, walked for
    ``per_instance_stats.json``) into a panel (module docstring)."""
    given = []
    for p in as_paths(paths):
        # a run folder given by name: its per_instance_stats.json
        given.append(p / PATTERNS[0] if (p / RUN_SPEC).is_file() and (p / PATTERNS[0]).is_file() else p)

    def one(path: Path, file_notes: list[str] | None, root: Path) -> pd.DataFrame:
        return _read_one(
            path,
            model=model,
            benchmark=benchmark,
            metric=metric,
            split=split,
            condition=condition,
            notes=file_notes,
            root=root,
        )

    return read_sample_panel(
        given,
        PATTERNS,
        one,
        what="HELM run",
        rescale=rescale,
        scales=scales,
        notes=notes,
        answers=answers,
    )
