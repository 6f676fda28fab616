"""A summary of a panel: sizes, coverage, per-benchmark means (the data behind ``benchsift info``)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd
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


def model_coverage(panel: Panel) -> list[dict[str, Any]]:
    """Per model run: cells scored, coverage (scored / items), mean over scored cells, and the benchmarks
    where the run has no score at all (an all-errored inspect log, a task not run)."""
    scores = panel.scores
    obs = ~np.isnan(scores)
    bench = panel.items["benchmark"].to_numpy()
    out = []
    for i, (model, condition) in enumerate(
        zip(panel.models["model"], panel.models["condition"], strict=True)
    ):
        n_obs = int(obs[i].sum())
        none = [b for b in panel.benchmarks if not obs[i, bench == b].any()]
        out.append(
            {
                "model": str(model),
                "condition": str(condition),
                "n_scored": n_obs,
                "coverage": float(obs[i].mean()) if scores.shape[1] else None,
                "mean_score": float(scores[i, obs[i]].mean()) if n_obs else None,
                "benchmarks_without_scores": none,
            }
        )
    return out


def match_models_table(panel: Panel, table: pd.DataFrame) -> dict[str, Any]:
    """Which rows of a models side table (``model`` column) match a model of ``panel``: the matched count,
    the table's rows that match no model (``row`` is the data-row index), and the panel's models that no
    row describes."""
    names = table["model"].astype(str).str.strip()
    known = set(panel.models["model"].astype(str))
    unmatched = [{"row": int(i), "model": m} for i, m in enumerate(names) if m not in known]
    described = set(names)
    return {
        "n_rows": len(table),
        "n_matched": len(table) - len(unmatched),
        "unmatched_rows": unmatched,
        "models_without_row": sorted(m for m in known if m not in described),
    }
