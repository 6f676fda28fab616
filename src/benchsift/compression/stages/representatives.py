"""Stage 1, category representatives and multi-source supplementation (PRIMEBench section 4.2, App. C.1-C.2).

For each capability category :math:`C` with benchmarks :math:`b \\in C` (scored on the Stage 0-cleaned
pool) let :math:`s_{m,b}` be model :math:`m`'s mean on benchmark :math:`b`, :math:`z_{m,b}` its z-score across
models, and :math:`s_{m,C} = \\operatorname{mean}_{b \\in C} z_{m,b}` the category mean of z-normalised scores
(NaN-aware). The representative is (PRIMEBench Eq. 3)

.. math:: b^*_C = \\arg\\max_{b \\in C} \\rho(\\mathbf s_b, \\mathbf s_C),

:math:`\\rho` the Spearman correlation across models (ties between candidates go to the first benchmark in
panel order).

**Supplementation (App. C.2).** When :math:`\\rho(b^*_C) < 0.95`, the pool starts from the representative's
cleaned items and the other benchmarks' cleaned items of the category are added one at a time in descending
variance of their scaled scores (population variance across the scored models; ties by benchmark order, then
item position). After each addition :math:`\\rho` between the item-pooled score of the pool (the NaN-aware
mean over the pool's items) and :math:`\\mathbf s_C` is recomputed. Supplementation stops at the first
:math:`\\rho \\ge 0.95`; if the target is never reached the best prefix is kept (the shortest one among equal
maxima, the empty prefix included). Tiers (Table 8): 1 = no supplement needed, 2 = reached with supplements,
3 = not reached.

The search is incremental: the pooled sums and counts of every prefix are running sums
(``S_j = S_{j-1} + x_{:, j}``, O(models) per addition), computed a chunk of prefixes at a time with
``cumsum``, and the Spearman correlations of a whole chunk come from one vectorised call; no prefix is
re-averaged from scratch.

Items whose ``category`` is missing use their benchmark as their own category
(:func:`benchsift.panel.categories.category_or_benchmark`).
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass, field
from numbers import Real

import numpy as np
import pandas as pd

from benchsift._params import Interval, validate_params
from benchsift.compression.stages.means import ROUND_DECIMALS, stage_means, stage_row_means
from benchsift.panel import Panel
from benchsift.panel.categories import category_or_benchmark
from benchsift.stats import zscore
from benchsift.stats.correlation import corr_with_vector
from benchsift.stats.means import group_nan_sums

__all__ = [
    "CategoryPool",
    "Stage1Result",
    "category_z_mean",
    "item_categories",
    "pair_codes",
    "stage1_select",
    "supplement_pool",
]

#: Prefixes scored per vectorised Spearman call during supplementation.
CHUNK = 4096


def item_categories(items: Panel | pd.DataFrame) -> np.ndarray:
    """The old name of :func:`benchsift.panel.categories.category_or_benchmark` (a panel's
    :attr:`~benchsift.panel.Panel.category_or_benchmark`): each item's category, its benchmark name where
    the category is missing. Works with a :class:`FutureWarning` until 0.3."""
    warnings.warn(
        "item_categories is now called category_or_benchmark (benchsift.panel.categories, or the panel's "
        "category_or_benchmark); item_categories is accepted until benchsift 0.3",
        FutureWarning,
        stacklevel=2,
    )
    return category_or_benchmark(items.items if isinstance(items, Panel) else items)


def pair_codes(cats: np.ndarray, bench: np.ndarray) -> tuple[np.ndarray, list[tuple[str, str]]]:
    """Codes of the (category, benchmark) pairs of the items, in order of first appearance."""
    c_codes, c_names = pd.factorize(pd.Series(cats, dtype=object), sort=False)
    b_codes, b_names = pd.factorize(pd.Series(bench, dtype=object), sort=False)
    joint = c_codes.astype(np.int64) * max(len(b_names), 1) + b_codes
    codes, uniq = pd.factorize(joint, sort=False)
    pairs = [(str(c_names[u // max(len(b_names), 1)]), str(b_names[u % max(len(b_names), 1)])) for u in uniq]
    return codes.astype(np.int64), pairs


def category_z_mean(bench_means: np.ndarray) -> np.ndarray:
    """:math:`s_{m,C}`: the NaN-aware mean over benchmarks (columns) of the z-scores across models (rows).

    A constant benchmark has undefined z-scores and drops out; a model without any defined z-score gets NaN.
    """
    return stage_row_means(zscore(bench_means, axis=0))


@dataclass(frozen=True)
class CategoryPool:
    """Stage 1 outcome for one category (one row of PRIMEBench Tables 6-8).

    Item positions refer to the panel given to :func:`stage1_select`.
    """

    category: str
    benchmarks: list[str]
    candidate_rho: dict[str, float]
    representative: str
    rho_representative: float
    n_candidates: int
    n_supplement: int
    rho_pooled: float
    reached: bool
    tier: int
    representative_items: np.ndarray
    supplement_items: np.ndarray
    rho_trace: np.ndarray = field(repr=False)
    note: str | None = None

    @property
    def pool_items(self) -> np.ndarray:
        """Sorted positions of the pool: the representative's items plus the kept supplements."""
        return np.sort(np.concatenate([self.representative_items, self.supplement_items]))

    @property
    def n_pool(self) -> int:
        return int(self.representative_items.size + self.supplement_items.size)


@dataclass(frozen=True)
class Stage1Result:
    """Outcome of :func:`stage1_select`: one :class:`CategoryPool` per category and the pooled panel."""

    categories: list[CategoryPool]
    pool: np.ndarray
    panel: Panel
    target: float
    notes: list[str] = field(default_factory=list)

    @property
    def n_in(self) -> int:
        return int(self.pool.size)

    @property
    def n_out(self) -> int:
        return int(self.pool.sum())

    @property
    def median_rho(self) -> float:
        """Median over categories of the pooled correlation (PRIMEBench Table 2, Stage 1 row)."""
        vals = np.array([c.rho_pooled for c in self.categories], dtype=float)
        vals = vals[np.isfinite(vals)]
        return float(np.median(vals)) if vals.size else float("nan")

    def table(self) -> pd.DataFrame:
        """One row per category (PRIMEBench Tables 6 and 8)."""
        return pd.DataFrame(
            {
                "category": [c.category for c in self.categories],
                "n_benchmarks": [len(c.benchmarks) for c in self.categories],
                "representative": [c.representative for c in self.categories],
                "rho_representative": [c.rho_representative for c in self.categories],
                "n_supplement": [c.n_supplement for c in self.categories],
                "rho_pooled": [c.rho_pooled for c in self.categories],
                "tier": [c.tier for c in self.categories],
                "pool_items": [c.n_pool for c in self.categories],
            }
        )

    def candidates_table(self) -> pd.DataFrame:
        """One row per (category, candidate benchmark) with its Eq. 3 correlation (PRIMEBench Table 7)."""
        rows = [
            (c.category, b, rho, b == c.representative)
            for c in self.categories
            for b, rho in c.candidate_rho.items()
        ]
        return pd.DataFrame(rows, columns=["category", "benchmark", "rho", "representative"])

    def item_roles(self) -> np.ndarray:
        """Per input item: ``"representative"``, ``"supplement"`` or ``""`` (not in any pool)."""
        roles = np.full(self.pool.size, "", dtype=object)
        for c in self.categories:
            roles[c.representative_items] = "representative"
            roles[c.supplement_items] = "supplement"
        return roles


def supplement_pool(
    scores: np.ndarray,
    base_items: np.ndarray,
    candidates: np.ndarray,
    target_scores: np.ndarray,
    target: float = 0.95,
) -> tuple[int, np.ndarray]:
    """Incremental variance-ordered supplementation of one pool (PRIMEBench App. C.2).

    Parameters
    ----------
    scores:
        ``(n_models, n_items)`` scaled scores (NaN = missing).
    base_items:
        Positions of the representative's items (prefix 0).
    candidates:
        Positions of the supplement candidates, already in the order of addition.
    target_scores:
        :math:`\\mathbf s_C`, the category mean of z-normalised benchmark scores ``(n_models,)``.
    target:
        Stop at the first prefix with :math:`\\rho \\ge` ``target``.

    Returns
    -------
    (n_keep, trace)
        ``n_keep`` candidates to add (the first prefix reaching the target, else the best prefix) and
        ``trace[j]`` = :math:`\\rho` of the pool with ``j`` supplements for every ``j`` computed (``trace[0]``
        is the representative alone; the trace ends at the stopping prefix).
    """
    sub = scores[:, base_items]
    obs = ~np.isnan(sub)
    s_run = np.where(obs, sub, 0.0).sum(axis=1)
    n_run = obs.sum(axis=1).astype(np.float64)
    rho0 = float(corr_with_vector(stage_means(s_run, n_run)[:, None], target_scores, "srcc")[0])
    trace = [np.array([rho0])]
    if rho0 >= target or candidates.size == 0:
        return 0, trace[0]
    for start in range(0, candidates.size, CHUNK):
        block = scores[:, candidates[start : start + CHUNK]]
        bobs = ~np.isnan(block)
        cs = s_run[:, None] + np.cumsum(np.where(bobs, block, 0.0), axis=1)
        cn = n_run[:, None] + np.cumsum(bobs, axis=1)
        rho = corr_with_vector(stage_means(cs, cn), target_scores, "srcc")
        trace.append(rho)
        hit = np.flatnonzero(rho >= target)
        if hit.size:
            n_keep = start + int(hit[0]) + 1
            full = np.concatenate(trace)[: n_keep + 1]
            return n_keep, full
        s_run = cs[:, -1]
        n_run = cn[:, -1]
    full = np.concatenate(trace)
    finite = np.where(np.isfinite(full), full, -np.inf)
    return int(np.argmax(finite)), full


def _candidate_order(scores: np.ndarray, positions: np.ndarray, bench_rank: np.ndarray) -> np.ndarray:
    """Candidates in descending variance, ties by benchmark order then item position (App. C.2).

    Items no model scored (undefined variance) cannot change a pooled score and are left out.
    """
    sub = scores[:, positions]
    obs = ~np.isnan(sub)
    n = obs.sum(axis=0)
    mean = np.full(positions.size, np.nan)
    np.divide(np.where(obs, sub, 0.0).sum(axis=0), n, out=mean, where=n > 0)
    dev = np.where(obs, sub - mean, 0.0)
    var = np.full(positions.size, np.nan)
    np.divide((dev * dev).sum(axis=0), n, out=var, where=n > 0)
    ok = n > 0
    var = np.round(var[ok], ROUND_DECIMALS)
    pos = positions[ok]
    order = np.lexsort((pos, bench_rank[pos], -var))
    return pos[order]


@validate_params({"target": [Interval(Real, 0, 1, closed="right", noun="a correlation")]})
def stage1_select(panel: Panel, *, target: float = 0.95, supplement: bool = True) -> Stage1Result:
    """Stage 1 of PRIMEBench (section 4.2, Eq. 3, App. C.2) on a Stage 0-cleaned, image-condition panel.

    Parameters
    ----------
    panel:
        The cleaned pool (:attr:`Stage0Result.panel`); text-only rows, if present, are ignored.
    target:
        The supplementation target :math:`\\rho \\ge 0.95`.
    supplement:
        ``False`` keeps the representatives alone (no App. C.2 supplementation).

    Returns
    -------
    Stage1Result
        Per-category representative, candidate correlations, supplements, tier; ``pool`` marks the pooled
        items of the input panel and ``panel`` is the pooled sub-panel (image rows only).
    """
    Panel.check(panel, "stage1_select", image=True)
    image_rows = panel.image_rows
    scores = panel.scores[image_rows]
    notes: list[str] = []
    cats = panel.category_or_benchmark
    bench = panel.items["benchmark"].to_numpy(dtype=object)
    bench_rank, bench_names = pd.factorize(pd.Series(bench, dtype=object), sort=False)
    bench_order = {str(b): i for i, b in enumerate(bench_names)}
    # One group per (category, benchmark) pair: a benchmark split over categories counts in each.
    codes, pairs = pair_codes(cats, bench)
    sums, counts = group_nan_sums(scores, codes, len(pairs))
    pair_means = stage_means(sums, counts)
    cat_codes, category_names = pd.factorize(pd.Series(cats, dtype=object), sort=False)

    results: list[CategoryPool] = []
    pool = np.zeros(panel.n_items, dtype=bool)
    for ci, cat in enumerate(category_names):
        cols = [j for j, (c, _) in enumerate(pairs) if c == cat]
        cols.sort(key=lambda j: bench_order[pairs[j][1]])
        names = [str(pairs[j][1]) for j in cols]
        means = pair_means[:, cols]
        s_c = category_z_mean(means)
        rho = corr_with_vector(means, s_c, "srcc")
        finite = np.where(np.isfinite(rho), rho, -np.inf)
        best = int(np.argmax(finite))
        note = None
        if not np.isfinite(rho).any():
            note = (
                "every candidate correlation is undefined (constant scores or too few models); "
                "first benchmark used"
            )
            notes.append(f"category {cat!r}: {note}")
        rep = names[best]
        in_cat = cat_codes == ci
        is_rep = bench_rank == bench_order[rep]
        rep_items = np.flatnonzero(in_cat & is_rep)
        cand_pos = np.flatnonzero(in_cat & ~is_rep)
        if supplement and np.isfinite(rho[best]):
            order = _candidate_order(scores, cand_pos, bench_rank)
            n_keep, trace = supplement_pool(scores, rep_items, order, s_c, float(target))
        else:
            order = cand_pos[:0]
            n_keep, trace = 0, np.array([float(rho[best])])
        supp = order[:n_keep]
        rho_pooled = float(trace[n_keep])
        reached = bool(np.isfinite(rho_pooled) and rho_pooled >= target)
        tier = 1 if (n_keep == 0 and reached) else (2 if reached else 3)
        pool[rep_items] = True
        pool[supp] = True
        results.append(
            CategoryPool(
                category=str(cat),
                benchmarks=names,
                candidate_rho={n: float(r) for n, r in zip(names, rho, strict=True)},
                representative=rep,
                rho_representative=float(rho[best]),
                n_candidates=int(cand_pos.size),
                n_supplement=int(n_keep),
                rho_pooled=rho_pooled,
                reached=reached,
                tier=tier,
                representative_items=rep_items,
                supplement_items=supp,
                rho_trace=trace,
                note=note,
            )
        )
    sub = panel.subset(models=image_rows, items=pool)
    return Stage1Result(categories=results, pool=pool, panel=sub, target=float(target), notes=notes)
