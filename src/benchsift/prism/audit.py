"""Judge audits (PRISM-VLM Sec. 5.3 "Cross-judge audit", App. C "Judge", App. E / F, Table 7, Table 21).

- Cross-judge audit: per axis, draw ``S`` (default 200) items without replacement among those the second
  judge graded, compute every model's axis mean on them under each judge, and report the Spearman
  correlation between the two model leaderboards; an axis is admitted into PScore iff ``rho >= 0.95``.
  The overall rho compares the PScores built from those per-axis subset means.
- Item-level agreement between a judge and human labels: Cohen's kappa
  ``kappa = (p_o - p_e) / (1 - p_e)``, ``p_o`` the observed agreement and ``p_e = sum_k p_judge(k)
  p_human(k)`` the chance agreement, and the raw disagreement rate ``1 - p_o``, per axis and overall.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass
from numbers import Integral, Real
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike, NDArray

from benchsift._inputs import check_length
from benchsift._params import Interval, validate_params
from benchsift._schema import Col, check_frame
from benchsift.errors import InputError
from benchsift.io.verdicts import VerdictArrays, read_table
from benchsift.prism.aggregate import pscore
from benchsift.prism.scores import axis_means, axis_terms
from benchsift.results import Result
from benchsift.stats import SeedLike, check_random_state, spearman

__all__ = [
    "CrossJudgeAudit",
    "align_arrays",
    "audit_summary",
    "cohen_kappa",
    "cross_judge_audit",
    "judge_human_agreement",
    "load_labels",
]

FloatArray = NDArray[np.float64]


@dataclass(frozen=True, repr=False)
class CrossJudgeAudit(Result):
    """Per-axis leaderboard Spearman between two judges (Table 7) and the admission decisions."""

    table: pd.DataFrame  # index axis: rho, n_items, admitted
    overall: float
    threshold: float

    @property
    def admitted_axes(self) -> list[str]:
        return [str(a) for a, ok in self.table["admitted"].items() if ok]

    def to_dict(self) -> dict[str, Any]:
        """JSON-able: ``axes`` {axis: {rho, n_items, admitted}}, ``overall``, ``threshold``,
        ``admitted_axes`` and ``all_admitted``."""
        axes = {
            str(a): {"rho": float(r["rho"]), "n_items": int(r["n_items"]), "admitted": bool(r["admitted"])}
            for a, r in self.table.iterrows()
        }
        return {
            "axes": axes,
            "overall": float(self.overall),
            "threshold": float(self.threshold),
            "admitted_axes": self.admitted_axes,
            "all_admitted": len(self.admitted_axes) == len(axes),
        }

    def to_frame(self) -> pd.DataFrame:
        """Per axis: rho, items and the admission decision (Table 7)."""
        return self.table.copy()


def align_arrays(reference: VerdictArrays, other: VerdictArrays) -> VerdictArrays:
    """``other`` re-indexed onto ``reference``'s models, items and axes; NaN where absent."""
    missing = [m for m in reference.models if m not in other.models]
    if missing:
        raise InputError(f"second judge's verdicts lack model(s) {missing}")
    mi = np.array([other.models.index(m) for m in reference.models])
    key_o = pd.Index(
        np.char.add(np.char.add(other.benchmarks.astype(str), "\x1f"), other.item_ids.astype(str))
    )
    key_r = np.char.add(np.char.add(reference.benchmarks.astype(str), "\x1f"), reference.item_ids.astype(str))
    ii = key_o.get_indexer(key_r)
    has = ii >= 0
    ai = np.array([other.axes.index(a) if a in other.axes else -1 for a in reference.axes])

    def take(a: FloatArray | None) -> FloatArray | None:
        if a is None:
            return None
        out = np.full((reference.n_models, reference.n_items), np.nan)
        out[:, has] = a[mi][:, ii[has]]
        return out

    scores = np.full(reference.scores.shape, np.nan)
    for j, k in enumerate(ai):
        if k >= 0:
            scores[:, has, j] = other.scores[mi][:, ii[has], k]
    return VerdictArrays(
        models=list(reference.models),
        axes=list(reference.axes),
        benchmarks=reference.benchmarks,
        item_ids=reference.item_ids,
        domains=reference.domains,
        scores=scores,
        partial=take(other.partial),
        sc_turn0_correct=take(other.sc_turn0_correct),
        sc_flip_turn=take(other.sc_flip_turn),
        sc_adopted=take(other.sc_adopted),
    )


@validate_params(
    {
        "n_items": [Interval(Integral, 2, None)],
        "threshold": [Interval(Real, -1, 1, desc="a number in [-1, 1] (a Spearman rho)")],
    }
)
def cross_judge_audit(
    primary: VerdictArrays,
    secondary: VerdictArrays,
    n_items: int = 200,
    random_state: SeedLike = 0,
    threshold: float = 0.95,
    sc_variant: str = "B",
) -> CrossJudgeAudit:
    """Cross-judge audit of PRISM-VLM Sec. 5.3 / Table 7 (see module docstring).

    Items are eligible for an axis when the second judge graded that axis for at least one model; the
    ``n_items`` are drawn without replacement from them (all of them when fewer).
    """
    other = align_arrays(primary, secondary)
    rng = check_random_state(random_state)
    rows = {}
    sub_means_p = np.full((primary.n_models, primary.n_axes), np.nan)
    sub_means_s = np.full_like(sub_means_p, np.nan)
    for a, axis in enumerate(primary.axes):  # seven axes: one draw each
        _, den = axis_terms(other, axis, sc_variant)
        eligible = (
            np.flatnonzero(den.sum(axis=0) > 0)
            if axis == "sc"
            else np.flatnonzero((~np.isnan(other.scores[:, :, a])).any(axis=0))
        )
        if eligible.size == 0:
            rows[axis] = {"rho": float("nan"), "n_items": 0, "admitted": False}
            continue
        take = np.sort(rng.choice(eligible, size=min(int(n_items), eligible.size), replace=False))
        mask = np.zeros(primary.n_items, dtype=bool)
        mask[take] = True
        mp = axis_means(primary.subset_items(mask), sc_variant)[:, a]
        ms = axis_means(other.subset_items(mask), sc_variant)[:, a]
        sub_means_p[:, a], sub_means_s[:, a] = mp, ms
        rho = spearman(mp, ms)
        rows[axis] = {"rho": rho, "n_items": int(take.size), "admitted": bool(rho >= threshold)}
    ok = ~np.isnan(sub_means_p).any(axis=1) & ~np.isnan(sub_means_s).any(axis=1)
    ok &= (sub_means_p > 0).all(axis=1) & (sub_means_s > 0).all(axis=1)
    overall = spearman(pscore(sub_means_p[ok]), pscore(sub_means_s[ok])) if ok.sum() >= 2 else float("nan")
    table = pd.DataFrame(rows).T
    table.index.name = "axis"
    table = table.astype({"rho": float, "n_items": int, "admitted": bool})
    return CrossJudgeAudit(table=table, overall=overall, threshold=threshold)


def _canonical_labels(values: ArrayLike) -> pd.Series:
    """Labels as comparable strings, NA kept: numbers by value (``1``, ``1.0`` and ``"1"`` are one label,
    as when a CSV column with a missing entry is read as float), anything else as stripped text."""
    raw = pd.Series(np.asarray(values, dtype=object))
    missing = raw.isna().to_numpy()
    num = pd.to_numeric(raw, errors="coerce")
    out = raw.astype("string").str.strip()
    is_num = num.notna().to_numpy() & ~missing
    out[is_num] = [repr(float(v)) for v in num[is_num]]
    out[missing] = pd.NA
    return out


def _agreement(a: ArrayLike, b: ArrayLike) -> tuple[float, float, int]:
    """Cohen's kappa, disagreement rate ``1 - p_o`` and number of pairs, over pairs with both labels."""
    x, y = _canonical_labels(a), _canonical_labels(b)
    check_length("cohen_kappa: b", y, len(x), "labels (one per label of a)")
    keep = (x.notna() & y.notna()).to_numpy()
    x, y = x[keep], y[keep]
    n = len(x)
    if n == 0:
        return float("nan"), float("nan"), 0
    labels = pd.Index(pd.unique(pd.concat([x, y])))
    xi, yi = labels.get_indexer(x), labels.get_indexer(y)
    conf = np.zeros((labels.size, labels.size))
    np.add.at(conf, (xi, yi), 1.0)
    po = float(np.trace(conf) / n)
    pe = float((conf.sum(axis=1) / n) @ (conf.sum(axis=0) / n))
    kappa = float("nan") if pe >= 1.0 else (po - pe) / (1.0 - pe)
    return kappa, 1.0 - po, n


def cohen_kappa(a: ArrayLike, b: ArrayLike) -> float:
    """Cohen's kappa between two label sequences (pairs with a missing side dropped).

    ``(p_o - p_e) / (1 - p_e)``; NaN when no pair is left or ``p_e == 1`` (both raters constant on one
    label). Numeric labels compare by value (1 == 1.0). Checked against
    ``sklearn.metrics.cohen_kappa_score``.
    """
    return _agreement(a, b)[0]


#: the labels of a paired verdict (Table 21 compares pass/fail verdicts, one per item or list element)
VERDICT_LABELS = ("0", "1")


def check_verdict_labels(
    labels: pd.DataFrame, columns: Sequence[str], where: str, first_line: int = 0
) -> None:
    """Refuse a label that is not a 0/1 verdict (``1``, ``1.0``, ``" 1"``, ``true`` all read as 1; missing
    is allowed and left out): PRISM-VLM's judge and human verdicts are pass/fail (App. F, Table 21), and
    ``yes``/``no`` or ``2``/``7`` would otherwise count as categories of their own and give a kappa of
    something else (issue 32). With ``first_line`` the message names the file line of the row."""
    for c in columns:
        canon = _canonical_labels(labels[c])
        bad = canon.notna().to_numpy() & ~canon.isin([repr(0.0), repr(1.0)]).to_numpy()
        if bad.any():
            i = int(np.flatnonzero(bad)[0])
            row = f"line {first_line + i}" if first_line else f"row {i + 1}"
            raise InputError(
                f"{where}, {row}: {c!r} label {str(labels[c].iloc[i])!r} is not a verdict; expected 0 or 1 "
                f"(fail / pass; {int(bad.sum())} such label(s) in the column)"
            )


def _label_schema(judge: str, human: str) -> dict[str, Col]:
    """The paired-label table: the judge's and the human's label columns (a missing label is left out)."""
    return {judge: Col(empty=True), human: Col(empty=True)}


def judge_human_agreement(
    labels: pd.DataFrame, judge: str = "judge", human: str = "human", axis: str = "axis"
) -> pd.DataFrame:
    """Table 21: per-axis (and ``overall``) Cohen's kappa, disagreement rate and number of paired verdicts.

    ``labels`` has one row per paired verdict with the judge's and the human label (any hashable
    labels, e.g. 0/1; numbers compare by value) and, optionally, the axis. Rows missing either label
    are left out.
    """
    check_frame(labels, _label_schema(judge, human), where="judge/human labels")
    check_verdict_labels(labels, (judge, human), "judge/human labels")
    groups: dict[str, pd.DataFrame] = {}
    if axis in labels.columns:
        groups.update({str(k): g for k, g in labels.groupby(axis, sort=False)})
    groups["overall"] = labels
    rows = {}
    for name, g in groups.items():
        kappa, dis, n = _agreement(g[judge], g[human])
        rows[name] = {"kappa": kappa, "disagreement": dis, "n": n}
    return pd.DataFrame(rows).T.astype({"kappa": float, "disagreement": float, "n": int})


def load_labels(path: str | os.PathLike[str], judge: str = "judge", human: str = "human") -> pd.DataFrame:
    """Read a judge-vs-human label table (CSV or parquet): one row per paired verdict with a ``judge`` and
    a ``human`` label column and, optionally, an ``axis`` column (PRISM-VLM Table 21)."""
    p = Path(path)
    df = read_table(p)
    hint = " (one row per paired verdict, optionally with an 'axis' column)"
    check_frame(df, _label_schema(judge, human), where=str(p), nonempty=True, hint=hint)
    check_verdict_labels(
        df, (judge, human), str(p), first_line=2 if p.suffix.lower() in (".csv", ".tsv") else 0
    )
    return df


def audit_summary(cross: CrossJudgeAudit | None, human: pd.DataFrame | None) -> dict[str, Any]:
    """The JSON object of ``benchsift prism audit``: ``cross_judge`` (:meth:`CrossJudgeAudit.to_dict`) and
    ``human_agreement`` {axis or "overall": {kappa, disagreement, n}}, each present when computed."""
    out: dict[str, Any] = {}
    if cross is not None:
        out["cross_judge"] = cross.to_dict()
    if human is not None:
        out["human_agreement"] = {
            str(a): {"kappa": float(r["kappa"]), "disagreement": float(r["disagreement"]), "n": int(r["n"])}
            for a, r in human.iterrows()
        }
    return out
