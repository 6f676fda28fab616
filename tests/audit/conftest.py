"""Simulated panels with planted defects (mislabelled keys, contaminated items), shared by the audit tests."""

from __future__ import annotations

import pytest

from benchsift.audit import AuditResult, audit
from benchsift.simulate import SimulatedPanel, SimulationConfig, simulate_panel

#: the audit test bed: 80 binary models x 4 benchmarks x 400 items, one trait set per benchmark
PLANTED = dict(
    n_models=80,
    n_benchmarks=4,
    n_categories=2,
    items_per_benchmark=400,
    n_dimensions=0,
    graded_fraction=0.0,
    mislabel_rate=0.02,
    contamination_rate=0.03,
)


def planted(seed: int, **overrides: object) -> SimulatedPanel:
    return simulate_panel(SimulationConfig.small(**{**PLANTED, **overrides}), random_state=seed)


@pytest.fixture(scope="session")
def planted_runs() -> list[tuple[SimulatedPanel, AuditResult]]:
    """Five seeds of the planted panel and their audits (default settings)."""
    out = []
    for seed in range(5):
        sim = planted(seed)
        out.append((sim, audit(sim.panel)))
    return out
