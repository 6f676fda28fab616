"""Cross-benchmark redundancy within a domain: redundancy paper Section 2.3, Eq. 4, and Appendix C.

For benchmarks :math:`Y_1, \\dots, Y_l` with model rankings :math:`K_i`,

.. math::

    \\rho(Y_i) = \\frac{1}{l-1} \\sum_{j \\ne i} \\mathrm{CORR}(K_i, K_j) \\quad (\\text{Eq. 4}).

The *anchor* benchmark of the domain is the one with the highest :math:`\\rho(Y_i)` (Appendix C: "select
the benchmark with the highest cross-benchmark redundancy"). Two panel layouts are read:

* item-level panels: a model's score on a benchmark is its NaN-aware mean over the benchmark's items
  (:meth:`benchsift.panel.Panel.benchmark_means`);
* aggregate panels, where every item column already is one benchmark's score (e.g.
  ``Panel.from_matrix(scores, models, benchmark_names)``, one benchmark value for all columns, or one item
  per benchmark): each column is a benchmark.

Undefined correlations are NaN, listed in ``undefined`` and left out of the averages. For R^2 entry
``[i, j]`` has benchmark ``i`` as truth and ``j`` as prediction; :math:`\\rho(Y_i)` is the row mean.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any, Literal

import numpy as np
import pandas as pd

from benchsift._inputs import check_distinct, named_hints
from benchsift._jsonutil import to_jsonable
from benchsift.errors import MIN_MODELS, DegenerateError, InputError, listed, require_at_least
from benchsift.panel import Panel
from benchsift.redundancy._common import (
    MatrixResultMixin,
    keep_condition,
    parse_metrics,
    redundancy_matrices,
)
from benchsift.redundancy.selection import ModelSelection, overall_scores, select_models
from benchsift.results import Result

Level = Literal["auto", "benchmark", "item"]


@dataclass(frozen=True, repr=False)
class BenchmarkRedundancy(MatrixResultMixin, Result):
    """Result of :func:`benchmark_redundancy` (Eq. 4).

    Attributes
    ----------
    benchmarks:
        Benchmark names.
    level:
        ``"benchmark"`` (item-level panel, benchmark means) or ``"item"`` (aggregate panel, one column per
        benchmark).
    scores:
        ``(n_models, l)`` benchmark scores the correlations were computed on.
    metrics, matrix, redundancy:
        As in :class:`~benchsift.redundancy.dimensions.DimensionRedundancy` (``redundancy`` is
        :math:`\\rho(Y_i)`).
    anchor:
        metric -> the benchmark with the highest :math:`\\rho(Y_i)` (``None`` when all are undefined).
    selection, undefined, notes:
        Models used, undefined values, other notes.
    """

    benchmarks: list[str]
    level: str
    scores: np.ndarray = field(repr=False)
    metrics: tuple[str, ...]
    matrix: dict[str, np.ndarray] = field(repr=False)
    redundancy: dict[str, np.ndarray] = field(repr=False)
    anchor: dict[str, str | None]
    selection: ModelSelection
    undefined: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    @property
    def labels(self) -> list[str]:
        return self.benchmarks

    def to_dict(self) -> dict[str, Any]:
        """JSON shape of ``benchsift redundancy benchmarks --json`` (NaN written as null)."""
        out = {
            "benchmarks": list(self.benchmarks),
            "matrix": {m: self.matrix[m] for m in self.metrics},
            "redundancy": {
                m: dict(zip(self.benchmarks, self.redundancy[m], strict=True)) for m in self.metrics
            },
            "anchor": {m: self.anchor[m] for m in self.metrics},
            "level": self.level,
            "n_models": self.n_models,
            "selection": self.selection.to_dict(),
            "undefined": list(self.undefined),
            "notes": list(self.notes),
        }
        return to_jsonable(out)

    def to_frame(self) -> pd.DataFrame:
        """rho(Y_i) per benchmark (rows) and metric (columns)."""
        return self.redundancy_frame().rename_axis("benchmark")


def benchmark_scores(
    panel: Panel,
    benchmarks: Iterable[str] | None = None,
    category: str | None = None,
    level: Level = "auto",
) -> tuple[list[str], np.ndarray, str]:
    """Per-model scores on each benchmark of the set: ``(names, (n_models, l) scores, level used)``.

    ``level="auto"`` reads a panel with several benchmarks as item-level (benchmark means; a panel of
    ``benchsift import aggregate`` has one item per benchmark, so its means are its scores) and refuses a
    panel with a single benchmark: its items may be one benchmark's questions (an item-level MMMU, where
    reading every question as a "benchmark" would answer a question nobody asked) or the columns of a
    models x benchmarks table imported as one benchmark, and only the user knows which -- ``level="item"``
    reads each item column as a benchmark. ``category`` first
    restricts the panel to the items of that category: on an aggregate panel, the benchmarks (columns) of
    that domain; on an item-level panel, each benchmark is then scored on its items of that category only
    (as the paper's MathVista refinement, Section 3.3), and a benchmark without such items drops out.
    ``benchmarks`` then picks names (benchmark names, or item ids at the ``"item"`` level). The ``"auto"``
    level is decided on the panel before the category filter.
    """
    if level not in ("auto", "benchmark", "item"):  # its words are pinned by tests/badinput
        raise InputError(f"`level` must be auto, benchmark or item, got {level!r}")
    if level == "auto":
        # Decided on the whole panel: a domain filter leaving one benchmark of an item-level panel must not
        # turn that benchmark's items into "benchmarks".
        if len(panel.benchmarks) == 1:
            raise DegenerateError(
                f"cross-benchmark redundancy: the panel holds a single benchmark ({panel.benchmarks[0]!r}, "
                f"{panel.n_items} items) and it needs at least 2; if each item column is a benchmark's score "
                "(a models x benchmarks table), pass `level` 'item' or import the table with "
                "`benchsift import aggregate`"
            )
        level = "benchmark"
    if category is not None:
        panel = panel.select_categories(category)
    wanted = None if benchmarks is None else [str(b) for b in benchmarks]
    if level == "benchmark":
        if wanted is not None:
            panel = panel.select_benchmarks(wanted)
        groups = panel.benchmark_means()
        names, scores = list(groups.groups), groups.means
        if wanted is not None:
            order = [names.index(w) for w in wanted]
            names, scores = wanted, scores[:, order]
        return names, scores, "benchmark"
    items = panel.items
    names = items["item"].astype(str).tolist()
    check_distinct(
        "item ids (the item-level cross-benchmark analysis needs each once; use level='benchmark')",
        names,
        what="id",
    )
    if wanted is None:
        return names, np.array(panel.scores), "item"
    unknown = [w for w in wanted if w not in names]
    if unknown:
        raise InputError(
            f"unknown benchmark column(s) {named_hints(unknown, names)}; the panel's columns are"
            f" {listed(names, 20)}"
        )
    order = [names.index(w) for w in wanted]
    return wanted, np.array(panel.scores[:, order]), "item"


def benchmark_redundancy(
    panel: Panel,
    benchmarks: Iterable[str] | None = None,
    category: str | None = None,
    metrics: str | Iterable[str] | None = None,
    top_k: int | None = None,
    bottom_k: int | None = None,
    level: Level = "auto",
    condition: str | None = "image",
) -> BenchmarkRedundancy:
    """Cross-benchmark redundancy :math:`\\rho(Y_i)` and the anchor benchmark (Eq. 4, Appendix C).

    Parameters
    ----------
    panel:
        Item-level or aggregate panel (see :func:`benchmark_scores` for ``level``).
    benchmarks:
        The domain's benchmarks (default: all of the panel's).
    category:
        Restrict to items of this category first: on an aggregate panel the benchmarks of that domain, on an
        item-level panel each benchmark's items of that category (benchmarks without any drop out, noted).
    metrics:
        Any of ``srcc, plcc, r2, kendall`` (default all four).
    top_k, bottom_k:
        Restrict to the K best / worst models by their mean score over the benchmarks of the set
        (each benchmark weighted equally; Section 2.5).
    condition:
        Keep only model runs of this condition (``None`` keeps all).
    """
    names_m = parse_metrics(metrics)
    Panel.check(panel)
    panel, notes = keep_condition(panel, condition)
    names, scores, used = benchmark_scores(panel, benchmarks, category=category, level=level)
    notes += _category_notes(panel, category, used)
    check_distinct("benchmark names", names, what="name")
    basis = "the benchmark set " + ", ".join(names[:5]) + (" ..." if len(names) > 5 else "")
    overall = overall_scores(panel, group_means=scores)
    # a model scored on fewer than 2 benchmarks of the set is in no correlation: not used, not counted, and
    # not one of the top / bottom K (a model ranked in on one benchmark's mean would leave K - 1 used)
    usable = np.isfinite(scores).sum(axis=1) >= 2
    n_out = int((np.isfinite(overall) & ~usable).sum())
    if n_out:
        pool = int(np.isfinite(overall).sum())
        notes.append(
            f"{n_out} of {pool} model(s) with a score on fewer than 2 of the {len(names)} benchmarks left out"
            + (" before the K were chosen" if top_k or bottom_k else f" ({pool - n_out} used)")
        )
    ranked = np.where(usable, overall, np.nan)
    basis += " (on 2 or more of them)"
    _, selection = select_models(panel, top_k=top_k, bottom_k=bottom_k, overall=ranked, basis=basis)
    scores = scores[selection.positions]
    require_at_least(
        len(names),
        2,
        "cross-benchmark redundancy: benchmarks",
        "rho(Y_i) compares each benchmark with the others",
    )
    require_at_least(
        int(np.isfinite(scores).any(axis=1).sum()),
        MIN_MODELS,
        "cross-benchmark redundancy: models with scores",
        "correlations across models",
    )
    matrix, redundancy, undefined = redundancy_matrices(scores, names, names_m, "benchmark")
    anchor: dict[str, str | None] = {
        m: names[int(np.nanargmax(rho))] if np.isfinite(rho).any() else None for m, rho in redundancy.items()
    }
    return BenchmarkRedundancy(
        benchmarks=list(names),
        level=used,
        scores=scores,
        metrics=names_m,
        matrix=matrix,
        redundancy=redundancy,
        anchor=anchor,
        selection=selection,
        undefined=undefined,
        notes=notes,
    )


def _category_notes(panel: Panel, category: str | None, used: str) -> list[str]:
    """How a category filter read an item-level panel: each benchmark on its items of it, some dropped."""
    notes: list[str] = []
    if category is not None and used == "benchmark":
        kept = set(panel.select_categories(category).benchmarks)
        dropped = [b for b in panel.benchmarks if b not in kept]
        note = f"each benchmark scored on its items of category {category!r} only"
        if dropped:
            note += f"; {len(dropped)} benchmark(s) without such items left out: {', '.join(dropped[:10])}"
        notes.append(note)
    return notes
