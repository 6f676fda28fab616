"""Left-out prediction (PRIMEBench I.3), checkpoint ranking (I.4) and cross-family agreement (D.4)."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats
from sklearn.linear_model import Ridge

from benchsift.compression.diagnostics import (
    bootstrap_ceiling,
    checkpoint_ranking,
    family_agreement,
    leftout_prediction,
)
from benchsift.compression.diagnostics.checkpoints import adjacent_swap
from benchsift.compression.diagnostics.leftout import _split_mae
from benchsift.panel import Panel


def _low_rank(n: int = 150, b: int = 8, seed: int = 0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 2)) @ rng.normal(size=(2, b)) * 0.1 + 0.5 + 0.02 * rng.normal(size=(n, b))
    X[rng.random(X.shape) < 0.05] = np.nan
    return X


def test_leftout_mae_falls_with_training_models() -> None:
    res = leftout_prediction(_low_rank(), sizes=(1, 4, 16, 64), n_splits=10, targets=["B0", "B3"])
    table = res.table()
    for _, row in table.iterrows():
        assert row["M=1"] > row["M=16"] > row["M=64"]
    assert res.mae.shape == (2, 4, 10)


def test_leftout_skips_sizes_without_test_models() -> None:
    res = leftout_prediction(_low_rank(40, 4), sizes=(8, 64), n_splits=3)
    assert np.isnan(res.table()["M=64"]).all() and np.isfinite(res.table()["M=8"]).all()


def test_split_mae_matches_sklearn_with_training_mean_imputation() -> None:
    X = _low_rank(30, 4, seed=4)[:, :3]
    X[0, 1] = np.nan
    y = np.linspace(0, 1, 30)
    train, test = np.arange(20), np.arange(20, 30)
    mean = np.nanmean(X[train], axis=0)
    F = np.where(np.isnan(X), mean, X)
    pred = Ridge(alpha=1.0).fit(F[train], y[train]).predict(F[test])
    assert _split_mae(X, y, train, test, 1.0) == pytest.approx(np.abs(pred - y[test]).mean())


def test_adjacent_swap_values_of_the_paper() -> None:
    assert adjacent_swap(8) == pytest.approx(0.024, abs=5e-4)
    assert adjacent_swap(12) == pytest.approx(0.007, abs=5e-4)
    assert adjacent_swap(15) == pytest.approx(0.004, abs=5e-4)


def test_bootstrap_ceiling_separates_stable_from_unstable_rankings() -> None:
    rng = np.random.default_rng(0)
    p_sep = np.linspace(0.2, 0.9, 8)[:, None]
    stable = (rng.random((8, 400)) < p_sep).astype(float)
    unstable = (rng.random((8, 400)) < 0.5).astype(float)
    hi, _ = bootstrap_ceiling(stable, 300, random_state=1)
    lo, _ = bootstrap_ceiling(unstable, 300, random_state=1)
    assert hi > 0.95 and lo < 0.9


def test_checkpoint_ranking_fidelity_and_flags() -> None:
    rng = np.random.default_rng(1)
    theta = rng.normal(size=(30, 1))
    b = rng.normal(size=(1, 300))
    sel = (rng.random((30, 300)) < 1 / (1 + np.exp(-(theta - b)))).astype(float)
    panel = Panel.from_matrix(
        sel, [f"m{i}" for i in range(30)], [f"i{j}" for j in range(300)], benchmark="sq"
    )
    tv = np.linspace(-1.5, 1.5, 8)[:, None]
    variants = (rng.random((8, 300)) < 1 / (1 + np.exp(-(tv - b)))).astype(float)
    noise = (rng.random((8, 300)) < 0.5).astype(float)
    res = checkpoint_ranking(
        panel,
        {"grid": variants, "noise": noise},
        selectors=["variance"],
        retentions=[0.2, 1.0],
        floor=0,
        n_boot=200,
    )
    t = res.table().set_index("variant_set")
    assert bool(t.loc["grid", "passes"]) and not bool(t.loc["noise", "passes"])
    assert t.loc["grid", "variance@1"] == pytest.approx(1.0)
    assert res.means()["variance@1"] == pytest.approx(1.0)


def test_family_agreement_matches_scipy() -> None:
    rng = np.random.default_rng(2)
    S = rng.random((9, 50))
    p = Panel.from_matrix(S, [f"m{i}" for i in range(9)], [f"i{j}" for j in range(50)], benchmark="b")
    models = p.models
    models["family"] = ["A"] * 4 + ["B"] * 4 + ["C"]
    p = Panel(p.scores, models, p.items)
    t = family_agreement(p, min_models=4)
    assert t[["family_a", "family_b"]].values.tolist() == [["A", "B"]]  # C has one model
    expected = stats.spearmanr(S[:4].mean(axis=0), S[4:8].mean(axis=0)).statistic
    assert t["rho"].iloc[0] == pytest.approx(expected) and t["n_items"].iloc[0] == 50


def test_leftout_on_a_simulated_leaderboard() -> None:
    from benchsift.simulate import SimulationConfig, simulate_panel

    cfg = SimulationConfig.openvlm(n_models=140, items_per_benchmark=80, min_items_per_benchmark=40)
    panel = simulate_panel(cfg, 1).panel
    res = leftout_prediction(panel, targets=panel.benchmarks[:2], sizes=(1, 8, 64), n_splits=15)
    mean = res.table()[["M=1", "M=8", "M=64"]].to_numpy()
    assert np.all(mean[:, 0] > mean[:, 1]) and np.all(mean[:, 1] > mean[:, 2])


def test_leftout_refuses_repeated_targets_and_sizes_that_leave_no_model() -> None:
    """``--targets MMMU,MMMU`` printed the row twice and ``--sizes 500`` on 169 models an all-'-' table,
    exit 0 (audit s32): refused, each in one line naming the option."""
    from benchsift.errors import InputError

    X = np.random.default_rng(0).random((30, 3))
    names = ["A", "B", "C"]
    with pytest.raises(InputError, match=r"`targets`: duplicate benchmarks \['A'\]"):
        leftout_prediction(X, benchmarks=names, targets=["A", "A"])
    with pytest.raises(InputError, match=r"`sizes`: \[30, 40\] leave no model to predict: .* at most 30"):
        leftout_prediction(X, benchmarks=names, sizes=[30, 40])
    assert leftout_prediction(X, benchmarks=names, sizes=[10, 40], n_splits=2).sizes == [10, 40]


def test_stage3_refuses_one_replicate_and_repeated_sizes() -> None:
    """``--n-boot 1`` printed rho 0.986 with "95% CI [0.967, 0.967]"; ``--k 2,2`` the row twice (audit
    s32)."""
    from benchsift.compression.diagnostics import aggregate_stage3
    from benchsift.errors import InputError

    X = np.random.default_rng(1).random((30, 5))
    names = [f"b{j}" for j in range(5)]
    with pytest.raises(InputError, match="n_boot"):
        aggregate_stage3(X, benchmarks=names, ks=[2], n_boot=1)
    with pytest.raises(InputError, match=r"ks: duplicate subset sizes \[2\]"):
        aggregate_stage3(X, benchmarks=names, ks=[2, 2], n_boot=50)
