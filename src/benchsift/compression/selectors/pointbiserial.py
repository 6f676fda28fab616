"""DatBench point-biserial item discrimination as an item selector (Joshi et al. 2026; PRIMEBench D.1).

DatBench ranks items by their point-biserial correlation ``r_pb`` between an item's correctness and the
models' overall score. PRIMEBench feeds every selector but IRT 2PL the scaled scores in [0, 1] (Appendix D.1),
so ``r_pb`` becomes the Pearson item-rest correlation on continuous scores, which equals the point-biserial
correlation on binary ones:

.. math::

    r_i = \\operatorname{corr}_m\\bigl(x_{m,i},\\; R_{m,-i}\\bigr), \\qquad
    R_{m,-i} = \\frac{1}{|V_{m,-i}|} \\sum_{j \\in V_{m,-i}} x_{m,j},
    \\qquad V_{m,-i} = \\{j \\ne i : x_{m,j}\\ \\text{valid}\\},

the rest score ``R`` being the model's mean over the *other* valid items of the pool (the item itself is left
out so that it does not correlate with itself). The correlation is pairwise-complete over the models with both
values; it is undefined (NaN, ranked last) when the item or its rest score is constant or fewer than 2 models
remain. The selector keeps the ``K`` items with the largest ``r_i`` over the whole pool (category-wide, like
Variance), ties in a seeded random order.
"""

from __future__ import annotations

from typing import ClassVar

import numpy as np

from benchsift.compression.selectors.base import (
    ItemSelector,
    SelectorInput,
    top_k_positions,
)
from benchsift.stats import check_random_state
from benchsift.stats.correlation import paired_columns

__all__ = ["PointBiserialSelector", "item_rest_correlation", "rest_scores"]


def rest_scores(scores: np.ndarray) -> np.ndarray:
    """``R[m, i]``: model ``m``'s mean over its valid scores on every pool item but ``i`` (NaN when none).

    Vectorized: the row sums and counts minus the item's own contribution.
    """
    x = np.asarray(scores, dtype=np.float64)
    valid = ~np.isnan(x)
    x0 = np.where(valid, x, 0.0)
    total = x0.sum(axis=1, keepdims=True)
    count = valid.sum(axis=1, keepdims=True).astype(np.float64)
    num = total - x0
    den = count - valid
    with np.errstate(invalid="ignore", divide="ignore"):
        rest = num / den
    rest[den <= 0] = np.nan
    return rest


def item_rest_correlation(scores: np.ndarray) -> np.ndarray:
    """DatBench ``r_pb``: Pearson item-rest correlation of each item (PRIMEBench D.1); NaN if undefined."""
    x = np.asarray(scores, dtype=np.float64)
    if x.shape[1] == 0:
        return np.empty(0)
    return paired_columns(x, rest_scores(x), "plcc")


class PointBiserialSelector(ItemSelector):
    """Top-``K`` items by the item-rest (point-biserial) correlation ``r_pb`` (DatBench; PRIMEBench D.1).

    Parameters
    ----------
    random_state
        Seed of the tie-breaking order.

    Fitted attributes
    -----------------
    ``support_``, ``item_scores_`` (``r_pb`` per item, NaN where undefined), ``reasons_`` (``"top"``).
    """

    name = "pointbiserial"
    #: what _select looks at (the held-out protocols gather nothing else for it)
    reads: ClassVar[frozenset[str]] = frozenset({"scores"})

    def __init__(self, random_state: int | np.random.Generator | None = 0) -> None:
        self.random_state = random_state

    def _select(self, inp: SelectorInput) -> np.ndarray:
        """Keep the ``k`` items with the largest item-rest correlation (sorted positions)."""
        r = item_rest_correlation(inp.scores)
        kept = top_k_positions(r, inp.k, check_random_state(self.random_state))
        return self._set_fitted(inp.n_items, kept, np.full(kept.shape[0], "top", dtype=object), r)
