r"""A multidimensional logistic factor model (compensatory MIRT) and the posterior mean of a full score.

The model (the compensatory multidimensional 2PL, Reckase 2009, "Multidimensional Item Response Theory",
Springer, Eq. 4.5; the same likelihood as logistic PCA, Collins, Dasgupta & Schapire 2001)::

    P(x_mj = 1 | theta_m) = sigmoid(theta_m . a_j + d_j),   theta_m, a_j in R^D.

:class:`LogisticFactor` fits it by joint maximum a posteriori over every ability, loading and intercept
(L-BFGS on the penalised log-likelihood, NaN cells left out):

.. math:: \min_{\Theta, A, d}\; -\sum_{(m, j)\ \text{observed}} \big[x_{mj} z_{mj} - \log(1 + e^{z_{mj}})\big]
          + \frac{\lVert\Theta\rVert^2}{2 s_\theta^2} + \frac{\lVert A\rVert^2}{2 s_a^2}
          + \frac{\lVert d\rVert^2}{2 s_d^2}, \qquad z = \Theta A^\top + d,

started from the leading singular vectors of the centred score matrix (deterministic: no random start).
The latent axes are identified only up to a rotation, which no prediction below depends on.

What it is for (:mod:`benchsift.compression.full_score`, estimator ``factor``): a new model's full score
from its answers on a few suite items. A 2PL's single ability leaves what the items share beyond it to the
item curves' misfit; with ``D = 3`` factors fitted on all items of the reference models, a held-out
model's full score from its *every* answer is off by 0.0095 on MMT-Bench against 0.0157 with one ability
(60/40 split, seed 0). From a few items the ability is poorly determined, and plugging a point estimate into
the curves is biased (shrinkage), so the full score is the **posterior mean** instead,

.. math:: \hat Z = \frac{1}{N}\Big(\sum_{j \in S} y_j + \mathbb{E}\Big[\sum_{j \notin S}
          \sigma(\theta \cdot a_j + d_j) \,\Big|\, y_S\Big]\Big),

with the prior of :math:`\theta` the reference models' own abilities, smoothed (a Gaussian kernel density
of bandwidth ``h`` times their covariance; Silverman 1986, ch. 4), and the expectation by importance
sampling from that prior: ``n_samples`` draws (seeded), each weighted by its likelihood of ``y_S``
(:func:`posterior_weights`). The prior keeps a new model among the abilities the reference models span:
it does not extrapolate, which is why ``full_score`` uses it only for models inside the reference abilities.

Cost: fitting ``O(M N D)`` per L-BFGS evaluation (at most ``max_iter``); scoring ``O(n_samples |S| D)``
per new model plus ``O(n_samples N D)`` once for the items off the suite.
"""

from __future__ import annotations

from numbers import Integral
from typing import ClassVar

import numpy as np
from scipy.optimize import minimize

from benchsift._params import ConstraintLike, Interval, check_params
from benchsift._threads import single_thread
from benchsift.errors import DegenerateError
from benchsift.irt.twopl import _POSITIVE, _check_responses, _expit, _softplus

__all__ = ["LogisticFactor", "ability_samples", "expected_correct", "posterior_weights"]


class LogisticFactor:
    """Compensatory multidimensional 2PL fitted by joint MAP (see the module docstring).

    Parameters
    ----------
    n_factors:
        Dimension ``D`` of the abilities and loadings.
    prior_theta_sd, prior_a_sd, prior_d_sd:
        sd of the normal priors (centred at 0) of every ability, loading and intercept.
    max_iter:
        Most L-BFGS iterations (``converged_`` says whether it stopped before).

    Attributes
    ----------
    theta_:
        ``(n_respondents, D)`` abilities of the respondents it was fitted on.
    loadings_, intercept_:
        ``(n_items, D)`` slopes ``a_j`` and ``(n_items,)`` intercepts ``d_j``.
    n_iter_, converged_:
        L-BFGS iterations and whether it converged.
    """

    theta_: np.ndarray
    loadings_: np.ndarray
    intercept_: np.ndarray

    _parameter_constraints: ClassVar[dict[str, list[ConstraintLike]]] = {
        "n_factors": [Interval(Integral, 1, None)],
        "prior_theta_sd": [_POSITIVE],
        "prior_a_sd": [_POSITIVE],
        "prior_d_sd": [_POSITIVE],
        "max_iter": [Interval(Integral, 1, None)],
    }

    def __init__(
        self,
        n_factors: int = 3,
        prior_theta_sd: float = 1.0,
        prior_a_sd: float = 1.0,
        prior_d_sd: float = 3.0,
        max_iter: int = 500,
    ) -> None:
        self.n_factors = n_factors
        self.prior_theta_sd = prior_theta_sd
        self.prior_a_sd = prior_a_sd
        self.prior_d_sd = prior_d_sd
        self.max_iter = max_iter

    def fit(self, X: np.ndarray) -> LogisticFactor:
        """Fit to ``X`` (respondents x items, values in [0, 1], NaN = missing), one BLAS thread."""
        check_params(self._parameter_constraints, vars(self), owner="LogisticFactor")
        y, w = _check_responses(X)  # (the 2PL's check: values in [0, 1] or NaN; missing as 0 with weight 0)
        if y.shape[0] < 2 or y.shape[1] < 1:
            raise DegenerateError(f"factor model: needs at least 2 respondents and 1 item, got {y.shape}")
        with single_thread():
            self._fit(y, w)
        return self

    def _fit(self, y: np.ndarray, w: np.ndarray) -> None:
        """Joint MAP from the responses ``y`` (missing as 0) and their weights ``w`` (1 observed, 0 not)."""
        n, N = y.shape
        D = int(self.n_factors)
        lt, la, ld = (1.0 / float(s) ** 2 for s in (self.prior_theta_sd, self.prior_a_sd, self.prior_d_sd))
        p = np.clip((y.sum(axis=0) + 0.5) / (w.sum(axis=0) + 1.0), 0.01, 0.99)
        d0 = np.log(p / (1 - p))
        U, s, Vt = np.linalg.svd(np.where(w > 0, y - p, 0.0), full_matrices=False)
        k = min(D, s.shape[0])
        sign = np.sign(Vt[:k][np.arange(k), np.argmax(np.abs(Vt[:k]), axis=1)])  # a fixed sign per axis
        T0 = np.zeros((n, D))
        A0 = np.zeros((N, D))
        T0[:, :k] = U[:, :k] * sign * np.sqrt(n)
        A0[:, :k] = (Vt[:k].T * sign) * s[:k] / np.sqrt(n) * 4.0  # (logit slope ~ 4 x the linear one)

        def objective(v: np.ndarray) -> tuple[float, np.ndarray]:
            T = v[: n * D].reshape(n, D)
            A = v[n * D : n * D + N * D].reshape(N, D)
            d = v[n * D + N * D :]
            z = T @ A.T + d
            # y log sigma(z) + (1 - y) log sigma(-z) = y z - softplus(z); then sigma(z) in z's own memory
            # (twopl's vectorised exp / log1p: 4x faster than scipy's log_expit twice and expit, within 1 ulp)
            ll = float((w * (y * z - _softplus(z.copy()))).sum())
            r = w * (y - _expit(z))
            f = -ll + 0.5 * (lt * (T * T).sum() + la * (A * A).sum() + ld * (d * d).sum())
            grad = np.concatenate(
                [(-(r @ A) + lt * T).ravel(), (-(r.T @ T) + la * A).ravel(), -r.sum(axis=0) + ld * d]
            )
            return f, grad

        res = minimize(
            objective,
            np.concatenate([T0.ravel(), A0.ravel(), d0]),
            jac=True,
            method="L-BFGS-B",
            options={"maxiter": int(self.max_iter)},
        )
        v = res.x
        self.theta_ = v[: n * D].reshape(n, D).copy()
        self.loadings_ = v[n * D : n * D + N * D].reshape(N, D).copy()
        self.intercept_ = v[n * D + N * D :].copy()
        self.n_iter_ = int(res.nit)
        self.converged_ = bool(res.success)


def ability_samples(theta: np.ndarray, n_samples: int, bandwidth: float, seed: int) -> np.ndarray:
    """``(n_samples, D)`` draws from the Gaussian kernel density of the abilities ``theta`` (``(n, D)``): a
    row drawn at random plus ``N(0, bandwidth^2 Cov(theta))`` noise (the smoothed bootstrap; the covariance's
    Cholesky factor, with a tiny ridge, so that a degenerate spread still samples); ``seed`` seeds
    ``numpy.random.default_rng``."""
    t = np.asarray(theta, dtype=np.float64)
    rng = np.random.default_rng(int(seed))
    D = t.shape[1]
    cov = np.atleast_2d(np.cov(t.T)) if t.shape[0] > 1 else np.zeros((D, D))
    L = np.linalg.cholesky(cov + 1e-9 * np.eye(D))
    rows = rng.integers(0, t.shape[0], size=int(n_samples))
    return t[rows] + float(bandwidth) * rng.standard_normal((int(n_samples), D)) @ L.T


def expected_correct(
    samples: np.ndarray, loadings: np.ndarray, intercept: np.ndarray, block: int = 256
) -> np.ndarray:
    """``(n_samples,)``: for each ability draw, the expected number of items answered correctly,
    ``sum_j sigma(theta_s . a_j + d_j)``, over the items of ``loadings`` / ``intercept`` (``block`` draws at
    a time, so the memory is ``block`` x items)."""
    step = int(block)
    if step < 1:
        raise ValueError(f"block: expected a positive number of draws, got {block!r}")
    t = np.asarray(samples, dtype=np.float64)
    A, d = np.asarray(loadings, dtype=np.float64), np.asarray(intercept, dtype=np.float64)
    out = np.zeros(t.shape[0])
    for s in range(0, t.shape[0], step):
        out[s : s + step] = _expit(t[s : s + step] @ A.T + d).sum(axis=1)
    return out


def posterior_weights(
    X: np.ndarray, loadings: np.ndarray, intercept: np.ndarray, samples: np.ndarray
) -> np.ndarray:
    """``(n, n_samples)`` normalised likelihood weights of each prior draw for each row of ``X`` (answers on
    the items of ``loadings`` / ``intercept``, NaN = not answered): self-normalised importance sampling from
    the prior the draws come from. A row with no answer gets equal weights (the prior)."""
    Xa = np.asarray(X, dtype=np.float64)
    seen = ~np.isnan(Xa)
    z = samples @ np.asarray(loadings, dtype=np.float64).T + np.asarray(intercept, dtype=np.float64)
    # sum_j x log sigma(z) + (1 - x) log sigma(-z) = sum_j x z - softplus(z) over the answered items
    ll = np.where(seen, Xa, 0.0) @ z.T
    ll -= seen.astype(np.float64) @ _softplus(z).T
    ll -= ll.max(axis=1, keepdims=True)
    w = np.exp(ll)
    return w / w.sum(axis=1, keepdims=True)
