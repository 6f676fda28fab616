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

# `from ... import X as X`: internal names the other packages import from here (not public: not in __all__)
from benchsift.audit._run import DIF_BY as DIF_BY
from benchsift.audit._run import DISCRIMINATION as DISCRIMINATION
from benchsift.audit._run import MIN_MODELS as MIN_MODELS
from benchsift.audit._run import audit
from benchsift.audit.dif import DifTest, logistic_dif
from benchsift.audit.duplicates import response_duplicates, text_duplicates
from benchsift.audit.noise import BenchmarkNoise, benchmark_noise
from benchsift.audit.result import FLAGS, AuditResult
from benchsift.audit.saturation import ItemSaturation, item_saturation
from benchsift.audit.slopes import ItemSlopes, twopl_slopes

__all__ = [
    "FLAGS",
    "AuditResult",
    "BenchmarkNoise",
    "DifTest",
    "ItemSaturation",
    "ItemSlopes",
    "audit",
    "benchmark_noise",
    "item_saturation",
    "logistic_dif",
    "response_duplicates",
    "text_duplicates",
    "twopl_slopes",
]
