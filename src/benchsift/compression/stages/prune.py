"""Stage 2 of PRIMEBench: item pruning with Vision-Aware Variance (section 4.3, Appendix D.1, D.4).

For every category pool ``C`` of ``n_C`` items, Stage 2 keeps the category budget

.. math:: K_C = \\max(\\lfloor r\\, n_C \\rfloor, \\min(n_C, 100))

items chosen by an item selector (VAW by default: benchmark shares proportional to size by largest remainder,
one item per k-means coverage cell, ranked by ``q_i / sqrt(M_i)`` with ``q_i = sigma^2_i + alpha delta^VL_i``,
PRIMEBench Eq. 4-6). Only the image-condition model rows enter the variance; text-only runs are ignored here.
Items whose category is missing form a category named after their benchmark.

Embeddings: ``embeddings`` (an :class:`~benchsift.compression.embeddings.ItemEmbeddings`, aligned to the
panel's items here) gives ``E^VL`` and ``E^L``. Without it, Stage 2 builds the deterministic offline text
embedding of the ``question`` column (TF-IDF + truncated SVD) for the cells, with ``delta = 0``; a panel with
no question text gets no cells and every share is filled by the best items (noted in the result).
"""

from __future__ import annotations

import os
import warnings
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import dataclass, field
from numbers import Integral
from typing import Any

import numpy as np
import pandas as pd
from sklearn.base import clone

from benchsift._params import Interval, validate_params
from benchsift._threads import single_thread
from benchsift.compression.embeddings import EMBEDDINGS, ItemEmbeddings
from benchsift.compression.selectors import SELECTORS, ItemSelector, VAWSelector
from benchsift.compression.selectors.base import SELECTOR_SPEC
from benchsift.compression.selectors.budget import FLOOR, category_budget, check_retention, floor_warning
from benchsift.compression.selectors.registry import check_selector_name, draws_coverage_cells
from benchsift.compression.selectors.vaw import check_variant
from benchsift.errors import InputError
from benchsift.panel import Panel
from benchsift.panel.categories import category_or_benchmark
from benchsift.progress import ProgressFn, Ticker
from benchsift.results import Result

__all__ = ["Stage2Result", "effective_categories", "stage2_prune"]


@dataclass(frozen=True, repr=False)
class Stage2Result(Result):
    """What Stage 2 kept and why.

    Attributes
    ----------
    kept
        Sorted int64 positions (into the input panel's items) of the kept items.
    items
        One row per kept item: ``position``, ``benchmark``, ``item``, ``category`` (the effective category),
        ``q`` (Eq. 4), ``score`` (the ranked score ``q / sqrt(M_i)``), ``n_valid`` and ``why``
        (``"cell"``: best item of its coverage cell; ``"dpp"``: greedy DPP pick; ``"top"``: top of its
        share without cells; ``"completion"``: fills a share the cells could not; other selectors' labels).
    categories
        One row per category: ``category``, ``n_items`` (``n_C``), ``budget`` (``K_C``), ``n_kept``.
    benchmarks
        One row per (category, benchmark): ``n_items``, ``share`` (``K_b``), ``n_kept`` and, for VAW,
        ``n_embedded``, ``n_cells``, ``n_cell_kept``, ``n_completion``.
    item_q, item_score, n_valid
        ``(n_items,)`` arrays over all input items (NaN where the selector has no such score).
    why
        ``(n_items,)`` object array: the reason for kept items, ``""`` for dropped ones.
    params
        The parameters used (JSON-able).
    notes
        Human-readable notes (fallbacks taken).
    selectors
        The fitted selector of each category.
    warnings
        Settings that changed what was asked: the item floor keeping more than ``r`` of a category
        (:func:`benchsift.compression.selectors.budget.floor_warning`).
    """

    kept: np.ndarray
    items: pd.DataFrame
    categories: pd.DataFrame
    benchmarks: pd.DataFrame
    item_q: np.ndarray
    item_score: np.ndarray
    n_valid: np.ndarray
    why: np.ndarray
    params: dict[str, Any]
    notes: tuple[str, ...] = ()
    selectors: dict[str, ItemSelector] = field(default_factory=dict, repr=False)
    warnings: tuple[str, ...] = ()

    def selector_choices(self) -> list[dict[str, Any]]:
        """Per category whose selector picks a selector (``auto``): the category, the retention and the
        selector's :meth:`~benchsift.compression.selectors.auto.AutoSelector.evidence_record` (the pick,
        whether the inner evidence separates it, and per candidate the inner fidelity's mean, sd, count and
        wins). Empty for a fixed selector."""
        out = []
        for name, sel in self.selectors.items():
            record = getattr(sel, "evidence_record", None)
            if callable(record) and hasattr(sel, "evidence_"):
                out.append({"category": name, "retention": self.params.get("retention"), **record()})
        return out

    def selector_evidence(self) -> pd.DataFrame:
        """:meth:`selector_choices` as a table: one row per (category, candidate) with ``rho_mean``,
        ``rho_sd``, ``n_inner``, ``wins``, ``winner`` and the category's ``separated``."""
        rows = [
            {
                "category": ch["category"],
                "retention": ch["retention"],
                "candidate": cand["selector"],
                "rho_mean": np.nan if cand["rho_mean"] is None else cand["rho_mean"],
                "rho_sd": np.nan if cand["rho_sd"] is None else cand["rho_sd"],
                "n_inner": cand["n_inner"],
                "wins": cand["wins"],
                "winner": cand["selector"] == ch["choice"],
                "separated": ch["separated"],
            }
            for ch in self.selector_choices()
            for cand in ch["candidates"]
        ]
        cols = ["category", "retention", "candidate", "rho_mean", "rho_sd", "n_inner", "wins", "winner"]
        return pd.DataFrame(rows, columns=[*cols, "separated"])

    @property
    def n_items_in(self) -> int:
        return int(self.item_q.shape[0])

    @property
    def n_kept(self) -> int:
        return int(self.kept.shape[0])

    def apply(self, panel: Panel) -> Panel:
        """The input panel restricted to the kept items (all model rows, text-only included)."""
        if panel.n_items != self.n_items_in:
            raise InputError(
                f"Stage2Result.apply: the panel has {panel.n_items} items, Stage 2 ran on {self.n_items_in}"
            )
        return panel.subset(items=self.kept)

    def to_dict(self) -> dict[str, Any]:
        """A JSON-able summary: counts, parameters, per-category budgets and notes."""
        return {
            "stage": "stage2",
            "items_in": self.n_items_in,
            "items_out": self.n_kept,
            "params": dict(self.params),
            "categories": [
                {k: (v if isinstance(v, str) else int(v)) for k, v in row.items()}
                for row in self.categories.to_dict(orient="records")
            ],
            "why": {str(k): int(v) for k, v in self.items["why"].value_counts().sort_index().items()},
            "selector_choices": self.selector_choices(),
            "notes": list(self.notes),
            "warnings": list(self.warnings),
        }

    def to_frame(self) -> pd.DataFrame:
        """Per category: pool size, budget and items kept (the ``categories`` table)."""
        return self.categories.copy()


def effective_categories(items: pd.DataFrame) -> np.ndarray:
    """The old name of :func:`benchsift.panel.categories.category_or_benchmark`; works with a
    :class:`FutureWarning` until 0.3."""
    warnings.warn(
        "effective_categories is now called category_or_benchmark (benchsift.panel.categories); "
        "effective_categories is accepted until benchsift 0.3",
        FutureWarning,
        stacklevel=2,
    )
    return category_or_benchmark(items)


def _resolve_selector(
    selector: str | ItemSelector, alpha: float, variant: str, random_state: Any
) -> tuple[ItemSelector, str]:
    given = isinstance(selector, ItemSelector)
    name = getattr(selector, "name", type(selector).__name__) if given else check_selector_name(selector)
    cls = None if given else SELECTORS[name]
    if not given:
        check_variant(variant)
    if variant != "cells" and cls is not VAWSelector:
        raise InputError(
            f"`variant` {variant!r} applies to the built-in VAW selector only, not to {name!r}"
            + ("; set it on the selector" if given else "")
        )
    if isinstance(selector, ItemSelector):
        return selector, name
    if cls is VAWSelector:
        return VAWSelector(alpha=alpha, variant=variant, random_state=random_state), name  # type: ignore[arg-type]
    assert cls is not None
    return cls(random_state=random_state), name


def _prepare_embeddings(
    panel: Panel, embeddings: ItemEmbeddings | None, notes: list[str], selector: ItemSelector | None = None
) -> tuple[np.ndarray | None, np.ndarray | None, str]:
    """The embeddings' arrays and source; the notes on cells only for a ``selector`` that draws them
    (:func:`~benchsift.compression.selectors.registry.draws_coverage_cells`; None: any): ``--selector
    random`` was told that VAW had no coverage cells."""
    builtin = False
    cells = selector is None or draws_coverage_cells(selector)
    if embeddings is None:
        items = panel.items
        has_question = "question" in items.columns and items["question"].notna().any()
        if not has_question:
            if cells:
                notes.append(
                    "no embeddings and no question text: no coverage cells, shares filled by the best items"
                )
            return None, None, "none"
        embeddings = ItemEmbeddings.from_text(items)
        if cells:
            notes.append(
                "no embeddings given: cells drawn on the built-in TF-IDF + SVD question-text embedding, "
                "delta^VL = 0"
            )
        builtin = True
    aligned = embeddings.align(panel.items)
    n_vl = int(aligned.has_vision_text.sum())
    n_t = int(aligned.has_text.sum())
    if n_vl == 0 and n_t == 0:
        notes.append(
            f"the embeddings ({embeddings.n_keys} keys) match none of the panel's (benchmark, item) keys: "
            "no coverage cells, delta^VL = 0"
        )
    if aligned.vision_text is not None and n_vl < panel.n_items:
        notes.append(
            f"{panel.n_items - n_vl} of {panel.n_items} items have no vision-text embedding (no cell)"
        )
    if aligned.vision_text is None and n_t and not builtin:
        notes.append("no vision-text embeddings: delta^VL = 0 and cells drawn on the text-only embeddings")
    vl = aligned.vision_text if n_vl else None
    txt = aligned.text if n_t else None
    return vl, txt, aligned.source


def _run_categories(
    proto: ItemSelector,
    scores: np.ndarray,
    items: pd.DataFrame,
    columns: list[np.ndarray],
    r: float,
    floor: int,
    vl: np.ndarray | None,
    txt: np.ndarray | None,
    n_jobs: int | None,
    progress: ProgressFn | None,
) -> dict[int, tuple[ItemSelector, np.ndarray, pd.DataFrame, int]]:
    """Run a clone of ``proto`` on every category pool (its item ``columns``) with its budget ``K_C``:
    ``{category code: (fitted selector, kept positions within the pool, the pool's item rows, K_C)}``.

    Largest categories first (load balance); results are placed by category, so the order of completion
    never changes the output. BLAS / OpenMP are limited to one thread: the parallelism is across
    categories, and many small k-means problems run faster single-threaded."""

    def run_category(c: int) -> tuple[ItemSelector, np.ndarray, pd.DataFrame, int]:
        cols = columns[c]
        budget = category_budget(int(cols.shape[0]), r, floor)
        sel = clone(proto)
        meta = items.iloc[cols].reset_index(drop=True)
        local = sel.select(
            scores[:, cols],
            budget,
            embeddings=None if vl is None else vl[cols],
            text_embeddings=None if txt is None else txt[cols],
            item_meta=meta,
        )
        return sel, local, meta, budget

    n_workers = _n_workers(n_jobs, len(columns))
    schedule = sorted(range(len(columns)), key=lambda c: -int(columns[c].shape[0]))
    done: dict[int, tuple[ItemSelector, np.ndarray, pd.DataFrame, int]] = {}
    advance = Ticker(progress, len(columns))
    with single_thread():
        if n_workers == 1:
            for c in schedule:
                done[c] = run_category(c)
                advance()
        else:
            with ThreadPoolExecutor(max_workers=n_workers) as pool:
                futures = {pool.submit(run_category, c): c for c in schedule}
                for fut in as_completed(futures):
                    done[futures[fut]] = fut.result()
                    advance()
    return done


@dataclass
class _Gathered:
    """The category runs of :func:`stage2_prune` placed on the items (:func:`_gather_categories`)."""

    kept: np.ndarray
    item_q: np.ndarray
    item_score: np.ndarray
    why: np.ndarray
    cat_rows: list[dict[str, Any]]
    bench_frames: list[pd.DataFrame]
    fitted: dict[str, ItemSelector]
    notes: list[str]
    warnings: list[str]


def _gather_categories(
    done: dict[int, tuple[ItemSelector, np.ndarray, pd.DataFrame, int]],
    columns: list[np.ndarray],
    cat_names: list[str],
    n: int,
) -> _Gathered:
    """Place each category's run (:func:`_run_categories`) on the ``n`` items in category order: the kept
    positions (sorted), per-item q, score and reason, one row per category, the per-benchmark tables, the
    fitted selectors, and the selectors' notes and warnings prefixed by their category."""
    item_q = np.full(n, np.nan)
    item_score = np.full(n, np.nan)
    why = np.full(n, "", dtype=object)
    kept_parts: list[np.ndarray] = []
    cat_rows: list[dict[str, Any]] = []
    bench_frames: list[pd.DataFrame] = []
    fitted: dict[str, ItemSelector] = {}
    notes: list[str] = []
    sel_warnings: list[str] = []
    for c, name in enumerate(cat_names):
        cols = columns[c]
        sel, local, meta, budget = done[c]
        pos = cols[local]
        kept_parts.append(pos)
        why[pos] = sel.reasons_
        item_score[cols] = np.asarray(sel.item_scores_, dtype=np.float64)
        q_local = getattr(sel, "q_", None)
        if q_local is not None:
            item_q[cols] = q_local
        fitted[name] = sel
        cat_rows.append(
            {"category": name, "n_items": int(cols.shape[0]), "budget": budget, "n_kept": int(pos.shape[0])}
        )
        bench_frames.append(_benchmark_table(name, meta, local, sel))
        notes.extend(f"{name}: {n}" for n in getattr(sel, "notes_", ()))
        sel_warnings.extend(f"{name}: {w}" for w in getattr(sel, "warnings_", ()))
    kept = np.sort(np.concatenate(kept_parts)) if kept_parts else np.empty(0, dtype=np.int64)
    return _Gathered(kept, item_q, item_score, why, cat_rows, bench_frames, fitted, notes, sel_warnings)


@validate_params(
    {
        "floor": [FLOOR],
        "selector": SELECTOR_SPEC,
        "embeddings": EMBEDDINGS,
        "n_jobs": [Interval(Integral, 1, None), None],
    }
)
def stage2_prune(
    panel: Panel,
    *,
    retention: float,
    alpha: float = 0.187,
    floor: int = 100,
    selector: str | ItemSelector = "vaw",
    embeddings: ItemEmbeddings | None = None,
    variant: str = "cells",
    random_state: int | np.random.Generator | None = 0,
    n_jobs: int | None = None,
    progress: ProgressFn | None = None,
) -> Stage2Result:
    """PRIMEBench Stage 2: keep ``K_C`` items of every category pool with an item selector (section 4.3).

    Parameters
    ----------
    panel
        The Stage 1 panel (its items are the category pools). Only ``condition == "image"`` rows are used.
    retention
        ``r`` in (0, 1].
    alpha
        VAW weight of ``delta^VL`` (Eq. 4); 0.187 in the paper.
    floor
        The item floor of ``K_C = max(floor(r n_C), min(n_C, floor))`` (100).
    selector
        ``"vaw"`` (or another registered name) or a configured :class:`ItemSelector` (cloned per category).
    embeddings
        Item embeddings keyed by (benchmark, item); see the module docstring for the fallback.
    variant
        VAW cell variant: ``"cells"``, ``"text-cells"``, ``"random-cells"``, ``"shares"``, ``"dpp"`` (D.4).
    random_state
        Seed of every random choice (k-means initialisation, tie-breaking, random partitions).
    n_jobs
        Threads running categories in parallel (None: one per CPU, at most one per category). The result
        does not depend on it.
    progress
        ``progress(done, total)`` after each category (:mod:`benchsift.progress`); None: silent.
    """
    Panel.check(panel, "stage2_prune", image=True)
    r = check_retention(retention)
    proto, sel_name = _resolve_selector(selector, alpha, variant, random_state)
    image_rows = panel.image_rows
    scores = panel.scores[image_rows]
    items = panel.items
    notes: list[str] = []
    vl, txt, emb_source = _prepare_embeddings(panel, embeddings, notes, proto)

    n = panel.n_items
    cats = category_or_benchmark(items)
    codes, cat_names = pd.factorize(cats, sort=False)
    order = np.argsort(codes, kind="stable")
    bounds = np.concatenate([[0], np.cumsum(np.bincount(codes, minlength=len(cat_names)))])

    n_valid = (~np.isnan(scores)).sum(axis=0).astype(np.int64)
    columns = [order[bounds[c] : bounds[c + 1]] for c in range(len(cat_names))]
    done = _run_categories(proto, scores, items, columns, r, int(floor), vl, txt, n_jobs, progress)
    got = _gather_categories(done, columns, [str(c) for c in cat_names], n)
    notes.extend(got.notes)
    kept, item_q, item_score, why, cat_rows = got.kept, got.item_q, got.item_score, got.why, got.cat_rows
    kept_items = pd.DataFrame(
        {
            "position": kept,
            "benchmark": items["benchmark"].to_numpy()[kept],
            "item": items["item"].to_numpy()[kept],
            "category": cats[kept],
            "q": item_q[kept],
            "score": item_score[kept],
            "n_valid": n_valid[kept],
            "why": why[kept],
        }
    )
    params = {
        "retention": r,
        "alpha": float(alpha),
        "floor": int(floor),
        "selector": sel_name,
        "variant": getattr(proto, "variant", None),
        "random_state": (
            "generator" if isinstance(random_state, np.random.Generator) else _as_seed(random_state)
        ),
        "embeddings": emb_source,
        "n_image_models": int(image_rows.sum()),
    }
    return Stage2Result(
        kept=kept,
        items=kept_items,
        categories=pd.DataFrame(cat_rows, columns=["category", "n_items", "budget", "n_kept"]),
        benchmarks=pd.concat(got.bench_frames, ignore_index=True) if got.bench_frames else pd.DataFrame(),
        item_q=item_q,
        item_score=item_score,
        n_valid=n_valid,
        why=why,
        params=params,
        notes=tuple(notes),
        selectors=got.fitted,
        warnings=tuple(
            w for w in [floor_warning({c["category"]: c["n_items"] for c in cat_rows}, r, floor)] if w
        )
        + tuple(got.warnings),
    )


def _as_seed(seed: Any) -> int | None:
    return None if seed is None else int(seed)


def _n_workers(n_jobs: int | None, n_tasks: int) -> int:
    if n_jobs is None:
        n_jobs = os.cpu_count() or 1
    return max(1, min(int(n_jobs), n_tasks))


def _benchmark_table(category: str, meta: pd.DataFrame, local: np.ndarray, sel: ItemSelector) -> pd.DataFrame:
    """Per-benchmark budgets and counts of one category (the selector's ``benchmarks_`` when it has one)."""
    bench = meta["benchmark"].astype(str)
    n_kept = bench.iloc[local].value_counts()
    table = getattr(sel, "benchmarks_", None)
    if isinstance(table, pd.DataFrame) and "benchmark" in table.columns:
        out = table.copy()
    else:
        sizes = bench.value_counts(sort=False)
        names = list(pd.unique(bench))
        out = pd.DataFrame({"benchmark": names, "n_items": [int(sizes[b]) for b in names]})
        out["share"] = [int(n_kept.get(b, 0)) for b in out["benchmark"]]
    out["n_kept"] = [int(n_kept.get(b, 0)) for b in out["benchmark"]]
    out.insert(0, "category", category)
    return out
