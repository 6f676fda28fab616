"""Benchmark health audit: the per-item and per-benchmark signals that tell a benchmark builder what to fix.

:func:`audit` runs every signal over every benchmark of a panel and returns an :class:`AuditResult`; each
signal lives in its own module with its definition and reference:

* :mod:`~benchsift.audit.discrimination`: negative or near-zero item-rest correlation (likely wrong keys or
  ambiguous questions), ranked by a Fisher-z p-value with Benjamini-Hochberg control;
* :mod:`~benchsift.audit.saturation`: all-correct, near-ceiling, all-wrong and blind-solvable items;
* :mod:`~benchsift.audit.noise`: signal-to-noise of each benchmark and the paired minimum detectable
  difference between two models;
* :mod:`~benchsift.audit.duplicates`: near-identical response patterns and near-identical question text;
* :mod:`~benchsift.audit.dif`: differential item functioning by release era or family (contamination),
  logistic-regression DIF with FDR control.
"""

from __future__ import annotations

from benchsift.audit._run import DIF_BY, MIN_MODELS, audit
from benchsift.audit.dif import DifTest, logistic_dif, matching_ability
from benchsift.audit.discrimination import (
    conditional_bh,
    fisher_z_interval,
    item_rest_correlation,
    negative_discrimination_pvalue,
)
from benchsift.audit.duplicates import response_duplicates, text_duplicates
from benchsift.audit.noise import BenchmarkNoise, benchmark_noise, paired_mdd
from benchsift.audit.result import FLAGS, AuditResult
from benchsift.audit.saturation import BLIND_THRESHOLD, CEILING, ItemSaturation, item_saturation

__all__ = [
    "BLIND_THRESHOLD",
    "CEILING",
    "DIF_BY",
    "FLAGS",
    "MIN_MODELS",
    "AuditResult",
    "BenchmarkNoise",
    "DifTest",
    "ItemSaturation",
    "audit",
    "benchmark_noise",
    "conditional_bh",
    "fisher_z_interval",
    "item_rest_correlation",
    "item_saturation",
    "logistic_dif",
    "matching_ability",
    "negative_discrimination_pvalue",
    "paired_mdd",
    "response_duplicates",
    "text_duplicates",
]
