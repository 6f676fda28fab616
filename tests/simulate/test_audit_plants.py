"""The audit plants of the simulator: off by default (the panel is the same as before), seeded, and what
the ground truth says they are."""

from __future__ import annotations

import json

import numpy as np
import pytest
from typer.testing import CliRunner

from benchsift.cli.main import app
from benchsift.errors import InputError
from benchsift.panel import Panel
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


def test_cli_plants_are_the_library_plants(tmp_path) -> None:
    args = ["simulate", "--preset", "small", "--models", "30", "--items-per-benchmark", "60", "--seed", "3"]
    plants = ["--mislabel-rate", "0.05", "--contamination-rate", "0.04", "--contamination-by", "family"]
    r = CliRunner().invoke(
        app, [*args, *plants, "-o", str(tmp_path / "p.parquet"), "--truth", str(tmp_path / "t.npz"), "--json"]
    )
    assert r.exit_code == 0, r.output
    summary = json.loads(r.stdout)
    cfg = SimulationConfig.sized(
        "small",
        models=30,
        items_per_benchmark=60,
        mislabel_rate=0.05,
        contamination_rate=0.04,
        contamination_by="family",
    )
    sim = simulate_panel(cfg, random_state=3)
    assert Panel.load(tmp_path / "p.parquet") == sim.panel
    assert GroundTruth.load(tmp_path / "t.npz").equals(sim.truth)
    assert summary["n_mislabelled"] == int(sim.truth.mislabelled.sum()) == round(0.05 * sim.truth.n_items)
    assert summary["n_contaminated"] == int(sim.truth.contaminated.sum()) == round(0.04 * sim.truth.n_items)
    assert summary["n_contaminated_models"] == len(sim.truth.contaminated_models) > 0
    # nothing planted: no plant keys (the plain summary is unchanged)
    plain = CliRunner().invoke(app, [*args, "-o", str(tmp_path / "q.parquet"), "--json"])
    assert plain.exit_code == 0 and "n_mislabelled" not in json.loads(plain.stdout)
    bad = CliRunner().invoke(
        app, [*args, "--mislabel-rate", "0.4", "--contamination-rate", "0.2", "-o", str(tmp_path / "x.pq")]
    )
    assert bad.exit_code == 2 and "expected a sum of at most 0.5" in bad.output
    with pytest.raises(InputError, match="'n_modelz': not a SimulationConfig field"):
        SimulationConfig.sized("small", n_modelz=3)
