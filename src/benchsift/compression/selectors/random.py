"""Random item selection, the reference baseline of PRIMEBench section 5 (and Table 24).

Keeps ``k`` items of the pool drawn uniformly without replacement from a seeded generator; the model scores
are read only for validation (by :meth:`~ItemSelector.select`; the held-out protocols, which check the
panel once, give it none: ``reads`` is empty). The estimate of a model's pool mean is the plain mean of its
kept items (the base class default), an unbiased estimate of the pool mean under simple random sampling.
"""

from __future__ import annotations

from typing import ClassVar

import numpy as np

from benchsift.compression.selectors.base import ItemSelector, SelectorInput
from benchsift.stats import check_random_state

__all__ = ["RandomSelector"]


class RandomSelector(ItemSelector):
    """Uniform random sample of ``k`` items (seeded).

    Parameters
    ----------
    random_state
        Seed (int, ``None`` or a ``numpy.random.Generator``); the same seed keeps the same items.

    Fitted attributes
    -----------------
    ``support_``, ``item_scores_`` (all NaN: Random ranks nothing), ``reasons_`` (``"random"``).
    """

    name = "random"
    #: what _select looks at (the held-out protocols gather nothing else for it)
    reads: ClassVar[frozenset[str]] = frozenset()

    def __init__(self, random_state: int | np.random.Generator | None = 0) -> None:
        self.random_state = random_state

    def _select(self, inp: SelectorInput) -> np.ndarray:
        """Keep ``k`` items drawn uniformly without replacement (sorted positions)."""
        rng = check_random_state(self.random_state)
        n = inp.n_items
        kept = rng.permutation(n)[: inp.k].astype(np.int64)
        reasons = np.full(kept.shape[0], "random", dtype=object)
        return self._set_fitted(n, kept, reasons, np.full(n, np.nan))
