"""A fast two-parameter logistic (2PL) IRT model fitted by marginal maximum likelihood (EM).

The model (Birnbaum's 2PL in slope-intercept form)::

    P(x_mj = 1 | theta_m) = sigmoid(a_j * theta_m + d_j),   difficulty b_j = -d_j / a_j,
    theta_m ~ N(0, 1).

It is fitted by the Bock-Aitkin EM algorithm over a fixed Gauss-Hermite quadrature grid
``q_1..q_K`` with weights ``w_k`` of the standard normal:

* E-step: the posterior of each respondent ("model" in benchsift, i.e. a VLM) over the grid,
  ``R_mk ∝ w_k prod_{j observed} P_jk^x_mj (1 - P_jk)^(1 - x_mj)``, computed in log space as two matrix
  products ``X @ log P^T + (O - X) @ log(1 - P)^T`` (``O`` the observed-cell mask, so missing cells simply
  drop out of the likelihood), then the expected counts ``n_jk = O^T R`` and ``r_jk = X^T R``.
* M-step: for every item at once, a few Newton steps on
  ``sum_k r_jk log P_jk + (n_jk - r_jk) log(1 - P_jk) + log prior(a_j, d_j)`` with a 2 x 2 Hessian per item
  (solved in closed form, vectorised over items).

The weak prior ``a_j ~ N(1, prior_a_sd^2)``, ``d_j ~ N(0, prior_d_sd^2)`` keeps items that every respondent
gets right (or wrong) finite; it is the usual Bayes-modal ("MAP") treatment, as in ``mirt``'s priors.
The likelihood is invariant to reflecting the latent scale (theta -> -theta, a -> -a); the fit is anchored
so that ability correlates positively with the raw mean score.

Respondents are scored by the expected a posteriori (EAP) ability and its posterior standard deviation,
both over the same grid (:meth:`TwoPL.score`), which also scores new respondents against fitted items.

Cost per EM iteration: O(M N K) for M respondents, N items, K grid points (two matrix products), so a
169 x 3,088 matrix with K = 41 takes a few milliseconds per iteration.

Reference: R. D. Bock and M. Aitkin (1981), "Marginal maximum likelihood estimation of item parameters:
application of an EM algorithm", Psychometrika 46(4). Used for the IRT 2PL selector of PRIMEBench
(Appendix D.1, after metabench, Kipnis et al. 2025) and the p-IRT estimator of tinyBenchmarks.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.special import expit, log_expit

from benchsift.errors import DegenerateError, InputError


@dataclass(frozen=True)
class AbilityEstimate:
    """EAP ability estimates: ``theta`` (posterior mean) and ``se`` (posterior sd), one per respondent."""

    theta: np.ndarray
    se: np.ndarray


def _quadrature(n_points: int) -> tuple[np.ndarray, np.ndarray]:
    nodes, weights = np.polynomial.hermite_e.hermegauss(n_points)
    return nodes, weights / weights.sum()


def _check_responses(X: np.ndarray, name: str = "responses") -> tuple[np.ndarray, np.ndarray]:
    arr = np.asarray(X, dtype=np.float64)
    if arr.ndim != 2:
        raise InputError(f"{name}: expected a 2-D respondents x items matrix, got shape {arr.shape}")
    obs = ~np.isnan(arr)
    with np.errstate(invalid="ignore"):
        bad = obs & ((arr < 0) | (arr > 1))
    if bad.any():
        m, j = np.argwhere(bad)[0]
        raise InputError(
            f"{name}: responses must be in [0, 1] (NaN = missing); row {m}, item {j} is {arr[m, j]}"
        )
    return np.where(obs, arr, 0.0), obs.astype(np.float64)


class TwoPL:
    """Two-parameter logistic IRT model, marginal maximum likelihood by EM (see the module docstring).

    Parameters
    ----------
    n_quadrature:
        Number of Gauss-Hermite grid points for the N(0, 1) ability distribution.
    max_iter, tol:
        EM stops when the largest change of any item parameter is below ``tol`` or after ``max_iter``
        iterations (``converged_`` says which).
    newton_steps:
        Newton steps per M-step.
    prior_a_sd, prior_d_sd:
        Standard deviations of the weak normal priors ``a ~ N(1, sd^2)`` and ``d ~ N(0, sd^2)``; ``inf``
        switches a prior off.

    Attributes
    ----------
    discrimination_, intercept_, difficulty_:
        ``a_j``, ``d_j`` and ``b_j = -d_j / a_j`` per item.
    theta_, theta_se_:
        EAP ability and posterior sd of the respondents the model was fitted on.
    n_iter_, converged_, objective_:
        EM iterations, whether ``tol`` was reached, and the log marginal posterior after each iteration.
    """

    def __init__(
        self,
        n_quadrature: int = 41,
        max_iter: int = 500,
        tol: float = 1e-4,
        newton_steps: int = 2,
        prior_a_sd: float = 2.0,
        prior_d_sd: float = 3.0,
    ) -> None:
        self.n_quadrature = n_quadrature
        self.max_iter = max_iter
        self.tol = tol
        self.newton_steps = newton_steps
        self.prior_a_sd = prior_a_sd
        self.prior_d_sd = prior_d_sd

    # ------------------------------------------------------------------ fitting
    def fit(self, X: np.ndarray) -> TwoPL:
        """Fit item parameters to ``X`` (respondents x items, values in [0, 1], NaN = missing)."""
        Xf, obs = _check_responses(X)
        n_resp, n_items = Xf.shape
        if n_resp < 2:
            raise DegenerateError(f"2PL fit needs at least 2 respondents, got {n_resp}")
        if self.n_quadrature < 5:
            raise InputError(f"n_quadrature must be at least 5, got {self.n_quadrature}")
        nodes, weights = _quadrature(self.n_quadrature)
        log_w = np.log(weights)

        # Start: a = 1, d from the logit of the observed mean (clipped).
        n_obs = obs.sum(axis=0)
        p_item = np.where(n_obs > 0, Xf.sum(axis=0) / np.maximum(n_obs, 1), 0.5)
        p_item = np.clip(p_item, 0.02, 0.98)
        a = np.ones(n_items)
        d = np.log(p_item / (1 - p_item)) * 1.7
        objective: list[float] = []
        converged = False
        it = 0
        for it in range(1, self.max_iter + 1):  # noqa: B007 - `it` is the iteration count after the loop
            post, log_marg = self._posterior(Xf, obs, a, d, nodes, log_w)
            objective.append(float(log_marg.sum() + self._log_prior(a, d).sum()))
            n_jk = obs.T @ post  # expected respondents at each grid point, per item
            r_jk = Xf.T @ post  # expected correct responses at each grid point, per item
            a_new, d_new = self._m_step(a, d, n_jk, r_jk, nodes)
            change = max(np.abs(a_new - a).max(initial=0.0), np.abs(d_new - d).max(initial=0.0))
            a, d = a_new, d_new
            if change < self.tol:
                converged = True
                break

        # Anchor the sign of the latent scale: ability must rise with the raw mean score.
        est = self._eap(Xf, obs, a, d, nodes, log_w)
        raw = np.where(obs.sum(axis=1) > 0, Xf.sum(axis=1) / np.maximum(obs.sum(axis=1), 1), np.nan)
        ok = ~np.isnan(raw)
        if ok.sum() >= 2 and np.std(raw[ok]) > 0 and np.corrcoef(est.theta[ok], raw[ok])[0, 1] < 0:
            a = -a
            est = AbilityEstimate(theta=-est.theta, se=est.se)

        self.discrimination_ = a
        self.intercept_ = d
        with np.errstate(divide="ignore", invalid="ignore"):
            self.difficulty_ = np.where(a != 0, -d / a, np.nan)
        self.theta_ = est.theta
        self.theta_se_ = est.se
        self.n_iter_ = it
        self.converged_ = converged
        self.objective_ = np.asarray(objective)
        self.nodes_ = nodes
        self.log_weights_ = log_w
        return self

    def _log_prior(self, a: np.ndarray, d: np.ndarray) -> np.ndarray:
        out = np.zeros_like(a)
        if np.isfinite(self.prior_a_sd):
            out -= (a - 1.0) ** 2 / (2 * self.prior_a_sd**2)
        if np.isfinite(self.prior_d_sd):
            out -= d**2 / (2 * self.prior_d_sd**2)
        return out

    @staticmethod
    def _log_lik_grid(
        Xf: np.ndarray, obs: np.ndarray, a: np.ndarray, d: np.ndarray, nodes: np.ndarray
    ) -> np.ndarray:
        """``(n_resp, K)`` log-likelihood of each respondent's observed responses at each grid point."""
        z = np.outer(a, nodes) + d[:, None]  # (items, K)
        return Xf @ log_expit(z) + (obs - Xf) @ log_expit(-z)

    def _posterior(
        self,
        Xf: np.ndarray,
        obs: np.ndarray,
        a: np.ndarray,
        d: np.ndarray,
        nodes: np.ndarray,
        log_w: np.ndarray,
    ) -> tuple[np.ndarray, np.ndarray]:
        log_joint = self._log_lik_grid(Xf, obs, a, d, nodes) + log_w
        top = log_joint.max(axis=1, keepdims=True)
        joint = np.exp(log_joint - top)
        total = joint.sum(axis=1, keepdims=True)
        return joint / total, (np.log(total) + top).ravel()

    def _m_step(
        self, a: np.ndarray, d: np.ndarray, n_jk: np.ndarray, r_jk: np.ndarray, nodes: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray]:
        inv_va = 0.0 if not np.isfinite(self.prior_a_sd) else 1.0 / self.prior_a_sd**2
        inv_vd = 0.0 if not np.isfinite(self.prior_d_sd) else 1.0 / self.prior_d_sd**2
        q = nodes[None, :]
        for _ in range(self.newton_steps):
            p = expit(np.outer(a, nodes) + d[:, None])
            resid = r_jk - n_jk * p
            info = n_jk * p * (1 - p)
            g_a = (resid * q).sum(axis=1) - (a - 1.0) * inv_va
            g_d = resid.sum(axis=1) - d * inv_vd
            h_aa = (info * q * q).sum(axis=1) + inv_va
            h_ad = (info * q).sum(axis=1)
            h_dd = info.sum(axis=1) + inv_vd
            det = h_aa * h_dd - h_ad**2
            safe = det > 1e-10
            det = np.where(safe, det, 1.0)
            step_a = np.where(safe, (h_dd * g_a - h_ad * g_d) / det, 0.0)
            step_d = np.where(safe, (h_aa * g_d - h_ad * g_a) / det, 0.0)
            # Damp very large steps (early iterations on near-perfect items).
            scale = np.minimum(1.0, 2.0 / np.maximum(np.abs(step_a), np.abs(step_d)).clip(min=1e-12))
            a = a + scale * step_a
            d = d + scale * step_d
        return a, d

    def _eap(
        self,
        Xf: np.ndarray,
        obs: np.ndarray,
        a: np.ndarray,
        d: np.ndarray,
        nodes: np.ndarray,
        log_w: np.ndarray,
    ) -> AbilityEstimate:
        post, _ = self._posterior(Xf, obs, a, d, nodes, log_w)
        mean = post @ nodes
        var = post @ nodes**2 - mean**2
        return AbilityEstimate(theta=mean, se=np.sqrt(np.maximum(var, 0.0)))

    # ------------------------------------------------------------------ using a fitted model
    def _check_fitted(self) -> None:
        if not hasattr(self, "discrimination_"):
            raise InputError("this TwoPL model is not fitted yet; call fit(X) first")

    def score(self, X: np.ndarray, items: np.ndarray | None = None) -> AbilityEstimate:
        """EAP ability (and posterior sd) of respondents ``X`` on the fitted items.

        ``items`` gives the fitted item positions that the columns of ``X`` correspond to (default: all
        fitted items, in order), so a new model evaluated on a subset of items can be scored.
        """
        self._check_fitted()
        idx = np.arange(len(self.discrimination_)) if items is None else np.asarray(items)
        Xf, obs = _check_responses(np.atleast_2d(X), name="new responses")
        if Xf.shape[1] != len(idx):
            raise InputError(f"new responses have {Xf.shape[1]} items, expected {len(idx)}")
        return self._eap(
            Xf, obs, self.discrimination_[idx], self.intercept_[idx], self.nodes_, self.log_weights_
        )

    def predict_proba(self, theta: np.ndarray, items: np.ndarray | None = None) -> np.ndarray:
        """``P(correct)`` for abilities ``theta`` (n,) on the fitted items: an (n, n_items) matrix."""
        self._check_fitted()
        idx = np.arange(len(self.discrimination_)) if items is None else np.asarray(items)
        theta = np.atleast_1d(np.asarray(theta, dtype=float))
        return expit(np.outer(theta, self.discrimination_[idx]) + self.intercept_[idx])

    def item_information(self, theta: np.ndarray) -> np.ndarray:
        """Fisher information ``a_j^2 P (1 - P)`` of each item at abilities ``theta``: (n, n_items)."""
        p = self.predict_proba(theta)
        return self.discrimination_**2 * p * (1 - p)
