"""Top-K / bottom-K model selection (redundancy paper Section 2.5).

The paper restricts each redundancy analysis to the K models with the highest (Top-K) or lowest
(Bottom-K) *overall performance on the benchmark in question*: for dimension (Eq. 1-2) and instance (Eq. 3)
redundancy that is the model's mean score over the benchmark's items; for cross-benchmark redundancy
(Eq. 4) it is the mean of the model's scores on the benchmarks of the set (each benchmark weighted
equally). Models without an overall score cannot be ranked and are never selected, by top/bottom-K nor
by "all": an analysis uses, and counts, only the models it has a score for. Ties are broken by panel row
order (stable sort), so the selection is deterministic.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from numbers import Integral
from typing import Any, Literal

import numpy as np

from benchsift._inputs import check_shape
from benchsift._params import Interval, check_param
from benchsift._schema import Rule, check_rules
from benchsift.errors import InputError
from benchsift.panel import Panel

SelectionMode = Literal["all", "top", "bottom"]


@dataclass(frozen=True)
class ModelSelection:
    """Which models an analysis used.

    Attributes
    ----------
    mode:
        ``"all"``, ``"top"`` (the K best) or ``"bottom"`` (the K worst).
    k:
        K, or ``None`` for ``"all"``.
    positions:
        Row positions (in the panel given to :func:`select_models`) of the selected models, best first for
        top-K, worst first for bottom-K, panel order for ``"all"``.
    models:
        Labels of the selected models, in the order of ``positions``.
    overall:
        Overall scores of the selected models (the ranking basis), in the same order.
    """

    mode: SelectionMode
    k: int | None
    positions: np.ndarray = field(repr=False)
    models: list[str] = field(repr=False)
    overall: np.ndarray = field(repr=False)

    @property
    def label(self) -> str:
        """``"all"``, ``"top-50"`` or ``"bottom-50"``."""
        return "all" if self.mode == "all" else f"{self.mode}-{self.k}"

    def to_dict(self) -> dict[str, Any]:
        return {"mode": self.mode, "k": self.k, "n_models": len(self.models), "models": list(self.models)}


def overall_scores(panel: Panel, group_means: np.ndarray | None = None) -> np.ndarray:
    """The ranking basis of Section 2.5 for each model row.

    Without ``group_means``: the NaN-aware mean over the model's scored items of ``panel``. With
    ``group_means`` (``(n_models, n_groups)`` benchmark scores): the NaN-aware mean over the groups the model
    has a score for, each group weighted equally. NaN for a model with no score.
    """
    if group_means is None:
        return panel.model_means()
    obs = np.isfinite(group_means)
    counts = obs.sum(axis=1)
    sums = np.where(obs, group_means, 0.0).sum(axis=1)
    return np.where(counts > 0, sums / np.maximum(counts, 1), np.nan)


_ONE_K = (
    Rule(
        ("top_k", "bottom_k"),
        lambda top, bottom: top is None or bottom is None,
        "`top_k` or `bottom_k`, not both",
    ),
)


def validate_k(top_k: int | None, bottom_k: int | None) -> tuple[SelectionMode, int | None]:
    """Check that at most one of ``top_k`` / ``bottom_k`` is given and that it is a positive integer."""
    check_rules(_ONE_K, {"top_k": top_k, "bottom_k": bottom_k})
    k = top_k if top_k is not None else bottom_k
    if k is None:
        return "all", None
    check_param("top_k" if top_k is not None else "bottom_k", k, [Interval(Integral, 1, None)])
    return ("top" if top_k is not None else "bottom"), int(k)


def select_models(
    panel: Panel,
    top_k: int | None = None,
    bottom_k: int | None = None,
    overall: np.ndarray | None = None,
    basis: str = "the benchmark",
) -> tuple[Panel, ModelSelection]:
    """Restrict ``panel`` to its top-K or bottom-K models by overall score (Section 2.5).

    ``overall`` is the per-row ranking basis (default :func:`overall_scores` of ``panel``); ``basis`` names
    it in error messages. With neither K given, every model with an overall score is kept (a model without
    one has no score to correlate: it is not used, so not counted). Returns the restricted panel and a
    :class:`ModelSelection`. K larger than the number of models with an overall score is an
    :class:`~benchsift.errors.InputError`.
    """
    mode, k = validate_k(top_k, bottom_k)
    if overall is None:
        overall = overall_scores(panel)
    overall = np.asarray(overall, dtype=np.float64)
    check_shape("overall", overall.shape, (panel.n_models,), what="one score per model row, shape")
    labels = panel.model_labels
    rankable = np.flatnonzero(np.isfinite(overall))
    if mode == "all":
        pos = rankable
    else:
        assert k is not None
        if k > rankable.size:
            raise InputError(
                f"{mode}-k {k} asks for more models than the {rankable.size} with a score on {basis}"
            )
        key = -overall[rankable] if mode == "top" else overall[rankable]
        order = np.argsort(key, kind="stable")
        pos = rankable[order[:k]]
    selection = ModelSelection(
        mode=mode, k=k, positions=pos, models=[labels[p] for p in pos], overall=overall[pos]
    )
    unchanged = mode == "all" and pos.size == panel.n_models
    sub = panel if unchanged else panel.subset(models=pos)
    return sub, selection
