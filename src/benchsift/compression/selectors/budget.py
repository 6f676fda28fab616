"""Budgets of Stage 2: the category budget and the benchmark shares (PRIMEBench section 4.3).

At retention ``r`` a category pool of ``n_C`` items keeps

.. math:: K_C = \\max(\\lfloor r\\, n_C \\rfloor, \\min(n_C, 100))

items (the 100-item floor), and the budget is divided among the category's benchmarks in proportion to their
sizes by the largest-remainder (Hamilton) method, so the shares sum exactly to the budget.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from numbers import Integral, Real

import numpy as np

from benchsift._inputs import check_array
from benchsift._params import Interval, check_param, validate_params
from benchsift.errors import InputError

#: a retention r of PRIMEBench section 4.3: the share of a pool kept, in (0, 1]
RETENTION = Interval(Real, 0, 1, closed="right")
#: the item floor of a category budget (100 in the paper; 0 disables it)
FLOOR = Interval(Integral, 0, None)


@validate_params(
    {
        "n_items": [Interval(Integral, 0, None)],
        "retention": [RETENTION],
        "floor": [FLOOR],
    }
)
def category_budget(n_items: int, retention: float, floor: int = 100) -> int:
    """The category budget ``K_C = max(floor(r * n_C), min(n_C, floor))`` (PRIMEBench section 4.3).

    Parameters
    ----------
    n_items
        ``n_C``, the size of the category pool.
    retention
        ``r`` in (0, 1].
    floor
        The item floor (100 in the paper); 0 disables it.
    """
    # A small epsilon guards against r * n landing just below an integer (0.07 * 100 = 7.000000000000001 is
    # fine, but 0.29 * 100 = 28.999999999999996 must give 29).
    kept = math.floor(retention * n_items + 1e-9)
    return int(max(kept, min(n_items, floor)))


def floor_warning(sizes: dict[str, int], retention: float, floor: int) -> str | None:
    """One warning line when the item floor keeps more than the retention asked, else ``None``.

    ``sizes`` maps each category to its pool size ``n_C``. The floor binds where
    ``min(n_C, floor) > floor(r n_C)`` (:func:`category_budget`); the line names every such category with
    the items it keeps and the share that is, beside what ``r`` alone would keep, and says how to change
    it (``floor=0``, on the command line ``--floor 0``, keeps exactly ``r``). A hidden default that changes
    what the user asked must be said (PRIMEBench section 4.3 sets the floor to 100).
    """
    r = check_retention(retention)
    bound: list[str] = []
    n_all = kept_all = 0
    for name, n in sizes.items():
        n = int(n)
        asked = category_budget(n, r, 0)  # r alone
        budget = category_budget(n, r, floor)
        n_all += n
        kept_all += budget
        if budget > asked:
            bound.append(f"{name} keeps {budget:,} of {n:,} ({100 * budget / n:.1f} %; r alone: {asked:,})")
    if not bound:
        return None
    shown = "; ".join(bound[:6]) + (f"; and {len(bound) - 6} more" if len(bound) > 6 else "")
    return (
        f"the item floor of {floor} (`floor`) overrides retention {r:g} in {len(bound)} of {len(sizes)} "
        f"categor{'y' if len(sizes) == 1 else 'ies'}: {shown}; in all {kept_all:,} of {n_all:,} items "
        f"({100 * kept_all / max(n_all, 1):.1f} %) are kept instead of {100 * r:g} % "
        "(`floor` 0 keeps exactly r)"
    )


def check_retention(retention: float) -> float:
    """Validate a retention ``r`` against :data:`RETENTION` and return it as a float."""
    return float(check_param("retention", retention, [RETENTION]))


@validate_params({"total": [Interval(Integral, 0, None)]})
def largest_remainder_shares(total: int, sizes: Sequence[int] | np.ndarray) -> np.ndarray:
    """Split ``total`` items among groups in proportion to ``sizes`` by the largest-remainder method.

    Each group first gets ``floor(total * n_b / sum(n))``; the items left over go one each to the groups with
    the largest fractional remainders, ties broken by group order (first group first). The shares sum to
    ``total`` and never exceed a group's size when ``total <= sum(sizes)``. Groups of size 0 get 0.
    Integer arithmetic throughout, so the result does not depend on floating-point rounding.

    Returns
    -------
    np.ndarray
        int64 array of shares, one per group.
    """
    n = check_array("sizes", sizes, ndim=1, dtype=np.int64, low=0, what="a 1-D sequence of group sizes")
    total = int(total)
    n_total = int(n.sum())
    if total > n_total:
        raise InputError(f"cannot share {total} items among groups holding only {n_total} items")
    if n_total == 0:
        return np.zeros(n.shape, dtype=np.int64)
    quota_num = total * n  # exact numerators of total * n_b / n_total
    base = quota_num // n_total
    remainder = quota_num - base * n_total
    left = total - int(base.sum())
    # Stable sort on -remainder keeps group order among equal remainders.
    order = np.argsort(-remainder, kind="stable")
    shares = base.copy()
    shares[order[:left]] += 1
    return shares
