"""A summary of a panel: sizes, coverage, per-benchmark means (the data behind ``benchsift info``)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd
from rich.table import Table

from benchsift.io.side_files import match_models_table, side_file_warnings
from benchsift.panel import Panel
from benchsift.panel.identical import identical_runs
from benchsift.report.console import DataTable


def panel_summary(panel: Panel) -> dict[str, Any]:
    """JSON-able summary of ``panel``.

    ``n_models`` counts distinct model ids (a model's text-only run is not a second model; runs are counted
    in ``n_model_runs`` and ``conditions``). ``mean_score`` is the mean over the non-missing cells of the
    image-condition runs (as ``benchsift simulate`` reports it: a text-only run answers without the image,
    so its score is not the model's score); ``mean_score_text_only`` is the same over the text-only runs
    (None when there are none). ``coverage`` is the fraction of non-missing cells over every run. Per
    benchmark: number of items, mean over its non-missing image-condition cells and coverage. The sums run
    over blocks of model rows (no copy of the matrix, whose size is the panel's).
    """
    scores = panel.scores
    items = panel.items
    image = panel.image_rows
    conditions = panel.models["condition"].value_counts().to_dict()
    names = list(panel.benchmarks)
    codes = items["benchmark"].map({b: i for i, b in enumerate(names)}).to_numpy(dtype=np.intp)
    n_img, sums_img = _benchmark_sums(scores, codes, len(names), image)
    n_txt, sums_txt = _benchmark_sums(scores, codes, len(names), ~image)
    benchmarks: dict[str, Any] = {}
    for b, name in enumerate(names):
        n_cols = int((codes == b).sum())
        cells = n_cols * panel.n_models
        benchmarks[name] = {
            "n_items": n_cols,
            "mean_score": float(sums_img[b] / n_img[b]) if n_img[b] else None,
            "coverage": float((n_img[b] + n_txt[b]) / cells) if cells else None,
        }
    categories = {c: int((items["category"] == c).sum()) for c in panel.categories}
    n_img_all, n_txt_all = int(n_img.sum()), int(n_txt.sum())
    return {
        "n_models": int(panel.models["model"].nunique()),
        "n_model_runs": panel.n_models,
        "conditions": {str(k): int(v) for k, v in conditions.items()},
        "n_items": panel.n_items,
        "n_benchmarks": len(panel.benchmarks),
        "n_categories": len(panel.categories),
        "mean_score": float(sums_img.sum() / n_img_all) if n_img_all else None,
        "mean_score_text_only": float(sums_txt.sum() / n_txt_all) if n_txt_all else None,
        "coverage": float((n_img_all + n_txt_all) / scores.size) if scores.size else None,
        "benchmarks": benchmarks,
        "categories": categories,
    }


#: cells per block of :func:`_benchmark_sums` (512 KiB of scores: the block and its mask stay in cache)
_BLOCK_CELLS = 1 << 16
#: most runs of consecutive items of one benchmark summed run by run; more runs are summed per item column
_MAX_RUNS = 64


def _runs(codes: np.ndarray) -> list[tuple[int, int, int]]:
    """``(code, start, stop)`` of each run of equal consecutive values of ``codes``."""
    if len(codes) == 0:
        return []
    starts = np.r_[0, np.flatnonzero(np.diff(codes)) + 1]
    stops = np.r_[starts[1:], len(codes)]
    return [(int(codes[a]), int(a), int(b)) for a, b in zip(starts, stops, strict=True)]


def _benchmark_sums(
    scores: np.ndarray, codes: np.ndarray, n: int, rows: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Per benchmark code: the number of scored cells and their sum over the model rows where ``rows`` is
    true. One pass over blocks of about :data:`_BLOCK_CELLS` cells of those rows (runs of consecutive rows:
    no copy), one NaN mask per block: each run of consecutive items of one benchmark (the usual layout)
    counted and summed whole, or, past :data:`_MAX_RUNS` runs, per item column and binned."""
    counts = np.zeros(n, dtype=np.int64)
    sums = np.zeros(n)
    n_cols = scores.shape[1]
    step = max(1, _BLOCK_CELLS // max(1, n_cols))
    col_runs = _runs(codes)
    by_run = len(col_runs) <= _MAX_RUNS
    mask = np.empty((min(step, scores.shape[0]), n_cols), dtype=bool)
    for keep, r0, r1 in _runs(rows.astype(np.int8)):
        if not keep:
            continue
        for start in range(r0, r1, step):
            block = scores[start : min(r1, start + step)]
            obs = mask[: len(block)]
            np.isnan(block, out=obs)
            np.logical_not(obs, out=obs)
            if by_run:
                for code, a, b in col_runs:
                    counts[code] += np.count_nonzero(obs[:, a:b])
                    sums[code] += np.add.reduce(block[:, a:b], axis=None, where=obs[:, a:b])
            else:
                counts += np.bincount(codes, weights=obs.sum(axis=0), minlength=n).astype(np.int64)
                col = np.add.reduce(block, axis=0, where=obs)
                sums += np.bincount(codes, weights=col, minlength=n)
    return counts, sums


def summary_table(summary: dict[str, Any], title: str = "panel") -> Table:
    """A rich table of the per-benchmark part of :func:`panel_summary`."""
    table = DataTable(
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


def describe_panel(
    panel: Panel, models_table: pd.DataFrame | None = None, models_file: str = ""
) -> dict[str, Any]:
    """What ``benchsift info`` prints: :func:`panel_summary`, ``"models"`` (:func:`model_coverage`), with a
    models side table its match (``"models_file"``: ``{"path", **match_models_table}``) and ``"warnings"``:
    side-table rows that match no model, models without a row, model runs with identical scores
    (:func:`benchsift.panel.identical.identical_runs`) and model runs without a score on some benchmark."""
    summary = panel_summary(panel)
    summary["models"] = model_coverage(panel)
    warnings: list[str] = []
    if models_table is not None:
        match = match_models_table(panel, models_table)
        summary["models_file"] = {"path": models_file, **match}
        warnings += side_file_warnings(panel, match, models_file)
    for group in identical_runs(panel):
        warnings.append(
            f"model runs {group} have identical scores on every item (the same run under {len(group)} "
            "names?): each counts in every ranking, fit and correlation"
        )
    for run in summary["models"]:
        if run["benchmarks_without_scores"]:
            where = run["benchmarks_without_scores"]
            warnings.append(f"model {run['model']!r} ({run['condition']}) has no score on {where}")
    return {**summary, "warnings": warnings}
