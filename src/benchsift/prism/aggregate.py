"""PScore and the alternative aggregators of PRISM-VLM Sec. 3, Sec. 5.3 and App. E.1.

- PScore, the harmonic mean (Eq. 1): ``PScore(m) = |A| / sum_a 1 / s_a``
- weighted harmonic mean (Eq. 3): ``PScore_w(m) = sum_a w_a / sum_a (w_a / s_a)``, ``w_a >= 0``
- arithmetic ``mean_a s_a``, geometric ``exp(mean_a log s_a)``, minimum ``min_a s_a`` (Table 17)
- effective weights (Eq. 2): ``w_a = (1 / s_a^2) / sum_b (1 / s_b^2)`` (the normalised sensitivity
  ``dPScore / ds_a = PScore^2 / (|A| s_a^2)``)
- the dominant axis of a model: its lowest axis mean (Sec. 5.2, Table 15).

Inputs are axis means ``(n_models, n_axes)`` in [0, 1]. A model with a NaN axis mean gets NaN. An axis
mean of exactly 0 makes the harmonic mean (and Eq. 2) undefined: :class:`DegenerateError` names the
model and the axis, instead of returning inf or 0 (the paper's pool has min s_a = 0.011, Sec. 3).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike, NDArray

from benchsift._inputs import check_array, check_shape
from benchsift._params import Options, validate_params
from benchsift.errors import DegenerateError, InputError

__all__ = [
    "AGGREGATORS",
    "aggregate",
    "aggregate_frame",
    "arithmetic_mean",
    "dominant_axis",
    "dominant_axis_counts",
    "effective_weights",
    "geometric_mean",
    "min_aggregate",
    "pscore",
    "weighted_pscore",
]

FloatArray = NDArray[np.float64]
AGGREGATORS: tuple[str, ...] = ("harmonic", "geometric", "arithmetic", "min")


def _check_means(means: ArrayLike, axes: Sequence[str] | None) -> FloatArray:
    s = check_array("axis means", means, low=0, high=1, axes=("model row", "axis column"))
    if s.ndim == 1:
        s = s[None, :]
    check_array("axis means", s, dtype=None, min_shape=(0, 1), what="a (n_models, n_axes) array")
    if axes is not None:
        check_shape("axes", (len(axes),), (s.shape[1],), what="one name per column of the axis means:")
    return s


def _check_positive(
    s: FloatArray, models: Sequence[str] | None, axes: Sequence[str] | None, what: str
) -> None:
    zero = s == 0
    if zero.any():
        m, a = np.argwhere(zero)[0]
        mname = models[m] if models is not None else f"row {m}"
        aname = axes[a] if axes is not None else f"column {a}"
        raise DegenerateError(
            f"{what}: model {mname!r} has axis {aname!r} mean 0, so the harmonic mean is undefined "
            "(1/0); drop or re-weight that axis, or use the geometric / min aggregator"
        )


def weighted_pscore(
    means: ArrayLike,
    weights: ArrayLike | None = None,
    models: Sequence[str] | None = None,
    axes: Sequence[str] | None = None,
) -> FloatArray:
    """Weighted harmonic mean, PRISM-VLM Eq. 3: ``sum_a w_a / sum_a (w_a / s_a)``; equal weights give Eq. 1.

    An axis with weight 0 is ignored (so its mean may be 0). Returns (n_models,), NaN where a
    positively-weighted axis mean is NaN.
    """
    s = _check_means(means, axes)
    w = np.ones(s.shape[1]) if weights is None else np.asarray(weights, dtype=float)
    if w.shape != (s.shape[1],) or np.any(~np.isfinite(w)) or np.any(w < 0) or w.sum() <= 0:
        raise InputError(
            f"weights: expected {s.shape[1]} finite non-negative values with a positive sum, got {w}"
        )
    used = w > 0
    used_axes = None if axes is None else [a for a, u in zip(axes, used, strict=True) if u]
    _check_positive(s[:, used], models, used_axes, "PScore")
    su = s[:, used]
    return w[used].sum() / (w[used] / su).sum(axis=1)


def pscore(
    means: ArrayLike, models: Sequence[str] | None = None, axes: Sequence[str] | None = None
) -> FloatArray:
    """PScore, PRISM-VLM Eq. 1: the harmonic mean ``|A| / sum_a 1 / s_a`` of each model's axis means."""
    return weighted_pscore(means, None, models, axes)


def arithmetic_mean(means: ArrayLike) -> FloatArray:
    """Arithmetic mean of the axis means (PRISM-VLM Table 6 / 17)."""
    return _check_means(means, None).mean(axis=1)


def geometric_mean(means: ArrayLike) -> FloatArray:
    """Geometric mean ``exp(mean_a log s_a)`` (PRISM-VLM Table 6 / 17); 0 when an axis mean is 0."""
    s = _check_means(means, None)
    pos = np.where(s > 0, s, 1.0)
    g = np.exp(np.log(pos).mean(axis=1))
    return np.where((s == 0).any(axis=1) & ~np.isnan(s).any(axis=1), 0.0, g)


def min_aggregate(means: ArrayLike) -> FloatArray:
    """The minimum axis mean (PRISM-VLM Table 17, "min-aggregation"); NaN if any axis is NaN."""
    return _check_means(means, None).min(axis=1)


@validate_params({"method": [Options(AGGREGATORS)]})
def aggregate(
    means: ArrayLike,
    method: str = "harmonic",
    models: Sequence[str] | None = None,
    axes: Sequence[str] | None = None,
) -> FloatArray:
    """One of :data:`AGGREGATORS` applied per model."""
    if method == "harmonic":
        return pscore(means, models, axes)
    if method == "geometric":
        return geometric_mean(means)
    if method == "arithmetic":
        return arithmetic_mean(means)
    return min_aggregate(means)  # "min"


def aggregate_frame(means: pd.DataFrame) -> pd.DataFrame:
    """Every aggregator for a DataFrame of axis means (index model, one column per axis)."""
    models = [str(m) for m in means.index]
    axes = [str(a) for a in means.columns]
    return pd.DataFrame(
        {m: aggregate(means.to_numpy(float), m, models, axes) for m in AGGREGATORS}, index=means.index
    )


def effective_weights(
    means: ArrayLike, models: Sequence[str] | None = None, axes: Sequence[str] | None = None
) -> FloatArray:
    """Effective axis weights, PRISM-VLM Eq. 2: ``w_a = s_a^-2 / sum_b s_b^-2`` per model (rows sum to 1)."""
    s = _check_means(means, axes)
    _check_positive(s, models, axes, "effective weights")
    inv2 = 1.0 / s**2
    return inv2 / inv2.sum(axis=1, keepdims=True)


def dominant_axis(means: ArrayLike, axes: Sequence[str]) -> list[str | None]:
    """Each model's dominant axis: the one with the lowest mean (PRISM-VLM Sec. 5.2); None if any is NaN.

    Exact ties go to the first axis in ``axes`` order.
    """
    s = _check_means(means, axes)
    nan_rows: NDArray[np.bool_] = np.asarray(np.isnan(s).any(axis=1))
    ok = [not bool(v) for v in nan_rows]
    idx = [int(i) for i in np.argmin(np.where(np.isnan(s), np.inf, s), axis=1)]
    return [axes[int(i)] if good else None for i, good in zip(idx, ok, strict=True)]


def dominant_axis_counts(means: ArrayLike, axes: Sequence[str]) -> dict[str, int]:
    """Number of models whose dominant axis is each axis (PRISM-VLM Table 15); every axis listed."""
    dom = dominant_axis(means, axes)
    return {a: sum(d == a for d in dom) for a in axes}
