"""Analyses of axis means and replicates (PRISM-VLM Sec. 5, App. E) on hand cases and scipy cross-checks."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy import stats as sps

from benchsift.errors import DegenerateError, InputError
from benchsift.prism.aggregate import pscore
from benchsift.prism.analyses import (
    aggregator_comparison,
    axis_correlation,
    axis_correlation_ci,
    domain_correlation,
    domain_pscores,
    leave_one_axis_out,
    mean_effective_weights,
    near_tie_report,
    nominal_ranges,
    range_widening,
    split_half,
)
from benchsift.prism.bootstrap import paired_bootstrap
from benchsift.prism.scores import axis_means
from benchsift.prism.summaries import means_summary
from benchsift.simulate.verdicts import simulate_verdict_arrays


@pytest.fixture(scope="module")
def means() -> pd.DataFrame:
    rng = np.random.default_rng(5)
    return pd.DataFrame(
        rng.uniform(0.1, 0.9, size=(12, 4)),
        index=[f"m{i}" for i in range(12)],
        columns=["q", "h", "sc", "vis"],
    )


def test_ranges_and_widening_hand_case() -> None:
    t = pd.DataFrame({"a": [0.1, 0.5, 0.4, 0.9], "b": [0.2, 0.3, np.nan, 0.25], "g": list("xxyy")})
    r = nominal_ranges(t, ["a", "b"], groups=t["g"])
    assert r.loc["overall", "a"] == pytest.approx(0.8) and r.loc["overall", "b"] == pytest.approx(0.1)
    assert r.loc["x", "a"] == pytest.approx(0.4) and r.loc["y", "b"] == pytest.approx(0.0)
    assert range_widening(0.6, [0.2, 0.1]) == pytest.approx(0.6 / 0.15 - 1)
    assert np.isnan(range_widening(0.6, [0.0]))


def test_correlation_matrices_match_scipy(means: pd.DataFrame) -> None:
    ps = pscore(means.to_numpy())
    C = axis_correlation(means, "plcc")
    assert list(C.columns) == ["q", "h", "sc", "vis", "PScore"]
    assert C.loc["q", "sc"] == pytest.approx(sps.pearsonr(means["q"], means["sc"])[0])
    assert C.loc["sc", "PScore"] == pytest.approx(sps.pearsonr(means["sc"], ps)[0])
    S = axis_correlation(means, "srcc")
    assert S.loc["h", "vis"] == pytest.approx(sps.spearmanr(means["h"], means["vis"])[0])


def test_correlation_ci(means: pd.DataFrame) -> None:
    lo, hi = axis_correlation_ci(means, 400, 0)
    C = axis_correlation(means)
    off = ~np.eye(5, dtype=bool)
    assert np.all(lo.to_numpy()[off] <= hi.to_numpy()[off])
    # the point estimate lies inside its 95 % CI for these well-behaved columns
    assert (
        np.mean((lo.to_numpy()[off] <= C.to_numpy()[off]) & (C.to_numpy()[off] <= hi.to_numpy()[off])) >= 0.9
    )
    lo2, _ = axis_correlation_ci(means, 400, 0)
    pd.testing.assert_frame_equal(lo, lo2)
    slo, shi = axis_correlation_ci(means, 200, 0, method="srcc")
    assert np.all(slo.to_numpy()[off] <= shi.to_numpy()[off])


def test_leave_one_axis_out_matches_scipy(means: pd.DataFrame) -> None:
    loao = leave_one_axis_out(means)
    full = pscore(means.to_numpy())
    rest = pscore(means.drop(columns=["sc"]).to_numpy())
    assert loao["sc"] == pytest.approx(sps.spearmanr(full, rest)[0])


def test_aggregator_comparison_hand_check(means: pd.DataFrame) -> None:
    comp = aggregator_comparison(means)
    r = sps.pearsonr(means.mean(axis=1), means["q"])[0]
    assert comp.loc["arithmetic", "pearson_with_q"] == pytest.approx(r)
    assert comp.loc["arithmetic", "r2"] == pytest.approx(r * r)
    assert comp.loc["harmonic", "spearman_vs_harmonic"] == pytest.approx(1.0)
    assert comp.loc["harmonic", "max_rank_shift"] == 0


def test_mean_effective_weights_sum_to_one(means: pd.DataFrame) -> None:
    w = mean_effective_weights(means)
    assert w.sum() == pytest.approx(1.0)
    s = means.to_numpy()
    assert w["q"] == pytest.approx(np.mean((1 / s[:, 0] ** 2) / (1 / s**2).sum(axis=1)))


def test_means_summary_errors(means: pd.DataFrame) -> None:
    bad = means.copy()
    bad.iloc[0, 0] = np.nan
    with pytest.raises(InputError, match="m0"):
        means_summary(bad)
    with pytest.raises(DegenerateError):
        means_summary(means.iloc[:2])


def test_domain_pscores_and_split_half_and_near_tie() -> None:
    arrays, _, _ = simulate_verdict_arrays(6, 300, n_benchmarks=3, random_state=2)
    dom = domain_pscores(arrays)
    assert dom.shape == (6, 3)
    first = arrays.domains == dom.columns[0]
    np.testing.assert_allclose(dom.iloc[:, 0], pscore(axis_means(arrays.subset_items(first))))
    C = domain_correlation(dom)
    assert C.loc[dom.columns[0], dom.columns[1]] == pytest.approx(
        sps.spearmanr(dom.iloc[:, 0], dom.iloc[:, 1])[0]
    )
    res = paired_bootstrap(arrays, 200, 0)
    sh = split_half(res, n_partitions=3, random_state=0)
    assert len(sh) == 6 and set(sh["n_models"]) == {3}
    assert sh["separation"].between(0, 1).all()
    assert set(sh["least_correlated_axis"]) <= set(arrays.axes)
    nt = near_tie_report(res, ["model00", "model01", "model05"])
    assert len(nt) == 3
    row = nt.iloc[0]
    assert row["p"] == pytest.approx(res.separation.pvalues[0, 1])
    assert row["delta"] == pytest.approx(res.pscore[0] - res.pscore[1])
    with pytest.raises(InputError):
        near_tie_report(res, ["nobody"])
