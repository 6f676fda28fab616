"""Protocol (b): Stages 1-3 refit on the build models, scored on held-out models (PRIMEBench D.3, Table 12).

Stage 0 is a cleaning step applied once on all models (D.3). The *reference* ranking of a model is the mean
of its category means over all Stage 0-cleaned benchmarks, a category mean being the mean of the category's
benchmark means (every category weighs the same; :func:`~benchsift.compression.pipeline.
benchmark_weighted_category_means`). In every split:

1. Stage 1 is refitted on the build models (representatives and supplements from their scores);
2. every Stage 2 selector keeps ``K_C`` items of each pool at each retention, fitted on the build models;
3. Stage 3 searches all :math:`\\binom{n}{k}` category subsets on the build rows of the pruned model x
   category matrix (PRIMEBench Eq. 7; reference = mean over all pruned categories);
4. on the held-out models the end-to-end rho is the Spearman correlation between the reference and the
   score on the ``k`` selected pruned categories (mean of the item-pooled category means).

Two comparison columns: **no Stage 3** scores all pruned categories; **Stage 3 only** runs Stage 3 on the
Stage 1 pools without item pruning (one value per split), and ``beats_stage3_only`` counts the splits where a
selector's end-to-end rho is higher. A panel with a single category skips Stages 1 and 3 (as the pipeline).
Splits run in parallel through ``joblib.Parallel`` (the active backend).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from numbers import Integral
from typing import Any, Literal

import numpy as np
import pandas as pd
from joblib import delayed

from benchsift._params import Interval, check_param, validate_params
from benchsift._threads import single_thread
from benchsift.compression.embeddings import ItemEmbeddings
from benchsift.compression.pipeline import benchmark_weighted_category_means
from benchsift.compression.protocols.group_means import weighted_group_means
from benchsift.compression.protocols.pools import (
    CategoryPools,
    check_predictions,
    prepare_pools,
    selection_weights,
)
from benchsift.compression.protocols.results import result_records, summary_frame
from benchsift.compression.protocols.seeds import base_seed, selector_key, task_seed
from benchsift.compression.protocols.specs import (
    DEFAULT_RETENTIONS,
    DEFAULT_SELECTORS,
    PROTOCOL_PARAMS,
    SPLIT_PROTOCOLS,
    SelectorSpec,
    check_retentions,
    check_selectors,
    disco_warnings,
)
from benchsift.compression.protocols.splits import Split, chronological_splits, random_splits
from benchsift.compression.protocols.stage2_heldout import per_category_rho, small_split_notes, split_summary
from benchsift.compression.stages.categories import exhaustive_search
from benchsift.compression.stages.clean import stage0_clean
from benchsift.compression.stages.representatives import stage1_select
from benchsift.errors import require_at_least
from benchsift.panel import Panel
from benchsift.parallel import ordered_parallel, sweep_backend
from benchsift.progress import ProgressFn, Ticker
from benchsift.results import Result
from benchsift.stats.means import nan_mean

__all__ = ["EndToEndResult", "end_to_end"]


def row_mean(X: np.ndarray) -> np.ndarray:
    """NaN-aware mean of each row (NaN when a row has no value)."""
    return nan_mean(X, axis=1)


@dataclass(frozen=True, repr=False)
class EndToEndResult(Result):
    """Outcome of :func:`end_to_end`.

    ``rho`` and ``rho_no_stage3`` are ``(n_splits, n_selectors, n_retentions)``; ``rho_stage3_only``
    ``(n_splits,)``; ``selected[(split, selector, retention)]`` the Stage 3 categories.
    """

    protocol: str
    selectors: list[str]
    retentions: list[float]
    splits: list[Split]
    categories: list[str]
    k: int
    rho: np.ndarray
    rho_no_stage3: np.ndarray
    rho_stage3_only: np.ndarray
    selected: dict[tuple[int, int, int], list[str]]
    selected_stage3_only: list[list[str]]
    seconds: float
    params: dict[str, Any]
    notes: tuple[str, ...] = ()
    warnings: tuple[str, ...] = ()

    def summary(self) -> pd.DataFrame:
        """Per (selector, retention): end-to-end ``rho_mean, rho_sd, rho_min, rho_max, wins`` (splits the
        selector is best among those listed), ``no_stage3`` (mean), ``beats_stage3_only`` (splits)."""
        stats = split_summary(self.rho)
        no3 = split_summary(self.rho_no_stage3)["mean"]
        beats = (self.rho > self.rho_stage3_only[:, None, None]).sum(axis=0)
        return summary_frame(self.selectors, self.retentions, stats, no_stage3=no3, beats_stage3_only=beats)

    def stage3_only(self) -> dict[str, float]:
        """Mean, sd (ddof 1), min and max over splits of the Stage 3 only rho."""
        st = split_summary(self.rho_stage3_only[:, None])
        return {k: float(st[k][0]) for k in ("mean", "sd", "min", "max")}

    def results(self) -> list[dict[str, Any]]:
        """The JSON ``results`` list: ``selector, retention, rho_mean, rho_sd, rho_min, rho_max, wins``."""
        return result_records(self.summary())

    def to_dict(self) -> dict[str, Any]:
        """JSON-able: ``protocol``, ``results`` (the seven keys of every protocol), then Table 12's other
        columns per (selector, retention) in ``table12`` (``no_stage3`` mean, ``beats_stage3_only``
        splits) and the Stage 3 only summary."""
        return {
            "protocol": self.protocol,
            "results": self.results(),
            "table12": result_records(
                self.summary(), ("selector", "retention", "no_stage3", "beats_stage3_only")
            ),
            "stage3_only": self.stage3_only(),
            "k": self.k,
            "categories": self.categories,
            "splits": [{"name": s.name, "n_build": s.n_build, "n_heldout": s.n_heldout} for s in self.splits],
            "seconds": self.seconds,
            "params": self.params,
            "notes": list(self.notes),
            "warnings": list(self.warnings),
        }

    def to_frame(self) -> pd.DataFrame:
        """One row per (selector, retention): the protocol's summary (:meth:`summary`)."""
        return self.summary()


def _heldout_rho(score: np.ndarray, reference: np.ndarray, min_heldout: int) -> float:
    """Spearman rho over the held-out models with both values; NaN with fewer than ``min_heldout`` (D.3)."""
    rho = per_category_rho(reference[:, None], score[:, None], min_heldout)
    return float(rho[0])


def _stage3_rho(
    X: np.ndarray, split: Split, k: int, reference: np.ndarray, min_heldout: int = 10
) -> tuple[float, float, tuple[int, ...]]:
    """Stage 3 on the build rows of ``X``; held-out rho of the k-subset and of all columns vs reference."""
    Xb = X[split.build]
    usable = np.flatnonzero(np.isfinite(Xb).any(axis=0))
    ref_h = reference[split.heldout]
    Xh = X[split.heldout]
    rho_all = _heldout_rho(row_mean(Xh), ref_h, min_heldout)
    kk = min(k, usable.size)
    if kk == 0:
        return float("nan"), rho_all, ()
    if kk == usable.size:
        chosen = tuple(int(c) for c in usable)
    else:
        choice = exhaustive_search(Xb[:, usable], kk)
        chosen = tuple(int(usable[p]) for p in choice.positions)
    return _heldout_rho(row_mean(Xh[:, list(chosen)]), ref_h, min_heldout), rho_all, chosen


def _seeder(base: int, i_split: int, sel_key: int) -> Callable[[int, int], int]:
    """Seed of the selection of (retention key, category c) in this split, for this selector."""

    def seed(r_key: int, c: int) -> int:
        return task_seed(base, i_split, sel_key, r_key, c)

    return seed


def _split_task(
    clean: Panel,
    pools: CategoryPools,
    reference: np.ndarray,
    selectors: Sequence[SelectorSpec],
    retentions: list[float],
    split: Split,
    i_split: int,
    k: int,
    floor: int,
    base: int,
    single: bool,
    target: float,
    min_heldout: int,
) -> dict[str, Any]:
    with single_thread():
        if single:
            pool = pools
        else:
            s1 = stage1_select(clean.subset(models=split.build), target=target)
            pool = pools.subset_items(s1.pool)
        onehot = pool.onehot()
        X0 = weighted_group_means(pool.scores, onehot)
        only, _, only_sel = _stage3_rho(X0, split, k, reference, min_heldout)
        rho = np.full((len(selectors), len(retentions)), np.nan)
        rho_no3 = np.full_like(rho, np.nan)
        chosen: dict[tuple[int, int], tuple[int, ...]] = {}
        for s, spec in enumerate(selectors):
            W, _ = selection_weights(
                pool,
                spec,
                split.build,
                retentions,
                floor,
                _seeder(base, i_split, selector_key(spec)),
                candidate_seeds=lambda label, r_key, c: task_seed(
                    base, i_split, selector_key(label), r_key, c
                ),
            )
            for j in range(len(retentions)):
                X = weighted_group_means(pool.scores, W[:, j, None] * onehot)
                rho[s, j], rho_no3[s, j], chosen[(s, j)] = _stage3_rho(X, split, k, reference, min_heldout)
    return {"rho": rho, "no3": rho_no3, "only": only, "only_sel": only_sel, "chosen": chosen}


def _model_splits(
    pools: CategoryPools, protocol: str, splits: Sequence[Split] | None, n_splits: int, base: int
) -> tuple[list[Split], str]:
    """The splits of the models and the protocol's label: ``splits`` as given (``custom``), else
    ``n_splits`` random ones or the chronological ones."""
    if splits is not None:
        return list(splits), "custom"
    if protocol == "random":
        return random_splits(pools.n_models, n_splits, random_state=base), "end-to-end"
    check_param("protocol", protocol, [SPLIT_PROTOCOLS])
    return chronological_splits(pools.models["release_date"]), "end-to-end chronological"


def _run_splits(
    clean: Panel,
    pools: CategoryPools,
    reference: np.ndarray,
    selectors: list[SelectorSpec],
    rets: list[float],
    split_list: list[Split],
    k_eff: int,
    floor: int,
    base: int,
    single: bool,
    target: float,
    min_heldout: int,
    *,
    workers: tuple[str | None, str | None, int | None],
    progress: ProgressFn | None,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, dict[tuple[int, int, int], list[str]], list[list[str]]]:
    """Every split's task (:func:`_split_task`, on the sweep backend ``workers`` = (backend, address,
    n_jobs)), gathered in split order: rho (splits x selectors x retentions), rho without Stage 3,
    Stage 3 only rho per split, and the categories each run selected."""
    n_s = len(split_list)
    rho = np.full((n_s, len(selectors), len(rets)), np.nan)
    rho_no3 = np.full_like(rho, np.nan)
    only = np.full(n_s, np.nan)
    selected: dict[tuple[int, int, int], list[str]] = {}
    only_sel: list[list[str]] = []
    tick = Ticker(progress, n_s)
    with sweep_backend(*workers) as n_workers:
        outputs = ordered_parallel(n_workers)(
            delayed(_split_task)(
                clean,
                pools,
                reference,
                selectors,
                rets,
                split,
                i,
                k_eff,
                floor,
                base,
                single,
                target,
                min_heldout,
            )
            for i, split in enumerate(split_list)
        )
        for i, out in enumerate(outputs):
            rho[i], rho_no3[i], only[i] = out["rho"], out["no3"], out["only"]
            only_sel.append([pools.categories[c] for c in out["only_sel"]])
            for (s, j), cols in out["chosen"].items():
                selected[(i, s, j)] = [pools.categories[c] for c in cols]
            tick()
    return rho, rho_no3, only, selected, only_sel


@validate_params(
    {**PROTOCOL_PARAMS, "k": [Interval(Integral, 1, None, desc="a positive number of categories")]}
)
def end_to_end(
    panel: Panel,
    *,
    selectors: Sequence[SelectorSpec] = DEFAULT_SELECTORS,
    retentions: Sequence[float] = DEFAULT_RETENTIONS,
    k: int = 5,
    protocol: Literal["random", "chronological"] = "random",
    n_splits: int = 20,
    splits: Sequence[Split] | None = None,
    tau: float = 2.0 / 3.0,
    target: float = 0.95,
    floor: int = 100,
    min_heldout: int = 10,
    embeddings: ItemEmbeddings | None = None,
    predictions: Any = None,
    random_state: int | np.random.Generator | None = 0,
    n_jobs: int | None = None,
    progress: ProgressFn | None = None,
    backend: str | None = None,
    address: str | None = None,
) -> EndToEndResult:
    """Run the end-to-end protocol (PRIMEBench D.3, Table 12) on a raw panel.

    ``panel`` holds the image-condition runs and optionally the text-only runs (Stage 0's blind filter).
    ``k`` is the Stage 3 category count (5), capped at the number of categories. Every held-out rho needs
    ``min_heldout`` (10) held-out models with both scores, else it is undefined (NaN, D.3). The other
    parameters are those of :func:`~benchsift.compression.protocols.stage2_heldout.stage2_heldout`;
    ``predictions`` (the logged answers DISCO reads, aligned with ``panel.scores``) follow Stage 0 onto the
    cleaned pool (so are ``n_jobs``, ``backend`` and ``address``: where the split tasks run).
    ``progress(done, total)`` (:mod:`benchsift.progress`) is called after each split.
    """
    sel_labels = check_selectors(selectors)
    rets = check_retentions(retentions)
    t0 = time.perf_counter()
    if predictions is not None:
        predictions = check_predictions(predictions, panel)
    s0 = stage0_clean(panel, tau=tau)
    clean = s0.panel
    require_at_least(clean.n_items, 1, "end_to_end: items left after Stage 0", "all were removed")
    if predictions is not None:  # Stage 0 keeps the image-condition rows and the kept items
        predictions = predictions[panel.image_rows][:, s0.kept]
    pools = prepare_pools(clean, embeddings, predictions, selectors=selectors)
    ref_cat, _ = benchmark_weighted_category_means(clean)
    reference = row_mean(ref_cat)
    single = pools.n_categories == 1
    notes = list(pools.notes)
    # stages the user asked for that do not run as asked: warnings (Stage 0's as compress reports them)
    skipped = [f"stage 0: {w}" for w in s0.warnings]
    if single:
        skipped.append("the panel has one category: Stages 1 and 3 are skipped (end-to-end = Stage 2 only)")
    k_eff = min(int(k), pools.n_categories)
    if k_eff < int(k):
        skipped.append(f"k={k} exceeds the {pools.n_categories} categories: Stage 3 keeps all of them")
    base = base_seed(random_state)
    split_list, proto = _model_splits(pools, protocol, splits, n_splits, base)
    notes += small_split_notes(split_list, min_heldout)  # as stage2_heldout says it, or refused

    rho, rho_no3, only, selected, only_sel = _run_splits(
        clean,
        pools,
        reference,
        list(selectors),
        rets,
        split_list,
        k_eff,
        int(floor),
        base,
        single,
        target,
        int(min_heldout),
        workers=(backend, address, n_jobs),
        progress=progress,
    )
    return EndToEndResult(
        protocol=proto,
        selectors=sel_labels,
        retentions=rets,
        splits=split_list,
        categories=pools.categories,
        k=k_eff,
        rho=rho,
        rho_no_stage3=rho_no3,
        rho_stage3_only=only,
        selected=selected,
        selected_stage3_only=only_sel,
        seconds=round(time.perf_counter() - t0, 3),
        params={
            "k": k_eff,
            "tau": float(tau),
            "target": float(target),
            "floor": int(floor),
            "min_heldout": int(min_heldout),
            "n_models": pools.n_models,
            "n_items_clean": pools.n_items,
            "random_state": random_state if isinstance(random_state, int | None) else "generator",
        },
        notes=tuple(notes),
        warnings=(*skipped, *disco_warnings(sel_labels, predictions)),
    )
