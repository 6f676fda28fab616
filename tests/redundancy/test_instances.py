"""Instance redundancy (redundancy paper Eq. 3): sampling exactness, scipy cross-check, seeds, saturation."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.stats as ss
from sklearn.metrics import r2_score

from benchsift import Panel
from benchsift.errors import InputError
from benchsift.redundancy import instance_redundancy
from benchsift.redundancy import instances as instances_module
from benchsift.redundancy.instances import sample_sizes, sampled_scores, saturation_ratio, selection_matrix
from benchsift.stats import check_random_state
from benchsift.stats.correlation import corr_with_vector


def _binary_panel(seed: int = 1, n_models: int = 15, n_items: int = 40, n_missing: int = 0) -> Panel:
    rng = np.random.default_rng(seed)
    ability = np.linspace(-1.5, 1.5, n_models)
    b = rng.normal(size=n_items)
    p = 1 / (1 + np.exp(-(ability[:, None] - b[None, :])))
    scores = (rng.random(p.shape) < p).astype(float)
    # At most one missing cell per model, so every sample of >= 2 items scores every model.
    rows = rng.choice(n_models, size=n_missing, replace=False)
    scores[rows, rng.integers(0, n_items, size=n_missing)] = np.nan
    return Panel.from_matrix(scores, [f"m{i}" for i in range(n_models)], [f"i{j}" for j in range(n_items)])


def test_sample_sizes_round_half_up_at_least_one():
    np.testing.assert_array_equal(
        sample_sizes(10, np.array([0.01, 0.05, 0.1, 0.25, 0.5, 0.94, 0.95, 1.0])), [1, 1, 1, 3, 5, 9, 10, 10]
    )


def test_selection_matrix_exact_sizes_and_uniform_inclusion():
    rng = np.random.default_rng(0)
    sel = selection_matrix(10, 3, 4000, rng)
    assert sel.shape == (4000, 10)
    assert set(np.unique(sel)) == {0.0, 1.0}
    np.testing.assert_array_equal(sel.sum(axis=1), 3)
    # Each item is included with probability k / n = 0.3 (sd of the frequency ~0.0072).
    np.testing.assert_allclose(sel.mean(axis=0), 0.3, atol=0.03)
    # All C(10, 3) = 120 subsets occur (uniform k-subsets, not e.g. only contiguous ones).
    assert len({tuple(row) for row in sel.astype(int)}) == 120
    np.testing.assert_array_equal(selection_matrix(5, 5, 3, rng), np.ones((3, 5)))
    with pytest.raises(InputError):
        selection_matrix(5, 6, 3, rng)


class _CoarseKeys:
    """A generator stand-in whose uniform keys are rounded to one decimal: ties at a row's threshold are the
    rule, so the comparison path of selection_matrix must fall back to the index path."""

    def __init__(self, seed: int) -> None:
        self._rng = np.random.default_rng(seed)

    def random(self, shape: tuple[int, int]) -> np.ndarray:
        return np.round(self._rng.random(shape), 1)


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_selection_matrix_marks_the_k_smallest_keys_as_argpartition_does(dtype):
    """The threshold comparison gives the same rows as marking argpartition's k indices of the same keys
    (an independent construction), with continuous keys and with tied ones."""
    for k in (1, 7, 25, 49):
        keys = np.random.default_rng(k).random((300, 50))
        expected = np.zeros((300, 50))
        np.put_along_axis(expected, np.argpartition(keys, k - 1, axis=1)[:, :k], 1.0, axis=1)
        got = selection_matrix(50, k, 300, np.random.default_rng(k), dtype)
        assert got.dtype == dtype
        np.testing.assert_array_equal(got, expected)
        tied = selection_matrix(50, k, 300, _CoarseKeys(k), dtype)  # type: ignore[arg-type]
        np.testing.assert_array_equal(tied.sum(axis=1), k)
        coarse = np.round(np.random.default_rng(k).random((300, 50)), 1)
        expected[:] = 0.0
        np.put_along_axis(expected, np.argpartition(coarse, k - 1, axis=1)[:, :k], 1.0, axis=1)
        np.testing.assert_array_equal(tied, expected)


def test_sampled_scores_are_nan_aware_means():
    scores = np.array([[1.0, 0.0, np.nan, 1.0], [np.nan, np.nan, 0.5, 0.0]])
    sel = np.array([[1.0, 1.0, 0.0, 0.0], [0.0, 1.0, 1.0, 1.0], [1.0, 1.0, 0.0, 0.0]])
    obs = (~np.isnan(scores)).astype(float)
    got = sampled_scores(np.nan_to_num(scores), obs, sel)
    expected = np.array([[0.5, 0.5, 0.5], [np.nan, 0.25, np.nan]])
    np.testing.assert_allclose(got, expected)


def test_full_ratio_gives_exactly_one():
    res = instance_redundancy(_binary_panel(n_missing=3), ratios=[1.0], repeats=7, random_state=0)
    for m in res.metrics:
        np.testing.assert_allclose(res.mean[m], 1.0, rtol=0, atol=1e-12)
        np.testing.assert_allclose(res.sd[m], 0.0, atol=1e-12)
        assert res.saturation[m] == 1.0
    assert list(res.sample_sizes) == [40]


def test_matches_a_per_repeat_scipy_loop():
    """Same draws (documented order: ascending ratios, one generator) scored with scipy / scikit-learn."""
    panel = _binary_panel(n_missing=4)
    ratios, repeats, seed = [0.1, 0.25, 0.5], 12, 42
    res = instance_redundancy(panel, ratios=ratios, repeats=repeats, random_state=seed, keep_values=True)
    assert res.values is not None
    full = np.nanmean(panel.scores, axis=1)
    rng = check_random_state(seed)
    for r, k in enumerate(sample_sizes(panel.n_items, np.array(ratios))):
        sel = selection_matrix(panel.n_items, int(k), repeats, rng)
        for t in range(repeats):
            idx = np.flatnonzero(sel[t])
            assert idx.size == k
            s = np.nanmean(panel.scores[:, idx], axis=1)
            assert res.values["srcc"][r, t] == pytest.approx(ss.spearmanr(s, full).statistic, abs=1e-12)
            assert res.values["plcc"][r, t] == pytest.approx(ss.pearsonr(s, full).statistic, abs=1e-12)
            assert res.values["kendall"][r, t] == pytest.approx(ss.kendalltau(s, full).statistic, abs=1e-12)
            assert res.values["r2"][r, t] == pytest.approx(r2_score(full, s), abs=1e-12)
        for m in res.metrics:
            assert res.mean[m][r] == pytest.approx(res.values[m][r].mean())
            assert res.sd[m][r] == pytest.approx(res.values[m][r].std(ddof=1))


def test_seed_determinism_and_blocks(monkeypatch):
    panel = _binary_panel()
    a = instance_redundancy(panel, ratios=[0.1, 0.3], repeats=25, random_state=3, keep_values=True)
    b = instance_redundancy(panel, ratios=[0.1, 0.3], repeats=25, random_state=3, keep_values=True)
    c = instance_redundancy(panel, ratios=[0.1, 0.3], repeats=25, random_state=4, keep_values=True)
    assert a.values is not None and b.values is not None and c.values is not None
    np.testing.assert_array_equal(a.values["srcc"], b.values["srcc"])
    assert not np.array_equal(a.values["srcc"], c.values["srcc"])
    # Processing the repeats in blocks draws the same stream: identical values.
    monkeypatch.setattr(instances_module, "_BLOCK_CELLS", 7 * panel.n_items)
    d = instance_redundancy(panel, ratios=[0.1, 0.3], repeats=25, random_state=3, keep_values=True)
    assert d.values is not None
    np.testing.assert_array_equal(a.values["kendall"], d.values["kendall"])


def test_identical_items_are_fully_redundant():
    v = np.linspace(0.0, 1.0, 9)
    panel = Panel.from_matrix(np.tile(v[:, None], (1, 30)), [f"m{i}" for i in range(9)], list(range(30)))
    res = instance_redundancy(panel, ratios=[0.01, 0.5], repeats=10, random_state=0, metrics="srcc,r2")
    np.testing.assert_allclose(res.mean["srcc"], 1.0)
    np.testing.assert_allclose(res.mean["r2"], 1.0)
    assert res.saturation == {"srcc": 0.01, "r2": 0.01}


def test_curve_rises_with_ratio_and_r2_needs_more_items():
    panel = _binary_panel(seed=5, n_models=40, n_items=300)
    res = instance_redundancy(panel, ratios=[0.02, 0.1, 0.5, 0.9], repeats=40, random_state=0)
    for m in res.metrics:
        assert np.all(np.diff(res.mean[m]) > 0)
    assert res.mean["r2"][0] < res.mean["srcc"][0]


def test_constant_full_scores_are_undefined():
    panel = Panel.from_matrix(np.full((5, 20), 0.5), [f"m{i}" for i in range(5)], list(range(20)))
    res = instance_redundancy(panel, ratios=[0.5], repeats=5, random_state=0)
    for m in res.metrics:
        assert np.isnan(res.mean[m][0])
        assert res.saturation[m] is None
    assert any("constant" in n for n in res.undefined)
    assert res.to_dict()["metrics"]["srcc"]["mean"] == [None]


def test_constant_samples_are_counted_and_left_out():
    # One discriminating item among 19 all-correct ones: a 1-item sample is constant unless it is item 0.
    scores = np.ones((3, 20))
    scores[:, 0] = [1.0, 0.0, 0.5]
    panel = Panel.from_matrix(scores, ["a", "b", "c"], list(range(20)))
    res = instance_redundancy(panel, ratios=[0.05], repeats=60, random_state=1, metrics="srcc")
    n_def = int(res.n_defined["srcc"][0])
    assert 0 < n_def < 60
    assert res.mean["srcc"][0] == pytest.approx(1.0)
    assert any("undefined in some repeats" in n for n in res.undefined)
    # R2 keeps the constant samples (a constant prediction of the full scores [1, .95, .975]):
    # SS_tot = .00125; all-correct item: SS_res = .003125 -> -1.5; item 0 [1, 0, .5]: 1.128125 -> -901.5.
    r2 = instance_redundancy(panel, ratios=[0.05], repeats=60, random_state=1, metrics="r2", keep_values=True)
    assert r2.n_defined["r2"][0] == 60 and r2.values is not None
    expected = np.where(_drew_item0(panel, 60), -901.5, -1.5)
    np.testing.assert_allclose(r2.values["r2"][0], expected, rtol=1e-9)


def test_top_k_and_bottom_k_models():
    panel = _binary_panel(n_models=15)
    top = instance_redundancy(panel, ratios=[0.5], repeats=5, top_k=5, random_state=0)
    bottom = instance_redundancy(panel, ratios=[0.5], repeats=5, bottom_k=5, random_state=0)
    means = panel.model_means()
    assert top.n_models == 5 and bottom.n_models == 5
    assert min(top.selection.overall) >= max(bottom.selection.overall)
    assert set(top.selection.models) == {panel.model_ids[i] for i in np.argsort(-means, kind="stable")[:5]}


def test_saturation_ratio_and_input_errors():
    ratios = np.array([0.1, 0.2, 0.3])
    assert saturation_ratio(ratios, np.array([0.9, 0.96, 0.97]), 0.95) == 0.2
    assert saturation_ratio(ratios, np.array([np.nan, 0.95, 0.9]), 0.95) == 0.2
    assert saturation_ratio(ratios, np.array([0.5, 0.6, 0.7]), 0.95) is None
    panel = _binary_panel()
    with pytest.raises(InputError, match="ratios"):
        instance_redundancy(panel, ratios=[0.0, 0.5])
    with pytest.raises(InputError, match="ratios"):
        instance_redundancy(panel, ratios=[1.5])
    with pytest.raises(InputError, match="repeats"):
        instance_redundancy(panel, repeats=0)
    res = instance_redundancy(panel, ratios=[0.5, 0.1, 0.5], repeats=3, random_state=0, metrics="plcc")
    np.testing.assert_array_equal(res.ratios, [0.1, 0.5])
    out = res.to_dict()
    assert set(out) >= {"n_models", "n_items", "ratios", "metrics", "saturation"}
    assert set(out["metrics"]) == {"plcc"} and set(out["metrics"]["plcc"]) == {"mean", "sd"}


def test_hand_computed_eq3_with_ties():
    # Items q0 = [1, 0, 0] and q1 = [1, 1, 0] for models a, b, c; full scores R_GT = [1, .5, 0].
    # At A = 50 % (k = 1) every sample is one item, both with a tie:
    # q0: ranks [3, 1.5, 1.5] vs [3, 2, 1] -> SRCC = 1.5 / sqrt(1.5 * 2) = sqrt(3)/2; q1 likewise.
    # PLCC: deviations [2/3, -1/3, -1/3] . [.5, 0, -.5] = .5 over sqrt(2/3) sqrt(.5) -> sqrt(3)/2.
    # tau-b: C = 2, D = 0, one tie in the sample, none in R_GT -> 2 / sqrt(2 * 3) = 2/sqrt(6).
    # R2 (R_GT the truth): SS_res = .25, SS_tot = .5 -> 0.5. Same for q1, so sd = 0 whatever is drawn.
    scores = np.array([[1.0, 1.0], [0.0, 1.0], [0.0, 0.0]])
    panel = Panel.from_matrix(scores, ["a", "b", "c"], ["q0", "q1"])
    res = instance_redundancy(panel, ratios=[0.5, 1.0], repeats=9, random_state=0, threshold=0.8)
    assert list(res.sample_sizes) == [1, 2]
    expected = {"srcc": np.sqrt(3) / 2, "plcc": np.sqrt(3) / 2, "kendall": 2 / np.sqrt(6), "r2": 0.5}
    for m, value in expected.items():
        np.testing.assert_allclose(res.mean[m], [value, 1.0], atol=1e-12)
        np.testing.assert_allclose(res.sd[m], [0.0, 0.0], atol=1e-12)
        assert res.n_defined[m].tolist() == [9, 9]
    assert res.saturation == {"srcc": 0.5, "plcc": 0.5, "r2": 1.0, "kendall": 0.5}
    assert res.undefined == []


def test_pooling_several_benchmarks_is_noted():
    panel = _binary_panel(n_items=20)
    items = panel.items
    items["benchmark"] = ["A"] * 10 + ["B"] * 10
    pooled = instance_redundancy(
        Panel(panel.scores, panel.models, items), ratios=[0.5], repeats=3, random_state=0
    )
    assert pooled.n_items == 20
    assert any("pooled as one" in n and "A, B" in n for n in pooled.notes)


def _drew_item0(panel: Panel, repeats: int) -> np.ndarray:
    """For the test above: which of the seed-1 one-item samples at 5 % of 20 items drew item 0."""
    sel = selection_matrix(panel.n_items, 1, repeats, check_random_state(1))
    return sel[:, 0] == 1.0


def test_threshold_above_one_is_refused_and_errors_name_parameters() -> None:
    """No metric exceeds 1, so a threshold above 1 could never be reached: refused, not answered with "no
    saturation" (before: saturation None for every metric). At exactly 1 the full ratio reaches it (rho = 1 on
    the whole benchmark). Errors name the parameters in backticks, which the CLI writes as its options."""
    panel = _binary_panel()
    with pytest.raises(InputError, match=r"^`threshold` must be at most 1 .*got 1\.5$"):
        instance_redundancy(panel, ratios=[0.5, 1.0], repeats=3, threshold=1.5)
    res = instance_redundancy(panel, ratios=[0.5, 1.0], repeats=3, threshold=1.0, random_state=0)
    assert all(res.saturation[m] == 1.0 for m in res.metrics)
    with pytest.raises(InputError, match=r"^`repeats`: expected an integer >= 1, got 0$"):
        instance_redundancy(panel, repeats=0)
    with pytest.raises(InputError, match=r"^`threshold`: expected a number, got nan$"):
        instance_redundancy(panel, threshold=float("nan"))
    with pytest.raises(InputError, match=r"^`top_k`: expected an integer >= 1, got 0$"):
        instance_redundancy(panel, top_k=0)
    with pytest.raises(InputError, match=r"^top_k=3, bottom_k=3: expected `top_k` or `bottom_k`, not both$"):
        instance_redundancy(panel, top_k=3, bottom_k=3)


def test_float32_products_equal_the_float64_selection_product():
    """0/1 and integer scores run the selection products in float32 (exact below 2^24): the per-repeat
    values are those of the plain float64 product ``S @ Z.T`` on the same draws, with and without NaN."""
    rng = np.random.default_rng(5)
    for scores in (
        (rng.random((30, 400)) < 0.6).astype(float),
        rng.integers(0, 5, size=(30, 400)) / 4.0,  # quarters: not integers, float64 products
        np.where(rng.random((30, 400)) < 0.05, np.nan, (rng.random((30, 400)) < 0.6).astype(float)),
    ):
        panel = Panel.from_matrix(scores, [f"m{i}" for i in range(30)], [f"i{j}" for j in range(400)])
        ratios, repeats = [0.05, 0.5, 0.9], 20
        res = instance_redundancy(panel, ratios=ratios, repeats=repeats, random_state=9, keep_values=True)
        assert res.values is not None
        obs = ~np.isnan(scores)
        zeroed, observed = np.where(obs, scores, 0.0), (None if obs.all() else obs.astype(float))
        full = np.nanmean(scores, axis=1)
        draws = check_random_state(9)
        for r, k in enumerate(sample_sizes(400, np.array(ratios))):
            sampled = sampled_scores(zeroed, observed, selection_matrix(400, int(k), repeats, draws))
            for m in res.metrics:
                np.testing.assert_allclose(
                    res.values[m][r], corr_with_vector(sampled, full, m), rtol=0, atol=1e-15
                )
