"""The compression stages' means: NaN-aware, rounded so that ties stay ties.

Every stage ranks models by means over items, categories or (category, benchmark) pairs; values equal in
exact arithmetic but summed in a different order must tie exactly in those rankings, so the stages round
their means to :data:`ROUND_DECIMALS`. The NaN-aware arithmetic is :mod:`benchsift.stats`'s
(:func:`~benchsift.stats.means.nan_mean`, :func:`~benchsift.stats.means.group_nan_sums`,
:func:`~benchsift.stats.means.ratio_or_nan`).
"""

from __future__ import annotations

import numpy as np

from benchsift.stats.means import nan_mean, ratio_or_nan

__all__ = ["ROUND_DECIMALS", "stage_means", "stage_row_means"]

#: Decimals kept when comparing means and variances, so that values equal in exact arithmetic but
#: computed in a different order tie exactly.
ROUND_DECIMALS = 12


def stage_means(sums: np.ndarray, counts: np.ndarray) -> np.ndarray:
    """``sums / counts`` where ``counts > 0``, NaN elsewhere, rounded to :data:`ROUND_DECIMALS`."""
    return np.round(ratio_or_nan(sums, counts), ROUND_DECIMALS)


def stage_row_means(X: np.ndarray) -> np.ndarray:
    """Per row of ``X``: the NaN-aware mean over its columns (NaN for an all-NaN row), rounded as
    :func:`stage_means`."""
    return np.round(nan_mean(X, axis=1), ROUND_DECIMALS)
