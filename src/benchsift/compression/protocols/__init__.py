"""Held-out validation protocols of PRIMEBench (section 5, Appendix D.3, H.2).

* :func:`stage2_heldout` -- protocol (a): Stage 2 selection on build models, per-category Spearman rho on
  held-out models, 20 random balanced splits or the chronological split (Tables 9-11);
* :func:`end_to_end` -- protocol (b): Stages 1-3 refit per split against the Stage 0 reference (Table 12);
* :func:`same_model` -- protocol (c): same-model selection per benchmark (Table 17);
* splits: :func:`random_splits`, :func:`chronological_split`, :func:`chronological_splits`.

Sweeps run through ``joblib.Parallel``; ``backend="dask"`` or ``"ray"`` (with the ``address`` of a cluster,
:func:`benchsift.parallel.sweep_backend`) distributes them unchanged, with the same bytes for the same seed.
"""

from __future__ import annotations

from benchsift.compression.protocols.end_to_end import EndToEndResult, end_to_end
from benchsift.compression.protocols.same_model import SameModelResult, same_model, same_model_budget
from benchsift.compression.protocols.specs import DEFAULT_RETENTIONS, DEFAULT_SELECTORS
from benchsift.compression.protocols.splits import (
    Split,
    chronological_order,
    chronological_split,
    chronological_splits,
    random_splits,
)
from benchsift.compression.protocols.stage2_heldout import (
    HeldoutResult,
    macro_rho,
    per_category_rho,
    split_summary,
    stage2_heldout,
)

__all__ = [
    "DEFAULT_RETENTIONS",
    "DEFAULT_SELECTORS",
    "EndToEndResult",
    "HeldoutResult",
    "SameModelResult",
    "Split",
    "chronological_order",
    "chronological_split",
    "chronological_splits",
    "end_to_end",
    "macro_rho",
    "per_category_rho",
    "random_splits",
    "same_model",
    "same_model_budget",
    "split_summary",
    "stage2_heldout",
]
