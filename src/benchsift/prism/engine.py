"""The multi-axis evaluation engine from Python: sources -> build -> run -> grade (PRISM-VLM Secs. 3-4).

One function per stage, with the parameters of the ``benchsift prism`` command of the same name, and
:func:`evaluate` for the whole chain from an item file to a verdict table:

- :func:`collect_sources`: collect source items and draw the R x K per-benchmark sample (Sec. 4, Table 8);
- :func:`build`: the per-item perturbations with the generation judge (Figs. 5-9) and the if constraints;
- :func:`run`: every model over every applicable item and axis (temperature 0, per-axis budgets);
- :func:`grade`: the run records graded into the verdict table that
  :func:`benchsift.prism.scoring.score_report` reads.

Each stage writes its output file (atomically) and returns a :class:`StageResult`: the counts the CLI
prints, the API-call statistics of the client pool, and ``lost`` / ``total`` / ``errors`` (requests that
got no answer), from which the CLI derives its exit code 3. Every response goes through the response cache
(SQLite, next to the output unless ``cache`` or the config names one): a rerun makes no calls.
"""

from __future__ import annotations

import asyncio
import json
import os
from collections import Counter
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from numbers import Integral
from pathlib import Path
from typing import Any, TypeVar

import pandas as pd

from benchsift._fileio import open_regular
from benchsift._inputs import check_distinct
from benchsift._jsonutil import to_jsonable
from benchsift._params import Check, Interval, check_param, validate_params
from benchsift._schema import Rule, check_rules
from benchsift.clients import ClientPool, EngineConfig, SQLiteCache, load_config
from benchsift.clients.cache import ResponseCache
from benchsift.clients.cache_removal import remove_if_unused
from benchsift.errors import InputError
from benchsift.prism.axes import AXES, JUDGE_BUDGET
from benchsift.prism.judge import Judge
from benchsift.progress import ProgressFn
from benchsift.results import Result

__all__ = ["Evaluation", "StageResult", "build", "collect_sources", "evaluate", "grade", "run"]

PathLike = str | os.PathLike[str]
T = TypeVar("T")

#: grade's judges: the one each option needs, from `config`'s [judges]
_GRADE_RULES = (
    Rule(
        ("grader", "grade_judge"),
        lambda grader, judge: grader != "judge" or judge is not None,
        "`config` with [judges] grade (or gen) for `grader` judge; or use `grader` rules",
    ),
    Rule(
        ("audit_out", "audit_judge"),
        lambda out, judge: out is None or judge is not None,
        "`config` with [judges] audit for `audit_out`",
    ),
)


@dataclass(frozen=True, repr=False)
class StageResult(Result):
    """What one engine stage did.

    ``stage`` is ``sources``, ``build``, ``run`` or ``grade``; ``counts`` what it made (items, artifacts,
    records, rows ...); ``calls`` / ``per_endpoint`` the API-call statistics (requests, cache hits, retries,
    failures, tokens) of the whole pool and per endpoint; ``lost`` of ``total`` requests got no answer
    (``errors`` their causes); ``extra`` stage-specific JSON (``grade``: per-model axis means);
    ``table`` the stage's table (``sources``: items per domain and benchmark; ``grade``: the verdicts);
    ``warnings`` what changed what was asked (``run``: sc turns decided by the rule because the judge failed).
    ``unit`` names what ``total`` counts when it is not requests (``build``: the judged artifacts, ``grade``:
    the judged verdicts); of their ``lost``, ``invalid`` were lost to the judge's invalid replies (the rest
    to calls that got no answer), so that :meth:`incomplete` says what was lost.
    """

    stage: str
    out: Path
    counts: dict[str, Any]
    calls: dict[str, Any] = field(default_factory=dict)
    per_endpoint: dict[str, dict[str, Any]] = field(default_factory=dict, repr=False)
    lost: int = 0
    total: int = 0
    errors: list[str] = field(default_factory=list, repr=False)
    extra: dict[str, Any] = field(default_factory=dict, repr=False)
    table: pd.DataFrame | None = field(default=None, repr=False)
    warnings: list[str] = field(default_factory=list)
    unit: str = ""
    invalid: int = 0

    def __post_init__(self) -> None:
        capped = int(self.calls.get("retry_after_capped") or 0)
        if capped:  # the server asked for a longer wait than the config allows: say so (issue 32)
            self.warnings.append(
                f"{capped} retr{'y' if capped == 1 else 'ies'} waited max_retry_after seconds instead of the "
                "longer Retry-After the server asked for (raise max_retry_after in the config to wait longer)"
            )

    def to_dict(self) -> dict[str, Any]:
        """The ``--json`` object of ``benchsift prism <stage>``."""
        if self.stage == "sources":
            doc = {"command": "sources", **self.counts, "out": str(self.out)}
            doc["counts"] = [] if self.table is None else self.table.to_dict(orient="records")
            return to_jsonable(doc)
        doc = {"command": self.stage, **self.counts, "calls": self.calls, "per_endpoint": self.per_endpoint}
        return to_jsonable({**doc, **self.extra, "warnings": list(self.warnings)})

    def to_frame(self) -> pd.DataFrame:
        """The stage's table (see the class docstring), else its counts as one row."""
        return self.table if self.table is not None else pd.DataFrame([self.counts])

    def incomplete(self, max_lost: float) -> str | None:
        """Why the stage counts as incomplete: all of ``total`` lost, or more than ``max_lost`` of it
        (``None`` when it is complete, or made no request). ``run`` says how many requests got no answer;
        ``build`` and ``grade`` (a ``unit``) say for how many artifacts / verdicts the judge's replies were
        invalid and for how many its calls got no answer."""
        lost, total = self.lost, self.total
        if total == 0 or (lost < total and lost <= max_lost * total):
            return None
        # the most common cause; among equally common ones the first to occur (a set's order would
        # change with the interpreter's string hashing, so the same run would print another line)
        top = Counter(self.errors).most_common(1)[0][0] if self.errors else "no reply"
        if not self.unit:
            head = "nothing was answered" if lost == total else f"{lost} of {total} got no answer"
            return f"{head}; first cause: {top}"
        parts = []
        if self.invalid:
            parts.append(f"the judge's replies were invalid for {self.invalid} of {total} {self.unit}")
        if lost - self.invalid:
            parts.append(f"the judge's calls got no answer for {lost - self.invalid} of {total} {self.unit}")
        head = " and ".join(parts)
        if lost < total:
            head += f" ({lost} of {total} lost, > --max-lost {max_lost:g})"
        return f"{head}; first cause: {top}"


#: Largest models/judges config file read (a config names a few endpoints in a few kB)
MAX_CONFIG_BYTES = 1 << 20


def _config(config: EngineConfig | PathLike) -> EngineConfig:
    """``config`` itself, or the TOML config file it names (:func:`benchsift.clients.load_config`) once it
    is known to be a regular file (:func:`benchsift._fileio.open_regular`: a FIFO is never waited on, a
    device never read) of at most :data:`MAX_CONFIG_BYTES`; TOML nested too deeply for the parser is one
    :class:`~benchsift.errors.InputError` line, not a ``RecursionError``."""
    if isinstance(config, EngineConfig):
        return config
    p = Path(config)
    with open_regular(p, "a TOML config file") as fh:
        size = os.fstat(fh.fileno()).st_size
    if size > MAX_CONFIG_BYTES:
        raise InputError(
            f"{p}: {size:,} bytes, over the {MAX_CONFIG_BYTES:,} a config file may have (expected a TOML "
            "config file)"
        )
    try:
        return load_config(p)
    except RecursionError:
        raise InputError(f"{p}: not valid TOML (nested too deeply to read)") from None


def _pool(cfg: EngineConfig, cache: PathLike | str | None, out: Path) -> ClientPool:
    """The client pool of a stage, its cache at ``cache`` (an SQLite file or a ``postgresql://`` URL), the
    config's, or next to ``out``."""
    path = cache or cfg.cache or out.parent / "prism-cache.sqlite"
    return ClientPool(cfg, ResponseCache(path))


def _judge(pool: ClientPool, cfg: EngineConfig, name: str) -> Judge:
    """The :class:`Judge` of the config's endpoint ``name``, with its ``[endpoint.budgets] judge``."""
    ep = cfg.endpoint(name)
    return Judge(pool.get(ep.name), ep.model, name=ep.name, budget=ep.budgets.get("judge", JUDGE_BUDGET))


def _release(pool: ClientPool | None) -> None:
    """Close the pool's cache; an SQLite cache this stage created and left empty is removed (with
    -wal/-shm) unless another process has it open (:func:`~benchsift.clients.cache_removal.remove_if_unused`:
    a second run on the same new cache). A database cache is never removed."""
    cache = pool.cache if pool is not None else None
    if cache is None:
        return
    empty = cache.created and len(cache) == 0
    cache.close()
    if empty and isinstance(cache, SQLiteCache):
        remove_if_unused(cache.path)


def _drive(pool: ClientPool, work: Callable[[], Awaitable[T]]) -> T:
    """Run ``work()`` in a fresh event loop, closing the pool's connections at its end."""

    async def go() -> T:
        try:
            return await work()
        finally:
            await pool.aclose()

    return asyncio.run(go())


def _stats(pool: ClientPool | None) -> tuple[dict[str, Any], dict[str, dict[str, Any]]]:
    if pool is None:
        return {}, {}
    return pool.total().to_dict(), {name: s.to_dict() for name, s in pool.stats.items()}


def collect_sources(
    out: PathLike,
    *,
    raw: Sequence[tuple[str, PathLike]] | Mapping[str, PathLike] = (),
    items: Sequence[PathLike] = (),
    hf: Sequence[str] = (),
    images: PathLike | None = None,
    k: int = 100,
    seeds: Sequence[int] = (0, 1, 42, 1234, 2026),
    sample: bool = True,
) -> StageResult:
    """Collect source items and draw the R x K per-benchmark sample (PRISM-VLM Sec. 4, Table 8).

    Parameters
    ----------
    out
        The item file to write (canonical JSONL).
    raw
        ``(benchmark, path)`` pairs (or a mapping): raw records in each benchmark's own schema.
    items
        Canonical item JSONL files.
    hf
        Benchmarks to load from the Hugging Face Hub (needs ``benchsift[hf]``).
    images
        Image folder (in-memory images are written here; default ``<out's folder>/images`` for ``hf``).
    k, seeds
        Items per benchmark per seed (K) and the R sampling seeds.
    sample
        Draw the R x K sample (``False``: keep every item).
    """
    from benchsift.prism.sources import (
        check_item_images,
        domain_counts,
        load_hf,
        read_items,
        read_raw_jsonl,
        sample_items,
        write_items,
    )

    out = Path(out)
    images = Path(images) if images is not None else None
    pool = []
    for bench, path in raw.items() if isinstance(raw, Mapping) else raw:
        pool += read_raw_jsonl(path, bench, images)
    for p in items:
        pool += read_items(p)
    for bench in hf:
        pool += load_hf(bench, images or out.parent / "images")
    if not pool:
        raise InputError("no items: give raw records, item files or Hugging Face benchmarks")
    check_item_images(pool, images or (out.parent / "images" if hf else None))
    seed_list = [int(s) for s in seeds]
    if sample:
        check_param("k", k, [Interval(Integral, 1, None, closed="left")])
        check_param("seeds", seed_list, [Check(bool, "at least one seed")])
    sampled = sample_items(pool, k=k, seeds=seed_list) if sample else pool
    ids = [it.id for it in sampled]
    check_distinct("item ids (across the inputs)", ids, what="id")
    write_items(sampled, out)
    table = domain_counts(pool, sampled)
    return StageResult("sources", out, {"pool": len(pool), "items": len(sampled)}, table=table)


@validate_params({"max_reasks": [Interval(Integral, 0, None)]})
def build(
    items: PathLike,
    out: PathLike,
    *,
    config: PathLike | EngineConfig | None = None,
    images: PathLike | None = None,
    review: PathLike | None = None,
    import_review: PathLike | None = None,
    log: PathLike | None = None,
    cache: PathLike | str | None = None,
    max_reasks: int = 2,
    progress: ProgressFn | None = None,
) -> StageResult:
    """Build the per-item perturbations with the generation judge (PRISM-VLM Figs. 5-9), write ``out``.

    Parameters
    ----------
    items
        Item file from :func:`collect_sources`.
    out
        Artifact file to write (JSONL).
    config
        Models/judges config (TOML file or loaded): its ``[judges] gen`` builds the perturbations.
    images
        Image folder of the items.
    review
        Also write a review file to edit (JSONL, or CSV by a ``.csv`` suffix).
    import_review
        Apply a reviewed file to the artifacts already in ``out`` instead (no API calls).
    log
        JSONL of every generation-judge exchange.
    cache
        Response cache: an SQLite file or a ``postgresql://`` URL (default: the config's, else next to
        ``out``).
    max_reasks
        Re-asks of an invalid generation-judge reply.
    progress
        Called as ``progress(done, total)`` while the judge answers.
    """
    from benchsift.prism.build import GEN_BUDGET, NO_IMAGE, build_artifacts, read_artifacts, write_artifacts
    from benchsift.prism.review import export_review
    from benchsift.prism.review import import_review as apply_review
    from benchsift.prism.sources import read_items
    from benchsift.prism.stage_io import write_jsonl

    out = Path(out)
    item_list = read_items(items)
    pool: ClientPool | None = None
    try:
        if import_review is not None:
            arts = apply_review(read_artifacts(out), import_review, item_list)
            write_artifacts(arts, out)
            logs: list[dict[str, Any]] = []
        else:
            if config is None:
                raise InputError("build needs `config` (the generation judge)")
            cfg = _config(config)
            if cfg.gen_judge is None:
                raise InputError(f"{config}: [judges] gen is not set")
            gen = cfg.endpoint(cfg.gen_judge)
            pool = p = _pool(cfg, cache, out)
            arts, logs = _drive(
                p,
                lambda: build_artifacts(
                    item_list,
                    p.get(gen.name),
                    gen.model,
                    image_root=images,
                    item_file=items,
                    max_reasks=max_reasks,
                    gen_budget=gen.budgets.get("gen", GEN_BUDGET),
                    progress=progress,
                ),
            )
            write_artifacts(arts, out)
        if log is not None:
            write_jsonl(logs, log)
        if review is not None:
            export_review(arts, review)
    finally:
        _release(pool)
    counts: dict[str, Any] = {"items": len(item_list), "artifacts": len(arts)}
    for status in ("ok", "failed", "dropped", "rejected"):
        counts[status] = sum(a.status == status for a in arts)
    # the artifacts J_gen was asked for; a failed one is lost work, whether its call got no answer or
    # every reply was invalid (as grade counts a verdict the judge did not give)
    judged = [a for a in arts if a.axis != "if" and a.status != "rejected" and a.error != NO_IMAGE]
    lost = [a.error or "" for a in judged if a.status == "failed"]
    invalid = sum(not e.startswith("judge call failed") for e in lost)
    calls, per = _stats(pool)
    total = len(judged) if import_review is None else 0  # an imported review made no request
    warnings = [] if import_review is not None else _imageless_warning(item_list, arts)
    return StageResult(
        "build",
        out,
        counts,
        calls,
        per,
        len(lost),
        total,
        lost,
        warnings=warnings,
        unit="artifacts",
        invalid=invalid,
    )


def _imageless_warning(items: Sequence[Any], arts: Sequence[Any]) -> list[str]:
    """The one warning of ``build`` about items without an image, which left the image-only axes."""
    from benchsift.prism.build import IMAGE_AXES, NO_IMAGE

    left = {a.item for a in arts if a.error == NO_IMAGE}
    if not left:
        return []
    axes = [ax for ax in IMAGE_AXES if any(a.axis == ax and a.error == NO_IMAGE for a in arts)]
    return [
        f"{len(left)} of {len(items)} items have no image: they left the {', '.join(axes)} "
        f"ax{'is' if len(axes) == 1 else 'es'} (status 'dropped'), whose generation prompts show the judge "
        "only the image (PRISM-VLM Figs. 5, 8, 9); they stay on the other axes"
    ]


def run(
    items: PathLike,
    artifacts: PathLike,
    config: PathLike | EngineConfig,
    out: PathLike,
    *,
    images: PathLike | None = None,
    models: Sequence[str] | None = None,
    axes: Sequence[str] = AXES,
    full_dialogue: bool = False,
    sc_rules: bool = False,
    cache: PathLike | str | None = None,
    progress: ProgressFn | None = None,
) -> StageResult:
    """Run every model over every applicable item and axis (temperature 0, per-axis budgets).

    Every response is committed to the cache as it arrives: a rerun makes no calls, and a run that was
    killed resumes where it stopped. A rejected key (HTTP 401/403), an invalid URL or a refused connection
    stops the endpoint at its first occurrence.

    Parameters
    ----------
    items, artifacts
        The item file and the artifact file from :func:`build`.
    config
        Models/judges config; ``models`` names its endpoints to run (default: every ``role = "model"``).
    out
        Run records to write (JSONL: every prompt and response).
    axes
        The axes to run.
    full_dialogue
        Play all three sc pressure turns.
    sc_rules
        Detect sc flips by rule instead of by the config's grading judge.
    """
    from benchsift.prism.build import read_artifacts
    from benchsift.prism.run import ModelSpec, run_models
    from benchsift.prism.sources import read_items
    from benchsift.prism.stage_io import write_jsonl

    out = Path(out)
    item_list = read_items(items)
    arts = read_artifacts(artifacts)
    cfg = _config(config)
    names = list(models) if models else [m.name for m in cfg.models]
    if not names:
        raise InputError(f"{config}: no endpoint with role = 'model'")
    axis_list = list(axes)
    unknown = [a for a in axis_list if a not in AXES]
    if unknown or not axis_list:
        raise InputError(
            f"`axes`: unknown axis {unknown[0]!r}; expected some of {','.join(AXES)}"
            if unknown
            else "axes: expected at least one axis"
        )
    pool = _pool(cfg, cache, out)
    try:
        specs = [ModelSpec(n, pool.get(n), cfg.endpoint(n).model, cfg.endpoint(n).budgets) for n in names]
        judge = None if sc_rules or cfg.grade_judge is None else _judge(pool, cfg, cfg.grade_judge)
        records = _drive(
            pool,
            lambda: run_models(
                item_list,
                arts,
                specs,
                axes=axis_list,
                image_root=str(images) if images else None,
                item_file=items,
                sc_judge=judge,
                full_dialogue=full_dialogue,
                progress=progress,
            ),
        )
        write_jsonl(records, out)
    finally:
        _release(pool)
    counts = {
        "records": len(records),
        "answered": sum(r["answered"] for r in records),
        "unanswered": sum(not r["answered"] for r in records),
    }
    errors = [str(r["error"]) for r in records if not r["answered"]]
    calls, per = _stats(pool)
    warnings = []
    if judge is not None:  # a failed judge call falls back to the rule: the user asked for the judge
        turns = [t for r in records for t in r.get("turns") or () if "change_by" in t]  # pressure turns
        by_rules = sum(t.get("change_by") == "rules" for t in turns)
        if by_rules:
            warnings.append(
                f"{by_rules} of {len(turns)} sc turns were decided by the answer-extraction rule, not the "
                f"judge {cfg.grade_judge!r}, because the judge's call failed (its failures are in the API "
                "calls table)"
            )
    return StageResult("run", out, counts, calls, per, len(errors), len(records), errors, warnings=warnings)


def grade(
    items: PathLike,
    artifacts: PathLike,
    records: PathLike,
    out: PathLike,
    *,
    config: PathLike | EngineConfig | None = None,
    grader: str = "judge",
    if_grader: str = "rules",
    log: PathLike | None = None,
    audit_out: PathLike | None = None,
    audit_per_axis: int = 200,
    seed: int = 0,
    cache: PathLike | str | None = None,
    progress: ProgressFn | None = None,
) -> StageResult:
    """Grade run records into the verdict table (.csv or .parquet) read by :func:`score_report`.

    Parameters
    ----------
    items, artifacts, records
        The item file, the artifact file and the run records of :func:`run`.
    out
        The verdict table to write.
    config
        Models/judges config (needed unless ``grader="rules"``): ``[judges] grade`` grades, ``[judges]
        audit`` re-grades the audit subset.
    grader
        ``"judge"`` (Figs. 11-17) or ``"rules"`` (no judge).
    if_grader
        ``"rules"`` (constraint verifiers) or ``"judge"`` (Fig. 12).
    log
        JSONL of every grading decision and judge exchange.
    audit_out, audit_per_axis, seed
        Re-grade ``audit_per_axis`` items per axis (drawn with ``seed``) with the audit judge into this
        second verdict table (Sec. 5.3).

    Returns
    -------
    StageResult
        ``table`` is the verdict table; ``extra["axis_means"]`` the per-model axis means over answered
        items with sc = sc_B (over the items answered correctly at turn 0, Sec. 3).
    """
    from benchsift.io.verdicts import build_arrays
    from benchsift.prism.build import read_artifacts
    from benchsift.prism.grade import audit_subset, grade_records, read_run_records, write_verdicts
    from benchsift.prism.scores import axis_means_frame
    from benchsift.prism.sources import read_items
    from benchsift.prism.stage_io import write_jsonl

    out = Path(out)
    item_list = read_items(items)
    arts = read_artifacts(artifacts)
    recs = read_run_records(records)
    cfg = None if config is None else _config(config)
    grade_judge, audit_judge = (None, None) if cfg is None else (cfg.grade_judge, cfg.audit_judge)
    check_rules(
        _GRADE_RULES,
        {"grader": grader, "audit_out": audit_out, "grade_judge": grade_judge, "audit_judge": audit_judge},
    )
    pool = _pool(cfg, cache, out) if cfg is not None else None

    async def work() -> tuple[pd.DataFrame, list[dict[str, Any]], pd.DataFrame | None]:
        judge = None
        if cfg is not None and pool is not None and grader == "judge":
            judge = _judge(pool, cfg, cfg.grade_judge or "")
        df, glog = await grade_records(
            recs,
            item_list,
            arts,
            judge=judge,
            grader=grader,
            if_grader=if_grader,
            progress=progress,
        )
        audit_df = None
        if audit_out is not None and cfg is not None and pool is not None:
            sub = audit_subset(recs, audit_per_axis, seed)
            audit_judge = _judge(pool, cfg, cfg.audit_judge or "")
            audit_df, alog = await grade_records(
                recs, item_list, arts, judge=audit_judge, grader="judge", if_grader=if_grader, subset=sub
            )
            glog += [{"audit": True, **r} for r in alog]
        return df, glog, audit_df  # each record's log row carries its judge exchanges

    try:
        if pool is not None:
            df, glog, audit_df = _drive(pool, work)
        else:
            df, glog, audit_df = asyncio.run(work())
        write_verdicts(df, out)
        if audit_df is not None and audit_out is not None:
            write_verdicts(audit_df, audit_out)
        if log is not None:
            write_jsonl(glog, log)
    finally:
        _release(pool)
    counts: dict[str, Any] = {
        "rows": len(df),
        "answered": int(df["answered"].sum()),
        "grade failures": sum(1 for r in glog if r.get("status") == "grade_failed"),
    }
    # sc as on the leaderboard: sc_B over the items answered correctly at turn 0 (Sec. 3), every other axis
    # over the answered items: benchsift.prism.scores.axis_means, models and axes in sorted order
    # (a model or an axis without any such item is left out, as in a group-by over the kept rows)
    means = axis_means_frame(build_arrays(df), "B").sort_index().sort_index(axis=1)
    means = means.dropna(how="all").dropna(axis=1, how="all")
    extra = {"axis_means": json.loads(means.to_json(orient="index"))}
    lost, total, failed, invalid = _grade_lost(glog) if grader == "judge" else (0, 0, [], 0)
    calls, per = _stats(pool)
    return StageResult(
        "grade", out, counts, calls, per, lost, total, failed, extra, df, unit="verdicts", invalid=invalid
    )


def _grade_lost(glog: list[dict[str, Any]]) -> tuple[int, int, list[str], int]:
    """``(lost, total, causes, invalid)`` of a judge-graded log: the verdicts the judge was asked for, those
    it did not give (their causes) and, of those, the ones whose last reply was invalid (the others' last
    call got no answer: an ``error`` exchange)."""
    judged = [r for r in glog if r.get("judge") or r.get("status") == "grade_failed"]
    failed = [r for r in judged if r.get("status") == "grade_failed"]
    invalid = sum(1 for r in failed if r.get("judge") and "error" not in r["judge"][-1])
    return len(failed), len(judged), [str(r.get("error")) for r in failed], invalid


@dataclass(frozen=True, repr=False)
class Evaluation(Result):
    """The stages :func:`evaluate` ran (``build``, ``run``, ``grade``) and the verdict table it wrote."""

    stages: dict[str, StageResult]
    verdicts: pd.DataFrame = field(repr=False)
    out_dir: Path

    def to_dict(self) -> dict[str, Any]:
        """``{stage: <that stage's --json object>}``."""
        return {name: r.to_dict() for name, r in self.stages.items()}

    def to_frame(self) -> pd.DataFrame:
        """The verdict table (docs/CONTRACTS.md)."""
        return self.verdicts


def evaluate(
    config: PathLike | EngineConfig,
    items: PathLike,
    out_dir: PathLike,
    *,
    images: PathLike | None = None,
    models: Sequence[str] | None = None,
    axes: Sequence[str] = AXES,
    grader: str = "judge",
    if_grader: str = "rules",
    full_dialogue: bool = False,
    sc_rules: bool = False,
    cache: PathLike | str | None = None,
    max_reasks: int = 2,
    progress: ProgressFn | None = None,
    on_stage: Callable[[str], None] | None = None,
) -> Evaluation:
    """Build, run and grade an item file end to end: ``out_dir/{artifacts,records}.jsonl`` and
    ``out_dir/verdicts.csv`` (the input of :func:`benchsift.prism.scoring.score_report`).

    The stages share one response cache (``cache``, the config's, or ``out_dir/prism-cache.sqlite``), so
    a second call answers from it. Parameters are those of :func:`build`, :func:`run` and :func:`grade`;
    ``progress(done, total)`` (:data:`benchsift.progress.ProgressFn`) reports each stage in turn, from
    ``(0, total)`` of that stage; ``on_stage(name)`` is called with ``"build"``, ``"run"``, ``"grade"`` as
    each stage starts (e.g. to relabel a bar).
    """
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    cfg = _config(config)
    shared = cache or cfg.cache or out / "prism-cache.sqlite"

    def tick(stage: str) -> ProgressFn | None:
        if on_stage is not None:
            on_stage(stage)
        return progress

    stages = {
        "build": build(
            items,
            out / "artifacts.jsonl",
            config=cfg,
            images=images,
            cache=shared,
            max_reasks=max_reasks,
            progress=tick("build"),
        )
    }
    stages["run"] = run(
        items,
        out / "artifacts.jsonl",
        cfg,
        out / "records.jsonl",
        images=images,
        models=models,
        axes=axes,
        full_dialogue=full_dialogue,
        sc_rules=sc_rules,
        cache=shared,
        progress=tick("run"),
    )
    stages["grade"] = grade(
        items,
        out / "artifacts.jsonl",
        out / "records.jsonl",
        out / "verdicts.csv",
        config=cfg if grader == "judge" else None,
        grader=grader,
        if_grader=if_grader,
        cache=shared,
        progress=tick("grade"),
    )
    table = stages["grade"].table
    assert table is not None
    return Evaluation(stages, table, out)
