"""Tables of ``benchsift estimate`` (PRIMEBench Sec. 6: new models scored on a suite)."""

from __future__ import annotations

import numpy as np
from rich.table import Table

from benchsift.compression.estimate import EstimateResult
from benchsift.report.console import DataTable
from benchsift.report.tables.format import fmt_dash as _fmt
from benchsift.report.tables.format import fmt_rank as _fmt_rank

__all__ = ["OVERALL_SUITE_MEAN", "render_estimate", "render_full_score"]

#: the caption of the full-score table when its overall suite means differ from the suite table's overall
OVERALL_SUITE_MEAN = (
    "suite mean: the mean over a benchmark's suite items, on the overall row the mean of the benchmarks' "
    "(each benchmark weighs alike, as in the estimate); the suite table's overall weighs each category alike"
)


def render_estimate(res: EstimateResult, name: str, n_items: int, level: float) -> Table:
    """Per new model: category means, overall score with its interval, rank and rank interval, coverage.

    With a full-score estimate (``res.full``) the ranks are left out here: the model's one rank is the
    estimate's, in :func:`render_full_score`'s table, and this table shows the suite-item means only."""
    ranked = res.full is None
    table = DataTable(
        title=f"Scores on the suite {name!r} ({n_items} items, {res.n_reference} reference models)"
        + (": means over the suite's items, not full-benchmark scores" if res.full is not None else "")
    )
    table.add_column("model")
    for c in res.categories:
        table.add_column(c)
    ranks = ("rank", "rank CI") if ranked else ()
    for col in ("overall", f"{int(level * 100)}% CI", *ranks, "coverage"):
        table.add_column(col)
    for j, m in enumerate(res.models):
        table.add_row(
            m,
            *(_fmt(float(v)) for v in res.category_means[j]),
            _fmt(float(res.overall[j])),
            f"[{_fmt(float(res.overall_ci[j, 0]))}, {_fmt(float(res.overall_ci[j, 1]))}]",
            *(
                (
                    f"{_fmt_rank(float(res.rank[j]))} / {res.n_reference + 1}",
                    f"[{_fmt_rank(float(res.rank_ci[j, 0]))}, {_fmt_rank(float(res.rank_ci[j, 1]))}]",
                )
                if ranked
                else ()
            ),
            f"{res.coverage[j]:.2f}",
        )
    return table


def render_full_score(res: EstimateResult, name: str, n_items: int) -> Table:
    """Estimated full-benchmark scores (benchmarks and overall; categories are in ``to_dict()``)."""
    f = res.full
    assert f is not None
    m = f.method
    # one benchmark: its row is the overall one; several: one row each, then overall (ranks on the last row)
    benches = [c for c, k in enumerate(f.kinds) if k == "benchmark"]
    shown = benches if len(benches) == 1 else [*benches, len(f.kinds) - 1]
    # the last row's suite mean weighs each item of the benchmark, or each benchmark, alike, as the score it
    # stands beside; the suite table's overall weighs each category alike: said when they differ on screen
    apart = np.abs(f.suite_mean[:, shown[-1]] - res.overall) >= 5e-4
    table = DataTable(
        title=f"Estimated full-benchmark scores from {name} ({n_items} items; method {m}, "
        f"{int(f.level * 100)}% conformal intervals)",
        caption=OVERALL_SUITE_MEAN if bool(apart.any()) else None,
    )
    for col in ("model", "benchmark", "estimate", "interval", "suite mean", "rank", "rank interval"):
        table.add_column(col)
    for j, model in enumerate(f.models):
        for c in shown:
            overall = c == shown[-1]
            table.add_row(
                model,
                f.groups[c],
                _fmt(float(f.score[m][j, c])),
                f"[{_fmt(float(f.low[m][j, c]))}, {_fmt(float(f.high[m][j, c]))}]",
                _fmt(float(f.suite_mean[j, c])),
                f"{_fmt_rank(float(f.rank[j]))} / {f.n_reference + 1}" if overall else "",
                f"[{_fmt_rank(float(f.rank_interval[j, 0]))}, {_fmt_rank(float(f.rank_interval[j, 1]))}]"
                if overall
                else "",
            )
    return table
