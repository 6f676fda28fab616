"""Statistics core: plain arrays in, arrays out, NaN-aware (NaN = missing score or undefined statistic).

The public names, what a notebook user calls (the rest lives in the modules, importable under their module
paths for benchsift's own use: ``benchsift.stats.means.nan_mean``, ``benchsift.stats._random``, ...):

- correlations (redundancy paper App. A; pairwise-complete): :func:`pearson`, :func:`spearman`,
  :func:`kendall_tau_b`, :func:`correlation` (by metric name); matrices :func:`corr_matrix`; :func:`zscore`
- bootstrap: :func:`bootstrap_weights`, :func:`percentile_ci`; the streamed weights of a paired bootstrap
  :class:`WeightStream`; cluster bootstrap :func:`cluster_bootstrap_weights`,
  :func:`stratified_cluster_bootstrap_weights`
- multiple testing: :func:`bh_adjust`, :func:`holm_adjust`
- paired comparisons of two models: :func:`paired_t_test`, :func:`mcnemar_exact`, power
  :func:`paired_power`, :func:`minimum_detectable_difference`; leaderboards
  :func:`rank_interval_pairwise`, :func:`tie_groups`
"""

from __future__ import annotations

# `from ... import X as X`: internal names the other packages import from here (not public: not in __all__)
from benchsift.stats._checks import METRICS as METRICS
from benchsift.stats._checks import Metric as Metric
from benchsift.stats._random import SeedLike as SeedLike
from benchsift.stats._random import check_random_state as check_random_state
from benchsift.stats.bootstrap import bootstrap_weights, percentile_ci
from benchsift.stats.cluster import cluster_bootstrap_weights, stratified_cluster_bootstrap_weights
from benchsift.stats.correlation import correlation, kendall_tau_b, pearson, spearman
from benchsift.stats.matrix import corr_matrix
from benchsift.stats.multitest import bh_adjust, holm_adjust
from benchsift.stats.normalize import zscore
from benchsift.stats.paired import mcnemar_exact, minimum_detectable_difference, paired_power, paired_t_test
from benchsift.stats.ranks import rank_interval_pairwise, tie_groups
from benchsift.stats.resample import WeightStream

__all__ = [
    "WeightStream",
    "bh_adjust",
    "bootstrap_weights",
    "cluster_bootstrap_weights",
    "corr_matrix",
    "correlation",
    "kendall_tau_b",
    "pearson",
    "percentile_ci",
    "spearman",
    "stratified_cluster_bootstrap_weights",
    "holm_adjust",
    "mcnemar_exact",
    "minimum_detectable_difference",
    "paired_power",
    "paired_t_test",
    "rank_interval_pairwise",
    "tie_groups",
    "zscore",
]
