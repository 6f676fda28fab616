"""The released suite: a directory written atomically from a :class:`CompressionResult` (PRIMEBench Table 2).

Layout (format ``benchsift-suite/1``)::

    SUITE_DIR/
      items.csv             benchmark, item, category, stage1_role, stage2_reason, why (one row per item),
                            and id_source when the panel came from a harness's logs (which tool numbered it),
                            and cluster when suite items share a cluster (benchsift.panel.item_clusters;
                            suite.json "clusters" then says from which column): estimate resamples them whole
      suite.json            format, parameters, seed, input fingerprint, panel size, per-stage counts and rho,
                            selected categories, the Stage 1 table, the Stage 3 k-sweep, notes
      stages.csv / stages.md the stage table (like PRIMEBench Table 2)
      reference_scores.csv  benchmark, item, then one column per reference (image-condition) model: the
                            panel's scores on the suite items (what ``benchsift estimate`` ranks against)
      models.csv            model, reference_score (Stage 0 reference), suite_score, suite_rank
      stage0_counts.csv     Stage 0 counts per benchmark
      stage1_categories.csv Stage 1 per category (Tables 6 and 8), stage1_candidates.csv (Table 7)
      stage3_sweep.csv      Stage 3 best subset and rho for every k
      frontier.csv          optional: the Capability Frontier (section 7(3), App. I.2)
      full_score.json       the fitted full-pool score estimators (benchsift.compression.full_score): 2PL item
                            parameters of every pool item, calibration lines, conformal half-widths, the
                            method chosen by cross-validation and the reference models' full scores

Nothing in the directory depends on the time, the machine or the input path, so the same panel, parameters
and seed give the same directory byte for byte.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from benchsift._fileio import atomic_dir, from_spreadsheet, spreadsheet_frame
from benchsift._inputs import existing_dir
from benchsift._jsonutil import loads_bounded, to_jsonable
from benchsift.compression.frontier import FrontierResult
from benchsift.compression.full_score import FullScoreModel
from benchsift.compression.pipeline import CompressionResult
from benchsift.errors import FormatError, InputError
from benchsift.io.registry import ID_SOURCE
from benchsift.panel import Panel, item_clusters
from benchsift.panel.clusters import CLUSTER_COLUMN
from benchsift.stats.ranks import rank_average

__all__ = ["FORMAT", "Suite", "load_suite", "stage_table", "write_suite"]

FORMAT = "benchsift-suite/1"
#: The fitted full-score estimators inside a suite directory (absent in suites written before them).
FULL_SCORE_FILE = "full_score.json"


def _csv(df: pd.DataFrame, path: Path) -> None:
    """A suite table as CSV, its text cells safe to open in a spreadsheet (read back by :func:`_read_csv`)."""
    spreadsheet_frame(df).to_csv(path, index=False, lineterminator="\n")


def _read_csv(path: Path, **kwargs: Any) -> pd.DataFrame:
    """A table :func:`_csv` wrote, its text cells and column names as they were before."""
    df = pd.read_csv(path, **kwargs)
    df.columns = [from_spreadsheet(c) for c in df.columns]
    for col in df.columns:
        if not pd.api.types.is_numeric_dtype(df[col]):
            df[col] = df[col].map(from_spreadsheet)
    return df


def stage_table(result: CompressionResult, n_items_total: int) -> pd.DataFrame:
    """The stage table (PRIMEBench Table 2): one row per stage run, the released suite and, when Stage 3
    ran, the "No Stage 3" row (all pruned categories kept, PRIMEBench Table 12).

    ``change`` is relative to each row's input, except for the released suite and the no-Stage-3 row,
    relative to all input items. ``rho_vs_stage0`` is every row's rho against the Stage 0 reference ranking;
    ``rho_stage`` the row's own Table 2 figure, described by ``rho_stage_is``.
    """
    rows = []
    for s in result.stages:
        rows.append(
            {
                "stage": str(s.stage),
                "name": s.name,
                "items_in": s.items_in,
                "items_out": s.items_out,
                "change": (s.items_out / s.items_in - 1.0) if s.items_in else float("nan"),
                "rho_vs_stage0": s.rho,
                "rho_stage": s.rho_stage,
                "rho_stage_is": s.rho_stage_is,
                "note": s.note,
            }
        )

    def overall(stage: str, name: str, n_out: int, rho: float, note: str) -> dict[str, Any]:
        return {
            "stage": stage,
            "name": name,
            "items_in": n_items_total,
            "items_out": n_out,
            "change": (n_out / n_items_total - 1.0) if n_items_total else float("nan"),
            "rho_vs_stage0": rho,
            "rho_stage": rho,
            "rho_stage_is": "vs Stage 0 reference",
            "note": note,
        }

    k = len(result.selected_categories)
    rows.append(
        overall(
            "suite",
            "released suite",
            result.n_items_suite,
            result.rho_suite_vs_stage0,
            f"{k} categories: {', '.join(result.selected_categories)}",
        )
    )
    last3 = [s for s in result.stages if s.stage == 3]
    if last3:
        rows.append(
            overall(
                "no-stage3",
                "all categories, no Stage 3",
                last3[0].items_in,
                result.rho_no_stage3,
                f"{len(result.categories)} categories",
            )
        )
    return pd.DataFrame(rows)


def _markdown(df: pd.DataFrame) -> str:
    def fmt(v: Any) -> str:
        if isinstance(v, float):
            return "" if np.isnan(v) else f"{v:.3f}"
        return str(v)

    head = "| " + " | ".join(df.columns) + " |"
    sep = "|" + "|".join("---" for _ in df.columns) + "|"
    body = ["| " + " | ".join(fmt(v) for v in row) + " |" for row in df.itertuples(index=False)]
    return "\n".join([head, sep, *body]) + "\n"


def _why(role: str, reason: str, category: str, selected_by_stage3: bool) -> str:
    parts = []
    if role == "representative":
        parts.append(f"Stage 1 representative of {category}")
    elif role == "supplement":
        parts.append(f"Stage 1 supplement of {category}")
    else:
        parts.append("Stage 0 cleaned")
    if reason:
        parts.append(f"Stage 2 {reason}")
    if selected_by_stage3:
        parts.append("Stage 3 selected category")
    return "; ".join(parts)


def _suite_item_table(result: CompressionResult, panel: Panel) -> tuple[pd.DataFrame, Any, np.ndarray]:
    """``items.csv`` of the suite (benchmark, item, category, Stage 1 role, Stage 2 reason, why, and the
    id source and cluster columns when the panel has them); the panel's item clusters and the suite items'
    cluster codes."""
    items = panel.items
    pos = result.suite_items
    s3 = result.stage3 is not None
    item_table = pd.DataFrame(
        {
            "benchmark": items["benchmark"].to_numpy(dtype=object)[pos],
            "item": items["item"].to_numpy(dtype=object)[pos],
            "category": result.suite_category,
            "stage1_role": result.suite_role,
            "stage2_reason": result.suite_reason,
        }
    )
    item_table["why"] = [
        _why(r, s, c, s3)
        for r, s, c in zip(
            item_table["stage1_role"], item_table["stage2_reason"], item_table["category"], strict=True
        )
    ]
    if ID_SOURCE in items.columns:  # which harness numbered the items (benchsift export checks it)
        item_table[ID_SOURCE] = items[ID_SOURCE].to_numpy(dtype=object)[pos]
    clusters = item_clusters(items)
    suite_clusters = clusters.codes[pos]
    if clusters.used and np.unique(suite_clusters).size < len(pos):  # estimate resamples them whole
        item_table[CLUSTER_COLUMN] = [f"c{int(c)}" for c in suite_clusters]
    return item_table, clusters, suite_clusters


def _reference_scores(result: CompressionResult, panel: Panel, item_table: pd.DataFrame) -> pd.DataFrame:
    """``reference_scores.csv``: the image-condition runs' scores on the suite items, one column per model
    (a model id that is a key column is refused)."""
    clash = sorted({"benchmark", "item"} & set(result.model_ids))
    if clash:
        raise InputError(
            f"write_suite: model id(s) {clash} clash with the key columns of reference_scores.csv"
        )
    ref_scores = pd.DataFrame(
        panel.scores[panel.image_rows][:, result.suite_items].T, columns=result.model_ids
    )
    ref_scores.insert(0, "item", item_table["item"].to_numpy())
    ref_scores.insert(0, "benchmark", item_table["benchmark"].to_numpy())
    return ref_scores


def _suite_meta(result: CompressionResult, panel: Panel) -> dict[str, Any]:
    """``suite.json`` without its clusters and frontier entries: the parameters, the input's sizes and
    fingerprint, each stage's summary, the rules of the scores, notes and warnings."""
    return {
        "format": FORMAT,
        "parameters": result.config.to_dict(),
        "seed": result.config.random_state,
        "input": {
            "fingerprint_sha256": result.fingerprint,
            "n_model_rows": panel.n_models,
            "n_image_models": int(panel.image_rows.sum()),
            "n_items": panel.n_items,
            "n_benchmarks": len(panel.benchmarks),
            "n_categories": len(result.categories),
        },
        "stages": [s.to_dict() for s in result.stages],
        "categories": result.categories,
        "categories_selected": result.selected_categories,
        "n_items_suite": result.n_items_suite,
        "rho_suite_vs_stage0": result.rho_suite_vs_stage0,
        "rho_no_stage3": result.rho_no_stage3,
        "score_rule": "mean over the selected categories of the mean over each category's suite items",
        "reference_rule": (
            "Stage 0 reference: mean over categories of the mean of each category's benchmark means on the "
            "cleaned pool"
        ),
        "stage0": result.stage0.totals() | {"tau": result.stage0.tau},
        "stage1": None
        if result.stage1 is None
        else {
            "median_rho": result.stage1.median_rho,
            "target": result.stage1.target,
            "categories": result.stage1.table().to_dict(orient="records"),
        },
        "stage2": None if result.stage2 is None else result.stage2.to_dict(),
        "stage3": None
        if result.stage3 is None
        else {
            "k": result.stage3.k,
            "method": result.stage3.method,
            "rho": result.stage3.rho,
            "n_evaluated": result.stage3.n_evaluated,
        },
        "frontier": None,
        "full_score": None if result.full_score is None else result.full_score.summary(),
        "notes": result.notes,
        "warnings": result.warnings,
    }


def _frontier_meta(frontier: FrontierResult) -> dict[str, Any]:
    """The ``frontier`` entry of ``suite.json``."""
    return {
        "n_items": int(frontier.items.size),
        "n_candidates": frontier.n_candidates,
        "n_in_band": frontier.n_in_band,
        "gain": frontier.gain,
        "gain_source": frontier.gain_source,
        "budget": frontier.budget,
        **frontier.params,
    }


def write_suite(
    result: CompressionResult,
    panel: Panel,
    out_dir: str | Path,
    *,
    frontier: FrontierResult | None = None,
) -> Path:
    """Write the suite directory for ``result`` (computed by ``run_pipeline(panel, ...)``), atomically."""
    from benchsift.compression.pipeline import panel_fingerprint

    if panel_fingerprint(panel) != result.fingerprint:
        raise InputError("write_suite: the panel is not the one the compression result was computed on")
    item_table, clusters, suite_clusters = _suite_item_table(result, panel)
    ref_scores = _reference_scores(result, panel, item_table)
    models = pd.DataFrame(
        {
            "model": result.model_ids,
            "reference_score": result.reference,
            "suite_score": result.suite_scores,
            "suite_rank": rank_average(-result.suite_scores),
        }
    )
    table = stage_table(result, panel.n_items)
    meta = _suite_meta(result, panel)
    if CLUSTER_COLUMN in item_table.columns:  # only then: a suite of a panel without clusters is unchanged
        info = clusters.to_dict()
        meta["clusters"] = {
            "column": info["column"],
            "inferred": info["inferred"],
            "n_clusters_panel": info["n_clusters"],
            "n_clusters_suite": int(np.unique(suite_clusters).size),
            "warnings": list(clusters.warnings),
        }
    if frontier is not None:
        meta["frontier"] = _frontier_meta(frontier)
    with atomic_dir(out_dir) as tmp:
        _csv(item_table, tmp / "items.csv")
        _csv(ref_scores, tmp / "reference_scores.csv")
        _csv(models, tmp / "models.csv")
        _csv(table, tmp / "stages.csv")
        (tmp / "stages.md").write_text(_markdown(table))
        _csv(result.stage0.counts, tmp / "stage0_counts.csv")
        if result.stage1 is not None:
            _csv(result.stage1.table(), tmp / "stage1_categories.csv")
            _csv(result.stage1.candidates_table(), tmp / "stage1_candidates.csv")
        if result.stage3 is not None and result.stage3.sweep is not None:
            _csv(result.stage3.sweep, tmp / "stage3_sweep.csv")
        if frontier is not None:
            _csv(frontier.table, tmp / "frontier.csv")
        if result.full_score is not None:
            (tmp / FULL_SCORE_FILE).write_text(json.dumps(to_jsonable(result.full_score.to_dict())) + "\n")
        (tmp / "suite.json").write_text(json.dumps(to_jsonable(meta), indent=2, sort_keys=False) + "\n")
    return Path(out_dir)


@dataclass(frozen=True)
class Suite:
    """A suite directory read back: what :mod:`benchsift.compression.estimate` needs."""

    path: Path
    meta: dict[str, Any]
    items: pd.DataFrame
    reference_models: list[str]
    reference_scores: np.ndarray
    full_score: FullScoreModel | None = None
    #: the benchmarks of the panel the suite was compressed from (``stage0_counts.csv``; None for a suite
    #: folder without it): a run's benchmark among them was left out by compress, not misnamed
    input_benchmarks: list[str] | None = None

    @property
    def categories(self) -> list[str]:
        """The categories the suite kept (Stage 3): the compression's groups, an item's category or its
        benchmark's name where it has none (:mod:`benchsift.panel.categories`)."""
        return [str(c) for c in self.meta["categories_selected"]]

    @property
    def n_items(self) -> int:
        return len(self.items)


def load_suite(path: str | Path) -> Suite:
    """Read a suite directory written by :func:`write_suite`."""
    root = existing_dir(path, "a suite directory written by benchsift compress")
    need = ("suite.json", "items.csv", "reference_scores.csv")
    for name in need:
        if not (root / name).is_file():
            raise FormatError(f"{root}: missing {name} (not a benchsift suite directory)")
    try:
        meta = loads_bounded((root / "suite.json").read_bytes(), str(root / "suite.json"))
    except json.JSONDecodeError as exc:
        raise FormatError(f"{root / 'suite.json'}: not valid JSON ({exc})") from None
    if not isinstance(meta, dict) or meta.get("format") != FORMAT:
        got = (
            repr(meta.get("format")) if isinstance(meta, dict) else f"missing (a JSON {type(meta).__name__})"
        )
        raise FormatError(f"{root / 'suite.json'}: format {got}, expected {FORMAT!r}")
    selected = meta.get("categories_selected")
    if not isinstance(selected, list) or not selected or not all(isinstance(c, str) for c in selected):
        raise FormatError(f"{root / 'suite.json'}: categories_selected: expected a list of category names")
    if not isinstance(meta.get("input", {}), dict):
        raise FormatError(f"{root / 'suite.json'}: input: expected an object (the panel's fingerprint)")
    items = _read_csv(
        root / "items.csv",
        dtype={"benchmark": str, "item": str, "category": str, ID_SOURCE: str},
        keep_default_na=False,
    )
    for col in ("benchmark", "item", "category"):
        if col not in items.columns:
            raise FormatError(f"{root / 'items.csv'}: missing column {col!r}")
    ref = _read_csv(root / "reference_scores.csv", dtype=str, keep_default_na=False)
    if list(ref["benchmark"]) != list(items["benchmark"]) or list(ref["item"]) != list(items["item"]):
        raise FormatError(f"{root / 'reference_scores.csv'}: rows do not match items.csv (benchmark, item)")
    if not set(selected) & set(items["category"]):
        raise FormatError(
            f"{root / 'suite.json'}: categories_selected: none of them is a category of items.csv"
        )
    models = [c for c in ref.columns if c not in ("benchmark", "item")]
    try:
        raw = ref[models].to_numpy(dtype=object)
        raw[raw == ""] = "nan"
        scores = raw.astype(np.float64).T
    except ValueError as exc:
        raise FormatError(f"{root / 'reference_scores.csv'}: non-numeric score ({exc})") from None
    full = None
    if (root / FULL_SCORE_FILE).is_file():
        try:
            full = FullScoreModel.from_dict(
                loads_bounded((root / FULL_SCORE_FILE).read_bytes(), str(root / FULL_SCORE_FILE))
            )
        except (json.JSONDecodeError, KeyError, TypeError, ValueError) as exc:
            raise FormatError(f"{root / FULL_SCORE_FILE}: not a benchsift full-score model ({exc})") from None
        if full.a_suite.shape[0] != len(items):
            raise FormatError(
                f"{root / FULL_SCORE_FILE}: {full.a_suite.shape[0]} suite items, items.csv has {len(items)}"
            )
    return Suite(
        path=root,
        meta=meta,
        items=items,
        reference_models=models,
        reference_scores=scores,
        full_score=full,
        input_benchmarks=_input_benchmarks(root / "stage0_counts.csv"),
    )


def _input_benchmarks(path: Path) -> list[str] | None:
    """The ``benchmark`` column of the suite's ``stage0_counts.csv`` (one row per benchmark of the input
    panel), or None when the folder has no such regular file or it cannot be read as one: it only tells a
    benchmark compress left out from a misnamed one, so a damaged copy is not worth refusing the suite."""
    if not path.is_file():
        return None
    try:
        table = _read_csv(path, dtype=str, keep_default_na=False, usecols=["benchmark"], nrows=1_000_000)
    except (ValueError, OSError, pd.errors.ParserError):
        return None
    return [str(b) for b in table["benchmark"]]
