"""Shared checks of the prism tests, and the engine fixtures of tests/support (engine_fixtures.py)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from engine_fixtures import _key, server, world  # noqa: E402, F401  (shared engine fixtures)

#: JSON keys the issue promises other tools (``prism analyze``; ``prism score`` adds SCORE_KEYS).
ANALYZE_KEYS: tuple[str, ...] = (
    "pscore",
    "aggregates",
    "effective_weights",
    "dominant_axis_counts",
    "leave_one_axis_out",
    "aggregator_pearson_with_q",
    "axis_correlation",
    "ranges",
)
SCORE_KEYS: tuple[str, ...] = ("separation", "ci", "rank_ci")


def _check(obj: dict[str, Any], axes: set[str], models: set[str], score: bool) -> None:
    for key in ANALYZE_KEYS + (SCORE_KEYS if score else ()):
        assert key in obj, key
    assert set(obj["pscore"]) == models
    assert set(obj["aggregates"]) == {"harmonic", "geometric", "arithmetic", "min"}
    assert all(set(v) == models for v in obj["aggregates"].values())
    assert set(obj["effective_weights"]) == axes
    assert set(obj["dominant_axis_counts"]) == axes
    assert sum(obj["dominant_axis_counts"].values()) == len(models)
    assert set(obj["leave_one_axis_out"]) == axes
    assert set(obj["aggregator_pearson_with_q"]) == {"harmonic", "geometric", "arithmetic"}
    assert set(obj["axis_correlation"]) == axes | {"PScore"}
    assert all(set(row) == axes | {"PScore"} for row in obj["axis_correlation"].values())
    assert set(obj["ranges"]) == axes | {"PScore"}
    if score:
        assert set(obj["separation"]) == {"raw", "bh", "bonferroni"}
        for key in ("ci", "rank_ci"):
            assert set(obj[key]) == models
            assert all(len(v) == 2 and v[0] <= v[1] for v in obj[key].values())


@pytest.fixture
def check_summary_keys() -> Callable[[dict[str, Any], set[str], set[str], bool], None]:
    """``check(obj, axes, models, score)``: the issue's JSON keys and their shapes."""
    return _check
