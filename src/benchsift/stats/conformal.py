r"""The split-conformal quantile: the half-width of an interval from held-out nonconformity scores.

Given ``n`` exchangeable nonconformity scores :math:`s_1, \dots, s_n` (for an interval around an estimate,
the absolute out-of-fold residuals :math:`|y_i - \hat y_i|`) and a new one :math:`s_{n+1}` from the same
distribution, the :math:`k`-th smallest, :math:`k = \lceil (n + 1)\,\alpha \rceil`, bounds the new score with
probability at least :math:`\alpha`:

.. math:: P\big(s_{n+1} \le s_{(k)}\big) \ge \frac{k}{n + 1} \ge \alpha,

(Vovk, Gammerman and Shafer 2005, *Algorithmic Learning in a Random World*, ch. 2; Lei, G'Sell, Rinaldo,
Tibshirani and Wasserman 2018, "Distribution-free predictive inference for regression", JASA 113(523),
Theorem 2.2). When :math:`k > n` (fewer than :math:`\alpha / (1 - \alpha)` scores: 19 at 95 %) no finite
half-width has that guarantee: :func:`conformal_quantile` returns ``inf`` and the callers choose what to do.
"""

from __future__ import annotations

import math

import numpy as np

__all__ = ["conformal_quantile", "conformal_rank"]


def conformal_rank(n: int, level: float) -> int:
    """``ceil((n + 1) level)``: which of ``n`` sorted scores is the split-conformal quantile at ``level``
    (none when it exceeds ``n``)."""
    return math.ceil((int(n) + 1) * float(level))


def conformal_quantile(scores: np.ndarray, level: float) -> float:
    """The :func:`conformal_rank`-th smallest of the finite ``scores`` (NaN and infinities left out);
    ``inf`` when there is none or the rank exceeds their number."""
    s = np.asarray(scores, dtype=np.float64).reshape(-1)
    r = np.sort(s[np.isfinite(s)])
    k = conformal_rank(r.shape[0], level)
    return math.inf if r.shape[0] == 0 or k > r.shape[0] else float(r[k - 1])
