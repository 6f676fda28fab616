"""Instance redundancy of several model groups of one panel: all models, the top-K and the bottom-K.

The redundancy paper draws the :math:`\\rho(A\\%)` curves of all models, the top-K and the bottom-K
models on one figure (Section 2.5, Figs. 5-6): how redundant a benchmark's items are depends on how close
the models are. :func:`compare_instance_redundancy` runs :func:`~benchsift.redundancy.instance_redundancy`
(or, with ``each_benchmark``, :func:`~benchsift.redundancy.instance_redundancy_by_benchmark`, K chosen per
benchmark) for the three groups with the same options and seed; what ``benchsift redundancy instances
--compare-k K`` prints.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from benchsift.panel import Panel
from benchsift.progress import ProgressFn
from benchsift.redundancy.instances import (
    DEFAULT_RATIOS,
    DEFAULT_REPEATS,
    DEFAULT_THRESHOLD,
    InstanceRedundancy,
    instance_redundancy,
)
from benchsift.redundancy.instances_by_benchmark import (
    InstanceRedundancyByBenchmark,
    instance_redundancy_by_benchmark,
)
from benchsift.results import Result

__all__ = ["InstanceRedundancyComparison", "compare_instance_redundancy", "model_groups", "undefined_values"]


def model_groups(k: int | None) -> list[tuple[int | None, int | None]]:
    """The ``(top_k, bottom_k)`` of each group compared: ``[(None, None), (k, None), (None, k)]``, or just
    all models for ``k=None``."""
    return [(None, None)] if k is None else [(None, None), (int(k), None), (None, int(k))]


@dataclass(frozen=True, repr=False)
class InstanceRedundancyComparison(Result):
    """Result of :func:`compare_instance_redundancy`.

    Attributes
    ----------
    k:
        K of the top-K and bottom-K groups.
    each_benchmark:
        Whether each benchmark was analysed on its own (the results are then
        :class:`~benchsift.redundancy.InstanceRedundancyByBenchmark`).
    results:
        group label (``"all"``, ``"top-K"``, ``"bottom-K"``) -> that group's result, in this order.
    """

    k: int
    each_benchmark: bool
    results: dict[str, InstanceRedundancy | InstanceRedundancyByBenchmark]

    def to_dict(self) -> dict[str, Any]:
        """``{label: result.to_dict()}``: the JSON of ``redundancy instances --compare-k K --json``."""
        return {label: r.to_dict() for label, r in self.results.items()}

    def to_frame(self) -> pd.DataFrame:
        """Every group's curve (its ``to_frame()``), indexed by ``(selection, ratio)``."""
        return pd.concat({label: r.to_frame() for label, r in self.results.items()}, names=["selection"])

    @property
    def undefined(self) -> list[str]:
        """Every group's undefined values (per benchmark too), as ``"<label>: <why>"``."""
        return [f"{label}: {u}" for label, r in self.results.items() for u in undefined_values(r)]

    @property
    def notes(self) -> list[str]:
        """The notes of the first group (all models): the groups share the panel and the options."""
        return list(next(iter(self.results.values())).notes)


def undefined_values(
    res: InstanceRedundancy | InstanceRedundancyByBenchmark | InstanceRedundancyComparison,
) -> list[str]:
    """``res.undefined``, and for a per-benchmark result each benchmark's own as ``"<benchmark>: <why>"``
    (a comparison's are already each group's, labelled)."""
    if isinstance(res, InstanceRedundancyComparison):
        return res.undefined
    if isinstance(res, InstanceRedundancyByBenchmark):
        return res.undefined + [f"{b}: {x}" for b in res.benchmarks for x in res.per_benchmark[b].undefined]
    return list(res.undefined)


def compare_instance_redundancy(
    panel: Panel,
    k: int,
    *,
    each_benchmark: bool = False,
    benchmark: str | None = None,
    benchmarks: str | Iterable[str] | None = None,
    ratios: Sequence[float] | np.ndarray = DEFAULT_RATIOS,
    repeats: int = DEFAULT_REPEATS,
    metrics: str | Iterable[str] | None = None,
    threshold: float = DEFAULT_THRESHOLD,
    random_state: int | None = None,
    condition: str | None = "image",
    progress: ProgressFn | None = None,
    n_jobs: int | None = None,
) -> InstanceRedundancyComparison:
    """:math:`\\rho(A\\%)` of all models, the top-``k`` and the bottom-``k`` (Section 2.5, Figs. 5-6).

    Parameters
    ----------
    panel:
        Item-level score panel.
    k:
        Size of the top and bottom groups (ranked by overall score; per benchmark with ``each_benchmark``).
    each_benchmark:
        Analyse each benchmark on its own and average the curves
        (:func:`~benchsift.redundancy.instance_redundancy_by_benchmark`); ``benchmarks`` chooses them.
        Otherwise ``benchmark`` is the one analysed (default: every item, pooled).
    ratios, repeats, metrics, threshold, random_state, condition, n_jobs:
        As in :func:`~benchsift.redundancy.instance_redundancy`, the same for every group (the same seed:
        the groups differ only by their models).
    progress:
        ``progress(done, total)`` of each group's run in turn, each from its own ``(0, total)``.

    Returns
    -------
    InstanceRedundancyComparison
        ``results`` keyed by each result's selection label.
    """
    results: dict[str, InstanceRedundancy | InstanceRedundancyByBenchmark] = {}
    shared: dict[str, Any] = dict(
        ratios=ratios,
        repeats=repeats,
        metrics=metrics,
        threshold=threshold,
        random_state=random_state,
        condition=condition,
        progress=progress,
        n_jobs=n_jobs,
    )
    for top, bottom in model_groups(k):
        if each_benchmark:
            by = instance_redundancy_by_benchmark(
                panel, benchmarks=benchmarks, top_k=top, bottom_k=bottom, **shared
            )
            results[by.selection] = by
        else:
            one = instance_redundancy(panel, benchmark=benchmark, top_k=top, bottom_k=bottom, **shared)
            results[one.selection.label] = one
    return InstanceRedundancyComparison(int(k), bool(each_benchmark), results)
