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

# `from ... import X as X`: internal names the other packages import from here (not public: not in __all__)
from benchsift.redundancy._common import METRIC_LABELS as METRIC_LABELS
from benchsift.redundancy._common import METRICS
from benchsift.redundancy._common import parse_metrics as parse_metrics
from benchsift.redundancy.benchmarks import BenchmarkRedundancy, benchmark_redundancy
from benchsift.redundancy.comparison import InstanceRedundancyComparison, compare_instance_redundancy
from benchsift.redundancy.dimensions import DimensionRedundancy, dimension_redundancy
from benchsift.redundancy.instance_analysis import InstanceAnalysis, analyse_instances
from benchsift.redundancy.instances import InstanceRedundancy, instance_redundancy
from benchsift.redundancy.instances_by_benchmark import (
    InstanceRedundancyByBenchmark,
    instance_redundancy_by_benchmark,
)

__all__ = [
    "METRICS",
    "BenchmarkRedundancy",
    "DimensionRedundancy",
    "InstanceAnalysis",
    "InstanceRedundancy",
    "InstanceRedundancyByBenchmark",
    "InstanceRedundancyComparison",
    "analyse_instances",
    "benchmark_redundancy",
    "compare_instance_redundancy",
    "dimension_redundancy",
    "instance_redundancy",
    "instance_redundancy_by_benchmark",
]
