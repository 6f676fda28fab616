"""One call per ``benchsift import FORMAT``: read result files, write the panel file (and the logged answers).

:func:`import_files` reads ``inputs`` with the importer of ``fmt`` (:mod:`benchsift.io.registry`), writes
the panel with :meth:`benchsift.panel.Panel.save` (atomic: nothing is written when an input is bad) and,
with ``answers_out``, the models' logged answers as one long table (for DISCO, ``validate --answers``).
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd

from benchsift._fileio import atomic_path
from benchsift._jsonutil import to_jsonable
from benchsift._params import Check, Options, validate_params
from benchsift.errors import InputError, warn_each
from benchsift.io.long import read_models_table
from benchsift.io.notes import WARNING, warning_lines
from benchsift.io.registry import import_panel
from benchsift.io.rescale import RESCALE_MODES, ScaleMap
from benchsift.io.side_files import match_models_table, side_file_warnings
from benchsift.panel import Panel
from benchsift.results import Result

__all__ = ["WARNING", "ImportResult", "import_files"]


PathLike = str | os.PathLike[str]


@dataclass(frozen=True, repr=False)
class ImportResult(Result):
    """What :func:`import_files` read and wrote: the panel, the importer's notes (``warnings`` are those
    starting with ``warning: ``, without the prefix) and the logged answers (``None`` unless asked for)."""

    format: str
    output: Path
    panel: Panel
    notes: list[str] = field(default_factory=list)
    answers: pd.DataFrame | None = field(default=None, repr=False)
    answers_output: Path | None = None

    @property
    def warnings(self) -> list[str]:
        return warning_lines(self.notes)

    @property
    def n_answers(self) -> int | None:
        return None if self.answers is None else int(self.answers["answer"].notna().sum())

    def to_dict(self) -> dict[str, Any]:
        """``{"output", "format", "n_models", "n_items", "answers_output", "n_answers", "notes",
        "warnings"}`` (the CLI's ``--json`` adds the panel summary of :mod:`benchsift.report`)."""
        doc: dict[str, Any] = {"output": str(self.output), "format": self.format}
        doc.update({"n_models": self.panel.n_models, "n_items": self.panel.n_items})
        if self.answers is not None:
            doc.update({"answers_output": str(self.answers_output), "n_answers": self.n_answers})
        return to_jsonable({**doc, "notes": list(self.notes), "warnings": self.warnings})

    def to_frame(self) -> pd.DataFrame:
        """Per benchmark: items and the mean of the panel's NaN-aware benchmark means."""
        means = self.panel.benchmark_means().to_frame()
        return means


@validate_params(
    {
        "rescale": [Options(RESCALE_MODES)],
        "answers_out": [
            Check(lambda p: Path(p).suffix.lower() in (".parquet", ".csv"), "a .parquet or .csv file name"),
            None,
        ],
    }
)
def import_files(
    fmt: str,
    inputs: PathLike | Sequence[PathLike],
    output: PathLike,
    *,
    rescale: str = "auto",
    scales: ScaleMap | None = None,
    answers_out: PathLike | None = None,
    **options: Any,
) -> ImportResult:
    """Read ``inputs`` with the importer of ``fmt``, write the panel file ``output`` (parquet).

    Parameters
    ----------
    fmt
        A format of :data:`benchsift.io.registry.FORMATS` (``long``, ``wide``, ``lmms-eval``, ...).
    inputs
        The input file(s) or folder(s).
    output
        The panel file to write (atomically).
    rescale, scales
        Out-of-range scores: ``auto`` (known scales and percentages), ``known`` or ``none``; ``scales``
        declares benchmarks' full scales (``{"MMStar": 100}``, ``"*"`` for all).
    answers_out
        Also write the models' logged answers (long table, ``.parquet`` or ``.csv``).
    **options
        The importer's own options (``model``, ``benchmark``, ``metric``, ``filter`` ...). With ``models``
        (a models side file) the warnings also name its rows that match no model and the panel's models
        it does not describe (:func:`benchsift.io.side_files.side_file_warnings`).
    """
    out_answers = Path(answers_out) if answers_out is not None else None
    notes: list[str] = []
    answers: list[pd.DataFrame] | None = [] if out_answers is not None else None
    paths = [inputs] if isinstance(inputs, str | os.PathLike) else list(inputs)
    panel = import_panel(
        fmt,
        paths,
        rescale=rescale,
        scales=dict(scales) if scales else None,
        notes=notes,
        answers=answers,
        **options,
    )
    if options.get("models") is not None:
        side = Path(options["models"])
        match = match_models_table(panel, read_models_table(side))
        notes += [WARNING + w for w in side_file_warnings(panel, match, str(side))]
    table = None
    if out_answers is not None:
        if not answers:
            raise InputError(f"`answers_out`: these {fmt} files log no model answers")
        table = pd.concat(answers, ignore_index=True)
    panel.save(Path(output))
    if table is not None and out_answers is not None:
        with atomic_path(out_answers) as tmp:
            if out_answers.suffix.lower() == ".parquet":
                table.to_parquet(tmp, index=False)
            else:
                table.to_csv(tmp, index=False)
    result = ImportResult(fmt, Path(output), panel, notes, table, out_answers)
    warn_each(result.warnings, "import_files")  # a notebook shows them (the CLI prints them once)
    return result
