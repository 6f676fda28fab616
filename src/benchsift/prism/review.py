"""The human review of the built artifacts (PRISM-VLM Sec. 4): a file to edit, and applying its decisions.

:func:`export_review` writes one row per artifact with an empty ``decision``; a reviewer sets ``accept``,
``reject`` or ``fix`` (with the edited artifact) and :func:`import_review` applies the file, checking a
fix with the same validator as the generation judge's output
(:func:`benchsift.prism.build.validate_artifact`).
"""

from __future__ import annotations

import csv
import io
import json
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from benchsift._fileio import atomic_path, bounded_lines, from_spreadsheet, open_regular, spreadsheet_cell
from benchsift._jsonutil import loads_bounded
from benchsift.errors import FormatError
from benchsift.prism.build import _H_CONTEXT, Artifact, h_subtype, validate_artifact
from benchsift.prism.items import Item
from benchsift.prism.stage_io import read_jsonl, write_jsonl

__all__ = ["export_review", "import_review"]

_REVIEW_COLUMNS = ("item", "axis", "status", "error", "artifact", "decision")


def export_review(arts: Sequence[Artifact], path: str | os.PathLike[str]) -> None:
    """One row per artifact: ``item, axis, status, error, artifact, decision`` (empty).

    JSONL, or CSV when ``path`` ends in ``.csv`` (then ``artifact`` is a JSON text cell, for editing in
    a spreadsheet).
    """
    rows = [
        {
            "item": a.item,
            "axis": a.axis,
            "status": a.status,
            "error": a.error,
            "artifact": a.data,
            "decision": "",
        }
        for a in arts
    ]
    if Path(path).suffix.lower() != ".csv":
        write_jsonl(rows, path)
        return
    with atomic_path(path) as tmp:
        with open(tmp, "w", encoding="utf-8", newline="") as fh:
            w = csv.DictWriter(fh, fieldnames=_REVIEW_COLUMNS)
            w.writeheader()
            for r in rows:
                art = r["artifact"]
                cells = {**r, "error": r["error"] or "", "artifact": "" if art is None else json.dumps(art)}
                w.writerow({k: spreadsheet_cell(v) for k, v in cells.items()})


def _read_review(p: Path) -> list[tuple[str, dict[str, Any]]]:
    """The rows of a review file (JSONL or CSV) with where each stands (file and line).

    A CSV file is read as a JSONL one is (:func:`benchsift.prism.items.read_jsonl_records`): a regular file
    only, a line at a time within :data:`benchsift._fileio.MAX_LINE_BYTES`; a cell over the ``csv``
    module's field limit, a file that is not UTF-8 and an ``artifact`` cell that is not JSON (or is nested
    deeper than :data:`benchsift._jsonutil.MAX_JSON_DEPTH`) are each one line naming the file and line.
    """
    if p.suffix.lower() != ".csv":
        return [(f"{p}, line {n}", row) for n, row in enumerate(read_jsonl(p), 1)]
    out = []
    with open_regular(p, "a review file (CSV)") as raw, io.TextIOWrapper(raw, "utf-8-sig", newline="") as fh:
        reader = csv.DictReader(bounded_lines(fh, str(p), what="expected a review file of benchsift"))
        try:
            for row in reader:
                where = f"{p}, line {reader.line_num}"
                cells = {k: from_spreadsheet(v) for k, v in row.items()}
                cell = cells.get("artifact")
                cell = cell.strip() if isinstance(cell, str) else ""
                try:
                    art = loads_bounded(cell, f"{where}: column 'artifact'") if cell else None
                except FormatError:
                    raise
                except ValueError as err:
                    raise FormatError(f"{where}: column 'artifact' is not valid JSON ({err})") from err
                out.append((where, {**cells, "artifact": art}))
        except csv.Error as err:  # a cell over the csv module's field limit (131,072 characters)
            at = reader.reader.line_num  # the line being read (DictReader's own count lags on an error)
            why = f"a cell over {csv.field_size_limit():,} characters" if "field limit" in str(err) else err
            raise FormatError(f"{p}, line {at}: not a readable CSV row ({why})") from None
        except UnicodeDecodeError as err:
            at = reader.reader.line_num + 1
            raise FormatError(
                f"{p}, line {at}: not UTF-8 text; expected a UTF-8 CSV file ({err.reason})"
            ) from None
    return out


def _check_current(where: str, key: tuple[str, str], reviewed: Any, art: Artifact) -> None:
    """Refuse an ``accept`` of a row whose artifact is not the current one (audit s32 F07): the artifacts
    were rebuilt (or the row edited) since the review was exported, and an accept would stamp an artifact
    nobody saw as reviewed."""
    if reviewed == json.loads(json.dumps(art.data)):
        return
    raise FormatError(
        f"{where}: item {key[0]!r}, axis {key[1]!r}: the row's artifact is not the current one (rebuilt or "
        "edited since the review was exported); this review is stale: export the review again (--review) "
        "and review this artifact anew, or use 'fix' to keep the row's version"
    )


def import_review(
    arts: Sequence[Artifact], path: str | os.PathLike[str], items: Sequence[Item]
) -> list[Artifact]:
    """Apply a reviewed file (JSONL or CSV): ``accept`` keeps, ``reject`` drops, ``fix`` replaces.

    An ``accept`` applies only when the row's ``artifact`` is the current artifact of that item and axis; a
    row from before a rebuild (or an edited row) is refused, naming the file, line, item and axis.

    Rows with an empty decision change nothing. A fix of an ``if`` artifact must list known constraint
    ids; a fix of the other axes is checked by the same validator as J_gen's output (for ``h`` the
    context field is ``context``; for ``vis`` the A/B order is recomputed from the item's hash).
    """
    by_key = {(a.item, a.axis): Artifact(**a.to_dict()) for a in arts}
    by_item = {it.id: it for it in items}
    for where, row in _read_review(Path(path)):
        key = (str(row.get("item")), str(row.get("axis")))
        if key not in by_key:
            raise FormatError(f"{where}: no artifact for item {key[0]!r}, axis {key[1]!r}")
        decision = str(row.get("decision") or "").strip().lower()
        art = by_key[key]
        if decision == "":
            continue
        if decision == "accept":
            if art.status != "ok":
                raise FormatError(f"{where}: cannot accept an artifact with status {art.status!r}; use fix")
            _check_current(where, key, row.get("artifact"), art)
            art.review = "accepted"
        elif decision == "reject":
            art.status, art.review = "rejected", "rejected"
        elif decision == "fix":
            edited = row.get("artifact")
            if not isinstance(edited, dict):
                raise FormatError(f"{where}: decision 'fix' needs the edited 'artifact' object")
            raw = dict(edited)
            ctx = _H_CONTEXT[h_subtype(key[0])]
            if key[1] == "h":  # the review file's "context" is the sub-type's own field of J_gen's reply
                raw = {
                    "sub_type": h_subtype(key[0]),
                    "question": raw.get("question"),
                    ctx: raw.get("context"),
                }
            try:
                data = validate_artifact(key[1], raw, by_item[key[0]])
            except ValueError as err:
                why = str(err).replace(f'"{ctx}"', '"context"') if key[1] == "h" else err
                raise FormatError(f"{where}: fixed artifact is invalid: {why}") from err
            if data is None:
                art.status, art.data, art.review = "dropped", None, "fixed"
            else:
                art.status, art.data, art.error, art.review = "ok", data, None, "fixed"
        else:
            raise FormatError(f"{where}: decision must be accept, reject, fix or empty, got {decision!r}")
    return list(by_key.values())
