"""The statistics functions' parameters, declared once (benchsift._params): each public entry refuses a
broken parameter with one line naming it, what was expected and what was given."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

from benchsift.errors import InputError
from benchsift.stats import (
    WeightStream,
    minimum_detectable_difference,
    percentile_ci,
    rank_interval_pairwise,
    zscore,
)
from benchsift.stats.bootstrap import bootstrap_indices
from benchsift.stats.multitest import reject
from benchsift.stats.ranks import rank_interval
from benchsift.stats.spectrum import components_for_energy, participation_ratio, top_k_energy

X = np.arange(12.0).reshape(4, 3)


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: zscore(X, ddof=-1), "`ddof`: expected an integer >= 0, got -1"),
        (lambda: bootstrap_indices(5, 0), "`n_boot`: expected an integer >= 1, got 0"),
        (lambda: bootstrap_indices(5.0, 3), "`n`: expected an integer >= 1, got 5.0"),  # type: ignore[arg-type]
        (
            lambda: percentile_ci(X, level=1.0),
            "`level`: expected a number strictly between 0 and 1, got 1.0",
        ),
        (
            lambda: rank_interval(X, level=True),
            "`level`: expected a number strictly between 0 and 1, got True",
        ),
        (
            lambda: reject([0.1, 0.2], alpha=2.0),
            "`alpha`: expected a number strictly between 0 and 1, got 2.0",
        ),
        (
            lambda: reject([0.1, 0.2], method="fdr"),
            "`method`: expected one of bh, holm, bonferroni, none, got 'fdr'",
        ),
        (
            lambda: minimum_detectable_difference(0.1, power=1.5),
            "`power`: expected a number strictly between 0 and 1, got 1.5",
        ),
        (lambda: components_for_energy(X, level=0), "`level`: expected a number in (0, 1], got 0"),
        (
            lambda: participation_ratio(X, values="energy"),  # type: ignore[arg-type]
            "`values`: expected singular or eigen, got 'energy'",
        ),
        (lambda: top_k_energy(X, k=0), "`k`: expected an integer >= 1, got 0"),
        (lambda: WeightStream(5, 10, 0, n_draw=2.5), "`n_draw`: expected an integer >= 1 or None, got 2.5"),  # type: ignore[arg-type]
    ],
)
def test_declared_parameter_refused_with_one_line(call: Callable[[], Any], message: str) -> None:
    with pytest.raises(InputError) as info:
        call()
    assert str(info.value) == message


def test_shape_and_axis_rules_are_one_shared_check() -> None:
    with pytest.raises(
        InputError, match=r"^samples: expected replicates of shape \(n_boot, 3\), got shape \(4, 2\)$"
    ):
        rank_interval_pairwise(np.zeros(3), np.zeros((4, 2)))
    with pytest.raises(
        InputError, match=r"^X: expected an array with at least 1 dimension, got array\(3\.\)$"
    ):
        zscore(3.0)
    with pytest.raises(InputError, match="^axis: "):
        percentile_ci(X, axis=2)


def test_numpy_scalars_are_numbers() -> None:
    """A level that arrives as a numpy scalar (a column of a frame) is a number: the same interval."""
    lo, hi = percentile_ci(np.arange(101.0), level=np.float32(0.5))  # type: ignore[arg-type]
    assert (lo, hi) == (25.0, 75.0)
    assert components_for_energy(np.eye(4), level=np.float32(0.5)) == 2  # type: ignore[arg-type]
