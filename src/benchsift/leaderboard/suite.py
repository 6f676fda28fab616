r""":func:`compare_suite`: which differences between new models a compressed suite can resolve.

A team that ran only a suite (``benchsift compress --out SUITE``) has, per new model, the estimate of
``benchsift estimate`` (:func:`benchsift.compression.estimate_new_models`): its full-score estimate with an
interval at level :math:`\ell` per benchmark and overall (or, for a suite without full-score estimators, the
suite mean and its bootstrap interval). Only those public fields are read. The interval's half-width
:math:`h_m = (\mathrm{high}_m - \mathrm{low}_m) / 2` is turned into a standard error
:math:`\mathrm{se}_m = h_m / z_{(1+\ell)/2}`, and two new models are compared by

.. math:: \Delta = \hat s_a - \hat s_b, \qquad \mathrm{se}_\Delta = \sqrt{\mathrm{se}_a^2 + \mathrm{se}_b^2},
          \qquad p = 2\Phi(-|\Delta| / \mathrm{se}_\Delta),

Holm / Benjamini-Hochberg across the pairs of a group, ``resolved`` where the chosen correction rejects.
The suite's minimum detectable difference is :math:`(z_{1-\alpha/2} + z_\pi)\,\mathrm{se}_\Delta` (median
over pairs); against a model whose full score is known (a reference model of the panel) it is
:math:`(z_{1-\alpha/2} + z_\pi)\,\mathrm{se}_m`.

Assumption, stated in every result's notes: the two estimates' errors are treated as independent. Both
models answered the same suite items, so their item-sampling errors are positively correlated and the
true :math:`\mathrm{se}_\Delta` is smaller: the suite's resolution is then *under*-stated (conservative);
a split-conformal interval also covers at least its level, so :math:`h_m` is not too small. What the
suite resolves, it resolves; a difference it leaves unresolved may still be real.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd
from scipy import stats as sps

from benchsift._params import validate_params
from benchsift.leaderboard._compare import PARAMETER_CONSTRAINTS
from benchsift.leaderboard.result import SuiteComparison
from benchsift.panel import ClusterSpec, Panel
from benchsift.stats import SeedLike, bh_adjust, holm_adjust, minimum_detectable_difference
from benchsift.stats.paired import wald_pvalue

if TYPE_CHECKING:
    from benchsift.compression.suite import Suite

__all__ = ["compare_suite"]

INDEPENDENCE_NOTE = (
    "the two estimates' errors are treated as independent (se of a difference = sqrt(se_a^2 + se_b^2)); "
    "models that ran the same suite items share part of their error, so the true difference is known "
    "better than this: a pair left unresolved may still be apart"
)


def _groups(res: Any) -> tuple[str, list[str], np.ndarray, np.ndarray, np.ndarray, float]:
    """``(method, groups, score, low, high, level)``: the estimate's benchmarks and overall columns."""
    full = res.full
    if full is None:
        return (
            "suite_mean",
            ["overall"],
            np.asarray(res.overall, dtype=float)[:, None],
            np.asarray(res.overall_ci, dtype=float)[:, :1],
            np.asarray(res.overall_ci, dtype=float)[:, 1:],
            float(res.level),
        )
    keep = [c for c, k in enumerate(full.kinds) if k in ("benchmark", "overall")]
    m = full.method
    return (
        str(m),
        [full.groups[c] for c in keep],
        np.asarray(full.score[m], dtype=float)[:, keep],
        np.asarray(full.low[m], dtype=float)[:, keep],
        np.asarray(full.high[m], dtype=float)[:, keep],
        float(full.level),
    )


@validate_params({k: PARAMETER_CONSTRAINTS[k] for k in ("alpha", "power", "correction")})
def compare_suite(
    suite: Suite | str | Path,
    new_scores: Panel | str | Path,
    *,
    from_format: str | None = None,
    export: str | Path | None = None,
    alpha: float = 0.05,
    power: float = 0.8,
    correction: str = "holm",
    n_boot: int = 2000,
    level: float = 0.95,
    clusters: ClusterSpec = "auto",
    random_state: SeedLike = 0,
) -> SuiteComparison:
    """Which differences between the new models in ``new_scores`` the suite resolves (module docstring).

    ``suite``, ``new_scores``, ``from_format``, ``export``, ``n_boot``, ``level``, ``clusters`` and
    ``random_state`` go to :func:`benchsift.compression.estimate_new_models` unchanged; ``alpha``,
    ``power`` and ``correction`` are those of :func:`benchsift.leaderboard.compare`.
    """
    alpha, power = float(alpha), float(power)
    # compression (sklearn, scipy.spatial) on use: `benchsift compare PANEL` never loads it
    from benchsift.compression import estimate_new_models

    res = estimate_new_models(
        suite,
        new_scores,
        from_format=from_format,
        export=export,
        n_boot=n_boot,
        level=level,
        random_state=random_state,
        clusters=clusters,
    )
    method, groups, score, low, high, est_level = _groups(res)
    z_level = float(sps.norm.ppf((1.0 + est_level) / 2.0))
    half = (high - low) / 2.0
    se = half / z_level
    names = list(res.models)
    rank = np.asarray(res.full.rank if res.full is not None else res.rank, dtype=float)
    rank_ci = np.asarray(res.full.rank_interval if res.full is not None else res.rank_ci, dtype=float)
    model_rows, pair_rows, res_rows = [], [], []
    ia, ib = np.triu_indices(len(names), 1)
    for c, g in enumerate(groups):
        overall = g == "overall"
        for j, name in enumerate(names):
            model_rows.append(
                {
                    "group": g,
                    "model": name,
                    "estimate": score[j, c],
                    "low": low[j, c],
                    "high": high[j, c],
                    "half_width": half[j, c],
                    "se": se[j, c],
                    "mdd_vs_known": float(minimum_detectable_difference(se[j, c], alpha, power)),
                    "rank": rank[j] if overall else np.nan,
                    "rank_low": rank_ci[j, 0] if overall else np.nan,
                    "rank_high": rank_ci[j, 1] if overall else np.nan,
                }
            )
        delta = score[ia, c] - score[ib, c]
        se_d = np.sqrt(se[ia, c] ** 2 + se[ib, c] ** 2)
        p = wald_pvalue(delta, se_d)
        p_holm, p_bh = holm_adjust(p), bh_adjust(p)
        decide = {"holm": p_holm, "bh": p_bh, "none": p}[correction]
        with np.errstate(invalid="ignore"):
            resolved = (decide <= alpha) & ~np.isnan(decide)
        mdd = minimum_detectable_difference(se_d, alpha, power)
        flip = delta < 0
        for k in range(ia.size):
            a, b = (ib[k], ia[k]) if flip[k] else (ia[k], ib[k])
            pair_rows.append(
                {
                    "group": g,
                    "model_a": names[a],
                    "model_b": names[b],
                    "delta": abs(delta[k]),
                    "se": se_d[k],
                    "p": p[k],
                    "p_holm": p_holm[k],
                    "p_bh": p_bh[k],
                    "resolved": bool(resolved[k]),
                    "mdd": mdd[k],
                }
            )
        finite = np.isfinite(mdd)
        single = float(np.nanmedian(minimum_detectable_difference(se[:, c], alpha, power)))
        res_rows.append(
            {
                "group": g,
                "n_models": len(names),
                "n_pairs": int(ia.size),
                "mdd": float(np.median(mdd[finite])) if finite.any() else single,
                "n_resolved": int(resolved.sum()),
                "n_unresolved": int(ia.size - resolved.sum()),
            }
        )
    notes = [INDEPENDENCE_NOTE, *res.notes]
    return SuiteComparison(
        models=pd.DataFrame(model_rows),
        pairs=pd.DataFrame(
            pair_rows,
            columns=["group", "model_a", "model_b", "delta", "se", "p", "p_holm", "p_bh", "resolved", "mdd"],
        ),
        resolution=pd.DataFrame(res_rows),
        method=method,
        warnings=list(res.warnings),
        notes=notes,
        parameters={
            "alpha": alpha,
            "power": power,
            "correction": correction,
            "level": est_level,
            "n_boot": int(n_boot),
        },
    )
