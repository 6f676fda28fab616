"""Shelf life of a frozen Stage 3 selection as newer models arrive (PRIMEBench Appendix I.1, Table 20).

Models are sorted by release date (undated last, :func:`~benchsift.compression.protocols.splits.
chronological_order`). The exhaustive ``k``-benchmark Stage 3 selection is fitted on the oldest ``n_build``
dated models and frozen. On each cumulative panel of the first ``M`` dated models (and, last, all dated
models plus the undated ones) the models covering at least ``min_coverage`` benchmarks are kept first, the
z-normalisation is fitted on them afterwards, and the table reports

* ``rho_frozen``: Spearman rho between the reference (mean available z-score over all benchmarks) and the
  frozen subset's mean available z-score;
* ``rho_best``: the best subset refitted on that panel, and ``gap = rho_best - rho_frozen``;
* ``percentile``: ``100 * #{S : rho_S <= rho_frozen} / C(n, k)`` over all k-subsets ``S`` (compared after
  rounding to 12 decimals), the frozen subset's standing among every alternative.

All subsets of a panel are scored in vectorised chunks (one gather-and-sum plus one column-wise Spearman
call per chunk).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from numbers import Integral
from typing import Any

import numpy as np
import pandas as pd

from benchsift._inputs import check_length
from benchsift._params import Check, Interval, check_param
from benchsift.compression.diagnostics._aggregate import (
    check_k,
    combinations_chunks,
    covered,
    covering_models,
    default_sizes,
    matrix_input,
    z_reference,
)
from benchsift.compression.protocols.splits import chronological_order
from benchsift.compression.stages.categories import subset_rho
from benchsift.errors import InputError, require_at_least
from benchsift.panel import Panel
from benchsift.results import Result

__all__ = ["ShelfLifeResult", "all_subset_rhos", "shelf_life"]

MAX_SUBSETS = 2_000_000


def all_subset_rhos(Z: np.ndarray, k: int, reference: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """rho of every k-subset of the columns of ``Z`` (lexicographic order) and the subsets themselves."""
    n = Z.shape[1]
    if math.comb(n, k) > MAX_SUBSETS:
        raise InputError(f"C({n}, {k}) = {math.comb(n, k)} subsets exceed the limit of {MAX_SUBSETS}")
    rhos, subs = [], []
    for block in combinations_chunks(n, k):
        rhos.append(subset_rho(Z, block, reference))
        subs.append(block)
    return np.concatenate(rhos), np.concatenate(subs)


def _percentile(rhos: np.ndarray, value: float) -> float:
    r = np.where(np.isfinite(rhos), np.round(rhos, 12), -np.inf)
    return float(100.0 * (r <= round(value, 12)).sum() / r.size) if np.isfinite(value) else float("nan")


@dataclass(frozen=True, repr=False)
class ShelfLifeResult(Result):
    """Table 20: one row per cumulative panel; ``frozen`` the benchmarks selected on the build panel."""

    benchmarks: list[str]
    k: int
    n_build: int
    frozen: list[str]
    rows: list[dict[str, Any]]
    n_dated: int
    n_undated: int
    warnings: list[str] = field(default_factory=list)

    def to_frame(self) -> pd.DataFrame:
        return pd.DataFrame(self.rows)

    def to_dict(self) -> dict[str, Any]:
        return {
            "benchmarks": self.benchmarks,
            "k": self.k,
            "n_build": self.n_build,
            "frozen": self.frozen,
            "n_dated": self.n_dated,
            "n_undated": self.n_undated,
            "rows": self.rows,
            "warnings": list(self.warnings),
        }

    def table(self) -> pd.DataFrame:
        """The same as :meth:`to_frame` (the name the CLI and older code use)."""
        return self.to_frame()


def _evaluate(X: np.ndarray, k: int, frozen: tuple[int, ...], min_cov: int) -> dict[str, Any]:
    keep = covered(X, min_cov)
    Z, ref = z_reference(X[keep])
    rhos, subs = all_subset_rhos(Z, k, ref)
    fpos = int(np.flatnonzero((subs == np.array(frozen)).all(axis=1))[0])
    finite = np.where(np.isfinite(rhos), np.round(rhos, 12), -np.inf)
    best = int(np.argmax(finite))
    rho_f, rho_b = float(rhos[fpos]), float(rhos[best])
    return {
        "scored": int(keep.sum()),
        "rho_frozen": rho_f,
        "rho_best": rho_b,
        "gap": rho_b - rho_f,
        "percentile": _percentile(rhos, rho_f),
        "rho_random_mean": float(np.nanmean(rhos)) if np.isfinite(rhos).any() else float("nan"),
    }


#: Benchmarks a frozen Stage 3 selection keeps (PRIMEBench I.1): ``shelf_life``'s ``k`` when not given
SHELF_LIFE_K = 5


def shelf_life(
    data: Panel | np.ndarray,
    *,
    k: int | None = None,
    n_build: int | None = None,
    checkpoints: Sequence[int] | None = None,
    release_dates: Sequence[Any] | None = None,
    benchmarks: Sequence[str] | None = None,
    min_coverage: int | None = None,
    include_undated: bool = True,
) -> ShelfLifeResult:
    """Track a frozen Stage 3 selection over cumulative release-ordered panels (PRIMEBench I.1, Table 20).

    ``n_build`` defaults to two thirds of the dated models (132 of 203 in the paper); ``checkpoints`` (the
    dated panel sizes ``M``) default to four sizes from ``n_build`` to all dated models. With
    ``include_undated`` a last row appends the undated models. ``data`` is a panel (its release dates are
    used) or a matrix with ``release_dates`` and ``benchmarks``. ``k`` defaults to :data:`SHELF_LIFE_K` (the
    paper's 5), capped at the number of benchmarks with a warning.
    """
    X, names, models = matrix_input(data, benchmarks)
    if release_dates is not None:
        dates = pd.Series(list(release_dates))
    elif models is not None:
        dates = models["release_date"]
    else:
        raise InputError("data: a (models x benchmarks) matrix needs release_dates (one per row)")
    check_length("release_dates", dates, X.shape[0], "dates (one per model row)")
    if k is not None:
        k = check_k(k, X.shape[1])
    order, n_dated = chronological_order(dates)
    require_at_least(n_dated, 3, "shelf life: dated models", "a build panel of 3")
    if n_build is None:
        nb = max(3, round(2 * n_dated / 3))
    else:
        what = f"between 3 and the {n_dated} dated models"
        nb = int(check_param("n_build", n_build, [Interval(Integral, 3, n_dated, desc=what)]))
    if checkpoints is None:
        cps = sorted({int(round(v)) for v in np.linspace(nb, n_dated, 4)})
    else:
        cps = sorted({int(c) for c in checkpoints})
        sizes = Check(
            lambda c: nb <= c[0] and c[-1] <= n_dated, f"panel sizes between `n_build`={nb} and {n_dated}"
        )
        check_param("checkpoints", cps, [sizes])
    capped: list[str] = []
    if k is None:  # (after the inputs are checked: a refused call warns of nothing)
        (k,), capped = default_sizes((SHELF_LIFE_K,), X.shape[1], "k")
        k = check_k(k, X.shape[1])
    Xb = X[order[:nb]]
    cov, keep = covering_models(Xb, min_coverage, "the build panel: ")
    Zb, refb = z_reference(Xb[keep])
    rb, sb = all_subset_rhos(Zb, k, refb)
    frozen = tuple(int(c) for c in sb[int(np.argmax(np.where(np.isfinite(rb), np.round(rb, 12), -np.inf)))])
    rows = []
    for m in cps:
        row = {"panel": f"oldest {m} dated", "M": m}
        row.update(_evaluate(X[order[:m]], k, frozen, cov))
        rows.append(row)
    n_undated = int(order.shape[0] - n_dated)
    if include_undated and n_undated:
        row = {"panel": f"all {n_dated} dated + {n_undated} undated", "M": n_dated}
        row.update(_evaluate(X[order], k, frozen, cov))
        rows.append(row)
    return ShelfLifeResult(
        benchmarks=names,
        k=k,
        n_build=nb,
        frozen=[names[p] for p in frozen],
        rows=rows,
        n_dated=n_dated,
        n_undated=n_undated,
        warnings=capped,
    )
