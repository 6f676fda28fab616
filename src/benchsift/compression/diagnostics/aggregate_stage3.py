"""Stage 3 on an aggregate panel with the coverage rule and bootstrap CIs (PRIMEBench Appendix H.3, Table 18).

On the models scored on at least ``min_coverage`` benchmarks (H.3: 7 of 14), each benchmark is
z-normalised across those models and the reference score of a model is the mean of its available z-scores
(no imputation). Stage 3 (PRIMEBench Eq. 7) picks the ``k`` benchmarks whose mean available z-score has the
highest Spearman rho with the reference (exhaustive over all subsets; greedy forward selection is reported
beside it).

Confidence interval: ``n_boot`` paired bootstrap resamples of the models, stratified over model families
(each family resampled with replacement to its own size; a model without a family is its own stratum);
rho of the *selected* subset against the reference on each resample, percentile interval. As in Table 18 the
CI omits the selection uncertainty. The resampled correlations are one vectorised call over a
``(n_models, n_boot)`` matrix.

Clustered items (an item-level panel whose items share images or source questions,
:func:`benchsift.panel.item_clusters`): the benchmark means are then themselves noisy in a way a model-only
resample cannot see, so by default (``resample_items=None``: exactly when clusters are used) every
replicate also resamples the item clusters within each benchmark (:func:`benchsift.stats.
stratified_cluster_bootstrap_weights`), recomputes the benchmark means, their z-scores and the reference
on the replicate, and only then draws the models: a two-stage bootstrap (Davison & Hinkley 1997, Sec. 3.8,
resampling both stages; Field & Welsh 2007). The interval then holds item-cluster sampling on top of
model sampling; ``clusters=None`` (or ``resample_items=False``) gives Table 18's model-only interval, and
an aggregate matrix has no items, so nothing changes there. Without clusters the result is unchanged.

The last column of Table 18 fills every missing score with the benchmark's mean over *all* models, keeps
every model and re-selects the subset (``rho_imputed``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from numbers import Integral, Real
from typing import Any

import numpy as np
import pandas as pd

from benchsift._inputs import check_distinct, check_length
from benchsift._params import Interval, validate_params
from benchsift.compression.diagnostics._aggregate import (
    check_k,
    covering_models,
    default_sizes,
    matrix_input,
    z_reference,
)
from benchsift.compression.stages.categories import exhaustive_search, greedy_path
from benchsift.errors import InputError, require_at_least
from benchsift.panel import ClusterSpec, ItemClusters, Panel, item_clusters
from benchsift.results import Result
from benchsift.stats import check_random_state, percentile_ci, stratified_cluster_bootstrap_weights, zscore
from benchsift.stats.correlation import paired_columns
from benchsift.stats.means import nan_mean

__all__ = ["AggregateStage3Result", "aggregate_stage3", "stratified_bootstrap_indices"]


def stratified_bootstrap_indices(
    strata: Sequence[Any], n_boot: int, random_state: int | np.random.Generator | None = 0
) -> np.ndarray:
    """``(n_boot, n)`` row indices: each stratum resampled with replacement to its own size.

    Column block ``j`` of a stratum stays inside that stratum, so a resample has the same family sizes as
    the data. Missing strata (None / NaN) are singletons. One draw per stratum (a loop over strata, not over
    replicates).
    """
    labels = pd.Series(list(strata), dtype=object)
    n = len(labels)
    require_at_least(n, 1, "strata: rows", "a bootstrap resamples them")
    missing = labels.isna().to_numpy()
    keys = labels.astype(str).to_numpy(dtype=object)
    keys[missing] = [f"\x00singleton{i}" for i in np.flatnonzero(missing)]
    codes, _ = pd.factorize(pd.Series(keys, dtype=object), sort=False)
    rng = check_random_state(random_state)
    out = np.empty((int(n_boot), n), dtype=np.int64)
    for c in range(int(codes.max()) + 1):
        members = np.flatnonzero(codes == c)
        out[:, members] = members[rng.integers(0, members.size, size=(int(n_boot), members.size))]
    return out


@dataclass(frozen=True, repr=False)
class AggregateStage3Result(Result):
    """One row of Table 18 per ``k`` in :attr:`table` plus what the rows were computed on."""

    benchmarks: list[str]
    n_models: int
    n_models_all: int
    min_coverage: int
    n_boot: int
    level: float
    rows: list[dict[str, Any]]
    notes: list[str] = field(default_factory=list)
    clusters: dict[str, Any] | None = None
    items_resampled: bool = False
    warnings: list[str] = field(default_factory=list)

    def to_frame(self) -> pd.DataFrame:
        return pd.DataFrame(self.rows)

    def to_dict(self) -> dict[str, Any]:
        return {
            "benchmarks": self.benchmarks,
            "n_models": self.n_models,
            "n_models_all": self.n_models_all,
            "min_coverage": self.min_coverage,
            "n_boot": self.n_boot,
            "level": self.level,
            "rows": self.rows,
            "notes": list(self.notes),
            "clusters": self.clusters,
            "items_resampled": self.items_resampled,
            "warnings": list(self.warnings),
        }

    def table(self) -> pd.DataFrame:
        """The same as :meth:`to_frame` (the name the CLI and older code use)."""
        return self.to_frame()


def _bootstrap_rho(score: np.ndarray, ref: np.ndarray, idx: np.ndarray) -> np.ndarray:
    """rho(ref, score) on every resample (rows of ``idx``), as one paired-columns call."""
    return paired_columns(ref[idx].T, score[idx].T, "srcc")


#: Table 18's subset sizes: ``aggregate_stage3``'s ``ks`` when not given (capped at the benchmarks)
STAGE3_KS = (3, 5, 8)


# n_boot 2 or more: one replicate gave "95% CI [0.967, 0.967]" beside a rho of 0.986 (audit s32; compare
# refuses it too)
@validate_params({"n_boot": [Interval(Integral, 2, None)], "level": [Interval(Real, 0, 1, closed="neither")]})
def aggregate_stage3(
    data: Panel | np.ndarray,
    *,
    ks: Sequence[int] | None = None,
    benchmarks: Sequence[str] | None = None,
    families: Sequence[Any] | None = None,
    min_coverage: int | None = None,
    n_boot: int = 10_000,
    level: float = 0.95,
    random_state: int | np.random.Generator | None = 0,
    clusters: ClusterSpec = "auto",
    resample_items: bool | None = None,
) -> AggregateStage3Result:
    """Stage 3 on an aggregate panel (PRIMEBench H.3, Table 18); see the module docstring.

    ``data`` is a panel (benchmark means of its image-condition models; ``families`` from its ``family``
    column) or a ``(models x benchmarks)`` matrix with ``benchmarks`` naming the columns and optional
    ``families`` (one per row). ``clusters`` (a panel only; :func:`benchsift.panel.item_clusters`) and
    ``resample_items`` (None: when clusters are used) choose the two-stage bootstrap of the module
    docstring; the result's ``clusters`` and ``items_resampled`` say what was done. ``ks`` defaults to
    :data:`STAGE3_KS` (Table 18's 3, 5 and 8), each capped at the number of benchmarks with a warning.
    """
    found = _panel_clusters(data, clusters)
    two_stage = bool(found is not None and (found.used if resample_items is None else resample_items))
    if resample_items and found is None:
        raise InputError("`resample_items`: an aggregate matrix has no items to resample; pass a Panel")
    X, names, models = matrix_input(data, benchmarks)
    if families is not None:
        fam = list(families)
    else:
        fam = models["family"].tolist() if models is not None else [None] * X.shape[0]
    check_length("families", fam, X.shape[0], "families (one per model row)")
    n_b = X.shape[1]
    cov, keep = covering_models(X, min_coverage)
    capped: list[str] = []
    if ks is None:  # (after the inputs are checked: a refused call warns of nothing)
        ks, capped = default_sizes(STAGE3_KS, n_b, "ks")
    check_distinct("ks", [int(k) for k in ks], what="subset size")  # "--k 2,2" printed the row twice
    Xk = X[keep]
    Z, ref = z_reference(Xk)
    fam_k = [f for f, k in zip(fam, keep, strict=True) if k]
    notes: list[str] = []
    named = [f for f in fam_k if f is not None and not pd.isna(f)]
    if len(set(named)) == len(named):
        # every stratum a single model: each replicate would be the data and every CI zero wide
        fam_k = ["all models"] * len(fam_k)
        notes.append(
            "no two models share a family: the bootstrap resamples all models as one stratum "
            "(one stratum per model would give zero-width intervals)"
        )
    rng = check_random_state(random_state)
    idx = stratified_bootstrap_indices(fam_k, int(n_boot), rng)
    # mean imputation over all models (last column of Table 18)
    col_mean = np.nanmean(np.where(np.isnan(X).all(axis=0), 0.0, X), axis=0) if X.size else X
    Xi = np.where(np.isnan(X), col_mean, X)
    Zi, ref_i = z_reference(Xi)
    rows = []
    greedy = greedy_path(Z, max(check_k(k, n_b) for k in ks), ref)
    bests = [exhaustive_search(Z, check_k(k, n_b), ref) for k in ks]
    two = None
    if two_stage:
        assert isinstance(data, Panel) and found is not None
        two = _two_stage_rho(data, found, keep, names, [b.positions for b in bests], idx, rng)
        notes.append(
            f"the interval resamples the panel's {found.n_clusters} item clusters within each benchmark "
            "as well as the models (two-stage bootstrap): it holds item sampling, which Table 18's "
            "model-only interval (clusters=None) leaves out"
        )
    for n_k, k in enumerate(ks):
        k = check_k(k, n_b)
        best = bests[n_k]
        score = _subset_score(Z, best.positions)
        boot = _bootstrap_rho(score, ref, idx) if two is None else two[n_k]
        lo, hi = (
            percentile_ci(boot[np.isfinite(boot)], level) if np.isfinite(boot).any() else (np.nan, np.nan)
        )
        best_i = exhaustive_search(Zi, k, ref_i)
        rows.append(
            {
                "k": k,
                "rho": best.rho,
                "ci_low": float(lo),
                "ci_high": float(hi),
                "selected": [names[p] for p in best.positions],
                "rho_greedy": greedy[k - 1].rho,
                "rho_imputed": best_i.rho,
                "selected_imputed": [names[p] for p in best_i.positions],
            }
        )
    return AggregateStage3Result(
        benchmarks=names,
        n_models=int(keep.sum()),
        n_models_all=int(X.shape[0]),
        min_coverage=cov,
        n_boot=int(n_boot),
        level=float(level),
        rows=rows,
        notes=notes,
        clusters=None if found is None else found.to_dict(),
        items_resampled=two_stage,
        warnings=[*capped, *([] if found is None else found.warnings)],
    )


def _panel_clusters(data: Panel | np.ndarray, clusters: ClusterSpec) -> ItemClusters | None:
    """The item clusters of a panel input (None for an aggregate matrix)."""
    if not isinstance(data, Panel):
        return None
    return item_clusters(data.items, clusters)


def _two_stage_rho(
    panel: Panel,
    found: ItemClusters,
    keep: np.ndarray,
    names: list[str],
    subsets: Sequence[Sequence[int]],
    idx: np.ndarray,
    rng: np.random.Generator,
    chunk: int = 250,
) -> list[np.ndarray]:
    """rho of each subset on every replicate of the two-stage bootstrap: item clusters within benchmarks
    (weights), then the replicate's benchmark means, z-scores and reference, then the models ``idx``."""
    image = panel.image_rows
    S = np.asarray(panel.scores)[image][keep]  # (Mk, N) the kept image-condition models
    bench = panel.items["benchmark"].astype(str).to_numpy()
    col_of = {b: j for j, b in enumerate(names)}
    b_codes = np.array([col_of[b] for b in bench], dtype=np.int64)
    obs = ~np.isnan(S)
    S0 = np.where(obs, S, 0.0)
    n_boot = idx.shape[0]
    out = [np.empty(n_boot) for _ in subsets]
    for start in range(0, n_boot, chunk):
        nb = min(chunk, n_boot - start)
        W = stratified_cluster_bootstrap_weights(found.codes, b_codes, nb, rng)  # (nb, N)
        means = np.full((nb, S.shape[0], len(names)), np.nan)
        for j in range(len(names)):
            cols = b_codes == j
            sums, counts = W[:, cols] @ S0[:, cols].T, W[:, cols] @ obs[:, cols].T.astype(np.float64)
            np.divide(sums, counts, out=means[:, :, j], where=counts > 0)
        Z = zscore(means, axis=1)  # each benchmark across the kept models, per replicate
        ref = np.round(nan_mean(Z, axis=2), 12)  # (nb, Mk)
        rows = idx[start : start + nb]  # (nb, n) model draws of these replicates
        ref_r = np.take_along_axis(ref, rows, axis=1)
        for s_i, pos in enumerate(subsets):
            score = np.round(nan_mean(Z[:, :, list(pos)], axis=2), 12)
            score_r = np.take_along_axis(score, rows, axis=1)
            out[s_i][start : start + nb] = paired_columns(ref_r.T, score_r.T, "srcc")
    return out


def _subset_score(Z: np.ndarray, positions: Sequence[int]) -> np.ndarray:
    """Mean available z-score over the subset's columns (NaN when a model has none)."""
    return np.round(nan_mean(Z[:, list(positions)], axis=1), 12)
