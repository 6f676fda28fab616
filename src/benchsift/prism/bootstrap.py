"""The item-level paired bootstrap of PRISM-VLM App. E ("Bootstrap specification"), vectorized.

Each replicate ``b`` draws ``N`` item indices with replacement; the *same* multiset, held as a count
vector ``W[b]`` (Multinomial(N, 1/N)), is applied to every model and every axis, so all comparisons are
paired. A replicate's axis mean is a ratio of weighted item sums (see :mod:`benchsift.prism.scores`),

    s_a^(b)(m) = sum_i W[b, i] num_a[m, i] / sum_i W[b, i] den_a[m, i],

so sc_B is recomputed inside the replicate (retention over the replicate's turn-0-correct items) and an
unanswered item stays out of that model's denominator. All replicates of all (model, axis) pairs are two
matrix products ``W @ NUM`` and ``W @ DEN`` with ``NUM, DEN`` of shape (N, n_models * n_axes). PScore
of the replicate is the harmonic mean (Eq. 1) of its axis means (a replicate axis mean of 0 gives 0, the
limit of Eq. 1).

From the (B, n_models) PScore replicates: per-model 95 % percentile CIs, rank CIs (2.5 / 97.5
percentiles of each model's rank, 1 = best, across replicates), and for each model pair the two-sided
``p = 2 min(Pr(Delta <= 0), Pr(Delta >= 0))`` over replicates (capped at 1), tested at ``alpha`` raw,
after Benjamini-Hochberg and after Bonferroni (Sec. 5.1, Table 3). The same test applies to any plain
accuracy matrix (a prior benchmark) and to a matched item budget (``n_draw`` < N items per replicate,
Table 3 last column).

Clustered items (items that share an image or a source question; :func:`benchsift.panel.item_clusters`
reads them off the verdict table's ``cluster`` / ``image_path`` / ``image`` / ``image_id`` columns): each
replicate then draws the item *clusters* with replacement and keeps all items of a drawn cluster
(:func:`benchsift.stats.cluster_bootstrap_weights`; Davison & Hinkley 1997, Sec. 3.8; Field & Welsh
2007), still one multiset for every model and axis. With no two items in one cluster this is exactly the
item bootstrap above, the same bytes for the same seed.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from numbers import Integral
from typing import Any

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike, NDArray

from benchsift._inputs import check_shape
from benchsift._jsonutil import to_jsonable
from benchsift._params import Interval, check_param
from benchsift.errors import DegenerateError, InputError
from benchsift.io.verdicts import VerdictArrays
from benchsift.panel import ClusterSpec, ItemClusters, item_clusters
from benchsift.prism.aggregate import pscore
from benchsift.prism.scores import axis_terms, ratio_mean
from benchsift.progress import ProgressFn
from benchsift.results import Result
from benchsift.stats import SeedLike, bh_adjust, percentile_ci
from benchsift.stats.multitest import bonferroni_adjust, reject
from benchsift.stats.ranks import rank_average
from benchsift.stats.resample import bootstrap_weight_blocks, paired_bootstrap_means

__all__ = [
    "BootstrapResult",
    "SeparationResult",
    "accuracy_separation",
    "arrays_clusters",
    "benchmark_separation",
    "harmonic_replicates",
    "pairwise_pvalues",
    "paired_bootstrap",
    "replicate_weights",
    "separation",
]

FloatArray = NDArray[np.float64]


def arrays_clusters(arrays: VerdictArrays, clusters: ClusterSpec = "auto") -> ItemClusters:
    """The item clusters of a verdict table's arrays (:func:`benchsift.panel.item_clusters` on its
    ``item_table``; none when the arrays were built without one)."""
    table = arrays.item_table
    if table is None:
        table = pd.DataFrame({"benchmark": arrays.benchmarks, "item": arrays.item_ids})
    return item_clusters(table, clusters)


def replicate_weights(
    n_items: int,
    n_boot: int,
    random_state: SeedLike = None,
    n_draw: int | None = None,
    clusters: ItemClusters | None = None,
) -> FloatArray:
    """(n_boot, n_items) item counts, one resample per row (PRISM-VLM App. E).

    ``n_draw=None`` draws ``n_items`` indices with replacement per replicate
    (:func:`benchsift.stats.bootstrap_weights`); an int draws that many (a matched item budget,
    Table 3 last column), each row a Multinomial(n_draw, 1 / n_items) count vector. With ``clusters``
    that are used, whole clusters are drawn instead (:func:`benchsift.stats.cluster_bootstrap_weights`);
    a matched budget then draws ``round(n_draw * G / n_items)`` of the ``G`` clusters (at least one), the
    same share of the clusters as ``n_draw`` is of the items.
    """
    return np.concatenate(list(_weight_blocks(n_items, n_boot, random_state, n_draw, clusters)))


def _draw_args(
    n_items: int, n_draw: int | None, clusters: ItemClusters | None
) -> tuple[NDArray[np.intp] | None, int | None]:
    """``(cluster codes or None, units drawn per replicate or None)`` of :func:`replicate_weights`."""
    clustered = clusters is not None and clusters.used
    if clustered and clusters is not None:
        check_shape("clusters", (clusters.n_items,), (n_items,), what="one label per item, shape")
    codes = clusters.codes if clustered and clusters is not None else None
    if n_draw is None:
        return codes, None
    check_param("n_draw", n_draw, [Interval(Integral, 1, None, noun="an item budget")], quote=False)
    if int(n_draw) > n_items:
        raise InputError(
            f"`budget` {n_draw}: a matched budget must not exceed the {n_items} items of the table"
        )
    if codes is not None and clusters is not None:
        return codes, max(1, round(int(n_draw) * clusters.n_clusters / int(n_items)))
    return None, int(n_draw)


def _weight_blocks(
    n_items: int,
    n_boot: int,
    random_state: SeedLike,
    n_draw: int | None,
    clusters: ItemClusters | None,
) -> Iterator[FloatArray]:
    codes, units = _draw_args(n_items, n_draw, clusters)
    return bootstrap_weight_blocks(int(n_items), int(n_boot), random_state, clusters=codes, n_draw=units)


def harmonic_replicates(axis_samples: FloatArray) -> FloatArray:
    """Harmonic mean (Eq. 1) over the last axis of replicate axis means; 0 if an axis is 0, NaN if NaN."""
    s = np.asarray(axis_samples, dtype=float)
    inv = np.full(s.shape, np.inf)
    np.divide(1.0, s, out=inv, where=s > 0)
    out = s.shape[-1] / inv.sum(axis=-1)
    return np.where(np.isnan(s).any(axis=-1), np.nan, out)


def pairwise_pvalues(samples: FloatArray) -> FloatArray:
    """(M, M) two-sided bootstrap p-values ``2 min(Pr(D <= 0), Pr(D >= 0))``, ``D = x_j - x_k``.

    ``samples`` is (B, M). Replicates where either side is NaN are left out; NaN when none is left;
    the diagonal is NaN. Symmetric.
    """
    S = np.asarray(samples, dtype=float)
    B, M = S.shape
    j, k = np.triu_indices(M, 1)
    out = np.full((M, M), np.nan)
    if j.size == 0:
        return out
    p = np.empty(j.size)
    step = max(1, int(2_000_000 // max(B, 1)))
    for start in range(0, j.size, step):  # pair blocks bound memory; each block is vectorized
        jj, kk = j[start : start + step], k[start : start + step]
        d = S[:, jj] - S[:, kk]
        valid = ~np.isnan(d)
        n = valid.sum(axis=0)
        le = ((d <= 0) & valid).sum(axis=0)
        ge = ((d >= 0) & valid).sum(axis=0)
        pv = np.full(jj.size, np.nan)
        np.divide(2.0 * np.minimum(le, ge), n, out=pv, where=n > 0)
        p[start : start + step] = np.minimum(pv, 1.0)
    out[j, k] = p
    out[k, j] = p
    return out


@dataclass(frozen=True, repr=False)
class SeparationResult(Result):
    """Pairwise separation at ``alpha``: fractions of pairs separated raw / BH / Bonferroni (Sec. 5.1)."""

    pvalues: FloatArray
    alpha: float
    raw: float
    bh: float
    bonferroni: float
    n_pairs: int

    def to_dict(self) -> dict[str, Any]:
        return {"raw": self.raw, "bh": self.bh, "bonferroni": self.bonferroni}

    def to_frame(self) -> pd.DataFrame:
        """The three separation fractions as one row."""
        return pd.DataFrame([{**self.to_dict(), "n_pairs": self.n_pairs, "alpha": self.alpha}])


def separation(pvalues: FloatArray, alpha: float = 0.05) -> SeparationResult:
    """Fractions of the ``M (M - 1) / 2`` pairs with (adjusted) p ``<= alpha``; NaN p-values count as not
    separated. Benjamini-Hochberg and Bonferroni adjust over all pairs at once (Sec. 5.1)."""
    P = np.asarray(pvalues, dtype=float)
    j, k = np.triu_indices(P.shape[0], 1)
    p = P[j, k]
    n = int(p.size)
    if n == 0:
        return SeparationResult(P, alpha, float("nan"), float("nan"), float("nan"), 0)
    frac = {m: float(reject(p, alpha, m).sum() / n) for m in ("none", "bh", "bonferroni")}
    return SeparationResult(P, float(alpha), frac["none"], frac["bh"], frac["bonferroni"], n)


@dataclass(frozen=True, repr=False)
class BootstrapResult(Result):
    """Output of :func:`paired_bootstrap` (PRISM-VLM App. E, Table 14)."""

    models: list[str]
    axes: list[str]
    axis_means: FloatArray  # (M, A) point estimates
    pscore: FloatArray  # (M,) point PScore
    axis_samples: FloatArray  # (B, M, A)
    samples: FloatArray  # (B, M) PScore replicates
    ci: FloatArray  # (M, 2)
    rank: FloatArray  # (M,) point rank, 1 = best
    rank_samples: FloatArray  # (B, M)
    rank_ci: FloatArray  # (M, 2)
    separation: SeparationResult
    n_items: int
    n_draw: int
    level: float = 0.95
    meta: dict[str, Any] = field(default_factory=dict)

    @property
    def n_boot(self) -> int:
        return int(self.samples.shape[0])

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready: per model its axis means, PScore, CI, rank and rank CI (Table 14), the separation
        fractions and the bootstrap's sizes (NaN as ``None``)."""
        doc = {
            "models": {
                m: {
                    "axis_means": dict(zip(self.axes, self.axis_means[i].tolist(), strict=True)),
                    "pscore": float(self.pscore[i]),
                    "ci": self.ci[i].tolist(),
                    "rank": float(self.rank[i]),
                    "rank_ci": self.rank_ci[i].tolist(),
                }
                for i, m in enumerate(self.models)
            },
            "axes": list(self.axes),
            "separation": self.separation.to_dict(),
            "n_pairs": self.separation.n_pairs,
            "alpha": self.separation.alpha,
            "n_items": self.n_items,
            "n_draw": self.n_draw,
            "n_boot": self.n_boot,
            "level": self.level,
            "clusters": self.meta.get("clusters"),
        }
        return to_jsonable(doc)

    def to_frame(self) -> pd.DataFrame:
        """One row per model, sorted by PScore: axis means, PScore, CI, rank and rank CI (Table 14)."""
        df = pd.DataFrame(self.axis_means, index=pd.Index(self.models, name="model"), columns=self.axes)
        df["pscore"] = self.pscore
        df["ci_lo"], df["ci_hi"] = self.ci[:, 0], self.ci[:, 1]
        df["rank"] = self.rank
        df["rank_lo"], df["rank_hi"] = self.rank_ci[:, 0], self.rank_ci[:, 1]
        return df.sort_values("pscore", ascending=False, kind="stable")

    def pair_table(self) -> pd.DataFrame:
        """One row per model pair: PScore difference, its CI, p-value and the three decisions."""
        j, k = np.triu_indices(len(self.models), 1)
        p = self.separation.pvalues[j, k]
        d = self.samples[:, j] - self.samples[:, k]
        lo, hi = percentile_ci(d, self.level, axis=0)
        a = self.separation.alpha
        return pd.DataFrame(
            {
                "model_a": [self.models[i] for i in j],
                "model_b": [self.models[i] for i in k],
                "delta": self.pscore[j] - self.pscore[k],
                "delta_lo": lo,
                "delta_hi": hi,
                "p": p,
                "p_bh": bh_adjust(p),
                "p_bonferroni": bonferroni_adjust(p),
                "separated": reject(p, a, "none"),
                "separated_bh": reject(p, a, "bh"),
                "separated_bonferroni": reject(p, a, "bonferroni"),
            }
        )


def _summaries(samples: FloatArray, level: float) -> tuple[FloatArray, FloatArray, FloatArray]:
    ci = percentile_ci(samples, level, axis=0).T
    ranks = rank_average(-samples, axis=1)
    rank_ci = percentile_ci(ranks, level, axis=0).T
    return ci, ranks, rank_ci


def _stacked_terms(
    arrays: VerdictArrays, axes: Sequence[str], sc_variant: str, mq_partial: bool
) -> tuple[FloatArray, FloatArray]:
    """NUM, DEN of shape (n_items, n_models * n_axes), column ``m * n_axes + a`` (transposed views of
    C-ordered (n_models * n_axes, n_items) matrices, the layout the replicate product reads)."""
    M, N, A = arrays.n_models, arrays.n_items, len(axes)
    num = np.empty((M, A, N))
    den = np.empty((M, A, N))
    for a, axis in enumerate(axes):
        num[:, a, :], den[:, a, :] = axis_terms(arrays, axis, sc_variant, mq_partial)
    return num.reshape(M * A, N).T, den.reshape(M * A, N).T


def _replicate_axis_means(
    num: FloatArray,
    den: FloatArray,
    W: FloatArray | None,
    M: int,
    A: int,
    progress: ProgressFn | None = None,
    draw: tuple[int, SeedLike, int | None, ItemClusters | None] | None = None,
) -> tuple[FloatArray, FloatArray]:
    """(B, M, A) replicate axis means ``W @ num / W @ den`` and the (B,) replicate sizes, by
    :func:`benchsift.stats.resample.paired_bootstrap_means` on given counts ``W`` or on counts it draws in
    blocks
    (``draw = (n_boot, random_state, n_draw, clusters)``, the replicates of :func:`replicate_weights`)."""
    if W is not None:
        means, sizes = paired_bootstrap_means(
            num.T, denominators=den.T, weights=W, progress=progress, return_sizes=True
        )
    else:
        assert draw is not None
        n_boot, seed, n_draw, clusters = draw
        codes, units = _draw_args(num.shape[0], n_draw, clusters)
        means, sizes = paired_bootstrap_means(
            num.T,
            int(n_boot),
            seed,
            denominators=den.T,
            clusters=codes,
            n_draw=units,
            progress=progress,
            return_sizes=True,
        )
    return means.reshape(-1, M, A), sizes


def paired_bootstrap(
    arrays: VerdictArrays,
    n_boot: int = 2000,
    random_state: SeedLike = 0,
    *,
    axes: Sequence[str] | None = None,
    sc_variant: str = "B",
    mq_partial: bool = False,
    alpha: float = 0.05,
    level: float = 0.95,
    n_draw: int | None = None,
    weights: ArrayLike | None = None,
    progress: ProgressFn | None = None,
    clusters: ClusterSpec = "auto",
) -> BootstrapResult:
    """Item-level paired bootstrap of PScore (PRISM-VLM App. E); see the module docstring.

    ``weights`` (B, n_items) reuses a given set of resamples (e.g. the one applied to a prior benchmark's
    accuracy); otherwise ``n_boot`` replicates are drawn from ``random_state`` (``n_draw`` items each,
    default all). ``clusters`` (:func:`benchsift.panel.item_clusters`: ``"auto"`` reads the verdict
    table's cluster or image column, ``None`` resamples single items, a column name or one label per
    item) makes the replicates draw whole clusters; ``meta["clusters"]`` (and ``to_dict()["clusters"]``)
    says whether they were used and how many there are, ``meta["warnings"]`` names an inferred grouping.
    ``progress(done, total)`` is called after each block of replicates. The point PScore raises
    :class:`DegenerateError` naming model and axis if an axis mean is 0.
    """
    use_axes = list(arrays.axes if axes is None else axes)
    for a in use_axes:
        arrays.axis_index(a)
    if arrays.n_models < 2:
        raise DegenerateError(f"paired bootstrap: need at least 2 models, got {arrays.n_models}")
    num, den = _stacked_terms(arrays, use_axes, sc_variant, mq_partial)
    M, A = arrays.n_models, len(use_axes)
    point = ratio_mean(num.T.reshape(M, A, -1), den.T.reshape(M, A, -1))
    if np.isnan(point).any():
        m, a = np.argwhere(np.isnan(point))[0]
        raise DegenerateError(
            f"model {arrays.models[m]!r} has no scored item on axis {use_axes[a]!r}; its axis mean and "
            "PScore are undefined"
        )
    p_point = pscore(point, arrays.models, use_axes)
    found = arrays_clusters(arrays, clusters)
    W = None
    if weights is not None:
        W = np.asarray(weights, dtype=float)
        check_shape("weights", W.shape, ("n_boot", arrays.n_items))
    axis_samples, sizes = _replicate_axis_means(
        num, den, W, M, A, progress, (n_boot, random_state, n_draw, found)
    )
    samples = harmonic_replicates(axis_samples)
    ci, ranks, rank_ci = _summaries(samples, level)
    sep = separation(pairwise_pvalues(samples), alpha)
    return BootstrapResult(
        models=list(arrays.models),
        axes=use_axes,
        axis_means=point,
        pscore=p_point,
        axis_samples=axis_samples,
        samples=samples,
        ci=ci,
        rank=rank_average(-p_point),
        rank_samples=ranks,
        rank_ci=rank_ci,
        separation=sep,
        n_items=arrays.n_items,
        n_draw=int(round(float(sizes.mean()))) if sizes.size else 0,  # varies with clusters
        level=level,
        meta={
            "sc_variant": sc_variant,
            "mq_partial": mq_partial,
            "clusters": found.to_dict() if weights is None else None,
            "warnings": list(found.warnings) if weights is None else [],
        },
    )


def accuracy_separation(
    scores: ArrayLike,
    n_boot: int = 2000,
    random_state: SeedLike = 0,
    *,
    alpha: float = 0.05,
    n_draw: int | None = None,
    weights: ArrayLike | None = None,
    clusters: ArrayLike | None = None,
) -> tuple[FloatArray, SeparationResult]:
    """The same paired separation test for a plain accuracy matrix (a prior benchmark, Sec. 5.1).

    ``scores`` is (n_models, n_items) with NaN for unscored items; each replicate's accuracy is the
    weighted mean over the model's scored items. ``clusters`` (one label per item, e.g. the image)
    makes the replicates draw whole clusters. Returns the (B, M) replicate accuracies and the
    :class:`SeparationResult`.
    """
    X = np.asarray(scores, dtype=float)
    check_shape("scores", X.shape, ("n_models", "n_items"), what="a matrix of shape")
    if weights is None:
        found = None
        if clusters is not None:
            found = item_clusters(pd.DataFrame({"benchmark": np.zeros(X.shape[1], dtype=int)}), clusters)
        codes, units = _draw_args(X.shape[1], n_draw, found)
        samples = paired_bootstrap_means(X, n_boot, random_state, clusters=codes, n_draw=units)
        return samples, separation(pairwise_pvalues(samples), alpha)
    W = np.asarray(weights, dtype=float)
    check_shape("weights", W.shape, ("n_boot", X.shape[1]))
    samples = paired_bootstrap_means(X, weights=W)
    return samples, separation(pairwise_pvalues(samples), alpha)


def benchmark_separation(
    scores: ArrayLike,
    benchmarks: ArrayLike,
    weights: ArrayLike,
    *,
    alpha: float = 0.05,
) -> tuple[dict[str, SeparationResult], SeparationResult]:
    """Table 3's prior-benchmark rows: the paired separation test on each benchmark's plain accuracy and
    on their macro mean, all on the *same* resamples (App. E: "the identical index multiset is applied
    to ... every prior benchmark's accuracy").

    ``scores`` (n_models, n_items) with NaN for unscored items, ``benchmarks`` (n_items,) the benchmark
    of each item, ``weights`` (B, n_items) the replicate item counts shared with the PScore bootstrap.
    Within a replicate a benchmark's accuracy is the weighted mean over its drawn items, and the macro
    mean the unweighted mean of those accuracies over benchmarks (NaN if one is undefined there).
    Returns ``({benchmark: result}, macro_result)``.
    """
    X = np.asarray(scores, dtype=float)
    bench = np.asarray(benchmarks).astype(str)
    W = np.asarray(weights, dtype=float)
    check_shape("scores", X.shape, ("M", "N"))
    check_shape("benchmarks", bench.shape, (X.shape[1],), what="one per item, shape")
    check_shape("weights", W.shape, ("B", X.shape[1]))
    per: dict[str, SeparationResult] = {}
    samples = []
    for b in pd.unique(bench):  # one vectorized bootstrap per benchmark (15 in the paper)
        cols = bench == b
        acc, per[str(b)] = accuracy_separation(X[:, cols], weights=W[:, cols], alpha=alpha)
        samples.append(acc)
    macro = np.mean(np.stack(samples), axis=0)
    return per, separation(pairwise_pvalues(macro), alpha)
