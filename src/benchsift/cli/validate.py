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

import pandas as pd
import typer

from benchsift._suggest import did_you_mean
from benchsift.cli._common import (
    ADDRESS_OPT,
    BACKEND_OPT,
    N_JOBS_OPT,
    ForceOpt,
    console,
    err_console,
    figure_files,
    outputs,
    print_json,
    sweep_workers,
)
from benchsift.cli._output import print_warnings, with_warnings
from benchsift.cli._progress import progress_bar
from benchsift.compression.protocols import (
    DEFAULT_RETENTIONS,
    DEFAULT_SELECTORS,
    end_to_end,
    same_model,
    stage2_heldout,
)
from benchsift.errors import InputError
from benchsift.io import read_scores as read_new_scores
from benchsift.io.answers import read_answers
from benchsift.report.validation_figures import (
    end_to_end_table,
    frame_table,
    retention_table,
    selector_retention_figure,
    split_table,
)

PROTOCOLS = ("random", "chronological", "end-to-end", "same-model")
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


def _closest(values: list[float], target: float = 0.05) -> float:
    return min(values, key=lambda r: (abs(r - target), r))


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
    if n_jobs is not None and (n_jobs == 0 or n_jobs < -1):
        raise InputError(f"--n-jobs: expected a positive number of workers or -1 (all cores), got {n_jobs}")
    if protocol not in PROTOCOLS:
        hint = did_you_mean(protocol, PROTOCOLS)
        raise InputError(f"--protocol: expected one of {', '.join(PROTOCOLS)}, got {protocol!r}{hint}")
    sels = parse_list(selectors, "selectors")
    rets = parse_retentions(retentions)
    loaded = read_new_scores(panel)
    n_jobs = sweep_workers(ctx, backend, address, n_jobs)
    emb = _load_embeddings(embeddings, text_embeddings)
    show = err_console if json_output else console
    predictions = None
    answer_notes: tuple[str, ...] = ()
    if answers is not None:
        logged = read_answers(answers, loaded, column=answer_column)
        predictions, answer_notes = logged.values, logged.notes
    progress = progress_bar(f"validate: {protocol} protocol", not json_output)
    result: Any
    if protocol in ("random", "chronological"):
        result = stage2_heldout(
            loaded,
            selectors=sels,
            retentions=rets,
            protocol=protocol,  # type: ignore[arg-type]
            n_splits=splits,
            floor=floor,
            min_heldout=min_heldout,
            scoring=scoring,  # type: ignore[arg-type]
            embeddings=emb,
            predictions=predictions,
            random_state=seed,
            n_jobs=n_jobs,
            progress=progress,
        )
    elif protocol == "end-to-end":
        result = end_to_end(
            loaded,
            selectors=sels,
            retentions=rets,
            k=k,
            n_splits=splits,
            floor=floor,
            min_heldout=min_heldout,
            embeddings=emb,
            predictions=predictions,
            random_state=seed,
            n_jobs=n_jobs,
            progress=progress,
        )
    else:
        result = same_model(
            loaded,
            selectors=sels,
            retentions=rets,
            min_models=min_heldout,
            embeddings=emb,
            predictions=predictions,
            random_state=seed,
            n_jobs=n_jobs,
            progress=progress,
        )
    summary = result.summary()
    warnings = list(result.warnings)
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
        out = with_warnings(result.to_dict(), warnings)
        if answer_notes:
            out["notes"] = [*out.get("notes", []), *answer_notes]
        print_json(out)
        return
    chrono = None
    if protocol == "random":
        chrono, chrono_warnings = _chronological_column(
            loaded, sels, _closest(rets), floor, min_heldout, scoring, emb, predictions, seed
        )
        warnings += [f"{w} (the chronological column)" for w in chrono_warnings if "release date" in w]
    _print_tables(result, protocol, summary, rets, chrono)
    for note in (*result.notes, *answer_notes):
        show.print(f"[dim]note: {note}[/dim]")
    print_warnings(warnings)


def _chronological_column(
    panel: Any,
    selectors: list[str],
    retention: float,
    floor: int,
    min_heldout: int,
    scoring: str,
    embeddings: Any,
    predictions: Any,
    seed: int,
) -> tuple[pd.Series | None, tuple[str, ...]]:
    """Macro rho of the main chronological split at ``retention`` per selector (PRIMEBench Tables 10-11,
    last column), or None when the panel cannot be split by release date; and that run's warnings."""
    models = panel.models[panel.conditions == "image"]
    if models["release_date"].notna().sum() < 2:
        return None, ()
    try:
        res = stage2_heldout(
            panel,
            selectors=selectors,
            retentions=[retention],
            protocol="chronological",
            floor=floor,
            min_heldout=min_heldout,
            scoring=scoring,  # type: ignore[arg-type]
            embeddings=embeddings,
            predictions=predictions,
            random_state=seed,
        )
    except InputError:
        return None, ()
    main = res.splits[0]
    values = res.macro[0, :, 0]
    return pd.Series(values, index=res.selectors, name=f"{main.name} r={100 * retention:g}%"), res.warnings


def _print_tables(
    result: Any, protocol: str, summary: pd.DataFrame, rets: list[float], chrono: pd.Series | None = None
) -> None:
    at = _closest(rets)
    if protocol == "random":
        n = len(result.splits)
        name = str(chrono.name) if chrono is not None else "chronological"
        console.print(
            retention_table(
                summary,
                f"Held-out macro Spearman rho, mean over {n} random splits (Table 10)",
                extra=chrono,
                extra_name=name,
            )
        )
        console.print(
            split_table(
                summary, at, f"Over splits at r={100 * at:g}% (Table 11)", extra=chrono, extra_name=name
            )
        )
        if len(result.categories) > 1:
            console.print(
                frame_table(
                    result.category_table(at),
                    f"Per category at r={100 * at:g}% (Table 9)",
                    row_highlight=list(result.selectors),
                )
            )
    elif protocol == "chronological":
        main = result.splits[0]
        console.print(retention_table(summary, f"{main.name} (build on the oldest, score the newest)"))
        for i in range(1, len(result.splits)):
            console.print(retention_table(result.summary([i]), f"sensitivity: {result.splits[i].name}"))
    elif protocol == "end-to-end":
        console.print(
            end_to_end_table(
                summary,
                result.stage3_only(),
                at,
                f"End-to-end rho on held-out models, {len(result.splits)} splits, k={result.k} (Table 12)",
            )
        )
    else:
        console.print(retention_table(summary, "Same-model mean rho over benchmarks (Table 17)"))
        console.print(
            frame_table(
                result.benchmark_table(at),
                f"Per benchmark at r={100 * at:g}%",
                row_highlight=list(result.selectors),
            )
        )
    secs = getattr(result, "seconds", None)
    if isinstance(secs, dict):
        console.print(
            "[dim]selection time per selector (s): "
            + ", ".join(f"{k} {v:.1f}" for k, v in secs.items())
            + "[/dim]"
        )
