"""Property test: whatever the (small) configuration, the planted Stage 0 structure is exact and the panel
is valid."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from benchsift.simulate import SimulationConfig, simulate_panel


@st.composite
def configs(draw: st.DrawFn) -> SimulationConfig:
    n_models = draw(st.integers(2, 25))
    n_benchmarks = draw(st.integers(1, 7))
    return SimulationConfig.small(
        n_models=n_models,
        n_benchmarks=n_benchmarks,
        n_categories=draw(st.integers(1, n_benchmarks)),
        items_per_benchmark=draw(st.integers(20, 80)),
        min_items_per_benchmark=draw(st.integers(1, 20)),
        n_text_only_models=draw(st.integers(1, n_models)),
        graded_fraction=draw(st.sampled_from([0.0, 0.5, 1.0])),
        all_correct_rate=draw(st.sampled_from([0.0, 0.1, 0.4])),
        blind_solvable_rate=draw(st.sampled_from([0.0, 0.2, 0.6])),
        missing_rate=draw(st.sampled_from([0.0, 0.05, 0.3])),
        missing_benchmark_rate=draw(st.sampled_from([0.0, 0.2])),
        n_dimensions=draw(st.sampled_from([0, 3])),
        n_dimension_groups=draw(st.sampled_from([1, 2])),
        clusters_per_benchmark=draw(st.integers(1, 5)),
        embedding_dim=draw(st.sampled_from([4, 16])),
        central_max_tries=5,
    )


@settings(max_examples=25, deadline=None)
@given(config=configs(), seed=st.integers(0, 2**16))
def test_planted_structure_holds_for_any_config(config: SimulationConfig, seed: int) -> None:
    sim = simulate_panel(config, random_state=seed)
    panel, truth = sim.panel, sim.truth
    assert panel.n_items == config.n_items
    assert panel.n_models == config.n_models + config.n_text_only_models
    scores = panel.scores
    assert np.nanmin(scores) >= 0.0 and np.nanmax(scores) <= 1.0
    image = scores[: config.n_models]
    observed = ~np.isnan(image)
    assert (observed.sum(axis=0) >= 2).all()
    all_one = np.all(np.where(observed, image == 1.0, True), axis=0)
    np.testing.assert_array_equal(all_one, truth.all_correct)
    beta = scores[config.n_models :].mean(axis=0)  # text-only rows have no missing cells
    assert (beta[truth.blind_solvable] >= config.blind_beta_min).all()
    assert (beta[~truth.blind_solvable] <= config.nonblind_beta_max).all()
    assert sorted(truth.central_benchmark) == panel.categories
    assert np.isfinite(truth.embeddings_vl).all() and np.isfinite(truth.embeddings_text).all()
