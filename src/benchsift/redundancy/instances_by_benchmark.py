"""Instance redundancy of each benchmark and its average: redundancy paper Section 2.2, Figs. 5-6.

:func:`benchsift.redundancy.instance_redundancy` analyses one benchmark (Eq. 3); called without
``benchmark=`` on a multi-benchmark panel it pools every item as one benchmark. The paper instead analyses
each benchmark on its own and then

* plots the benchmark-specific curves :math:`\\rho_b(A\\%)` (Fig. 6), and
* averages them over the benchmarks, ratio by ratio (Fig. 5, "average instance redundancy ... across 18
  LMM benchmarks"): :math:`\\bar\\rho(A\\%) = \\frac{1}{B} \\sum_b \\rho_b(A\\%)`.

:func:`instance_redundancy_by_benchmark` does both. Per benchmark it calls :func:`instance_redundancy` with
``benchmark=b``, so a top-K / bottom-K selection ranks the models by their score on *that* benchmark (Fig. 6
caption: "the selection of the Top-50 and Bottom-50 MLLMs is based on the corresponding benchmark";
Section 2.5). Each benchmark draws from its own seed, :func:`benchmark_seed` of the one seed given and the
benchmark's name, so a benchmark's curve does not depend on which other benchmarks are analysed beside it.

Averaging: per metric, a benchmark enters the average only when its mean curve is defined (finite) at every
ratio of the grid; otherwise it is listed in ``undefined`` and left out of that metric's average (so every
point of the average is over the same benchmarks). The spread across benchmarks is the standard deviation
(ddof = 1) of the included benchmarks' mean curves (NaN with a single benchmark). The saturation ratio of
the average is the smallest ratio whose averaged mean reaches the threshold (Section 3.2), as for one
benchmark.
"""

from __future__ import annotations

import zlib
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from numbers import Integral
from typing import Any

import numpy as np
import pandas as pd

from benchsift._inputs import named_hints
from benchsift._jsonutil import to_jsonable
from benchsift._params import Interval, check_param, renamed_attribute
from benchsift.errors import InputError, listed
from benchsift.panel import Panel
from benchsift.parallel import sweep_backend
from benchsift.progress import ProgressFn
from benchsift.redundancy.instances import (
    DEFAULT_RATIOS,
    DEFAULT_REPEATS,
    DEFAULT_THRESHOLD,
    InstanceRedundancy,
    check_ratios,
    instance_redundancy,
    saturation_ratio,
)
from benchsift.redundancy.selection import validate_k
from benchsift.results import Result
from benchsift.stats import check_random_state


def benchmark_seed(seed: int, benchmark: str) -> int:
    """The 31-bit seed of one benchmark: a function of the run seed and the benchmark name only.

    ``SeedSequence([seed, crc32(name)])``, so adding or removing other benchmarks never changes a
    benchmark's draws, and :func:`instance_redundancy` called with this seed reproduces its curve.
    """
    key = zlib.crc32(str(benchmark).encode("utf-8"))
    return int(np.random.SeedSequence([int(seed), key]).generate_state(1)[0] >> 1)


@dataclass(frozen=True, repr=False)
class InstanceRedundancyByBenchmark(Result):
    """Result of :func:`instance_redundancy_by_benchmark` (Figs. 5-6).

    Attributes
    ----------
    benchmarks:
        The benchmarks analysed, in order.
    ratios:
        Sampling ratios (ascending), shared by every benchmark.
    metrics:
        Metric names.
    per_benchmark:
        benchmark -> its :class:`InstanceRedundancy` (Fig. 6).
    mean:
        metric -> ``(n_ratios,)`` mean over the included benchmarks of their mean curves (Fig. 5).
    sd:
        metric -> ``(n_ratios,)`` standard deviation (ddof = 1) across the included benchmarks' mean curves.
    included:
        metric -> the benchmarks averaged (those whose curve is defined at every ratio).
    saturation:
        metric -> smallest ratio where the averaged curve reaches ``threshold`` (``None``: not reached).
    threshold, repeats:
        Saturation threshold and T.
    random_state:
        The seed given (``None`` for ``None`` or a Generator).
    random_states:
        benchmark -> the seed its :func:`instance_redundancy` call used as ``random_state``
        (:func:`benchmark_seed`).
    selection:
        ``"all"``, ``"top-K"`` or ``"bottom-K"`` (chosen per benchmark).
    undefined, notes:
        Benchmarks left out of an average and why; other notes (shared notes of the per-benchmark runs).
    """

    benchmarks: tuple[str, ...]
    ratios: np.ndarray
    metrics: tuple[str, ...]
    per_benchmark: dict[str, InstanceRedundancy] = field(repr=False)
    mean: dict[str, np.ndarray] = field(repr=False)
    sd: dict[str, np.ndarray] = field(repr=False)
    included: dict[str, list[str]]
    saturation: dict[str, float | None]
    threshold: float
    repeats: int
    random_state: int | None
    random_states: dict[str, int] = field(repr=False)
    selection: str
    undefined: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    seed = renamed_attribute("InstanceRedundancyByBenchmark", "seed", "random_state", until="0.3")
    seeds = renamed_attribute("InstanceRedundancyByBenchmark", "seeds", "random_states", until="0.3")

    def to_dict(self) -> dict[str, Any]:
        """JSON of ``benchsift redundancy instances --each-benchmark --json`` (NaN written as null).

        ``{"benchmarks", "ratios", "per_benchmark": {bench: <InstanceRedundancy.to_dict()>}, "average":
        {"metrics": {metric: {"mean", "sd_across_benchmarks"}}, "saturation": {metric: ratio | null},
        "included": {metric: [bench, ...]}}, "threshold", "repeats", "seed", "selection", "undefined",
        "notes"}``.
        """
        out = {
            "benchmarks": list(self.benchmarks),
            "ratios": self.ratios,
            "per_benchmark": {b: self.per_benchmark[b].to_dict() for b in self.benchmarks},
            "average": {
                "metrics": {
                    m: {"mean": self.mean[m], "sd_across_benchmarks": self.sd[m]} for m in self.metrics
                },
                "saturation": {m: self.saturation[m] for m in self.metrics},
                "included": {m: list(self.included[m]) for m in self.metrics},
            },
            "threshold": self.threshold,
            "repeats": self.repeats,
            "seed": self.random_state,
            "selection": self.selection,
            "undefined": list(self.undefined),
            "notes": list(self.notes),
        }
        return to_jsonable(out)

    def to_frame(self) -> pd.DataFrame:
        """The averaged curve (Fig. 5): one row per ratio, mean and sd across benchmarks per metric."""
        frame = pd.DataFrame({"ratio": self.ratios})
        for m in self.metrics:
            frame[f"{m}_mean"] = self.mean[m]
            frame[f"{m}_sd"] = self.sd[m]
        return frame.set_index("ratio")


def _benchmark_list(panel: Panel, benchmarks: str | Iterable[str] | None) -> list[str]:
    """The benchmarks to analyse: all of the panel's (order of first appearance) or the named ones."""
    Panel.check(panel)
    known = list(panel.benchmarks)
    if benchmarks is None:
        names = known
    else:
        raw = [benchmarks] if isinstance(benchmarks, str) else list(benchmarks)
        names = list(dict.fromkeys(str(b) for b in raw))
        unknown = [b for b in names if b not in known]
        if unknown:
            raise InputError(
                f"unknown benchmark(s) {named_hints(unknown, known)}; the panel has {listed(known, 20)}"
            )
    if not names:
        raise InputError("instance redundancy per benchmark: no benchmark to analyse")
    return names


def _base_seed(random_state: int | np.random.Generator | None) -> tuple[int, int | None]:
    """The integer the per-benchmark seeds derive from, and the seed to record (``None`` unless an int)."""
    check_param("random_state", random_state, [Interval(Integral, None, None), np.random.Generator, None])
    if isinstance(random_state, int | np.integer):
        return int(random_state), int(random_state)
    # None or a Generator: one draw fixes every benchmark's seed.
    return int(check_random_state(random_state).integers(0, 2**31 - 1)), None


def average_curves(
    ratios: np.ndarray,
    per_benchmark: dict[str, InstanceRedundancy],
    metrics: Sequence[str],
    threshold: float,
) -> tuple[
    dict[str, np.ndarray], dict[str, np.ndarray], dict[str, list[str]], dict[str, float | None], list[str]
]:
    """Average the benchmarks' mean curves per metric (Fig. 5); returns mean, sd, included, saturation, notes.

    A benchmark whose curve for a metric is undefined at any ratio is left out of that metric's average
    (noted). sd is across benchmarks (ddof = 1; NaN for fewer than 2).
    """
    names = list(per_benchmark)
    mean: dict[str, np.ndarray] = {}
    sd: dict[str, np.ndarray] = {}
    included: dict[str, list[str]] = {}
    saturation: dict[str, float | None] = {}
    undefined: list[str] = []
    n_ratios = ratios.size
    for m in metrics:
        curves = np.stack([per_benchmark[b].mean[m] for b in names]) if names else np.zeros((0, n_ratios))
        ok = np.isfinite(curves).all(axis=1)
        for b in (names[i] for i in np.flatnonzero(~ok)):
            bad = per_benchmark[b].ratios[~np.isfinite(per_benchmark[b].mean[m])]
            where = "every ratio" if bad.size == n_ratios else "ratio(s) " + ", ".join(f"{r:g}" for r in bad)
            undefined.append(
                f"{m}: benchmark {b!r} left out of the average (its curve is undefined at {where}; see its"
                " own 'undefined')"
            )
        used = curves[ok]
        included[m] = [names[i] for i in np.flatnonzero(ok)]
        if used.shape[0] == 0:
            mean[m] = np.full(n_ratios, np.nan)
            sd[m] = np.full(n_ratios, np.nan)
            undefined.append(f"{m}: no benchmark has a defined curve; the average is undefined")
        else:
            mean[m] = used.mean(axis=0)
            sd[m] = used.std(axis=0, ddof=1) if used.shape[0] > 1 else np.full(n_ratios, np.nan)
        saturation[m] = saturation_ratio(ratios, mean[m], threshold)
    return mean, sd, included, saturation, undefined


def instance_redundancy_by_benchmark(
    panel: Panel,
    benchmarks: str | Iterable[str] | None = None,
    ratios: Sequence[float] | np.ndarray = DEFAULT_RATIOS,
    repeats: int = DEFAULT_REPEATS,
    metrics: str | Iterable[str] | None = None,
    threshold: float = DEFAULT_THRESHOLD,
    top_k: int | None = None,
    bottom_k: int | None = None,
    random_state: int | np.random.Generator | None = None,
    condition: str | None = "image",
    keep_values: bool = False,
    progress: ProgressFn | None = None,
    n_jobs: int | None = None,
    backend: str | None = None,
    address: str | None = None,
) -> InstanceRedundancyByBenchmark:
    """Benchmark-specific :math:`\\rho(A\\%)` curves (Fig. 6) and their average across benchmarks (Fig. 5).

    Parameters
    ----------
    panel:
        Item-level score panel holding one or more benchmarks.
    benchmarks:
        Benchmarks to analyse (default: every benchmark of the panel, in order of first appearance).
    ratios, repeats, metrics, threshold, condition, keep_values, progress:
        As in :func:`~benchsift.redundancy.instance_redundancy` (Eq. 3), applied to each benchmark.
    top_k, bottom_k:
        Restrict each benchmark's analysis to its own K best / worst models, ranked by their score on that
        benchmark (Section 2.5; Fig. 6 caption). K larger than a benchmark's scored models is an
        :class:`~benchsift.errors.InputError` naming the benchmark.
    random_state:
        Seed (int), Generator or ``None``. Benchmark ``b`` is analysed with
        ``random_state=benchmark_seed(seed, b)``; a Generator or ``None`` is first drawn from once for the
        base seed.
    n_jobs, backend, address:
        Where the chunks of repeats run (:func:`benchsift.parallel.sweep_backend`; one backend, and one
        local cluster when one is started, serves every benchmark). Results do not depend on them.

    Returns
    -------
    InstanceRedundancyByBenchmark
        The per-benchmark results, the mean and across-benchmark sd of each metric's mean curve and the
        saturation ratio of the averaged curve. Benchmarks with an undefined curve are reported in
        ``undefined`` and left out of the average.
    """
    names = _benchmark_list(panel, benchmarks)
    grid = check_ratios(ratios)
    mode, k = validate_k(top_k, bottom_k)
    base, seed = _base_seed(random_state)
    per_benchmark: dict[str, InstanceRedundancy] = {}
    seeds: dict[str, int] = {}
    with sweep_backend(backend, address, n_jobs) as workers:
        for b in names:
            seeds[b] = benchmark_seed(base, b)
            try:
                per_benchmark[b] = instance_redundancy(
                    panel,
                    benchmark=b,
                    ratios=grid,
                    repeats=repeats,
                    metrics=metrics,
                    threshold=threshold,
                    top_k=top_k,
                    bottom_k=bottom_k,
                    random_state=seeds[b],
                    condition=condition,
                    keep_values=keep_values,
                    progress=progress,
                    n_jobs=workers,
                )
            except InputError as exc:
                raise InputError(f"benchmark {b!r}: {exc}") from exc
    first = per_benchmark[names[0]]
    mean, sd, included, saturation, undefined = average_curves(
        grid, per_benchmark, first.metrics, first.threshold
    )
    notes = list(dict.fromkeys(n for r in per_benchmark.values() for n in r.notes))
    return InstanceRedundancyByBenchmark(
        benchmarks=tuple(names),
        ratios=grid,
        metrics=first.metrics,
        per_benchmark=per_benchmark,
        mean=mean,
        sd=sd,
        included=included,
        saturation=saturation,
        threshold=first.threshold,
        repeats=first.repeats,
        random_state=seed,
        random_states=seeds,
        selection="all" if mode == "all" else f"{mode}-{k}",
        undefined=undefined,
        notes=notes,
    )
