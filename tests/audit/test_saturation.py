"""Saturation signals: all-correct, all-wrong, near-ceiling and blind-solvable (text-only runs: the panel's
``condition == "text-only"`` model rows) against the simulator's planted items."""

from __future__ import annotations

import numpy as np
import pandas as pd
from warned import calling

from benchsift.audit import audit, item_saturation
from benchsift.panel import Panel
from benchsift.simulate import SimulationConfig, simulate_panel


def test_item_saturation_by_hand() -> None:
    X = np.array([[1, 0, 1, np.nan], [1, 0, 1, 1], [1, 0, 0, 1]], dtype=float)
    T = np.array([[1, 0, 1, 0], [1, np.nan, 0, 0], [0, 1, 1, 0]], dtype=float)
    s = item_saturation(X, T, ceiling=0.6)
    assert s.all_correct.tolist() == [True, False, False, True]
    assert s.all_wrong.tolist() == [False, True, False, False]
    assert s.near_ceiling.tolist() == [False, False, True, False]  # 2/3 >= 0.6 and not all-correct
    assert np.allclose(s.blind_mean, [2 / 3, 0.5, 2 / 3, 0.0])
    assert s.blind_solvable.tolist() == [True, False, True, False]  # tau = 2/3 reached
    none = item_saturation(X, None)
    assert np.isnan(none.blind_mean).all() and not none.blind_solvable.any()


def test_planted_all_correct_and_blind_solvable_are_found() -> None:
    sim = simulate_panel(SimulationConfig.small(n_models=30, items_per_benchmark=200), random_state=3)
    res = audit(sim.panel, dif_by="none")
    it = res.items
    assert (it["all_correct"].to_numpy() == sim.truth.all_correct).all()
    # the simulator plants blind-solvable items with text-only mean >= 0.75 and every other <= 0.5
    assert (it["blind_solvable"].to_numpy() == sim.truth.blind_solvable).all()
    bench = res.benchmarks.set_index("benchmark")
    first = sim.panel.benchmarks[0]
    cols = (sim.panel.items["benchmark"] == first).to_numpy()
    assert bench.loc[first, "share_all_correct"] == sim.truth.all_correct[cols].mean()
    assert not any("text-only" in w for w in res.warnings)


def test_no_text_only_runs_is_a_warning_and_nan_share() -> None:
    sim = simulate_panel(SimulationConfig.small(n_models=12, items_per_benchmark=60), random_state=1)
    image = sim.panel.image_panel()
    res = calling(audit, image, dif_by="none")
    assert any("no text-only runs" in w for w in res.warnings)
    assert res.benchmarks["share_blind_solvable"].isna().all()
    assert not res.items["blind_solvable"].any()


def test_text_only_rows_are_read_from_the_condition_column() -> None:
    rng = np.random.default_rng(0)
    image = (rng.random((8, 6)) < 0.5).astype(float)
    text = np.zeros((2, 6))
    text[:, 2] = 1.0  # only item 2 is answered without the image
    models = pd.DataFrame(
        {"model": [f"m{i}" for i in range(8)] + ["m0", "m1"], "condition": ["image"] * 8 + ["text-only"] * 2}
    )
    panel = Panel(np.vstack([image, text]), models, pd.DataFrame({"benchmark": "b", "item": list("abcdef")}))
    res = calling(audit, panel, dif_by="none")
    assert res.items["blind_solvable"].tolist() == [False, False, True, False, False, False]
    assert res.parameters["n_text_only_runs"] == 2 and res.parameters["n_models"] == 8
