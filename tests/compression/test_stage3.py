"""Stage 3 (PRIMEBench Eq. 7): exhaustive and greedy k-subset search, the auto switch and the k-sweep."""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pytest
from scipy import stats as sps

from benchsift.compression.stages import categories as cat_mod
from benchsift.compression.stages.categories import exhaustive_search, greedy_path, stage3_select
from benchsift.errors import InputError
from benchsift.panel import Panel


def test_hand_case_with_tied_correlations() -> None:
    # columns c0, c1, c2 (constant); row means .2, .2, .333, .333 -> reference ranks [1.5, 1.5, 3.5, 3.5]
    X = np.array([[0.1, 0.2, 0.3], [0.2, 0.1, 0.3], [0.3, 0.4, 0.3], [0.4, 0.3, 0.3]])
    res = stage3_select(X, 1, categories=["c0", "c1", "c2"])
    # c0 ranks [1,2,3,4] and c1 ranks [2,1,4,3] both give 4 / (2 * sqrt 5) = 0.894; c2 is undefined;
    # the tie goes to the first subset
    assert res.selected == ["c0"]
    assert res.rho == pytest.approx(2 / np.sqrt(5))
    assert res.sweep is not None
    assert res.sweep["rho"].iloc[2] == pytest.approx(1.0)  # k = n reproduces the reference


def _brute_force(X: np.ndarray, k: int) -> tuple[tuple[int, ...], float]:
    ref = np.nanmean(X, axis=1).round(12)
    best, best_rho = None, -np.inf
    for combo in itertools.combinations(range(X.shape[1]), k):
        sub = X[:, list(combo)]
        n = (~np.isnan(sub)).sum(axis=1)
        score = np.where(n > 0, np.nansum(sub, axis=1) / np.maximum(n, 1), np.nan).round(12)
        ok = ~np.isnan(score) & ~np.isnan(ref)
        rho = sps.spearmanr(score[ok], ref[ok]).statistic
        if np.isfinite(rho) and round(rho, 12) > best_rho:
            best, best_rho = combo, round(rho, 12)
    assert best is not None
    return best, best_rho


@pytest.mark.parametrize("with_nan", [False, True])
def test_exhaustive_matches_brute_force_with_scipy(with_nan: bool, monkeypatch: pytest.MonkeyPatch) -> None:
    rng = np.random.default_rng(11)
    latent = rng.normal(size=(25, 1))
    X = 1 / (1 + np.exp(-(latent @ rng.normal(1, 0.3, (1, 7)) + rng.normal(0, 0.8, (25, 7)))))
    if with_nan:
        X[rng.random(X.shape) < 0.1] = np.nan
    monkeypatch.setattr(cat_mod, "CHUNK", 5)  # several chunks
    for k in range(1, 8):
        choice = exhaustive_search(X, k, chunk=5)
        combo, rho = _brute_force(X, k)
        assert choice.positions == combo
        assert choice.rho == pytest.approx(rho, abs=1e-10)
        assert choice.n_evaluated == len(list(itertools.combinations(range(7), k)))


def test_greedy_is_a_nested_path_and_never_beats_exhaustive() -> None:
    rng = np.random.default_rng(5)
    X = rng.random((20, 8))
    path = greedy_path(X, 8)
    for a, b in itertools.pairwise(path):
        assert set(a.positions) < set(b.positions)
    for choice in path:
        assert choice.rho <= exhaustive_search(X, choice.k).rho + 1e-12
    assert path[0].positions == exhaustive_search(X, 1).positions
    assert path[-1].rho == pytest.approx(1.0)


def test_auto_switch_and_sweep() -> None:
    rng = np.random.default_rng(2)
    X = rng.random((15, 6))
    res = stage3_select(X, 3, max_combinations=10)
    # C(6, k) = 6, 15, 20, 15, 6, 1: exhaustive where <= 10
    assert res.sweep is not None
    assert res.sweep["method"].tolist() == [
        "exhaustive",
        "greedy",
        "greedy",
        "greedy",
        "exhaustive",
        "exhaustive",
    ]
    assert res.method == "greedy"
    assert res.sweep["n_evaluated"].tolist()[0] == 6
    exh = stage3_select(X, 3, method="exhaustive", sweep=False)
    assert exh.sweep is None and exh.method == "exhaustive"
    assert exh.rho >= res.rho - 1e-12


def test_inputs_panel_and_groupscores_agree() -> None:
    rng = np.random.default_rng(0)
    X = rng.random((10, 40))
    items = pd.DataFrame(
        {
            "benchmark": np.repeat(["a", "b", "c", "d"], 10),
            "item": [str(i) for i in range(40)],
            "category": np.repeat(["A", "B", "C", None], 10),
        }
    )
    panel = Panel(X, [f"m{i}" for i in range(10)], items)
    from_panel = stage3_select(panel, 2)
    assert from_panel.categories == ["A", "B", "C", "d"]  # a missing category is the benchmark
    means = np.column_stack([X[:, 10 * j : 10 * (j + 1)].mean(axis=1) for j in range(4)])
    from_matrix = stage3_select(means, 2, categories=["A", "B", "C", "d"])
    assert from_panel.selected == from_matrix.selected
    assert from_panel.rho == pytest.approx(from_matrix.rho)


@pytest.mark.parametrize("k", [0, 5, True, 2.5])
def test_bad_k(k: object) -> None:
    with pytest.raises(InputError, match="k"):
        stage3_select(np.random.default_rng(0).random((5, 4)), k)  # type: ignore[arg-type]


def test_bad_method_and_names() -> None:
    X = np.random.default_rng(0).random((5, 4))
    with pytest.raises(InputError, match="method"):
        stage3_select(X, 2, method="magic")
    with pytest.raises(InputError, match="categories"):
        stage3_select(X, 2, categories=["a", "b"])
