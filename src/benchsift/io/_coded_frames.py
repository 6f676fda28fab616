"""The sample importers' long tables: each file's long frame coded as soon as it is read, then one panel.

The importers of per-sample logs (``lm-eval``, ``lmms-eval``, ``inspect``, ``vlmevalkit``, ``lighteval``,
``eee``, ``helm``) read one file at a time into a small long DataFrame with the columns of
:mod:`benchsift.io._common` (``model, condition, benchmark, item, score, category, _file, _row, _answer`` and,
for VLMEvalKit, item metadata columns). Concatenating those frames would keep every sample's Python strings
(ids, ``"line 17"`` labels, answers): about 400 bytes per kept sample. :func:`read_sample_panel` instead hands
each frame, right after its file is read, to a :class:`FrameCoder`, which converts each column to pyarrow and
codes it with the ``long`` reader's column coder (:class:`benchsift.panel.long._columns.Column`): int32 codes
into the distinct values seen so far (held once), the float64 scores and each row's number (``"line 17"`` is
the prefix ``"line "``, once per file, and the number 17); the frame and the file's records are then released.
The one builder, :func:`benchsift.panel.long._coded.assemble_coded`, makes the panel from the codes, with the
metadata rule of :meth:`benchsift.panel.Panel.from_long`
(:func:`benchsift.panel.long._coded_meta.panel_roles`). Ids and categories that are not text (an Excel sheet's
numbers) are their text (``7``; ``3.0`` is ``3``); a missing id is an error naming its file and row. When
answers are not asked for, an answer is kept as whether it is there (for the "not kept" note), not as its
text.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa

from benchsift.errors import InputError
from benchsift.io._coded import rescaler
from benchsift.io._common import ANSWER_COL, FILE_COL, KEY, ROW_COL, source_label
from benchsift.io._rows import row_label, row_name
from benchsift.io._walk import walk_inputs
from benchsift.io.rescale import RescaleMode, ScaleMap
from benchsift.panel import Panel
from benchsift.panel.long import (
    IDS,
    PREDICTION,
    Coded,
    CodedLong,
    Column,
    Extra,
    arrow_column,
    assemble_coded,
    is_text,
    long_keys,
    split_metadata,
)

FIXED = frozenset({*KEY, "score", "category", FILE_COL, ROW_COL, ANSWER_COL})
_PREFIX = re.compile(r"(.*?)[0-9]*")
_NUMBER = r"0|[1-9][0-9]*"


def _texts(values: pd.Series) -> bool:
    return pd.api.types.infer_dtype(values, skipna=True) in ("string", "empty")


def _row_numbers(rows: pd.Series) -> tuple[np.ndarray, str | list[str] | None]:
    """Each ``_row`` value as a number and how the file's rows are named from it (``CodedLong.where``):
    a data-row index (None), a shared prefix and a decimal number, else the labels themselves."""
    if pd.api.types.is_integer_dtype(rows.dtype):
        return rows.to_numpy(dtype=np.int64), None
    if len(rows) and _texts(rows) and not rows.isna().any():
        first = _PREFIX.fullmatch(str(rows.iloc[0]))
        prefix = first.group(1) if first is not None else ""
        rest = rows.str.removeprefix(prefix)
        if bool(rows.str.startswith(prefix).all()) and bool(rest.str.fullmatch(_NUMBER).all()):
            return rest.astype(np.int64).to_numpy(), prefix
    return np.arange(len(rows), dtype=np.int64), [str(r) for r in rows]


class FrameCoder:
    """Collects the long frames of the files of one import as codes (module docstring).

    ``keep_answers=False``: the ``_answer`` column is kept as presence only (code 0, the one value
    :data:`~benchsift.panel.long._coded.ANSWER_PRESENT`, where
    :func:`~benchsift.panel.long._coded_meta.answer_labels` gives a label), as the ``long`` reader does when
    the answers are only counted.
    """

    def __init__(self, keep_answers: bool) -> None:
        self.ids = {name: Column(0, "text") for name in (*IDS, "condition", "category")}
        self.extras: dict[str, tuple[Column, pa.Field | None]] = {}
        self.answers = Column(0, "answer" if keep_answers else "presence")
        self.has_answers = False
        self.scores: list[np.ndarray] = []
        self.numbers: list[np.ndarray] = []
        self.formats: list[str | list[str] | None] = []
        self.files: list[str] = []
        self.sizes: list[int] = []
        self.dtypes: dict[str, set[Any]] = {c: set() for c in KEY}

    def add(self, frame: pd.DataFrame) -> None:
        """Code one file's long frame (one file: its ``_file`` is the same in every row)."""
        n = len(frame)
        file = str(frame[FILE_COL].iloc[0]) if n else ""
        numbers, fmt = _row_numbers(frame[ROW_COL])
        if len(numbers) and 0 <= numbers.min() and numbers.max() < np.iinfo(np.int32).max:
            numbers = numbers.astype(np.int32)  # 4 bytes per row (a part in int64 makes the whole int64)
        for name in (*IDS, "condition"):
            missing = frame[name].isna().to_numpy()
            if missing.any():
                i = int(np.flatnonzero(missing)[0])
                raise InputError(f"{file}, {row_label(file, frame[ROW_COL].iloc[i])}: empty {name}")
            self.ids[name].add(arrow_column(frame[name]))
        if "category" in frame.columns:
            self.ids["category"].add(arrow_column(frame["category"]))
        else:
            self.ids["category"].pad(n)
        before = sum(self.sizes)
        extras = [c for c in frame.columns if c not in FIXED]
        for c in extras:
            arr = arrow_column(frame[c])
            if c not in self.extras:
                text = is_text(arr.type)
                self.extras[c] = (
                    Column(0, "text" if text else "value"),
                    None if text else pa.field(c, arr.type),
                )
                self.extras[c][0].pad(before)
            self.extras[c][0].add(arr)
        for c, (column, _) in self.extras.items():
            if c not in extras:
                column.pad(n)
        if ANSWER_COL in frame.columns:
            self.answers.add(arrow_column(frame[ANSWER_COL]))
            self.has_answers = True
        else:
            self.answers.pad(n)
        self.scores.append(frame["score"].to_numpy(dtype=np.float64))
        self.numbers.append(numbers)
        self.formats.append(fmt)
        self.files.append(file)
        self.sizes.append(n)
        for c in KEY:
            self.dtypes[c].add(frame[c].dtype)

    def result(self) -> CodedLong:
        """The coded long table of the frames added, in order (consumes the coder)."""
        sizes = np.asarray(self.sizes, dtype=np.int64)
        numbers = np.concatenate(self.numbers) if self.numbers else np.empty(0, dtype=np.int32)
        self.numbers = []
        ids: dict[str, Coded] = {name: column.coded() for name, column in self.ids.items()}
        extras: list[Extra] = [column.extra(name, fld, None) for name, (column, fld) in self.extras.items()]
        if self.has_answers:
            extras.append(self.answers.extra(PREDICTION, None, None))
        score = np.concatenate(self.scores) if self.scores else np.empty(0)
        self.scores = []
        # the dtypes pandas.concat gives the id columns: one dtype when all frames agree, else object
        dtypes = {c: next(iter(d)) if len(d) == 1 else np.dtype(object) for c, d in self.dtypes.items()}
        return CodedLong(
            model=ids["model"],
            benchmark=ids["benchmark"],
            item=ids["item"],
            condition=ids["condition"],
            category=ids["category"],
            score=score,
            files=self.files,
            starts=np.concatenate([[0], np.cumsum(sizes)[:-1]]).astype(np.int64),
            extras=extras,
            row_numbers=numbers,
            row_formats=self.formats,
            id_dtypes=dtypes,
            label=row_name,
        )


def read_sample_panel(
    given: Sequence[Path],
    patterns: Sequence[str],
    read: Callable[[Path, list[str] | None, Path], pd.DataFrame | None],
    *,
    what: str,
    rescale: RescaleMode,
    scales: ScaleMap | None,
    notes: list[str] | None,
    answers: list[pd.DataFrame] | None,
) -> Panel:
    """The panel of the files given and found (:func:`~benchsift.io._walk.walk_inputs` with ``patterns``),
    each read by ``read(path, notes, root)`` into its long frame (``root``: the folder it may read other
    files in, :func:`~benchsift.io._walk.side_file`) and coded file by file (module docstring)."""
    coder = FrameCoder(keep_answers=answers is not None)

    def code(path: Path, file_notes: list[str] | None, root: Path) -> Path | None:
        frame = read(path, file_notes, root)
        if frame is None:
            return None
        coder.add(frame)
        return path

    _, files = walk_inputs(given, patterns, code, notes=notes, what=what)
    coded = coder.result()  # the coder's buffers are handed over, not copied
    keys = long_keys(coded)
    split_metadata(coded, keys, notes, panel_rule=True)
    return assemble_coded(
        coded,
        source=source_label(files),
        keys=keys,
        rescale=rescaler(rescale, scales, notes),
        notes=notes,
        answers=answers,
    )
