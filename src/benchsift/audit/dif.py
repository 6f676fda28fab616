r"""Differential item functioning (DIF) by release era or model family: a contamination signal.

An item functions differently for a group of models when, *at equal ability*, the group answers it more
often. Newer models (or one family) that find an item easier than their ability says have likely seen it
(or its answer) in training data: contamination.

**Logistic-regression DIF** (Swaminathan & Rogers 1990). For item :math:`i` and the models :math:`m` that
scored it, with the matching ability :math:`\theta_{mi}` and the group indicator :math:`g_m \in \{0, 1\}`
(1: the newer era, or the tested family),

.. math:: H_0: \operatorname{logit} P(x_{mi} = 1) = \beta_0 + \beta_1 \theta_{mi}, \qquad
          H_1: \operatorname{logit} P(x_{mi} = 1) = \beta_0 + \beta_1 \theta_{mi} + \beta_2 g_m,

fitted by maximum likelihood (Newton-Raphson, all items at once, with a small ridge ``1e-2`` on
:math:`\beta_1, \beta_2` that keeps the estimates finite when a group answers every time). The likelihood-
ratio statistic :math:`G^2 = 2(\ell_1 - \ell_0)` is :math:`\chi^2_1` under :math:`H_0` (uniform DIF); the
one-sided p-value of :math:`\beta_2 > 0` (the group finds the item *easier*) is
:math:`1 - \Phi(\operatorname{sign}(\hat\beta_2) \sqrt{G^2})`. :math:`\hat\beta_2` is the log odds ratio
of a correct answer, group versus the others, at equal ability.

The matching ability is the logit of the model's rest score on the benchmark,
:math:`\theta_{mi} = \operatorname{logit}\frac{\sum_{j \ne i} x_{mj} + 1/2}{n_{m,-i} + 1}` (other scored
items :math:`j` of the benchmark; standardised over the models), so the studied item does not match on
itself. The criterion is purified (Clauser, Mazor & Hambleton 1993): items flagged in a first pass are left
out of the rest scores and every item is tested again, until the flagged items stop changing (at most three
re-tests).

**Groups.** ``by="release_date"``: the newer era is the models released on or after ``cutoff`` (default:
the median release date of the dated models); undated models are left out. ``by="family"``: each family
with at least ``min_group`` models (and that many outside it) is tested against all other models; an
item's p-value is the smallest over the families times their number (Bonferroni within the item), and the
family that gives it is reported.

**Multiple testing.** The items' p-values are adjusted by Benjamini & Hochberg (1995) over all tested
items (:func:`benchsift.stats.bh_adjust`); an item is flagged ``dif`` when :math:`q_i \le \alpha`, so the
expected share of false flags among the flagged items is at most :math:`\alpha` (for independent or
positively dependent tests).

References
----------
Benjamini, Y. & Hochberg, Y. (1995). Controlling the false discovery rate: a practical and powerful
approach to multiple testing. *JRSS B* 57, 289-300.
Clauser, B., Mazor, K. & Hambleton, R. K. (1993). The effects of purification of the matching criterion on
the identification of DIF using the Mantel-Haenszel procedure. *Applied Measurement in Education* 6,
269-279.
Swaminathan, H. & Rogers, H. J. (1990). Detecting differential item functioning using logistic regression
procedures. *Journal of Educational Measurement* 27, 361-370.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy import stats

__all__ = ["DifTest", "logistic_dif", "matching_ability"]

RIDGE = 1e-2
DEGREE = 1
MAX_ITER = 50
TOL = 1e-8


@dataclass(frozen=True)
class DifTest:
    """Per-item result of :func:`logistic_dif` (arrays over the columns; NaN where not tested)."""

    coef: np.ndarray  #: :math:`\hat\beta_2`, log odds ratio group vs the rest at equal ability
    g2: np.ndarray  #: likelihood-ratio statistic
    p_greater: np.ndarray  #: one-sided p-value of :math:`\beta_2 > 0`
    n_models: np.ndarray  #: models used (scored the item, group known)


def matching_ability(X: np.ndarray, criterion: np.ndarray | None = None) -> np.ndarray:
    """``(M, N)`` matching ability :math:`\\theta_{mi}` (module docstring): the standardised logit of model
    ``m``'s rest score over the ``criterion`` items (default all), the item itself left out."""
    X = np.asarray(X, dtype=np.float64)
    obs = ~np.isnan(X)
    crit = np.ones(X.shape[1], dtype=bool) if criterion is None else np.asarray(criterion, dtype=bool)
    X0 = np.where(obs, X, 0.0)
    in_c = obs & crit[None, :]
    total = (X0 * in_c).sum(axis=1, keepdims=True)
    count = in_c.sum(axis=1, keepdims=True).astype(np.float64)
    own = np.where(in_c, X0, 0.0)
    rest_n = count - in_c
    prop = (total - own + 0.5) / (rest_n + 1.0)
    theta = np.log(prop) - np.log1p(-prop)
    valid = obs & (rest_n > 0)
    if valid.any():
        mu, sd = theta[valid].mean(), theta[valid].std()
        theta = (theta - mu) / (sd if sd > 0 else 1.0)
    return np.where(valid, theta, np.nan)


def _fit(Z: np.ndarray, y: np.ndarray, w: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Batched ridge-penalised logistic regression (Newton-Raphson): ``Z (N, M, p)``, ``y, w (N, M)``;
    returns the log-likelihood at the fit ``(N,)`` (without the penalty) and the coefficients ``(N, p)``."""
    n_items, _, p = Z.shape
    beta = np.zeros((n_items, p))
    pen = np.full(p, RIDGE)
    pen[0] = 0.0
    for _ in range(MAX_ITER):
        eta = np.einsum("nmp,np->nm", Z, beta)
        mu = 1.0 / (1.0 + np.exp(-eta))
        grad = np.einsum("nmp,nm->np", Z, w * (y - mu)) - pen * beta
        H = np.einsum("nmp,nm,nmq->npq", Z, w * mu * (1.0 - mu), Z) + np.diag(pen + 1e-9)
        step = np.linalg.solve(H, grad[..., None])[..., 0]
        big = np.abs(step).max(axis=1, keepdims=True)
        step = np.where(big > 5.0, step * 5.0 / np.maximum(big, 1e-300), step)
        beta = beta + step
        if float(np.abs(step).max(initial=0.0)) < TOL:
            break
    eta = np.einsum("nmp,np->nm", Z, beta)
    ll = (w * (y * eta - np.logaddexp(0.0, eta))).sum(axis=1)
    return np.asarray(ll), beta


def logistic_dif(X: np.ndarray, theta: np.ndarray, group: np.ndarray, min_count: int = 2) -> DifTest:
    """Uniform logistic-regression DIF of every column of ``X`` (0/1 scores, NaN missing) for the 0/1
    ``group`` (``(M,)``, NaN: unknown, left out) matched on ``theta`` (``(M, N)``, :func:`matching_ability`).

    An item is tested when at least ``min_count`` of its models are right, ``min_count`` wrong, and each
    group has at least ``min_count`` models that scored it; otherwise its entries are NaN.
    """
    X = np.asarray(X, dtype=np.float64)
    g = np.asarray(group, dtype=np.float64)
    n_models, n_items = X.shape
    w = (~np.isnan(X) & ~np.isnan(theta) & ~np.isnan(g)[:, None]).astype(np.float64)
    y = np.where(w > 0, X, 0.0)
    g0 = np.where(np.isnan(g), 0.0, g)
    right = (y * w).sum(axis=0)
    wrong = ((1.0 - y) * w).sum(axis=0)
    in_g = (w * g0[:, None]).sum(axis=0)
    out_g = (w * (1.0 - g0[:, None])).sum(axis=0)
    testable = (np.minimum(right, wrong) >= min_count) & (np.minimum(in_g, out_g) >= min_count)
    nan = np.full(n_items, np.nan)
    coef, g2, p = nan.copy(), nan.copy(), nan.copy()
    cols = np.flatnonzero(testable)
    if cols.size:
        t = np.where(w[:, cols] > 0, theta[:, cols], 0.0).T  # (n, M)
        ones = np.ones_like(t)
        gg = np.broadcast_to(g0[None, :], t.shape)
        yy, ww = y[:, cols].T, w[:, cols].T
        base = [ones, t] + [t**k for k in range(2, DEGREE + 1)]
        ll0, _ = _fit(np.stack(base, axis=2), yy, ww)
        ll1, b1 = _fit(np.stack([*base, gg], axis=2), yy, ww)
        stat = np.maximum(2.0 * (ll1 - ll0), 0.0)
        coef[cols] = b1[:, -1]
        g2[cols] = stat
        p[cols] = stats.norm.sf(np.sign(b1[:, -1]) * np.sqrt(stat))
    return DifTest(coef=coef, g2=g2, p_greater=p, n_models=w.sum(axis=0).astype(np.int64))
