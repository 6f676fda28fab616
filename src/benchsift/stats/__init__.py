"""Statistics core: plain arrays in, arrays out, NaN-aware (NaN = missing score or undefined statistic).

- seeds: :func:`check_random_state`
- ranks: :func:`rank_average`, :func:`rank_among`
- NaN-aware means: :func:`nan_mean`, :func:`group_nan_means`; per-group sums and counts
  :func:`group_nan_sums` and their means :func:`ratio_or_nan`
- correlations (redundancy paper App. A; pairwise-complete): :func:`pearson`, :func:`spearman`,
  :func:`kendall_tau_b`, :func:`r2_score`, :func:`correlation`; column-wise :func:`corr_with_vector`,
  :func:`paired_columns`; matrices :func:`corr_matrix`
- :func:`zscore`
- bootstrap: :func:`bootstrap_indices`, :func:`bootstrap_weights`, :func:`percentile_ci`; paired bootstrap
  means of many series, streamed in blocks: :func:`paired_bootstrap_means`, :func:`bootstrap_weight_blocks`,
  :class:`WeightStream`;
  cluster bootstrap
  :func:`cluster_bootstrap_indices`, :func:`cluster_bootstrap_weights`,
  :func:`stratified_cluster_bootstrap_weights`, :func:`cluster_codes`, :func:`cluster_robust_se`
- multiple testing: :func:`bh_adjust`, :func:`holm_adjust`, :func:`bonferroni_adjust`, :func:`reject`
- paired comparisons of every pair of rows: :func:`paired_moments`, :func:`paired_t_test`,
  :func:`mcnemar_exact`, the streamed paired bootstrap :func:`paired_bootstrap_pairs`
  (:func:`replicate_means`, :func:`wald_pvalue`), power :func:`paired_power`,
  :func:`minimum_detectable_difference`, :func:`items_for_power`; leaderboards :func:`rank_interval`,
  :func:`rank_interval_pairwise`, :func:`tie_groups`
- spectrum (PRIMEBench App. F.4): :func:`spectral_energy`, :func:`components_for_energy`,
  :func:`participation_ratio`, :func:`top_k_energy`
"""

from __future__ import annotations

from benchsift.stats._checks import METRICS, Metric
from benchsift.stats._random import SeedLike, check_random_state
from benchsift.stats.bootstrap import bootstrap_indices, bootstrap_weights, percentile_ci
from benchsift.stats.cluster import (
    cluster_bootstrap_indices,
    cluster_bootstrap_weights,
    cluster_codes,
    cluster_robust_se,
    stratified_cluster_bootstrap_weights,
)
from benchsift.stats.correlation import (
    corr_with_vector,
    correlation,
    kendall_tau_b,
    paired_columns,
    pearson,
    r2_score,
    spearman,
)
from benchsift.stats.matrix import corr_matrix
from benchsift.stats.means import group_nan_means, group_nan_sums, nan_mean, ratio_or_nan
from benchsift.stats.multitest import bh_adjust, bonferroni_adjust, holm_adjust, reject
from benchsift.stats.normalize import zscore
from benchsift.stats.paired import (
    PairBootstrap,
    items_for_power,
    mcnemar_exact,
    minimum_detectable_difference,
    paired_bootstrap_pairs,
    paired_moments,
    paired_power,
    paired_t_test,
    replicate_means,
    wald_pvalue,
)
from benchsift.stats.ranks import (
    rank_among,
    rank_average,
    rank_interval,
    rank_interval_pairwise,
    tie_groups,
)
from benchsift.stats.resample import WeightStream, bootstrap_weight_blocks, paired_bootstrap_means
from benchsift.stats.spectrum import (
    components_for_energy,
    participation_ratio,
    spectral_energy,
    top_k_energy,
)

__all__ = [
    "METRICS",
    "Metric",
    "PairBootstrap",
    "SeedLike",
    "WeightStream",
    "bh_adjust",
    "bonferroni_adjust",
    "bootstrap_indices",
    "bootstrap_weight_blocks",
    "bootstrap_weights",
    "check_random_state",
    "cluster_bootstrap_indices",
    "cluster_bootstrap_weights",
    "cluster_codes",
    "cluster_robust_se",
    "components_for_energy",
    "corr_matrix",
    "corr_with_vector",
    "group_nan_means",
    "group_nan_sums",
    "correlation",
    "kendall_tau_b",
    "nan_mean",
    "paired_bootstrap_means",
    "paired_columns",
    "participation_ratio",
    "pearson",
    "percentile_ci",
    "r2_score",
    "ratio_or_nan",
    "rank_among",
    "rank_average",
    "reject",
    "spearman",
    "spectral_energy",
    "stratified_cluster_bootstrap_weights",
    "top_k_energy",
    "holm_adjust",
    "items_for_power",
    "mcnemar_exact",
    "minimum_detectable_difference",
    "paired_bootstrap_pairs",
    "paired_moments",
    "paired_power",
    "paired_t_test",
    "replicate_means",
    "wald_pvalue",
    "rank_interval",
    "rank_interval_pairwise",
    "tie_groups",
    "zscore",
]
