"""tinyBenchmarks-style IRT anchor set and its p-IRT / gp-IRT estimators (Polo et al. 2024, sections 3-4).

Selection ("IRT anchor points"). An IRT model is fitted to the build models' scores; each item is embedded by
its item parameters, ``E_j = (a_j, d_j)`` (tinyBenchmarks uses the multidimensional IRT parameters
``(alpha_j, beta_j)``; here the unidimensional 2PL of :class:`benchsift.irt.TwoPL`, whose two parameters are
the slope and the intercept). The embeddings are clustered by k-means into ``K`` clusters
(:func:`benchsift.stats.kmeans.grid_kmeans`: the same clusters on every machine); each cluster's
anchor is its member closest to the centroid, with weight ``w_c = |C_c| / N`` (the share of the pool it stands
for). Scaled scores in (0, 1) enter the 2PL likelihood as soft Bernoulli responses, so predictions stay on the
score scale.

Estimators of a new model's pool mean from its anchor scores ``Y_c``
(:meth:`TinyBenchmarksSelector.estimate`):

* ``"anchor"``: the weighted anchor mean ``sum_c w_c Y_c`` (tinyBenchmarks' "IRT" anchor estimate);
* ``"pirt"`` (default), p-IRT: the ability ``theta_hat`` is estimated from the anchors (EAP under the fitted
  items), then

  .. math::

      \\hat Z_{p\\text{-}IRT} = \\frac{1}{N}\\Bigl(\\sum_{j \\in A} Y_j
          + \\sum_{j \\notin A} P_j(\\hat\\theta)\\Bigr),

  observed anchor scores where there are some and the IRT prediction ``P_j(theta_hat)`` for every other item
  (and for an anchor the model has no score on);
* ``"gpirt"``, gp-IRT: ``lambda * anchor + (1 - lambda) * p-IRT``, with ``lambda = b^2 / (b^2 + v)`` where
  ``b^2`` and ``v`` are the mean squared errors of p-IRT and of the anchor estimate on the build models
  (in-sample), the bias-variance heuristic of tinyBenchmarks.

Items with no valid build score have no IRT parameters: they are left out of the clustering and of the mean
the estimators target (the mean over the fitted items). Clusters are seeded by ``random_state``.
"""

from __future__ import annotations

from typing import ClassVar, Literal

import numpy as np

from benchsift._inputs import check_array
from benchsift._params import ConstraintLike, Options
from benchsift.compression.selectors.anchorpoints import complete_anchors, sorted_anchor_labels
from benchsift.compression.selectors.base import ItemSelector, SelectorInput
from benchsift.compression.selectors.irt2pl import selector_twopl
from benchsift.errors import InputError
from benchsift.stats import check_random_state
from benchsift.stats.kmeans import grid_kmeans

__all__ = ["TinyBenchmarksSelector"]

Estimator = Literal["pirt", "gpirt", "anchor"]
_ESTIMATORS = ("pirt", "gpirt", "anchor")


class TinyBenchmarksSelector(ItemSelector):
    """IRT anchor points of tinyBenchmarks with the p-IRT (default), gp-IRT or weighted anchor estimator.

    Parameters
    ----------
    estimator
        ``"pirt"``, ``"gpirt"`` or ``"anchor"`` (see the module docstring).
    n_quadrature, max_iter, tol, prior_a_sd, prior_d_sd
        Settings of the 2PL fit (:class:`benchsift.irt.TwoPL`: adaptive quadrature, floating log-normal slope
        prior with sd ``prior_a_sd`` on ``log a``).
    random_state
        Seed of the k-means initialisation.

    Fitted attributes
    -----------------
    ``support_``, ``item_scores_`` (distance of each item to its cluster centre in the embedding; NaN for
    items without IRT parameters), ``reasons_`` (``"anchor"`` or ``"completion"``), ``weights_`` (cluster
    shares of the kept items, in the order of the returned positions; 0 for completion items), ``embedding_``
    (``(n_items, 2)``: ``a_j, d_j``; NaN rows for unfitted items), ``labels_`` (per item: position of its
    anchor in the returned array, -1 when unfitted), ``irt_`` (the fitted :class:`~benchsift.irt.TwoPL`, items
    in the order of ``fitted_items_``), ``fitted_items_``, ``lambda_`` (the gp-IRT weight).
    """

    name = "tinybench"
    _parameter_constraints: ClassVar[dict[str, list[ConstraintLike]]] = {"estimator": [Options(_ESTIMATORS)]}

    def __init__(
        self,
        estimator: Estimator = "pirt",
        n_quadrature: int | None = None,
        max_iter: int = 500,
        tol: float = 1e-4,
        prior_a_sd: float = 0.5,
        prior_d_sd: float = 3.0,
        random_state: int | np.random.Generator | None = 0,
    ) -> None:
        self.estimator = estimator
        self.n_quadrature = n_quadrature
        self.max_iter = max_iter
        self.tol = tol
        self.prior_a_sd = prior_a_sd
        self.prior_d_sd = prior_d_sd
        self.random_state = random_state

    def _select(self, inp: SelectorInput) -> np.ndarray:
        """Fit the 2PL, cluster the item parameters into ``k`` clusters and keep their anchors (sorted)."""
        rng = check_random_state(self.random_state)
        n = inp.n_items
        fitted = np.flatnonzero((~np.isnan(inp.scores)).any(axis=0))
        emb = np.full((n, 2), np.nan)
        dist = np.full(n, np.nan)
        label = np.full(n, -1, dtype=np.int64)
        anchors = np.empty(0, dtype=np.int64)
        shares = np.empty(0)
        self.irt_ = None
        if fitted.size and inp.k > 0:
            irt = selector_twopl(self, inp.scores[:, fitted])
            self.irt_ = irt
            x = np.column_stack([irt.discrimination_, irt.intercept_])
            emb[fitted] = x
            n_clusters = min(inp.k, int(np.unique(x, axis=0).shape[0]))
            seed = int(rng.integers(0, 2**31 - 1))
            km = grid_kmeans(x, n_clusters, seed)  # the same clusters on every machine (BLAS kernels differ)
            lab, centres = km.labels, km.centres
            local = km.nearest_rows()  # anchors of the non-empty clusters, cluster order
            cluster_of_anchor = lab[local]
            remap = np.full(n_clusters, -1, dtype=np.int64)
            remap[cluster_of_anchor] = np.arange(local.shape[0])
            anchors = fitted[local]
            label[fitted] = remap[lab]
            dist[fitted] = np.sqrt(((x - centres[lab]) ** 2).sum(axis=1))
            shares = np.bincount(label[fitted], minlength=anchors.shape[0]) / fitted.shape[0]
        n_anchors = anchors.shape[0]
        if inp.k > n_anchors:  # duplicate embeddings or unfitted items: fill the budget at random
            anchors, n_extra = complete_anchors(anchors, np.setdiff1d(np.arange(n), anchors), inp.k, rng)
            shares = np.concatenate([shares, np.zeros(n_extra)])
        reasons = ["anchor"] * n_anchors + ["completion"] * (anchors.shape[0] - n_anchors)
        out = self._set_fitted(n, anchors, np.asarray(reasons, dtype=object), dist)
        order, self.labels_ = sorted_anchor_labels(anchors, label)
        self.weights_ = shares[order]
        self.embedding_ = emb
        self.fitted_items_ = fitted
        self.kept_ = out
        self.lambda_ = np.nan
        if self.irt_ is not None and out.size:
            self.lambda_ = self._gp_lambda(inp.scores)
        return out

    # ------------------------------------------------------------------ estimators
    def _anchor_estimate(self, y: np.ndarray) -> np.ndarray:
        return super().estimate(y)

    def _pirt_estimate(self, y: np.ndarray) -> np.ndarray:
        """p-IRT estimate of the mean over the fitted items (module docstring)."""
        assert self.irt_ is not None
        fitted = self.fitted_items_
        pos_in_fit = np.full(self.support_.shape[0], -1, dtype=np.int64)
        pos_in_fit[fitted] = np.arange(fitted.shape[0])
        kept_fit = pos_in_fit[self.kept_]
        use = kept_fit >= 0
        yk = y[:, use]
        idx = kept_fit[use]
        theta = self.irt_.score(yk, items=idx).theta
        pred = self.irt_.predict_proba(theta)  # (n_new, n_fitted)
        observed = ~np.isnan(yk)
        rows = np.nonzero(observed)
        pred[rows[0], idx[rows[1]]] = yk[observed]
        return pred.mean(axis=1)

    def _gp_lambda(self, build: np.ndarray) -> float:
        """``b^2 / (b^2 + v)``: in-sample errors of p-IRT and of the anchor estimate on the build models."""
        y = build[:, self.kept_]
        truth_cols = build[:, self.fitted_items_]
        with np.errstate(invalid="ignore"):
            valid_rows = (~np.isnan(truth_cols)).any(axis=1)
        if not valid_rows.any():
            return float("nan")
        truth = np.nanmean(truth_cols[valid_rows], axis=1)
        err_p = self._pirt_estimate(y[valid_rows]) - truth
        err_a = self._anchor_estimate(y[valid_rows]) - truth
        b2 = float(np.nanmean(err_p**2))
        v = float(np.nanmean(err_a**2))
        if not np.isfinite(b2 + v) or b2 + v <= 0:
            return 0.0
        return b2 / (b2 + v)

    def estimate(self, kept_scores: np.ndarray) -> np.ndarray:
        """Estimated pool mean of each model from its scores on the kept items (``estimator`` decides how).

        ``kept_scores`` is ``(n_models, n_kept)``, columns in the order of the returned positions, values in
        [0, 1] or NaN. A model with no score on any kept item gets NaN.
        """
        if not hasattr(self, "support_"):
            raise InputError("this TinyBenchmarksSelector is not fitted yet; call select() first")
        n_kept = self.kept_.shape[0]
        y = check_array(
            "kept_scores",
            kept_scores,
            shape=(None, n_kept),
            what=f"a (n_models, {n_kept}) array (the kept items)",
            low=0,
            high=1,
        )
        anchor = self._anchor_estimate(y)
        if self.estimator == "anchor" or self.irt_ is None:
            return anchor
        none = np.isnan(y).all(axis=1)
        pirt = self._pirt_estimate(y)
        if self.estimator == "pirt":
            out = pirt
        else:
            lam = self.lambda_ if np.isfinite(self.lambda_) else 0.0
            out = lam * anchor + (1.0 - lam) * pirt
        out[none] = np.nan
        return out
