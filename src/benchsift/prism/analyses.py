"""Analyses of per-model axis means and bootstrap replicates (PRISM-VLM Sec. 5, App. E).

- nominal ranges (max - min across models, Table 2 Delta rows) and range widening
  ``range(target) / mean(range(references)) - 1`` (Sec. 5.1 "Nominal range", Table 12);
- inter-axis Pearson / Spearman matrices with PScore appended (Fig. 3) and model-resampling bootstrap CIs
  (App. E, "Bootstrap CIs on inter-axis correlations");
- leave-one-axis-out Spearman (Table 13); aggregator comparison: Pearson with q and R^2 = r^2 (Table 6),
  Spearman against the harmonic PScore and top-k under aggregators / reweightings (Table 17);
- mean effective weights and dominant-axis counts (Table 15);
- split-half pool independence (App. E, "Pool independence");
- per-domain PScore and their Spearman matrix (Fig. 19); the near-tie report (App. E, "Near-tie").
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd
from numpy.typing import NDArray

from benchsift._inputs import check_array, check_known
from benchsift._params import Options, validate_params
from benchsift._suggest import did_you_mean
from benchsift.errors import DegenerateError, InputError
from benchsift.io.verdicts import VerdictArrays
from benchsift.prism.aggregate import (
    AGGREGATORS,
    aggregate,
    effective_weights,
    pscore,
    weighted_pscore,
)
from benchsift.prism.bootstrap import BootstrapResult, pairwise_pvalues, separation
from benchsift.prism.scores import axis_means
from benchsift.stats import SeedLike, check_random_state, corr_matrix, pearson, percentile_ci, spearman
from benchsift.stats.bootstrap import bootstrap_indices
from benchsift.stats.ranks import rank_average

__all__ = [
    "aggregator_comparison",
    "axis_correlation",
    "axis_correlation_ci",
    "domain_correlation",
    "domain_pscores",
    "leave_one_axis_out",
    "mean_effective_weights",
    "near_tie_report",
    "nominal_ranges",
    "range_widening",
    "ranking_variants",
    "split_half",
    "top_k_range_widening",
]

FloatArray = NDArray[np.float64]


def _pscore_series(means: pd.DataFrame) -> pd.Series:
    s = pscore(means.to_numpy(float), [str(m) for m in means.index], [str(a) for a in means.columns])
    return pd.Series(s, index=means.index, name="PScore")


def nominal_ranges(
    table: pd.DataFrame, columns: Sequence[str] | None = None, groups: pd.Series | None = None
) -> pd.DataFrame:
    """Inter-model range ``max - min`` (NaN skipped) of each column, overall and per group (Table 2 Delta).

    Returns one row ``overall`` plus one per group value (e.g. the open-weight / closed-API tiers).
    """
    cols = list(table.columns if columns is None else columns)
    data = table[cols].apply(pd.to_numeric, errors="coerce")
    rows = {"overall": data.max() - data.min()}
    if groups is not None:
        g = pd.Series(np.asarray(groups), index=table.index)
        for name in pd.unique(g.dropna()):
            part = data[g == name]
            rows[str(name)] = part.max() - part.min()
    return pd.DataFrame(rows).T


def range_widening(target_range: float, reference_ranges: Sequence[float]) -> float:
    """``target / mean(references) - 1`` (Sec. 5.1: PScore's range is "99 % wider", "+241 %")."""
    ref = float(np.mean(np.asarray(reference_ranges, dtype=float)))
    if not np.isfinite(ref) or ref <= 0:
        return float("nan")
    return float(target_range) / ref - 1.0


def top_k_range_widening(
    table: pd.DataFrame,
    score: str,
    references: Sequence[str],
    k_values: Sequence[int],
    mask: pd.Series | NDArray[np.bool_] | None = None,
) -> pd.DataFrame:
    """Table 12: among the top-K models by ``score`` (within ``mask``, e.g. closed-API), the range of
    ``score``, the mean range of the ``references`` columns over the same models, and the widening."""
    sub = table if mask is None else table[np.asarray(mask, dtype=bool)]
    order = sub[score].sort_values(ascending=False, kind="stable").index
    rows = []
    for k in k_values:
        top = sub.loc[order[: int(k)]]
        target = float(top[score].max() - top[score].min())
        refs = [float(top[c].max() - top[c].min()) for c in references]
        rows.append(
            {
                "k": int(k),
                "range": target,
                "reference_range": float(np.mean(refs)),
                "widening": range_widening(target, refs),
            }
        )
    return pd.DataFrame(rows)


def axis_correlation(means: pd.DataFrame, method: str = "plcc", include_pscore: bool = True) -> pd.DataFrame:
    """Inter-axis correlation across models (Fig. 3), ``method`` "plcc" (Pearson) or "srcc" (Spearman),
    with PScore appended as a last row / column."""
    X = means.copy()
    if include_pscore:
        X["PScore"] = _pscore_series(means)
    C = corr_matrix(X.to_numpy(float), method)
    return pd.DataFrame(C, index=X.columns, columns=X.columns)


def _batched_corr(Xb: FloatArray) -> FloatArray:
    """Pearson matrices of a (B, n, k) batch (no NaN); a constant column gives NaN entries."""
    Z = Xb - Xb.mean(axis=1, keepdims=True)
    cov = np.einsum("bnk,bnl->bkl", Z, Z)
    sd = np.sqrt(np.einsum("bkk->bk", cov))
    denom = sd[:, :, None] * sd[:, None, :]
    out = np.full(cov.shape, np.nan)
    np.divide(cov, denom, out=out, where=denom > 1e-12 * np.maximum(1.0, np.abs(cov)))
    return np.clip(out, -1.0, 1.0)


@validate_params({"method": [Options(["plcc", "srcc"])]})
def axis_correlation_ci(
    means: pd.DataFrame,
    n_boot: int = 2000,
    random_state: SeedLike = 0,
    method: str = "plcc",
    level: float = 0.95,
    include_pscore: bool = True,
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Percentile bootstrap CIs of the inter-axis correlations, resampling models with replacement
    (App. E: "q-mq ... CI [+0.93, +0.98]"). Returns ``(lower, upper)`` matrices. Replicates where a
    column is constant are left out of that entry."""
    X = means.copy()
    if include_pscore:
        X["PScore"] = _pscore_series(means)
    # NaN refused: drop incomplete models first
    A = check_array(
        "axis_correlation_ci: axis means", X.to_numpy(float), nan=False, axes=("model row", "column")
    )
    idx = bootstrap_indices(A.shape[0], n_boot, random_state)
    Xb = A[idx]  # (B, n, k)
    if method == "srcc":
        Xb = rank_average(Xb, axis=1)
    lo, hi = percentile_ci(_batched_corr(Xb), level, axis=0)
    return (
        pd.DataFrame(lo, index=X.columns, columns=X.columns),
        pd.DataFrame(hi, index=X.columns, columns=X.columns),
    )


def leave_one_axis_out(means: pd.DataFrame) -> pd.Series:
    """Table 13: Spearman between the full PScore and the PScore without each axis in turn."""
    full = _pscore_series(means).to_numpy()
    out = {}
    for a in means.columns:
        rest = means.drop(columns=[a])
        out[str(a)] = spearman(full, _pscore_series(rest).to_numpy())
    return pd.Series(out, name="spearman")


def _top(values: FloatArray, names: Sequence[str], k: int) -> list[str]:
    order = np.argsort(-values, kind="stable")
    return [str(names[i]) for i in order[:k]]


def aggregator_comparison(means: pd.DataFrame, q_axis: str = "q", top_k: int = 5) -> pd.DataFrame:
    """Tables 6 and 17 for the four aggregators: Pearson with ``q_axis`` and ``R^2 = r^2`` (the share of
    the aggregate's variance a linear fit on q explains), Spearman against the harmonic PScore, the
    largest rank shift against it, and the top-``top_k`` models."""
    S = means.to_numpy(float)
    names = [str(m) for m in means.index]
    axes = [str(a) for a in means.columns]
    harm = pscore(S, names, axes)
    harm_rank = rank_average(-harm)
    q = means[q_axis].to_numpy(float) if q_axis in means.columns else None
    rows = {}
    for method in AGGREGATORS:
        v = aggregate(S, method, names, axes)
        r = pearson(v, q) if q is not None else float("nan")
        rows[method] = {
            "pearson_with_q": r,
            "r2": r * r,
            "spearman_vs_harmonic": spearman(v, harm),
            "max_rank_shift": float(np.nanmax(np.abs(rank_average(-v) - harm_rank))),
            "top": _top(v, names, top_k),
        }
    return pd.DataFrame(rows).T


def ranking_variants(
    means: pd.DataFrame, variants: Mapping[str, Mapping[str, float]], top_k: int = 5
) -> pd.DataFrame:
    """Table 17 reweightings: weighted harmonic PScore (Eq. 3) per named weight map {axis: w} (axes not
    named keep weight 1), its Spearman against the equal-weight PScore, and the top-``top_k``."""
    S = means.to_numpy(float)
    names = [str(m) for m in means.index]
    axes = [str(a) for a in means.columns]
    base = pscore(S, names, axes)
    rows = {}
    for name, wmap in variants.items():
        check_known(f"variant {name!r}", sorted(wmap), axes, what="axis")
        w = np.array([float(wmap.get(a, 1.0)) for a in axes])
        v = weighted_pscore(S, w, names, axes)
        rows[name] = {"spearman_vs_harmonic": spearman(v, base), "top": _top(v, names, top_k)}
    return pd.DataFrame(rows).T


def mean_effective_weights(means: pd.DataFrame) -> pd.Series:
    """Table 15: effective weights (Eq. 2) averaged over models."""
    W = effective_weights(
        means.to_numpy(float), [str(m) for m in means.index], [str(a) for a in means.columns]
    )
    return pd.Series(W.mean(axis=0), index=means.columns, name="effective_weight")


def _least_correlated(S: FloatArray, axes: Sequence[str]) -> tuple[str, FloatArray]:
    C = np.abs(corr_matrix(S, "plcc"))
    np.fill_diagonal(C, np.nan)
    valid = ~np.isnan(C).all(axis=1)
    mx = np.full(len(axes), np.nan)
    mx[valid] = np.nanmax(C[valid], axis=1)
    if not valid.any():
        return "", mx
    return str(axes[int(np.nanargmin(mx))]), mx


def split_half(
    result: BootstrapResult, n_partitions: int = 10, random_state: SeedLike = 0, alpha: float | None = None
) -> pd.DataFrame:
    """App. E "Pool independence": split the models into two random disjoint halves ``n_partitions``
    times and recompute pairwise PScore separation within each half on the same replicates; also each
    half's least-correlated axis (smallest max |Pearson| with the other axes) and every axis's max |r|."""
    M = len(result.models)
    if M < 4:
        raise DegenerateError(f"split-half: need at least 4 models, got {M}")
    rng = check_random_state(random_state)
    a = result.separation.alpha if alpha is None else alpha
    rows = []
    for part in range(int(n_partitions)):  # a handful of partitions; each half is vectorized
        perm = rng.permutation(M)
        for h, members in enumerate((np.sort(perm[: M // 2]), np.sort(perm[M // 2 :]))):
            sep = separation(pairwise_pvalues(result.samples[:, members]), a)
            least, mx = _least_correlated(result.axis_means[members], result.axes)
            row: dict[str, Any] = {
                "partition": part,
                "half": h,
                "n_models": int(members.size),
                "separation": sep.raw,
                "least_correlated_axis": least,
            }
            row.update({f"max_abs_r_{ax}": float(v) for ax, v in zip(result.axes, mx, strict=True)})
            rows.append(row)
    return pd.DataFrame(rows)


def domain_pscores(arrays: VerdictArrays, sc_variant: str = "B") -> pd.DataFrame:
    """PScore per model restricted to each domain's items (Fig. 19); NaN where a domain lacks an axis
    item for the model or an axis mean is 0 there."""
    cols = {}
    for d in pd.unique(arrays.domains):
        sub = arrays.subset_items(arrays.domains == d)
        S = axis_means(sub, sc_variant)
        ok = ~np.isnan(S).any(axis=1) & (S > 0).all(axis=1)
        out = np.full(arrays.n_models, np.nan)
        if ok.any():
            out[ok] = pscore(S[ok])
        cols[str(d)] = out
    return pd.DataFrame(cols, index=pd.Index(arrays.models, name="model"))


def domain_correlation(domain_scores: pd.DataFrame) -> pd.DataFrame:
    """Spearman matrix between per-domain PScore rankings (Fig. 19), pairwise-complete."""
    C = corr_matrix(domain_scores.to_numpy(float), "srcc")
    return pd.DataFrame(C, index=domain_scores.columns, columns=domain_scores.columns)


def near_tie_report(result: BootstrapResult, models: Sequence[str]) -> pd.DataFrame:
    """App. E "Near-tie significance": for each pair of the named models, the PScore difference, its
    bootstrap CI, the two-sided p-value and Pr(first > second) over replicates."""
    missing = [m for m in models if m not in result.models]
    if missing:
        raise InputError(
            f"near-tie report: unknown model(s) {missing}{did_you_mean(missing[0], result.models)}"
        )
    idx = [result.models.index(m) for m in models]
    rows = []
    for x in range(len(idx)):
        for y in range(x + 1, len(idx)):
            i, j = idx[x], idx[y]
            d = result.samples[:, i] - result.samples[:, j]
            lo, hi = percentile_ci(d, result.level)
            rows.append(
                {
                    "model_a": result.models[i],
                    "model_b": result.models[j],
                    "pscore_a": float(result.pscore[i]),
                    "pscore_b": float(result.pscore[j]),
                    "delta": float(result.pscore[i] - result.pscore[j]),
                    "delta_lo": float(lo),
                    "delta_hi": float(hi),
                    "p": float(result.separation.pvalues[i, j]),
                    "prob_a_greater": float(np.mean(d[~np.isnan(d)] > 0)),
                    "separated": bool(result.separation.pvalues[i, j] <= result.separation.alpha),
                }
            )
    return pd.DataFrame(rows)
