"""Shelf life (PRIMEBench I.1) and Stage 3 on aggregates (H.3) against brute force on tiny cases."""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from benchsift.compression.diagnostics import aggregate_stage3, shelf_life
from benchsift.compression.diagnostics.aggregate_stage3 import stratified_bootstrap_indices


def _brute(X: np.ndarray, k: int) -> dict[tuple[int, ...], float]:
    Z = stats.zscore(X, axis=0)
    ref = Z.mean(axis=1)
    return {
        s: stats.spearmanr(ref, Z[:, list(s)].mean(axis=1)).statistic
        for s in itertools.combinations(range(X.shape[1]), k)
    }


def _data(n: int = 16, b: int = 6, seed: int = 0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    return rng.normal(size=(n, 1)) @ rng.random((1, b)) + 0.7 * rng.normal(size=(n, b))


def test_shelf_life_percentile_by_brute_force() -> None:
    X = _data()
    dates = pd.date_range("2023-01-01", periods=16, freq="30D")
    res = shelf_life(
        X,
        k=2,
        n_build=10,
        checkpoints=[10, 13, 16],
        release_dates=dates,
        min_coverage=1,
        include_undated=False,
    )
    build = _brute(X[:10], 2)
    frozen = max(build, key=lambda s: (round(build[s], 12), tuple(-v for v in s)))
    assert res.frozen == [f"B{c}" for c in frozen]
    for row, m in zip(res.rows, [10, 13, 16], strict=True):
        rhos = _brute(X[:m], 2)
        f = rhos[frozen]
        assert row["rho_frozen"] == pytest.approx(f, abs=1e-9)
        assert row["rho_best"] == pytest.approx(max(rhos.values()), abs=1e-9)
        expected = 100.0 * sum(round(v, 9) <= round(f, 9) for v in rhos.values()) / len(rhos)
        assert row["percentile"] == pytest.approx(expected)


def test_shelf_life_appends_undated_models_last() -> None:
    X = _data(20, 5, seed=1)
    dates = list(pd.date_range("2023-01-01", periods=16, freq="30D")) + [pd.NaT] * 4
    res = shelf_life(X, k=2, release_dates=dates, min_coverage=1)
    assert res.n_dated == 16 and res.n_undated == 4
    assert res.rows[-1]["panel"].endswith("4 undated") and res.rows[-1]["scored"] == 20
    assert res.rows[0]["M"] == res.n_build == round(2 * 16 / 3)


def test_stratified_bootstrap_stays_inside_strata() -> None:
    fam = ["a", "a", "a", "b", "b", None, None]
    idx = stratified_bootstrap_indices(fam, 500, random_state=0)
    assert idx.shape == (500, 7)
    assert set(np.unique(idx[:, :3])) <= {0, 1, 2} and set(np.unique(idx[:, 3:5])) <= {3, 4}
    assert (idx[:, 5] == 5).all() and (idx[:, 6] == 6).all()  # no family: singleton strata
    assert len(np.unique(idx[:, :3])) == 3


def test_aggregate_stage3_matches_brute_force_and_ci_covers() -> None:
    X = _data(40, 6, seed=2)
    res = aggregate_stage3(X, ks=(2, 3), n_boot=400, min_coverage=1, random_state=0)
    for row in res.rows:
        rhos = _brute(X, row["k"])
        assert row["rho"] == pytest.approx(max(rhos.values()), abs=1e-9)
        assert row["ci_low"] <= row["rho"] + 1e-9 and row["ci_high"] <= 1.0
        assert row["rho_imputed"] == pytest.approx(row["rho"], abs=1e-9)  # nothing to impute


def test_aggregate_stage3_coverage_rule() -> None:
    X = _data(30, 6, seed=3)
    X[:5, :4] = np.nan  # five models scored on 2 of 6 benchmarks: below half
    res = aggregate_stage3(X, ks=(3,), n_boot=50)
    assert res.min_coverage == 3 and res.n_models == 25 and res.n_models_all == 30
