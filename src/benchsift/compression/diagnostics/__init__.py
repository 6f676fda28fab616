"""Diagnostics of PRIMEBench (section 7, Appendices D.4, F.4, H.3-H.4, I.1-I.4).

* :func:`panel_spectrum`, :func:`era_spectra`, :func:`spectrum_report` (both) -- spectrum of the
  z-normalised model x category (or x benchmark) matrix: components for 95 % energy, participation ratio,
  top-5 energy (Fig. 2, Table 19);
* :func:`aggregate_stage3` -- Stage 3 on an aggregate panel with the coverage rule and family-stratified
  bootstrap CIs (H.3, Table 18);
* :func:`shelf_life` -- a frozen Stage 3 selection as models arrive in release order, with its percentile
  among all k-subsets (I.1, Table 20);
* :func:`leftout_prediction` -- ridge prediction of a left-out benchmark vs the number of training models
  (I.3, Table 22, Fig. 4a);
* :func:`checkpoint_ranking`, :func:`bootstrap_ceiling` -- ranking variants of one model (I.4, Table 23);
  :func:`checkpoint_ranking_by_pattern` with the variant sets of a model-id pattern (:func:`variant_sets`);
* :func:`family_agreement` -- cross-family item agreement (D.4).
"""

from __future__ import annotations

from benchsift.compression.diagnostics.aggregate_stage3 import AggregateStage3Result, aggregate_stage3
from benchsift.compression.diagnostics.checkpoints import (
    CheckpointResult,
    bootstrap_ceiling,
    checkpoint_ranking,
    checkpoint_ranking_by_pattern,
)
from benchsift.compression.diagnostics.families import family_agreement
from benchsift.compression.diagnostics.leftout import LeftoutResult, leftout_prediction
from benchsift.compression.diagnostics.shelf_life import ShelfLifeResult, shelf_life
from benchsift.compression.diagnostics.spectrum import (
    SpectrumReport,
    SpectrumResult,
    era_spectra,
    panel_spectrum,
    spectrum_report,
)

__all__ = [
    "AggregateStage3Result",
    "CheckpointResult",
    "LeftoutResult",
    "ShelfLifeResult",
    "SpectrumReport",
    "SpectrumResult",
    "aggregate_stage3",
    "bootstrap_ceiling",
    "checkpoint_ranking",
    "checkpoint_ranking_by_pattern",
    "era_spectra",
    "family_agreement",
    "leftout_prediction",
    "panel_spectrum",
    "shelf_life",
    "spectrum_report",
]
