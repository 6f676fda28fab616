"""Samejima's graded response model (GRM) for ordered scores in [0, 1], by marginal maximum likelihood (EM).

Scores that take a few ordered levels (a judge's 0 / 0.5 / 1, a 0-10 rubric, a binned similarity) are
ordered categories ``c = 0 .. C_j - 1`` of item ``j``. The model (Samejima 1969)::

    P(x_mj >= c | theta_m) = sigmoid(a_j theta_m + d_jc),   c = 1 .. C_j - 1,   d_j1 > d_j2 > ...,
    P(x_mj = c | theta) = P(x >= c) - P(x >= c + 1),           theta_m ~ N(0, 1),

with ``P(x >= 0) = 1`` and ``P(x >= C_j) = 0``. With two levels it is the 2PL (:class:`benchsift.irt.TwoPL`),
and the fit reproduces that model on binary data.

The EM follows :class:`~benchsift.irt.TwoPL`: the same grid that follows the posteriors, the same PX-EM step
for the latent scale and the same floating log-normal slope prior (``d`` thresholds get a floating normal
prior). E-step: ``loglik_mk = (Y L)_mk`` with ``Y`` the one-hot ``(M, sum_j C_j)`` matrix of observed
categories and ``L_(jc)k = log P(x_j = c | q_k)`` (one matrix product, ``O(M sum_j C_j K)``). M-step: Fisher
scoring on each item's expected complete-data log-likelihood, vectorised over items; the information matrix
``sum_k n_jk sum_c dP_c dP_c^T / P_c`` is tridiagonal in the thresholds (Samejima 1969; Baker and Kim 2004,
"Item response theory: parameter estimation techniques", ch. 8), and a step that would break the order of
the thresholds is halved until it does not.

Levels: an item's distinct observed values, in order; an item with more than ``max_categories`` distinct
values (a continuous score) is cut into ``max_categories`` equal-width bins of [0, 1], empty bins dropped.
:meth:`GradedResponse.expected_score` maps ability back to the score scale with the items' level values.
"""

from __future__ import annotations

from functools import partial
from numbers import Integral
from typing import ClassVar

import numpy as np
from scipy.special import expit, log_expit

from benchsift._inputs import check_length, check_shape
from benchsift._params import Check, ConstraintLike, Interval, check_param, check_params
from benchsift._threads import single_thread
from benchsift.errors import DegenerateError, InputError
from benchsift.irt.quadrature import Grid, adaptive_grid, follow_posteriors, posterior_on_grid
from benchsift.irt.twopl import EM_CONSTRAINTS, AbilityEstimate, _check_responses, _px_rescale

__all__ = ["GradedResponse", "score_levels"]

#: The first grid when nothing is known of the posteriors: [-8, 8] in steps of 0.25.
_WIDE_GRID = adaptive_grid(np.zeros(1), np.ones(1), 4.0)


def score_levels(X: np.ndarray, max_categories: int = 5) -> tuple[np.ndarray, list[np.ndarray]]:
    """Category index of every cell (``-1`` = missing) and each item's level values, in increasing order.

    An item with at most ``max_categories`` distinct observed values keeps them as its levels; one with more
    is cut into ``max_categories`` equal-width bins of [0, 1] (a level is then the mean observed value in its
    bin), empty bins dropped.
    """
    Xf, obs = _check_responses(X)
    present = obs.astype(bool)
    cats = np.full(Xf.shape, -1, dtype=np.int64)
    levels: list[np.ndarray] = []
    edges = np.linspace(0.0, 1.0, max_categories + 1)[1:-1]
    for j in range(Xf.shape[1]):
        col = Xf[present[:, j], j]
        values = np.unique(col)
        if values.size <= max_categories:
            cats[present[:, j], j] = np.searchsorted(values, col)
            levels.append(values)
            continue
        bins = np.searchsorted(edges, col, side="right")
        used, idx = np.unique(bins, return_inverse=True)
        cats[present[:, j], j] = idx
        levels.append(np.array([col[idx == t].mean() for t in range(used.size)]))
    return cats, levels


class GradedResponse:
    """Samejima's graded response model, marginal maximum likelihood by EM (see the module docstring).

    Parameters
    ----------
    max_categories:
        Most score levels per item; items with more distinct values are binned.
    points_per_sd, max_iter, tol, newton_steps, prior_a_sd, prior_d_sd:
        As in :class:`benchsift.irt.TwoPL` (log-normal slope prior with floating centre; ``prior_d_sd`` for
        the thresholds, floating centre).

    Attributes
    ----------
    discrimination_:
        ``a_j`` per item (NaN for an item with fewer than two observed levels).
    thresholds_:
        ``(n_items, max_categories - 1)``: ``d_jc`` for ``c = 1 .. C_j - 1``, NaN past an item's last level.
    levels_:
        Each item's level values (the score of each category).
    theta_, theta_se_, n_iter_, converged_, objective_, grid_:
        As in :class:`~benchsift.irt.TwoPL`.
    """

    discrimination_: np.ndarray
    thresholds_: np.ndarray
    theta_: np.ndarray
    theta_se_: np.ndarray
    grid_: Grid

    #: the constructor's parameters, declared once (:mod:`benchsift._params`), checked at ``fit``
    _parameter_constraints: ClassVar[dict[str, list[ConstraintLike]]] = {
        "max_categories": [Interval(Integral, 2, None)],
        **EM_CONSTRAINTS,
    }

    def __init__(
        self,
        max_categories: int = 5,
        points_per_sd: float = 1.0,
        max_iter: int = 500,
        tol: float = 1e-4,
        newton_steps: int = 2,
        prior_a_sd: float = 0.5,
        prior_d_sd: float = 3.0,
    ) -> None:
        self.max_categories = max_categories
        self.points_per_sd = points_per_sd
        self.max_iter = max_iter
        self.tol = tol
        self.newton_steps = newton_steps
        self.prior_a_sd = prior_a_sd
        self.prior_d_sd = prior_d_sd

    # ------------------------------------------------------------------ fitting
    def fit(self, X: np.ndarray) -> GradedResponse:
        """Fit item parameters to ``X`` (respondents x items, scores in [0, 1], NaN = missing)."""
        with single_thread():  # elementwise work and small products: one BLAS thread is faster
            return self._fit(X)

    def _fit(self, X: np.ndarray) -> GradedResponse:
        check_params(self._parameter_constraints, vars(self), owner="GradedResponse")
        cats, levels = score_levels(X, int(self.max_categories))
        n_resp, n_items = cats.shape
        if n_resp < 2:
            raise DegenerateError(f"graded response fit needs at least 2 respondents, got {n_resp}")
        n_levels = np.array([lv.size for lv in levels])
        fitted = n_levels >= 2
        if not fitted.any():
            raise DegenerateError("graded response fit: no item has two or more observed score levels")
        width = int(n_levels.max())
        self._width = width
        self._n_levels = np.where(fitted, n_levels, 0)
        onehot = self._onehot(cats, width, fitted)

        a, d = self._start(cats, fitted, width)
        grid = self._start_grid(onehot, a, d)
        objective: list[float] = []
        converged = False
        it = 0
        for it in range(1, self.max_iter + 1):  # noqa: B007 - `it` is the iteration count after the loop
            post, log_marg, mean, sd, grid = follow_posteriors(
                partial(self._loglik, onehot, a, d), grid, self.points_per_sd
            )
            centres = self._centres(a, d)
            objective.append(float(log_marg.sum() + self._log_prior(a, d, centres)))
            r = (onehot.T @ post).reshape(n_items, width, -1)  # expected counts per item, category and node
            a_new, d_new = self._m_step(a, d, r, grid.nodes, centres)
            a_new, d_new = _px_rescale(a_new, d_new, mean, sd)
            change = max(np.nanmax(np.abs(a_new - a)), np.nanmax(np.abs(d_new - d), initial=0.0))
            a, d = a_new, d_new
            if change < self.tol:
                converged = True
                break
        _, _, mean, sd = posterior_on_grid(self._loglik(onehot, a, d, grid.nodes), grid)

        self.discrimination_ = np.where(fitted, a, np.nan)
        self.thresholds_ = np.full((n_items, int(self.max_categories) - 1), np.nan)
        self.thresholds_[:, : width - 1] = np.where(fitted[:, None], d, np.nan)
        self.levels_ = levels
        self.theta_ = mean
        self.theta_se_ = sd
        self.n_iter_ = it
        self.converged_ = converged
        self.objective_ = np.asarray(objective)
        self.grid_ = grid
        return self

    def _onehot(self, cats: np.ndarray, width: int, fitted: np.ndarray) -> np.ndarray:
        """``(M, N * width)`` indicator of each respondent's observed category (unfitted items left out)."""
        n_resp, n_items = cats.shape
        out = np.zeros((n_resp, n_items * width))
        m, j = np.nonzero((cats >= 0) & fitted)
        out[m, j * width + cats[m, j]] = 1.0
        return out

    def _threshold_mask(self) -> np.ndarray:
        """``(N, width - 1)``: which thresholds exist (``c < C_j``)."""
        return np.arange(1, self._width)[None, :] < self._n_levels[:, None]

    def _start(self, cats: np.ndarray, fitted: np.ndarray, width: int) -> tuple[np.ndarray, np.ndarray]:
        n_items = cats.shape[1]
        a = np.ones(n_items)
        d = np.zeros((n_items, width - 1))
        n_obs = np.maximum((cats >= 0).sum(axis=0), 1)
        for c in range(1, width):
            share = ((cats >= c).sum(axis=0)) / n_obs
            d[:, c - 1] = np.log(np.clip(share, 0.02, 0.98) / (1 - np.clip(share, 0.02, 0.98))) * 1.6
        # Strictly decreasing thresholds (clipping can tie them); unused thresholds sit below the last one.
        d = d - 1e-3 * np.arange(width - 1)[None, :]
        mask = self._threshold_mask()
        d = np.where(mask, d, np.nan)
        return a, d

    def _start_grid(self, onehot: np.ndarray, a: np.ndarray, d: np.ndarray) -> Grid:
        # A wide grid for the first E-step, then one refinement to the start posteriors.
        _, _, mean, sd = posterior_on_grid(self._loglik(onehot, a, d, _WIDE_GRID.nodes), _WIDE_GRID)
        return adaptive_grid(mean, sd, self.points_per_sd)

    def _inner(self, a: np.ndarray, d: np.ndarray, nodes: np.ndarray) -> np.ndarray:
        """``z_jtk = a_j q_k + d_jt`` for thresholds ``t = 1 .. width - 1`` (NaN past an item's last one)."""
        return a[:, None, None] * nodes[None, None, :] + d[:, :, None]

    def _cum_probs(self, a: np.ndarray, d: np.ndarray, nodes: np.ndarray) -> np.ndarray:
        """``(N, width + 1, K)``: ``P(x >= c)``, ``c = 0 .. width`` (1 at ``c = 0``, 0 past the last)."""
        inner = expit(self._inner(a, d, nodes))
        n_items, n_nodes = a.shape[0], nodes.shape[0]
        out = np.empty((n_items, self._width + 1, n_nodes))
        out[:, 0] = 1.0
        out[:, 1 : self._width] = np.where(np.isnan(inner), 0.0, inner)
        out[:, self._width] = 0.0
        return out

    def _loglik(self, onehot: np.ndarray, a: np.ndarray, d: np.ndarray, nodes: np.ndarray) -> np.ndarray:
        """``(M, K)`` log-likelihood of each respondent's observed categories (``onehot``) at each node."""
        return onehot @ self._log_cat(a, d, nodes)

    def _log_cat(self, a: np.ndarray, d: np.ndarray, nodes: np.ndarray) -> np.ndarray:
        """``(N * width, K)``: ``log P(x_j = c | q_k)`` (``0`` for categories an item does not have).

        ``P(x = c) = sigmoid(z_c) - sigmoid(z_{c+1})
        = sigmoid(z_c) sigmoid(-z_{c+1}) (1 - exp(d_{c+1} - d_c))``: the last factor does not depend on the
        node, and ``log sigmoid(-z) = log sigmoid(z) - z``, so one ``log_expit`` over the thresholds gives
        every category.
        """
        n_thr = self._width - 1
        mask = self._threshold_mask()
        inner = self._inner(a, d, nodes)
        la = log_expit(inner)  # log P(x >= t), t = 1 .. n_thr
        lb = np.where(mask[:, :, None], la - inner, 0.0)  # log P(x < t); 0 where threshold t is absent
        with np.errstate(invalid="ignore", divide="ignore"):
            gap = np.log1p(-np.exp(d[:, 1:] - d[:, :-1]))  # (N, n_thr - 1)
        gap = np.where(mask[:, 1:], gap, 0.0)
        out = np.empty((a.shape[0], self._width, nodes.shape[0]))
        out[:, 0] = lb[:, 0]
        out[:, 1:n_thr] = la[:, :-1] + lb[:, 1:] + gap[:, :, None]
        out[:, n_thr] = la[:, -1]
        has_cat = np.arange(self._width)[None, :] < self._n_levels[:, None]
        out = np.where(has_cat[:, :, None] & np.isfinite(out), out, 0.0)
        return out.reshape(-1, nodes.shape[0])

    def _centres(self, a: np.ndarray, d: np.ndarray) -> tuple[float, float]:
        ok = self._n_levels >= 2
        return float(np.mean(np.log(np.maximum(a[ok], 1e-12)))), float(np.nanmean(d))

    def _log_prior(self, a: np.ndarray, d: np.ndarray, centres: tuple[float, float]) -> float:
        out = 0.0
        if np.isfinite(self.prior_a_sd):
            log_a = np.log(np.maximum(a[self._n_levels >= 2], 1e-12))
            out -= float(np.sum((log_a - centres[0]) ** 2)) / (2 * self.prior_a_sd**2)
        if np.isfinite(self.prior_d_sd):
            out -= float(np.nansum((d - centres[1]) ** 2)) / (2 * self.prior_d_sd**2)
        return out

    def _m_step(
        self, a: np.ndarray, d: np.ndarray, r: np.ndarray, nodes: np.ndarray, centres: tuple[float, float]
    ) -> tuple[np.ndarray, np.ndarray]:
        """Fisher-scoring steps on each item's expected log posterior; ``r`` is ``(N, width, K)``."""
        n_items, width = r.shape[0], self._width
        n_thr = width - 1
        mask = self._threshold_mask()
        has_cat = (np.arange(width)[None, :] < self._n_levels[:, None])[:, :, None]
        n_k = r.sum(axis=1)  # (N, K)
        p_dim = 1 + n_thr
        for _ in range(self.newton_steps):
            centres = self._centres(a, d)  # the floating centres move with the items (joint update)
            s = self._cum_probs(a, d, nodes)  # (N, width + 1, K)
            v = s * (1.0 - s)
            prob = np.maximum(s[:, :-1] - s[:, 1:], 1e-300)  # (N, width, K)
            dif = v[:, :-1] - v[:, 1:]  # dP_c / d(a q) for category c
            ratio = np.where(has_cat, r / prob, 0.0)
            grad = np.zeros((n_items, p_dim))
            grad[:, 0] = np.einsum("nck,nck,k->n", ratio, dif, nodes)
            # dl/dd_t = sum_k v_t (r_t / P_t - r_{t-1} / P_{t-1}), t = 1 .. width - 1
            grad[:, 1:] = np.einsum("ntk,ntk->nt", v[:, 1:width], ratio[:, 1:] - ratio[:, :-1])
            info = np.zeros((n_items, p_dim, p_dim))
            w = np.where(has_cat, n_k[:, None, :] / prob, 0.0)  # (N, width, K)
            info[:, 0, 0] = np.einsum("nck,nck,k->n", w, dif * dif, nodes * nodes)
            vt = v[:, 1:width]  # (N, n_thr, K)
            cross = np.einsum("ntk,ntk,k->nt", w[:, 1:] * dif[:, 1:] - w[:, :-1] * dif[:, :-1], vt, nodes)
            info[:, 0, 1:] = cross
            info[:, 1:, 0] = cross
            diag = np.einsum("ntk,ntk->nt", vt * vt, w[:, 1:] + w[:, :-1])
            idx = np.arange(n_thr)
            info[:, 1 + idx, 1 + idx] = diag
            if n_thr > 1:
                off = -np.einsum("ntk,ntk,ntk->nt", w[:, 1:-1], vt[:, :-1], vt[:, 1:])
                info[:, 1 + idx[:-1], 2 + idx[:-1]] = off
                info[:, 2 + idx[:-1], 1 + idx[:-1]] = off
            # Priors: log a ~ N(c_a, sd^2) (no Jacobian term), d ~ N(c_d, sd^2).
            if np.isfinite(self.prior_a_sd):
                va = self.prior_a_sd**2
                pos = np.maximum(a, 1e-12)
                grad[:, 0] -= (np.log(pos) - centres[0]) / (va * pos)
                info[:, 0, 0] += 1.0 / (va * pos * pos)
            if np.isfinite(self.prior_d_sd):
                vd = self.prior_d_sd**2
                grad[:, 1:] -= np.where(mask, d - centres[1], 0.0) / vd
                info[:, 1 + idx, 1 + idx] += 1.0 / vd
            # Thresholds an item does not have: identity rows, zero gradient.
            absent = ~mask
            grad[:, 1:][absent] = 0.0
            for t in range(n_thr):
                rows = absent[:, t]
                if rows.any():
                    info[rows, 1 + t, :] = 0.0
                    info[rows, :, 1 + t] = 0.0
                    info[rows, 1 + t, 1 + t] = 1.0
            step = np.linalg.solve(info, grad[:, :, None])[:, :, 0]
            big = np.abs(step).max(axis=1, keepdims=True)
            step = step * np.minimum(1.0, 2.0 / np.maximum(big, 1e-12))
            a, d = self._ordered_update(a, d, step, mask)
        return a, d

    @staticmethod
    def _ordered_update(
        a: np.ndarray, d: np.ndarray, step: np.ndarray, mask: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray]:
        """Apply ``step``, halving it per item until slopes stay positive and thresholds strictly decrease."""
        scale = np.ones(a.shape[0])
        for _ in range(20):
            a_new = a + scale * step[:, 0]
            d_new = np.where(mask, d + scale[:, None] * np.nan_to_num(step[:, 1:]), np.nan)
            ordered = ~mask[:, 1:] | (d_new[:, 1:] < d_new[:, :-1])
            bad = (a_new <= 0) | ~ordered.all(axis=1)
            if not bad.any():
                return a_new, d_new
            scale = np.where(bad, 0.5 * scale, scale)
        ordered = ~mask[:, 1:] | (d_new[:, 1:] < d_new[:, :-1])
        still = (a_new <= 0) | ~ordered.all(axis=1)
        return np.where(still, a, a_new), np.where(still[:, None], d, d_new)

    # ------------------------------------------------------------------ using a fitted model
    def _check_fitted(self) -> None:
        fitted = Check(
            lambda m: hasattr(m, "discrimination_"), "a fitted model (not fitted: call fit(X) first)"
        )
        check_param("this GradedResponse", self, [fitted], quote=False)

    def to_dict(self) -> dict[str, object]:
        """JSON-ready item parameters (slopes, thresholds, level values); :meth:`from_dict` reads them."""
        self._check_fitted()
        return {
            "max_categories": int(self.max_categories),
            "discrimination": [None if not np.isfinite(v) else float(v) for v in self.discrimination_],
            "thresholds": [
                [None if not np.isfinite(v) else float(v) for v in row] for row in self.thresholds_
            ],
            "levels": [lv.tolist() for lv in self.levels_],
        }

    @classmethod
    def from_dict(cls, state: dict[str, object]) -> GradedResponse:
        """A fitted model from :meth:`to_dict` (an item bank read back from disk), for scoring.

        Refused in one :class:`~benchsift.errors.InputError` naming the entry unless the scoring can use it
        (a damaged or forged bank file failed deep inside it, or scored on other levels): ``max_categories``
        an int >= 2; ``discrimination`` one slope per item, positive and finite, or NaN (null) for an item the
        fit left out; ``levels`` per item its level values, increasing, in [0, 1], at most ``max_categories``
        of them, and two or more exactly where the item has a slope (one item at least); ``thresholds`` one
        row per item, finite for each of a fitted item's levels but its first and NaN (null) past them."""
        from benchsift._inputs import check_array  # (here: only this reader needs it)

        if not isinstance(state, dict):
            raise InputError(f"graded response parameters: expected an object, got {type(state).__name__}")
        k = state.get("max_categories")
        if not isinstance(k, Integral) or isinstance(k, bool) or int(k) < 2:
            raise InputError(f"graded response max_categories: expected an int >= 2, got {k!r:.40}")
        a = check_array("graded response discrimination", state.get("discrimination"), ndim=1, finite=True)
        negative = ~(np.isnan(a) | (a > 0))
        if negative.any():
            first = float(a[negative][0])
            raise InputError(
                f"graded response discrimination: expected positive slopes (or NaN), got {first!r}"
            )
        thr = check_array("graded response thresholds", state.get("thresholds"), ndim=2, finite=True)
        check_shape(
            "graded response thresholds", thr.shape, (a.shape[0], "k"), what="one row per slope, shape"
        )
        raw = state.get("levels")
        if not isinstance(raw, (list, tuple)):
            raise InputError(f"graded response levels: expected a list per item, got {type(raw).__name__}")
        check_length("graded response levels", raw, a.shape[0], "arrays (one per slope)")
        levels = []
        for j, lv in enumerate(raw):
            v = check_array(f"graded response levels[{j}]", lv, ndim=1, low=0.0, high=1.0, nan=False)
            if v.size > int(k) or (np.diff(v) <= 0).any():
                want = f"at most {int(k)} increasing values"
                raise InputError(f"graded response levels[{j}]: expected {want}, got {v.tolist()}")
            levels.append(v)
        n_levels = np.array([lv.size for lv in levels], dtype=np.int64)
        fitted = np.isfinite(a)
        odd = np.flatnonzero(fitted != (n_levels >= 2))
        if odd.size or not fitted.any():
            got = (
                f"item {odd[0]}: slope {float(a[odd[0]])!r}, {n_levels[odd[0]]} levels"
                if odd.size
                else "none"
            )
            raise InputError(
                "graded response discrimination: expected a slope exactly for the items of two levels or "
                f"more (one at least), got {got}"
            )
        own = np.where(fitted, n_levels, 0)
        used = np.arange(thr.shape[1])[None, :] < (own - 1)[:, None]
        wrong = np.flatnonzero((np.isfinite(thr) != used).any(axis=1) | (own - 1 > thr.shape[1]))
        if wrong.size:
            j = int(wrong[0])
            raise InputError(
                "graded response thresholds: expected a finite value for each level of a fitted item but its "
                f"first and NaN past them, got {thr[j].tolist()} for item {j} of {n_levels[j]} levels"
            )
        model = cls(max_categories=int(k))
        model._width = int(own.max())
        model._n_levels = own
        model.discrimination_ = a
        model.thresholds_ = thr
        model.levels_ = levels
        return model

    def item_information(self, theta: np.ndarray, step: float = 1e-4) -> np.ndarray:
        """``(n, n_items)`` Fisher information ``sum_c P_c'(theta)^2 / P_c(theta)`` of each item (Samejima
        1969; Baker and Kim 2004, eq. 8.29), with ``P_c'`` by central differences of ``step``; 0 for an
        unfitted item."""
        theta = np.atleast_1d(np.asarray(theta, dtype=float))
        p = self.category_probabilities(theta)
        dp = (self.category_probabilities(theta + step) - self.category_probabilities(theta - step)) / (
            2 * step
        )
        with np.errstate(divide="ignore", invalid="ignore"):
            info = np.where(p > 1e-300, dp * dp / p, 0.0).sum(axis=2)
        info[:, ~np.isfinite(self.discrimination_)] = 0.0
        return info

    def category_probabilities(self, theta: np.ndarray, items: np.ndarray | None = None) -> np.ndarray:
        """``(n, n_items, width)``: ``P(x_j = c | theta)`` for each fitted item (0 past an item's levels);
        ``items``: only those item positions (as :meth:`TwoPL.predict_proba`)."""
        self._check_fitted()
        theta = np.atleast_1d(np.asarray(theta, dtype=float))
        idx = np.arange(len(self.levels_)) if items is None else np.asarray(items, dtype=np.int64)
        a = np.nan_to_num(self.discrimination_[idx])
        d = self.thresholds_[idx, : self._width - 1]
        s = self._cum_probs(a, d, theta)  # (N, width + 1, n)
        return np.transpose(s[:, :-1] - s[:, 1:], (2, 0, 1))

    def expected_score(self, theta: np.ndarray, items: np.ndarray | None = None) -> np.ndarray:
        """``(n, n_items)``: expected score ``sum_c level_jc P(x_j = c | theta)`` (NaN for unfitted items);
        ``items``: only those item positions."""
        idx = np.arange(len(self.levels_)) if items is None else np.asarray(items, dtype=np.int64)
        probs = self.category_probabilities(theta, idx)
        values = np.zeros((idx.size, self._width))
        for k, j in enumerate(idx):
            values[k, : self.levels_[j].size] = self.levels_[j]
        out = np.einsum("nic,ic->ni", probs, values)
        out[:, np.isnan(self.discrimination_[idx])] = np.nan
        return out

    def score(self, X: np.ndarray) -> AbilityEstimate:
        """EAP ability and posterior sd of respondents ``X`` (scores on the fitted items, in item order)."""
        self._check_fitted()
        Xf, obs = _check_responses(np.atleast_2d(X), name="new responses")
        check_shape("new responses", Xf.shape, ("n", len(self.levels_)), what="one column per item, shape")
        cats = np.full(Xf.shape, -1, dtype=np.int64)
        fitted = ~np.isnan(self.discrimination_)
        for j, lv in enumerate(self.levels_):
            rows = obs[:, j].astype(bool)
            if rows.any():
                # The nearest level (binned items: the nearest bin mean).
                cats[rows, j] = np.abs(Xf[rows, j][:, None] - lv[None, :]).argmin(axis=1)
        onehot = self._onehot(cats, self._width, fitted)
        a = np.nan_to_num(self.discrimination_, nan=1.0)
        d = self.thresholds_[:, : self._width - 1]
        _, _, mean, sd, _ = follow_posteriors(
            partial(self._loglik, onehot, a, d), _WIDE_GRID, self.points_per_sd, rebuilds=4
        )
        return AbilityEstimate(theta=mean, se=sd)
