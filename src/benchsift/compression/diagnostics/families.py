"""Cross-family agreement on items (PRIMEBench Appendix D.4, "Cross-family agreement").

For every model family with at least ``min_models`` image-condition models, the family's score on an item
is the NaN-aware mean over its models; the agreement of two families is the Spearman correlation between
their per-item means over the items both have (pairwise-complete). Low values mean the families differ in
which items they find hard (0.115-0.463 on the released suite in the paper).
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence

import numpy as np
import pandas as pd

from benchsift.errors import require_at_least
from benchsift.panel import Panel
from benchsift.stats import corr_matrix

__all__ = ["family_agreement", "family_item_means"]


def family_item_means(panel: Panel, min_models: int = 4) -> tuple[np.ndarray, list[str], list[int]]:
    """``(n_items, n_families)`` per-family item means, family names, and model counts (families with at
    least ``min_models`` image-condition models; models without a family are left out)."""
    image = panel.image_rows
    fam = panel.models["family"].to_numpy(dtype=object)[image]
    S = panel.scores[image]
    known = pd.notna(pd.Series(fam, dtype=object)).to_numpy()
    codes, names = pd.factorize(pd.Series(fam[known], dtype=object), sort=True)
    counts = np.bincount(codes, minlength=len(names))
    keep = np.flatnonzero(counts >= int(min_models))
    M = np.zeros((int(known.sum()), keep.size))
    M[np.flatnonzero(np.isin(codes, keep)), np.searchsorted(keep, codes[np.isin(codes, keep)])] = 1.0
    Sk = S[known]
    obs = ~np.isnan(Sk)
    num = np.where(obs, Sk, 0.0).T @ M
    den = obs.astype(np.float64).T @ M
    means = np.full(num.shape, np.nan)
    np.divide(num, den, out=means, where=den > 0)
    return means, [str(names[c]) for c in keep], [int(counts[c]) for c in keep]


def family_agreement(
    panel: Panel, *, min_models: int = 4, items: Sequence[int] | np.ndarray | None = None
) -> pd.DataFrame:
    """One row per pair of families: ``family_a, family_b, models_a, models_b, rho, n_items``.

    ``items`` restricts to those item positions (e.g. the released suite).
    """
    Panel.check(panel)
    sub = panel if items is None else panel.subset(items=items)
    means, names, counts = family_item_means(sub, min_models)
    cols = ["family_a", "family_b", "models_a", "models_b", "rho", "n_items"]
    require_at_least(
        len(names),
        2,
        f"family agreement: families with >= {min_models} models",
        "it compares pairs of families",
    )
    R = corr_matrix(means, "srcc")
    both = (~np.isnan(means)).astype(np.int64)
    N = both.T @ both
    rows = [
        (names[a], names[b], counts[a], counts[b], float(R[a, b]), int(N[a, b]))
        for a, b in itertools.combinations(range(len(names)), 2)
    ]
    return pd.DataFrame(rows, columns=cols)
