""":func:`audit`: every health signal of every benchmark of a panel, in one call."""

from __future__ import annotations

import sys
from collections.abc import Sequence
from dataclasses import dataclass, field
from itertools import pairwise
from numbers import Integral, Real
from typing import Any

import numpy as np
import pandas as pd

from benchsift._params import ConstraintLike, Interval, Options, check_params
from benchsift.audit.dif import (
    DIF_MATCHING,
    DIF_TESTS,
    IRT_TOL,
    DifTest,
    irt_ability,
    logistic_dif,
    matching_ability,
)
from benchsift.audit.discrimination import (
    conditional_bh,
    fisher_z_interval,
    item_rest_correlation,
    negative_discrimination_pvalue,
)
from benchsift.audit.duplicates import response_duplicates, text_duplicates
from benchsift.audit.noise import benchmark_noise
from benchsift.audit.result import FLAGS, AuditResult
from benchsift.audit.saturation import BLIND_THRESHOLD, CEILING, item_saturation
from benchsift.audit.slopes import twopl_slopes
from benchsift.errors import DegenerateError, InputError, require_at_least, warn_each
from benchsift.irt import TwoPL
from benchsift.panel import Panel
from benchsift.stats import bh_adjust

__all__ = ["DIF_BY", "DISCRIMINATION", "MIN_MODELS", "audit"]

#: fewest image-condition models the audit runs on (Fisher z needs n > 3; a ranking of 4 says little)
MIN_MODELS = 5
#: most re-tests with a purified criterion (they stop when the flagged items stop changing)
PURIFY_PASSES = 3
#: what ``discrimination`` accepts: the item-rest correlation, or the fitted 2PL slope
DISCRIMINATION = ("item-rest", "2pl")
#: what ``dif_by`` accepts
DIF_BY = ("auto", "release_date", "family", "none")


def _is_binary(X: np.ndarray) -> bool:
    present = X[~np.isnan(X)]
    return bool(np.isin(present, (0.0, 1.0)).all())


def _groups(
    models: pd.DataFrame, dif_by: str, era_cutoff: Any, min_group: int, warnings: list[str]
) -> tuple[str | None, list[tuple[str, np.ndarray]], dict[str, Any]]:
    """The DIF grouping: ``(by, [(group name, 0/1/NaN indicator over the image rows)], info)``; ``by`` is
    None (DIF skipped, reason in ``warnings``) when the metadata cannot form groups."""
    info: dict[str, Any] = {}
    if dif_by == "none":
        return None, [], info
    reasons: list[str] = []
    if dif_by in ("auto", "release_date"):
        dates = pd.to_datetime(models["release_date"])
        dated = dates.notna().to_numpy()
        if era_cutoff is not None:
            try:
                cutoff = pd.Timestamp(era_cutoff)
            except (ValueError, TypeError):
                raise InputError(f"`era_cutoff`: {era_cutoff!r} is not a date (use YYYY-MM-DD)") from None
        elif dated.any():
            ns = dates[dated].to_numpy().astype("datetime64[ns]").astype(np.int64)
            cutoff = pd.Timestamp(int(np.median(ns))).normalize()
        else:
            cutoff = None
        if cutoff is not None:
            newer = np.where(dated, (dates >= cutoff).to_numpy(), False)
            n_new, n_old = int(newer.sum()), int((dated & ~newer).sum())
            if min(n_new, n_old) >= min_group:
                g = np.where(dated, newer.astype(np.float64), np.nan)
                info = {"cutoff": str(cutoff.date()), "n_newer": n_new, "n_older": n_old}
                if (~dated).any():
                    warnings.append(
                        f"DIF by release era: {int((~dated).sum())} model(s) without a release_date left out"
                    )
                return "release_date", [(f"released >= {cutoff.date()}", g)], info
            reasons.append(
                f"release_date splits the models into {n_new} newer and {n_old} older "
                f"(at least `min_group`={min_group} each needed)"
            )
        else:
            reasons.append("no model has a release_date")
        if dif_by == "release_date":
            raise DegenerateError(f"DIF by release era: {reasons[-1]}")
    family = models["family"]
    known = family.notna().to_numpy()
    counts = family[known].value_counts()
    n_known = int(known.sum())
    eligible = [str(f) for f, c in counts.items() if c >= min_group and n_known - c >= min_group]
    if eligible:
        fam = family.to_numpy(dtype=object)
        out = [(f, np.where(known, (fam == f).astype(np.float64), np.nan)) for f in eligible]
        info = {"families": eligible}
        if dif_by == "auto" and reasons:
            warnings.append(f"DIF by family instead of release era: {reasons[-1]}")
        return "family", out, info
    reason = (
        "no model has a family"
        if n_known == 0
        else f"no family has at least `min_group`={min_group} models with that many outside it"
    )
    if dif_by == "family":
        raise DegenerateError(f"DIF by family: {reason}")
    warnings.append(
        "DIF skipped: the models table cannot form groups ("
        + "; ".join([*reasons, reason])
        + "); add release_date or family to the models (benchsift import ... --models FILE)"
    )
    return None, [], info


def _dif_pass(
    blocks: list[tuple[np.ndarray, np.ndarray]],
    groups: list[tuple[str, np.ndarray]],
    criteria: list[np.ndarray | None],
    matching: str,
    test: str,
    fits: dict[int, TwoPL],
) -> tuple[list[DifTest], list[np.ndarray]]:
    """One DIF pass over the benchmarks ``blocks`` ``[(X, row mask)]``: per benchmark the test of the
    best group per item and the index of that group (Bonferroni over the groups). ``fits`` caches the
    matching 2PL of each benchmark (``matching="irt"``) over the passes."""
    tests: list[DifTest] = []
    which: list[np.ndarray] = []
    for k, ((X, rows), crit) in enumerate(zip(blocks, criteria, strict=True)):
        if matching == "irt":
            if k not in fits:
                fits[k] = TwoPL(tol=IRT_TOL).fit(X)
            theta = irt_ability(X, crit, fits[k])
        else:
            theta = matching_ability(X, crit)
        per = [logistic_dif(X, theta, g[rows], test=test) for _, g in groups]
        P = np.vstack([t.p_greater for t in per])
        best = np.where(np.isnan(P).all(axis=0), 0, np.nanargmin(np.where(np.isnan(P), np.inf, P), axis=0))
        cols = np.arange(X.shape[1])
        p = np.minimum(P[best, cols] * len(groups), 1.0)
        tests.append(
            DifTest(
                coef=np.vstack([t.coef for t in per])[best, cols],
                g2=np.vstack([t.g2 for t in per])[best, cols],
                p_greater=p,
                n_models=np.vstack([t.n_models for t in per])[best, cols],
            )
        )
        which.append(best)
    return tests, which


@dataclass(frozen=True)
class _Options:
    """The checked parameters of :func:`audit` (``era_cutoff`` goes to :func:`_groups` unchecked)."""

    alpha: float
    discrimination: str
    min_discrimination: float
    min_slope: float
    ceiling: float
    blind_threshold: float
    power: float
    duplicate_tolerance: float
    min_minority: int
    text_similarity: float
    dif_by: str
    min_group: int
    dif_matching: str
    dif_test: str


_UNIT_OPEN = Interval(Real, 0, 1, closed="neither")
_UNIT_RIGHT = Interval(Real, 0, 1, closed="right")
#: every option of :func:`audit`, declared once, in the order the messages come
_OPTION_CONSTRAINTS: dict[str, list[ConstraintLike]] = {
    "alpha": [_UNIT_OPEN],
    "power": [_UNIT_OPEN],
    "ceiling": [_UNIT_RIGHT],
    "blind_threshold": [_UNIT_RIGHT],
    "duplicate_tolerance": [Interval(Real, 0, 1, closed="left")],
    "text_similarity": [_UNIT_RIGHT],
    "discrimination": [Options(DISCRIMINATION)],
    "min_slope": [Interval(Real, -sys.float_info.max, sys.float_info.max, desc="a finite number")],
    "min_discrimination": [Interval(Real, -1, 1, noun="a correlation")],
    "min_minority": [Interval(Integral, 1, None)],
    "min_group": [Interval(Integral, 1, None)],
    "dif_by": [Options(DIF_BY)],
    "dif_matching": [Options(DIF_MATCHING)],
    "dif_test": [Options(DIF_TESTS)],
}


def _checked_options(
    *,
    alpha: float,
    discrimination: str,
    min_discrimination: float,
    min_slope: float,
    ceiling: float,
    blind_threshold: float,
    power: float,
    duplicate_tolerance: float,
    min_minority: int,
    text_similarity: float,
    dif_by: str,
    min_group: int,
    dif_matching: str,
    dif_test: str,
) -> _Options:
    """Every parameter of :func:`audit` checked, in the order the messages come (:class:`InputError`)."""
    check_params(_OPTION_CONSTRAINTS, locals())
    return _Options(
        alpha=float(alpha),
        discrimination=discrimination,
        min_discrimination=float(min_discrimination),
        min_slope=float(min_slope),
        ceiling=float(ceiling),
        blind_threshold=float(blind_threshold),
        power=float(power),
        duplicate_tolerance=float(duplicate_tolerance),
        min_minority=min_minority,
        text_similarity=float(text_similarity),
        dif_by=dif_by,
        min_group=min_group,
        dif_matching=dif_matching,
        dif_test=dif_test,
    )


@dataclass
class _Columns:
    """The per-item columns the benchmark loop fills in place, and the per-benchmark rows, duplicate pairs,
    DIF blocks and not-computed flags it collects beside them."""

    disc: np.ndarray
    lo: np.ndarray
    hi: np.ndarray
    p_neg: np.ndarray
    n_models: np.ndarray
    mean: np.ndarray
    all_c: np.ndarray
    all_w: np.ndarray
    near: np.ndarray
    blind: np.ndarray
    blind_mean: np.ndarray
    dup_resp: np.ndarray
    dup_text: np.ndarray
    dup_of: list[list[str]]
    pair_frames: list[pd.DataFrame] = field(default_factory=list)
    bench_rows: list[dict[str, Any]] = field(default_factory=list)
    dif_blocks: list[tuple[np.ndarray, np.ndarray]] = field(default_factory=list)
    dif_cols: list[np.ndarray] = field(default_factory=list)
    # per benchmark, the flags whose signal was not computed: their count is missing (NaN), never 0
    not_computed: dict[str, set[str]] = field(default_factory=dict)

    @classmethod
    def empty(cls, n: int) -> _Columns:
        return cls(
            disc=np.full(n, np.nan),
            lo=np.full(n, np.nan),
            hi=np.full(n, np.nan),
            p_neg=np.full(n, np.nan),
            n_models=np.zeros(n, dtype=np.int64),
            mean=np.full(n, np.nan),
            all_c=np.zeros(n, dtype=bool),
            all_w=np.zeros(n, dtype=bool),
            near=np.zeros(n, dtype=bool),
            blind=np.zeros(n, dtype=bool),
            blind_mean=np.full(n, np.nan),
            dup_resp=np.zeros(n, dtype=bool),
            dup_text=np.zeros(n, dtype=bool),
            dup_of=[[] for _ in range(n)],
        )


def _saturation_step(
    col: _Columns, b: str, cols: np.ndarray, Xb: np.ndarray, Tb: np.ndarray | None, opts: _Options
) -> dict[str, Any]:
    """Saturation of benchmark ``b`` into ``col``; returns its benchmark row (counts and shares)."""
    rows = (~np.isnan(Xb)).any(axis=1)
    sat = item_saturation(Xb, Tb, opts.ceiling, opts.blind_threshold)
    col.mean[cols], col.n_models[cols] = sat.mean, sat.n_models
    col.all_c[cols], col.all_w[cols], col.near[cols] = sat.all_correct, sat.all_wrong, sat.near_ceiling
    col.blind_mean[cols], col.blind[cols] = sat.blind_mean, sat.blind_solvable
    if not np.isfinite(sat.blind_mean).any():
        col.not_computed.setdefault(b, set()).add("blind-solvable")
    return {
        "benchmark": b,
        "n_items": int(cols.size),
        "n_models": int(rows.sum()),
        "mean_score": float(np.nanmean(sat.mean)) if np.isfinite(sat.mean).any() else float("nan"),
        "share_all_correct": float(sat.all_correct.mean()),
        "share_near_ceiling": float(sat.near_ceiling.mean()),
        "share_all_wrong": float(sat.all_wrong.mean()),
        "share_blind_solvable": (
            float(sat.blind_solvable[np.isfinite(sat.blind_mean)].mean())
            if np.isfinite(sat.blind_mean).any()
            else float("nan")
        ),
    }


def _discrimination_step(col: _Columns, cols: np.ndarray, Xr: np.ndarray, opts: _Options) -> None:
    """Per item discrimination, its interval and one-sided p-value (item-rest or 2PL slope) into ``col``."""
    if opts.discrimination == "2pl":
        sl = twopl_slopes(Xr, level=1.0 - opts.alpha)
        col.disc[cols], col.lo[cols], col.hi[cols], col.p_neg[cols] = sl.slope, sl.low, sl.high, sl.p_negative
    else:
        r, nr = item_rest_correlation(Xr)
        col.disc[cols] = r
        col.lo[cols], col.hi[cols] = fisher_z_interval(r, nr, level=1.0 - opts.alpha)
        col.p_neg[cols] = negative_discrimination_pvalue(r, nr)


def _noise_step(b: str, Xr: np.ndarray, opts: _Options, warnings: list[str]) -> dict[str, Any]:
    """The signal-to-noise columns of benchmark ``b``'s row."""
    noise = benchmark_noise(Xr, alpha=opts.alpha, power=opts.power)
    if not noise.signal_variance > 0:
        warnings.append(f"benchmark {b!r}: every model has the same score: signal-to-noise undefined")
    return {
        "snr": noise.snr,
        "reliability": noise.reliability,
        "mean_se": noise.mean_se,
        "mdd": noise.mdd,
        "signal_variance": noise.signal_variance,
        "noise_variance": noise.noise_variance,
    }


def _duplicates_step(
    col: _Columns,
    b: str,
    cols: np.ndarray,
    Xr: np.ndarray,
    questions: np.ndarray | None,
    item_ids: np.ndarray,
    opts: _Options,
) -> None:
    """Duplicate responses (and duplicate text, given ``questions``) of benchmark ``b`` into ``col``."""
    pairs = [response_duplicates(Xr, opts.duplicate_tolerance, MIN_MODELS * 2, opts.min_minority)]
    if questions is not None:
        pairs.append(text_duplicates(questions[cols], opts.text_similarity))
    for frame in pairs:
        for a, c, kind in zip(frame["item_a"], frame["item_b"], frame["kind"], strict=True):
            ia, ic = int(cols[int(a)]), int(cols[int(c)])
            (col.dup_resp if kind == "responses" else col.dup_text)[[ia, ic]] = True
            for x, y in ((ia, ic), (ic, ia)):
                if item_ids[y] not in col.dup_of[x]:
                    col.dup_of[x].append(str(item_ids[y]))
        if len(frame):
            out = frame.copy()
            out["item_a"] = item_ids[cols[out["item_a"].to_numpy(dtype=np.int64)]]
            out["item_b"] = item_ids[cols[out["item_b"].to_numpy(dtype=np.int64)]]
            out.insert(0, "benchmark", b)
            col.pair_frames.append(out)


def _benchmark_step(
    col: _Columns,
    b: str,
    cols: np.ndarray,
    X_all: np.ndarray,
    T_all: np.ndarray | None,
    questions: np.ndarray | None,
    item_ids: np.ndarray,
    by: str | None,
    opts: _Options,
    warnings: list[str],
) -> None:
    """Every per-benchmark signal of benchmark ``b`` (items ``cols``): saturation always; discrimination,
    signal-to-noise, duplicates and the DIF block when at least :data:`MIN_MODELS` models scored it."""
    Xb = X_all[:, cols]
    rows = (~np.isnan(Xb)).any(axis=1)
    row = _saturation_step(col, b, cols, Xb, T_all[:, cols] if T_all is not None else None, opts)
    skipped = col.not_computed.setdefault(b, set())
    if int(rows.sum()) < MIN_MODELS:
        skipped.update(("negative-discrimination", "low-discrimination", "duplicate-responses"))
        skipped.update(("duplicate-text", "dif"))
        warnings.append(
            f"benchmark {b!r}: {int(rows.sum())} image-condition model(s) scored it, at least "
            f"{MIN_MODELS} needed: discrimination, signal-to-noise, duplicates and DIF skipped"
        )
        col.bench_rows.append(row)
        return
    Xr = Xb[rows]
    _discrimination_step(col, cols, Xr, opts)
    row.update(_noise_step(b, Xr, opts, warnings))
    if questions is None:
        skipped.add("duplicate-text")
    if by is None or not _is_binary(Xr):
        skipped.add("dif")
    _duplicates_step(col, b, cols, Xr, questions, item_ids, opts)
    if by is not None:
        if _is_binary(Xr):
            col.dif_blocks.append((Xr, rows))
            col.dif_cols.append(cols)
        else:
            warnings.append(f"benchmark {b!r}: graded scores (not 0/1): DIF skipped (it models 0/1 answers)")
    col.bench_rows.append(row)


def _dif_step(
    col: _Columns, groups: list[tuple[str, np.ndarray]], n: int, opts: _Options
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """DIF over the collected binary benchmarks, re-tested with a purified criterion (at most
    :data:`PURIFY_PASSES` times): ``(coef, p, BH q, group)`` per item, NaN / None where not tested."""
    dif_coef, dif_p, dif_q = np.full(n, np.nan), np.full(n, np.nan), np.full(n, np.nan)
    dif_group = np.full(n, None, dtype=object)
    if not col.dif_blocks:
        return dif_coef, dif_p, dif_q, dif_group
    blocks, dif_cols = col.dif_blocks, col.dif_cols
    fits: dict[int, TwoPL] = {}
    tests, which = _dif_pass(blocks, groups, [None] * len(blocks), opts.dif_matching, opts.dif_test, fits)
    flagged_before = np.zeros(sum(c.size for c in dif_cols), dtype=bool)
    for _ in range(PURIFY_PASSES):
        q1 = bh_adjust(np.concatenate([t.p_greater for t in tests]))
        flagged = np.nan_to_num(q1, nan=1.0) <= opts.alpha
        if np.array_equal(flagged, flagged_before):
            break
        flagged_before = flagged
        bounds = np.cumsum([0] + [c.size for c in dif_cols])
        criteria: list[np.ndarray | None] = [~flagged[a:b] for a, b in pairwise(bounds)]
        tests, which = _dif_pass(blocks, groups, criteria, opts.dif_matching, opts.dif_test, fits)
    for cols, t, w in zip(dif_cols, tests, which, strict=True):
        dif_coef[cols], dif_p[cols] = t.coef, t.p_greater
        dif_group[cols] = np.where(np.isfinite(t.p_greater), np.array([g for g, _ in groups])[w], None)
    dif_q = bh_adjust(dif_p)
    return dif_coef, dif_p, dif_q, dif_group


def _item_table(
    col: _Columns,
    items_meta: pd.DataFrame,
    item_ids: np.ndarray,
    groups: list[tuple[str, np.ndarray]],
    opts: _Options,
) -> pd.DataFrame:
    """The flags (discrimination BH, DIF) and the per-item table, one row per item in panel order."""
    n = item_ids.size
    q_neg = conditional_bh(col.p_neg)
    negative = np.nan_to_num(q_neg, nan=1.0) <= opts.alpha
    threshold = opts.min_slope if opts.discrimination == "2pl" else opts.min_discrimination
    low = ~negative & (np.nan_to_num(col.hi, nan=np.inf) < threshold)
    dif_coef, dif_p, dif_q, dif_group = _dif_step(col, groups, n, opts)
    masks = {
        "negative-discrimination": negative,
        "low-discrimination": low,
        "all-correct": col.all_c,
        "all-wrong": col.all_w,
        "near-ceiling": col.near,
        "blind-solvable": col.blind,
        "duplicate-responses": col.dup_resp,
        "duplicate-text": col.dup_text,
        "dif": np.nan_to_num(dif_q, nan=1.0) <= opts.alpha,
    }
    stacked = np.vstack([masks[f] for f in FLAGS])
    flags = [tuple(f for f, on in zip(FLAGS, stacked[:, i], strict=True) if on) for i in range(n)]
    return pd.DataFrame(
        {
            "benchmark": items_meta["benchmark"].to_numpy(dtype=object),
            "item": item_ids,
            "n_models": col.n_models,
            "mean_score": col.mean,
            "discrimination": col.disc,
            "discrimination_low": col.lo,
            "discrimination_high": col.hi,
            "p_negative": col.p_neg,
            "q_negative": q_neg,
            "all_correct": col.all_c,
            "all_wrong": col.all_w,
            "near_ceiling": col.near,
            "blind_mean": col.blind_mean,
            "blind_solvable": col.blind,
            "dif_coef": dif_coef,
            "dif_p": dif_p,
            "dif_q": dif_q,
            "dif_group": dif_group,
            "duplicate_of": [tuple(d) for d in col.dup_of],
            "flags": flags,
        }
    )


def _benchmark_table(col: _Columns, items: pd.DataFrame) -> pd.DataFrame:
    """The per-benchmark table: the loop's rows plus a count per flag (NaN where not computed)."""
    bench = pd.DataFrame(col.bench_rows)
    for f in FLAGS:
        per = items.groupby("benchmark", sort=False)["flags"].agg(lambda s, f=f: int(sum(f in x for x in s)))
        counts = bench["benchmark"].map(per).fillna(0).astype(np.int64)
        bench[f"n_{f.replace('-', '_')}"] = pd.Series(
            [
                np.nan if f in col.not_computed.get(b, ()) else int(c)
                for b, c in zip(bench["benchmark"], counts, strict=True)
            ],
            index=bench.index,
            dtype=object,
        )
    bench["n_flagged"] = bench["benchmark"].map(
        items.groupby("benchmark", sort=False)["flags"].agg(lambda s: int(sum(len(x) > 0 for x in s)))
    )
    return bench


def _duplicate_table(col: _Columns) -> pd.DataFrame:
    return (
        pd.concat(col.pair_frames, ignore_index=True)
        if col.pair_frames
        else pd.DataFrame(columns=["benchmark", "item_a", "item_b", "kind", "similarity", "n_models"])
    )


def _parameters(
    opts: _Options, by: str | None, group_info: dict[str, Any], image: Panel, text: Panel
) -> dict[str, Any]:
    """The ``parameters`` record of the result: the options as used and the panel's sizes."""
    return {
        "alpha": opts.alpha,
        "discrimination": opts.discrimination,
        "min_discrimination": opts.min_discrimination,
        "min_slope": opts.min_slope,
        "ceiling": opts.ceiling,
        "blind_threshold": opts.blind_threshold,
        "power": opts.power,
        "duplicate_tolerance": opts.duplicate_tolerance,
        "min_minority": opts.min_minority,
        "text_similarity": opts.text_similarity,
        "dif_by": by if by is not None else "none",
        "dif_groups": group_info,
        "min_group": opts.min_group,
        "dif_matching": opts.dif_matching,
        "dif_test": opts.dif_test,
        "n_models": image.n_models,
        "n_text_only_runs": text.n_models,
        "n_items": image.n_items,
    }


def audit(
    panel: Panel,
    *,
    benchmarks: Sequence[str] | None = None,
    alpha: float = 0.05,
    discrimination: str = "item-rest",
    min_discrimination: float = 0.1,
    min_slope: float = 0.3,
    ceiling: float = CEILING,
    blind_threshold: float = BLIND_THRESHOLD,
    power: float = 0.8,
    duplicate_tolerance: float = 0.02,
    min_minority: int = 3,
    text_similarity: float = 0.9,
    dif_by: str = "auto",
    era_cutoff: Any = None,
    min_group: int = 5,
    dif_matching: str = "irt",
    dif_test: str = "rstar",
) -> AuditResult:
    """Audit every benchmark of ``panel``: the signals that tell a benchmark builder what to fix.

    Each signal is defined, with its reference, in its module:

    * :mod:`benchsift.audit.discrimination` (``discrimination="item-rest"``, default): item-rest correlation
      with a Fisher-z interval and one-sided p-value; ``negative-discrimination`` (conditional BH
      ``q <= alpha``), ``low-discrimination`` (interval below ``min_discrimination``);
      :mod:`benchsift.audit.slopes` (``discrimination="2pl"``): the fitted 2PL slope (normal slope prior,
      negative slopes allowed) with a Wald interval and one-sided p-value, the same flags with the
      interval below ``min_slope``; the columns ``discrimination``, ``discrimination_low`` / ``_high`` and
      ``p_negative`` then hold the slope, its interval and its p-value;
    * :mod:`benchsift.audit.saturation`: ``all-correct``, ``all-wrong``, ``near-ceiling`` (mean >=
      ``ceiling``), ``blind-solvable`` (text-only mean >= ``blind_threshold``; needs text-only runs, the
      panel's ``condition == "text-only"`` model rows);
    * :mod:`benchsift.audit.noise`: per benchmark signal-to-noise, reliability and the paired minimum
      detectable difference at ``alpha`` and ``power``;
    * :mod:`benchsift.audit.duplicates`: ``duplicate-responses`` (response patterns within
      ``duplicate_tolerance``, both items with ``min_minority`` models on each side) and ``duplicate-text``
      (TF-IDF character n-gram cosine >= ``text_similarity`` of the item column ``question``);
    * :mod:`benchsift.audit.dif`: ``dif`` (logistic-regression DIF by ``dif_by``: ``"release_date"`` era
      split at ``era_cutoff``, default the median date; ``"family"``; ``"auto"``: release era when the
      dates allow it, else family, else skipped with a warning; ``"none"``), BH ``q <= alpha``; matched on
      ``dif_matching`` (``"irt"``: a 2PL ability, default; ``"rest-score"``: the logit of the rest score)
      and tested by ``dif_test`` (``"rstar"``: the modified signed likelihood root, default; ``"lr"``: the
      plain signed root, whose one-sided tail is too heavy with few models).

    Every signal is computed on the image-condition runs, per benchmark.

    Raises
    ------
    InputError
        A parameter out of range or an unknown benchmark.
    DegenerateError
        Fewer than :data:`MIN_MODELS` image-condition models, or a ``dif_by`` the models table cannot serve.
    """
    opts = _checked_options(
        alpha=alpha,
        discrimination=discrimination,
        min_discrimination=min_discrimination,
        min_slope=min_slope,
        ceiling=ceiling,
        blind_threshold=blind_threshold,
        power=power,
        duplicate_tolerance=duplicate_tolerance,
        min_minority=min_minority,
        text_similarity=text_similarity,
        dif_by=dif_by,
        min_group=min_group,
        dif_matching=dif_matching,
        dif_test=dif_test,
    )
    warnings: list[str] = []
    if benchmarks is not None:
        panel = panel.select_benchmarks(list(benchmarks))
    image = panel.image_panel()
    require_at_least(image.n_models, MIN_MODELS, "image-condition models", "the audit ranks items by models")
    text = panel.text_only_panel()
    if text.n_models == 0:
        warnings.append(
            "blind-solvable share not computed: the panel has no text-only runs "
            "(model rows with condition 'text-only')"
        )
    items_meta = image.items
    has_text = "question" in items_meta.columns and items_meta["question"].notna().any()
    if not has_text:
        warnings.append("duplicate-text not computed: the items table has no 'question' text")
    by, groups, group_info = _groups(image.models, opts.dif_by, era_cutoff, opts.min_group, warnings)

    col = _Columns.empty(image.n_items)
    item_ids = items_meta["item"].to_numpy(dtype=object)
    questions = items_meta["question"].to_numpy(dtype=object) if has_text else None
    T_all = text.scores if text.n_models else None
    for b in image.benchmarks:
        cols = np.flatnonzero((items_meta["benchmark"] == b).to_numpy())
        _benchmark_step(col, b, cols, image.scores, T_all, questions, item_ids, by, opts, warnings)

    items = _item_table(col, items_meta, item_ids, groups, opts)
    warn_each(warnings, "audit")
    return AuditResult(
        items=items,
        benchmarks=_benchmark_table(col, items),
        duplicates=_duplicate_table(col),
        warnings=warnings,
        parameters=_parameters(opts, by, group_info, image, text),
    )
