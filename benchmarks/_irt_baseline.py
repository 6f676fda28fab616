"""The simple baseline for benchsift's 2PL fit (issue 36): vectorised numpy MML-EM on a fixed grid.

What a good numpy programmer writes in ~25 lines: Bock-Aitkin EM on a fixed, evenly spaced grid with N(0, 1)
weights; the E-step is two BLAS products per cycle (``X @ Z`` for the log-likelihood with ``Z_jk = a_j q_k +
d_j``, ``X.T @ post`` for the expected counts) and a log-sum-exp posterior; the M-step is two Newton steps on
the expected complete-data log-likelihood of every item at once (closed-form 2 x 2 systems). No adaptive grid,
no parameter expansion of the latent scale, no interpolated item sums: those are what benchsift adds.
Complete (NaN-free) panels only.

Choices, each checked on simulated 200 x 3,000 panels (seeds 0-2, theta ~ N(0, 1), a ~ U(0.6, 2.2),
b ~ N(0, 1); RMSE of a / b / theta):

* Grid: 81 nodes on [-4, 4] (step 0.1). With 3,000 items a posterior sd is ~0.03, so each posterior sits on
  one or two nodes and the step sets the ability error: mirt's 61 nodes on [-6, 6] (step 0.2) gave theta
  0.065 / 0.127 / 0.070, this grid 0.043 / 0.127 / 0.041 at about twice the cycles; 61 Gauss-Hermite nodes
  (0.4 apart near 0) 0.23 / 0.24 / 0.16 with a and b worse too; a step of 0.05 no better (0.049 / 0.114 /
  0.046) but 2-7x the cycles, EM crawling along the latent scale once the posteriors can move on the grid.
* Start: slopes from the item-total biserial correlation rho (``a = 1.702 rho / sqrt(1 - rho^2)``,
  ``d = 1.702 Phi^-1(p) / sqrt(1 - rho^2)``), the classical normal-ogive approximation. EM barely moves the
  latent scale when posteriors are sharp, so the start sets it: from a = 1 every fit ends with abilities
  ~1.4x too spread (theta RMSE 0.44-0.45, a 0.49).
* Priors: ``log a ~ N(mean log a, 0.5^2)`` with the centre re-estimated (floating), ``d ~ N(0, 10^2)``. They
  keep items that nearly everyone passes (or fails) from running off (``b = -d / a`` explodes as a -> 0;
  without them b's RMSE reached 3.6 on seed 1). A prior with a fixed centre (``a ~ N(1, 1)``) or one on the
  linear scale (``a ~ N(mean a, 1)``) pulls the whole latent scale, as 3,000 items outweigh 200 respondents'
  N(0, 1): abilities 1.3-2x too spread. Centred on the log scale it is blind to the scale.
* Stop: largest change of any a or d in a cycle below ``tol`` = 1e-4 (benchsift's rule), or ``max_cycles``.
"""

from __future__ import annotations

import numpy as np
from scipy.special import logsumexp, ndtri


def fit_numpy_2pl(
    X: np.ndarray, n_nodes: int = 81, span: float = 4.0, max_cycles: int = 500, tol: float = 1e-4
) -> dict:
    """2PL ``P(x = 1) = sigmoid(a theta + d)``, ``theta ~ N(0, 1)``; returns a, b, d, EAP theta, cycles."""
    X = np.asarray(X, dtype=np.float64)
    q = np.linspace(-span, span, n_nodes)
    log_w = -0.5 * q**2 - logsumexp(-0.5 * q**2)
    p = X.mean(axis=0).clip(0.02, 0.98)
    z = (X.sum(axis=1) - X.sum(axis=1).mean()) / X.sum(axis=1).std()
    rho = ((X - p).T @ z / len(z) / np.exp(-0.5 * ndtri(p) ** 2) * np.sqrt(2 * np.pi)).clip(0.05, 0.95)
    u, d = np.log(1.702 * rho / np.sqrt(1 - rho**2)), 1.702 * ndtri(p) / np.sqrt(1 - rho**2)  # u = log a

    def log_lik(u: np.ndarray, d: np.ndarray) -> np.ndarray:  # respondents x nodes, prior included
        Z = np.exp(u)[:, None] * q + d[:, None]
        ll = X @ Z - np.logaddexp(0, Z).sum(axis=0) + log_w
        return ll - logsumexp(ll, axis=1, keepdims=True)

    cycles, converged = 0, False
    while cycles < max_cycles and not converged:
        cycles += 1
        a_old, d_old = np.exp(u), d.copy()
        post = np.exp(log_lik(u, d))
        r, n = X.T @ post, post.sum(axis=0)  # expected passes per item and node, respondents per node
        for _ in range(2):  # Newton in (log a, d) on sum_k r_jk z_jk - n_k softplus(z_jk) + log priors
            a = np.exp(u)
            P = 1 / (1 + np.exp(-(a[:, None] * q + d[:, None])))
            res, W = r - n * P, n * P * (1 - P)
            gu, gd = a * (res @ q) - (u - u.mean()) / 0.25, res.sum(axis=1) - d / 100
            huu, hud, hdd = a**2 * (W @ q**2) + 1 / 0.25, a * (W @ q), W.sum(axis=1) + 1 / 100  # -Hessian
            det = huu * hdd - hud**2
            u = u + np.clip((hdd * gu - hud * gd) / det, -1, 1)
            d = d + np.clip((huu * gd - hud * gu) / det, -2, 2)
        converged = max(np.abs(np.exp(u) - a_old).max(), np.abs(d - d_old).max()) < tol
    a = np.exp(u)
    theta = np.exp(log_lik(u, d)) @ q  # EAP on the grid
    return {"a": a, "b": -d / a, "d": d, "theta": theta, "iters": cycles, "converged": converged}
