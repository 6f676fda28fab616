"""The item-selector interface shared by every Stage 2 selector (PRIMEBench section 4.3, Appendix D).

A selector picks ``k`` items of one item pool (a category pool in Stage 2) from a models x items score matrix.
It has the shape of a scikit-learn estimator (compare ``sklearn.feature_selection.SelectorMixin``):

* ``__init__`` only stores its parameters (keyword arguments with defaults, one attribute per parameter,
  always including ``random_state``); :class:`ItemSelector` derives from :class:`sklearn.base.BaseEstimator`,
  so ``get_params``, ``set_params``, ``sklearn.base.clone`` and ``repr`` work unchanged.
* :meth:`ItemSelector.select` validates its input with :func:`check_selector_input`, fits, sets the fitted
  attributes (names ending in ``_``) and returns the kept item positions (int64, sorted ascending, unique,
  at most ``k`` of them; fewer only when the pool has fewer than ``k`` items)::

      select(scores, k, *, embeddings=None, text_embeddings=None, item_meta=None) -> np.ndarray

  - ``scores``: ``(n_models, n_items)`` float array in [0, 1], ``NaN`` = missing (never zero). In the
    held-out protocols these are the *build* models only.
  - ``k``: the number of items to keep (the category budget ``K_C`` in Stage 2).
  - ``embeddings``: ``(n_items, d)`` vision-text embeddings ``E^VL``, a row of ``NaN`` = no embedding.
  - ``text_embeddings``: ``(n_items, d)`` text-only embeddings ``E^L`` of the same encoder, ``NaN`` rows.
  - ``item_meta``: a DataFrame with one row per item (RangeIndex), at least ``benchmark`` when the pool
    spans several benchmarks (selectors that allocate benchmark shares read it), any panel item columns.

  Fitted attributes every selector sets:

  - ``support_``: ``(n_items,)`` bool, True for the kept items;
  - ``item_scores_``: ``(n_items,)`` float, the score the selector ranks by (NaN where it has none, e.g.
    Random);
  - ``reasons_``: ``(n_kept,)`` object array of short labels saying why each kept item (in the order of the
    returned positions) was kept, e.g. ``"cell"`` / ``"completion"`` for VAW, ``"top"`` for Variance.

  Optional fitted attributes: ``weights_`` (``(n_kept,)`` weights used by :meth:`ItemSelector.estimate`,
  e.g. AnchorPoints cluster sizes), ``shares_`` (benchmark -> number of kept items for share-based
  selectors), anything else the method has (``q_``, ``cell_labels_``, IRT parameters...).

* :meth:`ItemSelector.estimate` turns the kept items' scores of (new) models into an estimate of each model's
  mean over the whole pool. The default is the NaN-aware (weighted, when ``weights_`` is set) mean; selectors
  with a model-based estimator (p-IRT of tinyBenchmarks) override it.

Randomness: every random choice draws from ``check_random_state(self.random_state)`` resolved once per
:meth:`select` call, so the same ``random_state`` gives the same selection. Ties in a ranking are broken in a
seeded random order (:func:`top_k_positions`), never by item index, unless a selector documents otherwise.

To add a selector (issue 6: Random, Variance, DISCO, point-biserial, IRT 2PL, AnchorPoints): subclass
:class:`ItemSelector`, give ``__init__`` keyword parameters stored as is, check them in ``_check_params``,
implement ``_select(inp)`` on the validated :class:`SelectorInput` (the public :meth:`select` validates
once and calls it; a selector with extra inputs, like DISCO's logged answers, overrides :meth:`select`
itself and calls :func:`check_selector_input` first); finish with ``return self._set_fitted(n_items, kept,
reasons, item_scores)``, which sets the three fitted attributes and returns the sorted positions; set a class
attribute ``name`` (and ``reads`` when ``_select`` ignores some inputs), and register the class under that
name in :data:`benchsift.compression.selectors.SELECTORS`. Helpers: :func:`item_variance` (NaN-aware plug-in
variance and valid counts), :func:`top_k_positions` (top-k with seeded random ties),
``category_budget`` / ``largest_remainder_shares`` (Stage 2 budgets).
Stage 2 (:func:`benchsift.compression.stages.prune.stage2_prune`) calls ``select`` once per category pool
with ``k = K_C``; a selector that wants benchmark shares reads ``item_meta["benchmark"]``.
"""

from __future__ import annotations

from abc import ABC
from dataclasses import dataclass
from numbers import Integral
from typing import Any, ClassVar

import numpy as np
import pandas as pd
from sklearn.base import BaseEstimator

from benchsift._inputs import check_array, check_length
from benchsift._params import Check, ConstraintLike, Interval, check_param, check_params
from benchsift.compression.embeddings import check_embedding_matrix

__all__ = [
    "ItemSelector",
    "SELECTOR_SPEC",
    "SelectorInput",
    "check_selector_input",
    "inputs_read",
    "item_variance",
    "top_k_positions",
]

#: how a message names a cell of a (models x items) array
_MODEL_ITEM = ("model row", "item column")


@dataclass(frozen=True)
class SelectorInput:
    """Validated selector input (see :func:`check_selector_input`)."""

    scores: np.ndarray
    k: int
    embeddings: np.ndarray | None
    text_embeddings: np.ndarray | None
    item_meta: pd.DataFrame | None

    @property
    def n_items(self) -> int:
        return int(self.scores.shape[1])


def check_selector_input(
    scores: Any,
    k: Any,
    *,
    embeddings: Any = None,
    text_embeddings: Any = None,
    item_meta: pd.DataFrame | None = None,
) -> SelectorInput:
    """Validate the arguments of :meth:`ItemSelector.select` once, at the public entry point.

    ``scores`` must be a 2-D numeric array with values in [0, 1] or NaN; ``k`` a non-negative integer (clipped
    to the number of items); embeddings ``(n_items, d)`` with whole-NaN rows for missing ones; ``item_meta``
    one row per item. Raises :class:`~benchsift.errors.InputError` naming the argument otherwise.
    """
    s = check_array(
        "scores", scores, ndim=2, what="a 2-D (n_models, n_items) array", low=0, high=1, axes=_MODEL_ITEM
    )
    check_param("k", k, [Interval(Integral, 0, None, desc="a non-negative integer")], quote=False)
    n_items = s.shape[1]

    def matrix(x: Any, name: str) -> np.ndarray | None:
        return None if x is None else check_embedding_matrix(x, name, dtype=np.float64, n_rows=n_items)

    emb = matrix(embeddings, "embeddings")
    temb = matrix(text_embeddings, "text_embeddings")
    meta = None
    if item_meta is not None:
        check_param("item_meta", item_meta, [pd.DataFrame], quote=False)
        check_length("item_meta", item_meta, n_items, "rows (one per item)")
        meta = item_meta.reset_index(drop=True)
    return SelectorInput(s, min(int(k), n_items), emb, temb, meta)


def item_variance(scores: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per-item plug-in variance over the valid models and the valid-model counts.

    Returns ``(v, m)`` with ``m_i`` the number of non-NaN scores of item ``i`` and
    ``v_i = (1/m_i) sum_m (x_mi - xbar_i)^2`` (ddof 0; NaN when ``m_i == 0``). Two passes over the data, no
    warnings on all-missing columns.
    """
    valid = ~np.isnan(scores)
    m = valid.sum(axis=0).astype(np.int64)
    x = np.where(valid, scores, 0.0)
    with np.errstate(invalid="ignore", divide="ignore"):
        mean = x.sum(axis=0) / m
        dev = np.where(valid, scores - mean, 0.0)
        v = (dev * dev).sum(axis=0) / m
    v[m == 0] = np.nan
    return v, m


def top_k_positions(score: np.ndarray, k: int, rng: np.random.Generator | None) -> np.ndarray:
    """Positions of the ``k`` highest scores, ties broken in a seeded random order (``rng``) or, with
    ``rng=None``, by item index (lower first); NaN ranks last.

    Returns the positions in selection order (best first). Vectorized: one ``np.lexsort``.
    """
    n = score.shape[0]
    k = min(int(k), n)
    if k <= 0:
        return np.empty(0, dtype=np.int64)
    key = np.where(np.isnan(score), -np.inf, score)
    tiebreak = rng.permutation(n) if rng is not None else np.arange(n)
    order = np.lexsort((tiebreak, -key))
    return order[:k].astype(np.int64)


def inputs_read(selector: type[ItemSelector]) -> frozenset[str]:
    """The inputs a selector class's ``_select`` reads: :attr:`ItemSelector.reads` of the nearest class of its
    MRO that declares ``reads`` or defines ``_select``, every input when that class defines ``_select`` but
    declares no ``reads`` (a subclass of Random whose own ``_select`` reads the scores gets them)."""
    for klass in selector.__mro__:
        own = vars(klass)
        if "reads" in own:
            return frozenset(own["reads"])
        if "_select" in own:
            return ItemSelector.reads
    return ItemSelector.reads


class ItemSelector(BaseEstimator, ABC):
    """Base class of the item selectors (see the module docstring for the full contract).

    Subclasses store their keyword parameters in ``__init__`` (always ``random_state``), implement
    ``_select`` (or :meth:`select`), and set ``support_``, ``item_scores_`` and ``reasons_``.
    """

    #: Short name used by the CLI and the registry (``"vaw"``, ``"variance"``...).
    name: str = "selector"
    #: The constructor's parameters, declared once (:mod:`benchsift._params`); :meth:`_check_params`
    #: checks them at :meth:`select`, scikit-learn's ``_parameter_constraints``.
    _parameter_constraints: ClassVar[dict[str, list[ConstraintLike]]] = {}
    #: The inputs :meth:`_select` reads (of ``scores``, ``embeddings``, ``text_embeddings``, ``item_meta``).
    #: The held-out protocols gather and check only these for a selection
    #: (:class:`benchsift.compression.protocols.pools.PoolInputs`; :func:`inputs_read`) and give ``None``
    #: for the others; a selector that reads nothing (Random) gets the scores as none of the models' rows
    #: (an ``(0, n_items)`` array, so ``n_items`` still counts the pool). :meth:`select` checks every input
    #: it is given, as ever. Declare it narrower only for a selector whose ``_select`` never looks at the
    #: rest; a subclass that overrides ``_select`` without declaring it again reads everything.
    reads: ClassVar[frozenset[str]] = frozenset({"scores", "embeddings", "text_embeddings", "item_meta"})

    def select(
        self,
        scores: np.ndarray,
        k: int,
        *,
        embeddings: np.ndarray | None = None,
        text_embeddings: np.ndarray | None = None,
        item_meta: pd.DataFrame | None = None,
    ) -> np.ndarray:
        """Fit on ``scores`` and return the sorted positions of the kept items (at most ``k``).

        The parameters and the inputs are validated here, once (:meth:`_check_params`,
        :func:`check_selector_input`); the selection itself is the subclass's :meth:`_select`.
        """
        self._check_params()  # before the input, as ever: a bad parameter is named first
        inp = check_selector_input(
            scores, k, embeddings=embeddings, text_embeddings=text_embeddings, item_meta=item_meta
        )
        return self._select(inp)

    def select_checked(self, inp: SelectorInput) -> np.ndarray:
        """:meth:`select` on input :func:`check_selector_input` has already checked (a caller that selects
        many times from one pool checks its input once): the parameters are validated, then
        :meth:`_select`."""
        self._check_params()
        return self._select(inp)

    def _check_params(self) -> None:
        """Raise :class:`~benchsift.errors.InputError` naming a constructor parameter that is not valid:
        each against :attr:`_parameter_constraints` (``"<name> `param`: expected ..., got ..."``); a
        subclass with rules that tie parameters together adds them after ``super()._check_params()``."""
        check_params(self._parameter_constraints, vars(self), owner=self.name)

    def _select(self, inp: SelectorInput) -> np.ndarray:
        """Select from validated input; set the fitted attributes; return the sorted kept positions.

        Subclasses implement this (or override :meth:`select` itself when they take extra inputs).
        """
        raise NotImplementedError(f"{type(self).__name__} implements neither _select nor select")

    def estimate(self, kept_scores: np.ndarray) -> np.ndarray:
        """Estimate each model's mean over the whole pool from its scores on the kept items.

        ``kept_scores`` is ``(n_models, n_kept)`` with columns in the order of the positions :meth:`select`
        returned. Default: NaN-aware mean, weighted by ``weights_`` when the selector set it. A model with no
        score on the kept items gets NaN.
        """
        weights = getattr(self, "weights_", None)
        n_kept = None if weights is None else len(weights)
        x = check_array(
            "kept_scores",
            kept_scores,
            shape=(None, n_kept),
            what="a 2-D (n_models, n_kept) array of the kept items",
        )
        w = np.ones(x.shape[1]) if weights is None else np.asarray(weights, dtype=np.float64)
        valid = ~np.isnan(x)
        wsum = valid.astype(np.float64) @ w
        total = np.where(valid, x, 0.0) @ w
        with np.errstate(invalid="ignore", divide="ignore"):
            out = total / wsum
        out[wsum <= 0] = np.nan
        return out

    def _set_fitted(
        self, n_items: int, kept: np.ndarray, reasons: np.ndarray, item_scores: np.ndarray
    ) -> np.ndarray:
        """Set the three mandatory fitted attributes; return the kept positions sorted (int64)."""
        kept = np.asarray(kept, dtype=np.int64)
        order = np.argsort(kept, kind="stable")
        support = np.zeros(n_items, dtype=bool)
        support[kept] = True
        self.support_ = support
        self.reasons_ = np.asarray(reasons, dtype=object)[order]
        self.item_scores_ = item_scores
        return kept[order]


#: A selector argument, declared once: a registered name or a configured :class:`ItemSelector`.
SELECTOR_SPEC: list[ConstraintLike] = [
    Check(lambda s: isinstance(s, str | ItemSelector), "a selector name or an ItemSelector")
]
