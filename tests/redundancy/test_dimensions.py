"""Dimension redundancy (redundancy paper Eq. 1-2) on hand-computed cases and a planted-structure panel."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.stats as ss

from benchsift.errors import InputError
from benchsift.redundancy import dimension_redundancy

# Hand computation for HAND_DIMS (conftest): X1 = [.1 .2 .3 .4], X2 = [.2 .1 .4 .3], X3 = [.4 .3 .2 .1].
# SRCC: 1 - 6 sum d^2 / (n (n^2 - 1)), n = 4: (X1, X2): d^2 sum 4 -> 0.6; (X1, X3): -1; (X2, X3): 16 -> -0.6.
# PLCC is the same here (equally spaced values). Kendall: (X1, X2) 4 concordant, 2 discordant -> 1/3.
# R2 [i, j] (i truth): SS_tot = 0.05 for all; SS_res (X1, X2) 0.04 -> 0.2, (X1, X3) 0.2 -> -3,
# (X2, X3) 0.16 -> -2.2.
SRCC = np.array([[1.0, 0.6, -1.0], [0.6, 1.0, -0.6], [-1.0, -0.6, 1.0]])
R2 = np.array([[1.0, 0.2, -3.0], [0.2, 1.0, -2.2], [-3.0, -2.2, 1.0]])
KENDALL = np.array([[1.0, 1 / 3, -1.0], [1 / 3, 1.0, -1 / 3], [-1.0, -1 / 3, 1.0]])


def test_hand_computed_eq1_eq2(hand_panel):
    res = dimension_redundancy(hand_panel, benchmark="B")
    assert res.dimensions == ["X1", "X2", "X3"]
    assert list(res.n_items) == [2, 2, 2]
    np.testing.assert_allclose(res.matrix["srcc"], SRCC, atol=1e-12)
    np.testing.assert_allclose(res.matrix["plcc"], SRCC, atol=1e-12)
    np.testing.assert_allclose(res.matrix["r2"], R2, atol=1e-12)
    np.testing.assert_allclose(res.matrix["kendall"], KENDALL, atol=1e-12)
    # Eq. 1: rho(X_i) = mean over j != i (diagonal excluded).
    np.testing.assert_allclose(res.redundancy["srcc"], [(0.6 - 1) / 2, (0.6 - 0.6) / 2, (-1 - 0.6) / 2])
    np.testing.assert_allclose(res.redundancy["r2"], [(0.2 - 3) / 2, (0.2 - 2.2) / 2, (-3 - 2.2) / 2])
    # Eq. 2: rho_BI = mean of rho(X_i).
    assert res.internal_redundancy["srcc"] == pytest.approx((-0.2 + 0.0 - 0.8) / 3)
    assert res.internal_redundancy["kendall"] == pytest.approx(((1 / 3 - 1) / 2 + 0 + (-1 - 1 / 3) / 2) / 3)
    assert res.undefined == []


def test_ties_average_ranks_and_tau_b(make_panel):
    # X1 = [.1 .1 .3 .4], X2 = [.2 .1 .4 .4]: average ranks [1.5 1.5 3 4] and [2 1 3.5 3.5]
    # -> SRCC = 4 / 4.5 = 8/9; tau-b: C = 4, D = 0, one tie in each -> 4 / sqrt(5 * 5) = 0.8.
    dims = np.array([[0.1, 0.2], [0.1, 0.1], [0.3, 0.4], [0.4, 0.4]])
    res = dimension_redundancy(make_panel(dims, ["X1", "X2"]), metrics="srcc,kendall")
    assert res.matrix["srcc"][0, 1] == pytest.approx(8 / 9)
    assert res.matrix["kendall"][0, 1] == pytest.approx(0.8)
    assert res.matrix["srcc"][0, 1] == pytest.approx(ss.spearmanr(dims[:, 0], dims[:, 1]).statistic)
    assert res.matrix["kendall"][0, 1] == pytest.approx(ss.kendalltau(dims[:, 0], dims[:, 1]).statistic)
    assert res.metrics == ("srcc", "kendall")


def test_constant_dimension_is_undefined_not_a_number(make_panel):
    dims = np.column_stack([np.array([0.1, 0.2, 0.3, 0.4]), np.array([0.2, 0.1, 0.4, 0.3]), np.full(4, 0.5)])
    res = dimension_redundancy(make_panel(dims, ["X1", "X2", "K"]))
    for m in res.metrics:
        assert np.isnan(res.redundancy[m][2])
        assert any(f"{m}: dimension 'K' undefined" in note for note in res.undefined)
    # The undefined dimension is left out of the others' averages: rho(X1) = CORR(X1, X2) alone.
    assert res.redundancy["srcc"][0] == pytest.approx(0.6)
    assert res.internal_redundancy["srcc"] == pytest.approx(0.6)
    out = res.to_dict()
    assert out["redundancy"]["srcc"]["K"] is None
    assert out["matrix"]["plcc"][0][2] is None


def test_too_few_models_refused(make_panel):
    # a correlation across fewer than 3 models is +-1 or undefined: refused with the reason (issue 12)
    from benchsift.errors import DegenerateError

    with pytest.raises(DegenerateError, match="models with scores: 1 found, at least 3 needed"):
        dimension_redundancy(make_panel(np.array([[0.1, 0.2, 0.3]]), ["a", "b", "c"]))


def test_single_dimension_refused(make_panel):
    from benchsift.errors import DegenerateError

    with pytest.raises(DegenerateError, match=r"dimensions \('category'\): 1 found, at least 2 needed"):
        dimension_redundancy(make_panel(np.array([[0.1], [0.5], [0.3]]), ["only"]), metrics="srcc")


def test_other_dimension_column_and_missing_values(hand_panel):
    items = hand_panel.items
    items["skill"] = ["s1", "s1", "s2", "s2", None, None]
    from benchsift import Panel

    panel = Panel(hand_panel.scores, hand_panel.models, items)
    res = dimension_redundancy(panel, column="skill", metrics="srcc")
    assert res.dimensions == ["s1", "s2"]
    assert res.matrix["srcc"][0, 1] == pytest.approx(0.6)
    assert any("2 item(s) without a 'skill' value" in n for n in res.notes)
    with pytest.raises(InputError, match="nope"):
        dimension_redundancy(panel, column="nope")
    with pytest.raises(InputError, match="metric"):
        dimension_redundancy(panel, metrics="spearman_rho")


def test_planted_structure_recovered(planted):
    panel, truth = planted
    res = dimension_redundancy(panel, metrics="srcc,plcc")
    dims = res.dimensions
    assert set(dims) == set(truth)
    for m in ("srcc", "plcc"):
        mat = res.matrix[m]
        within = [
            mat[i, j] for i in range(7) for j in range(7) if i != j and truth[dims[i]] == truth[dims[j]]
        ]
        across = [mat[i, j] for i in range(7) for j in range(7) if truth[dims[i]] != truth[dims[j]]]
        assert min(within) > max(across)
        # The independent dimension c1 is the least redundant, and clearly so.
        rho = res.redundancy[m]
        c = dims.index("c1")
        assert int(np.argmin(rho)) == c
        assert rho[c] < 0.3 < min(np.delete(rho, c))
    # Top pair (Appendix C check) is a within-group pair.
    top = res.pairs("srcc").iloc[0]
    assert truth[top["dimension_a"]] == truth[top["dimension_b"]]
    # The JSON's top_pairs: the six within-group pairs come before every across-group pair.
    listed = res.to_dict()["top_pairs"]["srcc"]
    assert len(listed) == 10 and listed[0]["value"] == pytest.approx(top["srcc"])
    assert all(truth[p["a"]] == truth[p["b"]] for p in listed[:6])
    assert all(truth[p["a"]] != truth[p["b"]] for p in listed[6:])


def test_top_k_restricts_models(planted):
    panel, _ = planted
    res = dimension_redundancy(panel, top_k=30, metrics="srcc")
    assert res.n_models == 30
    means = panel.model_means()
    assert set(res.selection.models) == {panel.model_ids[i] for i in np.argsort(-means, kind="stable")[:30]}
    with pytest.raises(InputError, match="not both"):
        dimension_redundancy(panel, top_k=3, bottom_k=3)


def test_constant_dimension_undefined_as_r2_prediction_too(make_panel):
    # R2(X1 truth, K prediction) would be 1 - SS_res / SS_tot, a number; a constant dimension is undefined
    # in every direction, so rho_r2(X1) is R2(X1, X2) alone: SS_res .04, SS_tot .05 -> 0.2 (see above).
    dims = np.column_stack([np.array([0.1, 0.2, 0.3, 0.4]), np.array([0.2, 0.1, 0.4, 0.3]), np.full(4, 0.5)])
    res = dimension_redundancy(make_panel(dims, ["X1", "X2", "K"]), metrics="r2")
    assert np.isnan(res.matrix["r2"][0, 2]) and np.isnan(res.matrix["r2"][2, 0])
    np.testing.assert_allclose(res.redundancy["r2"][:2], [0.2, 0.2], atol=1e-12)
    assert res.internal_redundancy["r2"] == pytest.approx(0.2)


def test_labelled_frames(hand_panel):
    res = dimension_redundancy(hand_panel, metrics="srcc")
    assert res.matrix_frame("srcc").loc["X2", "X3"] == pytest.approx(-0.6)
    rho = res.redundancy_frame()
    assert list(rho.columns) == ["n_items", "srcc"] and rho.loc["X3", "srcc"] == pytest.approx(-0.8)
    assert res.n_models == 4
