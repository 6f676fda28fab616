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

The last column of Table 18 fills every missing score with the benchmark's mean over *all* models, keeps
every model and re-selects the subset (``rho_imputed``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from benchsift.compression.diagnostics._aggregate import (
    check_k,
    covered,
    default_coverage,
    matrix_input,
    z_reference,
)
from benchsift.compression.stages.categories import exhaustive_search, greedy_path
from benchsift.errors import InputError
from benchsift.panel import Panel
from benchsift.stats import check_random_state, nan_mean, paired_columns, percentile_ci

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
    if n == 0:
        raise InputError("strata: expected at least one row")
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


@dataclass(frozen=True)
class AggregateStage3Result:
    """One row of Table 18 per ``k`` in :attr:`table` plus what the rows were computed on."""

    benchmarks: list[str]
    n_models: int
    n_models_all: int
    min_coverage: int
    n_boot: int
    level: float
    rows: list[dict[str, Any]]
    notes: list[str] = field(default_factory=list)

    def table(self) -> pd.DataFrame:
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
        }


def _bootstrap_rho(score: np.ndarray, ref: np.ndarray, idx: np.ndarray) -> np.ndarray:
    """rho(ref, score) on every resample (rows of ``idx``), as one paired-columns call."""
    return paired_columns(ref[idx].T, score[idx].T, "srcc")


def aggregate_stage3(
    data: Panel | np.ndarray,
    *,
    ks: Sequence[int] = (3, 5, 8),
    benchmarks: Sequence[str] | None = None,
    families: Sequence[Any] | None = None,
    min_coverage: int | None = None,
    n_boot: int = 10_000,
    level: float = 0.95,
    random_state: int | np.random.Generator | None = 0,
) -> AggregateStage3Result:
    """Stage 3 on an aggregate panel (PRIMEBench H.3, Table 18); see the module docstring.

    ``data`` is a panel (benchmark means of its image-condition models; ``families`` from its ``family``
    column) or a ``(models x benchmarks)`` matrix with ``benchmarks`` naming the columns and optional
    ``families`` (one per row).
    """
    X, names, models = matrix_input(data, benchmarks)
    if families is not None:
        fam = list(families)
    else:
        fam = models["family"].tolist() if models is not None else [None] * X.shape[0]
    if len(names) != X.shape[1] or len(fam) != X.shape[0]:
        raise InputError("benchmarks / families: expected one name per column and one family per row")
    if int(n_boot) < 1 or not 0 < float(level) < 1:
        raise InputError(f"n_boot >= 1 and level in (0, 1) expected, got {n_boot!r}, {level!r}")
    n_b = X.shape[1]
    cov = default_coverage(n_b) if min_coverage is None else int(min_coverage)
    if not 1 <= cov <= n_b:
        raise InputError(f"min_coverage: expected 1 to {n_b} benchmarks a model must cover, got {cov}")
    keep = covered(X, cov)
    if keep.sum() < 3:
        raise InputError(f"only {int(keep.sum())} models cover at least {cov} benchmarks; need at least 3")
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
    idx = stratified_bootstrap_indices(fam_k, int(n_boot), random_state)
    # mean imputation over all models (last column of Table 18)
    col_mean = np.nanmean(np.where(np.isnan(X).all(axis=0), 0.0, X), axis=0) if X.size else X
    Xi = np.where(np.isnan(X), col_mean, X)
    Zi, ref_i = z_reference(Xi)
    rows = []
    greedy = greedy_path(Z, max(check_k(k, n_b) for k in ks), ref)
    for k in ks:
        k = check_k(k, n_b)
        best = exhaustive_search(Z, k, ref)
        score = _subset_score(Z, best.positions)
        boot = _bootstrap_rho(score, ref, idx)
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
    )


def _subset_score(Z: np.ndarray, positions: Sequence[int]) -> np.ndarray:
    """Mean available z-score over the subset's columns (NaN when a model has none)."""
    return np.round(nan_mean(Z[:, list(positions)], axis=1), 12)
