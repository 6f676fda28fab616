"""One call per PRISM-VLM report: a verdict table's leaderboard, an axis-means analysis, a judge audit.

- :func:`score_report`: axis means, PScore (Eq. 1) and the item-level paired bootstrap (App. E) of a
  verdict table, with the analyses ``benchsift prism score`` prints: split-half pool independence (App. E
  "Pool independence"), the same test on plain q accuracy per benchmark and macro (Table 3), PScore's range
  widening over accuracy (Sec. 5.1 "Nominal range"), the sc variants (App. E.2), per-domain PScore and its
  correlation (Fig. 19), a matched-budget rerun and a near-tie report;
- :func:`means_report`: the analyses that need only per-model axis means (``prism analyze``; Table 2);
- :func:`audit_report`: the cross-judge audit (Sec. 5.3, Table 7) and judge-human agreement (App. F,
  Table 21) of ``prism audit``.

Each returns a :class:`~benchsift.results.Result` whose ``to_dict()`` is the command's ``--json`` object
and whose ``tables`` are the CSV files its ``--out`` writes.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from numbers import Integral
from typing import Any

import numpy as np
import pandas as pd

from benchsift._jsonutil import to_jsonable
from benchsift._params import Interval, renamed_params, validate_params
from benchsift._schema import Col, check_frame
from benchsift.errors import InputError, warn_each
from benchsift.io.verdicts import (
    VerdictArrays,
    build_arrays,
    load_axis_means,
    load_verdicts,
    split_axis_means,
)
from benchsift.panel import ClusterSpec
from benchsift.prism.aggregate import weighted_pscore
from benchsift.prism.analyses import (
    domain_correlation,
    domain_pscores,
    near_tie_report,
    nominal_ranges,
    range_widening,
    ranking_variants,
    split_half,
)
from benchsift.prism.audit import (
    CrossJudgeAudit,
    audit_summary,
    cross_judge_audit,
    judge_human_agreement,
    load_labels,
)
from benchsift.prism.bootstrap import (
    BootstrapResult,
    accuracy_separation,
    arrays_clusters,
    benchmark_separation,
    paired_bootstrap,
    replicate_weights,
)
from benchsift.prism.scores import sc_scores
from benchsift.prism.summaries import means_summary, score_summary
from benchsift.results import Result

__all__ = ["AuditReport", "MeansReport", "ScoreReport", "audit_report", "means_report", "score_report"]

PathLike = str | os.PathLike[str]


def _arrays(verdicts: PathLike | pd.DataFrame | VerdictArrays) -> VerdictArrays:
    """A verdict table (file or DataFrame, docs/CONTRACTS.md) as validated dense arrays."""
    if isinstance(verdicts, VerdictArrays):
        return verdicts
    if isinstance(verdicts, pd.DataFrame):
        return build_arrays(verdicts)  # validated here
    return build_arrays(load_verdicts(verdicts), validated=True)  # load_verdicts validated it


@dataclass(frozen=True, repr=False)
class ScoreReport(Result):
    """What :func:`score_report` computed.

    ``summary`` is the JSON object (keys of :func:`~benchsift.prism.summaries.score_summary` plus
    ``split_half``, ``accuracy_separation``, ``range_widening``, ``sc_variants``, ``domain_pscore``,
    ``domain_correlation`` and, when asked for, ``matched_budget`` and ``near_tie``); ``tables`` the
    tables by name (``leaderboard``, ``pairs``, ``split_half``, ``sc_variants``, ``domain_pscore``,
    ``near_tie``); ``bootstrap`` the paired bootstrap itself.
    """

    summary: dict[str, Any] = field(repr=False)
    tables: dict[str, pd.DataFrame] = field(repr=False)
    bootstrap: BootstrapResult
    n_items: int
    n_boot: int
    domain_correlation: pd.DataFrame | None = field(default=None, repr=False)

    _repr_fields = ("models", "axes")

    @property
    def models(self) -> list[str]:
        return list(self.bootstrap.models)

    @property
    def axes(self) -> list[str]:
        return list(self.bootstrap.axes)

    @property
    def warnings(self) -> list[str]:
        """What a default changed (an item clustering inferred from an image column), as in
        ``summary["warnings"]``; each was also raised as a :class:`~benchsift.errors.ResultWarning`."""
        return list(self.summary.get("warnings", []))

    @property
    def means(self) -> pd.DataFrame:
        """Point axis means: models (rows) x axes (columns)."""
        b = self.bootstrap
        return pd.DataFrame(b.axis_means, index=pd.Index(b.models, name="model"), columns=b.axes)

    def to_dict(self) -> dict[str, Any]:
        """The JSON object of ``benchsift prism score --json`` (NaN as ``None``)."""
        return to_jsonable(self.summary)

    def to_frame(self) -> pd.DataFrame:
        """The leaderboard: one row per model (axis means, PScore, CI, rank, rank CI), best first."""
        return self.tables["leaderboard"]


_COUNT = Interval(Integral, 1, None)
_SEED = Interval(Integral, 0, None)


@renamed_params({"bootstrap": "n_boot", "seed": "random_state"}, until="0.3")
@validate_params({"n_boot": [_COUNT], "random_state": [_SEED], "budget": [_COUNT, None]})
def score_report(
    verdicts: PathLike | pd.DataFrame | VerdictArrays,
    *,
    n_boot: int = 2000,
    random_state: int = 0,
    alpha: float = 0.05,
    sc_variant: str = "B",
    mq_partial: bool = False,
    near_tie: Sequence[str] | None = None,
    budget: int | None = None,
    progress: Callable[[int, int], None] | None = None,
    clusters: ClusterSpec = "auto",
) -> ScoreReport:
    """Leaderboard with CIs, rank CIs and pairwise separation of a verdict table (PRISM-VLM App. E).

    Parameters
    ----------
    verdicts
        A verdict table: a CSV/parquet file or a DataFrame (docs/CONTRACTS.md), or its
        :class:`~benchsift.io.verdicts.VerdictArrays`.
    n_boot
        Replicates B of the item-level paired bootstrap (was ``bootstrap``, accepted until 0.3).
    random_state
        Seed of the item resamples (and of the split-half partitions and the correlation CIs); was
        ``seed``, accepted until 0.3.
    alpha
        Test level of the pairwise separation.
    sc_variant
        The sc axis definition (:data:`benchsift.prism.scores.SC_VARIANTS`).
    mq_partial
        Score mq with partial credit (App. E robustness check).
    near_tie
        Models for a near-tie report (every pair among them).
    budget
        Also test at this matched item budget (a second bootstrap drawing ``budget`` items).
    progress
        Called as ``progress(done, total)`` while the bootstrap runs.
    clusters
        Item clusters (:func:`benchsift.panel.item_clusters`): ``"auto"`` reads the table's ``cluster``
        column or infers them from an image column (with a warning), ``None`` resamples single items. When
        used, every bootstrap of the report (PScore, accuracy, matched budget) draws whole clusters;
        ``summary["clusters"]`` says whether and how many, ``summary["warnings"]`` names an inference.

    Returns
    -------
    ScoreReport
        ``to_dict()`` is the ``--json`` object of ``benchsift prism score``.
    """
    arrays = _arrays(verdicts)
    found = arrays_clusters(arrays, clusters)
    W = replicate_weights(arrays.n_items, n_boot, random_state, clusters=found)
    result = paired_bootstrap(
        arrays, weights=W, sc_variant=sc_variant, mq_partial=mq_partial, alpha=alpha, progress=progress
    )
    summary = score_summary(result, n_boot=n_boot, random_state=random_state)
    summary["clusters"] = found.to_dict()
    summary["warnings"] = list(found.warnings)
    tables: dict[str, pd.DataFrame] = {
        "leaderboard": result.to_frame(),
        "pairs": result.pair_table().set_index(["model_a", "model_b"]),
    }
    if arrays.n_models >= 4:  # App. E "Pool independence": 10 random model halves on the same replicates
        halves = split_half(result, n_partitions=10, random_state=random_state)
        summary["split_half"] = {
            "separation_mean": float(halves["separation"].mean()),
            "separation_min": float(halves["separation"].min()),
            "separation_max": float(halves["separation"].max()),
            "least_correlated_axis_counts": halves["least_correlated_axis"].value_counts().to_dict(),
        }
        tables["split_half"] = halves.set_index(["partition", "half"])
    if "q" in arrays.axes:  # Table 3: the same test on plain q accuracy, per source benchmark and macro
        summary.update(_accuracy_tests(arrays, W, alpha, summary["ranges"]["PScore"]))
    if budget is not None:
        matched = paired_bootstrap(
            arrays,
            n_boot,
            random_state,
            sc_variant=sc_variant,
            mq_partial=mq_partial,
            alpha=alpha,
            n_draw=budget,
            clusters=found.codes if found.used else None,
        )
        summary["matched_budget"] = {"n_items": budget, "separation": matched.separation.to_dict()}
    if arrays.sc_flip_turn is not None:
        sc = sc_scores(arrays)
        tables["sc_variants"] = sc
        summary["sc_variants"] = {
            c: sc[c].to_dict() for c in ("sc_B", "sc_A", "sc_corr", "sc_reach", "instability")
        }
    dom = domain_pscores(arrays, sc_variant)  # per-domain PScore (Fig. 19)
    tables["domain_pscore"] = dom
    summary["domain_pscore"] = {str(d): dom[d].to_dict() for d in dom.columns}
    dom_corr = domain_correlation(dom) if dom.shape[1] > 1 else None
    summary["domain_correlation"] = {} if dom_corr is None else dom_corr.to_dict()
    if near_tie:
        nt = near_tie_report(result, list(near_tie))
        tables["near_tie"] = nt.set_index(["model_a", "model_b"])
        summary["near_tie"] = nt.to_dict(orient="records")
    warn_each(summary["warnings"], "score_report")
    return ScoreReport(summary, tables, result, arrays.n_items, n_boot, dom_corr)


def _accuracy_tests(arrays: VerdictArrays, W: np.ndarray, alpha: float, ps_range: float) -> dict[str, Any]:
    """``accuracy_separation`` (Table 3: pooled q, per benchmark, macro mean, on the bootstrap's resamples
    ``W``) and ``range_widening`` (Sec. 5.1: PScore's range ``ps_range`` over the accuracy ranges)."""
    q = arrays.scores[:, :, arrays.axis_index("q")]
    per_bench, sep_macro = benchmark_separation(q, arrays.benchmarks, W, alpha=alpha)
    _, sep_q = accuracy_separation(q, weights=W, alpha=alpha)
    acc = pd.DataFrame(
        {str(b): np.nanmean(q[:, arrays.benchmarks == b], axis=1) for b in pd.unique(arrays.benchmarks)}
    )
    acc_ranges = nominal_ranges(acc.assign(macro=acc.mean(axis=1))).loc["overall"]
    return {
        "accuracy_separation": {
            "q": sep_q.to_dict(),
            "q_by_benchmark": {b: r.to_dict() for b, r in per_bench.items()},
            "q_macro": sep_macro.to_dict(),
        },
        "range_widening": {
            "q_macro": range_widening(ps_range, [acc_ranges["macro"]]),
            "q_by_benchmark_mean": range_widening(ps_range, acc_ranges.drop("macro").tolist()),
        },
    }


@dataclass(frozen=True, repr=False)
class MeansReport(Result):
    """What :func:`means_report` computed: ``summary`` (the JSON object) and the axis means it read."""

    summary: dict[str, Any] = field(repr=False)
    means: pd.DataFrame

    _repr_fields = ("models",)

    @property
    def models(self) -> list[str]:
        return [str(m) for m in self.means.index]

    def to_dict(self) -> dict[str, Any]:
        """The JSON object of ``benchsift prism analyze --json`` (NaN as ``None``)."""
        return to_jsonable(self.summary)

    def to_frame(self) -> pd.DataFrame:
        """The axis means with the PScore column, best first."""
        out = self.means.copy()
        out["PScore"] = pd.Series(self.summary["pscore"]).reindex(self.models).to_numpy()
        return out.sort_values("PScore", ascending=False, kind="stable")


@renamed_params({"bootstrap": "n_boot", "seed": "random_state"}, until="0.3")
@validate_params({"n_boot": [_COUNT], "random_state": [_SEED]})
def means_report(
    axis_means: PathLike | pd.DataFrame,
    *,
    axes: Sequence[str] | None = None,
    q_axis: str = "q",
    group: str | None = None,
    references: Sequence[str] | None = None,
    weights: Mapping[str, float] | None = None,
    n_boot: int = 2000,
    random_state: int = 0,
) -> MeansReport:
    """PScore, aggregators, weights, correlations and ranges from per-model axis means (PRISM-VLM Table 2).

    Parameters
    ----------
    axis_means
        A CSV/parquet file (or DataFrame) with a ``model`` column and one column per axis.
    axes
        The axis columns (default: q, if, h, mq, sc, c, vis).
    q_axis
        The single-prompt accuracy axis of Table 6.
    group
        A column of model groups: ranges per group.
    references
        Accuracy columns for the range widening (Sec. 5.1).
    weights
        Also a weighted PScore (Eq. 3, App. E.1): axis -> weight; the other axes keep 1.
    n_boot, random_state
        Model resamples for the correlation CIs (App. E) and their seed (were ``bootstrap``, ``seed``,
        accepted until 0.3).
    """
    if isinstance(axis_means, pd.DataFrame):
        where = "axis_means"
        means, extra = split_axis_means(axis_means, list(axes) if axes else None, where=where)
    else:
        means, extra = load_axis_means(axis_means, list(axes) if axes else None)
        where = str(axis_means)
    summary = means_summary(means, q_axis, n_boot, random_state)
    if weights is not None:  # App. E.1 "Reweighting for a deployment"
        wmap = dict(weights)
        var = ranking_variants(means, {"weighted": wmap}).loc["weighted"]
        w = [wmap.get(str(a), 1.0) for a in means.columns]
        wp = weighted_pscore(
            means.to_numpy(float), w, [str(m) for m in means.index], list(map(str, means.columns))
        )
        summary["weighted_pscore"] = {
            "weights": dict(zip(map(str, means.columns), w, strict=True)),
            "pscore": dict(zip(map(str, means.index), map(float, wp), strict=True)),
            "spearman_vs_harmonic": float(var["spearman_vs_harmonic"]),
            "top": list(var["top"]),
        }
    ps = pd.Series(summary["pscore"])
    ref_cols = list(references or [])
    check_frame(extra, {c: Col(empty=True) for c in ref_cols + ([group] if group else [])}, where=where)
    if group or ref_cols:
        table = pd.concat([means, extra[ref_cols]], axis=1)
        table["PScore"] = ps.to_numpy()
        ranges = nominal_ranges(table, groups=extra[group] if group else None)
        summary["ranges_by_group"] = ranges.to_dict(orient="index")
        if ref_cols:
            summary["range_widening"] = {
                str(g): range_widening(r["PScore"], [r[c] for c in ref_cols]) for g, r in ranges.iterrows()
            }
    return MeansReport(summary, means)


@dataclass(frozen=True, repr=False)
class AuditReport(Result):
    """What :func:`audit_report` computed: the cross-judge audit and/or the judge-human agreement."""

    cross_judge: CrossJudgeAudit | None
    human_agreement: pd.DataFrame | None

    def to_dict(self) -> dict[str, Any]:
        """The JSON object of ``benchsift prism audit --json`` (see ``audit_summary``)."""
        return to_jsonable(audit_summary(self.cross_judge, self.human_agreement))

    @property
    def tables(self) -> dict[str, pd.DataFrame]:
        """The tables ``--out`` writes: ``cross_judge`` and ``human_agreement``, each when computed."""
        out: dict[str, pd.DataFrame] = {}
        if self.cross_judge is not None:
            out["cross_judge"] = self.cross_judge.table
        if self.human_agreement is not None:
            out["human_agreement"] = self.human_agreement
        return out

    def to_frame(self) -> pd.DataFrame:
        """The cross-judge table when computed, else the judge-human agreement table."""
        tables = self.tables
        return tables.get("cross_judge", tables.get("human_agreement", pd.DataFrame()))


@renamed_params({"seed": "random_state"}, until="0.3")
@validate_params({"items": [Interval(Integral, 2, None)], "random_state": [_SEED]})
def audit_report(
    primary: PathLike | pd.DataFrame | VerdictArrays | None = None,
    secondary: PathLike | pd.DataFrame | VerdictArrays | None = None,
    *,
    labels: PathLike | None = None,
    judge_col: str = "judge",
    human_col: str = "human",
    items: int = 200,
    random_state: int = 0,
    threshold: float = 0.95,
    sc_variant: str = "B",
) -> AuditReport:
    """Judge audits: cross-judge Spearman with the admission rule, judge-human Cohen's kappa.

    Parameters
    ----------
    primary, secondary
        Verdict tables graded by the build-time judge and re-graded by the audit judge: per axis, the
        Spearman correlation between the two judges' model leaderboards on ``items`` items drawn with
        ``random_state`` (was ``seed``, accepted until 0.3), and the admission rule
        ``rho >= threshold`` (Sec. 5.3, Table 7).
    labels
        A CSV/parquet of paired judge / human labels (columns ``judge_col``, ``human_col``): per-axis and
        overall Cohen's kappa and disagreement rate (App. F, Table 21).
    sc_variant
        The sc axis definition of the cross-judge leaderboards.
    """
    if primary is None and labels is None:
        raise InputError("audit: give two verdict tables (primary and secondary) and/or labels")
    if primary is not None and secondary is None:
        where = primary if not isinstance(primary, pd.DataFrame | VerdictArrays) else "primary"
        raise InputError(f"audit: {where} needs a second verdict table graded by the audit judge (secondary)")
    cross = human = None
    if primary is not None and secondary is not None:
        cross = cross_judge_audit(
            _arrays(primary), _arrays(secondary), items, random_state, threshold, sc_variant
        )
    if labels is not None:
        human = judge_human_agreement(load_labels(labels, judge_col, human_col), judge_col, human_col)
        human.index.name = "axis"
    return AuditReport(cross, human)
