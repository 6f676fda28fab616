"""A summary of a panel: sizes, coverage, per-benchmark means (the data behind ``benchsift info``)."""

from __future__ import annotations

from typing import Any

import numpy as np
from rich.table import Table

from benchsift.panel import Panel


def panel_summary(panel: Panel) -> dict[str, Any]:
    """JSON-able summary of ``panel``.

    ``n_models`` counts distinct model ids (a model's text-only run is not a second model; runs are counted
    in ``n_model_runs`` and ``conditions``). ``mean_score`` is the mean over non-missing cells and
    ``coverage`` the fraction of non-missing cells, both over every run. Per benchmark: number of items,
    mean over its non-missing cells and coverage.
    """
    scores = panel.scores
    items = panel.items
    conditions = panel.models["condition"].value_counts().to_dict()
    names = list(panel.benchmarks)
    codes = items["benchmark"].map({b: i for i, b in enumerate(names)}).to_numpy(dtype=np.intp)
    n_obs_b, sums_b = _benchmark_sums(scores, codes, len(names))
    benchmarks: dict[str, Any] = {}
    for b, name in enumerate(names):
        n_cols = int((codes == b).sum())
        n_obs = int(n_obs_b[b])
        benchmarks[name] = {
            "n_items": n_cols,
            "mean_score": float(sums_b[b] / n_obs) if n_obs else None,
            "coverage": float(n_obs / (n_cols * panel.n_models)) if n_cols * panel.n_models else None,
        }
    categories = {c: int((items["category"] == c).sum()) for c in panel.categories}
    n_obs_all = int(n_obs_b.sum())
    return {
        "n_models": int(panel.models["model"].nunique()),
        "n_model_runs": panel.n_models,
        "conditions": {str(k): int(v) for k, v in conditions.items()},
        "n_items": panel.n_items,
        "n_benchmarks": len(panel.benchmarks),
        "n_categories": len(panel.categories),
        "mean_score": float(sums_b.sum() / n_obs_all) if n_obs_all else None,
        "coverage": float(n_obs_all / scores.size) if scores.size else None,
        "benchmarks": benchmarks,
        "categories": categories,
    }


def _benchmark_sums(scores: np.ndarray, codes: np.ndarray, n: int) -> tuple[np.ndarray, np.ndarray]:
    """Per benchmark code: the number of scored cells and their sum, over blocks of model rows (no copy of
    the matrix, whose size is the panel's)."""
    counts = np.zeros(n, dtype=np.int64)
    sums = np.zeros(n)
    step = max(1, (1 << 22) // max(1, scores.shape[1]))
    for start in range(0, scores.shape[0], step):
        block = scores[start : start + step]
        obs = ~np.isnan(block)
        counts += np.bincount(codes, weights=obs.sum(axis=0), minlength=n).astype(np.int64)
        sums += np.bincount(codes, weights=np.where(obs, block, 0.0).sum(axis=0), minlength=n)
    return counts, sums


def summary_table(summary: dict[str, Any], title: str = "panel") -> Table:
    """A rich table of the per-benchmark part of :func:`panel_summary`."""
    table = Table(
        title=(
            f"{title}: {summary['n_models']} models ({summary['n_model_runs']} runs) "
            f"x {summary['n_items']} items, "
            f"mean {_fmt(summary['mean_score'])}, coverage {_fmt(summary['coverage'])}"
        )
    )
    table.add_column("benchmark")
    table.add_column("items", justify="right")
    table.add_column("mean score", justify="right")
    table.add_column("coverage", justify="right")
    for name, row in summary["benchmarks"].items():
        table.add_row(name, str(row["n_items"]), _fmt(row["mean_score"]), _fmt(row["coverage"]))
    return table


def _fmt(x: float | None) -> str:
    return "n/a" if x is None else f"{x:.4f}"
