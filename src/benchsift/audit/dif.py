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
:math:`\beta_1, \beta_2` that keeps the estimates finite when a group answers every time).
:math:`\hat\beta_2` is the log odds ratio of a correct answer, group versus the others, at equal ability;
the test is one-sided, :math:`\beta_2 > 0` (the group finds the item *easier*).

**Matching ability** (``matching="irt"``, the default: the hybrid IRT / logistic-regression DIF of Crane
et al. 2006 and ``lordif``, Choi, Gibbons & Crane 2011). A 2PL model (:class:`benchsift.irt.TwoPL`,
marginal maximum likelihood) is fitted to the benchmark's criterion items and :math:`\theta_{mi}` is the
model's EAP ability (the 2PL fitted once to every item of the benchmark, the abilities scored on the
criterion items), the studied item left out by one Newton step from the EAP,
:math:`\theta_{m,-i} = \hat\theta_m - a_i (x_{mi} - \hat p_{mi}) / (\mathrm{sd}_m^{-2} - a_i^2 \hat p_{mi}
(1 - \hat p_{mi}))` (the item's share of the posterior score over the information that is left). Under a
2PL the logit of the item is linear in :math:`\theta` (:math:`a_i \theta + d_i`), so :math:`H_0` is the
item's own model; the logit of the rest score (``matching="rest-score"``,
:math:`\operatorname{logit}\frac{\sum_{j \ne i} x_{mj} + 1/2}{n_{m,-i} + 1}`, standardised) is only a
monotone proxy of :math:`\theta` whose curvature depends on the mix of slopes, and matching on an observed
score is known to inflate the Type-I error when the groups differ in ability (DeMars 2010): here they do,
newer models are abler.

**The test** (``test="rstar"``, the default). The signed likelihood root
:math:`r = \operatorname{sign}(\hat\beta_2) \sqrt{2(\ell_1 - \ell_0)}` is :math:`N(0, 1)` only to first
order; with 80 models and an item that few models get wrong (or right) its one-sided tail is too heavy
(on the audit test bed, matched on the *true* abilities, 1.3x the nominal share of null p-values below
0.01 and 0.001). The modified signed root of Barndorff-Nielsen (1986),

.. math:: r^* = r + \frac{1}{r} \log\frac{q}{r}, \qquad
          q = \hat\beta_2 \left(\frac{|j(\hat\beta)|}{|j_{\lambda\lambda}(\tilde\beta)|}\right)^{1/2},

is :math:`N(0, 1)` to third order; :math:`q` is the form for a canonical parameter of interest in a
linear exponential family (Pierce & Peters 1992; Brazzale, Davison & Reid 2007, Sec. 2.3 and 8.2), with
:math:`j` the observed information of the full fit :math:`\hat\beta` and :math:`j_{\lambda\lambda}` that of
the nuisance :math:`(\beta_0, \beta_1)` at the null fit :math:`\tilde\beta` (the penalised log-likelihood
and informations throughout). It approximates the conditional (exact) test of :math:`\beta_2` given the
sufficient statistics of the nuisance (for 0/1 data its mid-p; Pierce & Peters 1992), without the
enumeration of an exact test. The p-value is :math:`1 - \Phi(r^*)` (``test="lr"``: :math:`1 - \Phi(r)`,
the plain signed root of the unpenalised :math:`G^2`). For :math:`|r| < 0.05` the formula is 0/0 and
:math:`r` is used.

The criterion is purified (Clauser, Mazor & Hambleton 1993): items flagged in a first pass are left out of
the matching (the abilities are re-scored without them) and every item is tested again, until the flagged
items stop changing (at most three re-tests).

**Groups.** ``by="release_date"``: the newer era is the models released on or after ``cutoff`` (default:
the median release date of the dated models); undated models are left out. ``by="family"``: each family
with at least ``min_group`` models (and that many outside it) is tested against all other models; an
item's p-value is the smallest over the families times their number (Bonferroni within the item), and the
family that gives it is reported.

**Multiple testing.** The items' p-values are adjusted by Benjamini & Hochberg (1995) over all tested
items (:func:`benchsift.stats.bh_adjust`); an item is flagged ``dif`` when :math:`q_i \le \alpha`, so the
expected share of false flags among the flagged items is at most :math:`\alpha` (for independent or
positively dependent tests). Measured (``benchmarks/bench_audit_dif.py``, 20 seeds of the audit test bed):
see ``docs/AUDIT.md``.

References
----------
Barndorff-Nielsen, O. E. (1986). Inference on full or partial parameters based on the standardized signed
log likelihood ratio. *Biometrika* 73, 307-322.
Benjamini, Y. & Hochberg, Y. (1995). Controlling the false discovery rate: a practical and powerful
approach to multiple testing. *JRSS B* 57, 289-300.
Brazzale, A. R., Davison, A. C. & Reid, N. (2007). *Applied Asymptotics: Case Studies in Small-Sample
Statistics*. Cambridge University Press.
Choi, S. W., Gibbons, L. E. & Crane, P. K. (2011). lordif: an R package for detecting differential item
functioning using iterative hybrid ordinal logistic regression/item response theory and Monte Carlo
simulations. *Journal of Statistical Software* 39(8), 1-30.
Clauser, B., Mazor, K. & Hambleton, R. K. (1993). The effects of purification of the matching criterion on
the identification of DIF using the Mantel-Haenszel procedure. *Applied Measurement in Education* 6,
269-279.
Crane, P. K., Gibbons, L. E., Jolley, L. & van Belle, G. (2006). Differential item functioning analysis
with ordinal logistic regression techniques: DIFdetect and difwithpar. *Medical Care* 44, S115-S123.
DeMars, C. E. (2010). Type I error inflation for detecting DIF in the presence of impact. *Educational and
Psychological Measurement* 70, 961-972.
Pierce, D. A. & Peters, D. (1992). Practical use of higher order asymptotics for multiparameter
exponential families. *JRSS B* 54, 701-737.
Swaminathan, H. & Rogers, H. J. (1990). Detecting differential item functioning using logistic regression
procedures. *Journal of Educational Measurement* 27, 361-370.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy import stats
from scipy.special import expit

from benchsift._params import Options, check_param
from benchsift.irt import TwoPL

__all__ = [
    "DIF_MATCHING",
    "DIF_TESTS",
    "DifTest",
    "irt_ability",
    "logistic_dif",
    "matching_ability",
    "modified_signed_root",
]

RIDGE = 1e-2
DEGREE = 1
MAX_ITER = 50
TOL = 1e-8
#: EM tolerance of the matching 2PL fit (largest item-parameter change; the abilities it gives move by
#: well under their posterior sd)
IRT_TOL = 1e-3
#: below this :math:`|r|` the modified root is 0/0 and the plain root is used
R_SMALL = 0.05
#: what ``matching`` accepts: a 2PL ability, or the logit of the rest score
DIF_MATCHING = ("irt", "rest-score")
#: what ``test`` accepts: the modified signed root, or the plain signed likelihood root
DIF_TESTS = ("rstar", "lr")


@dataclass(frozen=True)
class DifTest:
    """Per-item result of :func:`logistic_dif` (arrays over the columns; NaN where not tested)."""

    coef: np.ndarray  #: :math:`\hat\beta_2`, log odds ratio group vs the rest at equal ability
    g2: np.ndarray  #: likelihood-ratio statistic (penalised for ``test="rstar"``)
    p_greater: np.ndarray  #: one-sided p-value of :math:`\beta_2 > 0`
    n_models: np.ndarray  #: models used (scored the item, group known)


def irt_ability(X: np.ndarray, criterion: np.ndarray | None = None, model: TwoPL | None = None) -> np.ndarray:
    """``(M, N)`` 2PL matching ability :math:`\\theta_{m,-i}` (module docstring): the EAP ability on the
    ``criterion`` items (default all; all when fewer than two are given) of a :class:`~benchsift.irt.TwoPL`
    fitted to every column of ``X`` (``model``, or fitted here with ``tol`` :data:`IRT_TOL`), the studied
    item left out by one Newton step where it is a criterion item.

    The item parameters come from the one fit; the purified passes of the audit re-score the abilities
    without the flagged items (their responses no longer move the matching), which costs an EAP, not a fit.
    NaN where model ``m`` did not score item ``i`` or scored no other criterion item.
    """
    X = np.asarray(X, dtype=np.float64)
    obs = ~np.isnan(X)
    crit = np.ones(X.shape[1], dtype=bool) if criterion is None else np.asarray(criterion, dtype=bool)
    if crit.sum() < 2:
        crit = np.ones(X.shape[1], dtype=bool)
    if model is None:
        model = TwoPL(tol=IRT_TOL).fit(X)
    idx = np.flatnonzero(crit)
    Xc = X[:, idx]
    est = model.score(Xc, items=idx)
    theta, sd = est.theta, est.se
    out = np.repeat(theta[:, None], X.shape[1], axis=1)
    a, d = model.discrimination_[idx], model.intercept_[idx]
    p = expit(np.outer(theta, a) + d)
    left = np.maximum(1.0 / sd[:, None] ** 2 - a * a * p * (1.0 - p), 1.0)  # >= the prior's precision
    obs_c = obs[:, idx]
    out[:, idx] = theta[:, None] - np.where(obs_c, a * (np.where(obs_c, Xc, 0.0) - p) / left, 0.0)
    n_crit = obs_c.sum(axis=1, keepdims=True) - np.where(crit[None, :], obs, False)
    return np.where(obs & (n_crit > 0), out, np.nan)


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


def _information(Z: np.ndarray, w: np.ndarray, beta: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(mu, j)``: fitted probabilities ``(N, M)`` and the information ``(N, p, p)`` of the penalised
    objective of :func:`_fit` at ``beta`` (observed = expected for the canonical logit link)."""
    p = Z.shape[2]
    pen = np.full(p, RIDGE)
    pen[0] = 0.0
    mu = 1.0 / (1.0 + np.exp(-(Z @ beta[..., None])[..., 0]))
    H = np.matmul(Z.transpose(0, 2, 1), Z * (w * mu * (1.0 - mu))[..., None]) + np.diag(pen + 1e-9)
    return mu, H


def _fit(Z: np.ndarray, y: np.ndarray, w: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Batched ridge-penalised logistic regression (Newton-Raphson): ``Z (N, M, p)``, ``y, w (N, M)``;
    returns the log-likelihood at the fit ``(N,)`` (without the penalty) and the coefficients ``(N, p)``."""
    n_items, _, p = Z.shape
    beta = np.zeros((n_items, p))
    pen = np.full(p, RIDGE)
    pen[0] = 0.0
    Zt = Z.transpose(0, 2, 1)
    for _ in range(MAX_ITER):
        mu, H = _information(Z, w, beta)
        grad = (Zt @ (w * (y - mu))[..., None])[..., 0] - pen * beta
        step = np.linalg.solve(H, grad[..., None])[..., 0]
        big = np.abs(step).max(axis=1, keepdims=True)
        step = np.where(big > 5.0, step * 5.0 / np.maximum(big, 1e-300), step)
        beta = beta + step
        if float(np.abs(step).max(initial=0.0)) < TOL:
            break
    eta = (Z @ beta[..., None])[..., 0]
    ll = (w * (y * eta - np.logaddexp(0.0, eta))).sum(axis=1)
    return np.asarray(ll), beta


def _penalty(beta: np.ndarray) -> np.ndarray:
    """The ridge term ``RIDGE / 2 * sum(beta[1:]^2)`` of :func:`_fit`'s objective, ``(N,)``."""
    return np.asarray(0.5 * RIDGE * (beta[:, 1:] ** 2).sum(axis=1))


def _log_det_information(Z: np.ndarray, w: np.ndarray, beta: np.ndarray) -> np.ndarray:
    """``log |j(beta)|`` of the penalised objective of :func:`_fit`, ``(N,)``."""
    return np.asarray(np.linalg.slogdet(_information(Z, w, beta)[1])[1])


def modified_signed_root(r: np.ndarray, q: np.ndarray, small: float = R_SMALL) -> np.ndarray:
    r"""Barndorff-Nielsen's modified signed likelihood root :math:`r^* = r + \log(q / r) / r` (module
    docstring); ``r`` itself where :math:`|r| <` ``small`` (the formula is 0/0 there; one-sided p-values are
    within 0.02 of 1/2) or where ``q`` and ``r`` differ in sign."""
    r = np.asarray(r, dtype=np.float64)
    q = np.asarray(q, dtype=np.float64)
    ok = (np.abs(r) >= small) & (q * r > 0)
    safe_r = np.where(ok, r, 1.0)
    return np.where(ok, r + np.log(np.where(ok, q, 1.0) / safe_r) / safe_r, r)


def logistic_dif(
    X: np.ndarray, theta: np.ndarray, group: np.ndarray, min_count: int = 2, test: str = "rstar"
) -> DifTest:
    """Uniform logistic-regression DIF of every column of ``X`` (0/1 scores, NaN missing) for the 0/1
    ``group`` (``(M,)``, NaN: unknown, left out) matched on ``theta`` (``(M, N)``, :func:`irt_ability` or
    :func:`matching_ability`).

    ``test``: ``"rstar"`` (default) the one-sided p-value of the modified signed root :math:`r^*`,
    ``"lr"`` that of the plain signed likelihood root (module docstring). An item is tested when at least
    ``min_count`` of its models are right, ``min_count`` wrong, and each group has at least ``min_count``
    models that scored it; otherwise its entries are NaN.
    """
    check_param("test", test, [Options(DIF_TESTS)])
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
        Z0, Z1 = np.stack(base, axis=2), np.stack([*base, gg], axis=2)
        ll0, b0 = _fit(Z0, yy, ww)
        ll1, b1 = _fit(Z1, yy, ww)
        b2 = b1[:, -1]
        if test == "lr":
            stat = np.maximum(2.0 * (ll1 - ll0), 0.0)
            root = np.sign(b2) * np.sqrt(stat)
        else:
            stat = np.maximum(2.0 * ((ll1 - _penalty(b1)) - (ll0 - _penalty(b0))), 0.0)
            r = np.sign(b2) * np.sqrt(stat)
            q = b2 * np.exp(0.5 * (_log_det_information(Z1, ww, b1) - _log_det_information(Z0, ww, b0)))
            root = modified_signed_root(r, q)
        coef[cols] = b2
        g2[cols] = stat
        p[cols] = stats.norm.sf(root)
    return DifTest(coef=coef, g2=g2, p_greater=p, n_models=w.sum(axis=0).astype(np.int64))
