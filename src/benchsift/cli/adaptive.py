"""``benchsift adaptive bank|next|simulate``: adaptive testing on an item bank (:mod:`benchsift.adaptive`).

``bank PANEL -o BANK.json`` fits the bank; ``next BANK RESPONSES`` prints the next items for each model (or
why its test stops), to run through any harness and call again with the new results appended;
``simulate PANEL`` replays held-out models' logged responses and compares adaptive testing with a static
suite and random items at the same budget. Shapes of ``--json``: :meth:`NextItems.to_dict`,
:meth:`AdaptiveSimulation.to_dict`.
"""

from __future__ import annotations

import warnings
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import numpy as np
import typer

from benchsift.adaptive import StopRule, fit_bank, load_bank, next_items_for
from benchsift.adaptive.design import MISFIT_FOLDS
from benchsift.adaptive.interval import INTERVAL_BUDGETS
from benchsift.adaptive.prior import other_benchmarks
from benchsift.cli._common import (
    AddressOpt,
    BackendOpt,
    ForceOpt,
    JsonOpt,
    NJobsOpt,
    arg,
    emit,
    numbers,
    opt,
    outputs,
    seed_opt,
    split_list,
    sweep_workers,
)
from benchsift.errors import EstimateWarning, InputError
from benchsift.io import read_scores
from benchsift.report.progress import progress_bar
from benchsift.report.tables.adaptive import render_bank, render_next, render_simulation
from benchsift.workflows.estimate import simulate_adaptive_replay

if TYPE_CHECKING:
    import pandas as pd

app = typer.Typer(help="Adaptive testing: fit an item bank, choose the next items, replay logged runs.")

#: ``--beyond-curve/--no-beyond-curve`` of ``adaptive bank`` and ``adaptive simulate`` (``fit_bank``'s
#: ``beyond_curve``)
BeyondCurveOpt = Annotated[
    bool | None,
    opt(
        "Keep a polished bank's EM curves too: their estimate weighs in for a model whose answers say it is "
        "beyond the strongest reference model (--no-beyond-curve: the polished curves alone). Default: with "
        "every polished bank (docs/ADAPTIVE.md).",
        "--beyond-curve/--no-beyond-curve",
    ),
]


def _prior_covariates(
    prior_from: Path | None, prior_benchmarks: str | None, own: list[str]
) -> pd.DataFrame | None:
    """The covariates of ``--prior-from`` (:func:`~benchsift.adaptive.prior.other_benchmarks`: the
    ``--prior-benchmarks`` named, else every benchmark not in ``own``), ``None`` without it;
    ``--prior-benchmarks`` names benchmarks of that panel, so it is refused without it."""
    if prior_from is None:
        if prior_benchmarks is not None:
            raise InputError("--prior-benchmarks needs --prior-from (the panel with those benchmarks)")
        return None
    picked = split_list(prior_benchmarks, "--prior-benchmarks")
    return other_benchmarks(read_scores(prior_from), own, picked)


@app.command("bank")
def bank_command(
    panel: Annotated[Path, arg("Panel (benchsift parquet) or long table to fit the bank on.")],
    out: Annotated[Path, opt("Item bank file to write (JSON).", "--out", "-o")],
    kind: Annotated[str, opt("auto (2PL for 0/1 scores, graded otherwise), 2pl or graded.")] = "auto",
    polish: Annotated[
        bool | None,
        opt(
            "Refine a 2PL bank's EM fit by joint MAP, so full-score estimates track each model "
            "(--no-polish: the EM fit as it is). Default: with at least 60 models (with fewer the EM fit "
            "had the lower MAE against the reference CAT on four panels of 17-29 models).",
            "--polish/--no-polish",
        ),
    ] = None,
    prior: Annotated[
        str | None,
        opt(
            "A new model's ability prior: normal (N(0, 1)), robust (N(0, 1) with a wide tail: a new model "
            "stronger than the bank's is pulled back less) or empirical (kernel density of the bank's "
            "models' abilities). Default: empirical with at least 60 models (lower MAE against the "
            "reference CAT on MMMU and AI2D), else robust (on small LLM panels the empirical one cost "
            "rank Spearman)."
        ),
    ] = None,
    residual_factors: Annotated[
        int | None,
        opt(
            "Residual factors that correct a 2PL bank's expected scores of the items not run "
            "(default: 3 with at least 60 models, else 0; 0 = plain p-IRT).",
            "--residual-factors",
        ),
    ] = None,
    misfit_folds: Annotated[
        int,
        opt(
            "Folds of the out-of-fold misfit of the bank's curve (that many more fits): it corrects the "
            "estimates from the static start's spread items (0 = not measured).",
            "--misfit-folds",
        ),
    ] = MISFIT_FOLDS,
    design_budgets: Annotated[
        str | None,
        opt(
            "Comma-separated budgets (fractions of the items, e.g. 0.01,0.02,0.05,0.1) at which the folds "
            "replay their models adaptively and with the whole budget spread; `adaptive next` then spreads a "
            "budget whole where that measured better by 2 SE. Default: not measured (a quarter start).",
            "--design-budgets",
        ),
    ] = None,
    benchmark_offsets: Annotated[
        bool | None,
        opt(
            "On a bank of several benchmarks, give each model an ability offset per benchmark, shrunk by "
            "their spread among the bank's models (--no-benchmark-offsets: one ability for all). Default: on "
            "with several benchmarks.",
            "--benchmark-offsets/--no-benchmark-offsets",
        ),
    ] = None,
    interval_budgets: Annotated[
        str,
        opt(
            "Comma-separated budgets (fractions of the items) at which the folds replay their models to "
            "calibrate the full-score interval of `adaptive next` (a model takes the nearest).",
            "--interval-budgets",
        ),
    ] = ",".join(f"{b:g}" for b in INTERVAL_BUDGETS),
    interval: Annotated[
        bool,
        opt(
            "Calibrate the full-score interval (--no-interval: no interval, a bank 4-6x faster to fit).",
            "--interval/--no-interval",
        ),
    ] = True,
    beyond_curve: BeyondCurveOpt = None,
    seed: Annotated[int, seed_opt("Seed of the misfit's folds and the designs' replays.")] = 0,
    json_output: JsonOpt = False,
    force: ForceOpt = False,
) -> None:
    """Fit an IRT item bank on a panel's image-condition models."""
    outputs(force, files=[out])
    bank = fit_bank(
        read_scores(panel),
        kind=kind,
        polish=polish,
        prior=prior,
        residual_factors=residual_factors,
        misfit_folds=misfit_folds,
        random_state=seed,
        design_budgets=() if design_budgets is None else tuple(numbers(design_budgets, "--design-budgets")),
        benchmark_offsets=benchmark_offsets,
        interval_budgets=tuple(numbers(interval_budgets, "--interval-budgets")) if interval else (),
        beyond_curve=beyond_curve,
    )
    bank.save(out)
    summary = {
        "out": str(out),
        "kind": bank.kind,
        "n_items": bank.n_items,
        "n_reference": len(bank.reference_models),
        "prior": bank.prior,
        "residual_factors": 0 if bank.residual_loadings is None else int(bank.residual_loadings.shape[1]),
        "misfit_rms": None
        if bank.misfit_var is None
        else dict(zip(bank.benchmarks, np.sqrt(bank.misfit_var).tolist(), strict=True)),
        "edge_error": bank.edge_error,
        "edge_rms": bank.edge_rms,
        "beyond_curve": bank.beyond is not None,
        "beyond_edge_error": None if bank.beyond is None else bank.beyond.edge_error,
        "designs": bank.designs(),
        "interval": bank.interval_scales(),
        "benchmark_offset_sd": None
        if bank.offset_var is None
        else dict(zip(bank.benchmarks, np.sqrt(bank.offset_var).tolist(), strict=True)),
    }
    emit(json_output, summary, lambda: render_bank(bank, out))


@app.command("next")
def next_command(
    bank_path: Annotated[Path, arg("Item bank written by `adaptive bank`.", metavar="bank")],
    responses: Annotated[
        Path | None, arg("Responses so far: long CSV (model, benchmark, item, score) or a panel.")
    ] = None,
    start: Annotated[
        str | None, opt("Comma-separated models to start that have no responses yet (their first batch).")
    ] = None,
    batch: Annotated[int, opt("Items per step.")] = 10,
    exposure: Annotated[float, opt("Randomesque pool as a multiple of the batch (1 = none).")] = 3.0,
    se_target: Annotated[float | None, opt("Stop when the ability sd is at most this.")] = None,
    rank_width: Annotated[float | None, opt("Stop when the rank interval is this narrow.")] = None,
    max_items: Annotated[int | None, opt("Stop after this many items.")] = None,
    seed: Annotated[int, seed_opt("Seed of the exposure draw.")] = 0,
    prior_from: Annotated[
        Path | None,
        opt(
            "Panel or long table with the models' scores on other benchmarks (the bank's reference models "
            "and the models tested): each model's ability prior is regressed on its means there (lower MAE "
            "from 1-2 % of the items on 5 of 6 real panels, docs/ADAPTIVE.md).",
            "--prior-from",
        ),
    ] = None,
    prior_benchmarks: Annotated[
        str | None,
        opt(
            "Comma-separated benchmarks of --prior-from to use (default: every one that is not in the bank).",
            "--prior-benchmarks",
        ),
    ] = None,
    static_start: Annotated[
        int | None,
        opt(
            "Give every model these many items spread over the bank's difficulty first, then adaptive "
            "(default: a quarter of --max-items when it is at least 60, else none; 0 = none; "
            "docs/ADAPTIVE.md).",
            "--static-start",
        ),
    ] = None,
    criterion: Annotated[
        str,
        opt(
            "posterior (each item's information averaged over the model's ability posterior) or point "
            "(at the ability estimate alone, the classical rule; docs/ADAPTIVE.md).",
        ),
    ] = "posterior",
    prior_in_choice: Annotated[
        bool,
        opt(
            "With --prior-from: choose the items under each model's prior too (default: the prior moves the "
            "ability and the estimates, the items are chosen from the responses alone; docs/ADAPTIVE.md).",
            "--prior-in-choice",
        ),
    ] = False,
    no_balance: Annotated[
        bool,
        opt(
            "On a bank of several benchmarks, choose by information over the whole bank (default: an equal "
            "share of each model's items per benchmark, chosen by information within each; "
            "docs/ADAPTIVE.md).",
            "--no-balance",
        ),
    ] = False,
    edge_spread: Annotated[
        bool | None,
        opt(
            "With --max-items, a model at the bank's edge gets the rest of its budget spread over the "
            "difficulty and its estimate corrected from them. Default: from 5 % of the items of a bank of "
            "at least 60 models that measured its edge error (docs/ADAPTIVE.md: won at 5-10 % of the items, "
            "lost at 1-2 % and on small banks).",
            "--edge-spread/--no-edge-spread",
        ),
    ] = None,
    json_output: JsonOpt = False,
) -> None:
    """The next items for each model given its responses so far, or the rule that stops its test."""
    bank = load_bank(bank_path)
    if responses is None and start is None:
        raise InputError("give RESPONSES (the results so far) or --start MODEL[,MODEL...] for a first batch")
    if prior_in_choice and prior_from is None:
        raise InputError("--prior-in-choice needs --prior-from (the prior that would steer the item choice)")
    covariates = _prior_covariates(prior_from, prior_benchmarks, bank.benchmarks)
    stop = StopRule(se_target=se_target, rank_width=rank_width, max_items=max_items)
    with warnings.catch_warnings():  # the terminal and --json print res.warnings, which say the same
        warnings.simplefilter("ignore", EstimateWarning)
        res = next_items_for(
            bank,
            responses,
            split_list(start, "--start") or [],
            batch=batch,
            exposure=exposure,
            stop=stop,
            random_state=seed,
            covariates=covariates,
            static_start=static_start,
            criterion=criterion,
            prior_in_choice=prior_in_choice,
            balance=not no_balance,
            edge_spread=edge_spread,
        )
    notes = []
    if res.prior is not None:
        p = res.prior
        notes.append(
            f"ability prior regressed on {', '.join(p['features'])} of {prior_from}: R^2 {p['r2']:.2f}, "
            f"residual sd {p['sd']:.2f} (a model's prior sd is wider by its distance from the reference "
            f"models' covariates), fitted on {p['n_models']} reference models"
        )
    emit(
        json_output,
        res,
        lambda: render_next(res, f"Next items from {bank_path.name} ({bank.n_items} items)"),
        notes=notes,
        warnings=res.warnings,
    )


@app.command("simulate")
def simulate_command(
    ctx: typer.Context,
    panel: Annotated[Path, arg("Panel with every model's logged responses.")],
    holdout: Annotated[float, opt("Fraction of models held out and replayed.")] = 0.4,
    budget: Annotated[float, opt("Static suite retention; every method gets its size.")] = 0.05,
    seed: Annotated[int, seed_opt("Seed of the splits, the suite and the exposure draws.")] = 0,
    splits: Annotated[int, opt("Random build / held-out splits.")] = 5,
    batch: Annotated[int | None, opt("Adaptive items per step (default: a tenth).")] = None,
    static_start: Annotated[
        float | None,
        opt(
            "Fraction of the adaptive method's items given first, spread over the bank's difficulty "
            "(default: 0.25 when that is at least 60 items, else 0; docs/ADAPTIVE.md).",
            "--static-start",
        ),
    ] = None,
    prior_from: Annotated[
        Path | None,
        opt(
            "Panel or long table with the same models' scores on other benchmarks: the adaptive method's "
            "ability prior is regressed on them (fitted on the build models of each split).",
            "--prior-from",
        ),
    ] = None,
    prior_benchmarks: Annotated[
        str | None,
        opt(
            "Comma-separated benchmarks of --prior-from to use (default: every one that is not in PANEL).",
            "--prior-benchmarks",
        ),
    ] = None,
    no_balance: Annotated[
        bool,
        opt(
            "On a panel of several benchmarks, choose the adaptive items by information over the whole bank "
            "(default: an equal share per benchmark; docs/ADAPTIVE.md).",
            "--no-balance",
        ),
    ] = False,
    no_benchmark_offsets: Annotated[
        bool,
        opt(
            "Fit the banks with one ability for every benchmark (default: an offset per benchmark on a "
            "panel of several; `adaptive bank --help`).",
            "--no-benchmark-offsets",
        ),
    ] = False,
    strongest: Annotated[
        bool,
        opt(
            "Hold out the strongest models by full score (the --holdout share, every split): new models "
            "stronger than the bank's, where its estimate extrapolates (docs/ADAPTIVE.md).",
            "--strongest",
        ),
    ] = False,
    edge_spread: Annotated[
        bool | None,
        opt(
            "The adaptive method's edge spread, as in `adaptive next` (default: from 5 % of the items of "
            "a bank of at least 60 models; docs/ADAPTIVE.md).",
            "--edge-spread/--no-edge-spread",
        ),
    ] = None,
    interval: Annotated[
        bool,
        opt(
            "Calibrate each split's bank for the adaptive estimate's interval and report its coverage "
            "(--no-interval: banks 4-6x faster to fit, no adaptive coverage).",
            "--interval/--no-interval",
        ),
    ] = True,
    beyond_curve: BeyondCurveOpt = None,
    n_jobs: NJobsOpt = None,
    backend: BackendOpt = None,
    address: AddressOpt = None,
    out: Annotated[
        Path | None,
        opt("Also write adaptive.json, results.csv and index.html here (`benchsift report` reads it)."),
    ] = None,
    json_output: JsonOpt = False,
    force: ForceOpt = False,
) -> None:
    """Replay held-out models adaptively; compare with a static suite and random items of the same size."""
    outputs(force, dirs=[out])
    scores = read_scores(panel)
    covariates = _prior_covariates(prior_from, prior_benchmarks, [str(b) for b in scores.benchmarks])
    run = simulate_adaptive_replay(
        scores,
        covariates=covariates,
        static_start=static_start,
        balance=not no_balance,
        benchmark_offsets=False if no_benchmark_offsets else None,
        strongest=strongest,
        edge_spread=edge_spread,
        interval=interval,
        beyond_curve=beyond_curve,
        out=out,
        holdout=holdout,
        budget=budget,
        random_state=seed,
        n_splits=splits,
        batch=batch,
        progress=progress_bar("replaying splits"),
        n_jobs=sweep_workers(ctx, backend, address, n_jobs),
    )
    held = "the strongest" if strongest else "holdout"
    title = f"Adaptive vs static vs random on {panel.name} ({held} {holdout}, {splits} splits)"
    written = [f"simulation written to {out}/ (open {out}/index.html)"] if out is not None else []
    emit(json_output, run, lambda: render_simulation(run.value, title), notes=run.notes, after=written)
