"""Public API, seeds, ranks and z-scores."""

from __future__ import annotations

import importlib
import pkgutil

import numpy as np
import pytest
import scipy.stats

import benchsift.stats as stats
from benchsift.errors import InputError
from benchsift.stats import check_random_state, zscore
from benchsift.stats.ranks import rank_average

CONTRACT = {
    "check_random_state",
    "rank_average",
    "rank_among",
    "nan_mean",
    "group_nan_means",
    "group_nan_sums",
    "ratio_or_nan",
    "pearson",
    "spearman",
    "kendall_tau_b",
    "r2_score",
    "correlation",
    "corr_with_vector",
    "paired_columns",
    "corr_matrix",
    "zscore",
    "bootstrap_indices",
    "bootstrap_weights",
    "percentile_ci",
    "bootstrap_weight_blocks",
    "paired_bootstrap_means",
    "cluster_codes",
    "cluster_bootstrap_indices",
    "cluster_bootstrap_weights",
    "stratified_cluster_bootstrap_weights",
    "cluster_robust_se",
    "bh_adjust",
    "bonferroni_adjust",
    "holm_adjust",
    "reject",
    "paired_moments",
    "paired_t_test",
    "mcnemar_exact",
    "paired_bootstrap_pairs",
    "replicate_means",
    "wald_pvalue",
    "paired_power",
    "minimum_detectable_difference",
    "items_for_power",
    "rank_interval",
    "rank_interval_pairwise",
    "tie_groups",
    "spectral_energy",
    "components_for_energy",
    "participation_ratio",
    "top_k_energy",
}  # docs/CONTRACTS.md, "Statistics"


def test_the_toolbox_is_importable_under_its_module_paths() -> None:
    """The public names are docs/API.md's (tests/test_public_api.py); the rest of the toolbox stays
    importable under its module paths (``benchsift.stats.means.nan_mean``) for benchsift's own use."""
    modules = [
        importlib.import_module(f"benchsift.stats.{m.name}") for m in pkgutil.iter_modules(stats.__path__)
    ]
    missing = [n for n in CONTRACT if not any(hasattr(m, n) for m in modules)]
    assert not missing
    assert set(stats.__all__) < CONTRACT | {"WeightStream"}
    assert stats._checks.METRICS == ("srcc", "plcc", "r2", "kendall")


def test_check_random_state() -> None:
    a = check_random_state(42).random(5)
    b = check_random_state(np.int64(42)).random(5)
    np.testing.assert_array_equal(a, b)
    gen = np.random.default_rng(1)
    assert check_random_state(gen) is gen
    assert isinstance(check_random_state(None), np.random.Generator)
    for bad in (1.5, True, -1, "7", np.random.RandomState(0)):
        with pytest.raises(InputError, match="random_state"):
            check_random_state(bad)  # type: ignore[arg-type]


def test_rank_average_matches_scipy_along_axes() -> None:
    rng = np.random.default_rng(0)
    X = np.round(rng.random((7, 30, 4)) * 6)  # many ties
    X[rng.random(X.shape) < 0.2] = np.nan
    for axis in (0, 1, 2, -1):
        want = scipy.stats.rankdata(X, method="average", axis=axis, nan_policy="omit")
        np.testing.assert_array_equal(rank_average(X, axis=axis), want)


def test_rank_average_hand_case() -> None:
    np.testing.assert_array_equal(
        rank_average([3.0, 1.0, np.nan, 1.0, 2.0, 3.0, 3.0]), [5.0, 1.5, np.nan, 1.5, 3.0, 5.0, 5.0]
    )
    np.testing.assert_array_equal(rank_average([np.nan, np.nan]), [np.nan, np.nan])
    assert rank_average(np.empty(0)).shape == (0,)
    with pytest.raises(InputError):
        rank_average(5.0)
    with pytest.raises(InputError, match="axis"):
        rank_average(np.ones((2, 2)), axis=3)


@pytest.mark.parametrize("ddof", [0, 1])
def test_zscore_matches_scipy(ddof: int) -> None:
    rng = np.random.default_rng(1)
    X = rng.normal(2, 3, size=(25, 6))
    X[rng.random(X.shape) < 0.2] = np.nan
    for axis in (0, 1):
        want = scipy.stats.zscore(X, axis=axis, ddof=ddof, nan_policy="omit")
        np.testing.assert_allclose(zscore(X, axis=axis, ddof=ddof), want, rtol=0, atol=1e-12)
    got = zscore(X, axis=None, ddof=ddof)
    present = ~np.isnan(X)
    v = X[present]
    np.testing.assert_allclose(got[present], (v - v.mean()) / v.std(ddof=ddof), rtol=0, atol=1e-12)


def test_zscore_hand_and_degenerate() -> None:
    # mean 2, population sd sqrt(2/3)
    np.testing.assert_allclose(zscore([1.0, 2.0, 3.0]), np.array([-1, 0, 1]) / np.sqrt(2 / 3), atol=1e-15)
    X = np.array([[1.0, 0.3, np.nan, 1.0], [2.0, 0.3, np.nan, np.nan], [4.0, 0.3, 5.0, np.nan]])
    Z = zscore(X, axis=0)
    assert np.isfinite(Z[:, 0]).all()
    assert np.isnan(Z[:, 1:]).all()  # constant, a single value, all missing
    assert np.isnan(zscore([1.0, 2.0], ddof=2)).all()  # n - ddof = 0
    with pytest.raises(InputError, match="ddof"):
        zscore([1.0, 2.0], ddof=-1)
