"""Simulated score matrices with known ground truth for the selector tests (imported by test_selector_*)."""

from __future__ import annotations

import numpy as np


def sim_2pl(
    n_models: int, a: np.ndarray, b: np.ndarray, seed: int, theta: np.ndarray | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """0/1 responses from a 2PL with slopes ``a`` and difficulties ``b``; returns (X, theta)."""
    rng = np.random.default_rng(seed)
    th = rng.standard_normal(n_models) if theta is None else theta
    p = 1.0 / (1.0 + np.exp(-a[None, :] * (th[:, None] - b[None, :])))
    return (rng.random(p.shape) < p).astype(np.float64), th


def sim_clusters(
    n_models: int, sizes: list[int], levels: np.ndarray, seed: int, spread: float = 0.15, noise: float = 0.01
) -> tuple[np.ndarray, np.ndarray]:
    """Continuous scores in [0, 1] from independent model factors, one per planted item cluster.

    Items of cluster ``c`` are ``levels[c] + spread * f_c + noise * e`` (clipped), so they correlate almost
    perfectly within a cluster and hardly across clusters. Returns (X, cluster label per item).
    """
    rng = np.random.default_rng(seed)
    f = rng.standard_normal((n_models, len(sizes)))
    cols = []
    labels = []
    for c, s in enumerate(sizes):
        block = levels[c] + spread * f[:, [c]] + noise * rng.standard_normal((n_models, s))
        cols.append(np.clip(block, 0.0, 1.0))
        labels += [c] * s
    return np.hstack(cols), np.asarray(labels)
