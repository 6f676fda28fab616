"""Variance item selection, the category-wide top-K baseline of PRIMEBench section 5.

The score is the variance score of PRIMEBench Eq. 5 for item ``i`` with ``M_i`` valid (non-NaN) model scores,

.. math::

    \\hat\\sigma^2_i = \\frac{1}{\\sqrt{M_i}} \\sum_{m} (x_{m,i} - \\bar x_i)^2,

ranked, as section 4.3 prescribes when ``M_i`` differs across items, by the divided score
``\\hat\\sigma^2_i / \\sqrt{M_i} = \\hat v_i`` (the plug-in variance, ddof 0); for a common ``M`` this is
the same ranking as Eq. 5 itself (``rank_by="eq5"`` ranks by the undivided score). The selector keeps the
``K`` items with the largest score over the whole pool: no benchmark shares and no coverage cells (section 5,
"Variance selects the category-wide top-K items by Equation 5"). Ties are broken in a seeded random order (as
in the paper's main comparison, D.3, Tables 9-11); items with no valid score rank last. This is VAW with
``alpha = 0`` and no shares or cells.

``tie_break="index"`` breaks ties by item index instead, the Variance of PRIMEBench Tables 12 and 14
("Variance here breaks ties by item index"); it is registered as its own selector, ``variance-index``
(:class:`IndexTieVarianceSelector`), so both variants can run side by side in one protocol.
"""

from __future__ import annotations

from typing import ClassVar, Literal

import numpy as np

from benchsift._params import ConstraintLike, Options
from benchsift.compression.selectors.base import (
    ItemSelector,
    SelectorInput,
    item_variance,
    top_k_positions,
)
from benchsift.stats import check_random_state

__all__ = ["IndexTieVarianceSelector", "VarianceSelector", "variance_scores"]

RankBy = Literal["plugin", "eq5"]
TieBreak = Literal["random", "index"]


def variance_scores(scores: np.ndarray, rank_by: RankBy = "plugin") -> tuple[np.ndarray, np.ndarray]:
    """The ranked variance score and Eq. 5 for every item of ``scores`` (models x items, NaN allowed).

    Returns ``(score, sigma2)``: ``sigma2_i = sqrt(M_i) * v_i`` is Eq. 5 and ``score`` is ``v_i`` (the plug-in
    variance) for ``rank_by="plugin"`` or ``sigma2_i`` for ``rank_by="eq5"``; both NaN when ``M_i = 0``.
    """
    v, m = item_variance(np.asarray(scores, dtype=np.float64))
    sigma2 = np.sqrt(m.astype(np.float64)) * v
    return (v if rank_by == "plugin" else sigma2), sigma2


class VarianceSelector(ItemSelector):
    """Category-wide top-``K`` items by the variance score (PRIMEBench Eq. 5, section 5).

    Parameters
    ----------
    rank_by
        ``"plugin"`` (default): rank by ``sigma^2_i / sqrt(M_i)``, the plug-in variance (section 4.3);
        ``"eq5"``: rank by Eq. 5 itself. The two agree when every item has the same number of valid scores.
    tie_break
        ``"random"`` (default): ties in a seeded random order; ``"index"``: by item index (Tables 12, 14).
    random_state
        Seed of the tie-breaking order (unused with ``tie_break="index"``).

    Fitted attributes
    -----------------
    ``support_``, ``item_scores_`` (the ranked score), ``reasons_`` (``"top"``), ``variance_`` (Eq. 5),
    ``n_valid_`` (``M_i``).
    """

    name = "variance"
    #: what _select looks at (the held-out protocols gather nothing else for it)
    reads: ClassVar[frozenset[str]] = frozenset({"scores"})
    _parameter_constraints: ClassVar[dict[str, list[ConstraintLike]]] = {
        "rank_by": [Options(["plugin", "eq5"])],
        "tie_break": [Options(["random", "index"])],
    }

    def __init__(
        self,
        rank_by: RankBy = "plugin",
        tie_break: TieBreak = "random",
        random_state: int | np.random.Generator | None = 0,
    ) -> None:
        self.rank_by = rank_by
        self.tie_break = tie_break
        self.random_state = random_state

    def _select(self, inp: SelectorInput) -> np.ndarray:
        """Keep the ``k`` items with the largest variance score (sorted positions)."""
        score, sigma2 = variance_scores(inp.scores, self.rank_by)
        rng = check_random_state(self.random_state) if self.tie_break == "random" else None
        kept = top_k_positions(score, inp.k, rng)
        out = self._set_fitted(inp.n_items, kept, np.full(kept.shape[0], "top", dtype=object), score)
        self.variance_ = sigma2
        self.n_valid_ = (~np.isnan(inp.scores)).sum(axis=0).astype(np.int64)
        return out


class IndexTieVarianceSelector(VarianceSelector):
    """:class:`VarianceSelector` with ties broken by item index (the Variance of PRIMEBench Tables 12, 14)."""

    name = "variance-index"

    def __init__(
        self,
        rank_by: RankBy = "plugin",
        tie_break: TieBreak = "index",
        random_state: int | np.random.Generator | None = 0,
    ) -> None:
        super().__init__(rank_by=rank_by, tie_break=tie_break, random_state=random_state)
