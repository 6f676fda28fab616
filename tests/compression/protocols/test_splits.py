"""Build / held-out splits (PRIMEBench D.3): balanced, seeded, chronological with undated models last."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from benchsift.compression.protocols import chronological_splits, random_splits
from benchsift.compression.protocols.splits import chronological_order, chronological_split
from benchsift.errors import InputError


def test_random_splits_are_balanced_disjoint_and_cover() -> None:
    splits = random_splits(31, 20, random_state=3)
    assert len(splits) == 20
    for s in splits:
        assert s.n_build == 15 and s.n_heldout == 16
        assert np.intersect1d(s.build, s.heldout).size == 0
        assert np.array_equal(np.union1d(s.build, s.heldout), np.arange(31))
    # the splits are not all the same
    assert len({tuple(s.build) for s in splits}) == 20


def test_random_splits_are_seeded() -> None:
    a = random_splits(30, 5, random_state=7)
    b = random_splits(30, 5, random_state=7)
    c = random_splits(30, 5, random_state=8)
    assert all(np.array_equal(x.build, y.build) for x, y in zip(a, b, strict=True))
    assert any(not np.array_equal(x.build, y.build) for x, y in zip(a, c, strict=True))


def test_random_splits_each_model_built_about_half_the_time() -> None:
    splits = random_splits(10, 2000, random_state=0)
    counts = np.bincount(np.concatenate([s.build for s in splits]), minlength=10)
    # each model builds with probability 1/2: 1000 +- 4 sd (sd = sqrt(2000 / 4) ~ 22)
    assert np.all(np.abs(counts - 1000) < 90)


def test_random_splits_reject_bad_sizes() -> None:
    with pytest.raises(InputError):
        random_splits(1, 3)
    with pytest.raises(InputError):
        random_splits(10, 0)
    with pytest.raises(InputError):
        random_splits(10, 2, n_build=10)


DATES = pd.Series(
    pd.to_datetime(["2024-05-01", None, "2023-01-01", "2024-05-01", None, "2025-02-01", "2023-06-01"])
)


def test_chronological_order_sorts_dated_then_undated() -> None:
    order, n_dated = chronological_order(DATES)
    # oldest first, ties by row (rows 0 and 3 share a date), undated rows 1 and 4 last in row order
    assert order.tolist() == [2, 6, 0, 3, 5, 1, 4]
    assert n_dated == 5


def test_chronological_split_builds_on_the_oldest_and_never_on_undated() -> None:
    s = chronological_split(DATES, n_build=3)
    assert s.build.tolist() == [0, 2, 6]
    assert s.heldout.tolist() == [1, 3, 4, 5]
    default = chronological_split(DATES)  # floor(7 / 2) = 3
    assert default.build.tolist() == [0, 2, 6]
    with pytest.raises(InputError, match="undated"):
        chronological_split(DATES, n_build=6)
    limited = chronological_split(DATES, n_build=2, n_heldout=2)
    assert limited.build.tolist() == [2, 6] and limited.heldout.tolist() == [0, 3]


def test_chronological_sensitivity_splits_on_thirty_models() -> None:
    dates = pd.Series(pd.date_range("2023-01-01", periods=30, freq="7D")).sample(frac=1.0, random_state=1)
    splits = chronological_splits(dates.reset_index(drop=True))
    assert [(s.n_build, s.n_heldout) for s in splits] == [(15, 15), (10, 20), (20, 10)]
    d = dates.reset_index(drop=True)
    for s in splits:
        assert d[s.build].max() < d[s.heldout].min()


def test_chronological_needs_dates() -> None:
    with pytest.raises(InputError):
        chronological_split(pd.Series([pd.NaT, pd.NaT, pd.NaT]))


def test_validate_takes_one_selector_and_one_retention_bare() -> None:
    """``selectors="random"`` was split into letters ("unknown selector 'r'"), ``retentions=0.1`` was a
    TypeError (Python API audit s32 f09): one of each is that one, as a list of one."""
    from benchsift.compression.protocols.validation import validate
    from benchsift.simulate import SimulationConfig, simulate_panel

    cfg = SimulationConfig.preset(
        "small", n_models=20, n_benchmarks=2, n_categories=2, items_per_benchmark=60
    )
    panel = simulate_panel(cfg, random_state=0).panel
    kw = {"splits": 2, "floor": 10, "min_heldout": 5, "random_state": 0}
    bare = validate(panel, selectors="random", retentions=0.1, **kw)
    listed = validate(panel, selectors=["random"], retentions=[0.1], **kw)
    assert bare.result.selectors == listed.result.selectors == ["random"]
    np.testing.assert_array_equal(bare.result.macro, listed.result.macro)
