"""On-disk layout of a panel: one parquet file.

Layout (format ``benchsift-panel/1``):

* One row per item. The first columns are the item metadata (``benchmark``, ``item``, ``category``, then any
  other item columns such as ``question``).
* Then one float64 column per model run, named ``score:<i>`` where ``<i>`` is the model row (0-based); NaN is
  a missing score. Numbering the columns keeps them apart from item metadata whatever the model is called.
  They are written byte-stream-split with lz4 (:data:`SCORE_CODEC`; files written before issue 36 used
  zstd level 1: the reader takes either), no dictionary, no statistics: plain parquet that pyarrow and
  pandas read as float64; the item columns with a dictionary and zstd.
* The parquet schema metadata key ``benchsift`` holds JSON: ``{"format": "benchsift-panel/1", "models":
  [...records of the models table, dates as ISO strings...], "item_columns": [...]}``.

The file is written to a temporary path beside the target and renamed, so a failed save never leaves a
half-written panel. ``pandas.read_parquet`` opens it directly for inspection.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

from benchsift._fileio import PANEL_MAX_BYTES as _MAX_BYTES
from benchsift._fileio import PANEL_MAX_RATIO as _MAX_RATIO
from benchsift._fileio import PARQUET_RATIO_FLOOR as _FLOOR
from benchsift._fileio import atomic_path, check_parquet_footer
from benchsift._inputs import existing_file
from benchsift._jsonutil import loads_bounded
from benchsift.errors import FormatError, listed

if TYPE_CHECKING:
    from benchsift.panel._panel import Panel

FORMAT = "benchsift-panel/1"
META_KEY = b"benchsift"
#: Compression of the score columns, written byte-stream-split (the 8 bytes of every float64 in 8 streams,
#: so the constant sign/exponent bytes of 0/1 scores compress to almost nothing), without a dictionary and
#: without min/max statistics. On a 2,000 x 50,000 panel of 0/1 scores with 3 % NaN (issue 36), min of 3
#: writes and of 3 reads in one run: zstd level 1 1.07 s write / 0.59 s read / 45 MB, lz4 0.65 s / 0.29 s /
#: 104 MB (chosen: 0.4 s less CPU to write, 0.3 s less for every command that loads the panel, for a
#: file half the CSV's size), plain (no split) lz4 1.03 s / 0.50 s / 171 MB; the writer's
#: defaults (a dictionary, statistics, zstd) 1.76 s / 16 MB: the dictionary hashes every one of the 100
#: million values. Narrower types cost more here, not less (pyarrow 26): a non-nullable boolean column
#: 0.55-0.65 s (13 MB), a nullable one (NaN as null) 1.5 s, a nullable int8 1.85 s, float32 0.50 s plus
#: 0.3 s to convert and check: the writer's per-value work (bit packing, definition levels), not the
#: bytes, is the cost.
SCORE_CODEC = "lz4_raw"

#: Bounds on what a panel file's parquet footer may declare, checked before a byte of its data is read
#: (:func:`check_parquet_bounds`): the decoded size (8 bytes per declared value: rows x columns, or a list
#: column's values where more; or the row groups' declared uncompressed bytes where more) may exceed
#: :data:`PARQUET_RATIO_FLOOR` only within :data:`PANEL_MAX_RATIO` times the file's size, and never
#: :data:`PARQUET_MAX_BYTES`. A forged panel of 400,000,000 rows of one value (dictionary-encoded: 3.7 MB,
#: 9.6 GB once read, 2,587x) is refused at once; before, ``benchsift info`` read its rows until an
#: allocation failed (3.0 GB peak, 181 s on a 2-core machine under a 6 GB address-space limit).
#: Why no real panel is refused: the largest, 2,000 models x 50,000 items, is 0.80 GB of float64 plus 8
#: bytes per item cell (0.81 GB with 10 item columns), under the floor, so it is read however well it
#: compresses. That matters: on 200 x 50,000 panels (0/1 scores, 3 % NaN) the whole file expands 8x dense,
#: 57x with each model on 10 % of the items, 187x on 0.1 %, 194x all NaN with :data:`SCORE_CODEC`; the
#: writers before issue 36 (zstd level 1; pyarrow's dictionary + zstd) reach 141-274x at 10 % and 704-737x
#: all NaN. Above the floor (beyond every real panel) a panel written now stays under 256x unless almost
#: every score is the same value: LZ4's block format spends at least one byte per 255 bytes of a match.
#: The 16 GiB cap is 20 times the largest real panel. So a file of S bytes is read only when it declares
#: at most max(1 GiB, 256 S) (16 GiB at most); the audit's 3.7 MB file could declare 1 GiB.
PARQUET_RATIO_FLOOR = _FLOOR
PANEL_MAX_RATIO = _MAX_RATIO
PARQUET_MAX_BYTES = _MAX_BYTES


def _json_value(v: Any) -> Any:
    if v is None or (isinstance(v, float) and np.isnan(v)) or v is pd.NA or v is pd.NaT:
        return None
    if isinstance(v, pd.Timestamp):
        return v.isoformat()
    if isinstance(v, np.generic):
        return v.item()
    return v


def save_panel(panel: Panel, path: str | Path) -> Path:
    """Write ``panel`` to ``path`` (parquet, layout above)."""
    target = Path(path)
    models = panel.models
    records = [{k: _json_value(v) for k, v in rec.items()} for rec in models.to_dict(orient="records")]
    items = panel.items
    columns: dict[str, pa.Array] = {}
    for col in items.columns:
        columns[str(col)] = pa.array(items[col].tolist(), from_pandas=True)
    fields = [pa.field(name, arr.type) for name, arr in columns.items()]
    item_names = list(columns)
    scores = panel.scores
    score_names = [f"score:{m}" for m in range(panel.n_models)]
    for m, name in enumerate(score_names):
        # A float64 row of the C-ordered matrix: no copy. NaN stays a NaN value (never an Arrow null), so
        # the field is declared non-nullable and the writer encodes no definition levels.
        columns[name] = pa.array(scores[m], type=pa.float64())
        fields.append(pa.field(name, pa.float64(), nullable=False))
    meta = {"format": FORMAT, "models": records, "item_columns": [str(c) for c in items.columns]}
    schema = pa.schema(fields, metadata={META_KEY: json.dumps(meta).encode()})
    table = pa.Table.from_arrays(list(columns.values()), schema=schema)
    with atomic_path(target) as tmp:
        pq.write_table(
            table,
            tmp,
            compression={**dict.fromkeys(item_names, "zstd"), **dict.fromkeys(score_names, SCORE_CODEC)},
            compression_level=dict.fromkeys(item_names, 3),
            use_dictionary=item_names,
            use_byte_stream_split=score_names,
            write_statistics=item_names,
        )
    return target


def _metadata(source: Path, raw: bytes, columns: list[str]) -> dict[str, Any]:
    """The panel's ``benchsift`` metadata, checked against the file's columns: a damaged or edited file is
    one line naming it and what is wrong (issue 32), never an internal error."""
    damaged = f"{source}: damaged panel metadata"
    try:
        meta = loads_bounded(raw, f"{source}: panel metadata")
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise FormatError(f"{damaged} (not valid JSON: {exc})") from None
    if not isinstance(meta, dict):
        raise FormatError(f"{damaged} (a JSON {type(meta).__name__}, expected an object)")
    if meta.get("format") != FORMAT:
        raise FormatError(f"{source}: unsupported panel format {meta.get('format')!r}, expected {FORMAT!r}")
    models, item_columns = meta.get("models"), meta.get("item_columns")
    if not isinstance(models, list) or not all(isinstance(m, dict) and "model" in m for m in models):
        raise FormatError(f"{damaged} ('models' is not a list of model records with a 'model' field)")
    if not isinstance(item_columns, list) or not all(isinstance(c, str) for c in item_columns):
        raise FormatError(f"{damaged} ('item_columns' is not a list of column names)")
    missing = [c for c in item_columns if c not in columns]
    if missing:
        raise FormatError(f"{damaged} (item column(s) {listed(missing, 5)} are not in the file)")
    expected = [f"score:{m}" for m in range(len(models))]
    present = {c for c in columns if c.startswith("score:")}
    if present != set(expected):
        lacking = [c for c in expected if c not in present]
        extra = sorted(present - set(expected))
        raise FormatError(
            f"{damaged} ({len(models)} models in the metadata, {len(present)} score columns in the file"
            + (f"; no column {listed(lacking, 3)}" if lacking else "")
            + (f"; unlisted column(s) {listed(extra, 3)}" if extra else "")
            + ")"
        )
    return meta


def check_parquet_bounds(pf: pq.ParquetFile, source: Path) -> None:
    """Refuse the panel file ``source`` (open as ``pf``) in one line when the decoded size its footer
    declares is over :data:`PARQUET_MAX_BYTES`, or over :data:`PARQUET_RATIO_FLOOR` and
    :data:`PANEL_MAX_RATIO` times the file's size (:func:`benchsift._fileio.check_parquet_footer`; the
    numbers and why: :data:`PARQUET_RATIO_FLOOR`). Only the footer is read: nothing is decoded."""
    check_parquet_footer(
        pf,
        source,
        max_ratio=PANEL_MAX_RATIO,
        max_bytes=PARQUET_MAX_BYTES,
        floor=PARQUET_RATIO_FLOOR,
        what="a panel file",
    )


def load_panel(cls: type[Panel], path: str | Path) -> Panel:
    """Read a panel written by :func:`save_panel`.

    The score columns are read in groups straight into the panel's matrix (no Arrow table of every column
    beside it, no stacked copy), so the peak memory is about the matrix itself.
    """
    source = existing_file(path, "a panel parquet")  # (a folder: "is a directory", not "no such file")
    try:
        pf = pq.ParquetFile(source)
        schema = pf.schema_arrow
    except (pa.ArrowInvalid, OSError) as exc:
        hint = ""
        if source.suffix.lower() in (".csv", ".tsv", ".txt", ".xlsx", ".json", ".jsonl"):
            hint = "; expected a panel file: import the results first (`benchsift import long|wide|...`)"
        raise FormatError(f"{source}: not a parquet file ({' '.join(str(exc).split())}){hint}") from None
    raw = (schema.metadata or {}).get(META_KEY)
    if raw is None:
        raise FormatError(f"{source}: not a benchsift panel (no 'benchsift' metadata); import it first")
    check_parquet_bounds(pf, source)  # before a row is read: a forged footer is refused, not allocated
    meta = _metadata(source, raw, [str(n) for n in schema.names])
    models = pd.DataFrame.from_records(meta["models"])
    if models.empty:
        models = pd.DataFrame({"model": pd.Series([], dtype=object)})
    try:
        items = pf.read(columns=meta["item_columns"]).to_pandas()
        n_models = len(models)
        scores = np.empty((n_models, len(items)), dtype=np.float64)
        step = max(1, (32 << 20) // max(1, 8 * len(items)))  # about 32 MB of scores per read
        for start in range(0, n_models, step):
            names = [f"score:{m}" for m in range(start, min(n_models, start + step))]
            part = pf.read(columns=names)
            for k, name in enumerate(names):
                scores[start + k] = part.column(name).to_numpy(zero_copy_only=False)
            del part
    except (pa.ArrowInvalid, OSError) as exc:
        raise FormatError(f"{source}: not a readable panel file ({exc})") from None
    return cls._from_owned(scores, models, items)
