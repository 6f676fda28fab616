r""":func:`compare`: which models of a panel are really apart, per benchmark and overall, and how many items
it takes to tell.

For each *section* (each benchmark, and ``overall`` = all the panel's items when there are several
benchmarks) and every pair of models, on the items both answered:

1. **Paired bootstrap** over items (:func:`benchsift.stats.paired.paired_bootstrap_pairs`): one set of
   ``n_boot``
   resamples for the whole panel, stratified by benchmark (each benchmark resamples its own items, so a
   benchmark's columns of the weights are a bootstrap of that benchmark alone and the overall replicates
   keep every benchmark's size), resampling whole item clusters where the panel knows them
   (:func:`benchsift.panel.item_clusters`: a ``cluster`` item column, or items sharing an image;
   :func:`benchsift.stats.stratified_cluster_bootstrap_weights`, as the PRISM-VLM bootstrap does, drawn by the
   same :class:`benchsift.stats.WeightStream`, in blocks of replicates, so no panel is too large). The same
   resamples serve every pair, every model's score interval and the rank intervals (paired throughout).
   The pair's p-value is the bootstrap Wald ``2 Phi(-|delta| / se*)`` (why not the percentile p-value:
   :mod:`benchsift.stats.paired`); Holm (family-wise) and Benjamini-Hochberg (false discovery) adjust it
   over the section's pairs, and ``correction`` picks the one that decides ``separated``.
2. **Cross-checks** beside it: the paired t test (``scipy.stats.ttest_rel`` on the common items; lmms-eval's
   paired t) and, for 0/1 scores, the exact McNemar test.
3. **Ranks and tie groups**: each model's rank interval counts the competitors shown above and below it
   by its pairwise bootstrap comparisons, one-sided, each direction at its own critical value, by steps down
   (:func:`benchsift.stats.rank_interval_pairwise`, after Mogstad, Romano, Shaikh & Wilhelm 2024):
   marginal coverage, per model, at least ``level`` whatever the true scores, about ``level`` for a model
   at the end of a near-tie and above it elsewhere (unavoidably: the README); not simultaneous over models
   (the tie groups are the simultaneous statement, from the Holm / BH-corrected tests); tie groups run
   down the leaderboard from the best model until the first model separated from it, which leads the
   next group
   (:func:`benchsift.stats.tie_groups`: every member is unseparated from its group's leader, each leader
   separated from the one above), printed ``"1-3: A, B, C (not separable)"``.
4. **Resolution**: each pair's minimum detectable difference at ``alpha`` and ``power``,
   ``(z_{1-alpha/2} + z_power) se*``, the section's median over all pairs and over neighbours on the
   leaderboard, and the items that would detect each pair's observed difference at ``power``
   (:func:`benchsift.stats.paired.items_for_power`).

A model's score is its mean over the items it answered; a pair's ``delta`` is over the items both answered
(the two differ only when scores are missing). ``overall`` holds only the models that answered items of
every benchmark (:func:`_section_plans`).
"""

from __future__ import annotations

from collections.abc import Sequence
from numbers import Integral, Real
from typing import Any

import numpy as np
import pandas as pd

from benchsift._params import Check, ConstraintLike, Interval, Options, validate_params
from benchsift.errors import DegenerateError, InputError, listed, warn_each
from benchsift.leaderboard.result import ComparisonResult, tie_label
from benchsift.panel import ClusterSpec, Panel, item_clusters
from benchsift.progress import ProgressFn
from benchsift.stats import (
    SeedLike,
    WeightStream,
    bh_adjust,
    check_random_state,
    holm_adjust,
    mcnemar_exact,
    minimum_detectable_difference,
    paired_power,
    paired_t_test,
    percentile_ci,
    rank_interval_pairwise,
    tie_groups,
)
from benchsift.stats.cluster import cluster_codes
from benchsift.stats.paired import items_for_power, paired_bootstrap_pairs, paired_moments, wald_pvalue
from benchsift.stats.ranks import RANK_CRITICAL, rank_average

__all__ = ["CORRECTIONS", "compare"]

#: ``parameters["rank_interval"]`` of a comparison, per ``rank_critical``
_RANK_TEXT = {
    "each": "marginal per model: pairwise bootstrap comparisons, one-sided critical values, each direction "
    "its own, by steps down (Mogstad et al. 2024)",
    "worst": "marginal per model: pairwise bootstrap comparisons, one-sided critical value, the worse "
    "direction's for both, by steps down (Mogstad et al. 2024)",
}

#: what ``correction`` accepts: Holm (family-wise error), Benjamini-Hochberg (false discovery), none
CORRECTIONS = ("holm", "bh", "none")
OVERALL = "overall"


#: ``alpha``, ``level`` and ``power``: a number strictly between 0 and 1
_OPEN_UNIT = Interval(Real, 0, 1, closed="neither", desc="a number strictly between 0 and 1")
#: the parameters :func:`compare` and :func:`benchsift.leaderboard.compare_suite` share, declared once
PARAMETER_CONSTRAINTS: dict[str, list[ConstraintLike]] = {
    "alpha": [_OPEN_UNIT],
    "level": [_OPEN_UNIT],
    "power": [_OPEN_UNIT],
    "correction": [Options(CORRECTIONS)],
    "rank_critical": [Options(RANK_CRITICAL)],
    "n_boot": [Interval(Integral, 2, None)],
    "pair": [
        None,
        Check(
            lambda p: not isinstance(p, str) and len({str(m) for m in p}) == len(p) == 2,
            "two different model ids",
        ),
    ],
}


def _section(
    name: str,
    models: list[str],
    X: np.ndarray,
    W: WeightStream,
    *,
    alpha: float,
    level: float,
    power: float,
    correction: str,
    rank_critical: str,
    progress: ProgressFn | None,
) -> dict[str, Any]:
    """Leaderboard rows, pair rows, resolution row and tie labels of one section's score matrix."""
    M = len(models)
    answered = (~np.isnan(X)).sum(axis=1)
    score = np.where(answered > 0, np.nansum(X, axis=1) / np.maximum(answered, 1), np.nan)
    boot = paired_bootstrap_pairs(X, W, level=level, progress=progress)
    ia, ib = np.triu_indices(M, 1)
    moments = paired_moments(X)
    n, mean, _ = moments
    t, p_t, _ = paired_t_test(X, moments)
    present = X[~np.isnan(X)]
    binary = bool(present.size) and bool(np.isin(present, (0.0, 1.0)).all())
    nan_pairs = np.full(ia.size, np.nan)
    if binary:
        only, _, p_mc = mcnemar_exact(X)
        only_a, only_b, p_mcnemar = only[ia, ib], only[ib, ia], p_mc[ia, ib]
    else:
        only_a, only_b, p_mcnemar = nan_pairs, nan_pairs, nan_pairs
    delta = mean[ia, ib]
    p = wald_pvalue(delta, boot.se)
    p_holm, p_bh = holm_adjust(p), bh_adjust(p)
    decide = {"holm": p_holm, "bh": p_bh, "none": p}[correction]
    with np.errstate(invalid="ignore"):
        separated = (decide <= alpha) & ~np.isnan(decide)
    # orient every pair so that model_a scores higher (ties: the row order)
    flip = score[ib] > score[ia]
    sign = np.where(flip, -1.0, 1.0)
    a_idx, b_idx = np.where(flip, ib, ia), np.where(flip, ia, ib)
    low = np.where(flip, -boot.high, boot.low)
    high = np.where(flip, -boot.low, boot.high)
    mdd = minimum_detectable_difference(boot.se, alpha, power)
    need = items_for_power(delta, boot.se, n[ia, ib], alpha, power)
    pairs = pd.DataFrame(
        {
            "section": name,
            "model_a": [models[i] for i in a_idx],
            "model_b": [models[i] for i in b_idx],
            "n_common": n[ia, ib].astype(np.int64),
            "delta": sign * delta,
            "se": boot.se,
            "low": low,
            "high": high,
            "p": p,
            "p_percentile": boot.p_percentile,
            "p_holm": p_holm,
            "p_bh": p_bh,
            "separated": separated,
            "t": sign * t[ia, ib],
            "p_t": p_t[ia, ib],
            "only_a": np.where(flip, only_b, only_a),
            "only_b": np.where(flip, only_a, only_b),
            "p_mcnemar": p_mcnemar,
            "mdd": mdd,
            "items_needed": need,
        }
    )
    sep = np.zeros((M, M), dtype=bool)
    sep[ia, ib] = separated
    sep |= sep.T
    groups = tie_groups(score, sep)
    rank = rank_average(-score)
    rank_ci = rank_interval_pairwise(score, boot.means, level, rank_critical)
    score_ci = percentile_ci(boot.means, level, axis=0).T
    order = np.argsort(-np.where(np.isnan(score), -np.inf, score), kind="stable")
    order = order[~np.isnan(score[order])]
    labels: list[str] = []
    group_ranks: dict[int, str] = {}
    for g in range(int(groups.max()) + 1 if (groups >= 0).any() else 0):
        pos = np.flatnonzero(groups[order] == g)
        lo, hi = int(pos.min()) + 1, int(pos.max()) + 1
        group_ranks[g] = f"{lo}" if lo == hi else f"{lo}-{hi}"
        labels.append(tie_label(lo, hi, [models[order[k]] for k in pos]))
    board = pd.DataFrame(
        {
            "section": name,
            "model": [models[i] for i in order],
            "score": score[order],
            "n_items": answered[order].astype(np.int64),
            "score_low": score_ci[order, 0],
            "score_high": score_ci[order, 1],
            "rank": rank[order],
            "rank_low": rank_ci[order, 0],
            "rank_high": rank_ci[order, 1],
            "group": groups[order] + 1,
            "group_ranks": [group_ranks[int(g)] for g in groups[order]],
        }
    )
    pos_of = np.empty(M, dtype=np.intp)
    pos_of[order] = np.arange(order.size)
    adjacent = np.abs(pos_of[ia] - pos_of[ib]) == 1
    finite = np.isfinite(mdd)
    resolution = {
        "section": name,
        "n_items": int(X.shape[1]),
        "n_models": int(order.size),
        "n_pairs": int(ia.size),
        "mdd": float(np.median(mdd[finite])) if finite.any() else float("nan"),
        "mdd_adjacent": float(np.median(mdd[finite & adjacent]))
        if (finite & adjacent).any()
        else float("nan"),
        "separated_raw": float(np.mean((p <= alpha) & ~np.isnan(p))) if ia.size else float("nan"),
        "separated_holm": float(np.mean(p_holm <= alpha)) if ia.size else float("nan"),
        "separated_bh": float(np.mean(p_bh <= alpha)) if ia.size else float("nan"),
        "n_groups": len(labels),
        "largest_group": int(np.bincount(groups[groups >= 0]).max()) if (groups >= 0).any() else 0,
    }
    return {"board": board, "pairs": pairs, "resolution": resolution, "ties": labels}


def _pair_power(pairs: pd.DataFrame, pair: tuple[str, str], alpha: float, power: float) -> pd.DataFrame:
    a, b = pair
    hit = ((pairs["model_a"] == a) & (pairs["model_b"] == b)) | (
        (pairs["model_a"] == b) & (pairs["model_b"] == a)
    )
    rows = pairs[hit]
    out = pd.DataFrame(
        {
            "section": rows["section"].to_numpy(),
            "model_a": rows["model_a"].to_numpy(),
            "model_b": rows["model_b"].to_numpy(),
            "n_common": rows["n_common"].to_numpy(),
            "delta": rows["delta"].to_numpy(),
            "se": rows["se"].to_numpy(),
            "p": rows["p"].to_numpy(),
            "power": paired_power(rows["delta"].to_numpy(), rows["se"].to_numpy(), alpha),
            "items_needed": rows["items_needed"].to_numpy(),
            "target_power": power,
        }
    )
    return out


def _check_pair(pair: Sequence[str] | None, models: list[str]) -> tuple[str, str] | None:
    """The ``pair`` argument of :func:`compare` as two model ids of the compared panel (or None)."""
    if pair is None:
        return None
    got = tuple(str(p) for p in pair)  # two different ids: declared in PARAMETER_CONSTRAINTS
    missing = [p for p in got if p not in models]
    if missing:
        raise InputError(f"`pair`: no model {missing[0]!r} in the panel (models are {listed(models)})")
    return got[0], got[1]


def _section_plans(
    image: Panel, bench: np.ndarray, warnings: list[str]
) -> list[tuple[str, np.ndarray, np.ndarray]]:
    """Step 2 of :func:`compare`: ``(name, item columns, model rows)`` of each section (each benchmark,
    then ``overall`` when there are several); a section with fewer than 2 models that answered any of its
    items is skipped and models with no answered item are left out of it, each with a warning. ``overall``
    holds only the models that answered items of every benchmark: a model's mean over the benchmarks it ran
    is no score to rank against the others' (one without MMT, the hardest of three, ranked first at 1-1
    while the paired test on the items both answered put another model 0.043 above it; audit s32)."""
    X = image.scores
    models = image.model_ids
    sections: list[tuple[str, np.ndarray]] = [(b, np.flatnonzero(bench == b)) for b in image.benchmarks]
    ran = np.column_stack([(~np.isnan(X[:, cols])).any(axis=1) for _, cols in sections])  # model x benchmark
    if len(sections) > 1:
        sections.append((OVERALL, np.arange(image.n_items)))
    plans = []
    for g, (name, cols) in enumerate(sections):
        keep = np.array(ran.any(axis=1) if name == OVERALL else ran[:, g], dtype=bool)  # answered any item
        if name == OVERALL and not ran[keep].all():
            short = keep & ~ran.all(axis=1)
            warnings.append(
                f"section {name!r}: {int(short.sum())} model(s) without a score on every benchmark left out "
                f"({listed([m for m, k in zip(models, short, strict=True) if k])}): a mean over the "
                "benchmarks a model ran ranks it against the others' on other items; they are in the "
                "sections of the benchmarks they ran"
            )
            keep &= ~short
        if keep.sum() < 2:
            warnings.append(f"section {name!r} skipped: {int(keep.sum())} model(s) answered any of its items")
            continue
        if (~keep).any():
            warnings.append(
                f"section {name!r}: {int((~keep).sum())} model(s) with no answered item left out "
                f"({listed([m for m, k in zip(models, keep, strict=True) if not k])})"
            )
        plans.append((name, cols, np.flatnonzero(keep)))
    if not plans:
        raise DegenerateError("compare: no benchmark has 2 models with answered items")
    return plans


def _run_sections(
    plans: list[tuple[str, np.ndarray, np.ndarray]],
    models: list[str],
    X: np.ndarray,
    W: WeightStream,
    *,
    alpha: float,
    level: float,
    power: float,
    correction: str,
    rank_critical: str,
    progress: ProgressFn | None,
) -> list[dict[str, Any]]:
    """Step 3 of :func:`compare`: :func:`_section` on each plan, one progress count over all pairs."""
    total = sum(len(r) * (len(r) - 1) // 2 for _, _, r in plans)
    done = 0
    if progress is not None:
        progress(0, total)
    outs = []
    for name, cols, rows in plans:
        base = done

        def tick(k: int, _total: int, base: int = base) -> None:
            if progress is not None:
                progress(base + k, total)

        outs.append(
            _section(
                name,
                [models[i] for i in rows],
                X[np.ix_(rows, cols)],
                W.take(cols),
                alpha=alpha,
                level=level,
                power=power,
                correction=correction,
                rank_critical=rank_critical,
                progress=tick,
            )
        )
        done += len(rows) * (len(rows) - 1) // 2
    return outs


@validate_params(PARAMETER_CONSTRAINTS)
def compare(
    panel: Panel,
    *,
    benchmarks: Sequence[str] | None = None,
    n_boot: int = 2000,
    alpha: float = 0.05,
    level: float = 0.95,
    power: float = 0.8,
    correction: str = "holm",
    rank_critical: str = "each",
    clusters: ClusterSpec = "auto",
    pair: Sequence[str] | None = None,
    random_state: SeedLike = 0,
    progress: ProgressFn | None = None,
) -> ComparisonResult:
    """Compare every pair of models of ``panel``, per benchmark and overall (module docstring).

    Parameters
    ----------
    panel:
        The score panel; its image-condition runs are compared (text-only runs are left out, with a
        warning).
    benchmarks:
        The benchmarks to compare (default all).
    n_boot, random_state:
        Bootstrap replicates and seed (same seed, same bytes).
    alpha, correction:
        Test level, and the correction across a section's pairs that decides ``separated`` and the tie
        groups: ``"holm"`` (family-wise error, default), ``"bh"`` (false discovery rate) or ``"none"``.
    level:
        Level of the score, difference and rank intervals.
    power:
        Power of the minimum detectable difference and of the items needed.
    rank_critical:
        The rank intervals' critical values (:func:`benchsift.stats.rank_interval_pairwise`): ``"each"``
        (default), each direction of claim (above / below the model) at its own one-sided critical value;
        ``"worst"``, both at the larger of the two (the interval before: wider, never closer to ``level``).
    clusters:
        Item clusters resampled whole (:func:`benchsift.panel.item_clusters`): ``"auto"``, ``None``, a
        column name or one label per item.
    pair:
        Two model ids: also report that pair's power now and the items that would separate it
        (:attr:`ComparisonResult.pair_power`).
    progress:
        ``progress(done, total)`` over the pairs of all sections.

    Returns
    -------
    ComparisonResult
    """
    Panel.check(panel, "panel")
    alpha, level, power = float(alpha), float(level), float(power)
    warnings: list[str] = []
    image = panel.image_panel()
    if image.n_models < panel.n_models:
        warnings.append(
            f"{panel.n_models - image.n_models} text-only run(s) left out: the leaderboard compares the "
            "image-condition runs"
        )
    if benchmarks is not None:
        image = image.select_benchmarks(benchmarks)  # one name or several (a str was split into letters)
    models = image.model_ids
    named = _check_pair(pair, models)
    if len(models) < 2:
        raise DegenerateError(f"compare: need at least 2 models, got {len(models)}")
    found = item_clusters(image.items, clusters)
    warnings += found.warnings
    bench = image.items["benchmark"].to_numpy(dtype=object)
    strata, _ = cluster_codes(pd.factorize(pd.Series(bench, dtype=object), sort=False)[0])
    rng = check_random_state(random_state)
    # the stratified cluster bootstrap's weights, drawn in blocks of replicates (no panel is too large:
    # held as one matrix up to stats.paired.HOLD entries, else streamed; the same bytes either way)
    W = WeightStream(image.n_items, int(n_boot), rng, clusters=found.codes, strata=strata)
    plans = _section_plans(image, bench, warnings)
    outs = _run_sections(
        plans,
        models,
        image.scores,
        W,
        alpha=alpha,
        level=level,
        power=power,
        correction=correction,
        rank_critical=rank_critical,
        progress=progress,
    )
    pairs = pd.concat([o["pairs"] for o in outs], ignore_index=True)
    pair_power = _pair_power(pairs, named, alpha, power) if named is not None else None
    warn_each(warnings, "compare")
    return ComparisonResult(
        leaderboard=pd.concat([o["board"] for o in outs], ignore_index=True),
        pairs=pairs,
        resolution=pd.DataFrame([o["resolution"] for o in outs]),
        ties={o["resolution"]["section"]: o["ties"] for o in outs},
        pair_power=pair_power,
        warnings=warnings,
        parameters={
            "n_boot": int(n_boot),
            "alpha": alpha,
            "level": level,
            "power": power,
            "correction": correction,
            "random_state": random_state if isinstance(random_state, int | None) else "Generator",
            "p_value": "bootstrap Wald 2 Phi(-|delta| / se*)",
            "rank_interval": _RANK_TEXT[rank_critical],
            "rank_critical": rank_critical,
        },
        clusters=found.to_dict(),
    )
