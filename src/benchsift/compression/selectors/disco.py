"""DISCO prediction-disagreement item selection (Rubinstein et al. 2026; PRIMEBench section 5, H.2).

DISCO ("Diversifying Sample Condensation") keeps the ``K`` samples on which the source models disagree most.
Its disagreement scores, computed per item over the build models' outputs, are

* the predictive diversity score (``criterion="pds"``, default): the number of distinct predictions,
  ``PDS_i = sum_c max_m 1[y_hat_{m,i} = c]``, i.e. how many different answers the models give;
* the Jensen-Shannon divergence of the models' predictive distributions (``criterion="jsd"``). With logged
  hard answers each model's distribution is one-hot, and the generalised JSD reduces to the entropy (in nats)
  of the empirical distribution of the answers, ``H(p_hat_i) = -sum_c p_hat_ic log p_hat_ic``.

PRIMEBench applies DISCO to the *logged model answers* (section 5): pass them as ``predictions`` (a
``(n_models, n_items)`` array of answer labels, ``None``/NaN = missing) to :meth:`DiscoSelector.select`.
Without logged answers the outcomes are the scaled scores themselves, so on 0/1 data PDS is the number of
distinct outcomes (1 or 2: every item that splits the models ties at 2 and the seeded tie-break decides);
scores are rounded to ``decimals`` before counting so floating-point noise does not create outcomes. Missing
entries are skipped. DISCO's learned performance predictor (a metamodel on model signatures) is not used: as
in the paper, the selected items are scored by their mean (the base-class :meth:`~ItemSelector.estimate`).
"""

from __future__ import annotations

from numbers import Integral
from typing import Any, ClassVar, Literal

import numpy as np
import pandas as pd

from benchsift._inputs import check_array
from benchsift._params import ConstraintLike, Interval, Options
from benchsift.compression.selectors.base import (
    ItemSelector,
    SelectorInput,
    check_selector_input,
    top_k_positions,
)
from benchsift.stats import check_random_state

__all__ = ["DiscoSelector", "answer_codes", "disagreement_scores"]

Criterion = Literal["pds", "jsd"]


def answer_codes(predictions: Any, shape: tuple[int, int]) -> np.ndarray:
    """Integer codes (``>= 0``) of logged answers, ``-1`` where missing; one code per distinct label.

    ``predictions`` is a ``(n_models, n_items)`` array-like of hashable labels; ``None`` and float NaN are
    missing.
    """
    arr = check_array(
        "predictions", predictions, shape=shape, dtype=object, what=f"shape {shape} (models x items)"
    )
    flat = pd.Series(arr.ravel())
    codes, _ = pd.factorize(flat, use_na_sentinel=True)  # None / NaN -> -1
    return codes.reshape(shape).astype(np.int64)


def _score_codes(scores: np.ndarray, decimals: int) -> np.ndarray:
    """Scores rounded to ``decimals`` as integer outcome codes per item column, ``-1`` where missing."""
    valid = ~np.isnan(scores)
    scaled = np.where(valid, np.round(scores * 10.0**decimals), -1.0)
    return scaled.astype(np.int64)


def disagreement_scores(codes: np.ndarray, criterion: Criterion = "pds") -> np.ndarray:
    """Per item (column) disagreement of integer answer codes (``-1`` = missing).

    ``"pds"``: number of distinct answers; ``"jsd"``: entropy (nats) of the empirical answer distribution.
    Items with no answer get NaN. Vectorized: one sort along the models axis.
    """
    s = np.sort(codes, axis=0)
    valid = s >= 0
    n_valid = valid.sum(axis=0)
    first = np.ones_like(s, dtype=bool)
    if s.shape[0] > 1:
        first[1:] = s[1:] != s[:-1]
    starts = first & valid  # the first row of each run of equal valid codes
    if criterion == "pds":
        out = starts.sum(axis=0).astype(np.float64)
    else:
        # Run lengths: for each run start, the distance to the next start (or to the end of the column).
        m, n = s.shape
        pos = np.broadcast_to(np.arange(m)[:, None], (m, n))
        boundary = first | ~valid
        nxt = np.where(boundary, pos, m)
        # next boundary strictly after each row: reverse cumulative minimum shifted by one
        after = np.minimum.accumulate(nxt[::-1], axis=0)[::-1]
        after_next = np.vstack([after[1:], np.full((1, n), m)])
        run_len = np.where(starts, after_next - pos, 0).astype(np.float64)
        with np.errstate(invalid="ignore", divide="ignore"):
            p = run_len / n_valid
            terms = np.where(run_len > 0, -p * np.log(np.where(run_len > 0, p, 1.0)), 0.0)
        out = terms.sum(axis=0)
    out[n_valid == 0] = np.nan
    return out


class DiscoSelector(ItemSelector):
    """Top-``K`` items by model disagreement (DISCO, Rubinstein et al. 2026), scored by their mean.

    Parameters
    ----------
    criterion
        ``"pds"`` (number of distinct answers, default) or ``"jsd"`` (entropy of the answer distribution).
    decimals
        Rounding of scaled scores before counting outcomes when no ``predictions`` are given.
    random_state
        Seed of the tie-breaking order (PDS ties are frequent: on 0/1 scores every split item scores 2).

    Fitted attributes
    -----------------
    ``support_``, ``item_scores_`` (the disagreement score), ``reasons_`` (``"top"``), ``source_``
    (``"predictions"`` or ``"scores"``: which outcomes were counted).
    """

    name = "disco"
    _parameter_constraints: ClassVar[dict[str, list[ConstraintLike]]] = {
        "criterion": [Options(["pds", "jsd"])],
        "decimals": [Interval(Integral, 0, 12)],
    }

    def __init__(
        self,
        criterion: Criterion = "pds",
        decimals: int = 6,
        random_state: int | np.random.Generator | None = 0,
    ) -> None:
        self.criterion = criterion
        self.decimals = decimals
        self.random_state = random_state

    def select(
        self,
        scores: np.ndarray,
        k: int,
        *,
        embeddings: np.ndarray | None = None,
        text_embeddings: np.ndarray | None = None,
        item_meta: pd.DataFrame | None = None,
        predictions: Any = None,
    ) -> np.ndarray:
        """Keep the ``k`` items with the most disagreement (sorted positions).

        ``predictions``: optional logged answers of the same build models, ``(n_models, n_items)`` labels;
        without them the distinct score values stand in for the answers.
        """
        self._check_params()
        inp = check_selector_input(
            scores, k, embeddings=embeddings, text_embeddings=text_embeddings, item_meta=item_meta
        )
        if predictions is not None:
            codes = answer_codes(predictions, inp.scores.shape)
            self.source_ = "predictions"
        else:
            codes = _score_codes(inp.scores, int(self.decimals))
            self.source_ = "scores"
        return self._keep_most_disagreement(inp, codes)

    def _select(self, inp: SelectorInput) -> np.ndarray:
        self.source_ = "scores"
        return self._keep_most_disagreement(inp, _score_codes(inp.scores, int(self.decimals)))

    def _keep_most_disagreement(self, inp: SelectorInput, codes: np.ndarray) -> np.ndarray:
        d = disagreement_scores(codes, self.criterion)
        kept = top_k_positions(d, inp.k, check_random_state(self.random_state))
        return self._set_fitted(inp.n_items, kept, np.full(kept.shape[0], "top", dtype=object), d)
