"""A summary of a panel: sizes, coverage, per-benchmark means (the data behind ``benchsift info``)."""

from __future__ import annotations

from typing import Any

import numpy as np
from rich.table import Table

from benchsift.panel import Panel


def panel_summary(panel: Panel) -> dict[str, Any]:
    """JSON-able summary of ``panel``.

    ``n_models`` counts distinct model ids (a model's text-only run is not a second model; runs are counted
    in ``n_model_runs`` and ``conditions``). ``mean_score`` is the mean over the non-missing cells of the
    image-condition runs (as ``benchsift simulate`` reports it: a text-only run answers without the image,
    so its score is not the model's score); ``mean_score_text_only`` is the same over the text-only runs
    (None when there are none). ``coverage`` is the fraction of non-missing cells over every run. Per
    benchmark: number of items, mean over its non-missing image-condition cells and coverage.
    """
    image = (panel.models["condition"] == "image").to_numpy()
    all_obs = ~np.isnan(panel.scores)
    scores = panel.scores[image]
    obs = ~np.isnan(scores)
    text = panel.scores[~image]
    text_obs = ~np.isnan(text)
    items = panel.items
    conditions = panel.models["condition"].value_counts().to_dict()
    benchmarks: dict[str, Any] = {}
    for name in panel.benchmarks:
        cols = (items["benchmark"] == name).to_numpy()
        sub_obs = obs[:, cols]
        n_obs = int(sub_obs.sum())
        benchmarks[name] = {
            "n_items": int(cols.sum()),
            "mean_score": float(scores[:, cols][sub_obs].mean()) if n_obs else None,
            "coverage": float(all_obs[:, cols].mean()) if sub_obs.size else None,
        }
    categories = {c: int((items["category"] == c).sum()) for c in panel.categories}
    n_obs_all = int(obs.sum())
    return {
        "n_models": int(panel.models["model"].nunique()),
        "n_model_runs": panel.n_models,
        "conditions": {str(k): int(v) for k, v in conditions.items()},
        "n_items": panel.n_items,
        "n_benchmarks": len(panel.benchmarks),
        "n_categories": len(panel.categories),
        "mean_score": float(scores[obs].mean()) if n_obs_all else None,
        "mean_score_text_only": float(text[text_obs].mean()) if text_obs.any() else None,
        "coverage": float(all_obs.mean()) if all_obs.size else None,
        "benchmarks": benchmarks,
        "categories": categories,
    }


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
