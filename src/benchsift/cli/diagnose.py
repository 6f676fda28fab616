"""``benchsift diagnose``: the PRIMEBench diagnostics (section 7, Appendices D.4, F.4, H.3-H.4, I.1-I.4).

Subcommands: ``spectrum`` (Table 19), ``stage3`` (Table 18), ``shelf-life`` (Table 20), ``leftout``
(Table 22, Fig. 4a), ``checkpoints`` (Table 23, Fig. 4b), ``families`` (cross-family agreement). Each takes a
panel file and ``--json``.
"""

from __future__ import annotations

import warnings
from pathlib import Path
from typing import Annotated

import typer
from rich.text import Text

from benchsift.cli._common import (
    ClustersOpt,
    ForceOpt,
    JsonOpt,
    PanelArg,
    cluster_spec,
    emit,
    figure_files,
    numbers,
    opt,
    outputs,
    split_list,
)
from benchsift.compression import diagnostics as diag
from benchsift.errors import BenchsiftWarning
from benchsift.io import read_scores
from benchsift.report.tables import diagnostics as tables
from benchsift.report.validation_figures import frame_table
from benchsift.workflows.diagnose import checkpoint_ranking, leftout_prediction

app = typer.Typer(help="Diagnostics: spectrum, Stage 3 on aggregates, shelf life, left-out prediction, ...")
#: the library's warning that a left-out subset size was capped at the benchmarks (printed from the result)
DEFAULT_CAPPED = r"`(ks|k)` not given: its default"
Coverage = Annotated[int | None, opt("Benchmarks a model needs (default: half).")]
Figure = Annotated[Path | None, opt("Write Figure 4({}) to FIGURE.png/.svg.")]


@app.command("spectrum")
def spectrum_command(
    panel: PanelArg,
    by: Annotated[str, opt("category or benchmark.")] = "category",
    eras: Annotated[
        str | None, opt("Era boundaries as dates, e.g. 2024-06-01,2025-01-01 (Table 19).")
    ] = None,
    include_undated: Annotated[bool, opt("Add an era of the undated models.")] = False,
    missing: Annotated[str, opt("impute (z = 0) or complete (complete models only).")] = "impute",
    json_output: JsonOpt = False,
) -> None:
    """Spectrum of the z-normalised model x category (or x benchmark) matrix (PRIMEBench F.4, Table 19)."""
    res = diag.spectrum_report(
        read_scores(panel),
        by,
        eras=split_list(eras, "--eras"),
        include_undated=include_undated,
        missing=missing,
    )
    emit(
        json_output,
        res,
        lambda: frame_table(res.to_frame(), f"Spectrum of the z-normalised model x {by} matrix"),
        after=[
            Text(f"{r.label}: dropped (no scores or constant): {', '.join(r.dropped)}", style="dim")
            for r in res.spectra
            if r.dropped
        ],
    )


@app.command("stage3")
def stage3_command(
    panel: PanelArg,
    k: Annotated[
        str | None, opt("Comma-separated subset sizes (default: 3,5,8, at most the benchmarks).", "--k")
    ] = None,
    min_coverage: Coverage = None,
    n_boot: Annotated[int, opt("Bootstrap resamples.")] = 10_000,
    seed: Annotated[int, opt("Bootstrap seed.")] = 0,
    clusters: ClustersOpt = "auto",
    resample_items: Annotated[
        bool | None,
        opt(
            "Also resample item clusters within each benchmark (default: when clusters exist);"
            " --no-resample-items: models only, Table 18's interval.",
            "--resample-items/--no-resample-items",
        ),
    ] = None,
    json_output: JsonOpt = False,
) -> None:
    """Stage 3 on the benchmark means with the coverage rule and bootstrap CIs (PRIMEBench H.3, Table 18)."""
    with warnings.catch_warnings():  # the terminal and --json print res.warnings, which say the same
        warnings.filterwarnings("ignore", message=DEFAULT_CAPPED, category=BenchsiftWarning)
        res = diag.aggregate_stage3(
            read_scores(panel),
            ks=None if k is None else numbers(k, "--k", int),
            min_coverage=min_coverage,
            n_boot=n_boot,
            random_state=seed,
            clusters=cluster_spec(clusters),
            resample_items=resample_items,
        )
    emit(json_output, res, lambda: tables.render_stage3(res), notes=res.notes, warnings=res.warnings)


@app.command("shelf-life")
def shelf_life_command(
    panel: PanelArg,
    k: Annotated[
        int | None, opt("Benchmarks kept by Stage 3 (default: 5, at most the benchmarks).", "--k")
    ] = None,
    n_build: Annotated[int | None, opt("Oldest dated models the selection is frozen on.")] = None,
    checkpoints: Annotated[str | None, opt("Comma-separated dated panel sizes.")] = None,
    min_coverage: Coverage = None,
    json_output: JsonOpt = False,
) -> None:
    """A frozen Stage 3 selection as models are added in release order (PRIMEBench I.1, Table 20)."""
    cps = numbers(checkpoints, "--checkpoints", int) if checkpoints else None
    with warnings.catch_warnings():  # the terminal and --json print res.warnings, which say the same
        warnings.filterwarnings("ignore", message=DEFAULT_CAPPED, category=BenchsiftWarning)
        res = diag.shelf_life(
            read_scores(panel), k=k, n_build=n_build, checkpoints=cps, min_coverage=min_coverage
        )
    emit(json_output, res, lambda: tables.render_shelf_life(res), warnings=res.warnings)


@app.command("leftout")
def leftout_command(
    panel: PanelArg,
    targets: Annotated[str | None, opt("Comma-separated target benchmarks (default: all).")] = None,
    sizes: Annotated[str, opt("Training sizes M.")] = "1,2,4,8,16,32,64,128",
    splits: Annotated[int, opt("Random splits per size.")] = 30,
    alpha: Annotated[float, opt("Ridge penalty.")] = 1.0,
    seed: Annotated[int, opt("Seed of the splits.")] = 0,
    figure: Annotated[Path | None, opt("Write Figure 4(a) to FIGURE.png/.svg.")] = None,
    json_output: JsonOpt = False,
    force: ForceOpt = False,
) -> None:
    """Ridge prediction of a left-out benchmark vs training models (PRIMEBench I.3, Table 22)."""
    outputs(force, files=figure_files(figure))
    run = leftout_prediction(
        read_scores(panel),
        figure=figure,
        data=str(panel.name),
        targets=split_list(targets, "--targets"),
        sizes=numbers(sizes, "--sizes", int),
        n_splits=splits,
        alpha=alpha,
        random_state=seed,
    )
    title = f"Left-out benchmark MAE, mean over {splits} splits (Table 22)"
    emit(json_output, run, lambda: frame_table(run.value.table(), title), warnings=run.warnings)


@app.command("checkpoints")
def checkpoints_command(
    panel: PanelArg,
    variants: Annotated[str, opt("Regular expression matching the variant model ids.")],
    selectors: Annotated[str, opt("Comma-separated selectors.")] = "variance,vaw",
    retentions: Annotated[str, opt("Comma-separated retentions.")] = "0.05,0.1",
    n_boot: Annotated[int, opt("Bootstrap resamples of the ceiling.")] = 1000,
    seed: Annotated[int, opt("Seed.")] = 0,
    clusters: ClustersOpt = "auto",
    figure: Annotated[Path | None, opt("Write Figure 4(b) to FIGURE.png/.svg.")] = None,
    json_output: JsonOpt = False,
    force: ForceOpt = False,
) -> None:
    """Rank variants of one model on items selected on the other models (PRIMEBench I.4, Table 23).

    Models whose id matches ``--variants`` are the variants (grouped into variant sets by ``family``, one
    set when they have none); every other image-condition model selects the items.
    """
    outputs(force, files=figure_files(figure))
    run = checkpoint_ranking(
        read_scores(panel),
        variants,
        figure=figure,
        data=str(panel.name),
        selectors=split_list(selectors, "--selectors"),
        retentions=numbers(retentions, "--retentions"),
        n_boot=n_boot,
        random_state=seed,
        clusters=cluster_spec(clusters),
    )
    emit(json_output, run, lambda: tables.render_checkpoints(run.value.table()), warnings=run.warnings)


@app.command("families")
def families_command(
    panel: PanelArg,
    min_models: Annotated[int, opt("Models a family needs.")] = 4,
    json_output: JsonOpt = False,
) -> None:
    """Cross-family agreement: Spearman rho between families' per-item mean scores (PRIMEBench D.4)."""
    table = diag.family_agreement(read_scores(panel), min_models=min_models)
    title = f"Cross-family item agreement (families with >= {min_models} models)"
    emit(json_output, {"pairs": table.to_dict(orient="records")}, lambda: frame_table(table, title))
