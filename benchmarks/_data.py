"""What the benchmarks share: the PRIMEBench-scale simulated panel (Stage 2 / compression / scaling) and the
loader of the independent reference implementations (estimate and adaptive peers)."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from types import ModuleType
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


def load_reference(folder: str) -> ModuleType:
    """``tinybench_ref.py`` from ``folder``, imported by path (never copied into the project)."""
    path = Path(folder).expanduser().resolve() / "tinybench_ref.py"
    if not path.is_file():
        raise SystemExit(f"--reference {folder}: no tinybench_ref.py there")
    spec = importlib.util.spec_from_file_location("tinybench_ref", path)
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod
