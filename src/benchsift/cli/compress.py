"""``benchsift compress`` (PRIMEBench Stages 0-3 -> a suite directory) and ``benchsift estimate``."""

from __future__ import annotations

import warnings
from pathlib import Path
from typing import Annotated

from benchsift._schema import Rule, check_rules
from benchsift.cli._common import (
    ClustersOpt,
    ForceOpt,
    JsonOpt,
    PanelArg,
    SuiteArg,
    arg,
    cluster_spec,
    emit,
    opt,
    outputs,
)
from benchsift.compression.embeddings import load_embeddings
from benchsift.compression.pipeline import CompressionConfig
from benchsift.compression.suite import load_suite, stage_table
from benchsift.errors import EstimateWarning, FloorWarning, ResultWarning
from benchsift.io import read_scores
from benchsift.report.compression_figures import stage_rich_table
from benchsift.report.progress import progress_bar
from benchsift.report.tables.compression import render_estimate, render_full_score
from benchsift.workflows.compress import compress_to_suite
from benchsift.workflows.estimate import estimate_scores

_ONE_HOLDOUT = (
    Rule(
        ("holdout", "holdout_models"),
        lambda a, b: a is None or b is None,
        "`holdout` or `holdout_models`, not both",
    ),
)


def holdout_spec(holdout: float | None, holdout_models: str | None) -> float | list[str] | None:
    """``--holdout`` (a share) or ``--holdout-models`` (a file or comma list), at most one of them."""
    from benchsift.compression.holdout import read_model_list

    check_rules(_ONE_HOLDOUT, {"holdout": holdout, "holdout_models": holdout_models})
    return read_model_list(holdout_models) if holdout_models is not None else holdout


def compress_command(
    panel: PanelArg,
    out: Annotated[Path, opt("Suite directory to write (atomic, per file).", "--out")],
    retention: Annotated[float, opt("Stage 2 retention r (fraction of each pool).")] = 0.05,
    k: Annotated[int, opt("Stage 3: number of categories to keep.", "--k")] = 5,
    floor: Annotated[
        int,
        opt("Stage 2 item floor: a category keeps max(floor(r N_C), min(N_C, FLOOR)) items (0: exactly r)."),
    ] = 100,
    alpha: Annotated[float, opt("VAW vision-dependence weight.")] = 0.187,
    tau: Annotated[float, opt("Stage 0 blind-solvability threshold.", show_default="2/3")] = 2.0 / 3.0,
    embeddings: Annotated[Path | None, opt("Vision-text embeddings (.npy + keys, or .parquet).")] = None,
    text_embeddings: Annotated[
        Path | None, opt("Text-only embeddings of the same encoder (.npy or .parquet).")
    ] = None,
    selector: Annotated[
        str,
        opt(
            "Stage 2 item selector (`estimate`: items chosen for the new-model estimate, IRT-information "
            "strata (half of them difficulty strata where the 2PL misses a guessing floor) plus anchors, "
            "or anchors alone, whichever the estimators' cross-validation prefers)."
        ),
    ] = "vaw",
    variant: Annotated[
        str, opt("VAW cell variant: cells, text-cells, random-cells, shares or dpp (App. D.4).")
    ] = "cells",
    seed: Annotated[int, opt("Seed for every random choice.")] = 0,
    frontier: Annotated[
        bool, opt("Also write the Capability Frontier of the Stage 0-cleaned pool (frontier.csv).")
    ] = False,
    frontier_gain: Annotated[
        float | None, opt("Per-step accuracy gain for the Frontier budget (default: from the panel).")
    ] = None,
    holdout: Annotated[
        float | None,
        opt(
            "Hold out this fraction of the models (drawn with --seed), build the suite on the rest, and "
            "write how the estimate did on them (holdout.json: MAE, interval coverage, vs a random subset)."
        ),
    ] = None,
    holdout_models: Annotated[
        str | None,
        opt(
            "Hold out these models: a file with one per line, or a comma-separated list.", "--holdout-models"
        ),
    ] = None,
    json_output: JsonOpt = False,
    force: ForceOpt = False,
) -> None:
    """Compress a panel into a small suite (PRIMEBench Stages 0-3) and write the suite directory."""
    held = holdout_spec(holdout, holdout_models)
    outputs(force, dirs=[out])
    loaded = read_scores(panel)
    cfg = CompressionConfig(
        retention=retention,
        k=k,
        alpha=alpha,
        tau=tau,
        selector=selector,
        variant=variant,
        random_state=seed,
        floor=floor,
    )
    with warnings.catch_warnings():  # printed below from result.warnings (and in --json)
        warnings.simplefilter("ignore", FloorWarning)
        warnings.simplefilter("ignore", ResultWarning)
        run = compress_to_suite(
            loaded,
            out,
            cfg,
            embeddings=load_embeddings(embeddings, text_embeddings),
            frontier=frontier,
            frontier_gain=frontier_gain,
            progress=progress_bar("compressing: stages", not json_output),
            holdout=held,
        )
    result = run.value
    after = [f"suite written to {out}/ (open {out}/index.html)"]
    if result.holdout is not None:
        after.insert(0, result.holdout.summary_line())
    emit(
        json_output,
        run,
        lambda: stage_rich_table(
            stage_table(result, loaded.n_items), title=f"PRIMEBench compression of {panel.name}"
        ),
        notes=run.notes,
        warnings=run.warnings,
        after=after,
    )


def estimate_command(
    suite_dir: SuiteArg,
    new_scores: Annotated[
        Path,
        arg(
            "New models' scores: long CSV (model, benchmark, item, score), a panel file, or with --from "
            "a harness's log file or folder."
        ),
    ],
    from_format: Annotated[
        str | None,
        opt(
            "Read NEW_SCORES as this import format (lm-eval, inspect, lmms-eval, vlmevalkit, ...).", "--from"
        ),
    ] = None,
    export: Annotated[
        Path | None,
        opt(
            "The folder `benchsift export` wrote for the run: maps the ids the harness logged back to "
            "the suite's (needed for lmms-eval).",
            "--export",
        ),
    ] = None,
    n_boot: Annotated[int, opt("Bootstrap replicates over suite items.", "--n-boot")] = 2000,
    level: Annotated[float, opt("Interval level.")] = 0.95,
    seed: Annotated[int, opt("Bootstrap seed.")] = 0,
    clusters: ClustersOpt = "auto",
    known: Annotated[
        str | None,
        opt(
            "The new models' known full scores on other benchmarks of the suite, used as covariates of the "
            "estimate of the rest: NAME=0.61,NAME2=0.7 (every model) or a CSV file with columns model, "
            "benchmark, score (shares in [0, 1]).",
            "--known",
        ),
    ] = None,
    out: Annotated[
        Path | None,
        opt("Also write estimate.json, its tables as CSV and index.html here (`benchsift report` reads it)."),
    ] = None,
    json_output: JsonOpt = False,
    force: ForceOpt = False,
) -> None:
    """Estimate new models' category means, overall score and rank from their scores on a suite."""
    outputs(force, dirs=[out])
    suite = load_suite(suite_dir)
    with warnings.catch_warnings():  # the terminal and --json print res.warnings, which say the same
        warnings.simplefilter("ignore", EstimateWarning)
        run = estimate_scores(
            suite,
            new_scores,
            out=out,
            from_format=from_format,
            export=export,
            n_boot=n_boot,
            level=level,
            random_state=seed,
            clusters=cluster_spec(clusters),
            known=known,
        )
    res = run.value
    full = [lambda: render_full_score(res, suite_dir.name, suite.n_items)] if res.full is not None else []
    written = [f"estimates written to {out}/ (open {out}/index.html)"] if out is not None else []
    emit(
        json_output,
        res,
        *full,
        lambda: render_estimate(res, suite_dir.name, suite.n_items, level),
        notes=run.notes,
        warnings=run.warnings,  # items outside the suite: one of them
        after=written,
    )
