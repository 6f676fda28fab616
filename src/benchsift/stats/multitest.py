"""Multiple-testing corrections: Benjamini-Hochberg (FDR), Holm and Bonferroni (FWER), NaN kept in place."""

from __future__ import annotations

from collections.abc import Callable
from typing import Literal

import numpy as np
from numpy.typing import ArrayLike, NDArray

from benchsift._params import Options, validate_params
from benchsift.errors import InputError
from benchsift.stats._checks import OPEN_UNIT, as_float_array

__all__ = ["bh_adjust", "bonferroni_adjust", "holm_adjust", "reject"]

Method = Literal["bh", "holm", "bonferroni", "none"]


def _pvalues(p: ArrayLike) -> NDArray[np.float64]:
    P = as_float_array(p, "p")
    present = P[~np.isnan(P)]
    if present.size and (present.min() < 0.0 or present.max() > 1.0):
        raise InputError(
            f"p: expected p-values in [0, 1] (NaN for missing), got range [{present.min()}, {present.max()}]"
        )
    return P


def _step_adjust(
    p: ArrayLike, step: Callable[[NDArray[np.float64], int], NDArray[np.float64]]
) -> NDArray[np.float64]:
    """A step-wise adjustment: ``step(sorted present p-values, m)`` gives the adjusted values in sorted
    order (capped at 1 here); NaN entries stay NaN and do not count in ``m``."""
    P = _pvalues(p)
    flat = P.reshape(-1)
    out = np.full(flat.shape, np.nan)
    present = np.flatnonzero(~np.isnan(flat))
    m = present.size
    if m == 0:
        return out.reshape(P.shape)
    order = np.argsort(flat[present], kind="stable")
    out[present[order]] = np.minimum(step(flat[present][order], m), 1.0)
    return out.reshape(P.shape)


def bh_adjust(p: ArrayLike) -> NDArray[np.float64]:
    r"""Benjamini-Hochberg adjusted p-values (step-up, FDR), same shape as ``p``.

    With the :math:`m` present p-values sorted, :math:`p_{(1)} \le \dots \le p_{(m)}`,

    .. math:: q_{(i)} = \min\Bigl(1, \min_{j \ge i} \frac{m}{j} p_{(j)}\Bigr),

    monotone in :math:`p`. NaN entries stay NaN and do not count in :math:`m`. Equals
    ``scipy.stats.false_discovery_control(p, method="bh")`` on NaN-free input.
    """
    return _step_adjust(p, lambda s, m: np.minimum.accumulate((s * m / np.arange(1, m + 1))[::-1])[::-1])


def bonferroni_adjust(p: ArrayLike) -> NDArray[np.float64]:
    r"""Bonferroni adjusted p-values :math:`\min(1, m p)`, :math:`m` the number of present p-values.

    NaN entries stay NaN and do not count in :math:`m`.
    """
    P = _pvalues(p)
    m = int((~np.isnan(P)).sum())
    return np.minimum(P * m, 1.0)


def holm_adjust(p: ArrayLike) -> NDArray[np.float64]:
    r"""Holm (1979) step-down adjusted p-values (family-wise error), same shape as ``p``.

    With the :math:`m` present p-values sorted, :math:`p_{(1)} \le \dots \le p_{(m)}`,

    .. math:: \tilde p_{(i)} = \min\Bigl(1, \max_{j \le i} (m - j + 1)\, p_{(j)}\Bigr).

    Rejecting where :math:`\tilde p \le \alpha` controls the family-wise error rate at :math:`\alpha`
    under any dependence, and rejects at least what Bonferroni rejects. NaN entries stay NaN and do not
    count in :math:`m`. Equals ``statsmodels.stats.multitest.multipletests(p, method="holm")[1]``
    (Holm, S. 1979, "A simple sequentially rejective multiple test procedure", Scand. J. Statist. 6).
    """
    return _step_adjust(p, lambda s, m: np.maximum.accumulate(s * (m - np.arange(m))))


@validate_params({"alpha": [OPEN_UNIT], "method": [Options(["bh", "holm", "bonferroni", "none"])]})
def reject(p: ArrayLike, alpha: float = 0.05, method: Method | str = "bh") -> NDArray[np.bool_]:
    """Boolean mask of rejected hypotheses: adjusted p-value ``<= alpha``; NaN is never rejected.

    ``method``: ``"bh"`` (Benjamini-Hochberg), ``"holm"``, ``"bonferroni"`` or ``"none"`` (raw p-values).
    """
    if method == "bh":
        adj = bh_adjust(p)
    elif method == "holm":
        adj = holm_adjust(p)
    elif method == "bonferroni":
        adj = bonferroni_adjust(p)
    else:  # "none"
        adj = _pvalues(p)
    with np.errstate(invalid="ignore"):
        return np.asarray(adj <= alpha) & ~np.isnan(adj)
