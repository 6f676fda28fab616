"""The audit plants of the simulator: off by default (the panel is the same as before), seeded, and what
the ground truth says they are."""

from __future__ import annotations

import numpy as np

from benchsift.simulate import GroundTruth, SimulationConfig, simulate_panel


def test_off_by_default_and_the_panel_unchanged() -> None:
    cfg = SimulationConfig.small(n_models=12, items_per_benchmark=80)
    a = simulate_panel(cfg, random_state=5)
    b = simulate_panel(
        SimulationConfig.small(n_models=12, items_per_benchmark=80, contamination_boost=4.0), 5
    )
    assert (
        not a.truth.mislabelled.any() and not a.truth.contaminated.any() and a.truth.contaminated_models == []
    )
    assert a.panel == b.panel


def test_seeded_and_planted_as_the_truth_says(tmp_path) -> None:
    cfg = SimulationConfig.small(
        n_models=60, items_per_benchmark=200, mislabel_rate=0.05, contamination_rate=0.05, graded_fraction=0.0
    )
    a, b = simulate_panel(cfg, random_state=2), simulate_panel(cfg, random_state=2)
    assert a.panel == b.panel and a.truth.equals(b.truth)
    t = a.truth
    n = t.n_items
    assert t.mislabelled.sum() == round(0.05 * n) == t.contaminated.sum()
    assert not (t.mislabelled & t.contaminated).any()
    assert not (t.mislabelled & (t.all_correct | t.blind_solvable)).any()
    # mislabelled: the expected score falls with the general ability; others rise
    ability = t.abilities[:, 0]
    X = a.panel.image_panel().scores
    corr = []
    for i in np.flatnonzero(t.mislabelled)[:20]:
        ok = ~np.isnan(X[:, i])
        if X[ok, i].std() == 0:
            continue
        corr.append(np.corrcoef(ability[ok], X[ok, i])[0, 1])
    assert np.mean(corr) < -0.2
    # contaminated models: the newest half by release date
    dates = a.panel.image_panel().models.set_index("model")["release_date"]
    newest = dates.sort_values().index[-30:]
    assert set(t.contaminated_models) == set(newest)
    rows = np.isin(a.panel.image_panel().model_ids, t.contaminated_models)
    gain = np.nanmean(X[rows][:, t.contaminated]) - np.nanmean(X[~rows][:, t.contaminated])
    base = np.nanmean(X[rows][:, ~t.contaminated & ~t.all_correct]) - np.nanmean(
        X[~rows][:, ~t.contaminated & ~t.all_correct]
    )
    assert gain > base + 0.1
    path = t.save(tmp_path / "truth.npz")
    assert GroundTruth.load(path).equals(t)
