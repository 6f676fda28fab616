"""Hierarchical benchmark compression (PRIMEBench): Stages 0-3, item selectors and embeddings.

Stage 0 (cleaning), Stage 1 (representatives) and Stage 3 (category-count pruning) live in
:mod:`benchsift.compression.stages`; :func:`run_pipeline` chains Stages 0-3, :func:`write_suite` writes the
released suite, :func:`estimate_new_models` scores new models on it (with the full-benchmark estimators of
:func:`fit_full_score`), :func:`capability_frontier` gives the Capability Frontier set.

Stage 2 (item pruning with Vision-Aware Variance, PRIMEBench section 4.3) lives in
:mod:`benchsift.compression.stages.prune`; the item selectors in :mod:`benchsift.compression.selectors`;
the item embeddings in :mod:`benchsift.compression.embeddings`.
"""

from __future__ import annotations

from benchsift.compression.embeddings import ItemEmbeddings
from benchsift.compression.estimate import EstimateResult, estimate_new_models
from benchsift.compression.frontier import FrontierResult, capability_frontier
from benchsift.compression.full_score import FullScoreEstimates, FullScoreModel, fit_full_score
from benchsift.compression.pipeline import CompressionConfig, CompressionResult, run_pipeline
from benchsift.compression.selectors import ItemSelector
from benchsift.compression.suite import Suite, load_suite, write_suite

__all__: list[str] = [
    "CompressionConfig",
    "CompressionResult",
    "EstimateResult",
    "FrontierResult",
    "FullScoreEstimates",
    "FullScoreModel",
    "ItemEmbeddings",
    "ItemSelector",
    "Suite",
    "capability_frontier",
    "estimate_new_models",
    "fit_full_score",
    "load_suite",
    "run_pipeline",
    "write_suite",
]
