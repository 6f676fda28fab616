"""Stages 0, 1, 3 and the splits declare their parameters once (validate_params), and every method
checks its panel argument with the one Panel.check: one line each, before any work."""

from __future__ import annotations

import numpy as np
import pytest

from benchsift.compression.protocols.splits import chronological_split, random_splits
from benchsift.compression.stages import stage0_clean, stage1_select, stage3_select
from benchsift.errors import InputError
from benchsift.panel import Panel
from benchsift.simulate import SimulationConfig, simulate_panel


@pytest.fixture(scope="module")
def panel() -> Panel:
    cfg = SimulationConfig.sized("small", models=8, benchmarks=3, items_per_benchmark=40)
    return simulate_panel(cfg, random_state=0).panel


def test_stage_parameters(panel: Panel) -> None:
    with pytest.raises(InputError, match=r"^`tau`: expected a number in \(0, 1\], got '0.5'$"):
        stage0_clean(panel, tau="0.5")  # type: ignore[arg-type]  # was parsed as 0.5
    with pytest.raises(InputError, match=r"^`target`: expected a correlation in \(0, 1\], got 1.5$"):
        stage1_select(panel, target=1.5)
    with pytest.raises(InputError, match=r"^`method`: expected one of auto, exhaustive, greedy, got 'beam'$"):
        stage3_select(np.random.default_rng(0).random((6, 4)), k=2, method="beam")


def test_splits_parameters() -> None:
    with pytest.raises(InputError, match=r"^`n_splits`: expected an integer >= 1, got 2.0$"):
        random_splits(10, 2.0)  # type: ignore[arg-type]
    with pytest.raises(InputError, match=r"^`n_heldout`: expected an integer >= 1 or None, got 0$"):
        chronological_split(["2024-01-01"] * 6, n_heldout=0)
    assert len(random_splits(10, 3)) == 3


def test_panel_argument_is_checked_once() -> None:
    with pytest.raises(InputError, match=r"^stage0_clean: expected a benchsift Panel, got ndarray$"):
        stage0_clean(np.zeros((3, 3)))  # type: ignore[arg-type]
    with pytest.raises(InputError, match=r"^stage1_select: expected a benchsift Panel, got list$"):
        stage1_select([[0.5]])  # type: ignore[arg-type]
