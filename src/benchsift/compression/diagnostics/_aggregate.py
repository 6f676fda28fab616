"""Aggregate (model x benchmark) panels for the OpenVLM-style diagnostics (PRIMEBench Appendix H.3, I.1).

An *aggregate panel* has one score per model and benchmark. It can be a :class:`~benchsift.panel.Panel`
(image-condition rows; its benchmark means are taken, so an item-level panel works too) or a matrix.

Coverage rule (H.3): only models scored on at least ``min_coverage`` benchmarks are kept (default: half of
them, rounded up: 7 of 14). The z-normalisation of each benchmark is fitted on the kept models afterwards
(NaN-aware, ddof 0), and the reference score of a model is the mean of its available z-scores, without
imputation.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Iterator

import numpy as np
import pandas as pd

from benchsift.errors import InputError
from benchsift.panel import Panel
from benchsift.stats import zscore


def aggregate_matrix(panel: Panel) -> tuple[np.ndarray, list[str], pd.DataFrame]:
    """(models x benchmarks means, benchmark names, image-condition models table)."""
    if not isinstance(panel, Panel):
        raise InputError(f"expected a benchsift Panel, got {type(panel).__name__}")
    image = panel.conditions == "image"
    if not image.any():
        raise InputError("the panel has no image-condition model rows")
    sub = panel.subset(models=image) if not image.all() else panel
    g = sub.benchmark_means()
    return np.asarray(g.means, dtype=np.float64), [str(b) for b in g.groups], sub.models


def default_coverage(n_benchmarks: int) -> int:
    """Half of the benchmarks, rounded up (7 of 14, PRIMEBench H.3)."""
    return max(1, math.ceil(n_benchmarks / 2))


def covered(X: np.ndarray, min_coverage: int) -> np.ndarray:
    """Models (rows) scored on at least ``min_coverage`` benchmarks."""
    return (~np.isnan(X)).sum(axis=1) >= int(min_coverage)


def z_reference(X: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Column z-scores (NaN-aware; a constant column is NaN) and each row's mean available z-score."""
    Z = zscore(X, axis=0)
    ok = ~np.isnan(Z)
    n = ok.sum(axis=1)
    ref = np.full(X.shape[0], np.nan)
    np.divide(np.where(ok, Z, 0.0).sum(axis=1), n, out=ref, where=n > 0)
    return Z, np.round(ref, 12)


def combinations_chunks(n: int, k: int, chunk: int = 8192) -> Iterator[np.ndarray]:
    """All k-subsets of ``range(n)`` in lexicographic order, ``chunk`` rows of an int64 array at a time."""
    combos = itertools.combinations(range(n), k)
    while True:
        block = np.fromiter(itertools.chain.from_iterable(itertools.islice(combos, chunk)), dtype=np.int64)
        if block.size == 0:
            return
        yield block.reshape(-1, k)


def check_k(k: int, n: int) -> int:
    if isinstance(k, bool) or not isinstance(k, int | np.integer) or not 1 <= int(k) <= n:
        raise InputError(f"k: expected an integer between 1 and the number of benchmarks ({n}), got {k!r}")
    return int(k)
