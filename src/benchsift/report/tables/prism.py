"""Tables of ``benchsift prism score|analyze|audit`` and of the engine stages
``prism sources|build|run|grade`` (PRISM-VLM Secs. 3-5, App. E-F)."""

from __future__ import annotations

from typing import Any

import pandas as pd
from rich.table import Table

from benchsift.prism.scoring import AuditReport, MeansReport, ScoreReport
from benchsift.report.console import DataTable
from benchsift.report.tables.format import fmt

__all__ = [
    "render_audit",
    "render_axes",
    "render_grade_means",
    "render_leaderboard",
    "render_sources",
    "render_stage",
    "means_lines",
    "score_lines",
]


def render_leaderboard(
    summary: dict[str, Any], means: pd.DataFrame, title: str, show_axes: bool = True
) -> Table:
    """Models by PScore (Eq. 1), with the axis means (``show_axes``) and the bootstrap CIs when present."""
    t = DataTable(title=title)
    t.add_column("model", no_wrap=True)
    shown = list(means.columns) if show_axes else []
    for a in shown:
        t.add_column(str(a), justify="right")
    t.add_column("PScore", justify="right", style="bold")
    with_ci = "ci" in summary
    if with_ci:
        t.add_column("95% CI", justify="right")
        t.add_column("rank CI", justify="right")
    order = sorted(summary["pscore"], key=lambda m: -summary["pscore"][m])
    for m in order:
        row = [m] + [fmt(means.loc[m, a]) for a in shown] + [fmt(summary["pscore"][m])]
        if with_ci:
            lo, hi = summary["ci"][m]
            rlo, rhi = summary["rank_ci"][m]
            row += [f"[{fmt(lo)}, {fmt(hi)}]", f"[{fmt(rlo, 1)}, {fmt(rhi, 1)}]"]
        t.add_row(*row)
    return t


def render_axes(summary: dict[str, Any]) -> Table:
    """Per axis: range, effective weight, how often dominant, leave-one-axis-out rho."""
    t = DataTable(title="Axes")
    for c in ("axis", "range", "eff. weight", "dominant for", "LOAO rho"):
        t.add_column(c, justify="right" if c != "axis" else "left")
    for a, w in summary["effective_weights"].items():
        t.add_row(
            a,
            fmt(summary["ranges"][a]),
            fmt(w),
            str(summary["dominant_axis_counts"][a]),
            fmt(summary["leave_one_axis_out"][a]),
        )
    t.add_row("PScore", fmt(summary["ranges"]["PScore"]), "", "", "")
    return t


def score_lines(report: ScoreReport, alpha: float) -> list[str]:
    """The lines ``prism score`` prints under its tables: pairwise separation (App. E), raw and corrected,
    and the same test on plain accuracy when the table has it."""
    summary = report.summary
    s = summary["separation"]
    lines = [
        f"pairwise separation at alpha={alpha}: raw {s['raw']:.1%}, BH {s['bh']:.1%}, "
        f"Bonferroni {s['bonferroni']:.1%} of {report.bootstrap.separation.n_pairs} pairs"
    ]
    if "accuracy_separation" in summary:
        acc = summary["accuracy_separation"]
        by_bench = [v["raw"] for v in acc["q_by_benchmark"].values()]
        lines.append(
            f"same test on plain q accuracy: pooled {acc['q']['raw']:.1%}, per benchmark "
            f"{min(by_bench):.1%}-{max(by_bench):.1%}, macro mean {acc['q_macro']['raw']:.1%}"
        )
    return lines


def means_lines(report: MeansReport) -> list[str]:
    """The lines ``prism analyze`` prints under its tables: aggregators' Pearson with q, weighted PScore."""
    summary = report.summary
    agg = summary["aggregator_pearson_with_q"]
    lines = ["Pearson with q: " + ", ".join(f"{k} {fmt(v, 2)}" for k, v in agg.items())]
    if "weighted_pscore" in summary:
        wps = summary["weighted_pscore"]
        lines.append(
            f"weighted PScore (Eq. 3): Spearman {fmt(wps['spearman_vs_harmonic'])} vs PScore, "
            f"top {', '.join(wps['top'])}"
        )
    return lines


def render_audit(report: AuditReport, threshold: float) -> list[Table]:
    """The cross-judge audit (Spearman per axis, admission rule) and the judge-vs-human table, as given."""
    tables: list[Table] = []
    cross, human = report.cross_judge, report.human_agreement
    if cross is not None:
        t = DataTable(
            title=f"Cross-judge audit (Spearman of the model leaderboards, admit iff rho >= {threshold})"
        )
        for c in ("axis", "rho", "items", "admitted"):
            t.add_column(c, justify="left" if c == "axis" else "right")
        for axis, row in cross.table.iterrows():
            t.add_row(
                str(axis), fmt(row["rho"]), str(int(row["n_items"])), "yes" if row["admitted"] else "NO"
            )
        t.add_row("overall (PScore)", fmt(cross.overall), "", "")
        tables.append(t)
    if human is not None:
        t = DataTable(title="Judge vs human labels")
        for c in ("axis", "kappa", "disagreement", "n"):
            t.add_column(c, justify="left" if c == "axis" else "right")
        for axis, row in human.iterrows():
            dis = "n/a" if int(row["n"]) == 0 else f"{row['disagreement']:.1%}"
            t.add_row(str(axis), fmt(row["kappa"]), dis, str(int(row["n"])))
        tables.append(t)
    return tables


def render_sources(frame: pd.DataFrame) -> Table:
    """Items per domain and benchmark (Table 8), from ``SourcesResult.to_frame()``."""
    t = DataTable(title="Items per domain and benchmark (Table 8)")
    for col in frame.columns:
        t.add_column(col)
    for row in frame.itertuples(index=False):
        t.add_row(*[str(v) for v in row])
    return t


def render_stage(result: Any) -> list[Table]:
    """An engine stage's counts, and its API calls per endpoint when it made any."""
    t = DataTable(title=f"prism {result.stage}")
    t.add_column("what")
    t.add_column("value", justify="right")
    for k, v in result.counts.items():
        t.add_row(k, str(v))
    tables: list[Table] = [t]
    if result.per_endpoint:
        cols = ("requests", "cache_hits", "retries", "failures", "prompt_tokens", "completion_tokens")
        c = DataTable(title="API calls")
        c.add_column("endpoint")
        for col in ("requests", "cache hits", "retries", "failures", "prompt tok", "completion tok"):
            c.add_column(col, justify="right")
        for name, s in result.per_endpoint.items():
            c.add_row(name, *(str(s[k]) for k in cols))
        tables.append(c)
    return tables


def render_grade_means(axis_means: dict[str, dict[str, float]]) -> Table:
    """``prism grade``: per-model axis means of the answered items (sc as sc_B)."""
    means = pd.DataFrame.from_dict(axis_means, orient="index").astype(float)
    t = DataTable(title="Per-axis means (answered items; sc = sc_B, turn-0-correct items)")
    t.add_column("model")
    for ax in means.columns:
        t.add_column(ax, justify="right")
    for model, row in means.iterrows():
        t.add_row(str(model), *[f"{v:.3f}" for v in row])
    return t
