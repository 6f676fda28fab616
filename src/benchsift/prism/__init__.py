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

from benchsift.io.verdicts import AXES, VerdictArrays, build_arrays, load_verdicts
from benchsift.prism.aggregate import aggregate, pscore, weighted_pscore
from benchsift.prism.bootstrap import BootstrapResult, SeparationResult, paired_bootstrap, separation
from benchsift.prism.build import build_artifacts
from benchsift.prism.engine import Evaluation, collect_sources, evaluate
from benchsift.prism.grade import grade_records
from benchsift.prism.judge import Judge
from benchsift.prism.run import ModelSpec, run_models
from benchsift.prism.scores import axis_means
from benchsift.prism.scoring import (
    AuditReport,
    MeansReport,
    ScoreReport,
    audit_report,
    means_report,
    score_report,
)

__all__ = [
    "AXES",
    "AuditReport",
    "BootstrapResult",
    "Evaluation",
    "Judge",
    "MeansReport",
    "ModelSpec",
    "ScoreReport",
    "SeparationResult",
    "VerdictArrays",
    "aggregate",
    "audit_report",
    "axis_means",
    "build_arrays",
    "build_artifacts",
    "collect_sources",
    "evaluate",
    "grade_records",
    "load_verdicts",
    "means_report",
    "paired_bootstrap",
    "pscore",
    "run_models",
    "score_report",
    "separation",
    "weighted_pscore",
]
