"""Ranking checkpoints / variants of one model on selected items (PRIMEBench I.4, Table 23, Fig. 4b).

Items are selected on the *panel* models' responses (the variants never take part), at the category budget
``K = max(floor(r N), min(N, 100))`` of the whole item pool. Fidelity of a variant set is the Spearman rho
(average ranks for ties) between the variants' mean on the selected items and on the full test set.

Bootstrap ceiling (I.4): a variant set supports a conclusion only if its full-test ranking is itself stable.
The items are resampled with replacement ``n_boot`` times (multinomial weights, :func:`~benchsift.stats.
bootstrap_weights`); on each resample the variants' weighted means give a ranking, and the ceiling is the mean
over resamples of its Spearman rho with the full-test ranking. Sets below ``threshold`` (0.90) are flagged
``passes = False``. All resamples are one pair of matrix products. One adjacent swap in a ranking of ``n``
variants without ties moves rho by ``12 / (n (n^2 - 1))`` (0.024 for n = 8). When the items share
images or source questions (:func:`benchsift.panel.item_clusters` on the selection panel's items), the
resamples draw whole clusters (:func:`~benchsift.stats.cluster_bootstrap_weights`); without shared clusters
the bytes are those of the item bootstrap.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from benchsift._inputs import check_array
from benchsift._params import Check, validate_params
from benchsift._threads import single_thread
from benchsift.compression.protocols.pools import prepare_pools, select_pool
from benchsift.compression.protocols.seeds import base_seed, retention_key, selector_key, task_seed
from benchsift.compression.protocols.specs import SelectorSpec, check_retentions, check_selectors
from benchsift.compression.selectors.budget import category_budget
from benchsift.errors import InputError
from benchsift.panel import ClusterSpec, ItemClusters, Panel, item_clusters
from benchsift.results import Result
from benchsift.stats import bootstrap_weights, cluster_bootstrap_weights, spearman
from benchsift.stats.correlation import corr_with_vector
from benchsift.stats.means import nan_mean

__all__ = ["CheckpointResult", "adjacent_swap", "bootstrap_ceiling", "checkpoint_ranking"]


def adjacent_swap(n: int) -> float:
    """Change of Spearman rho caused by one adjacent swap among ``n`` untied ranks: ``12 / (n (n^2 - 1))``."""
    n = int(n)
    return 12.0 / (n * (n * n - 1)) if n >= 2 else float("nan")


def _row_means(V: np.ndarray) -> np.ndarray:
    return nan_mean(V, axis=1)


def bootstrap_ceiling(
    variant_scores: np.ndarray,
    n_boot: int = 1000,
    random_state: int | np.random.Generator | None = 0,
    clusters: ItemClusters | None = None,
) -> tuple[float, np.ndarray]:
    """Mean bootstrap rho of the full-test ranking (PRIMEBench I.4) and the per-resample rhos.

    ``variant_scores`` is ``(n_variants, n_items)``, NaN = missing; ``clusters`` (used ones) make the
    resamples draw whole item clusters.
    """
    V = check_array("variant_scores", variant_scores, min_shape=(2, 1), what="(>= 2 variants, >= 1 item)")
    full = _row_means(V)
    if clusters is not None and clusters.used:
        if clusters.n_items != V.shape[1]:
            raise InputError(f"clusters: {clusters.n_items} item labels for {V.shape[1]} items")
        W = cluster_bootstrap_weights(clusters.codes, int(n_boot), random_state)
    else:
        W = bootstrap_weights(V.shape[1], int(n_boot), random_state)  # (n_boot, n_items)
    obs = ~np.isnan(V)
    num = np.where(obs, V, 0.0) @ W.T
    den = obs.astype(np.float64) @ W.T
    means = np.full(num.shape, np.nan)
    np.divide(num, den, out=means, where=den > 0)
    rho = corr_with_vector(means, full, "srcc")
    finite = rho[np.isfinite(rho)]
    return (float(finite.mean()) if finite.size else float("nan")), rho


@dataclass(frozen=True, repr=False)
class CheckpointResult(Result):
    """Table 23: one row per variant set (``n``, ``ceiling``, ``passes``, fidelity per selector@retention)."""

    selectors: list[str]
    retentions: list[float]
    rows: list[dict[str, Any]]
    n_items: int
    budgets: list[int]
    threshold: float
    clusters: dict[str, Any] | None = None
    warnings: list[str] = field(default_factory=list)

    def to_frame(self) -> pd.DataFrame:
        return pd.DataFrame(self.rows)

    def means(self) -> dict[str, float]:
        """Mean fidelity over the ceiling-passing sets per ``selector@retention`` column."""
        frame = self.table()
        ok = frame[frame["passes"]]
        cols = [c for c in frame.columns if "@" in c]
        return {c: (float(ok[c].mean()) if len(ok) else float("nan")) for c in cols}

    def to_dict(self) -> dict[str, Any]:
        return {
            "selectors": self.selectors,
            "retentions": self.retentions,
            "n_items": self.n_items,
            "budgets": self.budgets,
            "threshold": self.threshold,
            "rows": self.rows,
            "means_passing": self.means(),
            "clusters": self.clusters,
            "warnings": list(self.warnings),
        }

    def table(self) -> pd.DataFrame:
        """The same as :meth:`to_frame` (the name the CLI and older code use)."""
        return self.to_frame()


@validate_params({"variant_sets": [Check(lambda v: len(v) > 0, "at least one variant set")]})
def checkpoint_ranking(
    selection: Panel,
    variant_sets: Mapping[str, np.ndarray],
    *,
    selectors: Sequence[SelectorSpec] = ("variance", "vaw"),
    retentions: Sequence[float] = (0.05, 0.10),
    floor: int = 100,
    threshold: float = 0.90,
    n_boot: int = 1000,
    random_state: int | np.random.Generator | None = 0,
    clusters: ClusterSpec = "auto",
) -> CheckpointResult:
    """Checkpoint-ranking fidelity with the bootstrap ceiling (PRIMEBench I.4, Table 23).

    ``selection`` is the panel the items are selected on (all its items form one pool); each variant set
    is an ``(n_variants, n_items)`` array on the same items in the same order. ``clusters``
    (:func:`benchsift.panel.item_clusters` on ``selection.items``) makes the ceiling's resamples draw whole
    item clusters.
    """
    labels = check_selectors(selectors)
    rets = check_retentions(retentions)
    items = selection.items.copy()
    items["category"] = "pool"
    pools = prepare_pools(Panel(selection.scores, selection.models, items))
    n = pools.n_items
    for name, V in variant_sets.items():
        check_array(f"variant set {name!r}", V, shape=(None, n), what=f"shape (n_variants, {n})")
    found = item_clusters(selection.items, clusters)
    base = base_seed(random_state)
    rows_all = np.arange(pools.n_models)
    cols = pools.columns[0]
    kept: dict[tuple[int, int], np.ndarray] = {}
    budgets = [category_budget(n, r, int(floor)) for r in rets]
    with single_thread():
        for s, spec in enumerate(selectors):
            for j, k in enumerate(budgets):
                seed = task_seed(base, selector_key(spec), retention_key(rets[j]))
                kept[(s, j)] = cols if k >= n else select_pool(pools, spec, rows_all, cols, k, seed)[0]
    out_rows = []
    for v, (name, V) in enumerate(variant_sets.items()):
        Va = np.asarray(V, dtype=np.float64)
        full = _row_means(Va)
        ceiling, _ = bootstrap_ceiling(Va, n_boot, task_seed(base, 10_000 + v), found)
        row: dict[str, Any] = {
            "variant_set": str(name),
            "n": int(Va.shape[0]),
            "ceiling": ceiling,
            "passes": bool(np.isfinite(ceiling) and ceiling >= threshold),
            "one_swap": adjacent_swap(Va.shape[0]),
        }
        for (s, j), pos in kept.items():
            row[f"{labels[s]}@{rets[j]:g}"] = float(spearman(_row_means(Va[:, pos]), full))
        out_rows.append(row)
    return CheckpointResult(
        selectors=labels,
        retentions=rets,
        rows=out_rows,
        n_items=n,
        budgets=budgets,
        threshold=float(threshold),
        clusters=found.to_dict(),
        warnings=list(found.warnings),
    )


def variant_sets(panel: Panel, variants: str) -> tuple[Panel, dict[str, np.ndarray]]:
    """Split a panel's image-condition models into the selecting models and the variant sets (I.4).

    Models whose id matches the regular expression ``variants`` (``re.search``) are the variants, grouped
    into variant sets by their ``family`` (one set named ``variants`` for those without one; a set needs
    at least 2 models); every other model selects the items.

    Returns
    -------
    selection, sets
        The panel of the other models, and set name -> ``(n_variants, n_items)`` scores on its items.
    """
    p = panel.image_panel()
    try:
        pattern = re.compile(variants)
    except re.error as exc:
        raise InputError(f"`variants`: not a valid regular expression: {exc}") from None
    is_var = np.array([bool(pattern.search(m)) for m in p.model_ids])
    if is_var.sum() < 2 or (~is_var).sum() < 2:
        raise InputError(
            f"`variants` {variants!r} matches {int(is_var.sum())} models; need >= 2 variants and "
            ">= 2 other models"
        )
    fam = p.models["family"].to_numpy(dtype=object)
    sets: dict[str, np.ndarray] = {}
    keys = pd.Series([f if pd.notna(f) else "variants" for f in fam[is_var]], dtype=object)
    for key in pd.unique(keys):
        rows = np.flatnonzero(is_var)[(keys == key).to_numpy()]
        if rows.size >= 2:
            sets[str(key)] = p.scores[rows]
    return p.subset(models=~is_var), sets


def checkpoint_ranking_by_pattern(
    panel: Panel,
    variants: str,
    *,
    selectors: Sequence[SelectorSpec] = ("variance", "vaw"),
    retentions: Sequence[float] = (0.05, 0.10),
    n_boot: int = 1000,
    random_state: int | np.random.Generator | None = 0,
    clusters: ClusterSpec = "auto",
) -> CheckpointResult:
    """:func:`checkpoint_ranking` with the variant sets of :func:`variant_sets` (``benchsift diagnose
    checkpoints``): rank the variants whose id matches ``variants`` on items selected on the other models
    (PRIMEBench I.4, Table 23); ``clusters`` as there."""
    selection, sets = variant_sets(panel, variants)
    return checkpoint_ranking(
        selection,
        sets,
        selectors=selectors,
        retentions=retentions,
        n_boot=n_boot,
        random_state=random_state,
        clusters=clusters,
    )
