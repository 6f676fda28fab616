"""``benchsift validate``: held-out validation protocols of the Stage 2 selectors (PRIMEBench D.3, H.2).

``--protocol random`` (20 random balanced splits, Tables 9-11), ``chronological`` (release-date split and
its sensitivity splits), ``end-to-end`` (Stages 1-3 refit per split, Table 12) or ``same-model`` (per
benchmark, Table 17). ``--json`` prints ``{"protocol", "results": [{"selector", "retention", "rho_mean",
"rho_sd", "rho_min", "rho_max", "wins"}, ...], ...}``: every protocol's ``results`` rows carry exactly these
seven keys; protocol-specific extras sit in other top-level keys (``sensitivity`` splits of the
chronological protocol, ``table12`` and ``stage3_only`` of the end-to-end protocol, ``splits``, ``notes``...).

``--answers FILE`` gives DISCO the models' logged answers (PRIMEBench section 5: prediction disagreement on
the logged answers; a long table, see :mod:`benchsift.io.answers`); without it DISCO counts distinct scores.

The random protocol adds, like PRIMEBench Tables 10 and 11, the chronological split at the retention
closest to 5 % when the panel has release dates (one extra split): a column of the tables, and in ``--json``
the key ``chronological``: ``{"split", "retention", "rho_macro": {selector: rho}}``.

Item columns of the panel reach the selectors as ``item_meta``: ``benchmark`` (benchmark shares) and, for
IRT 2PL, an optional ``score_type`` column that picks the D.1 binarisation of non-binary items (``soft``,
``judge``, ``vqa``, ``half``: at half scale; ``graded``, ``caption``, ``captioning``, ``referring``,
``median``: at the benchmark median; default half scale).
"""

from __future__ import annotations

import warnings as warnings_
from pathlib import Path
from typing import Annotated

import typer

from benchsift.cli._common import (
    AddressOpt,
    BackendOpt,
    ForceOpt,
    JsonOpt,
    NJobsOpt,
    PanelArg,
    emit,
    figure_files,
    numbers,
    opt,
    outputs,
    split_list,
    sweep_workers,
)
from benchsift.compression.embeddings import load_embeddings
from benchsift.compression.protocols.specs import DEFAULT_RETENTIONS, DEFAULT_SELECTORS
from benchsift.compression.protocols.validation import check_options
from benchsift.errors import FloorWarning
from benchsift.io import read_scores
from benchsift.report.progress import progress_bar
from benchsift.report.tables.validation import render_validation
from benchsift.workflows.validate import validate_panel

_RETENTIONS = ",".join(f"{r:g}" for r in DEFAULT_RETENTIONS)
#: the default listed with spaces, so that a help screen of 80 columns wraps it between names, not in one
_SELECTORS_HELP = f"Comma-separated selector names (default: {', '.join(DEFAULT_SELECTORS)})."


def validate_command(
    ctx: typer.Context,
    panel: PanelArg,
    protocol: Annotated[str, opt("random, chronological, end-to-end or same-model.")] = "random",
    selectors: Annotated[str, opt(_SELECTORS_HELP, show_default=False)] = ",".join(DEFAULT_SELECTORS),
    retentions: Annotated[str, opt("Comma-separated retentions (fractions).")] = _RETENTIONS,
    splits: Annotated[int, opt("Number of random splits.")] = 20,
    seed: Annotated[int, opt("Seed of the splits and every selection.")] = 0,
    n_jobs: NJobsOpt = None,
    backend: BackendOpt = None,
    address: AddressOpt = None,
    k: Annotated[int, opt("End-to-end: Stage 3 category count.", "--k")] = 5,
    floor: Annotated[int, opt("Item floor of the category budget K_C.")] = 100,
    min_heldout: Annotated[int, opt("Held-out models (same-model: models) needed for a defined rho.")] = 10,
    scoring: Annotated[
        str, opt("mean (D.3), weighted (selector weights_) or selector (its estimate()).")
    ] = "mean",
    embeddings: Annotated[Path | None, opt("Vision-text item embeddings.")] = None,
    text_embeddings: Annotated[Path | None, opt("Text-only item embeddings.")] = None,
    answers: Annotated[
        Path | None, opt("Logged model answers (long table: model, benchmark, item, answer) for DISCO.")
    ] = None,
    answer_column: Annotated[str, opt("Column of --answers holding the answer.")] = "answer",
    figure: Annotated[Path | None, opt("Write the selector-vs-retention figure to FIGURE.png/.svg.")] = None,
    out: Annotated[
        Path | None,
        opt(
            "Also write validate.json, results.csv, the figure and index.html here "
            "(`benchsift report` reads it)."
        ),
    ] = None,
    json_output: JsonOpt = False,
    force: ForceOpt = False,
) -> None:
    """Validate Stage 2 selectors on held-out models (PRIMEBench D.3) and print the paper's tables.

    Every selector keeps the same category budget K_C = max(floor(r N_C), min(N_C, --floor)) (same-model:
    round(r N_b), no floor, H.2). IRT 2PL binarises non-binary items by an optional `score_type` item column
    of the panel (soft/judge/vqa/half: at half scale; graded/caption/captioning/referring/median: at the
    benchmark median; default half scale).
    """
    outputs(force, files=figure_files(figure), dirs=[out])
    check_options(protocol, n_jobs)  # before the panel is read
    sels, rets = split_list(selectors, "--selectors"), numbers(retentions, "--retentions")
    with warnings_.catch_warnings():  # printed from run.warnings (and in --json)
        warnings_.simplefilter("ignore", FloorWarning)
        run = validate_panel(
            read_scores(panel),
            protocol=protocol,
            figure=figure,
            out=out,
            data=panel.name,
            selectors=sels,
            retentions=rets,
            splits=splits,
            random_state=seed,
            n_jobs=sweep_workers(ctx, backend, address, n_jobs),
            k=k,
            floor=floor,
            min_heldout=min_heldout,
            scoring=scoring,
            embeddings=load_embeddings(embeddings, text_embeddings),
            answers=answers,
            answer_column=answer_column,
            chronological_column=True,  # the random protocol's column, in the tables and the JSON
            progress=progress_bar(f"validate: {protocol} protocol", not json_output),
        )
    report, summary = run.value, run.value.result.summary()
    written = [f"validation written to {out}/ (open {out}/index.html)"] if out is not None else []
    render = lambda: render_validation(report.result, protocol, summary, rets, report.chronological)  # noqa: E731
    emit(json_output, run, render, notes=run.notes, warnings=run.warnings, after=written)
