r"""Item discrimination: the corrected item-total (item-rest) correlation with a Fisher-z confidence measure.

For benchmark items :math:`j = 1..n` and models :math:`m`, the rest score of model :math:`m` for item
:math:`i` is its mean over its *other* scored items of the benchmark,

.. math:: R_{mi} = \frac{1}{|J_{mi}|} \sum_{j \in J_{mi}} x_{mj}, \qquad
          J_{mi} = \{j \ne i: x_{mj} \ne \mathrm{NaN}\},

and the item's discrimination is the Pearson correlation :math:`r_i = \mathrm{corr}_m(x_{mi}, R_{mi})` over
the models that scored item :math:`i` (for 0/1 scores the point-biserial correlation; leaving the item out
of the total removes the part-whole inflation, Lord & Novick 1968, Sec. 15.3; Henrysson 1963). A good item
has :math:`r_i > 0`: stronger models answer it more often. An item with :math:`r_i < 0` is answered
*less* often by stronger models, the signature of a wrong answer key or an ambiguous question.

Confidence (Fisher 1921): :math:`z_i = \operatorname{artanh} r_i` is approximately normal with standard
error :math:`1 / \sqrt{n_i - 3}` (:math:`n_i` the models that scored the item), giving the interval
:math:`\tanh(z_i \pm z_{1-\alpha/2} / \sqrt{n_i - 3})` and the one-sided p-value of
:math:`H_0: \rho_i \ge 0` against :math:`\rho_i < 0`, :math:`p_i = \Phi(z_i \sqrt{n_i - 3})`. The audit
ranks items by :math:`p_i` and flags ``negative-discrimination`` where the adjusted :math:`q_i \le \alpha`.

Most items of a benchmark discriminate well, so most null p-values are close to 1 (uniformly conservative)
and plain Benjamini-Hochberg over all items loses power. The adjustment is therefore the conditional
Benjamini-Hochberg of Zhao, Small & Su (2019): only the items with :math:`p_i \le \tau = 1/2` (here: with
:math:`r_i < 0`) are tested, with the conditional p-values :math:`p_i / \tau`, which are valid
(super-uniform) for every :math:`\rho_i \ge 0` because the Fisher z is a normal location family; the
false discovery rate over the flagged items stays at most :math:`\alpha`. It also flags
``low-discrimination`` where the item is not negative but the whole interval lies below
``min_discrimination`` (near-zero: the item barely separates the models).

References
----------
Fisher, R. A. (1921). On the "probable error" of a coefficient of correlation deduced from a small sample.
*Metron* 1, 3-32.
Henrysson, S. (1963). Correction of item-total correlations in item analysis. *Psychometrika* 28, 211-218.
Lord, F. M. & Novick, M. R. (1968). *Statistical Theories of Mental Test Scores*. Addison-Wesley.
Zhao, Q., Small, D. S. & Su, W. (2019). Multiple testing when many p-values are uniformly conservative, with
application to testing qualitative interaction in educational interventions. *JASA* 114, 1291-1304.
"""

from __future__ import annotations

import numpy as np
from scipy import stats

from benchsift.stats import bh_adjust

#: conditioning threshold of :func:`conditional_bh` (Zhao, Small & Su 2019, their tau)
TAU = 0.5

__all__ = ["conditional_bh", "fisher_z_interval", "item_rest_correlation", "negative_discrimination_pvalue"]


def item_rest_correlation(X: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Item-rest correlation :math:`r_i` of every column of ``X`` and the number of models it is computed on.

    Parameters
    ----------
    X:
        ``(n_models, n_items)`` scores of one benchmark, NaN for missing.

    Returns
    -------
    (r, n):
        ``r`` is NaN where fewer than 3 models scored the item besides another item, or where the item or
        its rest score is constant over those models; ``n`` counts the models used.
    """
    X = np.asarray(X, dtype=np.float64)
    obs = ~np.isnan(X)
    X0 = np.where(obs, X, 0.0)
    total = X0.sum(axis=1, keepdims=True)
    count = obs.sum(axis=1, keepdims=True)
    valid = obs & (count > 1)
    with np.errstate(invalid="ignore", divide="ignore"):
        rest = np.where(valid, (total - X0) / np.maximum(count - 1, 1), 0.0)
    w = valid.astype(np.float64)
    n = w.sum(axis=0)
    safe_n = np.maximum(n, 1.0)
    mx = (X0 * w).sum(axis=0) / safe_n
    mr = (rest * w).sum(axis=0) / safe_n
    dx = (X0 - mx) * w
    dr = (rest - mr) * w
    sxx = (dx * dx).sum(axis=0)
    srr = (dr * dr).sum(axis=0)
    sxr = (dx * dr).sum(axis=0)
    scale = np.maximum(sxx.max(initial=0.0), srr.max(initial=0.0)) * 1e-12
    undefined = (n < 3) | (sxx <= scale) | (srr <= scale)
    with np.errstate(invalid="ignore", divide="ignore"):
        r = np.where(undefined, np.nan, sxr / np.sqrt(np.where(undefined, 1.0, sxx * srr)))
    return np.clip(r, -1.0, 1.0), n.astype(np.int64)


def _z(r: np.ndarray) -> np.ndarray:
    return np.arctanh(np.clip(r, -1.0 + 1e-12, 1.0 - 1e-12))


def fisher_z_interval(r: np.ndarray, n: np.ndarray, level: float = 0.95) -> tuple[np.ndarray, np.ndarray]:
    r"""Fisher-z confidence interval :math:`\tanh(\operatorname{artanh} r \pm z_{(1+level)/2} / \sqrt{n-3})`;
    NaN where ``r`` is NaN or ``n <= 3``."""
    r = np.asarray(r, dtype=np.float64)
    n = np.asarray(n, dtype=np.float64)
    ok = np.isfinite(r) & (n > 3)
    half = stats.norm.ppf(0.5 + level / 2) / np.sqrt(np.where(ok, n - 3, 1.0))
    z = _z(np.where(ok, r, 0.0))
    return np.where(ok, np.tanh(z - half), np.nan), np.where(ok, np.tanh(z + half), np.nan)


def negative_discrimination_pvalue(r: np.ndarray, n: np.ndarray) -> np.ndarray:
    r"""One-sided p-value of :math:`H_0: \rho \ge 0` against :math:`\rho < 0`,
    :math:`\Phi(\operatorname{artanh}(r) \sqrt{n - 3})`; NaN where ``r`` is NaN or ``n <= 3``."""
    r = np.asarray(r, dtype=np.float64)
    n = np.asarray(n, dtype=np.float64)
    ok = np.isfinite(r) & (n > 3)
    stat = _z(np.where(ok, r, 0.0)) * np.sqrt(np.where(ok, n - 3, 1.0))
    return np.where(ok, stats.norm.cdf(stat), np.nan)


def conditional_bh(p: np.ndarray, tau: float = TAU) -> np.ndarray:
    """Conditional Benjamini-Hochberg q-values (Zhao, Small & Su 2019): BH over ``p / tau`` of the p-values
    ``<= tau``; every other entry (and NaN) is NaN (not tested)."""
    p = np.asarray(p, dtype=np.float64)
    out = np.full(p.shape, np.nan)
    tested = np.isfinite(p) & (p <= tau)
    if tested.any():
        out[tested] = bh_adjust(p[tested] / tau)
    return out
