"""``benchsift compare``: the leaderboard tables (:func:`benchsift.leaderboard.compare`,
:func:`benchsift.leaderboard.compare_suite`)."""

from __future__ import annotations

from typing import Any

from rich.table import Table
from rich.text import Text

from benchsift.leaderboard import ComparisonResult, SuiteComparison
from benchsift.report.console import DataTable
from benchsift.report.tables.format import fmt

__all__ = ["render_compare", "render_suite_compare"]


def _span(lo: Any, hi: Any) -> str:
    a, b = fmt(lo, 0), fmt(hi, 0)
    return a if a == b else f"{a}-{b}"


def render_compare(result: ComparisonResult, top: int | None = None) -> list[Table | Text]:
    """Per section: the leaderboard (position, rank interval, model, score and interval, tie group), the
    tie groups as lines, then the resolution table and, with ``pair``, the pair's power."""
    level = float(result.parameters.get("level", 0.95))
    out: list[Table | Text] = []
    for name in result.sections:
        board = result.section(name)
        shown = board if top is None else board.head(top)
        t = DataTable(title=f"{name}: leaderboard ({len(board)} models)")
        for col, just in (("#", "right"), ("rank CI", "right"), ("model", "left"), ("score", "right")):
            t.add_column(col, justify=just)
        t.add_column(f"{level:.0%} CI", justify="right")
        t.add_column("group", justify="right")
        for k, row in enumerate(shown.to_dict(orient="records")):
            t.add_row(
                str(k + 1),
                _span(row["rank_low"], row["rank_high"]),
                str(row["model"]),
                fmt(row["score"]),
                f"{fmt(row['score_low'])}-{fmt(row['score_high'])}",
                str(row["group_ranks"]),
            )
        out.append(t)
        if top is not None and len(board) > top:
            out.append(Text(f"({len(board) - top} more models: --top 0 shows all)", style="dim"))
        out.append(Text(f"{name}: tie groups", style="bold"))
        out.extend(Text("  " + line) for line in result.ties.get(name, []))
    res = DataTable(title="resolution (MDD: minimum detectable difference)")
    cols = (
        ("section", "left"),
        ("items", "right"),
        ("models", "right"),
        ("MDD", "right"),
        ("MDD adjacent", "right"),
        ("separated", "right"),
        ("groups", "right"),
    )
    for c, j in cols:
        res.add_column(c, justify=j)
    corr = str(result.parameters.get("correction", "holm"))
    key = {"holm": "separated_holm", "bh": "separated_bh", "none": "separated_raw"}[corr]
    for row in result.resolution.to_dict(orient="records"):
        res.add_row(
            str(row["section"]),
            str(row["n_items"]),
            str(row["n_models"]),
            fmt(row["mdd"]),
            fmt(row["mdd_adjacent"]),
            f"{100 * row[key]:.0f}%",
            str(row["n_groups"]),
        )
    out.append(res)
    a, p = result.parameters.get("alpha"), result.parameters.get("power")
    out.append(
        Text(
            f"separated: share of pairs apart after {corr} correction at alpha={a}; MDD at power {p} "
            "(median over pairs / over neighbours on the leaderboard)",
            style="dim",
        )
    )
    if result.pair_power is not None:
        pp = DataTable(title=f"pair: items to separate at power {p}")
        for c in ("section", "model_a", "model_b", "delta", "se", "power", "n", "n needed"):
            pp.add_column(c, justify="left" if c in ("section", "model_a", "model_b") else "right")
        for row in result.pair_power.to_dict(orient="records"):
            pp.add_row(
                str(row["section"]),
                str(row["model_a"]),
                str(row["model_b"]),
                fmt(row["delta"]),
                fmt(row["se"], 4),
                fmt(row["power"], 2),
                str(row["n_common"]),
                fmt(row["items_needed"], 0) if row["items_needed"] != float("inf") else "never (delta 0)",
            )
        out.append(pp)
    return out


def render_suite_compare(result: SuiteComparison) -> list[Table | Text]:
    """Per group: each new model's estimate, half-width and MDD against a known score; the pairs and
    whether the suite resolves them; the suite's resolution."""
    out: list[Table | Text] = []
    t = DataTable(title=f"new models on the suite ({result.method})")
    for c in ("group", "model", "estimate", "interval", "MDD vs known"):
        t.add_column(c, justify="left" if c in ("group", "model") else "right")
    for row in result.models.to_dict(orient="records"):
        t.add_row(
            str(row["group"]),
            str(row["model"]),
            fmt(row["estimate"]),
            f"{fmt(row['low'])}-{fmt(row['high'])}",
            fmt(row["mdd_vs_known"]),
        )
    out.append(t)
    if len(result.pairs):
        pt = DataTable(title="pairs of new models")
        for c in ("group", "model_a", "model_b", "delta", "se", "p", "resolved"):
            pt.add_column(c, justify="left" if c in ("group", "model_a", "model_b") else "right")
        for row in result.pairs.to_dict(orient="records"):
            pt.add_row(
                str(row["group"]),
                str(row["model_a"]),
                str(row["model_b"]),
                fmt(row["delta"]),
                fmt(row["se"], 4),
                fmt(row["p"], 4),
                "yes" if row["resolved"] else "no",
            )
        out.append(pt)
    rt = DataTable(title="what the suite resolves")
    for c in ("group", "models", "MDD", "resolved", "unresolved"):
        rt.add_column(c, justify="left" if c == "group" else "right")
    for row in result.resolution.to_dict(orient="records"):
        rt.add_row(
            str(row["group"]),
            str(row["n_models"]),
            fmt(row["mdd"]),
            str(row["n_resolved"]),
            str(row["n_unresolved"]),
        )
    out.append(rt)
    return out
