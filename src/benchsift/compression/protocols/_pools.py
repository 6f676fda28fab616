"""Shared plumbing of the held-out protocols: category pools, per-split selection, vectorised scoring.

Not public: :mod:`benchsift.compression.protocols.stage2_heldout`, ``end_to_end`` and ``same_model`` build on
it. The heavy work of a sweep is the selection (once per split, selector, retention and category); scoring
every category of every retention is one small matrix product per category (:class:`CategoryBlocks`).
"""

from __future__ import annotations

import inspect
import zlib
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd
from scipy import sparse

from benchsift._suggest import did_you_mean
from benchsift._threads import single_thread
from benchsift.compression.embeddings import ItemEmbeddings
from benchsift.compression.selectors._budget import category_budget, check_retention
from benchsift.compression.selectors.base import ItemSelector
from benchsift.compression.stages.prune import effective_categories
from benchsift.errors import InputError
from benchsift.panel import Panel
from benchsift.stats import check_random_state, nan_mean

#: The paper's Stage 2 selectors in the order of PRIMEBench section 5 (tinyBenchmarks is opt-in).
DEFAULT_SELECTORS: tuple[str, ...] = (
    "random",
    "variance",
    "vaw",
    "disco",
    "pointbiserial",
    "irt2pl",
    "anchorpoints",
)
#: The six retentions of PRIMEBench section 5.
DEFAULT_RETENTIONS: tuple[float, ...] = (0.01, 0.02, 0.05, 0.10, 0.20, 0.50)

SelectorSpec = str | ItemSelector


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
    pred = np.asarray(predictions, dtype=object)
    if pred.shape != panel.shape:
        raise InputError(
            f"predictions: expected one logged answer per panel cell, shape {panel.shape} "
            f"(models x items), got {pred.shape}"
        )
    return pred


def prepare_pools(
    panel: Panel, embeddings: ItemEmbeddings | None = None, predictions: Any = None
) -> CategoryPools:
    """Group ``panel``'s image-condition rows into category pools and align the item embeddings.

    Without ``embeddings``, the built-in TF-IDF + SVD question-text embedding is used when the items carry
    a ``question`` column (as :func:`~benchsift.compression.stages.prune.stage2_prune` does); otherwise no
    embedding (VAW then has no coverage cells and fills its benchmark shares by score, noted).

    ``predictions`` (optional): the models' logged answers, an ``(n_models, n_items)`` array of labels
    aligned with ``panel.scores`` (``None``/NaN = missing). Every selection then passes the build rows'
    answers on the pool as ``predictions=`` to selectors whose ``select`` takes it (DISCO, PRIMEBench
    section 5: "prediction disagreement on the logged model answers").
    """
    if not isinstance(panel, Panel):
        raise InputError(f"expected a benchsift Panel, got {type(panel).__name__}")
    image = panel.conditions == "image"
    if not image.any():
        raise InputError("the panel has no image-condition model rows")
    pred = None
    if predictions is not None:
        pred = check_predictions(predictions, panel)[np.asarray(image, dtype=bool)]
    sub = panel.subset(models=image) if not image.all() else panel
    items = sub.items
    notes: list[str] = []
    cats = effective_categories(items)
    codes, names = pd.factorize(pd.Series(cats, dtype=object), sort=False)
    codes = codes.astype(np.int64)
    order = np.argsort(codes, kind="stable")
    bounds = np.concatenate([[0], np.cumsum(np.bincount(codes, minlength=len(names)))])
    columns = [order[bounds[c] : bounds[c + 1]] for c in range(len(names))]
    vl = txt = None
    emb = embeddings
    if emb is None and "question" in items.columns and items["question"].notna().any():
        emb = ItemEmbeddings.from_text(items)
        notes.append("no embeddings given: cells drawn on the built-in TF-IDF + SVD question-text embedding")
    elif emb is None:
        notes.append("no embeddings and no question text: VAW has no coverage cells (shares filled by score)")
    if emb is not None:
        if not isinstance(emb, ItemEmbeddings):
            raise InputError(f"embeddings: expected an ItemEmbeddings, got {type(emb).__name__}")
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


def check_retentions(retentions: Sequence[float]) -> list[float]:
    vals = [check_retention(r) for r in retentions]
    if not vals:
        raise InputError("retentions: expected at least one retention in (0, 1]")
    if len(set(vals)) != len(vals):
        raise InputError(f"retentions: duplicate values in {list(retentions)}")
    return vals


def selector_label(spec: SelectorSpec) -> str:
    if isinstance(spec, ItemSelector):
        return str(getattr(spec, "name", type(spec).__name__))
    if not isinstance(spec, str):
        raise InputError(
            f"selector: expected a registered name or an ItemSelector, got {type(spec).__name__}"
        )
    return spec.strip().lower()


def disco_warnings(labels: Sequence[str], predictions: Any) -> list[str]:
    """A warning when DISCO runs without the models' logged answers (it then counts distinct scores).

    PRIMEBench section 5 applies DISCO to the logged answers; without them the selector falls back to the
    distinct (rounded) score values, a different quantity, which must be said.
    """
    if predictions is None and any(str(lab).lower() == "disco" for lab in labels):
        return [
            "DISCO ran without logged answers (--answers FILE, predictions=): it counted distinct scores per "
            "item instead of the models' distinct answers (PRIMEBench section 5 uses the logged answers)"
        ]
    return []


def check_selectors(selectors: Sequence[SelectorSpec]) -> list[str]:
    """Validate the selector list (names must be registered); returns their labels."""
    from benchsift.compression.selectors.registry import SELECTOR_NAMES

    labels = []
    for spec in selectors:
        label = selector_label(spec)
        if isinstance(spec, str) and label not in SELECTOR_NAMES:
            hint = did_you_mean(label, SELECTOR_NAMES)
            raise InputError(
                f"selector: unknown name {spec!r}{hint}; expected one of {', '.join(SELECTOR_NAMES)}"
            )
        labels.append(label)
    if not labels:
        raise InputError("selectors: expected at least one selector")
    if len(set(labels)) != len(labels):
        raise InputError(f"selectors: duplicate names in {labels}")
    return labels


def build_selector(spec: SelectorSpec, seed: int) -> ItemSelector:
    """A fresh selector for one selection: a registered name built with ``random_state=seed``, or a clone."""
    if isinstance(spec, ItemSelector):
        from sklearn.base import clone

        sel: ItemSelector = clone(spec)
        if "random_state" in sel.get_params():
            sel.set_params(random_state=seed)
        return sel
    from benchsift.compression.selectors.registry import make_selector

    return make_selector(spec, random_state=seed)


def task_seed(base: int, *keys: int) -> int:
    """A 31-bit seed for one selection, a function of the run seed and the task's indices only.

    Independent of the order tasks run in, so the results do not depend on ``n_jobs`` or the backend.
    """
    return int(np.random.SeedSequence([int(base), *(int(k) for k in keys)]).generate_state(1)[0] >> 1)


def selector_key(spec: SelectorSpec) -> int:
    """A stable integer key of a selector (CRC-32 of its label) for :func:`task_seed`.

    Keyed by name, not by list position, so a selector's selections do not depend on which other selectors
    run beside it.
    """
    return zlib.crc32(selector_label(spec).encode("utf-8"))


def retention_key(retention: float) -> int:
    """A stable integer key of a retention (``round(r * 1e9)``) for :func:`task_seed`.

    Keyed by value, not by list position, so ``--retentions 0.05`` alone reproduces the r = 5 % column of a
    run over all six retentions.
    """
    return int(round(float(retention) * 1e9))


def base_seed(random_state: Any) -> int:
    return int(check_random_state(random_state).integers(0, 2**31 - 1))


def select_pool(
    pools: CategoryPools,
    spec: SelectorSpec,
    rows: np.ndarray,
    cols: np.ndarray,
    k: int,
    seed: int,
) -> tuple[np.ndarray, ItemSelector]:
    """Run one selector on one pool (``cols``) fitted on ``rows``; returns (item positions, fitted)."""
    sel = build_selector(spec, seed)
    meta = pools.items.iloc[cols].reset_index(drop=True)
    extra: dict[str, Any] = {}
    if pools.predictions is not None and "predictions" in inspect.signature(sel.select).parameters:
        extra["predictions"] = pools.predictions[np.ix_(rows, cols)]
    local = sel.select(
        pools.scores[np.ix_(rows, cols)],
        int(k),
        embeddings=None if pools.vision_text is None else pools.vision_text[cols],
        text_embeddings=None if pools.text is None else pools.text[cols],
        item_meta=meta,
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
) -> tuple[np.ndarray, np.ndarray]:
    """Select every category pool at every retention on the build ``rows``.

    Returns ``W`` ``(n_items, n_retentions)``: the weight of each item in its category's score at each
    retention (1 for kept items, or the selector's ``weights_`` when ``use_weights``; 0 for dropped items),
    and ``budgets`` ``(n_retentions, n_categories)`` (``K_C``, PRIMEBench section 4.3).
    ``seeds(retention_key(r), i_category)`` gives each selection's seed (:func:`retention_key`). When
    ``fitted`` is a dict it receives ``(j, c) -> (kept positions, fitted selector)`` for every selection made
    (pools kept whole have none).
    """
    cats = range(pools.n_categories) if categories is None else categories
    W = np.zeros((pools.n_items, len(retentions)))
    budgets = np.zeros((len(retentions), pools.n_categories), dtype=np.int64)
    for j, r in enumerate(retentions):
        for c in cats:
            cols = pools.columns[c]
            k = category_budget(int(cols.shape[0]), float(r), int(floor))
            budgets[j, c] = k
            if k >= cols.shape[0]:  # the floor keeps a small pool whole: nothing to select
                W[cols, j] = 1.0
                continue
            kept, sel = select_pool(pools, spec, rows, cols, k, seeds(retention_key(r), c))
            if fitted is not None:
                fitted[(j, c)] = (kept, sel)
            w = getattr(sel, "weights_", None) if use_weights else None
            W[kept, j] = 1.0 if w is None else np.asarray(w, dtype=np.float64)
    return W, budgets


def finite_mean(a: np.ndarray, axis: int = -1) -> np.ndarray:
    """Mean of the finite entries of ``a`` along ``axis``; NaN where a slice has none.

    The one NaN-aware mean of the protocols and diagnostics: the macro rho over categories with a defined
    rho (PRIMEBench D.3), a model's mean over its available category means or z-scores, a mean MAE over
    splits. No warnings on empty slices (:func:`benchsift.stats.nan_mean`).
    """
    return nan_mean(a, axis=axis)


#: The keys of one ``results`` row of ``benchsift validate --json`` (every protocol).
RESULT_KEYS: tuple[str, ...] = ("selector", "retention", "rho_mean", "rho_sd", "rho_min", "rho_max", "wins")


def summary_frame(
    selectors: Sequence[str],
    retentions: Sequence[float],
    stats: dict[str, np.ndarray],
    **extra: np.ndarray,
) -> pd.DataFrame:
    """One row per (selector, retention) from :func:`~.stage2_heldout.split_summary` output ``stats``.

    Columns ``selector, retention, rho_mean, rho_sd, rho_min, rho_max, wins`` and then each ``extra``
    ``(n_selectors, n_retentions)`` array under its keyword name (floats, or ints for integer arrays).
    """
    rows = []
    for s, name in enumerate(selectors):
        for j, r in enumerate(retentions):
            row: dict[str, Any] = {
                "selector": name,
                "retention": r,
                "rho_mean": float(stats["mean"][s, j]),
                "rho_sd": float(stats["sd"][s, j]),
                "rho_min": float(stats["min"][s, j]),
                "rho_max": float(stats["max"][s, j]),
                "wins": int(stats["wins"][s, j]),
            }
            for key, values in extra.items():
                v = np.asarray(values)[s, j]
                row[key] = int(v) if np.issubdtype(np.asarray(values).dtype, np.integer) else float(v)
            rows.append(row)
    return pd.DataFrame(rows)


def result_records(summary: pd.DataFrame, keys: Sequence[str] = RESULT_KEYS) -> list[dict[str, Any]]:
    """The rows of a summary frame restricted to ``keys`` (the JSON ``results`` list)."""
    return [{k: row[k] for k in keys} for row in summary.to_dict(orient="records")]


def weighted_group_means(X: np.ndarray, weights: np.ndarray) -> np.ndarray:
    """NaN-aware weighted means of the rows of ``X`` over column groups, as matrix products.

    ``X`` ``(n_rows, n_items)`` with NaN = missing, ``weights`` ``(n_items, n_groups)`` >= 0 (0 = not in the
    group). Returns ``(n_rows, n_groups)``: ``sum_i w_ig x_ri / sum_i w_ig [x_ri observed]``, NaN where a row
    has no observed item of weight > 0 in the group (PRIMEBench D.3 scores a model by its NaN-aware mean).

    One product ``X0 @ W`` (missing entries as 0); the denominators are the column sums of ``W`` when nothing
    is missing, else a second product ``[x observed] @ W``. Runs under the package's thread policy
    (:func:`benchsift._threads.single_thread`).
    """
    X = np.asarray(X, dtype=np.float64)
    W = np.asarray(weights, dtype=np.float64)
    with single_thread():
        missing = np.isnan(X)
        if missing.any():
            num = np.where(missing, 0.0, X) @ W
            den = (~missing).astype(np.float64) @ W
        else:
            num = X @ W
            den = np.broadcast_to(W.sum(axis=0), num.shape)
    out = np.full(num.shape, np.nan)
    np.divide(num, den, out=out, where=den > 0)
    return out


@dataclass(frozen=True)
class CategoryBlocks:
    """The pools' score matrix with every category pool a contiguous block of columns, built once per run.

    The held-out scoring of a task (PRIMEBench D.3: each model's NaN-aware mean on the kept items of every
    category at every retention) is then one small matrix product per category,
    ``values[rows, block] @ W[block]`` (the task's rows taken once), instead of a product with a dense
    ``(n_items, n_retentions * n_categories)`` weight matrix that is zero outside each item's category
    (``n_categories`` times the work and memory) or a loop over every selection. ``missing[c]`` holds
    category ``c``'s missing cells as a sparse 0/1 matrix (``None`` when none is missing), so the
    denominators are the weight sums less a sparse product.
    """

    values: np.ndarray
    missing: tuple[sparse.csr_array | None, ...]
    order: np.ndarray
    bounds: np.ndarray

    @classmethod
    def from_pools(cls, pools: CategoryPools) -> CategoryBlocks:
        order = np.concatenate(pools.columns) if pools.columns else np.empty(0, dtype=np.int64)
        sizes = [int(c.shape[0]) for c in pools.columns]
        bounds = np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64)
        X = pools.scores[:, order]
        miss = np.isnan(X)
        values = np.ascontiguousarray(np.where(miss, 0.0, X))  # C order: a task takes its rows first
        blocks = []
        for c in range(len(sizes)):
            m = miss[:, bounds[c] : bounds[c + 1]]
            blocks.append(sparse.csr_array(m.astype(np.float64)) if m.any() else None)
        return cls(values, tuple(blocks), order, bounds)

    def kept_means(self, weights: np.ndarray, rows: np.ndarray) -> np.ndarray:
        """``(len(rows), n_sets, n_categories)`` NaN-aware weighted means of the model ``rows``.

        ``weights`` ``(n_items, n_sets)``, in the pools' item order (e.g. the kept-item weights per
        retention from :func:`selection_weights`). Same values as :func:`weighted_group_means` with the
        per-category weights; a group counts as observed by the number of its observed kept items (exact
        in integers, whatever the weights).
        """
        W = np.asarray(weights, dtype=np.float64)[self.order]
        rows = np.asarray(rows, dtype=np.int64)
        n_cat = self.bounds.shape[0] - 1
        out = np.full((rows.shape[0], W.shape[1], n_cat), np.nan)
        if W.shape[0] == 0:
            return out
        starts = np.minimum(self.bounds[:-1], W.shape[0] - 1)  # an empty block is skipped below
        totals = np.add.reduceat(W, starts, axis=0)  # (n_cat, n_sets) weight sums per block
        # 0/1 weights (the D.3 mean): the observed weight is the observed count, no second indicator needed
        binary = bool(np.all((W == 0.0) | (W == 1.0)))
        kept_all = None if binary else (W != 0.0).astype(np.float64)
        counts = totals if kept_all is None else np.add.reduceat(kept_all, starts, axis=0)
        with single_thread():
            held = np.take(self.values, rows, axis=0)  # one contiguous row copy, then products on its blocks
            for c in range(n_cat):
                lo, hi = int(self.bounds[c]), int(self.bounds[c + 1])
                if hi == lo:
                    continue
                w = W[lo:hi]
                num = held[:, lo:hi] @ w
                den = np.broadcast_to(totals[c], num.shape)
                n_obs = np.broadcast_to(counts[c], num.shape)
                miss = self.missing[c]
                if miss is not None:
                    den = den - np.asarray(miss @ w)[rows]
                    if kept_all is None:
                        n_obs = den
                    else:
                        n_obs = n_obs - np.asarray(miss @ kept_all[lo:hi])[rows]
                np.divide(num, den, out=out[:, :, c], where=(n_obs > 0.5) & (den > 0))
        return out


@contextmanager
def progress_bar(enabled: bool, total: int, label: str) -> Iterator[Callable[[], None]]:
    """A rich progress bar over ``total`` tasks on stderr (stdout holds the results: tables, CSV, JSON);
    yields a function to call after each task."""
    if not enabled:
        yield lambda: None
        return
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    with Progress(
        TextColumn("[bold]{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        console=Console(stderr=True),
        transient=True,
    ) as prog:
        task = prog.add_task(label, total=total)
        yield lambda: prog.advance(task)
