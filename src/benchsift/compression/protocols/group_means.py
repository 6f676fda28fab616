"""NaN-aware weighted group means of the held-out scoring, as matrix products (PRIMEBench D.3).

Scoring every category of every retention is one small matrix product per category
(:class:`CategoryBlocks`); :func:`weighted_group_means` is the dense form.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy import sparse

from benchsift._threads import single_thread
from benchsift.compression.protocols.pools import CategoryPools

__all__ = ["CategoryBlocks", "weighted_group_means"]


def weighted_group_means(X: np.ndarray, weights: np.ndarray) -> np.ndarray:
    """NaN-aware weighted means of the rows of ``X`` over column groups, as matrix products.

    ``X`` ``(n_rows, n_items)`` with NaN = missing, ``weights`` ``(n_items, n_groups)`` >= 0 (0 = not in the
    group). Returns ``(n_rows, n_groups)``: ``sum_i w_ig x_ri / sum_i w_ig [x_ri observed]``, NaN where a row
    has no observed item of weight > 0 in the group (PRIMEBench D.3 scores a model by its NaN-aware mean).

    One product ``X0 @ W`` (missing entries as 0); the denominators are the column sums of ``W`` when nothing
    is missing, else a second product ``[x observed] @ W``. Runs under the package's thread policy
    (:func:`benchsift._threads.single_thread`).
    """
    X = np.asarray(X, dtype=np.float64)
    W = np.asarray(weights, dtype=np.float64)
    with single_thread():
        missing = np.isnan(X)
        if missing.any():
            num = np.where(missing, 0.0, X) @ W
            den = (~missing).astype(np.float64) @ W
        else:
            num = X @ W
            den = np.broadcast_to(W.sum(axis=0), num.shape)
    out = np.full(num.shape, np.nan)
    np.divide(num, den, out=out, where=den > 0)
    return out


@dataclass(frozen=True)
class CategoryBlocks:
    """The pools' score matrix with every category pool a contiguous block of columns, built once per run.

    The held-out scoring of a task (PRIMEBench D.3: each model's NaN-aware mean on the kept items of every
    category at every retention) is then one small matrix product per category,
    ``values[rows, block] @ W[block]`` (the task's rows taken once), instead of a product with a dense
    ``(n_items, n_retentions * n_categories)`` weight matrix that is zero outside each item's category
    (``n_categories`` times the work and memory) or a loop over every selection. ``missing[c]`` holds
    category ``c``'s missing cells as a sparse 0/1 matrix (``None`` when none is missing), so the
    denominators are the weight sums less a sparse product.

    ``values`` (missing cells 0) is float32 when every value is 0 or 1 and no block has more than
    ``2**24`` items: a product with 0/1 weights then sums whole counts below ``2**24``, exact in float32
    (the same means as in float64; half the row copy and the product about twice as fast). Other weights
    take the rows back to float64, exactly. ``in_order``: the blocks are the items' own order (no
    reordering of the weights).
    """

    values: np.ndarray
    missing: tuple[sparse.csr_array | None, ...]
    order: np.ndarray
    bounds: np.ndarray
    in_order: bool = False

    @classmethod
    def from_pools(cls, pools: CategoryPools) -> CategoryBlocks:
        order = np.concatenate(pools.columns) if pools.columns else np.empty(0, dtype=np.int64)
        sizes = [int(c.shape[0]) for c in pools.columns]
        bounds = np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64)
        X = pools.scores[:, order]
        miss = np.isnan(X)
        values = np.ascontiguousarray(np.where(miss, 0.0, X))  # C order: a task takes its rows first
        if max(sizes, default=0) <= 2**24 and bool(np.all((values == 0.0) | (values == 1.0))):
            values = values.astype(np.float32)  # 0/1: counts exact in float32 (class docstring)
        blocks = []
        for c in range(len(sizes)):
            m = miss[:, bounds[c] : bounds[c + 1]]
            blocks.append(sparse.csr_array(m.astype(np.float64)) if m.any() else None)
        in_order = bool(np.array_equal(order, np.arange(order.shape[0])))
        return cls(values, tuple(blocks), order, bounds, in_order)

    def kept_means(self, weights: np.ndarray, rows: np.ndarray) -> np.ndarray:
        """``(len(rows), n_sets, n_categories)`` NaN-aware weighted means of the model ``rows``.

        ``weights`` ``(n_items, n_sets)``, in the pools' item order (e.g. the kept-item weights per
        retention from :func:`selection_weights`). Same values as :func:`weighted_group_means` with the
        per-category weights; a group counts as observed by the number of its observed kept items (exact
        in integers, whatever the weights).
        """
        W = np.asarray(weights, dtype=np.float64)
        in_order = self.in_order and W.ndim == 2 and W.shape[0] == self.order.shape[0]
        W = np.ascontiguousarray(W) if in_order else W[self.order]  # C order either way, as the products had
        rows = np.asarray(rows, dtype=np.int64)
        n_cat = self.bounds.shape[0] - 1
        out = np.full((rows.shape[0], W.shape[1], n_cat), np.nan)
        if W.shape[0] == 0:
            return out
        starts = np.minimum(self.bounds[:-1], W.shape[0] - 1)  # an empty block is skipped below
        totals = np.add.reduceat(W, starts, axis=0)  # (n_cat, n_sets) weight sums per block
        # 0/1 weights (the D.3 mean): the observed weight is the observed count, no second indicator needed
        binary = bool(np.all((W == 0.0) | (W == 1.0)))
        kept_all = None if binary else (W != 0.0).astype(np.float64)
        counts = totals if kept_all is None else np.add.reduceat(kept_all, starts, axis=0)
        # 0/1 values (float32) and 0/1 weights: the products are whole counts, exact in float32
        Wp = W.astype(np.float32) if binary and self.values.dtype == np.float32 else W
        with single_thread():
            held = np.take(self.values, rows, axis=0)  # one contiguous row copy, then products on its blocks
            if held.dtype != Wp.dtype:
                held = held.astype(np.float64)  # float32 0/1 values, other weights: exact
            for c in range(n_cat):
                lo, hi = int(self.bounds[c]), int(self.bounds[c + 1])
                if hi == lo:
                    continue
                w = W[lo:hi]
                num = held[:, lo:hi] @ Wp[lo:hi]
                den, n_obs = totals[c], counts[c]  # (n_sets,): broadcast against the rows where used
                miss = self.missing[c]
                if miss is not None:
                    den = den - np.asarray(miss @ w)[rows]
                    if kept_all is None:
                        n_obs = den
                    else:
                        n_obs = n_obs - np.asarray(miss @ kept_all[lo:hi])[rows]
                np.divide(num, den, out=out[:, :, c], where=(n_obs > 0.5) & (den > 0))
        return out
