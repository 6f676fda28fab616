"""The JSON summaries of ``prism analyze`` and ``prism score``: the analyses of
:mod:`benchsift.prism.analyses` assembled into one JSON-ready dict each (keys in the functions' docstrings).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd
from numpy.typing import NDArray

from benchsift.errors import DegenerateError, InputError
from benchsift.prism.aggregate import (
    AGGREGATORS,
    aggregate,
    dominant_axis_counts,
    pscore,
)
from benchsift.prism.analyses import (
    aggregator_comparison,
    axis_correlation,
    axis_correlation_ci,
    leave_one_axis_out,
    mean_effective_weights,
)
from benchsift.prism.bootstrap import BootstrapResult
from benchsift.stats import SeedLike

__all__ = ["means_summary", "score_summary"]

FloatArray = NDArray[np.float64]


def _nested(frame: pd.DataFrame) -> dict[str, dict[str, float]]:
    return {str(r): {str(c): float(frame.loc[r, c]) for c in frame.columns} for r in frame.index}


def means_summary(
    means: pd.DataFrame, q_axis: str = "q", n_boot: int = 2000, random_state: SeedLike = 0
) -> dict[str, Any]:
    """The analyses that need only axis means, as the JSON object of ``benchsift prism analyze``.

    Keys: ``pscore`` {model: value}, ``aggregates`` {harmonic, geometric, arithmetic, min: {model: v}},
    ``effective_weights`` {axis: mean over models}, ``dominant_axis_counts`` {axis: n},
    ``leave_one_axis_out`` {axis: spearman}, ``aggregator_pearson_with_q`` {harmonic, geometric,
    arithmetic}, ``axis_correlation`` {axis: {axis: pearson}} (PScore included), ``ranges`` {axis and
    "PScore": max - min}; also ``axis_spearman`` {axis: {axis: spearman}} and ``axis_correlation_ci``
    {pearson, spearman: {lo, hi: {axis: {axis: bound}}}}, 95 % CIs from ``n_boot`` model resamples
    (:func:`axis_correlation_ci`, App. E).
    """
    complete = means.dropna()
    if len(complete) < len(means):
        dropped = [str(m) for m in means.index.difference(complete.index)]
        raise InputError(f"axis means: model(s) {dropped} have a missing axis mean; expected complete rows")
    if len(means) < 3:
        raise DegenerateError(f"analyses need at least 3 models, got {len(means)}")
    names = [str(m) for m in means.index]
    axes = [str(a) for a in means.columns]
    S = means.to_numpy(float)
    ps = pscore(S, names, axes)
    aggs = {m: dict(zip(names, map(float, aggregate(S, m, names, axes)), strict=True)) for m in AGGREGATORS}
    comp = aggregator_comparison(means, q_axis)
    corr = axis_correlation(means, "plcc")
    corr_ci = {}
    for name, metric in (("pearson", "plcc"), ("spearman", "srcc")):
        lo, hi = axis_correlation_ci(means, n_boot, random_state, metric)
        corr_ci[name] = {"lo": _nested(lo), "hi": _nested(hi)}
    ranges = (means.max() - means.min()).to_dict()
    ranges["PScore"] = float(ps.max() - ps.min())
    return {
        "pscore": dict(zip(names, map(float, ps), strict=True)),
        "aggregates": aggs,
        "effective_weights": {str(k): float(v) for k, v in mean_effective_weights(means).items()},
        "dominant_axis_counts": dominant_axis_counts(S, axes),
        "leave_one_axis_out": {str(k): float(v) for k, v in leave_one_axis_out(means).items()},
        "aggregator_pearson_with_q": {
            m: float(comp.loc[m, "pearson_with_q"]) for m in ("harmonic", "geometric", "arithmetic")
        },
        "axis_correlation": _nested(corr),
        "ranges": {str(k): float(v) for k, v in ranges.items()},
        "axis_spearman": _nested(axis_correlation(means, "srcc")),
        "axis_correlation_ci": corr_ci,
    }


def score_summary(
    result: BootstrapResult, q_axis: str = "q", n_boot: int = 2000, random_state: SeedLike = 0
) -> dict[str, Any]:
    """The JSON object of ``benchsift prism score``: :func:`means_summary` of the point axis means plus
    ``separation`` {raw, bh, bonferroni}, ``ci`` {model: [lo, hi]} and ``rank_ci`` {model: [lo, hi]}
    (App. E, Table 3, Table 14), and ``n_boot`` / ``n_items`` / ``alpha``. ``n_boot`` / ``random_state``
    serve the model-resampling correlation CIs of :func:`means_summary`."""
    means = pd.DataFrame(result.axis_means, index=pd.Index(result.models, name="model"), columns=result.axes)
    out = means_summary(means, q_axis, n_boot, random_state)
    out["separation"] = result.separation.to_dict()
    out["ci"] = {m: [float(v[0]), float(v[1])] for m, v in zip(result.models, result.ci, strict=True)}
    out["rank_ci"] = {
        m: [float(v[0]), float(v[1])] for m, v in zip(result.models, result.rank_ci, strict=True)
    }
    out["n_boot"] = result.n_boot
    out["n_items"] = result.n_items
    out["alpha"] = result.separation.alpha
    return out
