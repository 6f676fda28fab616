"""Shared fixtures of the redundancy tests: hand-made small panels and a planted latent-trait panel."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from benchsift import Panel

#: Dimension scores of the hand-computed Eq. 1-2 case (models x dimensions); see test_dimensions.py.
HAND_DIMS = np.array(
    [
        [0.1, 0.2, 0.4],
        [0.2, 0.1, 0.3],
        [0.3, 0.4, 0.2],
        [0.4, 0.3, 0.1],
    ]
)


def two_item_panel(dim_scores: np.ndarray, names: list[str], benchmark: str = "B") -> Panel:
    """A panel with two items per dimension whose mean is the given dimension score (x - d, x + d)."""
    n_models, m = dim_scores.shape
    d = 0.05
    cols, cats = [], []
    for j in range(m):
        low = np.clip(dim_scores[:, j] - d, 0.0, 1.0)
        high = 2 * dim_scores[:, j] - low
        cols += [low, high]
        cats += [names[j], names[j]]
    items = pd.DataFrame({"benchmark": benchmark, "item": [f"q{k}" for k in range(2 * m)], "category": cats})
    return Panel(np.column_stack(cols), [f"m{i}" for i in range(n_models)], items)


def planted_panel(
    seed: int = 0, n_models: int = 80, items_per_dim: int = 120
) -> tuple[Panel, dict[str, str]]:
    """Seven dimensions with planted latent structure (ground truth returned as dimension -> group).

    Group ``A`` (dims a1-a3) and group ``B`` (b1-b3) load on their own trait plus a shared general trait;
    dimension ``c1`` loads on an independent trait only. Items are 2PL: P = sigmoid(1.5 (theta_g - b)),
    b ~ N(0, 1), responses Bernoulli. So within-group correlations are high, A-B correlations moderate and
    c1 is the least redundant dimension.
    """
    rng = np.random.default_rng(seed)
    general = rng.normal(size=n_models)
    traits = {
        "A": np.sqrt(0.4) * general + np.sqrt(0.6) * rng.normal(size=n_models),
        "B": np.sqrt(0.4) * general + np.sqrt(0.6) * rng.normal(size=n_models),
        "C": rng.normal(size=n_models),
    }
    truth = {"a1": "A", "a2": "A", "a3": "A", "b1": "B", "b2": "B", "b3": "B", "c1": "C"}
    cols, cats = [], []
    for dim, group in truth.items():
        b = rng.normal(size=items_per_dim)
        p = 1.0 / (1.0 + np.exp(-1.5 * (traits[group][:, None] - b[None, :])))
        cols.append((rng.random(p.shape) < p).astype(float))
        cats += [dim] * items_per_dim
    scores = np.hstack(cols)
    items = pd.DataFrame(
        {"benchmark": "planted", "item": [f"i{k}" for k in range(scores.shape[1])], "category": cats}
    )
    return Panel(scores, [f"model{i}" for i in range(n_models)], items), truth


@pytest.fixture
def hand_panel() -> Panel:
    """HAND_DIMS as dimensions X1, X2, X3 of benchmark ``B`` (two items each)."""
    return two_item_panel(HAND_DIMS, ["X1", "X2", "X3"])


@pytest.fixture
def make_panel():  # type: ignore[no-untyped-def]
    """The :func:`two_item_panel` builder."""
    return two_item_panel


@pytest.fixture(scope="session")
def planted() -> tuple[Panel, dict[str, str]]:
    """The planted latent-trait panel and its ground truth (dimension -> group)."""
    return planted_panel()
