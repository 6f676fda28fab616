"""The sample importers' lean path: each file's long table coded as soon as it is read, then one panel.

The importers of per-sample logs (``lm-eval``, ``lmms-eval``, ``inspect``, ``vlmevalkit``, ``lighteval``,
``eee``) read one file at a time into a small long DataFrame with the columns of
:mod:`benchsift.io._common` (``model, condition, benchmark, item, score, category, _file, _row, _answer``
and, for VLMEvalKit, item metadata columns). Concatenating those frames keeps every sample's Python
strings (ids, ``"line 17"`` labels, answers): about 400 bytes per kept sample. :func:`read_sample_panel`
instead hands each frame, right after its file is read, to a :class:`FrameCoder`, which keeps of it only
int32 codes into the distinct values seen so far (held once, in one dict per column), the float64 scores
and each row's number (``"line 17"`` is the prefix ``"line "``, once per file, and the number 17); the
frame and the file's records are then released. :func:`benchsift.io._coded.assemble_coded` makes the
panel from the codes, with the notes, warnings and error messages of
:func:`benchsift.io._common.assemble_panel` on the concatenated frames (the general path), and the same
metadata rule (:func:`benchsift.io._coded_meta.panel_roles`). When answers are not asked for, an answer is
kept as whether it is there (for the "not kept" note), not as its text.

A frame the coder does not take (an id or category that is not text, a metadata column that is not a text
column, an id missing) switches the whole import to the general path, which reads the files again and
names any offending cell; :func:`general_path` forces that path (the reference the lean one is tested
against).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from benchsift.io._coded import (
    ANSWER_PRESENT,
    IDS,
    Coded,
    CodedLong,
    assemble_coded,
    long_keys,
    split_metadata,
)
from benchsift.io._coded_meta import PREDICTION, Extra, remap, text_dtype
from benchsift.io._common import (
    ANSWER_COL,
    FILE_COL,
    KEY,
    ROW_COL,
    answer_labels,
    assemble_panel,
    source_label,
)
from benchsift.io._walk import walk_inputs
from benchsift.io.rescale import RescaleMode, ScaleMap
from benchsift.panel import Panel

_LEAN: ContextVar[bool] = ContextVar("benchsift_lean_samples", default=True)
FIXED = frozenset({*KEY, "score", "category", FILE_COL, ROW_COL, ANSWER_COL})
_PREFIX = re.compile(r"(.*?)[0-9]*")
_NUMBER = r"0|[1-9][0-9]*"


@contextmanager
def general_path() -> Iterator[None]:
    """Within this block the sample importers take the general path (pandas long table and
    :func:`~benchsift.io._common.assemble_panel`)."""
    token = _LEAN.set(False)
    try:
        yield
    finally:
        _LEAN.reset(token)


class _Uncodable(Exception):
    """A frame the lean path does not take (the import then takes the general path)."""


def _texts(values: pd.Series) -> bool:
    return pd.api.types.infer_dtype(values, skipna=True) in ("string", "empty")


def _row_numbers(rows: pd.Series) -> tuple[np.ndarray, str | list[str] | None]:
    """Each ``_row`` value as a number and how the file's rows are named from it (``CodedLong.where``):
    a data-row index (None), a shared prefix and a decimal number, else the labels themselves."""
    if pd.api.types.is_integer_dtype(rows.dtype):
        return rows.to_numpy(dtype=np.int64), None
    if not _texts(rows) or rows.isna().any():
        raise _Uncodable
    if len(rows):
        first = _PREFIX.fullmatch(str(rows.iloc[0]))
        prefix = first.group(1) if first is not None else ""
        rest = rows.str.removeprefix(prefix)
        if bool(rows.str.startswith(prefix).all()) and bool(rest.str.fullmatch(_NUMBER).all()):
            return rest.astype(np.int64).to_numpy(), prefix
    return np.arange(len(rows), dtype=np.int64), [str(r) for r in rows]


class _Gathered:
    """One column gathered file by file: the union of its values (each once, in order of first
    appearance) and each file's codes into it (-1 = missing)."""

    def __init__(self, index: dict[Any, int] | None = None) -> None:
        self.index: dict[Any, int] = {} if index is None else index
        self.parts: list[np.ndarray] = []

    def add(self, values: pd.Series) -> None:
        codes, uniques = pd.factorize(values)
        self.parts.append(remap(self.index, list(uniques), codes.astype(np.int32)))

    def pad(self, n: int) -> None:
        """``n`` rows without this column (missing)."""
        if n:
            self.parts.append(np.full(n, -1, dtype=np.int32))

    def codes(self) -> np.ndarray:
        out = np.concatenate(self.parts) if self.parts else np.empty(0, dtype=np.int32)
        self.parts = []
        return out

    def extra(self, name: str) -> Extra:
        codes = self.codes()
        return Extra(name, codes, list(self.index), bool((codes < 0).any()))


class FrameCoder:
    """Collects the long frames of the files of one import as codes (module docstring).

    ``keep_answers=False``: the ``_answer`` column is kept as presence only (code 0, the one value
    :data:`~benchsift.io._coded.ANSWER_PRESENT`, where :func:`~benchsift.io._common.answer_labels` gives
    a label), as the ``long`` reader does when the answers are only counted.
    """

    def __init__(self, keep_answers: bool) -> None:
        self.keep_answers = keep_answers
        self.ids = {name: _Gathered() for name in (*IDS, "condition", "category")}
        self.extras: dict[str, _Gathered] = {}
        self.answers = _Gathered(None if keep_answers else {ANSWER_PRESENT: 0})
        self.has_answers = False
        self.scores: list[np.ndarray] = []
        self.numbers: list[np.ndarray] = []
        self.formats: list[str | list[str] | None] = []
        self.files: list[str] = []
        self.sizes: list[int] = []
        self.dtypes: dict[str, set[Any]] = {c: set() for c in KEY}

    def add(self, frame: pd.DataFrame) -> None:
        """Code one file's long frame; raises ``_Uncodable`` for a frame the lean path does not take."""
        n = len(frame)
        files = frame[FILE_COL].unique() if FILE_COL in frame.columns else []
        extras = [c for c in frame.columns if c not in FIXED]
        if (n and len(files) != 1) or any(frame[c].dtype != text_dtype() for c in extras):
            raise _Uncodable
        numbers, fmt = _row_numbers(frame[ROW_COL])
        if len(numbers) and 0 <= numbers.min() and numbers.max() < np.iinfo(np.int32).max:
            numbers = numbers.astype(np.int32)  # 4 bytes per row (a part in int64 makes the whole int64)
        for name in (*IDS, "condition"):
            if not _texts(frame[name]) or frame[name].isna().any():
                raise _Uncodable
        if "category" in frame.columns and not _texts(frame["category"]):
            raise _Uncodable
        if ANSWER_COL in frame.columns and not _texts(frame[ANSWER_COL]):
            raise _Uncodable
        for name in (*IDS, "condition"):
            self.ids[name].add(frame[name])
        if "category" in frame.columns:
            self.ids["category"].add(frame["category"])
        else:
            self.ids["category"].pad(n)
        before = sum(self.sizes)
        for c in extras:
            if c not in self.extras:
                self.extras[c] = _Gathered()
                self.extras[c].pad(before)
            self.extras[c].add(frame[c])
        for c, gathered in self.extras.items():
            if c not in extras:
                gathered.pad(n)
        if ANSWER_COL not in frame.columns:
            self.answers.pad(n)
        elif self.keep_answers:
            self.answers.add(frame[ANSWER_COL])
        else:
            present = answer_labels(frame[ANSWER_COL]).notna().to_numpy()
            self.answers.parts.append(np.where(present, 0, -1).astype(np.int32))
        self.has_answers = self.has_answers or ANSWER_COL in frame.columns
        self.scores.append(frame["score"].to_numpy(dtype=np.float64))
        self.numbers.append(numbers)
        self.formats.append(fmt)
        self.files.append(str(files[0]) if n else "")
        self.sizes.append(n)
        for c in KEY:
            self.dtypes[c].add(frame[c].dtype)

    def result(self) -> CodedLong:
        """The coded long table of the frames added, in order (consumes the coder)."""
        sizes = np.asarray(self.sizes, dtype=np.int64)
        numbers = np.concatenate(self.numbers) if self.numbers else np.empty(0, dtype=np.int32)
        self.numbers = []
        ids = {name: Coded(g.codes(), [str(v) for v in g.index]) for name, g in self.ids.items()}
        extras = [g.extra(name) for name, g in self.extras.items()]
        if self.has_answers:
            extras.append(self.answers.extra(PREDICTION))
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
            has_condition=True,
            has_category=True,
            extras=extras,
            row_numbers=numbers,
            row_formats=self.formats,
            id_dtypes=dtypes,
        )


def read_sample_panel(
    given: Sequence[Path],
    patterns: Sequence[str],
    read: Callable[[Path, list[str] | None], pd.DataFrame | None],
    *,
    what: str,
    rescale: RescaleMode,
    scales: ScaleMap | None,
    notes: list[str] | None,
    answers: list[pd.DataFrame] | None,
) -> Panel:
    """The panel of the files given and found (:func:`~benchsift.io._walk.walk_inputs` with ``patterns``),
    each read by ``read(path, notes)`` into its long frame: coded file by file (module docstring), or, on
    the general path, concatenated and assembled by :func:`~benchsift.io._common.assemble_panel`."""
    if _LEAN.get():
        start = len(notes) if notes is not None else 0
        coder = FrameCoder(keep_answers=answers is not None)

        def code(path: Path, file_notes: list[str] | None) -> Path | None:
            frame = read(path, file_notes)
            if frame is None:
                return None
            coder.add(frame)
            return path

        try:
            _, files = walk_inputs(given, patterns, code, notes=notes, what=what)
        except _Uncodable:
            del coder  # its codes of the files before: not held while the general path reads them all
            if notes is not None:
                del notes[start:]  # the general path reads the files again and says it all again
        else:
            coded = coder.result()
            del coder
            keys = long_keys(coded)
            split_metadata(coded, keys, notes, panel_rule=True)
            return assemble_coded(
                coded,
                source=source_label(files),
                keys=keys,
                rescale=rescale,
                scales=scales,
                notes=notes,
                answers=answers,
            )
    parts, files = walk_inputs(given, patterns, read, notes=notes, what=what)
    long = pd.concat(parts, ignore_index=True) if len(parts) > 1 else parts[0]
    del parts
    return assemble_panel(
        long, source=source_label(files), rescale=rescale, scales=scales, notes=notes, answers=answers
    )
