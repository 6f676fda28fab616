"""Protocol (c): same-model selection per benchmark (PRIMEBench Appendix H.2, Table 17).

Every selector keeps ``round(r N_b)`` items (half up, at least 1, no 100-item floor) of each benchmark ``b``
on its own, fitted on *all* models, and

.. math:: \\rho_b = \\rho_{\\mathrm{Spearman}}\\big((\\bar x_{m,b})_m,\\ (\\bar x_{m,S_b})_m\\big)

compares, on the same models, the full-benchmark mean with the mean on the kept items (undefined with fewer
than ``min_models`` models having both, or a constant side). The table reports the mean of ``rho_b`` over the
benchmarks with a defined value; in the JSON ``results``, ``rho_sd``/``rho_min``/``rho_max`` are taken over
benchmarks and ``wins`` counts the benchmarks where the selector is best. Since selection and scoring see the
same models, response-pattern fits (IRT, AnchorPoints) are favoured, as H.2 notes.
"""

from __future__ import annotations

import math
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd
from joblib import delayed

from benchsift._threads import single_thread
from benchsift.compression.embeddings import ItemEmbeddings
from benchsift.compression.protocols.group_means import weighted_group_means
from benchsift.compression.protocols.pools import CategoryPools, prepare_pools, select_pool
from benchsift.compression.protocols.results import result_records, summary_frame
from benchsift.compression.protocols.seeds import base_seed, retention_key, selector_key, task_seed
from benchsift.compression.protocols.specs import (
    DEFAULT_RETENTIONS,
    DEFAULT_SELECTORS,
    SelectorSpec,
    check_retentions,
    check_selectors,
    disco_warnings,
)
from benchsift.compression.protocols.stage2_heldout import per_category_rho, split_summary
from benchsift.panel import Panel
from benchsift.parallel import ordered_parallel, sweep_backend
from benchsift.progress import ProgressFn, Ticker
from benchsift.results import Result

__all__ = ["SameModelResult", "same_model", "same_model_budget"]


def same_model_budget(n_items: int, retention: float) -> int:
    """``round(r N)`` with halves rounded up, at least 1 (PRIMEBench H.2)."""
    return max(1, min(int(n_items), math.floor(float(retention) * int(n_items) + 0.5 + 1e-9)))


@dataclass(frozen=True, repr=False)
class SameModelResult(Result):
    """``rho`` is ``(n_selectors, n_retentions, n_benchmarks)``; ``n_models`` per benchmark."""

    selectors: list[str]
    retentions: list[float]
    benchmarks: list[str]
    n_items: np.ndarray
    n_models: np.ndarray
    rho: np.ndarray
    seconds: dict[str, float]
    params: dict[str, Any]
    notes: tuple[str, ...] = ()
    warnings: tuple[str, ...] = ()

    def summary(self) -> pd.DataFrame:
        # split_summary treats axis 0 as the replicates: here the benchmarks
        stats = split_summary(np.moveaxis(self.rho, -1, 0))
        return summary_frame(self.selectors, self.retentions, stats, n_benchmarks=stats["n_splits"])

    def benchmark_table(self, retention: float) -> pd.DataFrame:
        j = int(np.argmin([abs(r - float(retention)) for r in self.retentions]))
        frame = pd.DataFrame({"benchmark": self.benchmarks, "items": self.n_items, "models": self.n_models})
        for s, name in enumerate(self.selectors):
            frame[name] = self.rho[s, j]
        return frame

    def results(self) -> list[dict[str, Any]]:
        """The JSON ``results`` list: ``selector, retention, rho_mean, rho_sd, rho_min, rho_max, wins``."""
        return result_records(self.summary())

    def to_dict(self) -> dict[str, Any]:
        return {
            "protocol": "same-model",
            "results": self.results(),
            "benchmarks": self.benchmarks,
            "seconds": self.seconds,
            "params": self.params,
            "notes": list(self.notes),
            "warnings": list(self.warnings),
        }

    def to_frame(self) -> pd.DataFrame:
        """One row per (selector, retention): the protocol's summary (:meth:`summary`)."""
        return self.summary()


def _selector_task(
    pools: CategoryPools,
    spec: SelectorSpec,
    retentions: list[float],
    base: int,
    min_models: int,
    full: np.ndarray,
) -> tuple[np.ndarray, float]:
    t0 = time.perf_counter()
    rows = np.arange(pools.n_models)
    n_b = pools.n_categories
    rho = np.full((len(retentions), n_b), np.nan)
    with single_thread():
        for j, r in enumerate(retentions):
            W = np.zeros((pools.n_items, n_b))
            for b in range(n_b):
                cols = pools.columns[b]
                k = same_model_budget(cols.shape[0], r)
                if k >= cols.shape[0]:
                    W[cols, b] = 1.0
                    continue
                seed = task_seed(base, selector_key(spec), retention_key(r), b)
                kept, _ = select_pool(pools, spec, rows, cols, k, seed)
                W[kept, b] = 1.0
            rho[j] = per_category_rho(full, weighted_group_means(pools.scores, W), min_models)
    return rho, time.perf_counter() - t0


def same_model(
    panel: Panel,
    *,
    selectors: Sequence[SelectorSpec] = DEFAULT_SELECTORS,
    retentions: Sequence[float] = DEFAULT_RETENTIONS,
    min_models: int = 10,
    embeddings: ItemEmbeddings | None = None,
    predictions: Any = None,
    random_state: int | np.random.Generator | None = 0,
    n_jobs: int | None = None,
    progress: ProgressFn | None = None,
    backend: str | None = None,
    address: str | None = None,
) -> SameModelResult:
    """Same-model selection per benchmark (PRIMEBench H.2, Table 17); see the module docstring.

    ``predictions``: optional logged answers aligned with ``panel.scores``, passed to DISCO (see
    :func:`~benchsift.compression.protocols.stage2_heldout.stage2_heldout`). ``n_jobs``, ``backend`` and
    ``address``: where the selector tasks run (:func:`benchsift.parallel.sweep_backend`); results do not
    depend on them. ``progress(done, total)`` (:mod:`benchsift.progress`) is called after each selector.
    """
    sel_labels = check_selectors(selectors)
    rets = check_retentions(retentions)
    # one pool per benchmark: ignore the categories
    items = panel.items.copy()
    items["category"] = items["benchmark"]
    by_bench = Panel(panel.scores, panel.models, items)
    pools = prepare_pools(by_bench, embeddings, predictions, selectors=selectors)
    base = base_seed(random_state)
    full = weighted_group_means(pools.scores, pools.onehot())
    rho = np.full((len(sel_labels), len(rets), pools.n_categories), np.nan)
    seconds: dict[str, float] = {}
    tick = Ticker(progress, len(sel_labels))
    with sweep_backend(backend, address, n_jobs) as workers:
        outputs = ordered_parallel(workers)(
            delayed(_selector_task)(pools, spec, rets, base, int(min_models), full)
            for s, spec in enumerate(selectors)
        )
        for s, (r, sec) in enumerate(outputs):
            rho[s] = r
            seconds[sel_labels[s]] = round(sec, 4)
            tick()
    return SameModelResult(
        selectors=sel_labels,
        retentions=rets,
        benchmarks=pools.categories,
        n_items=np.array([c.shape[0] for c in pools.columns], dtype=np.int64),
        n_models=np.isfinite(full).sum(axis=0),
        rho=rho,
        seconds=seconds,
        params={
            "min_models": int(min_models),
            "random_state": random_state if isinstance(random_state, int | None) else "generator",
        },
        notes=pools.notes,
        warnings=tuple(disco_warnings(sel_labels, predictions)),
    )
