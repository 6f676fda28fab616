"""Importer ``aggregate``: benchmark-level scores (models x benchmarks) into a benchmark-level panel.

Such a panel has **one column per benchmark**: for every benchmark ``B`` the item is ``(benchmark=B,
item=B)``, category NA. It is the input of the benchmark-level stages of PRIMEBench (Stage 1 / Stage 3)
and of cross-benchmark redundancy analysis; per-benchmark means of it are the scores themselves.

Two inputs:

* **A table** (CSV, TSV, parquet, Excel): one row per model, the first column (or ``model_column``) the
  model id, every other column a benchmark. Columns named ``family``, ``release_date``, ``params`` (billions)
  or ``condition`` are model metadata, not benchmarks. Empty cells are missing. Example::

      model,MMStar,OCRBench,MME
      InternVL2-8B,61.5,794,2210.3

* **The OpenVLM leaderboard JSON** (``OpenVLM.json`` published by OpenCompass, read by the
  ``open_vlm_leaderboard`` space): ``{"time": ..., "results": {model: {"META": {"Method": [name, url],
  "Parameters": "7B", "Language Model": ..., "Vision Model": ..., "OpenSource": "Yes", "Verified": "Yes"},
  "<benchmark>": {"Overall": 61.5, ...}, ...}}}``. The score of a benchmark is its ``Overall`` field
  (OCRBench: ``Final Score``, as the leaderboard's ``generate_table`` does); a benchmark entry without one is
  left out, with a note. ``Parameters`` becomes ``params`` (billions).

* **The leaderboard table as the space serves it** (a Gradio ``Dataframe`` value
  ``{"headers": [...], "data": [[...], ...], "metadata": ...}`` as ``gradio_client`` returns it, or
  ``{"value": <that>}``, or the one-output ``data`` list of an API event, or the app config of ``GET /config``
  holding one ``dataframe`` component): the model column is ``Method`` (an HTML link
  ``<a href="url">name</a>``: the text is the model, the link becomes ``url``), ``Param (B)`` becomes
  ``params``; the other descriptive columns (:data:`LEADERBOARD_META`) and the leaderboard's own aggregates
  (``Avg Score``, ``Avg Rank``) are not benchmarks. Empty cells (``""``, ``"-"``, null, ``NaN``) are
  missing; a benchmark column empty for every model is kept as missing, with a warning.

Scales are brought to [0, 1] per benchmark by :mod:`benchsift.io.rescale` (percentages, MME 0-2800, OCRBench
0-1000, ...).
"""

from __future__ import annotations

import html
import re
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from benchsift.errors import FormatError, InputError
from benchsift.io._common import (
    FILE_COL,
    ROW_COL,
    TABLE_PATTERNS,
    PathLike,
    Paths,
    as_paths,
    assemble_panel,
    id_strings,
    numeric_scores,
    read_table,
    require_columns,
    source_label,
)
from benchsift.io._harness import read_json
from benchsift.io._rows import RowNames
from benchsift.io._spreadsheet import SUMMARY_NAME
from benchsift.io._walk import walk_inputs
from benchsift.io.long import read_models_table
from benchsift.io.notes import raises_uncollected
from benchsift.io.rescale import RescaleMode, ScaleMap
from benchsift.panel import Panel

MODEL_META_COLUMNS = ("family", "release_date", "params", "condition")
OPENVLM_SCORE_FIELDS = ("Overall", "Final Score")
OPENVLM_META = {
    "Language Model": "language_model",
    "Vision Model": "vision_model",
    "OpenSource": "open_source",
    "Verified": "verified",
    "Org": "org",
}


#: a benchmark column named like a table's own aggregate (a spreadsheet's average, a leaderboard's rank)
_SUMMARY_NAME = re.compile(rf"(?:{SUMMARY_NAME.pattern})|(?:(avg\.? )?rank)", re.IGNORECASE)


def _suspicious_columns(
    path: Path, bench_cols: list[str], long: pd.DataFrame, notes: list[str] | None
) -> None:
    """Warn of what a models x benchmarks table rarely holds: a column named like the table's own aggregate
    (``Average``, ``Avg Score``, ``Rank``: read as a benchmark of its own), and only scores of 0 and 1 (a
    per-item table, items x models, whose item ids would become models)."""
    if notes is None:
        return
    named = [c for c in bench_cols if _SUMMARY_NAME.fullmatch(str(c).strip())]
    if named:
        notes.append(
            f"warning: {path}: column(s) {named} are read as benchmarks; if they are the table's own "
            "average or rank, leave them out of the file"
        )
    score = long["score"].to_numpy(dtype=np.float64)
    seen = score[~np.isnan(score)]
    n_rows = int(long[ROW_COL].nunique())
    if (
        n_rows >= 5
        and len(bench_cols) >= 2
        and seen.size
        and np.isin(seen, (0.0, 1.0)).all()
        and np.ptp(seen)
    ):
        notes.append(
            f"warning: {path}: every score is 0 or 1, as in a per-item table (items x models), which the "
            f"wide importer reads; here its {n_rows} rows are read as models and its {len(bench_cols)} "
            "columns as benchmarks"
        )


def _table_to_long(
    path: Path, model_column: str | None, notes: list[str] | None = None
) -> tuple[pd.DataFrame, pd.DataFrame]:
    def numeric(header: list[str]) -> list[str]:
        first = model_column if model_column is not None else header[0]
        return [c for c in header if c != first and c.lower() not in ("family", "release_date", "condition")]

    df = read_table(path, numeric=numeric)
    rows = RowNames(path, len(df))
    mcol = model_column if model_column is not None else str(df.columns[0])
    require_columns(df, [mcol], path, "the model column")
    models = id_strings(df[mcol], path, f"model ({mcol!r})", rows)
    meta_cols = [c for c in df.columns if c != mcol and c.lower() in MODEL_META_COLUMNS]
    bench_cols = [c for c in df.columns if c != mcol and c not in meta_cols]
    if not bench_cols:
        raise FormatError(f"{path}: no benchmark columns besides the model column {mcol!r}")
    parts = []
    for c in bench_cols:
        parts.append(
            pd.DataFrame(
                {
                    "model": models.to_numpy(),
                    "benchmark": c,
                    "item": c,
                    "score": numeric_scores(df[c], path, f"score of benchmark {c!r}", rows),
                    ROW_COL: np.arange(len(df)),
                }
            )
        )
    long = pd.concat(parts, ignore_index=True)
    _suspicious_columns(path, bench_cols, long, notes)
    meta = pd.DataFrame({"model": models.to_numpy()})
    for c in meta_cols:
        meta[c.lower()] = df[c].to_numpy()
    if "condition" in meta.columns:
        cond = meta["condition"].fillna("image").astype(str).str.strip()
        long["condition"] = np.tile(cond.to_numpy(), len(bench_cols))
        meta = meta.drop(columns="condition")
    if "params" in meta.columns:
        meta["params"] = numeric_scores(meta["params"], path, "params", rows)
    return long, meta.drop_duplicates("model")


_PARAMS_RE = re.compile(r"(\d+(?:\.\d+)?)")


def _openvlm_params(text: Any) -> float:
    """``"7B"`` -> 7.0, ``"0.5B"`` -> 0.5, ``""`` -> NaN (the leaderboard's ``Parameters`` field)."""
    if isinstance(text, int | float) and not isinstance(text, bool):
        return float(text)
    m = _PARAMS_RE.search(str(text or ""))
    return float(m.group(1)) if m else float("nan")


def _openvlm_to_long(path: Path, notes: list[str] | None, data: Any) -> tuple[pd.DataFrame, pd.DataFrame]:
    results = data.get("results") if isinstance(data, dict) else None
    if not isinstance(results, dict) or not results:
        raise FormatError(
            f"{path}: not an OpenVLM leaderboard JSON (no 'results' object keyed by model, nor a "
            "'headers'/'data' table)"
        )
    recs: list[dict[str, Any]] = []
    metas: list[dict[str, Any]] = []
    skipped: set[str] = set()
    for model, entry in results.items():
        if not isinstance(entry, dict):
            raise FormatError(f"{path}: results[{model!r}] is not an object")
        raw_meta = entry.get("META")
        meta: dict[str, Any] = raw_meta if isinstance(raw_meta, dict) else {}
        row: dict[str, Any] = {"model": str(model), "params": _openvlm_params(meta.get("Parameters"))}
        for src, dst in OPENVLM_META.items():
            if src in meta:
                row[dst] = meta[src]
        method = meta.get("Method")
        if isinstance(method, list) and len(method) > 1:
            row["url"] = method[1]
        metas.append(row)
        for bench, fields in entry.items():
            if bench == "META":
                continue
            if not isinstance(fields, dict):
                raise FormatError(f"{path}: results[{model!r}][{bench!r}] is not an object of scores")
            key = next((k for k in OPENVLM_SCORE_FIELDS if k in fields), None)
            if key is None:
                skipped.add(bench)
                continue
            recs.append(
                {
                    "model": str(model),
                    "benchmark": str(bench),
                    "item": str(bench),
                    "raw": fields[key],
                    ROW_COL: f"results[{model!r}][{bench!r}][{key!r}]",
                }
            )
    if not recs:
        raise FormatError(f"{path}: no benchmark scores found under 'results'")
    long = pd.DataFrame(recs)
    long["score"] = numeric_scores(long.pop("raw"), path, "score", list(long[ROW_COL]))
    if skipped and notes is not None:
        notes.append(f"{path.name}: left out benchmark entries without an Overall score: {sorted(skipped)}")
    return long, pd.DataFrame(metas)


LEADERBOARD_META = {
    "Param (B)": "params",
    "Language Model": "language_model",
    "Vision Model": "vision_model",
    "OpenSource": "open_source",
    "Verified": "verified",
    "Org": "org",
    "Release Date": "release_date",
}
LEADERBOARD_SKIP = ("Rank", "Avg Score", "Avg Rank")
_TAG_RE = re.compile(r"<[^>]*>")
_HREF_RE = re.compile(r"""href\s*=\s*["']([^"']+)["']""")
_EMPTY = ("", "-", "--", "N/A", "n/a", "nan", "None")


def _leaderboard_to_long(
    path: Path, table: dict[str, Any], notes: list[str] | None
) -> tuple[pd.DataFrame, pd.DataFrame]:
    headers, data = table.get("headers"), table.get("data")
    if not isinstance(headers, list) or not isinstance(data, list):
        raise FormatError(f"{path}: leaderboard table without 'headers' and 'data' lists")
    headers = [str(h) for h in headers]
    mcol = "Method" if "Method" in headers else headers[0]
    for i, row in enumerate(data):
        if not isinstance(row, list) or len(row) != len(headers):
            raise FormatError(f"{path}: data[{i}] is not a row of {len(headers)} cells")
    if not data:
        raise FormatError(f"{path}: the leaderboard table has no rows ('data' is empty)")
    df = pd.DataFrame(data, columns=headers, dtype=object)
    for i, cell in enumerate(df[mcol]):
        if not isinstance(cell, str | int):
            raise InputError(f"{path}: data[{i}]: model cell in column {mcol!r} is {cell!r}, expected text")
    raw_names = df[mcol].astype(str)
    names = raw_names.map(lambda t: html.unescape(_TAG_RE.sub("", t)).strip())
    if (names == "").any():
        i = int(np.flatnonzero((names == "").to_numpy())[0])
        raise InputError(f"{path}: data[{i}]: empty model name in column {mcol!r}")
    meta = pd.DataFrame({"model": names.to_numpy()})
    urls = raw_names.map(lambda t: m.group(1) if (m := _HREF_RE.search(t)) else None)
    if urls.notna().any():
        meta["url"] = urls.to_numpy()
    for src, dst in LEADERBOARD_META.items():
        if src in df.columns:
            meta[dst] = df[src].map(_openvlm_params).to_numpy() if dst == "params" else df[src].to_numpy()
    benches = [h for h in headers if h != mcol and h not in LEADERBOARD_META and h not in LEADERBOARD_SKIP]
    if not benches:
        raise FormatError(f"{path}: no benchmark columns in the leaderboard table (headers {headers})")
    parts = []
    rows = [f"data[{i}]" for i in range(len(df))]
    empty_cols = []
    for b in benches:
        cells = df[b].map(lambda v: None if v is None or (isinstance(v, str) and v.strip() in _EMPTY) else v)
        scores = numeric_scores(cells, path, f"score of benchmark {b!r}", rows)
        if np.isnan(scores).all():
            empty_cols.append(b)
        parts.append(
            pd.DataFrame(
                {"model": names.to_numpy(), "benchmark": b, "item": b, "score": scores, ROW_COL: rows}
            )
        )
    if empty_cols and notes is not None:
        notes.append(
            f"warning: {path.name}: benchmark column(s) {empty_cols} empty for every model: kept as missing"
        )
    skipped = [h for h in headers if h in LEADERBOARD_SKIP]
    if skipped and notes is not None:
        notes.append(f"{path.name}: leaderboard columns {skipped} are not benchmarks (left out)")
    return pd.concat(parts, ignore_index=True), meta.drop_duplicates("model")


def _is_table(obj: Any) -> bool:
    return isinstance(obj, dict) and "headers" in obj and "data" in obj


def _served_table(path: Path, data: Any) -> dict[str, Any] | None:
    """The Gradio ``Dataframe`` value in ``data``, or None when ``data`` is not a served table.

    Accepted, as Gradio serves the value (``gradio/components/dataframe.py``: ``postprocess`` returns
    ``DataframeData(headers, data, metadata)``): the value itself (what ``gradio_client``'s ``predict``
    returns), ``{"value": value}`` (a component's props, an update), the ``data`` list of an API event
    (``/gradio_api/call/<api_name>``: one entry per output, here exactly one table), and the app config
    (``GET /config``: ``components[i].props.value`` of exactly one ``dataframe`` component).
    """
    if _is_table(data):
        return dict(data)
    if isinstance(data, list):
        tables = [i for i, d in enumerate(data) if _is_table(d)]
        if len(tables) == 1 and len(data) == 1:
            return dict(data[0])
        if tables:
            raise FormatError(
                f"{path}: a list of {len(data)} outputs, tables at {tables}: expected one Dataframe value "
                "(save that output alone)"
            )
        return None
    if not isinstance(data, dict):
        return None
    if "value" in data and "results" not in data:
        if not _is_table(data["value"]):
            raise FormatError(
                f"{path}: 'value' is not a Dataframe value (an object with 'headers' and 'data')"
            )
        return dict(data["value"])
    components = data.get("components")
    if isinstance(components, list) and "results" not in data:
        frames = [
            c.get("props", {}).get("value")
            for c in components
            if isinstance(c, dict) and c.get("type") == "dataframe" and isinstance(c.get("props"), dict)
        ]
        frames = [f for f in frames if _is_table(f)]
        if len(frames) != 1:
            raise FormatError(
                f"{path}: a Gradio app config with {len(frames)} Dataframe values: expected exactly one "
                "(save the table's value alone)"
            )
        return dict(frames[0])
    return None


def _json_to_long(path: Path, notes: list[str] | None) -> tuple[pd.DataFrame, pd.DataFrame]:
    data = read_json(path)
    table = _served_table(path, data)
    if table is not None:
        return _leaderboard_to_long(path, table, notes)
    return _openvlm_to_long(path, notes, data)


@raises_uncollected
def read_aggregate(
    paths: Paths,
    *,
    model_column: str | None = None,
    models: PathLike | None = None,
    condition: str | None = None,
    rescale: RescaleMode = "auto",
    scales: ScaleMap | None = None,
    notes: list[str] | None = None,
) -> Panel:
    """Read models x benchmarks tables or OpenVLM leaderboard JSON into a benchmark-level panel."""

    def one(p: Path, file_notes: list[str] | None, _root: Path) -> tuple[pd.DataFrame, pd.DataFrame]:
        if p.suffix.lower() == ".json":
            if model_column is not None:
                raise InputError(f"{p}: model_column applies to tables, not to the OpenVLM JSON")
            long, meta = _json_to_long(p, file_notes)
        else:
            long, meta = _table_to_long(p, model_column, file_notes)
        long[FILE_COL] = str(p)
        if "condition" not in long.columns:
            long["condition"] = condition or "image"
        return long, meta

    parts, files = walk_inputs(
        as_paths(paths), (*TABLE_PATTERNS, "*.json"), one, notes=notes, what="aggregate table"
    )
    longs = [long for long, _ in parts]
    metas = [meta for _, meta in parts]
    long = pd.concat(longs, ignore_index=True)
    meta = pd.concat(metas, ignore_index=True).drop_duplicates("model")
    if models is not None:
        side = read_models_table(models, notes)
        meta = meta.merge(side, on="model", how="outer", suffixes=("__file", ""))
        for c in [c for c in meta.columns if c.endswith("__file")]:
            base = c.removesuffix("__file")
            meta[base] = meta[base].combine_first(meta[c])
            meta = meta.drop(columns=c)
    meta_table = meta if meta.shape[1] > 1 else None
    return assemble_panel(
        long, source=source_label(files), models=meta_table, rescale=rescale, scales=scales, notes=notes
    )
