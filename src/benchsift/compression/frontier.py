"""The Capability Frontier: items every current model family finds hard (PRIMEBench section 7(3), App. I.2).

Stage 2 favours items that separate today's models, so items most models still fail tend to be pruned. The
Frontier is a second, descriptive item set:

1. **candidates**: items scored by at least ``min_models`` image-condition models on which every model
   family's mean score is at most ``family_max`` (0.5; a model without a family is its own family);
2. **in band**: candidates whose panel mean score :math:`\\bar x_i` lies in ``band`` = [0.10, 0.50];
3. **score**: the difficulty-weighted variance :math:`\\hat v_i (1 - \\bar x_i)`, :math:`\\hat v_i` the
   plug-in variance of the item's scores across the scored models;
4. **budget**: ``round(n_in_band * gain)``, ``gain`` the panel's largest per-step accuracy gain along a model
   axis (PRIMEBench Table 21). When ``gain`` is not given it is computed from the panel: for every family
   with at least two dated models, (full-pool score of its newest model - that of its oldest) / (number of
   models - 1), the full-pool score being the mean of the model's benchmark means; the largest such gain is
   used. This release-date axis is our stand-in for the paper's hand-made generation axes.

The highest-scoring in-band items are kept (ties by item position). Whether Frontier items separate future
models is untested (App. I.2): treat the set as a diagnostic of the current panel.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from numbers import Real

import numpy as np
import pandas as pd

from benchsift._params import Check, Interval, validate_params
from benchsift.errors import InputError
from benchsift.panel import Panel
from benchsift.stats.means import group_nan_sums

__all__ = ["FrontierResult", "capability_frontier", "family_step_gains"]

TOLERANCE = 1e-9


@dataclass(frozen=True)
class FrontierResult:
    """Outcome of :func:`capability_frontier`; ``items`` are positions in the input panel (sorted)."""

    items: np.ndarray
    table: pd.DataFrame
    n_candidates: int
    n_in_band: int
    gain: float
    gain_source: str
    budget: int
    family_gains: pd.DataFrame
    params: dict[str, float | int | str] = field(default_factory=dict)


def _families(models: pd.DataFrame) -> np.ndarray:
    fam = models["family"].to_numpy(dtype=object)
    ids = models["model"].to_numpy(dtype=object)
    return np.array(
        [f if isinstance(f, str) else f"<{m}>" for f, m in zip(fam, ids, strict=True)], dtype=object
    )


def family_step_gains(panel: Panel) -> pd.DataFrame:
    """Per family with >= 2 dated image models: oldest, newest, steps, per-step gain of the full-pool score.

    The full-pool score of a model is the mean of its benchmark means (each benchmark weighs the same).
    """
    image = panel.image_panel()
    bm = image.benchmark_means().means
    obs = ~np.isnan(bm)
    score = np.full(bm.shape[0], np.nan)
    np.divide(np.where(obs, bm, 0.0).sum(axis=1), obs.sum(axis=1), out=score, where=obs.any(axis=1))
    models = image.models
    models["score"] = score
    models["fam"] = _families(models)
    rows = []
    for fam, grp in models.groupby("fam", sort=True):
        dated = grp[grp["release_date"].notna() & grp["score"].notna()].sort_values(
            ["release_date", "model"], kind="stable"
        )
        if len(dated) < 2:
            continue
        steps = len(dated) - 1
        first, last = dated.iloc[0], dated.iloc[-1]
        rows.append(
            {
                "family": str(fam),
                "oldest": first["model"],
                "newest": last["model"],
                "steps": steps,
                "gain_per_step": float((last["score"] - first["score"]) / steps),
            }
        )
    return pd.DataFrame(rows, columns=["family", "oldest", "newest", "steps", "gain_per_step"])


@validate_params(
    {
        "band": [
            Check(lambda b: len(b) == 2 and 0 <= b[0] <= b[1] <= 1, "(low, high) with 0 <= low <= high <= 1")
        ],
        "gain": [Interval(Real, 0, 1, noun="a per-step accuracy gain"), None],
    }
)
def capability_frontier(
    panel: Panel,
    *,
    family_max: float = 0.5,
    band: tuple[float, float] = (0.10, 0.50),
    gain: float | None = None,
    min_models: int = 2,
) -> FrontierResult:
    """The Capability Frontier of ``panel`` (PRIMEBench App. I.2; see the module docstring for each step)."""
    Panel.check(panel, "capability_frontier")
    lo, hi = float(band[0]), float(band[1])
    image_rows = panel.image_rows
    X = panel.scores[image_rows]
    models = panel.models[image_rows].reset_index(drop=True)
    fam = _families(models)
    fam_codes, fam_names = pd.factorize(pd.Series(fam, dtype=object))
    # family x item sums/counts: transpose so families are the "groups" of the models axis
    f_sums, f_counts = group_nan_sums(np.ascontiguousarray(X.T), fam_codes, len(fam_names))
    f_mean = np.full(f_sums.shape, np.nan)
    np.divide(f_sums, f_counts, out=f_mean, where=f_counts > 0)
    fam_ok = np.where(f_counts > 0, f_mean <= family_max + TOLERANCE, True).all(axis=1)
    obs = ~np.isnan(X)
    n = obs.sum(axis=0)
    mean = np.full(X.shape[1], np.nan)
    np.divide(np.where(obs, X, 0.0).sum(axis=0), n, out=mean, where=n > 0)
    dev = np.where(obs, X - mean, 0.0)
    var = np.full(X.shape[1], np.nan)
    np.divide((dev * dev).sum(axis=0), n, out=var, where=n > 0)
    candidate = fam_ok & (n >= min_models)
    in_band = candidate & (mean >= lo - TOLERANCE) & (mean <= hi + TOLERANCE)
    dw = var * (1.0 - mean)

    gains = family_step_gains(panel)
    if gain is None:
        if gains.empty:
            raise InputError(
                "capability_frontier: no family has two dated models to derive the per-step gain from; "
                "pass gain= (e.g. `frontier_gain` 0.1)"
            )
        best = int(np.argmax(gains["gain_per_step"].to_numpy()))
        g = max(float(gains["gain_per_step"].iloc[best]), 0.0)  # no family improves: an empty Frontier
        row = gains.iloc[best]
        source = f"family {row['family']} ({row['oldest']} -> {row['newest']})"
    else:
        g = float(gain)
        source = "given"
    n_band = int(in_band.sum())
    budget = min(n_band, int(np.floor(n_band * g + 0.5)))
    pos = np.flatnonzero(in_band)
    order = np.lexsort((pos, -np.round(dw[pos], 12)))
    chosen = np.sort(pos[order[:budget]])
    items = panel.items
    table = pd.DataFrame(
        {
            "benchmark": items["benchmark"].to_numpy(dtype=object)[chosen],
            "item": items["item"].to_numpy(dtype=object)[chosen],
            "category": panel.category_or_benchmark[chosen],
            "mean": mean[chosen],
            "variance": var[chosen],
            "dw_variance": dw[chosen],
        }
    )
    return FrontierResult(
        items=chosen,
        table=table,
        n_candidates=int(candidate.sum()),
        n_in_band=n_band,
        gain=g,
        gain_source=source,
        budget=budget,
        family_gains=gains,
        params={"family_max": family_max, "band_low": lo, "band_high": hi, "min_models": min_models},
    )
