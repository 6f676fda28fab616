"""Category pools of a panel and the per-split selection on them (PRIMEBench section 4.3, D.3).

The heavy work of a sweep is the selection (once per split, selector, retention and category):
:func:`prepare_pools` groups a panel's image-condition rows into category pools once per run,
:func:`selection_weights` selects every pool at every retention on a split's build rows.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import Any

import numpy as np
import pandas as pd

from benchsift._inputs import check_array
from benchsift._params import validate_params
from benchsift.compression.embeddings import EMBEDDINGS, ItemEmbeddings
from benchsift.compression.protocols.seeds import retention_key
from benchsift.compression.protocols.specs import (
    SelectorSpec,
    build_selector,
    candidate_labels,
    reads_embeddings,
    seed_per_pool,
)
from benchsift.compression.selectors.base import (
    ItemSelector,
    SelectorInput,
    check_selector_input,
    inputs_read,
)
from benchsift.compression.selectors.budget import category_budget
from benchsift.compression.selectors.registry import draws_coverage_cells
from benchsift.panel import Panel
from benchsift.panel.categories import category_or_benchmark

__all__ = [
    "CategoryPools",
    "PoolInputs",
    "check_predictions",
    "prepare_pools",
    "select_pool",
    "selection_weights",
]


@dataclass(frozen=True)
class CategoryPools:
    """The image-condition score matrix of a panel grouped into category pools.

    ``codes[i]`` is item ``i``'s category position in ``categories`` (a missing category is the item's
    benchmark, PRIMEBench convention); ``columns[c]`` the item positions of category ``c``.
    """

    scores: np.ndarray
    items: pd.DataFrame
    categories: list[str]
    codes: np.ndarray
    columns: list[np.ndarray]
    vision_text: np.ndarray | None
    text: np.ndarray | None
    model_ids: list[str]
    models: pd.DataFrame
    notes: tuple[str, ...] = ()
    predictions: np.ndarray | None = None

    @property
    def n_models(self) -> int:
        return int(self.scores.shape[0])

    @property
    def n_items(self) -> int:
        return int(self.scores.shape[1])

    @property
    def n_categories(self) -> int:
        return len(self.categories)

    def subset_items(self, keep: np.ndarray) -> CategoryPools:
        """The pools restricted to the items where ``keep`` is True (category list and order unchanged)."""
        keep = np.asarray(keep, dtype=bool)
        codes = self.codes[keep]
        order = np.argsort(codes, kind="stable")
        bounds = np.concatenate([[0], np.cumsum(np.bincount(codes, minlength=self.n_categories))])
        return CategoryPools(
            scores=self.scores[:, keep],
            items=self.items.loc[keep].reset_index(drop=True),
            categories=self.categories,
            codes=codes,
            columns=[order[bounds[c] : bounds[c + 1]] for c in range(self.n_categories)],
            vision_text=None if self.vision_text is None else self.vision_text[keep],
            text=None if self.text is None else self.text[keep],
            model_ids=self.model_ids,
            models=self.models,
            notes=self.notes,
            predictions=None if self.predictions is None else self.predictions[:, keep],
        )

    def onehot(self) -> np.ndarray:
        """``(n_items, n_categories)`` 0/1 membership."""
        out = np.zeros((self.n_items, self.n_categories))
        out[np.arange(self.n_items), self.codes] = 1.0
        return out


def check_predictions(predictions: Any, panel: Panel) -> np.ndarray:
    """Logged answers as an object array, checked to hold one answer per cell of ``panel``."""
    what = f"one logged answer per panel cell, shape {panel.shape} (models x items)"
    return check_array("predictions", predictions, shape=panel.shape, dtype=object, what=what)


@validate_params({"embeddings": EMBEDDINGS})
def prepare_pools(
    panel: Panel,
    embeddings: ItemEmbeddings | None = None,
    predictions: Any = None,
    *,
    selectors: Sequence[SelectorSpec] | None = None,
) -> CategoryPools:
    """Group ``panel``'s image-condition rows into category pools and align the item embeddings.

    Without ``embeddings``, the built-in TF-IDF + SVD question-text embedding is used when the items carry
    a ``question`` column (as :func:`~benchsift.compression.stages.prune.stage2_prune` does); otherwise no
    embedding (VAW then has no coverage cells and fills its benchmark shares by score, noted).

    ``predictions`` (optional): the models' logged answers, an ``(n_models, n_items)`` array of labels
    aligned with ``panel.scores`` (``None``/NaN = missing). Every selection then passes the build rows'
    answers on the pool as ``predictions=`` to selectors whose ``select`` takes it (DISCO, PRIMEBench
    section 5: "prediction disagreement on the logged model answers").

    ``selectors`` (optional): the selectors the pools are for. The notes then speak only of what they
    use: the embedding note only when one of them reads embeddings, the "VAW has no coverage cells" note
    only when one draws VAW's cells (:func:`~benchsift.compression.selectors.registry.draws_coverage_cells`:
    ``vaw``, or ``auto`` with it among its candidates); ``None``: every note, as for any selector.
    """
    Panel.check(panel, image=True)
    image = panel.image_rows
    pred = None
    if predictions is not None:
        pred = check_predictions(predictions, panel)[np.asarray(image, dtype=bool)]
    sub = panel.subset(models=image) if not image.all() else panel
    items = sub.items
    notes: list[str] = []
    cats = category_or_benchmark(items)
    codes, names = pd.factorize(pd.Series(cats, dtype=object), sort=False)
    codes = codes.astype(np.int64)
    order = np.argsort(codes, kind="stable")
    bounds = np.concatenate([[0], np.cumsum(np.bincount(codes, minlength=len(names)))])
    columns = [order[bounds[c] : bounds[c + 1]] for c in range(len(names))]
    vl = txt = None
    emb = embeddings
    embedded = selectors is None or any(reads_embeddings(spec) for spec in selectors)
    celled = selectors is None or any(draws_coverage_cells(spec) for spec in selectors)
    if emb is None and "question" in items.columns and items["question"].notna().any():
        emb = ItemEmbeddings.from_text(items)
        if embedded:
            notes.append(
                "no embeddings given: cells drawn on the built-in TF-IDF + SVD question-text embedding"
            )
    elif emb is None and celled:
        notes.append("no embeddings and no question text: VAW has no coverage cells (shares filled by score)")
    if emb is not None:
        aligned = emb.align(items)
        vl = np.asarray(aligned.vision_text, dtype=np.float64) if aligned.has_vision_text.any() else None
        txt = np.asarray(aligned.text, dtype=np.float64) if aligned.has_text.any() else None
    return CategoryPools(
        scores=np.asarray(sub.scores, dtype=np.float64),
        items=items,
        categories=[str(c) for c in names],
        codes=codes,
        columns=columns,
        vision_text=vl,
        text=txt,
        model_ids=sub.model_ids,
        models=sub.models,
        notes=tuple(notes),
        predictions=pred,
    )


class PoolInputs:
    """What selectors see of one pool (``cols``) fitted on ``rows``: the scores, the items' metadata, the
    embeddings and the predictions, each made on first use and kept (read-only), so that the retentions of
    one pool share them (copying a 20,000-item pool's two 64-dim embeddings took ~5 ms per selection) and a
    selector that does not read an input (:attr:`ItemSelector.reads`) never has it gathered: the random
    selector of a paper-scale ``validate`` had 386,312 items' two embeddings copied and checked for nothing.
    """

    __slots__ = ("_checked", "_made", "cols", "pools", "rows")

    def __init__(self, pools: CategoryPools, rows: np.ndarray, cols: np.ndarray) -> None:
        self.pools = pools
        self.rows = rows
        self.cols = cols
        self._made: dict[str, Any] = {}
        self._checked: dict[frozenset[str], SelectorInput] = {}

    @property
    def has_predictions(self) -> bool:
        return self.pools.predictions is not None

    @property
    def gathered(self) -> frozenset[str]:
        """The inputs made so far (names as :meth:`get` takes them)."""
        return frozenset(self._made)

    def get(self, name: str) -> Any:
        """One input: ``"X"`` (the scores), ``"embeddings"``, ``"text_embeddings"``, ``"item_meta"`` or
        ``"predictions"`` (``None`` where the pools have none)."""
        if name in self._made:
            return self._made[name]
        pools, rows, cols = self.pools, self.rows, self.cols
        value: Any
        if name == "X":
            value = pools.scores[np.ix_(rows, cols)]
        elif name == "embeddings":
            value = None if pools.vision_text is None else pools.vision_text[cols]
        elif name == "text_embeddings":
            value = None if pools.text is None else pools.text[cols]
        elif name == "item_meta":
            value = pools.items.iloc[cols].reset_index(drop=True)
        elif name == "predictions":
            value = None if pools.predictions is None else pools.predictions[np.ix_(rows, cols)]
        else:
            raise KeyError(name)
        if isinstance(value, np.ndarray):
            value.flags.writeable = False
        self._made[name] = value
        return value

    def checked(self, reads: frozenset[str]) -> SelectorInput:
        """:func:`check_selector_input` of the scores and the inputs in ``reads`` (the others ``None``), made
        once per pool and ``reads``; with nothing read, no check and the scores as none of the models' rows
        (an ``(0, n_items)`` array)."""
        out = self._checked.get(reads)
        if out is None:
            if not reads:  # nothing of the pool to check (the random selector)
                out = SelectorInput(np.empty((0, int(self.cols.shape[0]))), 0, None, None, None)
            else:
                out = check_selector_input(
                    self.get("X"),
                    0,
                    embeddings=self.get("embeddings") if "embeddings" in reads else None,
                    text_embeddings=self.get("text_embeddings") if "text_embeddings" in reads else None,
                    item_meta=self.get("item_meta") if "item_meta" in reads else None,
                )
            self._checked[reads] = out
        return out


def select_pool(
    pools: CategoryPools,
    spec: SelectorSpec,
    rows: np.ndarray,
    cols: np.ndarray,
    k: int,
    seed: int,
    params: dict[str, Any] | None = None,
    inputs: PoolInputs | None = None,
) -> tuple[np.ndarray, ItemSelector]:
    """Run one selector on one pool (``cols``) fitted on ``rows``; returns (item positions, fitted).

    ``params`` are set on the fresh selector before it selects (the automatic selector's
    ``candidate_seeds``); ``inputs`` are the pool's :class:`PoolInputs` when the caller made them. A selector
    that keeps :meth:`ItemSelector.select` gets the inputs it reads (:func:`inputs_read`) checked
    once per pool (:meth:`PoolInputs.checked`) and its own parameters checked each time, as ``select``
    would: the checks of a 20,000-item pool's scores and two embeddings took ~7 ms, repeated for every
    retention."""
    sel = build_selector(spec, seed)
    if params:
        sel.set_params(**params)
    if inputs is None:
        inputs = PoolInputs(pools, rows, cols)
    if type(sel).select is ItemSelector.select:  # the common entry point: its input check made once per pool
        checked = inputs.checked(inputs_read(type(sel)))
        local = sel.select_checked(replace(checked, k=min(int(k), checked.n_items)))
        return cols[np.asarray(local, dtype=np.int64)], sel
    extra: dict[str, Any] = {}
    if inputs.has_predictions and "predictions" in inspect.signature(sel.select).parameters:
        extra["predictions"] = inputs.get("predictions")
    local = sel.select(
        inputs.get("X"),
        int(k),
        embeddings=inputs.get("embeddings"),
        text_embeddings=inputs.get("text_embeddings"),
        item_meta=inputs.get("item_meta"),
        **extra,
    )
    return cols[np.asarray(local, dtype=np.int64)], sel


def selection_weights(
    pools: CategoryPools,
    spec: SelectorSpec,
    rows: np.ndarray,
    retentions: Sequence[float],
    floor: int,
    seeds: Callable[[int, int], int],
    *,
    use_weights: bool = False,
    categories: Sequence[int] | None = None,
    fitted: dict[tuple[int, int], tuple[np.ndarray, ItemSelector]] | None = None,
    candidate_seeds: Callable[[str, int, int], int] | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """Select every category pool at every retention on the build ``rows``.

    Returns ``W`` ``(n_items, n_retentions)``: the weight of each item in its category's score at each
    retention (1 for kept items, or the selector's ``weights_`` when ``use_weights``; 0 for dropped items),
    and ``budgets`` ``(n_retentions, n_categories)`` (``K_C``, PRIMEBench section 4.3).
    ``seeds(retention_key(r), i_category)`` gives each selection's seed (:func:`retention_key`; ``0`` in
    place of it for a selector with ``seed_per_pool``, :func:`~.specs.seed_per_pool`, so that it gets the
    same seed at every retention of a pool). ``candidate_seeds(label, retention_key(r), i_category)``, when
    given, is the seed the protocol gives the fixed selector ``label`` in the same selection: a selector
    that picks among candidates (a ``candidate_seeds`` parameter, :func:`~.specs.candidate_labels`)
    selects with it when ``label`` wins, so its comparison with that fixed selector is paired (common random
    numbers: when the automatic selector picks Random, it keeps the items Random keeps). When ``fitted`` is
    a dict it receives ``(j, c) -> (kept positions, fitted selector)`` for every selection made (pools kept
    whole have none). The pools run one
    after the other, all retentions of a pool together, so fits a selector memoises on the rows of a pool
    (the IRT 2PL fit) serve every retention; the result does not depend on the order.
    """
    cats = range(pools.n_categories) if categories is None else categories
    W = np.zeros((pools.n_items, len(retentions)))
    budgets = np.zeros((len(retentions), pools.n_categories), dtype=np.int64)
    per_pool = seed_per_pool(spec)
    labels = candidate_labels(spec) if candidate_seeds is not None else None
    for c in cats:
        cols = pools.columns[c]
        inputs = PoolInputs(pools, rows, cols)  # shared by the pool's retentions; made as read
        for j, r in enumerate(retentions):
            k = category_budget(int(cols.shape[0]), float(r), int(floor))
            budgets[j, c] = k
            if k >= cols.shape[0]:  # the floor keeps a small pool whole: nothing to select
                W[cols, j] = 1.0
                continue
            r_key = 0 if per_pool else retention_key(r)
            params = None
            if labels is not None and candidate_seeds is not None:
                params = {
                    "candidate_seeds": {lab: candidate_seeds(lab, retention_key(r), c) for lab in labels}
                }
            kept, sel = select_pool(pools, spec, rows, cols, k, seeds(r_key, c), params, inputs)
            if fitted is not None:
                fitted[(j, c)] = (kept, sel)
            w = getattr(sel, "weights_", None) if use_weights else None
            W[kept, j] = 1.0 if w is None else np.asarray(w, dtype=np.float64)
    return W, budgets
