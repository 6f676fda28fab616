"""``benchsift validate``: held-out validation protocols of the Stage 2 selectors (PRIMEBench D.3, H.2).

``--protocol random`` (20 random balanced splits, Tables 9-11), ``chronological`` (release-date split and
its sensitivity splits), ``end-to-end`` (Stages 1-3 refit per split, Table 12) or ``same-model`` (per
benchmark, Table 17). ``--json`` prints ``{"protocol", "results": [{"selector", "retention", "rho_mean",
"rho_sd", "rho_min", "rho_max", "wins"}, ...], ...}``: every protocol's ``results`` rows carry exactly these
seven keys; protocol-specific extras sit in other top-level keys (``sensitivity`` splits of the
chronological protocol, ``table12`` and ``stage3_only`` of the end-to-end protocol, ``splits``, ``notes``...).

``--answers FILE`` gives DISCO the models' logged answers (PRIMEBench section 5: prediction disagreement on
the logged answers; a long table, see :mod:`benchsift.io.answers`); without it DISCO counts distinct scores.

The random protocol's tables add, like PRIMEBench Tables 10 and 11, the chronological split at the retention
closest to 5 % when the panel has release dates (one extra split; left out of ``--json``).

Item columns of the panel reach the selectors as ``item_meta``: ``benchmark`` (benchmark shares) and, for
IRT 2PL, an optional ``score_type`` column that picks the D.1 binarisation of non-binary items (``soft``,
``judge``, ``vqa``, ``half``: at half scale; ``graded``, ``caption``, ``captioning``, ``referring``,
``median``: at the benchmark median; default half scale).
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer

from benchsift.cli._common import (
    ADDRESS_OPT,
    BACKEND_OPT,
    N_JOBS_OPT,
    ForceOpt,
    console,
    figure_files,
    option_names,
    outputs,
    print_json,
    sweep_workers,
)
from benchsift.cli._output import print_warnings, with_warnings
from benchsift.compression.protocols import DEFAULT_RETENTIONS, DEFAULT_SELECTORS
from benchsift.compression.protocols.validation import check_options, validate
from benchsift.errors import InputError
from benchsift.io import read_scores as read_new_scores
from benchsift.report.progress import progress_bar
from benchsift.report.tables.validation import render_validation
from benchsift.report.validation_figures import selector_retention_figure

_SELECTORS = ",".join(DEFAULT_SELECTORS)
_RETENTIONS = ",".join(f"{r:g}" for r in DEFAULT_RETENTIONS)


def parse_list(text: str, what: str) -> list[str]:
    vals = [v.strip() for v in text.split(",") if v.strip()]
    if not vals:
        raise InputError(f"--{what}: expected a comma-separated list, got {text!r}")
    return vals


def parse_retentions(text: str) -> list[float]:
    out = []
    for v in parse_list(text, "retentions"):
        try:
            out.append(float(v))
        except ValueError:
            raise InputError(
                f"--retentions: {v!r} is not a number (expected fractions like 0.02,0.05)"
            ) from None
    return out


def _load_embeddings(vision_text: Path | None, text: Path | None) -> Any:
    if vision_text is None and text is None:
        return None
    from benchsift.compression.embeddings import ItemEmbeddings

    return ItemEmbeddings.load(vision_text=vision_text, text=text)


def validate_command(
    ctx: typer.Context,
    panel: Annotated[
        Path, typer.Argument(help="Panel file (benchsift parquet) or a long CSV/parquet table.")
    ],
    protocol: Annotated[
        str, typer.Option(help="random, chronological, end-to-end or same-model.")
    ] = "random",
    selectors: Annotated[str, typer.Option(help="Comma-separated selector names.")] = _SELECTORS,
    retentions: Annotated[str, typer.Option(help="Comma-separated retentions (fractions).")] = _RETENTIONS,
    splits: Annotated[int, typer.Option("--splits", help="Number of random splits.")] = 20,
    seed: Annotated[int, typer.Option(help="Seed of the splits and every selection.")] = 0,
    n_jobs: int | None = N_JOBS_OPT,
    backend: str | None = BACKEND_OPT,
    address: str | None = ADDRESS_OPT,
    k: Annotated[int, typer.Option("--k", help="End-to-end: Stage 3 category count.")] = 5,
    floor: Annotated[int, typer.Option(help="Item floor of the category budget K_C.")] = 100,
    min_heldout: Annotated[
        int, typer.Option(help="Held-out models (same-model: models) needed for a defined rho.")
    ] = 10,
    scoring: Annotated[
        str, typer.Option(help="mean (D.3), weighted (selector weights_) or selector (its estimate()).")
    ] = "mean",
    embeddings: Annotated[Path | None, typer.Option(help="Vision-text item embeddings.")] = None,
    text_embeddings: Annotated[Path | None, typer.Option(help="Text-only item embeddings.")] = None,
    answers: Annotated[
        Path | None,
        typer.Option(help="Logged model answers (long table: model, benchmark, item, answer) for DISCO."),
    ] = None,
    answer_column: Annotated[
        str, typer.Option("--answer-column", help="Column of --answers holding the answer.")
    ] = "answer",
    figure: Annotated[
        Path | None, typer.Option(help="Write the selector-vs-retention figure to FIGURE.png/.svg.")
    ] = None,
    json_output: Annotated[
        bool, typer.Option("--json", help="Print one JSON object instead of tables.")
    ] = False,
    force: ForceOpt = False,
) -> None:
    """Validate Stage 2 selectors on held-out models (PRIMEBench D.3) and print the paper's tables.

    Every selector keeps the same category budget K_C = max(floor(r N_C), min(N_C, --floor)) (same-model:
    round(r N_b), no floor, H.2). IRT 2PL binarises non-binary items by an optional `score_type` item column
    of the panel (soft/judge/vqa/half: at half scale; graded/caption/captioning/referring/median: at the
    benchmark median; default half scale).
    """
    outputs(force, files=figure_files(figure))
    with option_names(n_jobs="--n-jobs", protocol="--protocol"):
        check_options(protocol, n_jobs)  # before the panel is read
        sels = parse_list(selectors, "selectors")
        rets = parse_retentions(retentions)
        loaded = read_new_scores(panel)
        n_jobs = sweep_workers(ctx, backend, address, n_jobs)
        report = validate(
            loaded,
            protocol=protocol,
            selectors=sels,
            retentions=rets,
            splits=splits,
            seed=seed,
            n_jobs=n_jobs,
            k=k,
            floor=floor,
            min_heldout=min_heldout,
            scoring=scoring,
            embeddings=_load_embeddings(embeddings, text_embeddings),
            answers=answers,
            answer_column=answer_column,
            chronological_column=not json_output,
            progress=progress_bar(f"validate: {protocol} protocol", not json_output),
        )
    result: Any = report.result
    summary = result.summary()
    warnings = list(report.warnings)
    if figure is not None and protocol != "end-to-end":
        from benchsift.report.figures import save_figure
        from benchsift.report.validation_figures import selector_retention_caption

        written = save_figure(
            selector_retention_figure(summary, title=f"{protocol} protocol"),
            figure,
            caption=selector_retention_caption(f"{panel.name}, {protocol} protocol", len(result.splits)),
            data=f"{panel.name}, {protocol} protocol",
        )
        warnings.append(f"--figure: wrote {', '.join(str(p) for p in written)}")
    elif figure is not None:
        warnings.append(
            "--figure: the end-to-end protocol has no selector-vs-retention figure; nothing written"
        )
    if json_output:
        print_json(with_warnings(report.to_dict(), warnings))
        return
    for shown in render_validation(result, protocol, summary, rets, report.chronological):
        console.print(shown)
    for note in report.notes:
        console.print(f"[dim]note: {note}[/dim]")
    print_warnings(warnings)
