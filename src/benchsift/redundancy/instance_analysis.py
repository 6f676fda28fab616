"""One entry point for the three instance redundancy analyses (Eq. 3): what ``redundancy instances`` runs.

:func:`analyse_instances` chooses, from its options, :func:`~benchsift.redundancy.instance_redundancy` (one
benchmark, or every item pooled), :func:`~benchsift.redundancy.instance_redundancy_by_benchmark` (each
benchmark on its own, curves averaged; ``each_benchmark``) or
:func:`~benchsift.redundancy.compare_instance_redundancy` (all models, the top-K and the bottom-K;
``compare_k``), and refuses the combinations that contradict each other. :func:`curves` gives any of the
three results as ``{selection label: result}`` with :func:`undefined_values`, the form the tables and figures
take.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np

from benchsift._schema import Rule, check_rules
from benchsift.panel import Panel
from benchsift.progress import ProgressFn
from benchsift.redundancy.comparison import InstanceRedundancyComparison, compare_instance_redundancy
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

__all__ = ["InstanceAnalysis", "analyse_instances", "curves"]

#: What :func:`analyse_instances` returns, by its options.
InstanceAnalysis = InstanceRedundancy | InstanceRedundancyByBenchmark | InstanceRedundancyComparison


#: the options that exclude or need each other
_RULES = (
    Rule(
        ("compare_k", "top_k", "bottom_k"),
        lambda k, top, bottom: k is None or (top is None and bottom is None),
        "either `compare_k` or `top_k` / `bottom_k`, not both",
    ),
    Rule(
        ("each_benchmark", "benchmark"),
        lambda each, name: not each or name is None,
        "either `each_benchmark` (every benchmark on its own, averaged) or `benchmark` NAME (one benchmark), "
        "not both; use `benchmarks` a,b to choose the benchmarks of `each_benchmark`",
    ),
    Rule(
        ("benchmarks", "each_benchmark"),
        lambda names, each: names is None or each,
        "`benchmarks` only with `each_benchmark` (for one benchmark use `benchmark` NAME)",
    ),
)


def analyse_instances(
    panel: Panel,
    *,
    benchmark: str | None = None,
    each_benchmark: bool = False,
    benchmarks: str | Iterable[str] | None = None,
    compare_k: int | None = None,
    top_k: int | None = None,
    bottom_k: int | None = None,
    ratios: Sequence[float] | np.ndarray = DEFAULT_RATIOS,
    repeats: int = DEFAULT_REPEATS,
    metrics: str | Iterable[str] | None = None,
    threshold: float = DEFAULT_THRESHOLD,
    random_state: int | None = None,
    condition: str | None = "image",
    progress: ProgressFn | None = None,
    n_jobs: int | None = None,
) -> InstanceAnalysis:
    """Instance redundancy :math:`\\rho(A\\%)` (redundancy paper Eq. 3, Section 2.5, Figs. 5-6).

    Parameters
    ----------
    panel:
        Item-level score panel.
    benchmark:
        The benchmark analysed (default: every item, pooled); not with ``each_benchmark``.
    each_benchmark:
        Analyse each benchmark on its own and average the curves (Fig. 5); ``benchmarks`` chooses them
        (default: all).
    compare_k:
        Run all models, the top-K and the bottom-K with the same seed (Figs. 5-6); not with ``top_k`` /
        ``bottom_k``.
    top_k, bottom_k:
        Only the K models with the highest / lowest overall score (per benchmark with ``each_benchmark``).
    ratios, repeats, metrics, threshold, random_state, condition, progress, n_jobs:
        As in :func:`~benchsift.redundancy.instance_redundancy`.

    Returns
    -------
    InstanceRedundancy, InstanceRedundancyByBenchmark or InstanceRedundancyComparison
        The result of the analysis the options name (``compare_k`` first, then ``each_benchmark``).
    """
    check_rules(_RULES, locals())
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
    if compare_k is not None:
        return compare_instance_redundancy(
            panel,
            compare_k,
            each_benchmark=each_benchmark,
            benchmark=benchmark,
            benchmarks=benchmarks,
            **shared,
        )
    if each_benchmark:
        return instance_redundancy_by_benchmark(panel, benchmarks, top_k=top_k, bottom_k=bottom_k, **shared)
    return instance_redundancy(panel, benchmark, top_k=top_k, bottom_k=bottom_k, **shared)


def curves(res: InstanceAnalysis) -> dict[str, InstanceRedundancy | InstanceRedundancyByBenchmark]:
    """``{selection label: result}``: a comparison's groups, or the one result under its label."""
    if isinstance(res, InstanceRedundancyComparison):
        return dict(res.results)
    if isinstance(res, InstanceRedundancyByBenchmark):
        return {res.selection: res}
    return {res.selection.label: res}
