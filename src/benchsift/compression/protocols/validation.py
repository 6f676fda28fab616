"""One call for every held-out validation protocol: :func:`validate` (``benchsift validate``).

:func:`validate` runs the protocol named by ``protocol`` (PRIMEBench D.3, H.2): ``random`` (20 random
balanced splits, Tables 9-11) or ``chronological`` (release-date split and its sensitivity splits) through
:func:`~benchsift.compression.protocols.stage2_heldout`, ``end-to-end`` (Stages 1-3 refit per split, Table
12) through :func:`~benchsift.compression.protocols.end_to_end`, ``same-model`` (per benchmark, Table 17)
through :func:`~benchsift.compression.protocols.same_model`. With ``chronological_column`` the random
protocol also runs, like PRIMEBench Tables 10 and 11, the chronological split at the retention closest to
5 % when the panel has release dates (one extra split).
"""

from __future__ import annotations

import os
import warnings as _warnings
from collections.abc import Sequence
from dataclasses import dataclass, field
from numbers import Integral
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from benchsift._inputs import check_choice
from benchsift._jsonutil import to_jsonable
from benchsift._params import Check, Interval, check_param, renamed_params
from benchsift.compression.pipeline import DEFAULT_FLOOR
from benchsift.compression.protocols.end_to_end import EndToEndResult, end_to_end
from benchsift.compression.protocols.same_model import SameModelResult, same_model
from benchsift.compression.protocols.specs import DEFAULT_RETENTIONS, DEFAULT_SELECTORS
from benchsift.compression.protocols.stage2_heldout import HeldoutResult, stage2_heldout
from benchsift.errors import FloorWarning, InputError
from benchsift.panel import Panel
from benchsift.progress import ProgressFn
from benchsift.results import Result

if TYPE_CHECKING:
    from benchsift.compression.embeddings import ItemEmbeddings

__all__ = ["PROTOCOLS", "ValidationReport", "check_options", "closest_retention", "validate"]

PROTOCOLS = ("random", "chronological", "end-to-end", "same-model")
#: workers: a positive number, -1 for all cores, None for the default
_N_JOBS = [
    Interval(Integral, 1, None),
    Check(lambda n: n == -1 and not isinstance(n, bool), "-1 (all cores)"),
    None,
]

PathLike = str | os.PathLike[str]


def closest_retention(values: Sequence[float], target: float = 0.05) -> float:
    """The retention of ``values`` closest to ``target`` (the smaller one on a tie)."""
    return min(values, key=lambda r: (abs(r - target), r))


@dataclass(frozen=True, repr=False)
class ValidationReport(Result):
    """What :func:`validate` computed.

    ``result`` is the protocol's own result (:class:`HeldoutResult`, :class:`EndToEndResult` or
    :class:`SameModelResult`); ``chronological`` the macro rho of the main chronological split per
    selector (the random protocol's extra column of Tables 10-11, ``None`` when not asked for or when the
    panel has no release dates; ``attrs`` ``split`` and ``retention``, and in :meth:`to_dict` the key
    ``chronological``: ``{"split", "retention", "rho_macro": {selector: rho}}``); ``notes`` the protocol's
    notes and those of the logged answers.
    """

    protocol: str
    result: HeldoutResult | EndToEndResult | SameModelResult
    chronological: pd.Series | None = field(default=None, repr=False)
    notes: tuple[str, ...] = ()
    warnings: tuple[str, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        """The ``--json`` object of ``benchsift validate``: the protocol's ``to_dict()`` with ``warnings``
        (the protocol's and the chronological column's) and the logged answers' notes appended."""
        out = self.result.to_dict()
        merged = [str(w) for w in out.get("warnings") or []]
        merged += [w for w in self.warnings if w not in merged]
        out["warnings"] = merged
        extra = list(self.notes[len(self.result.notes) :])  # the logged answers' notes
        if extra:
            out["notes"] = [*out.get("notes", []), *extra]
        if self.chronological is not None:  # the column the tables show beside the random splits
            col = self.chronological
            out["chronological"] = {
                "split": col.attrs["split"],
                "retention": col.attrs["retention"],
                "rho_macro": dict(zip(map(str, col.index), col.to_numpy(dtype=float), strict=True)),
            }
        return to_jsonable(out)

    def to_frame(self) -> pd.DataFrame:
        """One row per (selector, retention): the protocol's summary."""
        return self.result.summary()


def _chronological_column(
    panel: Panel, retention: float, **options: Any
) -> tuple[pd.Series | None, tuple[str, ...]]:
    """Macro rho of the main chronological split at ``retention`` per selector (PRIMEBench Tables 10-11,
    last column), or None when the panel cannot be split by release date; and that run's warnings."""
    models = panel.models[panel.image_rows]
    if models["release_date"].notna().sum() < 2:
        return None, ()
    try:
        res = stage2_heldout(panel, retentions=[retention], protocol="chronological", **options)
    except InputError:
        return None, ()
    main = res.splits[0]
    column = pd.Series(res.macro[0, :, 0], index=res.selectors, name=f"{main.name} r={100 * retention:g}%")
    column.attrs.update(split=main.name, retention=float(retention))
    return column, res.warnings


def check_options(protocol: str, n_jobs: int | None = None) -> None:
    """Refuse an unknown ``protocol`` or an ``n_jobs`` that is neither positive nor -1 (before any work)."""
    check_param("n_jobs", n_jobs, _N_JOBS)
    check_choice("`protocol`", protocol, PROTOCOLS)


def _logged_answers(
    answers: PathLike | None, panel: Panel, column: str
) -> tuple[np.ndarray | None, tuple[str, ...]]:
    """The logged answers' matrix for DISCO (None without a file) and the reader's notes."""
    if answers is None:
        return None, ()
    from benchsift.io.answers import read_answers

    logged = read_answers(answers, panel, column=column)
    return logged.values, tuple(logged.notes)


@renamed_params({"seed": "random_state"}, until="0.3")
def validate(
    panel: Panel,
    *,
    protocol: str = "random",
    selectors: Sequence[str] = DEFAULT_SELECTORS,
    retentions: Sequence[float] = DEFAULT_RETENTIONS,
    splits: int = 20,
    random_state: int = 0,
    n_jobs: int | None = None,
    k: int = 5,
    floor: int = DEFAULT_FLOOR,
    min_heldout: int = 10,
    scoring: str = "mean",
    embeddings: ItemEmbeddings | None = None,
    answers: PathLike | None = None,
    answer_column: str = "answer",
    chronological_column: bool = False,
    progress: ProgressFn | None = None,
) -> ValidationReport:
    """Validate Stage 2 selectors on held-out models (PRIMEBench D.3, H.2).

    Parameters
    ----------
    panel
        The panel (its image-condition models are split).
    protocol
        ``random``, ``chronological``, ``end-to-end`` or ``same-model`` (module docstring).
    selectors, retentions
        The selectors compared and the retentions r; every selector keeps the same category budget
        ``K_C = max(floor(r N_C), min(N_C, floor))`` (same-model: ``round(r N_b)``, no floor, H.2).
    splits, random_state
        Number of random splits; seed of the splits and of every selection (``random_state`` was
        ``seed``, accepted until 0.3).
    n_jobs
        Concurrent tasks (see :func:`benchsift.parallel.sweep_backend`).
    k
        End-to-end: Stage 3 category count.
    floor
        Item floor of the category budget. Where the default floor keeps more items than a retention asks
        (or gives several retentions the same budget, so that their columns are the same selection), that
        is said in ``warnings`` and as a :class:`~benchsift.errors.FloorWarning` (a notebook shows it); a
        floor the caller set is a choice, said in ``warnings`` only (as ``compress`` does).
    min_heldout
        Held-out models (same-model: models) needed for a defined rho.
    scoring
        ``mean`` (D.3), ``weighted`` (selector weights_) or ``selector`` (its ``estimate()``).
    embeddings
        Item embeddings for the selectors that use them.
    answers, answer_column
        Logged model answers (long table: model, benchmark, item, answer; :mod:`benchsift.io.answers`) for
        DISCO's prediction disagreement; without them DISCO counts distinct scores.
    chronological_column
        Random protocol: also the chronological split at the retention closest to 5 % (Tables 10-11).
    progress
        ``progress(done, total)``, passed to the protocol (:mod:`benchsift.progress`); None: silent.
    """
    check_options(protocol, n_jobs)
    # one selector or retention may be given bare (a str was split into letters: "unknown selector 'r'")
    sels = [selectors] if isinstance(selectors, str) else list(selectors)
    rets = [float(r) for r in ([retentions] if isinstance(retentions, int | float) else retentions)]
    predictions, answer_notes = _logged_answers(answers, panel, answer_column)
    shared = {"embeddings": embeddings, "predictions": predictions, "random_state": random_state}
    result: HeldoutResult | EndToEndResult | SameModelResult
    if protocol in ("random", "chronological"):
        result = stage2_heldout(
            panel,
            selectors=sels,
            retentions=rets,
            protocol=protocol,  # type: ignore[arg-type]
            n_splits=splits,
            floor=floor,
            min_heldout=min_heldout,
            scoring=scoring,  # type: ignore[arg-type]
            n_jobs=n_jobs,
            progress=progress,
            **shared,  # type: ignore[arg-type]
        )
    elif protocol == "end-to-end":
        result = end_to_end(
            panel,
            selectors=sels,
            retentions=rets,
            k=k,
            n_splits=splits,
            floor=floor,
            min_heldout=min_heldout,
            n_jobs=n_jobs,
            progress=progress,
            **shared,  # type: ignore[arg-type]
        )
    else:
        result = same_model(
            panel,
            selectors=sels,
            retentions=rets,
            min_models=min_heldout,
            n_jobs=n_jobs,
            progress=progress,
            **shared,  # type: ignore[arg-type]
        )
    chrono, warnings = None, list(result.warnings)
    if chronological_column and protocol == "random":
        chrono, chrono_warnings = _chronological_column(
            panel,
            closest_retention(rets),
            selectors=sels,
            floor=floor,
            min_heldout=min_heldout,
            scoring=scoring,
            **shared,
        )
        warnings += [f"{w} (the chronological column)" for w in chrono_warnings if "release date" in w]
    if int(floor) == DEFAULT_FLOOR:  # the default changed what was asked: said where a notebook shows it
        for w in warnings:
            if w.startswith("the item floor of"):
                _warnings.warn(f"validate: {w}", FloorWarning, stacklevel=2)
    return ValidationReport(protocol, result, chrono, (*result.notes, *answer_notes), tuple(warnings))
