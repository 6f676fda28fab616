"""Redundancy analysis of benchmarks ("Redundancy Principles for MLLMs Benchmarks").

* :func:`dimension_redundancy`: correlations between a benchmark's dimensions, :math:`\\rho(X_i)` and the
  internal redundancy :math:`\\rho_{BI}` (Eq. 1-2);
* :func:`instance_redundancy`: :math:`\\rho(A\\%)` curves over sampling ratios and the saturation ratio
  (Eq. 3); :func:`instance_redundancy_by_benchmark`: each benchmark's curve and their average (Figs. 5-6);
  :func:`compare_instance_redundancy`: the curves of all models, the top-K and the bottom-K (Figs. 5-6);
  :func:`analyse_instances`: whichever of the three its options name (``redundancy instances``);
* :func:`benchmark_redundancy`: cross-benchmark redundancy :math:`\\rho(Y_i)` and the anchor benchmark
  (Eq. 4, Appendix C);
* :func:`select_models`: top-K / bottom-K models by overall score (Section 2.5), offered by all three.
"""

from __future__ import annotations

from benchsift.redundancy._common import METRIC_LABELS, METRICS, parse_metrics
from benchsift.redundancy.benchmarks import BenchmarkRedundancy, benchmark_redundancy, benchmark_scores
from benchsift.redundancy.comparison import (
    InstanceRedundancyComparison,
    compare_instance_redundancy,
    model_groups,
    undefined_values,
)
from benchsift.redundancy.dimensions import DimensionRedundancy, dimension_redundancy
from benchsift.redundancy.instance_analysis import InstanceAnalysis, analyse_instances, curves
from benchsift.redundancy.instances import (
    DEFAULT_RATIOS,
    DEFAULT_REPEATS,
    DEFAULT_THRESHOLD,
    InstanceRedundancy,
    instance_redundancy,
    sample_sizes,
    sampled_scores,
    saturation_ratio,
    selection_matrix,
)
from benchsift.redundancy.instances_by_benchmark import (
    InstanceRedundancyByBenchmark,
    benchmark_seed,
    instance_redundancy_by_benchmark,
)
from benchsift.redundancy.selection import ModelSelection, overall_scores, select_models

__all__ = [
    "DEFAULT_RATIOS",
    "DEFAULT_REPEATS",
    "DEFAULT_THRESHOLD",
    "METRICS",
    "METRIC_LABELS",
    "BenchmarkRedundancy",
    "DimensionRedundancy",
    "InstanceAnalysis",
    "InstanceRedundancy",
    "InstanceRedundancyByBenchmark",
    "InstanceRedundancyComparison",
    "ModelSelection",
    "analyse_instances",
    "benchmark_redundancy",
    "benchmark_scores",
    "benchmark_seed",
    "compare_instance_redundancy",
    "curves",
    "dimension_redundancy",
    "instance_redundancy",
    "instance_redundancy_by_benchmark",
    "model_groups",
    "overall_scores",
    "parse_metrics",
    "sample_sizes",
    "sampled_scores",
    "saturation_ratio",
    "select_models",
    "selection_matrix",
    "undefined_values",
]
