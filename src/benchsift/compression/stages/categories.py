"""Stage 3, category-count pruning (PRIMEBench section 4.4, Eq. 7).

Given the model x category matrix :math:`\\tilde{\\mathbf s}_C` of the (Stage 2-pruned) category means, the
reference ranking :math:`\\tilde{\\boldsymbol\\pi}` orders the models by their mean over *all* categories, and

.. math:: \\mathcal S^\\star_k = \\arg\\max_{|\\mathcal S| = k}
          \\rho\\Big(\\tilde{\\boldsymbol\\pi},\\ \\operatorname{rank}\\big(\\tfrac{1}{|\\mathcal S|}
          \\sum_{C \\in \\mathcal S} \\tilde{\\mathbf s}_C\\big)\\Big)

with :math:`\\rho` the Spearman correlation across models (average ranks for ties). Means are NaN-aware: a
model's subset score averages the selected categories it has a score for.

* **exhaustive**: every :math:`\\binom{n}{k}` subset, scored a chunk at a time: the subset sums of a chunk are
  one matrix product ``X @ W.T`` with the chunk's 0/1 membership matrix ``W``, and the chunk's Spearman
  correlations one vectorised call;
* **greedy**: forward selection, adding at each step the category that maximises :math:`\\rho` (a path, so
  it gives a subset for every size at once);
* **auto**: exhaustive while :math:`\\binom{n}{k}` is at most ``max_combinations``, greedy above.

Ties between subsets go to the first in lexicographic order of category positions (exhaustive) or to the
lowest category position (greedy); correlations are compared after rounding to 12 decimals so that values
equal in exact arithmetic tie exactly.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from numbers import Integral

import numpy as np
import pandas as pd

from benchsift._inputs import check_array, check_length
from benchsift._params import Interval, Options, check_param, validate_params
from benchsift.compression.stages.means import ROUND_DECIMALS, stage_means, stage_row_means
from benchsift.panel import GroupScores, Panel
from benchsift.stats.correlation import corr_with_vector
from benchsift.stats.means import group_nan_sums

__all__ = [
    "SubsetChoice",
    "Stage3Result",
    "exhaustive_search",
    "greedy_path",
    "stage3_select",
    "subset_rho",
]

METHODS = ("auto", "exhaustive", "greedy")
#: Subsets scored per vectorised chunk in the exhaustive search.
CHUNK = 8192


def reference_scores(X: np.ndarray) -> np.ndarray:
    """Per model: the NaN-aware mean over all categories (the reference :math:`\\tilde{\\boldsymbol\\pi}`)."""
    return stage_row_means(X)


def subset_rho(X: np.ndarray, subsets: np.ndarray, reference: np.ndarray) -> np.ndarray:
    """Spearman :math:`\\rho` between ``reference`` and the mean over each subset's columns of ``X``.

    ``X`` is ``(n_models, n_categories)``, ``subsets`` ``(n_subsets, k)`` column positions; returns
    ``(n_subsets,)``, NaN where undefined (constant subset score, fewer than two models).
    """
    n_sub = subsets.shape[0]
    if n_sub == 0:
        return np.empty(0)
    obs = ~np.isnan(X)
    # (n_subsets, k, n_models) gathers, summed over the subset: rows come out contiguous per subset
    sums = np.where(obs, X, 0.0).T[subsets].sum(axis=1)
    if obs.all():
        counts = np.full(sums.shape, float(subsets.shape[1]))
    else:
        counts = obs.T.astype(np.float64)[subsets].sum(axis=1)
    return corr_with_vector(stage_means(sums, counts).T, reference, "srcc")


def _rounded(rho: np.ndarray) -> np.ndarray:
    return np.where(np.isfinite(rho), np.round(rho, ROUND_DECIMALS), -np.inf)


@dataclass(frozen=True)
class SubsetChoice:
    """The chosen k-subset: column positions (ascending), :math:`\\rho`, method and subsets evaluated."""

    k: int
    positions: tuple[int, ...]
    rho: float
    method: str
    n_evaluated: int


def exhaustive_search(
    X: np.ndarray, k: int, reference: np.ndarray | None = None, *, chunk: int = CHUNK
) -> SubsetChoice:
    """Best k-subset over all :math:`\\binom{n}{k}` subsets (PRIMEBench Eq. 7), vectorised per chunk."""
    n = X.shape[1]
    ref = reference_scores(X) if reference is None else reference
    combos = itertools.combinations(range(n), k)
    best_val = -np.inf
    best: tuple[int, ...] = tuple(range(k))
    best_rho = float("nan")
    total = 0
    while True:
        block = np.fromiter(
            itertools.chain.from_iterable(itertools.islice(combos, chunk)), dtype=np.int64
        ).reshape(-1, k)
        if block.shape[0] == 0:
            break
        rho = subset_rho(X, block, ref)
        vals = _rounded(rho)
        j = int(np.argmax(vals))
        if vals[j] > best_val:
            best_val = float(vals[j])
            best = tuple(int(v) for v in block[j])
            best_rho = float(rho[j])
        total += block.shape[0]
    return SubsetChoice(k=k, positions=best, rho=best_rho, method="exhaustive", n_evaluated=total)


def greedy_path(X: np.ndarray, k_max: int, reference: np.ndarray | None = None) -> list[SubsetChoice]:
    """Greedy forward selection: the subsets of sizes ``1..k_max`` along one path (each adds one category)."""
    n = X.shape[1]
    ref = reference_scores(X) if reference is None else reference
    chosen: list[int] = []
    out: list[SubsetChoice] = []
    total = 0
    for size in range(1, k_max + 1):
        rest = np.array([c for c in range(n) if c not in chosen], dtype=np.int64)
        block = np.column_stack([np.tile(np.array(chosen, dtype=np.int64), (rest.size, 1)), rest])
        rho = subset_rho(X, block, ref)
        vals = _rounded(rho)
        j = int(np.argmax(vals))
        chosen.append(int(rest[j]))
        total += rest.size
        out.append(
            SubsetChoice(
                k=size,
                positions=tuple(sorted(chosen)),
                rho=float(rho[j]),
                method="greedy",
                n_evaluated=total,
            )
        )
    return out


@dataclass(frozen=True)
class Stage3Result:
    """Outcome of :func:`stage3_select`.

    ``selected`` are category names in input order; ``sweep`` has one row per k (``k, rho, method,
    n_evaluated, categories``) when the k-sweep was run.
    """

    categories: list[str]
    k: int
    selected: list[str]
    positions: tuple[int, ...]
    rho: float
    method: str
    n_evaluated: int
    reference: np.ndarray = field(repr=False)
    sweep: pd.DataFrame | None = field(default=None, repr=False)


def _as_matrix(
    data: Panel | GroupScores | np.ndarray, categories: Sequence[str] | None
) -> tuple[np.ndarray, list[str]]:
    if isinstance(data, Panel):
        image = data.image_rows
        cats = data.category_or_benchmark
        codes, names = pd.factorize(pd.Series(cats, dtype=object))
        sums, counts = group_nan_sums(data.scores[image], codes, len(names))
        return stage_means(sums, counts), [str(c) for c in names]
    if isinstance(data, GroupScores):
        return np.asarray(data.means, dtype=np.float64), list(data.groups)
    X = check_array("stage3_select: data", data, ndim=2, what="a (models x categories) matrix")
    names = [str(c) for c in categories] if categories is not None else [f"C{j}" for j in range(X.shape[1])]
    check_length("categories", names, X.shape[1], "names (one per column)")
    return X, names


@validate_params(
    {
        "method": [Options(METHODS)],
        "max_combinations": [Interval(Integral, 1, None, desc="a positive integer")],
    }
)
def stage3_select(
    data: Panel | GroupScores | np.ndarray,
    k: int,
    *,
    categories: Sequence[str] | None = None,
    method: str = "auto",
    max_combinations: int = 1_000_000,
    sweep: bool = True,
) -> Stage3Result:
    """Stage 3 of PRIMEBench (section 4.4, Eq. 7): the k categories that best preserve the full ranking.

    Parameters
    ----------
    data:
        A panel (category means over each category's scored items, image-condition rows; a missing category
        is the item's benchmark), a :class:`~benchsift.panel.GroupScores`, or a ``(n_models, n_categories)``
        matrix with ``categories`` naming its columns.
    k:
        Number of categories to keep, ``1 <= k <= n_categories``.
    method:
        ``"exhaustive"``, ``"greedy"`` or ``"auto"`` (exhaustive while ``C(n, k) <= max_combinations``).
    sweep:
        Also compute the best subset and its :math:`\\rho` for every ``k`` from 1 to ``n`` (the k-sweep), each
        size with the same ``method`` rule.
    """
    X, names = _as_matrix(data, categories)
    n = X.shape[1]
    what = f"an integer between 1 and the number of categories ({n})"
    k = int(check_param("k", k, [Interval(Integral, 1, n, desc=what)]))
    ref = reference_scores(X)
    sizes = list(range(1, n + 1)) if sweep else [k]
    greedy: list[SubsetChoice] | None = None

    def choose(size: int) -> SubsetChoice:
        nonlocal greedy
        use_exhaustive = method == "exhaustive" or (
            method == "auto" and math.comb(n, size) <= max_combinations
        )
        if use_exhaustive:
            return exhaustive_search(X, size, ref)
        if greedy is None:
            greedy = greedy_path(X, max(sizes), ref)
        return greedy[size - 1]

    choices = {size: choose(size) for size in sizes}
    main = choices[k]
    table = None
    if sweep:
        table = pd.DataFrame(
            {
                "k": sizes,
                "rho": [choices[s].rho for s in sizes],
                "method": [choices[s].method for s in sizes],
                "n_evaluated": [choices[s].n_evaluated for s in sizes],
                "categories": ["; ".join(names[p] for p in choices[s].positions) for s in sizes],
            }
        )
    return Stage3Result(
        categories=names,
        k=k,
        selected=[names[p] for p in main.positions],
        positions=main.positions,
        rho=main.rho,
        method=main.method,
        n_evaluated=main.n_evaluated,
        reference=ref,
        sweep=table,
    )
