"""Shared pieces of the redundancy analyses: metric names, the Eq. 1 / Eq. 4 averaging, JSON helpers.

The redundancy paper ("Redundancy Principles for MLLMs Benchmarks", Section 2.4 and Appendix A) measures
redundancy with three correlation metrics, SRCC, PLCC and R^2; Kendall's tau-b is offered as a fourth.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import numpy as np
import pandas as pd

from benchsift._suggest import did_you_mean
from benchsift.errors import InputError
from benchsift.panel import Panel
from benchsift.stats import METRICS, corr_matrix

METRIC_LABELS: dict[str, str] = {"srcc": "SRCC", "plcc": "PLCC", "r2": "R²", "kendall": "Kendall τ-b"}


class MatrixResultMixin:
    """Shared read-outs of the Eq. 1 / Eq. 4 results (one column of ``scores`` per label)."""

    scores: np.ndarray
    metrics: tuple[str, ...]
    matrix: dict[str, np.ndarray]
    redundancy: dict[str, np.ndarray]

    @property
    def labels(self) -> list[str]:
        """The dimensions (Eq. 1) or benchmarks (Eq. 4), in matrix order."""
        raise NotImplementedError

    @property
    def n_models(self) -> int:
        return int(self.scores.shape[0])

    def matrix_frame(self, metric: str) -> pd.DataFrame:
        """The metric's matrix as a labelled DataFrame (rows: truth for R^2)."""
        return pd.DataFrame(self.matrix[metric], index=self.labels, columns=self.labels)

    def redundancy_frame(self) -> pd.DataFrame:
        """:math:`\\rho` per label (rows) and metric (columns)."""
        return pd.DataFrame({m: self.redundancy[m] for m in self.metrics}, index=self.labels)


def parse_metrics(metrics: str | Iterable[str] | None) -> tuple[str, ...]:
    """Normalise a metric selection: ``None`` (all four), ``"srcc,r2"`` or a sequence of names.

    Names are case-insensitive; duplicates are dropped, order of first mention is kept.
    """
    if metrics is None:
        return METRICS
    raw = metrics.split(",") if isinstance(metrics, str) else list(metrics)
    out: list[str] = []
    for name in raw:
        key = str(name).strip().lower()
        if not key:
            continue
        if key not in METRICS:
            hint = did_you_mean(key, METRICS)
            raise InputError(f"unknown metric {name!r}{hint}; expected any of {', '.join(METRICS)}")
        if key not in out:
            out.append(key)
    if not out:
        raise InputError(f"no metric given; expected any of {', '.join(METRICS)}")
    return tuple(out)


def mean_off_diagonal(matrix: np.ndarray) -> np.ndarray:
    """Row means over the defined off-diagonal entries: redundancy paper Eq. 1 / Eq. 4.

    :math:`\\rho(X_i) = \\frac{1}{m-1} \\sum_{j \\ne i} \\mathrm{CORR}(R_i, R_j)`. Undefined (NaN) entries are
    left out of the average (equivalently, an undefined dimension is dropped from the others' averages); a
    row with no defined off-diagonal entry is NaN. For the asymmetric R^2 matrix, row ``i`` holds column
    ``i`` as the truth, so :math:`\\rho(X_i)` is the mean R^2 of predicting :math:`X_i` from each other one.
    """
    m = matrix.shape[0]
    off = np.array(matrix, dtype=np.float64, copy=True)
    off[np.arange(m), np.arange(m)] = np.nan
    finite = np.isfinite(off)
    counts = finite.sum(axis=1)
    sums = np.where(finite, off, 0.0).sum(axis=1)
    return np.where(counts > 0, sums / np.maximum(counts, 1), np.nan)


def nan_mean(values: np.ndarray) -> float:
    """Mean of the finite entries (NaN when there are none); redundancy paper Eq. 2 over defined rows."""
    finite = np.isfinite(values)
    return float(values[finite].mean()) if finite.any() else float("nan")


def undefined_notes(matrix: np.ndarray, labels: Sequence[str], metric: str, what: str) -> list[str]:
    """Human-readable notes for the undefined entries of a redundancy matrix.

    A label whose every off-diagonal entry is NaN is reported once (constant scores, or fewer than two
    models with a score); remaining NaN pairs are reported pairwise.
    """
    m = len(labels)
    notes: list[str] = []
    if m < 2:
        notes.append(f"{metric}: undefined, Eq. 1/4 needs at least 2 {what}s, got {m}")
        return notes
    off = np.array(matrix, dtype=np.float64, copy=True)
    off[np.arange(m), np.arange(m)] = 0.0
    bad_rows = [i for i in range(m) if not np.isfinite(np.delete(matrix[i], i)).any()]
    for i in bad_rows:
        notes.append(
            f"{metric}: {what} {labels[i]!r} undefined (constant scores, or fewer than 2 models with a"
            " score); its undefined entries are left out of the averages"
        )
    bad = set(bad_rows)
    for i in range(m):
        for j in range(i + 1, m):
            if i in bad or j in bad:
                continue
            if not (np.isfinite(off[i, j]) and np.isfinite(off[j, i])):
                notes.append(
                    f"{metric}: pair ({labels[i]!r}, {labels[j]!r}) undefined (constant on the models both"
                    " have, or fewer than 2 such models)"
                )
    return notes


def redundancy_matrices(
    scores: np.ndarray, labels: Sequence[str], metrics: Sequence[str], what: str
) -> tuple[dict[str, np.ndarray], dict[str, np.ndarray], list[str]]:
    """Per metric, the correlation matrix between the columns of ``scores`` and its row means (Eq. 1 / Eq. 4).

    ``scores`` is ``(n_models, m)``: one column per dimension (Eq. 1) or benchmark (Eq. 4), named by
    ``labels``. Returns ``(matrix, redundancy, undefined)``: metric -> ``(m, m)`` pairwise-complete matrix
    (:func:`benchsift.stats.corr_matrix`, NaN where undefined), metric -> ``(m,)`` :func:`mean_off_diagonal`,
    and the notes on undefined entries (``what`` names a column in them, e.g. ``"dimension"``). An entry is
    undefined (NaN) for every metric when either column is constant on the models both have, or fewer than
    two models have both.
    """
    matrix: dict[str, np.ndarray] = {}
    redundancy: dict[str, np.ndarray] = {}
    undefined: list[str] = []
    if scores.shape[0] < 2:
        undefined.append(f"only {scores.shape[0]} model(s): correlations need at least 2")
    for name in metrics:
        mat = corr_matrix(scores, name) if scores.shape[1] else np.zeros((0, 0))
        if name == "r2" and mat.size:
            # R^2 with a constant *prediction* is a number (1 - SS_res / SS_tot), but a constant column ranks
            # no model: it is undefined in both directions, as for the other metrics (Pearson is defined
            # exactly where neither side is constant on the pairwise-complete models).
            mat = np.where(np.isfinite(corr_matrix(scores, "plcc")), mat, np.nan)
        matrix[name] = mat
        redundancy[name] = mean_off_diagonal(mat)
        undefined.extend(undefined_notes(mat, labels, name, what))
    return matrix, redundancy, undefined


def prepare_panel(panel: Panel, benchmark: str | None, condition: str | None) -> tuple[Panel, list[str]]:
    """Restrict a panel to one benchmark (if named) and one model condition (if named); return notes."""
    Panel.check(panel)
    notes: list[str] = []
    if benchmark is not None:
        panel = panel.select_benchmarks(benchmark)
    elif len(panel.benchmarks) > 1:
        names = ", ".join(panel.benchmarks[:10]) + (" ..." if len(panel.benchmarks) > 10 else "")
        notes.append(
            f"no benchmark named: the items of {len(panel.benchmarks)} benchmarks are pooled as one; the"
            f" paper analyses one benchmark at a time (name one: {names}; or, for instances, use"
            " --each-benchmark / instance_redundancy_by_benchmark for per-benchmark and average curves)"
        )
    panel, note = keep_condition(panel, condition)
    return panel, notes + note


def keep_condition(panel: Panel, condition: str | None) -> tuple[Panel, list[str]]:
    """Keep only the model runs of ``condition`` (``None``: all); a note says what was left out."""
    if condition is None:
        return panel, []
    other = sorted({str(c) for c in panel.conditions if c != condition})
    if not other:
        return panel, []
    dropped = int((panel.conditions != condition).sum())
    note = (
        f"{dropped} model run(s) of condition {', '.join(other)} left out (only {condition!r} runs analysed)"
    )
    return panel.select_condition(condition), [note]
