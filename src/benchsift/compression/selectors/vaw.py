"""Vision-Aware Variance (VAW), the Stage 2 item selector of PRIMEBench (section 4.3, Appendix D.1, D.4).

Score (PRIMEBench Eq. 4-6), for item ``i`` with ``M_i`` valid (non-NaN) model scores:

.. math::

    \\hat\\sigma^2_i = \\frac{1}{\\sqrt{M_i}} \\sum_{m} (x_{m,i} - \\bar x_i)^2            \\quad (5)

    \\delta^{VL}_i = 1 - \\cos(E^L_i, E^{VL}_i)                                         \\quad (6)

    q_i = \\hat\\sigma^2_i + \\alpha\\, \\delta^{VL}_i                                   \\quad (4)

Items are ranked by the divided score ``q_i / sqrt(M_i) = v_i + (alpha / sqrt(M_i)) delta_i`` with ``v_i`` the
plug-in variance (ddof 0), as section 4.3 prescribes when the number of valid scores differs across items;
for a common ``M`` this is the same ranking as ``q_i``. ``alpha = 0.187`` (``= 0.05 sqrt(14)``, F.1).
Items with no valid score rank last.

Selection: the pool's budget ``k`` is split among its benchmarks in proportion to their sizes (largest
remainder); inside each benchmark the items with an embedding are grouped into ``K_b`` coverage cells by
k-means on the embeddings reduced to 64 dimensions by a fixed seeded Gaussian projection (a hierarchical
k-means partition above 128 cells, so the cost stays near-linear in the items: ``_cells.kmeans_cells``),
and the best item of each cell is kept. Items without an embedding enter no cell (and have ``delta = 0``); a
share the cells cannot fill is completed with the benchmark's best remaining items (D.1). Ties are broken in
a seeded random order.

Variants (``variant=``, the D.4 ablation arms):

* ``"cells"`` (default): cells on the vision-text embeddings (falls back to the text-only embeddings when no
  vision-text embedding is given, noted in ``cell_space_``);
* ``"text-cells"``: cells on the text-only embeddings, same projection;
* ``"random-cells"``: a seeded random partition of each benchmark into ``K_b`` groups;
* ``"shares"``: no cells, the top ``K_b`` items of each benchmark share;
* ``"dpp"``: greedy DPP MAP inside each share, ``L = diag(q) G diag(q)`` with an RBF kernel
  ``G_ij = exp(-||x_i - x_j||^2 / h)`` on the projected embeddings. The bandwidth ``h`` is the median
  squared distance of 2,000 random pairs of the benchmark's embedded items (D.4: "so no weight is tuned"),
  drawn per benchmark share with the benchmark's seeded generator; the quality ``q`` is the ranked score
  ``q_i / sqrt(M_i)`` (negative or missing values count as 0).
"""

from __future__ import annotations

import math
import zlib
from numbers import Integral, Real
from typing import ClassVar, Literal

import numpy as np
import pandas as pd

from benchsift._inputs import check_array, check_choice
from benchsift._params import ConstraintLike, Interval, Options
from benchsift.compression.embeddings import delta_vl, random_projection
from benchsift.compression.selectors._cells import (
    cell_winners,
    greedy_dpp,
    kmeans_cells,
    random_cells,
)
from benchsift.compression.selectors.base import (
    ItemSelector,
    SelectorInput,
    item_variance,
)
from benchsift.compression.selectors.budget import largest_remainder_shares
from benchsift.stats import check_random_state

__all__ = ["VARIANTS", "VAWSelector", "check_variant", "vaw_scores"]

Variant = Literal["cells", "text-cells", "random-cells", "shares", "dpp"]
VARIANTS: tuple[str, ...] = ("cells", "text-cells", "random-cells", "shares", "dpp")


def check_variant(variant: str) -> str:
    """``variant`` if it is one of :data:`VARIANTS`; else an error naming ``variant`` and the closest."""
    return check_choice("`variant`", variant, VARIANTS)


def vaw_scores(
    scores: np.ndarray, delta: np.ndarray | None = None, alpha: float = 0.187
) -> dict[str, np.ndarray]:
    """The VAW quantities of PRIMEBench Eq. 4-6 for every item of ``scores`` (models x items, NaN allowed).

    Returns a dict of ``(n_items,)`` arrays: ``n_valid`` (``M_i``), ``variance`` (``sigma^2_i``, Eq. 5 with
    ``1/sqrt(M_i)``), ``delta`` (``delta^VL_i``, 0 where not given), ``q`` (Eq. 4) and ``score``
    (``q_i / sqrt(M_i)``, the ranked score; NaN when ``M_i = 0``).
    """
    v, m = item_variance(np.asarray(scores, dtype=np.float64))
    d = (
        np.zeros(v.shape[0])
        if delta is None
        else check_array("delta", delta, shape=v.shape, what=f"shape {v.shape} (one per item)")
    )
    sqrt_m = np.sqrt(m.astype(np.float64))
    sigma2 = sqrt_m * v  # (1/sqrt(M)) * sum of squares = sqrt(M) * plug-in variance
    q = sigma2 + alpha * d
    with np.errstate(invalid="ignore", divide="ignore"):
        score = q / sqrt_m
    score[m == 0] = np.nan
    return {"n_valid": m, "variance": sigma2, "delta": d, "q": q, "score": score}


def _benchmark_seed(base: int, name: str) -> np.random.Generator:
    """A generator for one benchmark: depends on the selector seed and the benchmark name only."""
    return np.random.default_rng([base, zlib.crc32(name.encode("utf-8"))])


class VAWSelector(ItemSelector):
    """Vision-Aware Variance item selection with coverage cells (PRIMEBench section 4.3).

    Parameters
    ----------
    alpha
        Weight of the vision-dependence score in Eq. 4 (0.187 in the paper; 0 gives variance in cells).
    variant
        ``"cells"``, ``"text-cells"``, ``"random-cells"``, ``"shares"`` or ``"dpp"`` (see the module docs).
    projection_dim
        Dimension of the fixed random projection before k-means / the DPP kernel (64).
    projection_seed
        Seed of the projection matrix; fixed so the cell space does not change with ``random_state``.
    max_iter
        Cap on the Lloyd iterations of each k-means run (after k-means++ seeding; every node of the cell
        partition is one such run). Ten iterations bring the
        k-means objective within about 0.1 % of its converged value on benchmark-sized pools at a fraction
        of the cost; cells only need to group similar items.
    random_state
        Seed of the k-means initialisations, the random partitions and the tie-breaking order. Each benchmark
        draws from its own generator seeded by ``(random_state, crc32(benchmark name))``, so a benchmark's
        cells do not depend on which other benchmarks share the pool.

    Fitted attributes
    -----------------
    ``support_``, ``item_scores_`` (``q_i / sqrt(M_i)``), ``reasons_`` (``"cell"``, ``"dpp"``, ``"top"`` or
    ``"completion"`` per kept item), ``q_`` (Eq. 4), ``variance_`` (Eq. 5), ``delta_`` (Eq. 6),
    ``n_valid_``, ``cell_labels_`` (pool-wide cell id per item, -1 = in no cell), ``shares_`` (benchmark ->
    ``K_b``), ``benchmarks_`` (a DataFrame per benchmark: ``n_items``, ``n_embedded``, ``share``,
    ``n_cells``, ``n_cell_kept``, ``n_completion``), ``cell_space_`` (``"vision-text"``, ``"text"``,
    ``"random"`` or ``"none"``).
    """

    name = "vaw"
    _parameter_constraints: ClassVar[dict[str, list[ConstraintLike]]] = {
        "variant": [Options(VARIANTS)],
        "alpha": [Interval(Real, 0, math.inf, closed="left", desc="a finite number >= 0")],
        "projection_dim": [Interval(Integral, 1, None)],
        "max_iter": [Interval(Integral, 1, None)],
    }

    def __init__(
        self,
        alpha: float = 0.187,
        variant: Variant = "cells",
        projection_dim: int = 64,
        projection_seed: int = 0,
        max_iter: int = 10,
        random_state: int | np.random.Generator | None = 0,
    ) -> None:
        self.alpha = alpha
        self.variant = variant
        self.projection_dim = projection_dim
        self.projection_seed = projection_seed
        self.max_iter = max_iter
        self.random_state = random_state

    def _cell_space(self, emb: np.ndarray | None, temb: np.ndarray | None) -> tuple[str, np.ndarray | None]:
        """The space the cells (or the DPP kernel) live in, projected to ``projection_dim``."""
        if self.variant in ("shares",):
            return "none", None
        if self.variant == "random-cells":
            return "random", None
        if self.variant == "text-cells":
            space, arr = "text", temb
        elif emb is not None:
            space, arr = "vision-text", emb
        else:
            space, arr = "text", temb
        if arr is None:
            return "none", None
        return space, random_projection(arr, self.projection_dim, self.projection_seed)

    def _select(self, inp: SelectorInput) -> np.ndarray:
        """Keep ``k`` items of the pool (sorted positions); see the class and module docstrings."""
        n = inp.n_items
        delta = None
        if inp.embeddings is not None and inp.text_embeddings is not None:
            delta = delta_vl(inp.text_embeddings, inp.embeddings)
        vals = vaw_scores(inp.scores, delta, float(self.alpha))
        score = vals["score"]
        space, proj = self._cell_space(inp.embeddings, inp.text_embeddings)
        has_emb = np.zeros(n, dtype=bool) if proj is None else ~np.isnan(proj[:, 0])

        if inp.item_meta is not None and "benchmark" in inp.item_meta.columns:
            bench = inp.item_meta["benchmark"].astype(str).to_numpy()
        else:
            bench = np.full(n, "pool", dtype=object)
        codes, names = pd.factorize(bench, sort=False)
        sizes = np.bincount(codes, minlength=len(names))
        shares = largest_remainder_shares(inp.k, sizes)
        # Group positions by benchmark once (stable: ascending positions within a benchmark).
        by_bench = np.argsort(codes, kind="stable")
        bounds = np.concatenate([[0], np.cumsum(sizes)])

        if self.variant == "shares":
            mode = "top"
        elif space == "random":
            mode = "cell"
        elif self.variant == "dpp":
            mode = "dpp"
        else:
            mode = "cell"
        base = int(check_random_state(self.random_state).integers(0, 2**63 - 1))
        kept_parts: list[np.ndarray] = []
        reason_parts: list[np.ndarray] = []
        cell_labels = np.full(n, -1, dtype=np.int64)
        rows: list[dict[str, object]] = []
        next_cell = 0
        for b, name in enumerate(names):
            pos = by_bench[bounds[b] : bounds[b + 1]]
            share = int(shares[b])
            emb_b = None if proj is None else proj[pos]
            chosen, n_first, labels = _select_in_benchmark(
                mode, space, score[pos], emb_b, share, _benchmark_seed(base, str(name)), int(self.max_iter)
            )
            n_cells = int(labels.max()) + 1 if labels.size and labels.max() >= 0 else 0
            in_cell = labels >= 0
            cell_labels[pos[in_cell]] = labels[in_cell] + next_cell
            next_cell += n_cells
            n_rest = int(chosen.shape[0]) - n_first
            kept_parts.append(pos[chosen])
            rest_label = "top" if mode == "top" else "completion"
            reason_parts.append(np.array([mode] * n_first + [rest_label] * n_rest, dtype=object))
            rows.append(
                {
                    "benchmark": str(name),
                    "n_items": int(pos.shape[0]),
                    "n_embedded": int(has_emb[pos].sum()),
                    "share": share,
                    "n_cells": n_cells,
                    "n_cell_kept": n_first,
                    "n_completion": 0 if mode == "top" else n_rest,
                }
            )
        kept = np.concatenate(kept_parts) if kept_parts else np.empty(0, dtype=np.int64)
        reasons = np.concatenate(reason_parts) if reason_parts else np.empty(0, dtype=object)
        out = self._set_fitted(n, kept, reasons, score)
        self.q_ = vals["q"]
        self.variance_ = vals["variance"]
        self.delta_ = vals["delta"]
        self.n_valid_ = vals["n_valid"]
        self.cell_labels_ = cell_labels
        self.shares_ = {str(nm): int(s) for nm, s in zip(names, shares, strict=True)}
        self.benchmarks_ = pd.DataFrame(rows)
        self.cell_space_ = space
        return out


def _select_in_benchmark(
    mode: str,
    space: str,
    score: np.ndarray,
    emb: np.ndarray | None,
    share: int,
    rng: np.random.Generator,
    max_iter: int,
) -> tuple[np.ndarray, int, np.ndarray]:
    """Fill one benchmark share: cell winners (or DPP picks), then the best remaining items.

    Returns ``(chosen, n_first, labels)``: local indices of the kept items (cell winners / DPP picks first,
    then completion or top items), how many came from the cells / DPP, and each item's local cell (-1 =
    in no cell).
    """
    n_b = score.shape[0]
    priority = rng.permutation(n_b)  # seeded random tie-breaking order
    labels = np.full(n_b, -1, dtype=np.int64)
    chosen = np.empty(0, dtype=np.int64)
    emb_local = np.empty(0, dtype=np.int64) if emb is None else np.flatnonzero(~np.isnan(emb[:, 0]))
    if share > 0 and mode == "cell" and space == "random":
        labels = random_cells(n_b, share, rng)
        chosen = cell_winners(labels, score, priority)
    elif share > 0 and mode == "cell" and emb_local.size and emb is not None:
        n_cells = min(share, int(emb_local.size))
        seed = int(rng.integers(0, 2**31 - 1))
        lab = kmeans_cells(emb[emb_local], n_cells, seed, max_iter)
        labels[emb_local] = lab
        chosen = emb_local[cell_winners(lab, score[emb_local], priority[emb_local])]
    elif share > 0 and mode == "dpp" and emb_local.size and emb is not None:
        chosen = emb_local[greedy_dpp(emb[emb_local], score[emb_local], share, rng)]
    n_first = int(chosen.shape[0])
    rest = share - n_first
    if rest > 0:  # top items (shares variant) or completion of an unfilled share (D.1)
        free = np.ones(n_b, dtype=bool)
        free[chosen] = False
        cand = np.flatnonzero(free)
        key = np.where(np.isnan(score[cand]), -np.inf, score[cand])
        extra = cand[np.lexsort((priority[cand], -key))[:rest]]
        chosen = np.concatenate([chosen, extra])
    return chosen.astype(np.int64), n_first, labels
