"""Dimension redundancy within one benchmark: redundancy paper Section 2.1, Eq. 1-2.

A benchmark's dimensions :math:`X_1, \\dots, X_m` are the groups of its items by an item metadata column
(default ``category``). Each model's score on a dimension is its NaN-aware mean over the dimension's
scored items (:meth:`benchsift.panel.Panel.group_means`). For every metric the m x m matrix
:math:`C_{ij} = \\mathrm{CORR}(R_i, R_j)` is computed over the models (pairwise-complete), then

.. math::

    \\rho(X_i) = \\frac{1}{m-1} \\sum_{j \\ne i} C_{ij} \\quad (\\text{Eq. 1}), \\qquad
    \\rho_{BI} = \\frac{1}{m} \\sum_{i=1}^{m} \\rho(X_i) \\quad (\\text{Eq. 2}).

Undefined correlations (a constant dimension, fewer than two models) are NaN, listed in ``undefined``,
and left out of the averages. For R^2 (Appendix A, score-prediction form) ``C_ij`` has dimension ``i`` as
the truth and dimension ``j`` as the prediction, so the matrix is not symmetric.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from benchsift._jsonutil import to_jsonable
from benchsift.errors import MIN_MODELS, InputError, require_at_least
from benchsift.panel import Panel
from benchsift.redundancy._common import (
    MatrixResultMixin,
    nan_mean,
    parse_metrics,
    prepare_panel,
    redundancy_matrices,
)
from benchsift.redundancy.selection import ModelSelection, select_models
from benchsift.results import Result

TOP_PAIRS = 10
"""Strongest dimension pairs listed per metric in the JSON result (Appendix C, dimension check)."""


@dataclass(frozen=True, repr=False)
class DimensionRedundancy(MatrixResultMixin, Result):
    """Result of :func:`dimension_redundancy` (Eq. 1-2).

    Attributes
    ----------
    benchmark:
        The benchmark analysed (``None``: every item of the panel).
    column:
        The item column whose values are the dimensions.
    dimensions:
        Dimension names (order of first appearance).
    n_items:
        Items per dimension.
    scores:
        ``(n_models, m)`` per-dimension model scores the correlations were computed on.
    metrics:
        Metric names, in the order asked for.
    matrix:
        metric -> ``(m, m)`` correlation matrix (NaN = undefined).
    redundancy:
        metric -> ``(m,)`` :math:`\\rho(X_i)` (Eq. 1).
    internal_redundancy:
        metric -> :math:`\\rho_{BI}` (Eq. 2).
    selection:
        The models used (all / top-K / bottom-K).
    undefined:
        Notes on undefined values (NaN entries and why).
    notes:
        Other notes: what was pooled or left out.
    """

    benchmark: str | None
    column: str
    dimensions: list[str]
    n_items: np.ndarray
    scores: np.ndarray = field(repr=False)
    metrics: tuple[str, ...]
    matrix: dict[str, np.ndarray] = field(repr=False)
    redundancy: dict[str, np.ndarray] = field(repr=False)
    internal_redundancy: dict[str, float]
    selection: ModelSelection
    undefined: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    @property
    def labels(self) -> list[str]:
        return self.dimensions

    def redundancy_frame(self) -> pd.DataFrame:
        """:math:`\\rho(X_i)` per dimension (rows) and metric (columns), with the items per dimension."""
        df = super().redundancy_frame()
        df.insert(0, "n_items", self.n_items)
        return df

    def pairs(self, metric: str) -> pd.DataFrame:
        """Off-diagonal pairs ``i < j`` sorted by decreasing correlation (Appendix C: strongest pairs first).

        For R^2 the value is the mean of the two directions.
        """
        mat = self.matrix[metric]
        i, j = np.triu_indices(len(self.dimensions), k=1)
        vals = (mat[i, j] + mat[j, i]) / 2.0 if metric == "r2" else mat[i, j]
        df = pd.DataFrame(
            {
                "dimension_a": [self.dimensions[a] for a in i],
                "dimension_b": [self.dimensions[b] for b in j],
                metric: vals,
            }
        )
        return df.sort_values(metric, ascending=False, na_position="last", kind="stable").reset_index(
            drop=True
        )

    def top_pairs(self, metric: str, n: int = TOP_PAIRS) -> list[dict[str, Any]]:
        """The ``n`` most correlated defined pairs (Appendix C: candidates for merging or dropping)."""
        df = self.pairs(metric).dropna(subset=[metric]).head(n)
        return [
            {"a": str(a), "b": str(b), "value": float(v)}
            for a, b, v in zip(df["dimension_a"], df["dimension_b"], df[metric], strict=True)
        ]

    def to_dict(self) -> dict[str, Any]:
        """JSON shape of ``benchsift redundancy dimensions --json`` (NaN written as null).

        The issue's keys ``dimensions, matrix, redundancy, internal_redundancy`` come first; ``top_pairs``
        (metric -> the strongest pairs, Appendix C) and provenance keys follow.
        """
        out = {
            "dimensions": list(self.dimensions),
            "matrix": {m: self.matrix[m] for m in self.metrics},
            "redundancy": {
                m: dict(zip(self.dimensions, self.redundancy[m], strict=True)) for m in self.metrics
            },
            "internal_redundancy": {m: self.internal_redundancy[m] for m in self.metrics},
            "top_pairs": {m: self.top_pairs(m) for m in self.metrics},
            "benchmark": self.benchmark,
            "column": self.column,
            "n_models": self.n_models,
            "n_items": {d: int(n) for d, n in zip(self.dimensions, self.n_items, strict=True)},
            "selection": self.selection.to_dict(),
            "undefined": list(self.undefined),
            "notes": list(self.notes),
        }
        return to_jsonable(out)

    def to_frame(self) -> pd.DataFrame:
        """rho(X_i) per dimension (rows) and metric (columns), with the item count per dimension."""
        frame = self.redundancy_frame()
        frame.insert(0, "items", np.asarray(self.n_items, dtype=int))
        return frame.rename_axis("dimension")


def dimension_redundancy(
    panel: Panel,
    benchmark: str | None = None,
    column: str = "category",
    metrics: str | Iterable[str] | None = None,
    top_k: int | None = None,
    bottom_k: int | None = None,
    condition: str | None = "image",
) -> DimensionRedundancy:
    """Dimension redundancy of one benchmark (redundancy paper Eq. 1-2, Section 2.1).

    Parameters
    ----------
    panel:
        Item-level score panel.
    benchmark:
        Benchmark to analyse; ``None`` uses every item of the panel (noted when it holds several).
    column:
        Item metadata column whose values are the dimensions (``category`` by default); items with a
        missing value are left out.
    metrics:
        Any of ``srcc, plcc, r2, kendall`` (default all four).
    top_k, bottom_k:
        Restrict to the K best / worst models by mean score over the benchmark's items (Section 2.5).
    condition:
        Keep only model runs of this condition (default the ordinary image runs; ``None`` keeps all).
    """
    names = parse_metrics(metrics)
    panel, notes = prepare_panel(panel, benchmark, condition)
    if column not in panel.items.columns:
        raise InputError(
            f"dimension column {column!r} is not an item column (item columns: {list(panel.items.columns)})"
        )
    basis = f"benchmark {benchmark!r}" if benchmark is not None else "the panel"
    n_all = panel.n_models
    panel, selection = select_models(panel, top_k=top_k, bottom_k=bottom_k, basis=basis)
    if selection.mode == "all" and panel.n_models < n_all:
        notes.append(
            f"{n_all - panel.n_models} of {n_all} model(s) have no score on {basis} and are left out"
            f" ({panel.n_models} used)"
        )
    n_missing = int(panel.items[column].isna().sum())
    if n_missing:
        notes.append(f"{n_missing} item(s) without a {column!r} value left out")
    groups = panel.group_means(column)
    scores = groups.means
    require_at_least(
        len(groups.groups),
        2,
        f"dimension redundancy on {basis}: dimensions ({column!r})",
        "rho(X_i) compares each dimension with the others",
    )
    require_at_least(
        int(np.isfinite(scores).any(axis=1).sum()),
        MIN_MODELS,
        f"dimension redundancy on {basis}: models with scores",
        "correlations across models",
    )
    matrix, redundancy, undefined = redundancy_matrices(scores, groups.groups, names, "dimension")
    internal = {name: nan_mean(redundancy[name]) for name in names}
    return DimensionRedundancy(
        benchmark=benchmark,
        column=column,
        dimensions=list(groups.groups),
        n_items=np.asarray(groups.n_items, dtype=np.int64),
        scores=scores,
        metrics=names,
        matrix=matrix,
        redundancy=redundancy,
        internal_redundancy=internal,
        selection=selection,
        undefined=undefined,
        notes=notes,
    )
