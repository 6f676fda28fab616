r"""Design-based anchor estimate and the cross-validated stack of the full-score estimators.

Two pieces used by :mod:`benchsift.compression.full_score`:

* **Anchor-weighted mean** (tinyBenchmarks' "anchor" estimator, Polo et al. 2024, "tinyBenchmarks: evaluating
  LLMs with fewer examples", section 3.1 and Eq. for :math:`\hat Z^{anchor}`; ``tinyBenchmarks/__init__.py``
  ``evaluate``). Every item ``i`` of a group ``G`` is assigned to the suite item of ``G`` whose correctness
  vector over the reference models is nearest (Euclidean; a missing score is replaced by the item's mean;
  an item equally near several suite items is shared equally among them; a suite item is its own anchor).
  The weight of suite item ``s`` is the
  share of ``G`` assigned to it, :math:`w_s = |\{i \in G: \text{anchor}(i) = s\}| / |G|`, and a new model's
  estimate is the weighted mean of its suite responses over the suite items it has,

  .. math:: \hat Z^{anchor}_g = \sum_{s \in S_g} w_s y_s \Big/ \sum_{s \in S_g,\, y_s \text{ observed}} w_s .

  tinyBenchmarks chooses the anchors by K-means and weighs them by their cluster's size; here the suite is
  given (chosen by ``compress``), so the clusters are the Voronoi cells of the suite items in the same
  correctness space. On 0/1 vectors the distances are integers and ties are common (an easy item one
  model missed is as near an all-correct anchor as another); giving every tie to the first suite item, as
  before ``ANCHOR_SPLIT_TIES``, piled weight on low positions: on ZeroEval GSM8K (60/40 random splits, 3
  seeds, ``--selector estimate``) the anchor mean erred 0.073 / 0.052 / 0.048 at 2 / 5 / 10 % (0.060 /
  0.038 / 0.031 with shared ties) against tinyBenchmarks' 0.047 / 0.033 / 0.031 with its own anchors; with
  the same K-means anchors the Voronoi weights with shared ties equal K-means' cluster shares to 0.0002 in
  MAE (5 seeds).
  It is a design-based estimate: it needs no ability model, so it does not inherit the
  2PL's misfit, which is what keeps a plain random subset competitive on panels with few build models.

* **Stack** (stacked generalisation, Wolpert 1992, "Stacked generalization", Neural Networks 5(2); Breiman
  1996, "Stacked regressions", Mach. Learn. 24(1), with weights constrained to the simplex). Per group ``g``,

  .. math:: \hat Z^{stack}_g = w_{g,1} \hat Z^{anchor}_g + w_{g,2} \hat Z^{ridge}_g
            + w_{g,3} \hat Z^{p\text{-}IRT}_g, \qquad w_g \in \Delta^2 \cap (0.1\,\mathbb{Z})^3,

  the weights chosen on the grid of the simplex with step 0.1 (66 points) by the smallest out-of-fold mean
  absolute error of the random folds of :func:`~benchsift.compression.full_score.fit_full_score` (adding the
  fold of the strongest reference models to this criterion, ``STACK_WEIGHTS_USE_STRONGEST``, made the stack
  worse than p-IRT on ZeroEval GSM8K at 2 %: 0.042 against 0.032, 3 seeds). tinyBenchmarks' gp-IRT is the
  edge ``w_{g,2} = 0`` (with its own data-driven :math:`\lambda`), p-IRT and ridge are vertices, so on the
  reference models' folds the stack is never worse than any of them (its chosen weights are measured, not
  assumed: the interval is the conformal one of its own out-of-fold residuals).

* **Calibrated p-IRT** (``pirt_cal``): the line :math:`\hat Z^{cal}_g = \alpha_g + \beta_g
  \hat Z^{p\text{-}IRT}_g` fitted by least squares on the reference models' *out-of-fold* p-IRT estimates
  against their full scores (Platt-style recalibration of a cross-fitted prediction; Platt 1999, and the
  stacking papers above with one component and an intercept). A 2PL fitted on build models that all pass
  the easy items predicts a weak new model to pass them too (GSM8K: +0.10 to +0.16 for models at 0.5-0.8);
  the line learns that shrinkage from the folds. Its own out-of-fold predictions (for the choice and the
  interval) are leave-one-out: each reference model's calibrated estimate uses the line of the others
  (:func:`calibrated_loo`).
"""

from __future__ import annotations

import numpy as np

from benchsift.stats.means import nan_mean

__all__ = [
    "STACK_COMPONENTS",
    "anchor_means",
    "anchor_weights",
    "calibrated_loo",
    "calibration_line",
    "design_weights",
    "stack_grid",
    "stack_weights",
]

#: The estimators the stack mixes, in the order of its weights (``factor``: only with enough reference
#: models, :data:`benchsift.compression.full_score_factor.FACTOR_MIN_REFERENCE`; else its weight is 0;
#: ``greg``, the difference estimator, added after the factor: a file written before it reads back with its
#: weight 0).
STACK_COMPONENTS = ("anchor", "ridge", "pirt", "factor", "greg")
#: Whether a pool item equally near several suite items is shared among them (else: the first one).
ANCHOR_SPLIT_TIES = True


def stack_grid(step: float = 0.1, n_parts: int = 3) -> np.ndarray:
    """The points of the simplex of ``n_parts`` weights with coordinates on multiples of ``step``,
    ``(n, n_parts)`` (66 points for 3 parts at step 0.1, 286 for 4), the vertices first (so that a tie keeps
    a single estimator)."""
    k = int(round(1.0 / step))

    def compositions(total: int, parts: int) -> list[tuple[int, ...]]:
        if parts == 1:
            return [(total,)]
        return [(i, *rest) for i in range(total + 1) for rest in compositions(total - i, parts - 1)]

    pts = compositions(k, int(n_parts))
    pts.sort(key=lambda p: (sum(v > 0 for v in p), p))
    return np.asarray(pts, dtype=np.float64) / k


def _filled(X: np.ndarray) -> np.ndarray:
    """Columns of ``X`` with each missing entry replaced by its column's mean (0.5 for an empty column)."""
    X = np.asarray(X, dtype=np.float64)
    seen = (~np.isnan(X)).sum(axis=0)
    means = np.where(seen > 0, np.nansum(X, axis=0) / np.maximum(seen, 1), 0.5)
    return np.where(np.isnan(X), means[None, :], X)


def anchor_weights(
    X: np.ndarray,
    pool_items: list[np.ndarray],
    suite_pos: np.ndarray,
    suite_cols: list[np.ndarray],
    design: bool = False,
) -> list[np.ndarray]:
    """Per group, the weight of each of its suite items (aligned with ``suite_cols[g]``): the share of the
    group's pool items whose correctness vector (column of ``X``, the reference models' scores on every
    pool item) is nearest to that suite item's. Weights sum to 1 in each group with a suite item.

    ``design``: the suite is a stratified random sample of every cell (:func:`design_weights`); the weights
    are the sampling design's instead."""
    if design:
        return design_weights(X.shape[1], pool_items, suite_pos, suite_cols)
    F = _filled(X)
    out = []
    for items, cols in zip(pool_items, suite_cols, strict=True):
        if cols.size == 0:
            out.append(np.zeros(0))
            continue
        anchors = suite_pos[cols]
        A = F[:, anchors]  # (n_ref, n_anchor)
        P = F[:, items]  # (n_ref, n_items)
        d2 = (P**2).sum(axis=0)[:, None] - 2.0 * P.T @ A + (A**2).sum(axis=0)[None, :]
        if ANCHOR_SPLIT_TIES:
            # an item equidistant from several suite items (0/1 vectors: integer distances, ties are
            # common) is shared equally among them
            tie = d2 <= d2.min(axis=1, keepdims=True) + 1e-9
            share = tie / tie.sum(axis=1, keepdims=True)
        else:
            share = np.zeros_like(d2)
            share[np.arange(d2.shape[0]), np.argmin(d2, axis=1)] = 1.0
        own = {int(p): k for k, p in enumerate(anchors)}
        for r, i in enumerate(items):
            if int(i) in own:  # a suite item is its own anchor
                share[r] = 0.0
                share[r, own[int(i)]] = 1.0
        w = share.sum(axis=0)
        out.append(w / w.sum())
    return out


def design_weights(
    n_items: int, pool_items: list[np.ndarray], suite_pos: np.ndarray, suite_cols: list[np.ndarray]
) -> list[np.ndarray]:
    r"""Per group, the sampling weight of each of its suite items when the suite is a stratified random
    sample drawn in every cell (the finest partition of the items that the groups make: the categories of
    a benchmark): a suite item of cell :math:`c` stands for :math:`N_c / n_c` items, its cell's pool size
    over its cell's suite size (Cochran 1977, "Sampling techniques", eq. 5.1: the stratified mean
    :math:`\sum_c (N_c / N) \bar y_c`). Weights sum to 1 in each group with a suite item; a cell of a group
    with no suite item is not represented (its items count for none)."""
    cell = np.zeros(n_items, dtype=np.int64)
    for items in pool_items:  # refine the partition by each group's membership
        mark = np.zeros(n_items, dtype=np.int64)
        mark[items] = 1
        cell = np.unique(np.stack([cell, mark]), axis=1, return_inverse=True)[1].ravel()
    pool_n = np.bincount(cell, minlength=int(cell.max()) + 1).astype(np.float64)
    suite_n = np.bincount(cell[suite_pos], minlength=pool_n.size).astype(np.float64)
    out = []
    for cols in suite_cols:
        if cols.size == 0:
            out.append(np.zeros(0))
            continue
        c = cell[suite_pos[cols]]
        w = pool_n[c] / suite_n[c]
        out.append(w / w.sum())
    return out


def anchor_means(X_suite: np.ndarray, suite_cols: list[np.ndarray], weights: list[np.ndarray]) -> np.ndarray:
    """``(n, n_groups)`` anchor-weighted means of the suite responses (weights renormalised over the items
    a model has; NaN where it has none, or the group has no suite item)."""
    X = np.asarray(X_suite, dtype=np.float64)
    out = np.full((X.shape[0], len(suite_cols)), np.nan)
    for g, (cols, w) in enumerate(zip(suite_cols, weights, strict=True)):
        if cols.size == 0:
            continue
        Y = X[:, cols]
        seen = ~np.isnan(Y)
        den = seen @ w
        num = np.where(seen, Y, 0.0) @ w
        with np.errstate(invalid="ignore", divide="ignore"):
            out[:, g] = np.where(den > 0, num / np.where(den > 0, den, 1.0), np.nan)
    return out


def stack_weights(
    parts: np.ndarray,
    parts_strong: np.ndarray | None,
    full: np.ndarray,
    strong: np.ndarray,
    grid: np.ndarray | None = None,
) -> np.ndarray:
    """Per group, the grid weights with the smallest out-of-fold error: the random folds' MAE, plus, when
    ``parts_strong`` is given, the strongest fold's MAE on its models. ``parts``: ``(n_parts, n_ref,
    n_groups)`` out-of-fold predictions of the stack's components (the first three of
    :data:`STACK_COMPONENTS`, or more) from the random folds, ``parts_strong`` the same from the
    strongest fold (rows of ``strong``); ``grid``: the candidate weights (default: :func:`stack_grid` for as
    many parts). Returns ``(n_groups, n_parts)``; a group without finite errors gets p-IRT (the third part)
    alone."""
    G = stack_grid(n_parts=parts.shape[0]) if grid is None else grid
    ng = full.shape[1]
    pirt_alone = np.zeros(parts.shape[0])
    pirt_alone[STACK_COMPONENTS.index("pirt")] = 1.0
    out = np.tile(pirt_alone, (ng, 1))
    for g in range(ng):
        y = full[:, g]
        pr = np.tensordot(G, parts[:, :, g], axes=(1, 0))  # (n_grid, n_ref)
        err = nan_mean(np.abs(pr - y[None, :]), axis=1)
        if parts_strong is not None:
            ps = np.tensordot(G, parts_strong[:, strong, g], axes=(1, 0))
            es = nan_mean(np.abs(ps - y[strong][None, :]), axis=1)
            err = err + np.where(np.isfinite(es), es, 0.0)
        if np.isfinite(err).any():
            out[g] = G[int(np.nanargmin(err))]
    return out


def calibration_line(pred: np.ndarray, y: np.ndarray) -> tuple[float, float]:
    """``(alpha, beta)`` of the least-squares line ``y = alpha + beta pred`` over the rows where both are
    finite (``(mean y, 0)`` when ``pred`` is constant; NaN when no row is finite)."""
    ok = np.isfinite(pred) & np.isfinite(y)
    if not ok.any():
        return float("nan"), float("nan")
    p, t = pred[ok], y[ok]
    v = float(np.var(p))
    if ok.sum() < 3 or v <= 1e-12:
        return float(t.mean()), 0.0
    beta = float(np.mean((p - p.mean()) * (t - t.mean())) / v)
    return float(t.mean() - beta * p.mean()), beta


def calibrated_loo(pred: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Leave-one-out calibrated predictions: row ``i`` is ``alpha_{-i} + beta_{-i} pred_i`` with the
    :func:`calibration_line` of the other rows (NaN where ``pred_i`` is NaN)."""
    out = np.full(pred.shape[0], np.nan)
    ok = np.isfinite(pred) & np.isfinite(y)
    for i in np.flatnonzero(np.isfinite(pred)):
        keep = ok.copy()
        keep[i] = False
        alpha, beta = calibration_line(np.where(keep, pred, np.nan), y)
        out[i] = alpha + beta * pred[i]
    return out
