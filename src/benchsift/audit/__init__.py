"""Benchmark health audit: the per-item and per-benchmark signals that tell a benchmark builder what to fix.

:func:`audit` runs every signal over every benchmark of a panel and returns an :class:`AuditResult`; each
signal lives in its own module with its definition and reference:

* :mod:`~benchsift.audit.discrimination`: negative or near-zero item-rest correlation (likely wrong keys or
  ambiguous questions), ranked by a Fisher-z p-value with Benjamini-Hochberg control;
* :mod:`~benchsift.audit.slopes`: the same signal as a fitted 2PL slope with a Wald interval
  (``discrimination="2pl"``);
* :mod:`~benchsift.audit.saturation`: all-correct, near-ceiling, all-wrong and blind-solvable items;
* :mod:`~benchsift.audit.noise`: signal-to-noise of each benchmark and the paired minimum detectable
  difference between two models;
* :mod:`~benchsift.audit.duplicates`: near-identical response patterns and near-identical question text;
* :mod:`~benchsift.audit.dif`: differential item functioning by release era or family (contamination),
  logistic-regression DIF matched on a 2PL ability, a third-order (r*) test, FDR control.
"""

from __future__ import annotations

from benchsift.audit._run import DIF_BY, DISCRIMINATION, MIN_MODELS, audit
from benchsift.audit.dif import (
    DIF_MATCHING,
    DIF_TESTS,
    DifTest,
    irt_ability,
    logistic_dif,
    matching_ability,
    modified_signed_root,
)
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
from benchsift.audit.slopes import ItemSlopes, twopl_slopes

__all__ = [
    "BLIND_THRESHOLD",
    "CEILING",
    "DIF_BY",
    "DIF_MATCHING",
    "DIF_TESTS",
    "DISCRIMINATION",
    "FLAGS",
    "MIN_MODELS",
    "AuditResult",
    "BenchmarkNoise",
    "DifTest",
    "ItemSaturation",
    "ItemSlopes",
    "audit",
    "benchmark_noise",
    "conditional_bh",
    "fisher_z_interval",
    "item_rest_correlation",
    "irt_ability",
    "item_saturation",
    "logistic_dif",
    "matching_ability",
    "modified_signed_root",
    "negative_discrimination_pvalue",
    "paired_mdd",
    "response_duplicates",
    "text_duplicates",
    "twopl_slopes",
]
