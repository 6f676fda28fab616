"""``benchsift prism score VERDICTS`` and ``benchsift prism analyze --axis-means FILE``: PRISM-VLM scoring.

``score`` reads a verdict table (docs/CONTRACTS.md), computes axis means and PScore, runs the item-level
paired bootstrap (App. E) and prints the leaderboard with CIs, rank CIs and pairwise separation.
``analyze`` needs only per-model axis means (e.g. the paper's Table 2). ``audit`` runs the judge audits
(Sec. 5.3, App. F): the cross-judge leaderboard Spearman with the rho >= 0.95 admission rule from two
verdict tables, and Cohen's kappa / disagreement between a judge and human labels. ``--json`` prints one
object; its keys are listed in :func:`benchsift.prism.summaries.means_summary`,
:func:`benchsift.prism.summaries.score_summary` and :func:`benchsift.prism.audit.audit_summary`.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from benchsift.cli._common import (
    ClustersOpt,
    ForceOpt,
    JsonOpt,
    arg,
    cluster_spec,
    emit,
    opt,
    outputs,
    pairs,
    split_list,
)
from benchsift.cli.prism_engine import register as _register_engine
from benchsift.errors import InputError
from benchsift.prism.scores import SC_VARIANTS
from benchsift.report.progress import progress_bar
from benchsift.report.tables import prism as tables
from benchsift.workflows.prism import audit_judges, score_axis_means, score_verdicts

app = typer.Typer(
    help="Multi-axis scoring (PRISM-VLM): PScore, paired bootstrap separation, axis analyses.",
    no_args_is_help=True,
)

Bootstrap = Annotated[
    int,
    opt("Bootstrap replicates B (App. E; --bootstrap is its old name).", "--n-boot", "--bootstrap"),
]
Seed = Annotated[int, opt("Seed of the item resamples.", "--seed")]
ScVariant = Annotated[str, opt(f"sc axis definition: {', '.join(SC_VARIANTS)}.", "--sc-variant")]


def _weights(value: str) -> dict[str, float]:
    """``--weights h=2,if=2`` -> {"h": 2.0, "if": 2.0}."""
    try:
        return {
            axis: float(w) for axis, w in pairs(split_list(value, "--weights"), "--weights", "axis=weight")
        }
    except ValueError:
        raise InputError(f"--weights: expected axis=weight pairs like 'h=2,if=2', got {value!r}") from None


def _written(out: Path | None) -> list[str]:
    return [f"wrote {out}"] if out is not None else []


@app.command("score")
def score_command(
    verdicts: Annotated[Path, arg("Verdict table (CSV or parquet), docs/CONTRACTS.md format.")],
    n_boot: Bootstrap = 2000,
    seed: Seed = 0,
    alpha: Annotated[float, opt("Test level of the pairwise separation.", "--alpha")] = 0.05,
    sc_variant: ScVariant = "B",
    mq_partial: Annotated[
        bool, opt("Score mq with partial credit (App. E robustness check).", "--mq-partial")
    ] = False,
    near_tie: Annotated[
        str | None, opt("Comma-separated models for a near-tie report.", "--near-tie")
    ] = None,
    budget: Annotated[int | None, opt("Also test at a matched item budget.", "--budget")] = None,
    clusters: ClustersOpt = "auto",
    json_output: JsonOpt = False,
    out: Annotated[Path | None, opt("Also write result.json, CSV tables and figures here.", "--out")] = None,
    force: ForceOpt = False,
) -> None:
    """Axis means, PScore (Eq. 1) and the item-level paired bootstrap (App. E) of a verdict table."""
    outputs(force, dirs=[out])
    run = score_verdicts(
        verdicts,
        out=out,
        n_boot=n_boot,
        random_state=seed,
        alpha=alpha,
        sc_variant=sc_variant,
        mq_partial=mq_partial,
        near_tie=split_list(near_tie) if near_tie else None,
        budget=budget,
        clusters=cluster_spec(clusters),
        progress=progress_bar(f"bootstrap B={n_boot}", not json_output),
    )
    report = run.value
    summary, means = report.summary, report.means
    title = f"PScore leaderboard (B={n_boot}, {report.n_items} items; axis means in --out)"
    emit(
        json_output,
        summary,
        lambda: [
            tables.render_leaderboard(summary, means, title, show_axes=False),
            tables.render_axes(summary),
        ],
        lambda: tables.score_lines(report, alpha),
        warnings=run.warnings,
        after=_written(out),
    )


@app.command("analyze")
def analyze_command(
    axis_means: Annotated[
        Path, opt("CSV/parquet: a 'model' column and one column per axis.", "--axis-means")
    ],
    axes: Annotated[
        str | None, opt("Comma-separated axis columns (default: q,if,h,mq,sc,c,vis).", "--axes")
    ] = None,
    q_axis: Annotated[str, opt("The single-prompt accuracy axis of Table 6.", "--q-axis")] = "q",
    group: Annotated[str | None, opt("Column with model groups for per-group ranges.", "--group")] = None,
    references: Annotated[
        str | None, opt("Comma-separated accuracy columns for range widening (Sec. 5.1).", "--references")
    ] = None,
    weights: Annotated[
        str | None,
        opt("Also a weighted PScore (Eq. 3): axis=w pairs, others keep 1, e.g. h=2,if=2.", "--weights"),
    ] = None,
    n_boot: Annotated[
        int,
        opt(
            "Model resamples for the correlation CIs (App. E; --bootstrap is its old name).",
            "--n-boot",
            "--bootstrap",
        ),
    ] = 2000,
    seed: Annotated[int, opt("Seed of the model resamples.", "--seed")] = 0,
    json_output: JsonOpt = False,
    out: Annotated[Path | None, opt("Also write result.json and figures here.", "--out")] = None,
    force: ForceOpt = False,
) -> None:
    """Analyses that need only per-model axis means: PScore, aggregators, weights, correlations, ranges."""
    outputs(force, dirs=[out])
    run = score_axis_means(
        axis_means,
        out=out,
        axes=split_list(axes),
        q_axis=q_axis,
        group=group,
        references=split_list(references),
        weights=_weights(weights) if weights is not None else None,
        n_boot=n_boot,
        random_state=seed,
    )
    report = run.value
    summary, means = report.summary, report.means
    title = f"PScore from axis means ({len(means)} models)"
    emit(
        json_output,
        summary,
        lambda: [tables.render_leaderboard(summary, means, title), tables.render_axes(summary)],
        lambda: tables.means_lines(report),
    )


@app.command("audit")
def audit_command(
    primary: Annotated[
        Path | None, arg("Verdict table graded by the build-time judge (the leaderboard's verdicts).")
    ] = None,
    secondary: Annotated[
        Path | None, arg("Verdict table re-graded by the audit judge (e.g. `prism grade --audit-out`).")
    ] = None,
    labels: Annotated[
        Path | None, opt("CSV/parquet of paired judge / human labels (Table 21).", "--labels")
    ] = None,
    judge_col: Annotated[str, opt("Judge label column of --labels.", "--judge-col")] = "judge",
    human_col: Annotated[str, opt("Human label column of --labels.", "--human-col")] = "human",
    items: Annotated[int, opt("Items per axis drawn for the cross-judge audit (S).", "--items")] = 200,
    seed: Annotated[int, opt("Seed of the per-axis item draw.", "--seed")] = 0,
    threshold: Annotated[
        float, opt("Admission rule: an axis is admitted iff rho >= this.", "--threshold")
    ] = 0.95,
    sc_variant: ScVariant = "B",
    json_output: JsonOpt = False,
    out: Annotated[Path | None, opt("Also write result.json and CSV tables here.", "--out")] = None,
    force: ForceOpt = False,
) -> None:
    """Judge audits: cross-judge Spearman with the admission rule, judge-human Cohen's kappa."""
    outputs(force, dirs=[out])
    if primary is None and labels is None:
        raise InputError("prism audit: give two verdict tables (PRIMARY SECONDARY) and/or --labels FILE")
    if primary is not None and secondary is None:
        raise InputError(
            f"prism audit: {primary} needs a second verdict table graded by the audit judge (SECONDARY)"
        )
    run = audit_judges(
        primary,
        secondary,
        out=out,
        labels=labels,
        judge_col=judge_col,
        human_col=human_col,
        items=items,
        random_state=seed,
        threshold=threshold,
        sc_variant=sc_variant,
    )
    emit(json_output, run, lambda: tables.render_audit(run.value, threshold), after=_written(out))


_register_engine(app)  # sources / build / run / grade, after the scoring commands
