"""Stage 2 budgets: the category budget K_C and the largest-remainder benchmark shares (PRIMEBench 4.3)."""

from __future__ import annotations

import numpy as np
import pytest

from benchsift.compression.selectors.budget import category_budget, largest_remainder_shares
from benchsift.errors import InputError


@pytest.mark.parametrize(
    ("n", "r", "floor", "expected"),
    [
        (1000, 0.05, 100, 100),  # floor(50) < min(1000, 100) = 100
        (5000, 0.05, 100, 250),  # floor(250) wins
        (60, 0.05, 100, 60),  # small pool: min(n, 100) = n, the whole pool
        (2900, 0.01, 100, 100),  # floor(29) < 100
        (12345, 0.1, 100, 1234),  # floor(1234.5)
        (100, 0.29, 0, 29),  # 0.29 * 100 = 28.999999999999996 in floating point; still 29
        (10, 1.0, 100, 10),
        (0, 0.05, 100, 0),
        (637, 0.05, 100, 100),  # Academic Knowledge pool of Table 9 keeps the 100-item floor
        (342, 0.05, 100, 100),  # Object Recognition pool of Table 9
    ],
)
def test_category_budget_formula(n: int, r: float, floor: int, expected: int) -> None:
    assert category_budget(n, r, floor) == expected


@pytest.mark.parametrize("r", [0.0, -0.1, 1.5, float("nan"), "x"])
def test_category_budget_rejects_bad_retention(r: object) -> None:
    with pytest.raises(InputError, match="retention"):
        category_budget(100, r)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("total", "sizes", "expected"),
    [
        (10, [5, 3, 2], [5, 3, 2]),  # exact quotas
        (7, [5, 3, 2], [4, 2, 1]),  # quotas 3.5, 2.1, 1.4: the one left goes to remainder .5
        (1, [2, 2], [1, 0]),  # tie of remainders: first group first
        (5, [1] * 6, [1, 1, 1, 1, 1, 0]),
        (100, [637, 0, 363], [64, 0, 36]),  # 63.7 -> 63 (+1, rem .7), 36.3 -> 36: 63 + 36 = 99, one left
        (0, [4, 5], [0, 0]),
        (9, [9], [9]),
    ],
)
def test_largest_remainder_by_hand(total: int, sizes: list[int], expected: list[int]) -> None:
    shares = largest_remainder_shares(total, sizes)
    assert shares.tolist() == expected
    assert int(shares.sum()) == total


def test_largest_remainder_properties_random() -> None:
    rng = np.random.default_rng(3)
    for _ in range(200):
        sizes = rng.integers(0, 500, size=rng.integers(1, 12))
        if sizes.sum() == 0:
            continue
        total = int(rng.integers(0, sizes.sum() + 1))
        shares = largest_remainder_shares(total, sizes)
        assert shares.sum() == total
        assert np.all(shares <= sizes)
        quota = total * sizes / sizes.sum()
        # Hamilton's method: every share is its quota rounded down or up.
        assert np.all(shares >= np.floor(quota)) and np.all(shares <= np.floor(quota) + 1)


def test_largest_remainder_errors() -> None:
    with pytest.raises(InputError, match="only 5 items"):
        largest_remainder_shares(6, [2, 3])
    with pytest.raises(InputError, match=">= 0"):
        largest_remainder_shares(1, [2, -1])
