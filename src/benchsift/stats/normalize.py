"""z-normalisation along an axis, NaN-aware (PRIMEBench Sec. 4.2, Eq. 3: category means of z-scores)."""

from __future__ import annotations

from numbers import Integral

import numpy as np
from numpy.typing import ArrayLike, NDArray

from benchsift._params import Interval, validate_params
from benchsift.stats._checks import as_float_array, move_axis

__all__ = ["zscore"]


@validate_params({"ddof": [Interval(Integral, 0, None)]})
def zscore(X: ArrayLike, axis: int | None = 0, ddof: int = 0) -> NDArray[np.float64]:
    r"""z-scores of ``X`` along ``axis``, ignoring NaN (which stays NaN).

    .. math:: z_{ij} = \frac{x_{ij} - \bar x_j}{s_j}, \quad
              s_j = \sqrt{\frac{1}{n_j - \mathrm{ddof}} \sum_i (x_{ij} - \bar x_j)^2}

    with :math:`n_j` the number of present values of the slice. ``axis=0`` normalises each column (e.g.
    each benchmark across models), ``axis=None`` the whole array. A slice that is constant (all present
    values equal) or has ``n_j <= ddof`` is undefined: all NaN. Equals ``scipy.stats.zscore(x, ddof=ddof,
    nan_policy="omit")`` on defined slices.
    """
    A = as_float_array(X, "X", min_ndim=1)
    if axis is None:
        return zscore(A.reshape(-1), axis=0, ddof=ddof).reshape(A.shape)
    B = move_axis(A, axis, 0)
    mask = ~np.isnan(B)
    count = mask.sum(axis=0)
    with np.errstate(invalid="ignore", divide="ignore"):
        mean = np.where(mask, B, 0.0).sum(axis=0) / count
        dev = np.where(mask, B - mean, np.nan)
        ss = np.where(mask, dev * dev, 0.0).sum(axis=0)
        sd = np.sqrt(ss / (count - ddof))
        lo = np.where(mask, B, np.inf).min(axis=0)
        hi = np.where(mask, B, -np.inf).max(axis=0)
        undefined = ~(hi > lo) | (count - ddof <= 0)
        sd = np.where(undefined, np.nan, sd)
        Z = dev / sd
    return np.moveaxis(Z, 0, axis)
