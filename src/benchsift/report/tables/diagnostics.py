"""Tables of ``benchsift diagnose``: the PRIMEBench diagnostics (Tables 18-20, 22-23, App. D.4)."""

from __future__ import annotations

from typing import Any

import pandas as pd

from benchsift.report.validation_figures import frame_table

__all__ = ["render_checkpoints", "render_shelf_life", "render_stage3"]


def render_stage3(res: Any) -> Any:
    """Stage 3 on the benchmark means (Table 18): rho with its bootstrap CI, greedy and imputed rho."""
    t = res.table()
    t["95% CI"] = [f"[{lo:.3f}, {hi:.3f}]" for lo, hi in zip(t["ci_low"], t["ci_high"], strict=True)]
    frame = t[["k", "rho", "95% CI", "rho_greedy", "rho_imputed", "selected"]]
    return frame_table(
        frame,
        f"Stage 3 on {res.n_models} of {res.n_models_all} models covering "
        f">= {res.min_coverage} benchmarks (Table 18)",
    )


def render_shelf_life(res: Any) -> Any:
    """A frozen Stage 3 selection as models are added in release order (Table 20)."""
    frame = res.table()[["panel", "M", "scored", "rho_frozen", "rho_best", "gap", "percentile"]]
    return frame_table(
        frame, f"Frozen on the {res.n_build} oldest dated models: {', '.join(res.frozen)} (Table 20)"
    )


def render_checkpoints(table: pd.DataFrame) -> Any:
    """Checkpoint-ranking fidelity (Table 23), the ``selector@retention`` columns highlighted."""
    return frame_table(
        table, "Checkpoint-ranking fidelity (Table 23)", row_highlight=[c for c in table.columns if "@" in c]
    )
