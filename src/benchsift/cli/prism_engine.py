"""``benchsift prism sources|build|run|grade``: the multi-axis evaluation engine (PRISM-VLM Secs. 3-4).

``register(app)`` adds the four commands to the ``prism`` typer group. Each parses its options, calls the
stage of :mod:`benchsift.prism.engine` of the same name, and prints a rich summary (calls, tokens, cache
hits, failures) or, with ``--json``, one JSON object on stdout; progress bars go to stderr.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Annotated, Any

import typer

from benchsift.cli._common import ForceOpt, console, fail, one_line, outputs
from benchsift.errors import BenchsiftError, InputError
from benchsift.report.progress import close_all, progress_bar

__all__ = ["register"]

# options shared by the commands
JsonOpt = Annotated[bool, typer.Option("--json", help="Print one JSON object.")]
QuietOpt = Annotated[bool, typer.Option(help="No progress bar.")]
CacheOpt = Annotated[
    str | None,
    typer.Option(help="Response cache: an SQLite file, or a postgresql:// URL (benchsift[postgres])."),
]
ImagesOpt = Annotated[Path | None, typer.Option(help="Image folder.")]
ItemsOpt = Annotated[Path, typer.Option(help="Item file from `prism sources`.")]

#: the library's parameter names as the CLI spells them, for its error messages
_FLAGS = {
    "max_reasks": "--max-reasks",
    "axes": "--axes",
    "k and seeds": "--k and --seeds",
    "audit_out": "--audit-out",
    "grader 'judge'": "--grader judge",
}


def _fail(err: BenchsiftError) -> None:
    """The library's error as one line, its parameter names spelled as this command's options (after
    closing a bar still drawn)."""
    close_all()
    msg = str(err)
    for name, flag in _FLAGS.items():
        if msg.startswith(name):
            msg = flag + msg[len(name) :]
    msg = msg.replace("needs a config", "needs --config").replace("use grader 'rules'", "use --grader rules")
    raise fail(msg)


def _summary(result: Any, as_json: bool) -> None:
    """Print a stage's counts and API calls (tables), or its ``--json`` object."""
    if as_json:
        sys.stdout.write(json.dumps(result.to_dict(), default=str) + "\n")
        return
    from benchsift.report.tables.prism import render_stage

    for table in render_stage(result):
        console.print(table)


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


def _incomplete(result: Any, max_lost: float) -> None:
    """Exit with :data:`EXIT_INCOMPLETE` when nothing, or more than ``max_lost`` of the requests, was
    answered (after the output and the summary are written: a rerun sends only what is missing)."""
    why = result.incomplete(max_lost)
    if why is None:
        return
    if why.startswith(f"{result.lost} of"):
        why = why.replace(" got no answer", f" got no answer (> --max-lost {max_lost:g})", 1)
    typer.echo(one_line(f"prism {result.stage}: {why}; partial output in {result.out}"), err=True)
    raise typer.Exit(EXIT_INCOMPLETE)


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
    from benchsift.prism.engine import collect_sources

    try:
        outputs(force, files=[out])
        pairs = []
        for spec in raw or []:
            if "=" not in spec:
                raise InputError(f"--raw expects BENCHMARK=PATH, got {spec!r}")
            bench, path = spec.split("=", 1)
            pairs.append((bench, path))
        try:
            seed_list = [int(s) for s in seeds.split(",") if s.strip()]
        except ValueError:
            raise InputError(f"--seeds: expected comma-separated integers, got {seeds!r}") from None
        if not no_sample and (k < 1 or not seed_list):
            raise InputError(f"--k and --seeds: expected K >= 1 and at least one seed, got K={k}, {seeds!r}")
        result = collect_sources(
            out,
            raw=pairs,
            items=items or [],
            hf=hf or [],
            images=images,
            k=k,
            seeds=seed_list,
            sample=not no_sample,
        )
    except BenchsiftError as err:
        _fail(err)
    if as_json:
        sys.stdout.write(json.dumps(result.to_dict()) + "\n")
        return
    from benchsift.report.tables.prism import render_sources

    console.print(render_sources(result.to_frame()))


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
    from benchsift.prism.engine import build

    try:
        outputs(force, files=[out, review, log])
        _check_max_lost(max_lost)
        if import_review is None and config is None:
            raise InputError("build needs --config (the generation judge)")
        tick = progress_bar("build", not (quiet or as_json), transient=False, bold=False)
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
    except BenchsiftError as err:
        _fail(err)
    _summary(result, as_json)
    _incomplete(result, max_lost)


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
    from benchsift.prism.engine import run

    try:
        outputs(force, files=[out])
        _check_max_lost(max_lost)
        tick = progress_bar("run", not (quiet or as_json), transient=False, bold=False)
        result = run(
            items,
            artifacts,
            config,
            out,
            images=images,
            models=[m.strip() for m in models.split(",")] if models else None,
            axes=[a.strip() for a in axes.split(",") if a.strip()],
            full_dialogue=full_dialogue,
            sc_rules=sc_rules,
            cache=cache,
            progress=tick,
        )
    except BenchsiftError as err:
        _fail(err)
    _summary(result, as_json)
    _incomplete(result, max_lost)


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
    from benchsift.prism.engine import grade

    try:
        outputs(force, files=[out, log, audit_out])
        _check_max_lost(max_lost)
        tick = progress_bar("grade", not (quiet or as_json), transient=False, bold=False)
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
    except BenchsiftError as err:
        _fail(err)
    _summary(result, as_json)
    if not as_json:
        from benchsift.report.tables.prism import render_grade_means

        console.print(render_grade_means(result.extra["axis_means"]))
    _incomplete(result, max_lost)


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
