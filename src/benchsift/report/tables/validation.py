"""Tables of ``benchsift validate``: each held-out protocol's tables as in PRIMEBench (Tables 9-12, 17)."""

from __future__ import annotations

from typing import Any

import pandas as pd

from benchsift.compression.protocols.validation import closest_retention
from benchsift.report.validation_figures import end_to_end_table, frame_table, retention_table, split_table

__all__ = ["render_validation"]


def render_validation(
    result: Any, protocol: str, summary: pd.DataFrame, rets: list[float], chrono: pd.Series | None = None
) -> list[Any]:
    """The tables of one protocol's result (and a dim line of selection times when it has them).

    ``summary`` is ``result.summary()``; ``rets`` the retentions asked for (the per-split and per-category
    tables are at the one closest to 5 %); ``chrono`` the random protocol's extra chronological column.
    """
    out: list[Any] = []
    at = closest_retention(rets)
    if protocol == "random":
        n = len(result.splits)
        name = str(chrono.name) if chrono is not None else "chronological"
        out.append(
            retention_table(
                summary,
                f"Held-out macro Spearman rho, mean over {n} random splits (Table 10)",
                extra=chrono,
                extra_name=name,
            )
        )
        out.append(
            split_table(
                summary, at, f"Over splits at r={100 * at:g}% (Table 11)", extra=chrono, extra_name=name
            )
        )
        if len(result.categories) > 1:
            out.append(
                frame_table(
                    result.category_table(at),
                    f"Per category at r={100 * at:g}% (Table 9)",
                    row_highlight=list(result.selectors),
                )
            )
    elif protocol == "chronological":
        main = result.splits[0]
        out.append(retention_table(summary, f"{main.name} (build on the oldest, score the newest)"))
        for i in range(1, len(result.splits)):
            out.append(retention_table(result.summary([i]), f"sensitivity: {result.splits[i].name}"))
    elif protocol == "end-to-end":
        out.append(
            end_to_end_table(
                summary,
                result.stage3_only(),
                at,
                f"End-to-end rho on held-out models, {len(result.splits)} splits, k={result.k} (Table 12)",
            )
        )
    else:
        out.append(retention_table(summary, "Same-model mean rho over benchmarks (Table 17)"))
        out.append(
            frame_table(
                result.benchmark_table(at),
                f"Per benchmark at r={100 * at:g}%",
                row_highlight=list(result.selectors),
            )
        )
    secs = getattr(result, "seconds", None)
    if isinstance(secs, dict):
        out.append(
            "[dim]selection time per selector (s): "
            + ", ".join(f"{k} {v:.1f}" for k, v in secs.items())
            + "[/dim]"
        )
    return out
