"""``benchsift compress`` (PRIMEBench Stages 0-3 -> a suite directory) and ``benchsift estimate``."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.progress import Progress, SpinnerColumn, TextColumn, TimeElapsedColumn

from benchsift.cli._common import ForceOpt, console, err_console, outputs, print_json
from benchsift.cli._output import print_warnings
from benchsift.compression.estimate import estimate_new_models
from benchsift.compression.frontier import capability_frontier
from benchsift.compression.pipeline import CompressionConfig, run_pipeline
from benchsift.compression.suite import load_suite, stage_table, write_suite
from benchsift.errors import InputError
from benchsift.io import read_scores
from benchsift.report.compression_figures import stage_rich_table
from benchsift.report.html import write_report
from benchsift.report.tables.compression import render_estimate, render_full_score


def compress_command(
    panel: Annotated[
        Path, typer.Argument(help="Panel file (benchsift parquet) or a long CSV/parquet table.")
    ],
    out: Annotated[Path, typer.Option("--out", help="Suite directory to write (atomic, per file).")],
    retention: Annotated[float, typer.Option(help="Stage 2 retention r (fraction of each pool).")] = 0.05,
    k: Annotated[int, typer.Option("--k", help="Stage 3: number of categories to keep.")] = 5,
    floor: Annotated[
        int,
        typer.Option(
            help="Stage 2 item floor: a category keeps max(floor(r N_C), min(N_C, FLOOR)) items "
            "(0: exactly r)."
        ),
    ] = 100,
    alpha: Annotated[float, typer.Option(help="VAW vision-dependence weight.")] = 0.187,
    tau: Annotated[float, typer.Option(help="Stage 0 blind-solvability threshold.", show_default="2/3")] = 2.0
    / 3.0,
    embeddings: Annotated[
        Path | None, typer.Option(help="Vision-text embeddings (.npy + keys, or .parquet).")
    ] = None,
    text_embeddings: Annotated[
        Path | None, typer.Option(help="Text-only embeddings of the same encoder (.npy or .parquet).")
    ] = None,
    selector: Annotated[str, typer.Option(help="Stage 2 item selector.")] = "vaw",
    variant: Annotated[
        str, typer.Option(help="VAW cell variant: cells, text-cells, random-cells, shares or dpp (App. D.4).")
    ] = "cells",
    seed: Annotated[int, typer.Option(help="Seed for every random choice.")] = 0,
    frontier: Annotated[
        bool,
        typer.Option(help="Also write the Capability Frontier of the Stage 0-cleaned pool (frontier.csv)."),
    ] = False,
    frontier_gain: Annotated[
        float | None,
        typer.Option(help="Per-step accuracy gain for the Frontier budget (default: from the panel)."),
    ] = None,
    json_output: Annotated[
        bool, typer.Option("--json", help="Print one JSON object instead of tables.")
    ] = False,
    force: ForceOpt = False,
) -> None:
    """Compress a panel into a small suite (PRIMEBench Stages 0-3) and write the suite directory."""
    outputs(force, dirs=[out])
    show = err_console if json_output else console
    loaded = read_scores(panel)
    emb = None
    if embeddings is not None or text_embeddings is not None:
        from benchsift.compression.embeddings import ItemEmbeddings

        emb = ItemEmbeddings.load(vision_text=embeddings, text=text_embeddings)
    cfg = CompressionConfig(
        retention=retention,
        k=k,
        alpha=alpha,
        tau=tau,
        selector=selector,
        variant=variant,
        seed=seed,
        floor=floor,
    )
    with Progress(
        SpinnerColumn(),
        TextColumn("{task.description}"),
        TimeElapsedColumn(),
        console=show,
        transient=True,
        disable=not show.is_terminal,  # no spinner residue (a blank line) in a pipe or a log
    ) as bar:
        task = bar.add_task("compressing", total=None)
        result = run_pipeline(
            loaded,
            cfg,
            embeddings=emb,
            progress=lambda done, total: bar.update(task, description=f"compressing: {done}/{total} stages"),
        )
        fr = None
        if frontier:
            bar.update(task, description="Capability Frontier")
            fr = capability_frontier(result.stage0.panel, gain=frontier_gain)
        bar.update(task, description="writing the suite")
        write_suite(result, loaded, out, frontier=fr)
        write_report(out, title=f"benchsift suite: {out.name}")
    summary = result.summary()
    summary["out"] = str(out)
    if json_output:
        print_json(summary)
        return
    table = stage_table(result, loaded.n_items)
    console.print(stage_rich_table(table, title=f"PRIMEBench compression of {panel.name}"))
    for note in result.notes:
        console.print(f"[dim]note: {note}[/]")
    print_warnings(result.warnings)
    console.print(f"suite written to {out}/ (open {out}/index.html)")


def estimate_command(
    suite_dir: Annotated[Path, typer.Argument(help="A suite directory written by `benchsift compress`.")],
    new_scores: Annotated[
        Path,
        typer.Argument(
            help="New models' scores: long CSV (model, benchmark, item, score), a panel file, or with --from "
            "a harness's log file or folder."
        ),
    ],
    from_format: Annotated[
        str | None,
        typer.Option(
            "--from",
            help="Read NEW_SCORES as this import format (lm-eval, inspect, lmms-eval, vlmevalkit, ...).",
        ),
    ] = None,
    export: Annotated[
        Path | None,
        typer.Option(
            "--export",
            help="The folder `benchsift export` wrote for the run: maps the ids the harness logged back to "
            "the suite's (needed for lmms-eval).",
        ),
    ] = None,
    n_boot: Annotated[int, typer.Option("--n-boot", help="Bootstrap replicates over suite items.")] = 2000,
    level: Annotated[float, typer.Option(help="Interval level.")] = 0.95,
    seed: Annotated[int, typer.Option(help="Bootstrap seed.")] = 0,
    json_output: Annotated[
        bool, typer.Option("--json", help="Print one JSON object instead of tables.")
    ] = False,
) -> None:
    """Estimate new models' category means, overall score and rank from their scores on a suite."""
    suite = load_suite(suite_dir)
    if n_boot < 1:
        raise InputError(f"--n-boot: expected a positive integer, got {n_boot}")
    res = estimate_new_models(
        suite,
        new_scores,
        from_format=from_format,
        export=export,
        n_boot=n_boot,
        level=level,
        random_state=seed,
    )
    if json_output:
        print_json(res.to_dict())
        return
    for w in res.warnings:
        err_console.print(f"[yellow]warning: {w}[/]")
    if res.full is not None:
        console.print(render_full_score(res, suite_dir.name, suite.n_items))
    table = render_estimate(res, suite_dir.name, suite.n_items, level)
    console.print(table)
    for note in res.notes:
        console.print(f"[dim]note: {note}[/]")
    if res.n_ignored_rows:
        console.print(f"[dim]{res.n_ignored_rows} item column(s) outside the suite were ignored[/]")
