"""Stage 0, data cleaning: the all-correct filter and the blind-solvability filter (PRIMEBench section 4.1).

Two populations of items are removed from the pool before any compression decision:

* **all-correct** items: every image-condition model solves the item, :math:`x_{m,i} = 1` for all
  :math:`m \\in \\mathcal M`. Such an item adds the same score to every model and cannot change a ranking.
* **blind-solvable** items: :math:`\\beta_i \\ge \\tau` with :math:`\\beta_i` the mean scaled score of the
  text-only (image-free) runs on the item, :math:`\\tau = 2/3` by default (PRIMEBench section 4.1, following
  MMStar). On continuous or judge scores both filters use the scores scaled to [0, 1].

All-wrong items (every scored image model scores 0) are kept: later models may solve them.

Missing scores (decided here, documented for users):

* The all-correct filter reads only the *scored* image-condition cells: an item is all-correct when at least
  one image model is scored on it and every scored image model has score 1 (within ``1e-9``). A missing cell
  is "not evaluated", never "wrong" and never "right". An item no image model scored is kept and counted as
  ``unscored``.
* :math:`\\beta_i` is the NaN-aware mean over the text-only runs that scored item ``i``. An item without any
  text-only score (or a panel without text-only runs) is never blind-filtered; it is counted as
  ``no_text_only``.
* ``beta >= tau`` is decided with a ``1e-9`` tolerance so that ``tau = 2/3`` removes an item two of three
  blind runs solve (``2/3`` in floating point).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from numbers import Real

import numpy as np
import pandas as pd

from benchsift._params import Interval, validate_params
from benchsift.panel import Panel

__all__ = ["Stage0Result", "stage0_clean"]

#: Tolerance for "score equals 1" and for ``beta >= tau`` on floating-point scaled scores.
TOLERANCE = 1e-9

COUNT_COLUMNS = (
    "benchmark",
    "n_items",
    "all_correct",
    "blind_solvable",
    "both",
    "removed",
    "kept",
    "all_wrong_kept",
    "unscored",
    "no_text_only",
)


@dataclass(frozen=True)
class Stage0Result:
    """Outcome of :func:`stage0_clean`.

    Attributes
    ----------
    panel:
        The cleaned pool: the image-condition model rows and the kept items (the input of Stage 1).
    kept, all_correct, blind_solvable, all_wrong:
        Boolean masks over the *input* panel's items.
    beta:
        ``(n_items,)`` blind-solvability :math:`\\beta_i` (NaN when no text-only run scored the item).
    tau:
        The threshold used.
    counts:
        One row per benchmark (columns :data:`COUNT_COLUMNS`), in panel order.
    notes:
        Human-readable remarks.
    warnings:
        What did not run as asked: the blind-solvability filter skipped (no text-only runs) or applied to
        only the items a text-only run scored.
    """

    panel: Panel
    kept: np.ndarray
    all_correct: np.ndarray
    blind_solvable: np.ndarray
    all_wrong: np.ndarray
    beta: np.ndarray
    tau: float
    counts: pd.DataFrame
    notes: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)

    @property
    def n_in(self) -> int:
        return int(self.kept.size)

    @property
    def n_out(self) -> int:
        return int(self.kept.sum())

    @property
    def kept_positions(self) -> np.ndarray:
        """Positions of the kept items in the input panel."""
        return np.flatnonzero(self.kept)

    def totals(self) -> dict[str, int]:
        """Counts summed over benchmarks (same keys as the ``counts`` columns, without ``benchmark``)."""
        return {c: int(self.counts[c].sum()) for c in COUNT_COLUMNS[1:]}


@validate_params({"tau": [Interval(Real, 0, 1, closed="right")]})
def stage0_clean(panel: Panel, tau: float = 2.0 / 3.0) -> Stage0Result:
    """Stage 0 of PRIMEBench (section 4.1): drop all-correct and blind-solvable items.

    Parameters
    ----------
    panel:
        A panel with image-condition runs and, optionally, text-only runs (``condition == "text-only"``).
    tau:
        Blind-solvability threshold; an item is removed when :math:`\\beta_i \\ge \\tau` with
        :math:`\\beta_i = \\operatorname{mean}_{m \\in \\text{text-only}} x_{m,i}` (NaN-aware).

    Returns
    -------
    Stage0Result
        The cleaned image-condition pool, the masks, :math:`\\beta` and the per-benchmark counts. See
        the module docstring for how missing cells count.
    """
    Panel.check(panel, "stage0_clean", image=True)
    t = float(tau)
    image_rows = panel.image_rows
    text_rows = panel.text_only_rows
    notes: list[str] = []
    warnings: list[str] = []
    scores = panel.scores

    img = scores[image_rows]
    img_obs = ~np.isnan(img)
    n_scored = img_obs.sum(axis=0)
    with np.errstate(invalid="ignore"):
        n_one = (img >= 1.0 - TOLERANCE).sum(axis=0)
        n_zero = (img <= TOLERANCE).sum(axis=0)
    scored = n_scored > 0
    all_correct = scored & (n_one == n_scored)
    all_wrong = scored & (n_zero == n_scored)

    if text_rows.any():
        txt = scores[text_rows]
        txt_obs = ~np.isnan(txt)
        n_txt = txt_obs.sum(axis=0)
        sums = np.where(txt_obs, txt, 0.0).sum(axis=0)
        beta = np.full(panel.n_items, np.nan)
        np.divide(sums, n_txt, out=beta, where=n_txt > 0)
        has_text = n_txt > 0
        blind = has_text & (beta >= t - TOLERANCE)
    else:
        beta = np.full(panel.n_items, np.nan)
        has_text = np.zeros(panel.n_items, dtype=bool)
        blind = np.zeros(panel.n_items, dtype=bool)
        warnings.append(
            "no text-only runs in the panel: the blind-solvability filter was skipped (it drops the items "
            "runs without the images answer; a text benchmark has none to drop)"
        )
    if text_rows.any() and not has_text.all():
        warnings.append(
            f"{int((~has_text).sum())} item(s) have no text-only score and were not blind-filtered"
        )
    if not scored.all():
        notes.append(f"{int((~scored).sum())} item(s) have no image-condition score; kept")

    kept = ~(all_correct | blind)
    bench = panel.items["benchmark"].to_numpy(dtype=object)
    frame = pd.DataFrame(
        {
            "benchmark": bench,
            "n_items": 1,
            "all_correct": all_correct,
            "blind_solvable": blind,
            "both": all_correct & blind,
            "removed": ~kept,
            "kept": kept,
            "all_wrong_kept": all_wrong & kept,
            "unscored": ~scored,
            "no_text_only": ~has_text,
        }
    )
    counts = (
        frame.groupby("benchmark", sort=False).sum().astype(np.int64).reindex(panel.benchmarks).reset_index()
    )
    counts = counts[list(COUNT_COLUMNS)]
    clean = panel.subset(models=image_rows, items=kept)
    return Stage0Result(
        panel=clean,
        kept=kept,
        all_correct=all_correct,
        blind_solvable=blind,
        all_wrong=all_wrong,
        beta=beta,
        tau=t,
        counts=counts,
        notes=notes,
        warnings=warnings,
    )
