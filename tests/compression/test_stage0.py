"""Stage 0 (PRIMEBench section 4.1): hand-checked cases and the simulator's planted items."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from benchsift.compression.stages.clean import stage0_clean
from benchsift.errors import InputError
from benchsift.panel import Panel
from benchsift.simulate import SimulationConfig, simulate_panel

nan = np.nan


def _hand_panel() -> Panel:
    # 3 image models, 3 text-only runs, 8 items in two benchmarks.
    image = np.array(
        [
            # i0  i1   i2   i3  i4  i5  i6  i7
            [1.0, 1.0, nan, 0.0, 1.0, 1.0, 0.0, 1.0],
            [1.0, nan, nan, 0.0, 0.0, 0.0, 1.0, 0.0],
            [1.0, 1.0, nan, 0.0, 1.0, 0.0, 0.0, 0.5],
        ]
    )
    text = np.array(
        [
            [0.0, 0.0, 0.0, 0.0, 1.0, nan, 1.0, 1.0],
            [0.0, 0.0, 0.0, 0.0, nan, nan, 1.0, 0.0],
            [0.0, 0.0, 0.0, 0.0, nan, nan, 0.0, 0.0],
        ]
    )
    models = pd.DataFrame(
        {"model": ["a", "b", "c", "a", "b", "c"], "condition": ["image"] * 3 + ["text-only"] * 3}
    )
    items = pd.DataFrame(
        {"benchmark": ["B1"] * 4 + ["B2"] * 4, "item": [f"i{j}" for j in range(8)], "category": "C"}
    )
    return Panel(np.vstack([image, text]), models, items)


def test_hand_case_masks_beta_and_counts() -> None:
    res = stage0_clean(_hand_panel())
    # i0 all 1; i1 all *scored* models 1 (the NaN cell is not evaluated)
    assert res.all_correct.tolist() == [True, True, False, False, False, False, False, False]
    # beta: i4 = 1 (one scored blind run), i6 = 2/3 (>= tau = 2/3), i7 = 1/3, i5 none
    np.testing.assert_allclose(res.beta[[0, 4, 6, 7]], [0.0, 1.0, 2.0 / 3.0, 1.0 / 3.0])
    assert np.isnan(res.beta[5])
    assert res.blind_solvable.tolist() == [False, False, False, False, True, False, True, False]
    assert res.kept.tolist() == [False, False, True, True, False, True, False, True]
    assert res.all_wrong.tolist() == [False, False, False, True, False, False, False, False]
    counts = res.counts.set_index("benchmark")
    assert counts.loc["B1", "all_correct"] == 2
    assert counts.loc["B1", "kept"] == 2
    assert counts.loc["B1", "all_wrong_kept"] == 1
    assert counts.loc["B1", "unscored"] == 1
    assert counts.loc["B2", "blind_solvable"] == 2
    assert counts.loc["B2", "no_text_only"] == 1
    assert res.totals()["removed"] == 4
    # the cleaned pool: image rows only, the kept items, in order
    assert res.panel.shape == (3, 4)
    assert res.panel.items["item"].tolist() == ["i2", "i3", "i5", "i7"]
    assert set(res.panel.models["condition"]) == {"image"}


def test_tau_moves_the_blind_cut() -> None:
    res = stage0_clean(_hand_panel(), tau=0.7)
    # beta = 2/3 < 0.7 is kept now; beta = 1 still removed
    assert res.blind_solvable.tolist() == [False, False, False, False, True, False, False, False]


def test_no_text_only_runs_skips_blind_filter_with_a_note() -> None:
    panel = _hand_panel().image_panel()
    res = stage0_clean(panel)
    assert not res.blind_solvable.any()
    assert any("blind-solvability filter was skipped" in w for w in res.warnings)
    assert res.n_out == 6


@pytest.mark.parametrize("tau", [0.0, -0.1, 1.5, "x"])
def test_bad_tau(tau: object) -> None:
    with pytest.raises(InputError, match="tau"):
        stage0_clean(_hand_panel(), tau=tau)  # type: ignore[arg-type]


def test_no_image_rows_is_an_input_error() -> None:
    with pytest.raises(InputError, match="image-condition"):
        stage0_clean(_hand_panel().text_only_panel())


@pytest.mark.parametrize("seed", [0, 1])
def test_removes_exactly_the_planted_items(seed: int) -> None:
    sim = simulate_panel(SimulationConfig.small(), random_state=seed)
    res = stage0_clean(sim.panel)
    np.testing.assert_array_equal(res.all_correct, sim.truth.all_correct)
    np.testing.assert_array_equal(res.blind_solvable, sim.truth.blind_solvable)
    np.testing.assert_array_equal(res.kept, ~(sim.truth.all_correct | sim.truth.blind_solvable))
    assert res.totals()["n_items"] == sim.panel.n_items
