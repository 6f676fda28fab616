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
import warnings
from collections.abc import Iterator, Sequence
from numbers import Integral

import numpy as np
import pandas as pd

from benchsift._inputs import check_array, check_length
from benchsift._params import Interval, check_param
from benchsift.errors import BenchsiftWarning, require_at_least
from benchsift.panel import Panel
from benchsift.stats import zscore
from benchsift.stats.means import nan_mean


def aggregate_matrix(panel: Panel) -> tuple[np.ndarray, list[str], pd.DataFrame]:
    """(models x benchmarks means, benchmark names, image-condition models table)."""
    Panel.check(panel, image=True)
    image = panel.image_rows
    sub = panel.subset(models=image) if not image.all() else panel
    g = sub.benchmark_means()
    return np.asarray(g.means, dtype=np.float64), [str(b) for b in g.groups], sub.models


def matrix_input(
    data: Panel | np.ndarray, benchmarks: Sequence[str] | None = None
) -> tuple[np.ndarray, list[str], pd.DataFrame | None]:
    """``(X, names, models)`` of an aggregate input: a panel (:func:`aggregate_matrix`) or a
    ``(models x benchmarks)`` matrix whose columns ``benchmarks`` names (default ``B0, B1, ...``; ``models``
    is then None)."""
    if isinstance(data, Panel):
        return aggregate_matrix(data)
    X = check_array("data", data, ndim=2, what="a (models x benchmarks) matrix")
    if benchmarks is None:
        return X, [f"B{j}" for j in range(X.shape[1])], None
    check_length("benchmarks", benchmarks, X.shape[1], "names (one per column)")
    return X, [str(b) for b in benchmarks], None


def default_coverage(n_benchmarks: int) -> int:
    """Half of the benchmarks, rounded up (7 of 14, PRIMEBench H.3)."""
    return max(1, math.ceil(n_benchmarks / 2))


def covered(X: np.ndarray, min_coverage: int) -> np.ndarray:
    """Models (rows) scored on at least ``min_coverage`` benchmarks."""
    return (~np.isnan(X)).sum(axis=1) >= int(min_coverage)


def covering_models(X: np.ndarray, min_coverage: int | None, where: str = "") -> tuple[int, np.ndarray]:
    """``(min_coverage, rows)`` of the coverage rule: ``min_coverage`` (None: :func:`default_coverage`)
    declared as 1 to the number of benchmarks, and the rows covering it, of which there must be 3 (a
    z-score and a rank correlation need them); ``where`` names the panel in the message."""
    n_b = X.shape[1]
    if min_coverage is None:
        cov = default_coverage(n_b)
    else:
        what = f"1 to {n_b} benchmarks a model must cover"
        cov = int(check_param("min_coverage", min_coverage, [Interval(Integral, 1, n_b, desc=what)]))
    keep = covered(X, cov)
    require_at_least(
        int(keep.sum()), 3, f"{where}models covering at least {cov} benchmarks", "z-scores and rho"
    )
    return cov, keep


def z_reference(X: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Column z-scores (NaN-aware; a constant column is NaN) and each row's mean available z-score."""
    Z = zscore(X, axis=0)
    return Z, np.round(nan_mean(Z, axis=1), 12)


def combinations_chunks(n: int, k: int, chunk: int = 8192) -> Iterator[np.ndarray]:
    """All k-subsets of ``range(n)`` in lexicographic order, ``chunk`` rows of an int64 array at a time."""
    combos = itertools.combinations(range(n), k)
    while True:
        block = np.fromiter(itertools.chain.from_iterable(itertools.islice(combos, chunk)), dtype=np.int64)
        if block.size == 0:
            return
        yield block.reshape(-1, k)


def default_sizes(default: Sequence[int], n: int, name: str) -> tuple[list[int], list[str]]:
    """The subset sizes ``default`` (a parameter the caller left out) capped at the ``n`` benchmarks, with
    the warning that says so when any was (also issued as a :class:`~benchsift.errors.BenchsiftWarning`, so
    a notebook shows it): a default of 5 on a panel of 3 benchmarks asks a question nobody asked, and was an
    error that named the parameter as if the caller had given it."""
    sizes = list(dict.fromkeys(min(int(k), max(n, 1)) for k in default))
    if sizes == [int(k) for k in default]:
        return sizes, []
    said = (
        f"`{name}` not given: its default {', '.join(map(str, default))} asks for more than the panel's {n} "
        f"benchmark(s); using {', '.join(map(str, sizes))} (pass `{name}` to choose)"
    )
    warnings.warn(said, BenchsiftWarning, stacklevel=3)
    return sizes, [said]


def check_k(k: int, n: int) -> int:
    """``k`` of Stage 3 on aggregates: 1 to the ``n`` benchmarks, of which there must be 2 or more."""
    require_at_least(n, 2, "Stage 3 on benchmark means: benchmarks", "it keeps a subset of them")
    what = f"an integer between 1 and the number of benchmarks ({n})"
    return int(check_param("k", k, [Interval(Integral, 1, n, desc=what)]))
