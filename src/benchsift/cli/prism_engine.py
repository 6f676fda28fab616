"""``benchsift prism sources|build|run|grade``: the multi-axis evaluation engine (PRISM-VLM Secs. 3-4).

``register(app)`` adds the four commands to the ``prism`` typer group. Each command prints a rich
summary (calls, tokens, cache hits, failures) or, with ``--json``, one JSON object on stdout; progress
bars go to stderr.
"""

from __future__ import annotations

import asyncio
import json
import sys
from collections.abc import Callable, Coroutine
from pathlib import Path
from typing import Annotated, Any, TypeVar

import typer
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from benchsift.cli._common import ForceOpt, console, fail, one_line, outputs
from benchsift.clients import ClientPool, ResponseCache, SQLiteCache, load_config
from benchsift.errors import BenchsiftError, InputError

T = TypeVar("T")

__all__ = ["register"]

_err = Console(stderr=True)

# options shared by the commands
JsonOpt = Annotated[bool, typer.Option("--json", help="Print one JSON object.")]
QuietOpt = Annotated[bool, typer.Option(help="No progress bar.")]
CacheOpt = Annotated[
    str | None,
    typer.Option(help="Response cache: an SQLite file, or a postgresql:// URL (benchsift[postgres])."),
]
ImagesOpt = Annotated[Path | None, typer.Option(help="Image folder.")]
ItemsOpt = Annotated[Path, typer.Option(help="Item file from `prism sources`.")]


def _fail(err: BenchsiftError) -> None:
    raise fail(str(err))


def _progress(total: int, label: str, quiet: bool) -> tuple[Progress, Callable[[Any], None]]:
    prog = Progress(
        TextColumn(label), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(), console=_err, disable=quiet
    )
    task = prog.add_task(label, total=total)
    return prog, lambda _r: prog.advance(task)


def _summary(
    title: str,
    counts: dict[str, Any],
    pool: ClientPool | None,
    as_json: bool,
    extra: dict[str, Any] | None = None,
) -> None:
    calls = {name: s.to_dict() for name, s in (pool.stats.items() if pool else [])}
    total = pool.total().to_dict() if pool else {}
    if as_json:
        sys.stdout.write(
            json.dumps(
                {"command": title, **counts, "calls": total, "per_endpoint": calls, **(extra or {})},
                default=str,
            )
            + "\n"
        )
        return
    con = console
    t = Table(title=f"prism {title}")
    t.add_column("what")
    t.add_column("value", justify="right")
    for k, v in counts.items():
        t.add_row(k, str(v))
    con.print(t)
    if calls:
        c = Table(title="API calls")
        for col in (
            "endpoint",
            "requests",
            "cache hits",
            "retries",
            "failures",
            "prompt tok",
            "completion tok",
        ):
            c.add_column(col, justify="right" if col != "endpoint" else "left")
        for name, s in calls.items():
            c.add_row(
                name,
                str(s["requests"]),
                str(s["cache_hits"]),
                str(s["retries"]),
                str(s["failures"]),
                str(s["prompt_tokens"]),
                str(s["completion_tokens"]),
            )
        con.print(c)


def _cache_for(config_cache: Path | str | None, cache: str | None, out: Path) -> ResponseCache:
    return ResponseCache(cache or config_cache or out.parent / "prism-cache.sqlite")


#: exit code of an engine command that ran and wrote what it has, but lost too many answers (issue 12)
EXIT_INCOMPLETE = 3
MAX_LOST_DEFAULT = 0.1

MaxLostOpt = Annotated[
    float,
    typer.Option(
        "--max-lost",
        help="Exit with code 3 (after writing the output) when more than this fraction of the requests got "
        "no answer, or when none did.",
    ),
]


def _check_max_lost(value: float) -> None:
    if not 0.0 <= value <= 1.0:
        raise InputError(f"--max-lost: expected a fraction in [0, 1], got {value!r}")


def _incomplete(what: str, lost: int, total: int, max_lost: float, errors: list[str], out: Path) -> None:
    """Exit with :data:`EXIT_INCOMPLETE` when nothing, or more than ``max_lost`` of ``total``, was answered.

    Called after the output and the summary are written: the partial result stays for a rerun (which
    answers from the cache and sends only what is missing).
    """
    if total == 0 or (lost < total and lost <= max_lost * total):
        return
    top = max(set(errors), key=errors.count) if errors else "no reply"
    head = (
        "nothing was answered"
        if lost == total
        else f"{lost} of {total} got no answer (> --max-lost {max_lost:g})"
    )
    typer.echo(one_line(f"prism {what}: {head}; first cause: {top}; partial output in {out}"), err=True)
    raise typer.Exit(EXIT_INCOMPLETE)


def _release(pool: ClientPool | None) -> None:
    """Close the pool's cache; an SQLite cache this command created and left empty is removed (with
    -wal/-shm). A database cache is never removed."""
    cache = pool.cache if pool is not None else None
    if cache is None:
        return
    empty = cache.created and len(cache) == 0
    cache.close()
    if empty and isinstance(cache, SQLiteCache):
        for suffix in ("", "-wal", "-shm", "-journal"):
            Path(f"{cache.path}{suffix}").unlink(missing_ok=True)


def _arun(coro_fn: Callable[[], Coroutine[Any, Any, T]]) -> T:
    return asyncio.run(coro_fn())


def sources_cmd(
    out: Annotated[Path, typer.Option(help="Item file to write (canonical JSONL).")],
    raw: Annotated[
        list[str] | None,
        typer.Option(help="BENCHMARK=PATH: raw records in the benchmark's own schema (repeatable)."),
    ] = None,
    items: Annotated[list[Path] | None, typer.Option(help="Canonical item JSONL (repeatable).")] = None,
    hf: Annotated[
        list[str] | None,
        typer.Option(help="Benchmark to load from the Hugging Face Hub (needs benchsift[hf])."),
    ] = None,
    images: Annotated[
        Path | None, typer.Option(help="Image folder (in-memory images are written here).")
    ] = None,
    k: Annotated[int, typer.Option(help="Items per benchmark per seed (K).")] = 100,
    seeds: Annotated[
        str, typer.Option(help="Comma-separated sampling seeds (R of them).")
    ] = "0,1,42,1234,2026",
    no_sample: Annotated[
        bool, typer.Option("--no-sample", help="Keep every item (no R x K sampling).")
    ] = False,
    as_json: JsonOpt = False,
    force: ForceOpt = False,
) -> None:
    """Collect source items and draw the R x K per-benchmark sample (PRISM-VLM Sec. 4, Table 8)."""
    from benchsift.prism.sources import (
        check_item_images,
        domain_counts,
        load_hf,
        read_items,
        read_raw_jsonl,
        sample_items,
        write_items,
    )

    try:
        outputs(force, files=[out])
        pool = []
        for spec in raw or []:
            if "=" not in spec:
                raise InputError(f"--raw expects BENCHMARK=PATH, got {spec!r}")
            bench, path = spec.split("=", 1)
            pool += read_raw_jsonl(path, bench, images)
        for p in items or []:
            pool += read_items(p)
        for bench in hf or []:
            pool += load_hf(bench, images or out.parent / "images")
        if not pool:
            raise InputError("no items: give --raw, --items or --hf")
        check_item_images(pool, images or (out.parent / "images" if hf else None))
        try:
            seed_list = [int(s) for s in seeds.split(",") if s.strip()]
        except ValueError:
            raise InputError(f"--seeds: expected comma-separated integers, got {seeds!r}") from None
        if not no_sample and (k < 1 or not seed_list):
            raise InputError(f"--k and --seeds: expected K >= 1 and at least one seed, got K={k}, {seeds!r}")
        sampled = pool if no_sample else sample_items(pool, k=k, seeds=seed_list)
        ids = [it.id for it in sampled]
        if len(set(ids)) != len(ids):
            raise InputError("item ids are not unique across the inputs")
        write_items(sampled, out)
        table = domain_counts(pool, sampled)
    except BenchsiftError as err:
        _fail(err)
    if as_json:
        sys.stdout.write(
            json.dumps(
                {
                    "command": "sources",
                    "pool": len(pool),
                    "items": len(sampled),
                    "out": str(out),
                    "counts": table.to_dict(orient="records"),
                }
            )
            + "\n"
        )
        return
    t = Table(title="Items per domain and benchmark (Table 8)")
    for col in table.columns:
        t.add_column(col)
    for row in table.itertuples(index=False):
        t.add_row(*[str(v) for v in row])
    console.print(t)


def build_cmd(
    items: ItemsOpt,
    out: Annotated[Path, typer.Option(help="Artifact file to write (JSONL).")],
    config: Annotated[Path | None, typer.Option(help="Models/judges config (TOML).")] = None,
    images: ImagesOpt = None,
    review: Annotated[
        Path | None, typer.Option(help="Also write a review file to edit (JSONL, or CSV by a .csv suffix).")
    ] = None,
    import_review: Annotated[
        Path | None, typer.Option(help="Apply a reviewed file to --out (no API calls).")
    ] = None,
    log: Annotated[Path | None, typer.Option(help="JSONL of every J_gen exchange.")] = None,
    cache: CacheOpt = None,
    max_reasks: Annotated[int, typer.Option(help="Re-asks of an invalid J_gen reply.")] = 2,
    max_lost: MaxLostOpt = MAX_LOST_DEFAULT,
    as_json: JsonOpt = False,
    quiet: QuietOpt = False,
    force: ForceOpt = False,
) -> None:
    """Build the per-item perturbations with the generation judge (Figs. 5-9) and the if constraints."""
    from benchsift.prism.build import build_artifacts, export_review, read_artifacts, write_artifacts
    from benchsift.prism.build import import_review as apply_review
    from benchsift.prism.sources import read_items

    pool: ClientPool | None = None
    try:
        outputs(force, files=[out, review, log])
        _check_max_lost(max_lost)
        if max_reasks < 0:
            raise InputError(f"--max-reasks: expected an integer >= 0, got {max_reasks}")
        item_list = read_items(items)
        if import_review is not None:
            arts = apply_review(read_artifacts(out), import_review, item_list)
            write_artifacts(arts, out)
            logs: list[dict[str, Any]] = []
        else:
            if config is None:
                raise InputError("build needs --config (the generation judge)")
            cfg = load_config(config)
            if cfg.gen_judge is None:
                raise InputError(f"{config}: [judges] gen is not set")
            gen = cfg.endpoint(cfg.gen_judge)
            pool = ClientPool(cfg, _cache_for(cfg.cache, cache, out))
            prog, tick = _progress(len(item_list) * 6, "build", quiet or as_json)

            async def _go() -> tuple[list[Any], list[dict[str, Any]]]:
                assert pool is not None
                try:
                    with prog:
                        return await build_artifacts(
                            item_list,
                            pool.get(gen.name),
                            gen.model,
                            image_root=images,
                            max_reasks=max_reasks,
                            on_done=tick,
                        )
                finally:
                    await pool.aclose()

            arts, logs = _arun(_go)
            write_artifacts(arts, out)
        if log is not None:
            from benchsift.prism.stage_io import write_jsonl

            write_jsonl(logs, log)
        if review is not None:
            export_review(arts, review)
    except BenchsiftError as err:
        _fail(err)
    finally:
        _release(pool)
    counts: dict[str, Any] = {"items": len(item_list), "artifacts": len(arts)}
    for status in ("ok", "failed", "dropped", "rejected"):
        counts[status] = sum(a.status == status for a in arts)
    _summary("build", counts, pool, as_json)
    judged = [a for a in arts if a.axis != "if" and a.status != "rejected"]
    lost = [
        a.error or ""
        for a in judged
        if a.status == "failed" and (a.error or "").startswith("judge call failed")
    ]
    if import_review is None:
        _incomplete("build", len(lost), len(judged), max_lost, lost, out)


def run_cmd(
    items: ItemsOpt,
    artifacts: Annotated[Path, typer.Option(help="Artifact file from `prism build`.")],
    config: Annotated[Path, typer.Option(help="Models/judges config (TOML).")],
    out: Annotated[Path, typer.Option(help="Run records to write (JSONL: every prompt and response).")],
    images: ImagesOpt = None,
    models: Annotated[
        str | None, typer.Option(help="Comma-separated endpoint names (default: every role=model).")
    ] = None,
    axes: Annotated[str, typer.Option(help="Comma-separated axes.")] = "q,if,h,mq,sc,c,vis",
    full_dialogue: Annotated[
        bool, typer.Option("--full-dialogue", help="Play all three sc pressure turns.")
    ] = False,
    sc_rules: Annotated[
        bool, typer.Option("--sc-rules", help="Detect sc flips by rule, not by the judge.")
    ] = False,
    cache: CacheOpt = None,
    max_lost: MaxLostOpt = MAX_LOST_DEFAULT,
    as_json: JsonOpt = False,
    quiet: QuietOpt = False,
    force: ForceOpt = False,
) -> None:
    """Run every model over every applicable item and axis (temperature 0, per-axis budgets).

    Every response is committed to the cache as it arrives: a rerun makes no calls, and a run that was
    killed resumes where it stopped (only the requests in flight at the kill are sent again).

    Exit code 3 (after the records are written): no record was answered, or more than ``--max-lost`` of
    them were not. A rejected key (HTTP 401/403), an invalid URL or a refused connection stops the
    endpoint at its first occurrence.
    """
    from benchsift.prism.axes import AXES
    from benchsift.prism.build import read_artifacts
    from benchsift.prism.judge import Judge
    from benchsift.prism.run import ModelSpec, applicable, run_models
    from benchsift.prism.sources import read_items
    from benchsift.prism.stage_io import write_jsonl

    pool: ClientPool | None = None
    try:
        outputs(force, files=[out])
        _check_max_lost(max_lost)
        item_list = read_items(items)
        arts = read_artifacts(artifacts)
        cfg = load_config(config)
        names = [m.strip() for m in models.split(",")] if models else [m.name for m in cfg.models]
        if not names:
            raise InputError(f"{config}: no endpoint with role = 'model'")
        axis_list = [a.strip() for a in axes.split(",") if a.strip()]
        unknown = [a for a in axis_list if a not in AXES]
        if unknown or not axis_list:
            raise InputError(
                f"--axes: unknown axis {unknown[0]!r}; expected some of {','.join(AXES)}"
                if unknown
                else "--axes: expected at least one axis"
            )
        pool = run_pool = ClientPool(cfg, _cache_for(cfg.cache, cache, out))
        amap = {(a.item, a.axis): a for a in arts}
        total = len(names) * sum(applicable(it, ax, amap) for it in item_list for ax in axis_list)
        prog, tick = _progress(total, "run", quiet or as_json)

        async def _go() -> list[dict[str, Any]]:
            try:
                specs = [
                    ModelSpec(n, run_pool.get(n), cfg.endpoint(n).model, cfg.endpoint(n).budgets)
                    for n in names
                ]
                judge = None
                if not sc_rules and cfg.grade_judge is not None:
                    j = cfg.endpoint(cfg.grade_judge)
                    judge = Judge(run_pool.get(j.name), j.model, name=j.name)
                with prog:
                    return await run_models(
                        item_list,
                        arts,
                        specs,
                        axes=axis_list,
                        image_root=str(images) if images else None,
                        sc_judge=judge,
                        full_dialogue=full_dialogue,
                        on_done=tick,
                    )
            finally:
                await run_pool.aclose()

        records = _arun(_go)
        write_jsonl(records, out)
    except BenchsiftError as err:
        _fail(err)
    finally:
        _release(pool)
    counts = {
        "records": len(records),
        "answered": sum(r["answered"] for r in records),
        "unanswered": sum(not r["answered"] for r in records),
    }
    _summary("run", counts, pool, as_json)
    errors = [str(r["error"]) for r in records if not r["answered"]]
    _incomplete("run", len(errors), len(records), max_lost, errors, out)


def grade_cmd(
    items: ItemsOpt,
    artifacts: Annotated[Path, typer.Option(help="Artifact file.")],
    records: Annotated[Path, typer.Option(help="Run records from `prism run`.")],
    out: Annotated[Path, typer.Option(help="Verdict table (.csv or .parquet).")],
    config: Annotated[
        Path | None, typer.Option(help="Models/judges config (needed unless --grader rules).")
    ] = None,
    grader: Annotated[str, typer.Option(help="'judge' (Figs. 11-17) or 'rules' (no judge).")] = "judge",
    if_grader: Annotated[
        str, typer.Option(help="'rules' (constraint verifiers) or 'judge' (Fig. 12).")
    ] = "rules",
    log: Annotated[
        Path | None, typer.Option(help="JSONL of every grading decision and judge exchange.")
    ] = None,
    audit_out: Annotated[
        Path | None, typer.Option(help="Re-grade a resampled subset with [judges] audit into this table.")
    ] = None,
    audit_per_axis: Annotated[int, typer.Option(help="Items per axis for the audit re-grade (S).")] = 200,
    seed: Annotated[int, typer.Option(help="Seed of the audit subset.")] = 0,
    cache: CacheOpt = None,
    max_lost: MaxLostOpt = MAX_LOST_DEFAULT,
    as_json: JsonOpt = False,
    quiet: QuietOpt = False,
    force: ForceOpt = False,
) -> None:
    """Grade run records into the verdict table read by `prism score`."""
    from benchsift.prism.build import read_artifacts
    from benchsift.prism.grade import audit_subset, grade_records, read_run_records, write_verdicts
    from benchsift.prism.judge import Judge
    from benchsift.prism.sources import read_items
    from benchsift.prism.stage_io import write_jsonl

    pool: ClientPool | None = None
    try:
        outputs(force, files=[out, log, audit_out])
        _check_max_lost(max_lost)
        item_list = read_items(items)
        arts = read_artifacts(artifacts)
        recs = read_run_records(records)
        cfg = load_config(config) if config is not None else None
        if grader == "judge" and (cfg is None or cfg.grade_judge is None):
            raise InputError(
                "--grader judge needs --config with [judges] grade (or gen); or use --grader rules"
            )
        if audit_out is not None and (cfg is None or cfg.audit_judge is None):
            raise InputError("--audit-out needs --config with [judges] audit")
        if cfg is not None:
            pool = ClientPool(cfg, _cache_for(cfg.cache, cache, out))
        prog, tick = _progress(len(recs), "grade", quiet or as_json)

        async def _go() -> tuple[Any, list[dict[str, Any]], Any]:
            try:
                judge = None
                if cfg is not None and pool is not None and grader == "judge":
                    ep = cfg.endpoint(cfg.grade_judge or "")
                    judge = Judge(pool.get(ep.name), ep.model, name=ep.name)
                with prog:
                    df, glog = await grade_records(
                        recs, item_list, arts, judge=judge, grader=grader, if_grader=if_grader, on_done=tick
                    )
                audit_df = None
                if audit_out is not None and cfg is not None and pool is not None:
                    ep = cfg.endpoint(cfg.audit_judge or "")
                    audit_judge = Judge(pool.get(ep.name), ep.model, name=ep.name)
                    sub = audit_subset(recs, audit_per_axis, seed)
                    audit_df, alog = await grade_records(
                        recs,
                        item_list,
                        arts,
                        judge=audit_judge,
                        grader="judge",
                        if_grader=if_grader,
                        subset=sub,
                    )
                    glog += [{"audit": True, **r} for r in alog]
                return df, glog, audit_df  # each record's log row carries its judge exchanges
            finally:
                if pool is not None:
                    await pool.aclose()

        df, glog, audit_df = _arun(_go)
        write_verdicts(df, out)
        if audit_df is not None and audit_out is not None:
            write_verdicts(audit_df, audit_out)
        if log is not None:
            write_jsonl(glog, log)
    except BenchsiftError as err:
        _fail(err)
    finally:
        _release(pool)
    counts: dict[str, Any] = {
        "rows": len(df),
        "answered": int(df["answered"].sum()),
        "grade failures": sum(1 for r in glog if r.get("status") == "grade_failed"),
    }
    # sc as on the leaderboard: sc_B, over the items answered correctly at turn 0 (Sec. 3)
    keep = df["answered"] & ((df["axis"] != "sc") | df["sc_turn0_correct"].fillna(False).astype(bool))
    means = df[keep].groupby(["model", "axis"])["score"].mean().unstack()
    _summary("grade", counts, pool, as_json, {"axis_means": json.loads(means.to_json(orient="index"))})
    if not as_json:
        t = Table(title="Per-axis means (answered items; sc = sc_B, turn-0-correct items)")
        t.add_column("model")
        for ax in means.columns:
            t.add_column(ax, justify="right")
        for model, row in means.iterrows():
            t.add_row(str(model), *[f"{v:.3f}" for v in row])
        console.print(t)
    if grader == "judge":
        judged = [r for r in glog if r.get("judge") or r.get("status") == "grade_failed"]
        failed = [str(r.get("error")) for r in judged if r.get("status") == "grade_failed"]
        _incomplete("grade", len(failed), len(judged), max_lost, failed, out)


def register(app: typer.Typer) -> None:
    """Add ``sources``, ``build``, ``run`` and ``grade`` to the ``prism`` typer group."""
    app.command("sources")(sources_cmd)
    app.command("build")(build_cmd)
    app.command("run")(run_cmd)
    app.command("grade")(grade_cmd)


def _standalone() -> typer.Typer:
    app = typer.Typer(no_args_is_help=True, add_completion=False)
    register(app)
    return app


if __name__ == "__main__":
    _standalone()()
