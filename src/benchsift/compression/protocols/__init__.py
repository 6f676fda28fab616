"""Held-out validation protocols of PRIMEBench (section 5, Appendix D.3, H.2).

* :func:`stage2_heldout` -- protocol (a): Stage 2 selection on build models, per-category Spearman rho on
  held-out models, 20 random balanced splits or the chronological split (Tables 9-11);
* :func:`end_to_end` -- protocol (b): Stages 1-3 refit per split against the Stage 0 reference (Table 12);
* :func:`same_model` -- protocol (c): same-model selection per benchmark (Table 17);
* :func:`validate` -- any of them by name, as ``benchsift validate`` runs them (:class:`ValidationReport`);
* splits: :func:`random_splits`, :func:`chronological_split`, :func:`chronological_splits`.

Sweeps run through ``joblib.Parallel``; ``backend="dask"`` or ``"ray"`` (with the ``address`` of a cluster,
:func:`benchsift.parallel.sweep_backend`) distributes them unchanged, with the same bytes for the same seed.
"""

from __future__ import annotations

from benchsift.compression.protocols.end_to_end import EndToEndResult, end_to_end
from benchsift.compression.protocols.same_model import SameModelResult, same_model
from benchsift.compression.protocols.splits import Split, chronological_splits, random_splits
from benchsift.compression.protocols.stage2_heldout import HeldoutResult, stage2_heldout
from benchsift.compression.protocols.validation import ValidationReport, validate

__all__ = [
    "EndToEndResult",
    "HeldoutResult",
    "SameModelResult",
    "Split",
    "ValidationReport",
    "chronological_splits",
    "end_to_end",
    "random_splits",
    "same_model",
    "stage2_heldout",
    "validate",
]
