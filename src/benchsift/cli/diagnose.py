"""``benchsift diagnose``: the PRIMEBench diagnostics (section 7, Appendices D.4, F.4, H.3-H.4, I.1-I.4).

Subcommands: ``spectrum`` (Table 19), ``stage3`` (Table 18), ``shelf-life`` (Table 20), ``leftout``
(Table 22, Fig. 4a), ``checkpoints`` (Table 23, Fig. 4b), ``families`` (cross-family agreement). Each takes a
panel file and ``--json``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Literal, cast

import typer

from benchsift.cli._common import ForceOpt, console, figure_files, outputs, print_json
from benchsift.cli._output import print_warnings, with_warnings
from benchsift.cli.validate import parse_list, parse_retentions
from benchsift.compression.diagnostics import (
    aggregate_stage3,
    checkpoint_ranking_by_pattern,
    era_spectra,
    family_agreement,
    leftout_prediction,
    panel_spectrum,
    shelf_life,
    spectrum_table,
)
from benchsift.errors import InputError
from benchsift.io import read_scores as read_new_scores
from benchsift.report.tables.diagnostics import render_checkpoints, render_shelf_life, render_stage3
from benchsift.report.validation_figures import checkpoint_figure, frame_table, leftout_figure

app = typer.Typer(help="Diagnostics: spectrum, Stage 3 on aggregates, shelf life, left-out prediction, ...")

JsonOpt = Annotated[bool, typer.Option("--json", help="Print one JSON object instead of tables.")]
PanelArg = Annotated[Path, typer.Argument(help="Panel file (benchsift parquet) or a long CSV/parquet table.")]


def _ints(text: str, what: str) -> list[int]:
    try:
        return [int(v) for v in parse_list(text, what)]
    except ValueError:
        raise InputError(f"--{what}: expected comma-separated integers, got {text!r}") from None


@app.command("spectrum")
def spectrum_command(
    panel: PanelArg,
    by: Annotated[str, typer.Option(help="category or benchmark.")] = "category",
    eras: Annotated[
        str | None, typer.Option(help="Era boundaries as dates, e.g. 2024-06-01,2025-01-01 (Table 19).")
    ] = None,
    include_undated: Annotated[bool, typer.Option(help="Add an era of the undated models.")] = False,
    missing: Annotated[
        str, typer.Option(help="impute (z = 0) or complete (complete models only).")
    ] = "impute",
    json_output: JsonOpt = False,
) -> None:
    """Spectrum of the z-normalised model x category (or x benchmark) matrix (PRIMEBench F.4, Table 19)."""
    if missing not in ("impute", "complete"):
        raise InputError(f"--missing: expected impute or complete, got {missing!r}")
    miss = cast(Literal["impute", "complete"], missing)
    p = read_new_scores(panel)
    results = [panel_spectrum(p, by, missing=miss)]
    if eras:
        results += era_spectra(
            p, by, boundaries=parse_list(eras, "eras"), include_undated=include_undated, missing=miss
        )
    if json_output:
        print_json({"by": by, "spectra": [r.to_dict() for r in results]})
        return
    console.print(frame_table(spectrum_table(results), f"Spectrum of the z-normalised model x {by} matrix"))
    for r in results:
        if r.dropped:
            console.print(f"[dim]{r.label}: dropped (no scores or constant): {', '.join(r.dropped)}[/dim]")


@app.command("stage3")
def stage3_command(
    panel: PanelArg,
    k: Annotated[str, typer.Option("--k", help="Comma-separated subset sizes.")] = "3,5,8",
    min_coverage: Annotated[
        int | None, typer.Option(help="Benchmarks a model needs (default: half).")
    ] = None,
    n_boot: Annotated[int, typer.Option(help="Bootstrap resamples.")] = 10_000,
    seed: Annotated[int, typer.Option(help="Bootstrap seed.")] = 0,
    json_output: JsonOpt = False,
) -> None:
    """Stage 3 on the benchmark means with the coverage rule and bootstrap CIs (PRIMEBench H.3, Table 18)."""
    res = aggregate_stage3(
        read_new_scores(panel), ks=_ints(k, "k"), min_coverage=min_coverage, n_boot=n_boot, random_state=seed
    )
    if json_output:
        print_json(res.to_dict())
        return
    console.print(render_stage3(res))
    for note in res.notes:
        console.print(f"[dim]note: {note}[/dim]")
    print_warnings(res.warnings)


@app.command("shelf-life")
def shelf_life_command(
    panel: PanelArg,
    k: Annotated[int, typer.Option("--k", help="Benchmarks kept by Stage 3.")] = 5,
    n_build: Annotated[
        int | None, typer.Option(help="Oldest dated models the selection is frozen on.")
    ] = None,
    checkpoints: Annotated[str | None, typer.Option(help="Comma-separated dated panel sizes.")] = None,
    min_coverage: Annotated[
        int | None, typer.Option(help="Benchmarks a model needs (default: half).")
    ] = None,
    json_output: JsonOpt = False,
) -> None:
    """A frozen Stage 3 selection as models are added in release order (PRIMEBench I.1, Table 20)."""
    cps = _ints(checkpoints, "checkpoints") if checkpoints else None
    res = shelf_life(read_new_scores(panel), k=k, n_build=n_build, checkpoints=cps, min_coverage=min_coverage)
    if json_output:
        print_json(res.to_dict())
        return
    console.print(render_shelf_life(res))


@app.command("leftout")
def leftout_command(
    panel: PanelArg,
    targets: Annotated[
        str | None, typer.Option(help="Comma-separated target benchmarks (default: all).")
    ] = None,
    sizes: Annotated[str, typer.Option(help="Training sizes M.")] = "1,2,4,8,16,32,64,128",
    splits: Annotated[int, typer.Option("--splits", help="Random splits per size.")] = 30,
    alpha: Annotated[float, typer.Option(help="Ridge penalty.")] = 1.0,
    seed: Annotated[int, typer.Option(help="Seed of the splits.")] = 0,
    figure: Annotated[Path | None, typer.Option(help="Write Figure 4(a) to FIGURE.png/.svg.")] = None,
    json_output: JsonOpt = False,
    force: ForceOpt = False,
) -> None:
    """Ridge prediction of a left-out benchmark vs training models (PRIMEBench I.3, Table 22)."""
    outputs(force, files=figure_files(figure))
    res = leftout_prediction(
        read_new_scores(panel),
        targets=parse_list(targets, "targets") if targets else None,
        sizes=_ints(sizes, "sizes"),
        n_splits=splits,
        alpha=alpha,
        random_state=seed,
    )
    warnings: list[str] = []
    if figure is not None:
        from benchsift.report.figures import save_figure

        written = save_figure(leftout_figure(res.table()), figure, data=str(panel.name))
        warnings.append(f"--figure: wrote {', '.join(str(p) for p in written)}")
    if json_output:
        print_json(with_warnings(res.to_dict(), warnings))
        return
    table = res.table()
    console.print(frame_table(table, f"Left-out benchmark MAE, mean over {splits} splits (Table 22)"))
    print_warnings(warnings)


@app.command("checkpoints")
def checkpoints_command(
    panel: PanelArg,
    variants: Annotated[str, typer.Option(help="Regular expression matching the variant model ids.")],
    selectors: Annotated[str, typer.Option(help="Comma-separated selectors.")] = "variance,vaw",
    retentions: Annotated[str, typer.Option(help="Comma-separated retentions.")] = "0.05,0.1",
    n_boot: Annotated[int, typer.Option(help="Bootstrap resamples of the ceiling.")] = 1000,
    seed: Annotated[int, typer.Option(help="Seed.")] = 0,
    figure: Annotated[Path | None, typer.Option(help="Write Figure 4(b) to FIGURE.png/.svg.")] = None,
    json_output: JsonOpt = False,
    force: ForceOpt = False,
) -> None:
    """Rank variants of one model on items selected on the other models (PRIMEBench I.4, Table 23).

    Models whose id matches ``--variants`` are the variants (grouped into variant sets by ``family``, one
    set when they have none); every other image-condition model selects the items.
    """
    outputs(force, files=figure_files(figure))
    try:
        res = checkpoint_ranking_by_pattern(
            read_new_scores(panel),
            variants,
            selectors=parse_list(selectors, "selectors"),
            retentions=parse_retentions(retentions),
            n_boot=n_boot,
            random_state=seed,
        )
    except InputError as exc:  # the library names its parameter; the CLI, its option
        msg = str(exc)
        raise InputError("--" + msg if msg.startswith("variants") else msg) from None
    warnings: list[str] = []
    if figure is not None:
        from benchsift.report.figures import save_figure

        written = save_figure(checkpoint_figure(res.table(), res.retentions[0]), figure, data=str(panel.name))
        warnings.append(f"--figure: wrote {', '.join(str(p) for p in written)}")
    if json_output:
        print_json(with_warnings(res.to_dict(), warnings))
        return
    console.print(render_checkpoints(res.table()))
    print_warnings(warnings)


@app.command("families")
def families_command(
    panel: PanelArg,
    min_models: Annotated[int, typer.Option(help="Models a family needs.")] = 4,
    json_output: JsonOpt = False,
) -> None:
    """Cross-family agreement: Spearman rho between families' per-item mean scores (PRIMEBench D.4)."""
    table = family_agreement(read_new_scores(panel), min_models=min_models)
    if json_output:
        print_json({"pairs": table.to_dict(orient="records")})
        return
    console.print(frame_table(table, f"Cross-family item agreement (families with >= {min_models} models)"))
