"""The PRIMEBench-scale simulated panel the Stage 2 / compression / scaling benchmarks share."""

from __future__ import annotations

from typing import Any

from benchsift.compression import ItemEmbeddings
from benchsift.simulate import SimulationConfig, simulate_panel


def primebench_panel(seed: int, **overrides: Any) -> tuple[Any, ItemEmbeddings]:
    """``simulate_panel(SimulationConfig.primebench(**overrides))`` and its simulated item embeddings.

    Returns the simulation result (``.panel``, ``.truth``) and the 64-dim vision-text / text-only embeddings
    as :class:`~benchsift.compression.ItemEmbeddings` keyed by the panel's items.
    """
    sim = simulate_panel(SimulationConfig.primebench(**overrides), random_state=seed)
    emb = ItemEmbeddings(
        sim.panel.items[["benchmark", "item"]],
        vision_text=sim.truth.embeddings_vl,
        text=sim.truth.embeddings_text,
        source="simulated",
    )
    return sim, emb
