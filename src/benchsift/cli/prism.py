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

from benchsift.cli._common import ForceOpt, console, outputs, print_json, split_list
from benchsift.cli._output import print_warnings
from benchsift.errors import InputError
from benchsift.prism.analyses import axis_correlation
from benchsift.prism.scores import SC_VARIANTS
from benchsift.prism.scoring import audit_report, means_report, score_report
from benchsift.report.outputs import write_result_dir
from benchsift.report.prism_figures import write_prism_figures
from benchsift.report.progress import progress_bar
from benchsift.report.tables.prism import (
    means_lines,
    render_audit,
    render_axes,
    render_leaderboard,
    score_lines,
)

app = typer.Typer(
    help="Multi-axis scoring (PRISM-VLM): PScore, paired bootstrap separation, axis analyses.",
    no_args_is_help=True,
)


def _weights(value: str) -> dict[str, float]:
    """``--weights h=2,if=2`` -> {"h": 2.0, "if": 2.0}."""
    out: dict[str, float] = {}
    for part in split_list(value) or []:
        axis, _, w = part.partition("=")
        try:
            weight = float(w)
        except ValueError:
            weight = None
        if weight is None or not axis.strip():
            raise InputError(f"--weights: expected axis=weight pairs like 'h=2,if=2', got {part!r}")
        out[axis.strip()] = weight
    return out


@app.command("score")
def score_command(
    verdicts: Annotated[
        Path, typer.Argument(help="Verdict table (CSV or parquet), docs/CONTRACTS.md format.")
    ],
    bootstrap: Annotated[
        int, typer.Option("--bootstrap", min=1, help="Bootstrap replicates B (App. E).")
    ] = 2000,
    seed: Annotated[int, typer.Option("--seed", min=0, help="Seed of the item resamples.")] = 0,
    alpha: Annotated[float, typer.Option("--alpha", help="Test level of the pairwise separation.")] = 0.05,
    sc_variant: Annotated[
        str, typer.Option("--sc-variant", help=f"sc axis definition: {', '.join(SC_VARIANTS)}.")
    ] = "B",
    mq_partial: Annotated[
        bool, typer.Option("--mq-partial", help="Score mq with partial credit (App. E robustness check).")
    ] = False,
    near_tie: Annotated[
        str | None, typer.Option("--near-tie", help="Comma-separated models for a near-tie report.")
    ] = None,
    budget: Annotated[
        int | None, typer.Option("--budget", min=1, help="Also test at a matched item budget.")
    ] = None,
    json_output: Annotated[
        bool, typer.Option("--json", help="Print one JSON object instead of tables.")
    ] = False,
    out: Annotated[
        Path | None, typer.Option("--out", help="Also write result.json, CSV tables and figures here.")
    ] = None,
    force: ForceOpt = False,
) -> None:
    """Axis means, PScore (Eq. 1) and the item-level paired bootstrap (App. E) of a verdict table."""
    outputs(force, dirs=[out])
    report = score_report(
        verdicts,
        bootstrap=bootstrap,
        seed=seed,
        alpha=alpha,
        sc_variant=sc_variant,
        mq_partial=mq_partial,
        near_tie=split_list(near_tie) if near_tie else None,
        budget=budget,
        progress=progress_bar(f"bootstrap B={bootstrap}", not json_output),
    )
    summary, result, means = report.summary, report.bootstrap, report.means
    if out is not None:
        write_result_dir(
            out,
            summary,
            report.tables,
            lambda d: write_prism_figures(
                d,
                means,
                axis_correlation(means),
                result.to_frame(),
                domain_corr=report.domain_correlation,
                data=f"{verdicts.name}, B = {bootstrap}",
            ),
        )
    if json_output:
        print_json(summary)
        return
    title = f"PScore leaderboard (B={bootstrap}, {report.n_items} items; axis means in --out)"
    console.print(render_leaderboard(summary, means, title, show_axes=False))
    console.print(render_axes(summary))
    for line in score_lines(report, alpha):
        console.print(line)
    print_warnings(summary.get("warnings", []))
    if out is not None:
        console.print(f"wrote {out}")


@app.command("analyze")
def analyze_command(
    axis_means: Annotated[
        Path, typer.Option("--axis-means", help="CSV/parquet: a 'model' column and one column per axis.")
    ],
    axes: Annotated[
        str | None, typer.Option("--axes", help="Comma-separated axis columns (default: q,if,h,mq,sc,c,vis).")
    ] = None,
    q_axis: Annotated[
        str, typer.Option("--q-axis", help="The single-prompt accuracy axis of Table 6.")
    ] = "q",
    group: Annotated[
        str | None, typer.Option("--group", help="Column with model groups for per-group ranges.")
    ] = None,
    references: Annotated[
        str | None,
        typer.Option("--references", help="Comma-separated accuracy columns for range widening (Sec. 5.1)."),
    ] = None,
    weights: Annotated[
        str | None,
        typer.Option(
            "--weights", help="Also a weighted PScore (Eq. 3): axis=w pairs, others keep 1, e.g. h=2,if=2."
        ),
    ] = None,
    bootstrap: Annotated[
        int, typer.Option("--bootstrap", min=1, help="Model resamples for the correlation CIs (App. E).")
    ] = 2000,
    seed: Annotated[int, typer.Option("--seed", min=0, help="Seed of the model resamples.")] = 0,
    json_output: Annotated[
        bool, typer.Option("--json", help="Print one JSON object instead of tables.")
    ] = False,
    out: Annotated[
        Path | None, typer.Option("--out", help="Also write result.json and figures here.")
    ] = None,
    force: ForceOpt = False,
) -> None:
    """Analyses that need only per-model axis means: PScore, aggregators, weights, correlations, ranges."""
    outputs(force, dirs=[out])
    report = means_report(
        axis_means,
        axes=split_list(axes),
        q_axis=q_axis,
        group=group,
        references=split_list(references),
        weights=_weights(weights) if weights is not None else None,
        bootstrap=bootstrap,
        seed=seed,
    )
    summary, means = report.summary, report.means
    if out is not None:
        corr = axis_correlation(means)
        write_result_dir(
            out,
            summary,
            {"axis_means": means},
            lambda d: write_prism_figures(d, means, corr, data=axis_means.name),
        )
    if json_output:
        print_json(summary)
        return
    console.print(render_leaderboard(summary, means, f"PScore from axis means ({len(means)} models)"))
    console.print(render_axes(summary))
    for line in means_lines(report):
        console.print(line)


@app.command("audit")
def audit_command(
    primary: Annotated[
        Path | None,
        typer.Argument(help="Verdict table graded by the build-time judge (the leaderboard's verdicts)."),
    ] = None,
    secondary: Annotated[
        Path | None,
        typer.Argument(help="Verdict table re-graded by the audit judge (e.g. `prism grade --audit-out`)."),
    ] = None,
    labels: Annotated[
        Path | None,
        typer.Option("--labels", help="CSV/parquet of paired judge / human labels (Table 21)."),
    ] = None,
    judge_col: Annotated[str, typer.Option("--judge-col", help="Judge label column of --labels.")] = "judge",
    human_col: Annotated[str, typer.Option("--human-col", help="Human label column of --labels.")] = "human",
    items: Annotated[
        int, typer.Option("--items", min=1, help="Items per axis drawn for the cross-judge audit (S).")
    ] = 200,
    seed: Annotated[int, typer.Option("--seed", min=0, help="Seed of the per-axis item draw.")] = 0,
    threshold: Annotated[
        float, typer.Option("--threshold", help="Admission rule: an axis is admitted iff rho >= this.")
    ] = 0.95,
    sc_variant: Annotated[
        str, typer.Option("--sc-variant", help=f"sc axis definition: {', '.join(SC_VARIANTS)}.")
    ] = "B",
    json_output: Annotated[
        bool, typer.Option("--json", help="Print one JSON object instead of tables.")
    ] = False,
    out: Annotated[
        Path | None, typer.Option("--out", help="Also write result.json and CSV tables here.")
    ] = None,
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
    report = audit_report(
        primary,
        secondary,
        labels=labels,
        judge_col=judge_col,
        human_col=human_col,
        items=items,
        seed=seed,
        threshold=threshold,
        sc_variant=sc_variant,
    )
    frames = report.tables
    summary = report.to_dict()
    if out is not None:
        write_result_dir(out, summary, frames)
    if json_output:
        print_json(summary)
        return
    for table in render_audit(report, threshold):
        console.print(table)
    if out is not None:
        console.print(f"wrote {out}")


# Extension point: the evaluation-engine commands (sources / build / run / grade, issue 7) register on
# this same `app` with one line appended below this comment.
from benchsift.cli.prism_engine import register as _register_engine  # noqa: E402

_register_engine(app)  # noqa: E402, E702, I001
