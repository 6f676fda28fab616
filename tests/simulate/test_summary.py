"""``SimulationConfig.sized`` (the sizes of ``benchsift simulate``) and ``SimulatedPanel.summary``."""

from __future__ import annotations

import numpy as np

from benchsift.simulate import SimulationConfig, simulate_panel


def test_sized_keeps_the_dependent_sizes_within_the_given_ones() -> None:
    base = SimulationConfig.preset("small")
    assert SimulationConfig.sized("small") == base
    cfg = SimulationConfig.sized("small", models=1, benchmarks=1, items_per_benchmark=1)
    assert (cfg.n_models, cfg.n_benchmarks, cfg.items_per_benchmark) == (1, 1, 1)
    assert cfg.n_text_only_models == min(base.n_text_only_models, 1)
    assert cfg.n_categories == 1 and cfg.min_items_per_benchmark == 1
    # categories given: kept as given, not capped by the benchmarks
    assert SimulationConfig.sized("small", benchmarks=2, categories=2).n_categories == 2
    big = SimulationConfig.sized("small", models=base.n_models + 7)
    assert big.n_models == base.n_models + 7 and big.n_text_only_models == base.n_text_only_models


def test_summary_counts_the_panel_and_its_truth() -> None:
    sim = simulate_panel(SimulationConfig.sized("small", models=12, benchmarks=3), random_state=4)
    s = sim.summary()
    gt = sim.truth
    image = sim.panel.scores[: gt.n_models]
    assert s["n_models"] == 12 == gt.n_models
    assert s["n_text_only_runs"] == sim.panel.n_models - 12
    assert s["n_items"] == sim.panel.scores.shape[1] and s["n_benchmarks"] == 3
    assert s["n_all_correct"] == int(np.sum(gt.all_correct))
    assert s["missing_fraction"] == np.count_nonzero(np.isnan(image)) / image.size
    assert s["mean_score"] == float(np.nanmean(image))
    assert set(s["central_benchmark"]) == set(gt.central_benchmark)
