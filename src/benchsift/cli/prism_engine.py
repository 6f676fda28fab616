"""``benchsift prism sources|build|run|grade``: the multi-axis evaluation engine (PRISM-VLM Secs. 3-4).

``register(app)`` adds the four commands to the ``prism`` typer group. Each parses its options, calls the
stage of :mod:`benchsift.prism.engine` of the same name, and prints (:func:`~benchsift.cli._common.emit`) a
rich summary (calls, tokens, cache hits, failures) or, with ``--json``, one JSON object on stdout; progress
bars go to stderr.
"""

from __future__ import annotations

from collections.abc import Callable
from numbers import Real
from pathlib import Path
from typing import Annotated, Any

import typer

from benchsift._params import Interval, check_param
from benchsift.cli._common import ForceOpt, emit, numbers, one_line, opt, outputs, pairs, seed_opt, split_list
from benchsift.report.progress import progress_bar

__all__ = ["register"]

# options shared by the commands
JsonOpt = Annotated[bool, opt("Print one JSON object.", "--json")]
QuietOpt = Annotated[bool, opt("No progress bar.")]
CacheOpt = Annotated[
    str | None, opt("Response cache: an SQLite file, or a postgresql:// URL (benchsift[postgres]).")
]
ImagesOpt = Annotated[Path | None, opt("Image folder.")]
ItemsOpt = Annotated[Path, opt("Item file from `prism sources`.")]
ConfigOpt = Annotated[Path, opt("Models/judges config (TOML).")]
MaxLostOpt = Annotated[
    float,
    opt(
        "Exit with code 3 (after writing the output) when more than this fraction of the requests got "
        "no answer, or when none did.",
        "--max-lost",
    ),
]

#: exit code of an engine command that ran and wrote what it has, but lost too many answers (issue 12)
EXIT_INCOMPLETE = 3
MAX_LOST_DEFAULT = 0.1


def _start(force: bool, files: list[Path | None], max_lost: float, stage: str, quiet: bool) -> Any:
    """Check the outputs and ``--max-lost`` before any call; return the stage's progress bar (or None)."""
    outputs(force, files=files)
    check_param("--max-lost", max_lost, [Interval(Real, 0, 1, noun="a fraction")], quote=False)
    return progress_bar(stage, not quiet, transient=False, bold=False)


def _finish(result: Any, as_json: bool, max_lost: float, *more: Callable[[], Any]) -> None:
    """Print the stage's counts and API calls (tables), then what each of ``more`` makes, or its ``--json``
    object; then exit with :data:`EXIT_INCOMPLETE` when nothing, or more than ``max_lost`` of the requests,
    was answered (the output is written: a rerun sends only what is missing)."""

    def stage_tables() -> list[Any]:  # tables only: --json imports no table module
        from benchsift.report.tables.prism import render_stage

        return list(render_stage(result))

    emit(as_json, result, stage_tables, *more, warnings=result.warnings)
    why = result.incomplete(max_lost)
    if why is None:
        return
    if why.startswith(f"{result.lost} of"):
        why = why.replace(" got no answer", f" got no answer (> --max-lost {max_lost:g})", 1)
    typer.echo(one_line(f"prism {result.stage}: {why}; partial output in {result.out}"), err=True)
    raise typer.Exit(EXIT_INCOMPLETE)


def sources_cmd(
    out: Annotated[Path, opt("Item file to write (canonical JSONL).")],
    raw: Annotated[
        list[str] | None, opt("BENCHMARK=PATH: raw records in the benchmark's own schema (repeatable).")
    ] = None,
    items: Annotated[list[Path] | None, opt("Canonical item JSONL (repeatable).")] = None,
    hf: Annotated[
        list[str] | None, opt("Benchmark to load from the Hugging Face Hub (needs benchsift[hf]).")
    ] = None,
    images: Annotated[Path | None, opt("Image folder (in-memory images are written here).")] = None,
    k: Annotated[int, opt("Items per benchmark per seed (K).")] = 100,
    seeds: Annotated[str, opt("Comma-separated sampling seeds (R of them).")] = "0,1,42,1234,2026",
    no_sample: Annotated[bool, opt("Keep every item (no R x K sampling).", "--no-sample")] = False,
    as_json: JsonOpt = False,
    force: ForceOpt = False,
) -> None:
    """Collect source items and draw the R x K per-benchmark sample (PRISM-VLM Sec. 4, Table 8)."""
    from benchsift.prism.engine import collect_sources
    from benchsift.report.tables.prism import render_sources

    outputs(force, files=[out])
    result = collect_sources(
        out,
        raw=pairs(raw, "--raw", "BENCHMARK=PATH"),
        items=items or [],
        hf=hf or [],
        images=images,
        k=k,
        seeds=numbers(seeds, "--seeds", int),
        sample=not no_sample,
    )
    emit(as_json, result, lambda: render_sources(result.to_frame()))


def build_cmd(
    items: ItemsOpt,
    out: Annotated[Path, opt("Artifact file to write (JSONL).")],
    config: Annotated[Path | None, opt("Models/judges config (TOML).")] = None,
    images: ImagesOpt = None,
    review: Annotated[
        Path | None, opt("Also write a review file to edit (JSONL, or CSV by a .csv suffix).")
    ] = None,
    import_review: Annotated[Path | None, opt("Apply a reviewed file to --out (no API calls).")] = None,
    log: Annotated[Path | None, opt("JSONL of every J_gen exchange.")] = None,
    cache: CacheOpt = None,
    max_reasks: Annotated[int, opt("Re-asks of an invalid J_gen reply.")] = 2,
    max_lost: MaxLostOpt = MAX_LOST_DEFAULT,
    as_json: JsonOpt = False,
    quiet: QuietOpt = False,
    force: ForceOpt = False,
) -> None:
    """Build the per-item perturbations with the generation judge (Figs. 5-9) and the if constraints."""
    from benchsift.prism.engine import build

    tick = _start(force, [out, review, log], max_lost, "build", quiet or as_json)
    result = build(
        items,
        out,
        config=config,
        images=images,
        review=review,
        import_review=import_review,
        log=log,
        cache=cache,
        max_reasks=max_reasks,
        progress=tick,
    )
    _finish(result, as_json, max_lost)


def run_cmd(
    items: ItemsOpt,
    artifacts: Annotated[Path, opt("Artifact file from `prism build`.")],
    config: ConfigOpt,
    out: Annotated[Path, opt("Run records to write (JSONL: every prompt and response).")],
    images: ImagesOpt = None,
    models: Annotated[str | None, opt("Comma-separated endpoint names (default: every role=model).")] = None,
    axes: Annotated[str, opt("Comma-separated axes.")] = "q,if,h,mq,sc,c,vis",
    full_dialogue: Annotated[bool, opt("Play all three sc pressure turns.", "--full-dialogue")] = False,
    sc_rules: Annotated[bool, opt("Detect sc flips by rule, not by the judge.", "--sc-rules")] = False,
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
    from benchsift.prism.engine import run

    tick = _start(force, [out], max_lost, "run", quiet or as_json)
    result = run(
        items,
        artifacts,
        config,
        out,
        images=images,
        models=split_list(models, "--models"),
        axes=[a.strip() for a in axes.split(",") if a.strip()],
        full_dialogue=full_dialogue,
        sc_rules=sc_rules,
        cache=cache,
        progress=tick,
    )
    _finish(result, as_json, max_lost)


def grade_cmd(
    items: ItemsOpt,
    artifacts: Annotated[Path, opt("Artifact file.")],
    records: Annotated[Path, opt("Run records from `prism run`.")],
    out: Annotated[Path, opt("Verdict table (.csv or .parquet).")],
    config: Annotated[Path | None, opt("Models/judges config (needed unless --grader rules).")] = None,
    grader: Annotated[str, opt("'judge' (Figs. 11-17) or 'rules' (no judge).")] = "judge",
    if_grader: Annotated[str, opt("'rules' (constraint verifiers) or 'judge' (Fig. 12).")] = "rules",
    log: Annotated[Path | None, opt("JSONL of every grading decision and judge exchange.")] = None,
    audit_out: Annotated[
        Path | None, opt("Re-grade a resampled subset with [judges] audit into this table.")
    ] = None,
    audit_per_axis: Annotated[int, opt("Items per axis for the audit re-grade (S).")] = 200,
    seed: Annotated[int, seed_opt("Seed of the audit subset.")] = 0,
    cache: CacheOpt = None,
    max_lost: MaxLostOpt = MAX_LOST_DEFAULT,
    as_json: JsonOpt = False,
    quiet: QuietOpt = False,
    force: ForceOpt = False,
) -> None:
    """Grade run records into the verdict table read by `prism score`."""
    from benchsift.prism.engine import grade

    tick = _start(force, [out, log, audit_out], max_lost, "grade", quiet or as_json)
    result = grade(
        items,
        artifacts,
        records,
        out,
        config=config,
        grader=grader,
        if_grader=if_grader,
        log=log,
        audit_out=audit_out,
        audit_per_axis=audit_per_axis,
        seed=seed,
        cache=cache,
        progress=tick,
    )

    def axis_means() -> Any:  # tables only: --json imports no table module
        from benchsift.report.tables.prism import render_grade_means

        return render_grade_means(result.extra["axis_means"])

    _finish(result, as_json, max_lost, axis_means)


def register(app: typer.Typer) -> None:
    """Add ``sources``, ``build``, ``run`` and ``grade`` to the ``prism`` typer group."""
    for name, command in (
        ("sources", sources_cmd),
        ("build", build_cmd),
        ("run", run_cmd),
        ("grade", grade_cmd),
    ):
        app.command(name)(command)


def _standalone() -> typer.Typer:
    app = typer.Typer(no_args_is_help=True, add_completion=False)
    register(app)
    return app


if __name__ == "__main__":
    _standalone()()
