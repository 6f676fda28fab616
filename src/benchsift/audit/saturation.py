r"""Saturation: items every model gets right (or wrong), near-ceiling items, and blind-solvable items.

For item :math:`i` with the image-condition models :math:`m` that scored it,

* ``all-correct``: :math:`x_{mi} = 1` for every such model (the item cannot separate any two models;
  PRIMEBench Sec. 4.1, first filter of Stage 0);
* ``all-wrong``: :math:`x_{mi} = 0` for every such model (too hard, or a broken key or image);
* ``near-ceiling``: not all-correct, but the mean :math:`\bar x_i \ge` ``ceiling`` (default 0.95): almost
  saturated, little separation left;
* ``blind-solvable``: the mean of the text-only runs (``condition == "text-only"`` in the panel's models
  table: the same model asked without the image) :math:`\beta_i \ge \tau` (PRIMEBench Sec. 4.1, second
  filter, :math:`\tau = 2/3`): the question can be answered without looking at the image. Only defined when
  the panel has text-only runs; otherwise NaN.

The per-benchmark shares are the fraction of the benchmark's items with each flag (the blind-solvable share
among the items that some text-only run scored).

Reference
---------
PRIMEBench (the compression paper of this project), Section 4.1, Stage 0: all-correct and blind-solvable
filters, :math:`\beta_i = \frac{1}{|T|} \sum_{t \in T} x_{ti}` over the image-free runs :math:`T`.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

__all__ = ["BLIND_THRESHOLD", "CEILING", "ItemSaturation", "item_saturation"]

#: PRIMEBench's tau: an item is blind-solvable when the text-only runs' mean score reaches it
BLIND_THRESHOLD = 2.0 / 3.0
#: mean score at or above which an item that is not all-correct counts as near the ceiling
CEILING = 0.95


@dataclass(frozen=True)
class ItemSaturation:
    """Per-item saturation signals (arrays aligned with the columns)."""

    mean: np.ndarray  #: mean score of the image-condition models that scored the item (NaN: none)
    n_models: np.ndarray  #: how many scored it
    all_correct: np.ndarray
    all_wrong: np.ndarray
    near_ceiling: np.ndarray
    blind_mean: np.ndarray  #: mean of the text-only runs (NaN: none scored it, or no text-only runs)
    blind_solvable: np.ndarray


def item_saturation(
    X: np.ndarray,
    X_text: np.ndarray | None = None,
    ceiling: float = CEILING,
    blind_threshold: float = BLIND_THRESHOLD,
) -> ItemSaturation:
    """The saturation signals of the module docstring for image scores ``X`` and text-only scores ``X_text``
    (``(n_text_runs, n_items)``; ``None`` or no rows: blind-solvability undefined)."""
    X = np.asarray(X, dtype=np.float64)
    obs = ~np.isnan(X)
    n = obs.sum(axis=0)
    with np.errstate(invalid="ignore", divide="ignore"):
        mean = np.where(n > 0, np.where(obs, X, 0.0).sum(axis=0) / np.maximum(n, 1), np.nan)
    all_correct = (n > 0) & np.all(np.where(obs, X == 1.0, True), axis=0)
    all_wrong = (n > 0) & np.all(np.where(obs, X == 0.0, True), axis=0)
    near = (n > 0) & ~all_correct & (np.nan_to_num(mean, nan=-1.0) >= ceiling)
    blind_mean = np.full(X.shape[1], np.nan)
    if X_text is not None and np.asarray(X_text).shape[0] > 0:
        T = np.asarray(X_text, dtype=np.float64)
        t_obs = ~np.isnan(T)
        t_n = t_obs.sum(axis=0)
        with np.errstate(invalid="ignore", divide="ignore"):
            blind_mean = np.where(t_n > 0, np.where(t_obs, T, 0.0).sum(axis=0) / np.maximum(t_n, 1), np.nan)
    blind = np.nan_to_num(blind_mean, nan=-1.0) >= blind_threshold
    return ItemSaturation(mean, n.astype(np.int64), all_correct, all_wrong, near, blind_mean, blind)
