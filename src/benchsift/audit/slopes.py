r"""Item discrimination as a fitted 2PL slope, with a Wald confidence measure (``discrimination="2pl"``).

The alternative to the item-rest correlation of :mod:`benchsift.audit.discrimination`: a two-parameter
logistic model :math:`P(x_{mj} = 1 \mid \theta_m) = \sigma(a_j \theta_m + d_j)`, :math:`\theta_m \sim
N(0, 1)`, fitted to the benchmark by marginal maximum likelihood (:class:`benchsift.irt.TwoPL`) with the
*normal* slope prior :math:`a_j \sim N(c_a, \mathrm{sd}_a^2)` (floating centre :math:`c_a`, BILOG-MG's
``FLOAT``; Mislevy 1986), which, unlike the default log-normal prior, lets a slope be negative: a
mislabelled key is an item with :math:`a_j < 0`. The slope is on the ability scale (the change of the
log-odds per sd of ability), so it does not shrink with the item's difficulty as a correlation does.

Confidence (Wald). The item's information about :math:`(a_j, d_j)` at the fit is

.. math:: I_j = \sum_m E\!\left[p_{mj}(\theta)(1 - p_{mj}(\theta)) \begin{pmatrix}\theta^2 & \theta\\
          \theta & 1\end{pmatrix}\right] + \begin{pmatrix}\mathrm{sd}_a^{-2} & 0\\ 0 & \mathrm{sd}_d^{-2}
          \end{pmatrix},

the sum over the models that scored the item, the expectation over each model's ability posterior
(approximated by the normal with its EAP and posterior sd, 9-point Gauss-Hermite), plus the priors'
curvature (a Bayes-modal fit). This is the complete-data information of the EM fit (Bock & Aitkin 1981);
it leaves out the information lost to the uncertain abilities (Louis 1982), small when every model answers
hundreds of items (posterior sds ~0.1). :math:`\mathrm{se}(a_j) = \sqrt{(I_j^{-1})_{aa}}`, the interval
:math:`a_j \pm z_{(1+level)/2}\, \mathrm{se}` and the one-sided p-value of :math:`H_0: a_j \ge 0` against
:math:`a_j < 0`, :math:`\Phi(a_j / \mathrm{se}(a_j))`, a normal location family like the Fisher z, so the
conditional Benjamini-Hochberg of :func:`benchsift.audit.discrimination.conditional_bh` applies unchanged.

References
----------
Bock, R. D. & Aitkin, M. (1981). Marginal maximum likelihood estimation of item parameters: application of
an EM algorithm. *Psychometrika* 46, 443-459.
Louis, T. A. (1982). Finding the observed information matrix when using the EM algorithm. *JRSS B* 44,
226-233.
Mislevy, R. J. (1986). Bayes modal estimation in item response models. *Psychometrika* 51, 177-195.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy import stats
from scipy.special import expit

from benchsift.irt import TwoPL

__all__ = ["PRIOR_A_SD", "ItemSlopes", "twopl_slopes"]

#: sd of the normal slope prior: wide enough that 80 models' data, not the prior, decide the sign of a slope
PRIOR_A_SD = 2.0
#: EM tolerance of the fit (largest change of an item parameter)
TOL = 1e-3
#: Gauss-Hermite nodes of the posterior expectation in the information
NODES = 9


@dataclass(frozen=True)
class ItemSlopes:
    """Per-item result of :func:`twopl_slopes` (arrays over the columns; NaN where undefined)."""

    slope: np.ndarray  #: fitted 2PL slope :math:`a_j`
    se: np.ndarray  #: Wald standard error of the slope
    low: np.ndarray  #: lower end of the ``level`` interval
    high: np.ndarray  #: upper end of the ``level`` interval
    p_negative: np.ndarray  #: one-sided p-value of :math:`a_j < 0`
    n_models: np.ndarray  #: models that scored the item


def twopl_slopes(X: np.ndarray, level: float = 0.95) -> ItemSlopes:
    """Fit a 2PL with the normal slope prior to ``X`` (``(n_models, n_items)`` scores in [0, 1], NaN
    missing) and return each item's slope with its Wald standard error, interval and one-sided p-value of a
    negative slope (module docstring). Items that fewer than 3 models scored, or that every model scored
    alike, are NaN."""
    X = np.asarray(X, dtype=np.float64)
    obs = ~np.isnan(X)
    model = TwoPL(a_prior="normal", prior_a_sd=PRIOR_A_SD, tol=TOL).fit(X)
    a, d = model.discrimination_, model.intercept_
    theta, sd = model.theta_, model.theta_se_
    nodes, weights = np.polynomial.hermite_e.hermegauss(NODES)
    weights = weights / weights.sum()
    i_aa = np.zeros(X.shape[1])
    i_ad = np.zeros(X.shape[1])
    i_dd = np.zeros(X.shape[1])
    w_obs = obs.astype(np.float64)
    for z, w in zip(nodes, weights, strict=True):
        t = theta + z * sd  # (M,)
        p = expit(np.outer(t, a) + d)
        pq = w * w_obs * p * (1.0 - p)
        i_dd += pq.sum(axis=0)
        i_ad += t @ pq
        i_aa += (t * t) @ pq
    i_aa += 1.0 / PRIOR_A_SD**2
    i_dd += 1.0 / model.prior_d_sd**2
    det = i_aa * i_dd - i_ad**2
    se = np.sqrt(i_dd / det)
    n = obs.sum(axis=0)
    x0 = np.where(obs, X, 0.0)
    mean = x0.sum(axis=0) / np.maximum(n, 1)
    spread = (np.where(obs, (x0 - mean) ** 2, 0.0)).sum(axis=0)
    ok = (n >= 3) & (spread > 0)
    half = stats.norm.ppf(0.5 + level / 2) * se
    nan = np.full(X.shape[1], np.nan)
    return ItemSlopes(
        slope=np.where(ok, a, nan),
        se=np.where(ok, se, nan),
        low=np.where(ok, a - half, nan),
        high=np.where(ok, a + half, nan),
        p_negative=np.where(ok, stats.norm.cdf(a / se), nan),
        n_models=n.astype(np.int64),
    )
