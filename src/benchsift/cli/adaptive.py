"""``benchsift adaptive bank|next|simulate``: adaptive testing on an item bank (:mod:`benchsift.adaptive`).

``bank PANEL -o BANK.json`` fits the bank; ``next BANK RESPONSES`` prints the next items for each model (or
why its test stops), to run through any harness and call again with the new results appended;
``simulate PANEL`` replays held-out models' logged responses and compares adaptive testing with a static
suite and random items at the same budget. Shapes of ``--json``: :meth:`NextItems.to_dict`,
:meth:`AdaptiveSimulation.to_dict`.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from benchsift.adaptive import StopRule, fit_bank, load_bank, next_items_for, simulate_adaptive
from benchsift.cli._common import (
    ADDRESS_OPT,
    BACKEND_OPT,
    N_JOBS_OPT,
    ForceOpt,
    console,
    outputs,
    print_json,
    split_list,
    sweep_workers,
)
from benchsift.errors import InputError
from benchsift.io import read_scores
from benchsift.report.progress import progress_bar
from benchsift.report.tables.adaptive import render_bank, render_next, render_simulation

app = typer.Typer(help="Adaptive testing: fit an item bank, choose the next items, replay logged runs.")

JsonFlag = Annotated[bool, typer.Option("--json", help="Print one JSON object instead of tables.")]


@app.command("bank")
def bank_command(
    panel: Annotated[
        Path, typer.Argument(help="Panel (benchsift parquet) or long table to fit the bank on.")
    ],
    out: Annotated[Path, typer.Option("--out", "-o", help="Item bank file to write (JSON).")],
    kind: Annotated[
        str, typer.Option(help="auto (2PL for 0/1 scores, graded otherwise), 2pl or graded.")
    ] = "auto",
    json_output: JsonFlag = False,
    force: ForceOpt = False,
) -> None:
    """Fit an IRT item bank on a panel's image-condition models."""
    outputs(force, files=[out])
    bank = fit_bank(read_scores(panel), kind=kind)
    bank.save(out)
    summary = {
        "out": str(out),
        "kind": bank.kind,
        "n_items": bank.n_items,
        "n_reference": len(bank.reference_models),
    }
    if json_output:
        print_json(summary)
        return
    table = render_bank(bank, out)
    console.print(table)


@app.command("next")
def next_command(
    bank_path: Annotated[Path, typer.Argument(metavar="BANK", help="Item bank written by `adaptive bank`.")],
    responses: Annotated[
        Path | None,
        typer.Argument(help="Responses so far: long CSV (model, benchmark, item, score) or a panel."),
    ] = None,
    start: Annotated[
        str | None,
        typer.Option(help="Comma-separated models to start that have no responses yet (their first batch)."),
    ] = None,
    batch: Annotated[int, typer.Option(help="Items per step.")] = 10,
    exposure: Annotated[
        float, typer.Option(help="Randomesque pool as a multiple of the batch (1 = none).")
    ] = 3.0,
    se_target: Annotated[float | None, typer.Option(help="Stop when the ability sd is at most this.")] = None,
    rank_width: Annotated[
        float | None, typer.Option(help="Stop when the rank interval is this narrow.")
    ] = None,
    max_items: Annotated[int | None, typer.Option(help="Stop after this many items.")] = None,
    seed: Annotated[int, typer.Option(help="Seed of the exposure draw.")] = 0,
    json_output: JsonFlag = False,
) -> None:
    """The next items for each model given its responses so far, or the rule that stops its test."""
    bank = load_bank(bank_path)
    if responses is None and start is None:
        raise InputError("give RESPONSES (the results so far) or --start MODEL[,MODEL...] for a first batch")
    res = next_items_for(
        bank,
        responses,
        split_list(start) or [],
        batch=batch,
        exposure=exposure,
        stop=StopRule(se_target=se_target, rank_width=rank_width, max_items=max_items),
        seed=seed,
    )
    if json_output:
        print_json(res.to_dict())
        return
    table = render_next(res, f"Next items from {bank_path.name} ({bank.n_items} items)")
    console.print(table)
    if res.n_ignored_items:
        console.print(
            f"[dim]{res.n_ignored_items} item(s) of the responses are not in the bank and were ignored[/]"
        )


@app.command("simulate")
def simulate_command(
    ctx: typer.Context,
    panel: Annotated[Path, typer.Argument(help="Panel with every model's logged responses.")],
    holdout: Annotated[float, typer.Option(help="Fraction of models held out and replayed.")] = 0.4,
    budget: Annotated[float, typer.Option(help="Static suite retention; every method gets its size.")] = 0.05,
    seed: Annotated[int, typer.Option(help="Seed of the splits, the suite and the exposure draws.")] = 0,
    splits: Annotated[int, typer.Option(help="Random build / held-out splits.")] = 5,
    batch: Annotated[int | None, typer.Option(help="Adaptive items per step (default: a tenth).")] = None,
    n_jobs: int | None = N_JOBS_OPT,
    backend: str | None = BACKEND_OPT,
    address: str | None = ADDRESS_OPT,
    json_output: JsonFlag = False,
) -> None:
    """Replay held-out models adaptively; compare with a static suite and random items of the same size."""
    loaded = read_scores(panel)
    n_jobs = sweep_workers(ctx, backend, address, n_jobs)
    res = simulate_adaptive(
        loaded,
        holdout=holdout,
        budget=budget,
        seed=seed,
        n_splits=splits,
        batch=batch,
        progress=progress_bar("replaying splits"),
        n_jobs=n_jobs,
    )
    if json_output:
        print_json(res.to_dict())
        return
    table = render_simulation(
        res, f"Adaptive vs static vs random on {panel.name} (holdout {holdout}, {splits} splits)"
    )
    console.print(table)
    for note in res.notes:
        console.print(f"[dim]note: {note}[/]")
