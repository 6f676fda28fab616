"""Multi-axis discriminative evaluation (PRISM-VLM): verdicts, axis means, PScore, bootstrap, analyses.

- :mod:`benchsift.io.verdicts` (re-exported here; in ``io`` so that :mod:`benchsift.simulate` can make
  verdicts without importing prism): the long verdict table (load, validate) and dense model x item x
  axis arrays; per-model axis-means files;
- :mod:`~benchsift.prism.scores`: axis means and the sc variants (sc_B, sc_A, sc_corr, sc_reach,
  generic instability; Sec. 5.2, App. E.2);
- :mod:`~benchsift.prism.aggregate`: PScore (Eq. 1), weighted PScore (Eq. 3), other aggregators,
  effective weights (Eq. 2), dominant axes;
- :mod:`~benchsift.prism.bootstrap`: the item-level paired bootstrap (App. E), pairwise separation, the
  same test on plain benchmark accuracy (Table 3);
- :mod:`~benchsift.prism.analyses`: ranges, correlations, leave-one-axis-out, aggregator comparison,
  split-half, per-domain scores, near ties;
- :mod:`~benchsift.prism.audit`: cross-judge audit and judge-human agreement (Sec. 5.3, App. F);
- :mod:`~benchsift.prism.engine`: the evaluation engine from Python, one call per stage
  (:func:`collect_sources`, ``build``, ``run``, ``grade``) and :func:`evaluate` for build -> run -> grade;
- :mod:`~benchsift.prism.scoring`: one call per report: :func:`score_report` (a verdict table's
  leaderboard and analyses), :func:`means_report` (axis means only), :func:`audit_report` (judge audits).
"""

from __future__ import annotations

from benchsift.io.verdicts import AXES, VerdictArrays, build_arrays, load_axis_means, load_verdicts
from benchsift.prism.aggregate import (
    AGGREGATORS,
    aggregate,
    dominant_axis,
    dominant_axis_counts,
    effective_weights,
    pscore,
    weighted_pscore,
)
from benchsift.prism.audit import (
    CrossJudgeAudit,
    audit_summary,
    cohen_kappa,
    cross_judge_audit,
    judge_human_agreement,
    load_labels,
)
from benchsift.prism.bootstrap import (
    BootstrapResult,
    SeparationResult,
    accuracy_separation,
    benchmark_separation,
    paired_bootstrap,
    pairwise_pvalues,
    separation,
)
from benchsift.prism.build import Artifact, build_artifacts
from benchsift.prism.engine import Evaluation, StageResult, collect_sources, evaluate
from benchsift.prism.grade import grade_records, write_verdicts
from benchsift.prism.judge import Judge
from benchsift.prism.run import ModelSpec, run_models
from benchsift.prism.scores import axis_means, axis_means_frame, sc_scores
from benchsift.prism.scoring import (
    AuditReport,
    MeansReport,
    ScoreReport,
    audit_report,
    means_report,
    score_report,
)
from benchsift.prism.sources import Item, read_items, sample_items
from benchsift.prism.summaries import means_summary, score_summary

__all__ = [
    "AGGREGATORS",
    "AXES",
    "Artifact",
    "AuditReport",
    "BootstrapResult",
    "CrossJudgeAudit",
    "Evaluation",
    "Item",
    "Judge",
    "MeansReport",
    "ModelSpec",
    "ScoreReport",
    "SeparationResult",
    "StageResult",
    "VerdictArrays",
    "accuracy_separation",
    "aggregate",
    "audit_report",
    "audit_summary",
    "axis_means",
    "axis_means_frame",
    "benchmark_separation",
    "build_arrays",
    "build_artifacts",
    "cohen_kappa",
    "collect_sources",
    "cross_judge_audit",
    "dominant_axis",
    "dominant_axis_counts",
    "effective_weights",
    "evaluate",
    "grade_records",
    "judge_human_agreement",
    "load_axis_means",
    "load_labels",
    "load_verdicts",
    "means_report",
    "means_summary",
    "paired_bootstrap",
    "pairwise_pvalues",
    "pscore",
    "read_items",
    "run_models",
    "sample_items",
    "sc_scores",
    "score_report",
    "score_summary",
    "separation",
    "weighted_pscore",
    "write_verdicts",
]
