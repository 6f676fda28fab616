"""Input validation shared by the statistics functions (done once, at the public entry points)."""

from __future__ import annotations

from numbers import Integral, Real
from typing import Literal

import numpy as np
from numpy.typing import ArrayLike, NDArray

from benchsift._inputs import check_array, check_shape
from benchsift._params import Check, Interval, Options, check_param
from benchsift.errors import InputError

__all__ = [
    "COUNT",
    "METRICS",
    "OPEN_UNIT",
    "Metric",
    "as_float_array",
    "check_metric",
    "check_shape",
    "move_axis",
    "reject_inf",
]

#: the declared constraint of a level or a significance: a number strictly between 0 and 1
OPEN_UNIT = Interval(Real, 0, 1, closed="neither", desc="a number strictly between 0 and 1")
#: the declared constraint of a count (replicates, draws, components): an integer >= 1
COUNT = Interval(Integral, 1, None)

Metric = Literal["srcc", "plcc", "r2", "kendall"]
#: The one list of correlation metrics, in display order: Spearman, Pearson, R^2 (score-prediction form),
#: Kendall tau-b (the redundancy paper's order; ``benchsift.redundancy`` reports them in it).
METRICS: tuple[str, ...] = ("srcc", "plcc", "r2", "kendall")
_ALIASES = {
    "spearman": "srcc",
    "pearson": "plcc",
    "kendall_tau_b": "kendall",
    "tau": "kendall",
    "r2_score": "r2",
}


def check_metric(metric: str) -> Metric:
    """Return the canonical metric name, accepting ``spearman``/``pearson``/``kendall_tau_b`` aliases."""
    name = _ALIASES.get(metric.lower(), metric.lower()) if isinstance(metric, str) else metric
    check_param("metric", name, [Options(METRICS)], quote=False)
    return name  # type: ignore[return-value]


def as_float_array(
    x: ArrayLike, name: str, ndim: int | None = None, check_inf: bool = True, min_ndim: int = 0
) -> NDArray[np.float64]:
    """``x`` as a float64 array; NaN allowed (missing), +-inf and non-numbers rejected.

    Raises :class:`~benchsift.errors.InputError` naming the argument when ``x`` is not numeric, has the
    wrong number of dimensions (``ndim``; ``min_ndim=1``: a scalar is refused), or (unless ``check_inf``
    is False: the caller then calls :func:`reject_inf` itself where it needs to) holds an infinite value.
    """
    try:
        arr = np.asarray(x, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise InputError(f"{name}: expected numbers (NaN for missing), could not convert: {exc}") from None
    if ndim is not None:
        shape = {1: "(n,)", 2: "(n, k)"}.get(ndim, f"{ndim}-D")
        check_shape(name, arr.shape, ("n",) * ndim, words=f"a {ndim}-D array of shape {shape}")
    at_least = Check(lambda a: a.ndim >= min_ndim, f"an array with at least {min_ndim} dimension")
    check_param(name, arr, [at_least], quote=False)
    if check_inf:
        reject_inf(arr, name)
    return arr


def reject_inf(arr: NDArray[np.float64], name: str) -> None:
    """Raise :class:`~benchsift.errors.InputError` naming ``name`` when ``arr`` holds +-inf."""
    if np.isinf(arr).any():  # the cheap test first: check_array's walk runs only to word the message
        check_array(name, arr, dtype=None, finite=True)


def move_axis(arr: NDArray[np.float64], axis: int, to: int) -> NDArray[np.float64]:
    """``np.moveaxis(arr, axis, to)``, an axis out of range refused as :class:`InputError` naming ``axis``."""
    try:
        return np.moveaxis(arr, axis, to)
    except np.exceptions.AxisError as exc:
        raise InputError(f"axis: {exc}") from None
