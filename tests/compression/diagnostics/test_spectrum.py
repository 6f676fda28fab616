"""Spectrum of the z-normalised model x group matrix (PRIMEBench F.4, Table 19) on a planted rank."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from benchsift.compression.diagnostics import era_spectra, panel_spectrum, spectrum_report
from benchsift.compression.diagnostics.spectrum import spectrum, spectrum_table
from benchsift.errors import DegenerateError, InputError
from benchsift.panel import Panel


def test_planted_rank_two() -> None:
    rng = np.random.default_rng(0)
    U = rng.normal(size=(60, 2))
    U -= U.mean(axis=0)  # centred factors: z-scoring cannot add a rank
    X = U @ rng.normal(size=(2, 9)) + 3.0
    res = spectrum(X)
    assert res.components == 2 or res.components == 1
    assert res.top_k_energy == pytest.approx(1.0)
    assert np.allclose(res.energy[2:], 0.0, atol=1e-12)
    Z = stats.zscore(X, axis=0)
    sv = np.linalg.svd(Z, compute_uv=False)
    assert res.participation_ratio == pytest.approx(sv.sum() ** 2 / (sv**2).sum())
    cum = np.cumsum(sv**2) / (sv**2).sum()
    assert res.components == int(np.searchsorted(cum, 0.95 - 1e-12) + 1)


def test_full_rank_noise_needs_many_components() -> None:
    X = np.random.default_rng(1).normal(size=(200, 10))
    res = spectrum(X)
    assert res.components >= 8 and res.participation_ratio > 8


def test_missing_cells_imputed_and_constant_columns_dropped() -> None:
    rng = np.random.default_rng(2)
    X = rng.normal(size=(30, 4))
    X[:, 3] = 1.0  # constant: undefined z-score, dropped
    X[0, 0] = np.nan
    res = spectrum(X, groups=["a", "b", "c", "d"])
    assert res.dropped == ("d",) and res.n_groups == 3 and res.n_imputed == 1
    complete = spectrum(X, groups=["a", "b", "c", "d"], missing="complete")
    assert complete.n_models == 29 and complete.n_imputed == 0


def test_degenerate_matrix_is_undefined_not_a_crash() -> None:
    res = spectrum(np.ones((5, 3)))
    assert np.isnan(res.components) and res.note


def test_one_usable_group_is_undefined_and_a_one_category_panel_is_refused() -> None:
    # One column always has one component with all the energy: undefined, not an answer of 1 / 100 %.
    rng = np.random.default_rng(4)
    X = np.column_stack([rng.normal(size=20), np.full(20, 0.5)])  # the constant column is dropped
    res = spectrum(X, groups=["a", "b"])
    assert res.n_groups == 1 and np.isnan(res.components) and "fewer than 2 usable groups" in res.note
    items = pd.DataFrame({"benchmark": "B", "item": [f"q{j}" for j in range(30)], "category": "math"})
    panel = Panel((rng.random((12, 30)) < 0.5).astype(float), [f"m{i}" for i in range(12)], items)
    with pytest.raises(DegenerateError, match="1 usable column.*at least 3 models .* and 2 non-constant"):
        panel_spectrum(panel)


def test_era_spectra_split_models_by_release_date() -> None:
    rng = np.random.default_rng(3)
    S = rng.random((12, 40))
    p = Panel.from_matrix(
        S,
        [f"m{i}" for i in range(12)],
        [f"i{j}" for j in range(40)],
        benchmark="b",
        categories=[f"c{j % 4}" for j in range(40)],
    )
    models = p.models
    dates = ["2024-01-01"] * 4 + ["2024-08-01"] * 4 + ["2025-03-01"] * 3 + [None]
    models["release_date"] = pd.to_datetime(pd.Series(dates)).to_numpy()
    p = Panel(p.scores, models, p.items)
    eras = era_spectra(p, "category", include_undated=False)
    assert [e.label for e in eras] == ["before Jun 2024", "Jun 2024 - Jan 2025", "from Jan 2025"]
    assert [e.n_models for e in eras] == [4, 4, 3]
    table = spectrum_table([panel_spectrum(p, "category"), *eras])
    assert table["models"].tolist() == [12, 4, 4, 3] and table["groups"].tolist()[0] == 4


def test_spectrum_report_is_the_panel_row_then_the_eras() -> None:
    rng = np.random.default_rng(4)
    p = Panel.from_matrix(
        rng.random((10, 30)),
        [f"m{i}" for i in range(10)],
        [f"i{j}" for j in range(30)],
        benchmark="b",
        categories=[f"c{j % 3}" for j in range(30)],
    )
    models = p.models
    models["release_date"] = pd.to_datetime(pd.Series(["2024-01-01"] * 5 + ["2025-03-01"] * 4 + [None]))
    p = Panel(p.scores, models, p.items)
    rep = spectrum_report(p, "category", eras=["2024-06-01"], include_undated=True, missing="complete")
    alone = [panel_spectrum(p, "category", missing="complete")]
    alone += era_spectra(p, "category", boundaries=["2024-06-01"], include_undated=True, missing="complete")
    assert [r.label for r in rep.spectra] == ["all", "before Jun 2024", "from Jun 2024", "undated"]
    # the undated era has one model: its spectrum is undefined (NaN), which assert_equal takes as equal
    np.testing.assert_equal(rep.to_dict(), {"by": "category", "spectra": [r.to_dict() for r in alone]})
    pd.testing.assert_frame_equal(rep.to_frame(), spectrum_table(alone))
    assert [r.label for r in spectrum_report(p).spectra] == ["all"]  # no eras: the panel's row only
    with pytest.raises(InputError, match="`missing`: expected impute or complete, got 'some'"):
        spectrum_report(p, missing="some")


def test_two_models_are_undefined_not_one_component() -> None:
    """Two z-scored models are mirror images (each column is (+1, -1) or (-1, +1)): the matrix has rank 1
    whatever the data, so "1 component, participation ratio 1" measured nothing (before: answered so)."""
    rng = np.random.default_rng(5)
    X = rng.random((2, 6))
    Z = stats.zscore(X, axis=0)
    assert np.allclose(Z[0], -Z[1])  # the degeneracy, checked by hand
    res = spectrum(X)
    assert res.n_models == 2 and np.isnan(res.components) and np.isnan(res.participation_ratio)
    assert "fewer than 3 models" in res.note
    three = spectrum(rng.random((3, 6)))  # three models: two components possible, a measurement
    assert three.components == 2 and not three.note
    items = pd.DataFrame(
        {"benchmark": ["B0", "B1", "B2", "B3"] * 10, "item": [f"q{j}" for j in range(40)], "category": "x"}
    )
    panel = Panel(rng.random((2, 40)), ["m0", "m1"], items)  # continuous scores: no tied column
    with pytest.raises(DegenerateError, match=r"2 model\(s\) and 4 usable column\(s\).*at least 3 models"):
        panel_spectrum(panel, by="benchmark")
