"""Instance redundancy of one benchmark: redundancy paper Section 2.2, Eq. 3.

For a sampling ratio :math:`A\\%` of the benchmark's :math:`M` items, draw :math:`T` uniform samples of
:math:`k = \\max(1, \\lfloor A\\% \\cdot M + 1/2 \\rfloor)` items without replacement, score every model on
each sample (NaN-aware mean over its scored sampled items) and correlate those scores with the
full-benchmark scores :math:`R_{GT}`:

.. math::

    \\rho(A\\%) = \\frac{1}{T} \\sum_{t=1}^{T} \\mathrm{CORR}(R_{A\\%_t}, R_{GT}) \\quad (\\text{Eq. 3}).

We also report the standard deviation over the repeats (ddof = 1) and, per metric, the *saturation ratio*:
the smallest ratio of the grid whose mean reaches the threshold (0.95 in Section 3.2). For R^2 the
full-benchmark scores are the truth and the sampled scores the prediction (Appendix A).

Undefined values: when the full-benchmark scores are constant across models every metric is undefined
(NaN, noted). A sample on which every model scores the same leaves SRCC, PLCC and Kendall undefined for that
repeat (left out of the mean, counted in ``n_defined``, noted); R^2 stays defined there, since a constant
prediction of non-constant truth is a (poor) prediction, and dropping it would flatter the R^2 curve.

Vectorization: all T repeats of a ratio are one matrix product. ``S`` is the ``(T, M)`` 0/1 selection
matrix (exactly ``k`` ones per row, uniform without replacement: the ``k`` smallest of ``M`` iid uniforms),
``Z`` the score matrix with NaN set to 0 and ``O`` the observed mask; sampled scores are
``(S @ Z.T) / (S @ O.T)`` (the second product is skipped when nothing is missing). The metrics are then
column-wise against the full scores (:func:`benchsift.stats.correlation.corr_with_vector`).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from numbers import Integral, Real
from typing import Any

import numpy as np
import pandas as pd
from joblib import delayed

from benchsift._jsonutil import to_jsonable
from benchsift._params import Check, Interval, check_param, renamed_attribute, validate_params
from benchsift._threads import single_thread
from benchsift.errors import MIN_MODELS, InputError, require_at_least
from benchsift.panel import Panel
from benchsift.parallel import ordered_parallel, sweep_backend
from benchsift.progress import ProgressFn, Ticker
from benchsift.redundancy._common import parse_metrics, prepare_panel
from benchsift.redundancy.selection import ModelSelection, select_models
from benchsift.results import Result
from benchsift.stats import check_random_state
from benchsift.stats.correlation import corr_with_vector

DEFAULT_RATIOS: tuple[float, ...] = (0.01, 0.02, 0.05, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9)
"""The default grid of sampling ratios: 1, 2, 5, 10, 20, ..., 90 %."""

DEFAULT_REPEATS = 100
"""T in Eq. 3 (Section 2.2: "the sampling process is repeated T = 100 times")."""

DEFAULT_THRESHOLD = 0.95
"""Saturation threshold of Section 3.2."""

#: Largest number of selection-matrix cells built at once (repeats are processed in blocks beyond it).
_BLOCK_CELLS = 1 << 23


@dataclass(frozen=True, repr=False)
class InstanceRedundancy(Result):
    """Result of :func:`instance_redundancy` (Eq. 3).

    Attributes
    ----------
    benchmark:
        The benchmark analysed (``None``: every item of the panel).
    n_models, n_items:
        Models used and the benchmark's item count M.
    ratios:
        Sampling ratios (ascending).
    sample_sizes:
        Items per sample at each ratio.
    repeats:
        T.
    metrics:
        Metric names.
    mean, sd:
        metric -> ``(n_ratios,)`` mean and standard deviation (ddof = 1) over the defined repeats.
    n_defined:
        metric -> ``(n_ratios,)`` number of repeats where the metric was defined.
    saturation:
        metric -> smallest ratio with ``mean >= threshold`` (``None`` when no ratio of the grid reaches it).
    threshold:
        The saturation threshold.
    random_state:
        The seed given (``None`` or an int; a Generator is recorded as ``None``).
    selection:
        The models used (all / top-K / bottom-K).
    values:
        metric -> ``(n_ratios, repeats)`` per-repeat values, when asked for with ``keep_values``.
    undefined, notes:
        Undefined values and why; other notes.
    """

    benchmark: str | None
    n_models: int
    n_items: int
    ratios: np.ndarray
    sample_sizes: np.ndarray
    repeats: int
    metrics: tuple[str, ...]
    mean: dict[str, np.ndarray] = field(repr=False)
    sd: dict[str, np.ndarray] = field(repr=False)
    n_defined: dict[str, np.ndarray] = field(repr=False)
    saturation: dict[str, float | None]
    threshold: float
    random_state: int | None
    selection: ModelSelection
    values: dict[str, np.ndarray] | None = field(default=None, repr=False)
    undefined: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    seed = renamed_attribute("InstanceRedundancy", "seed", "random_state", until="0.3")

    def to_dict(self) -> dict[str, Any]:
        """JSON shape of ``benchsift redundancy instances --json`` (NaN written as null)."""
        out = {
            "n_models": self.n_models,
            "n_items": self.n_items,
            "ratios": self.ratios,
            "metrics": {m: {"mean": self.mean[m], "sd": self.sd[m]} for m in self.metrics},
            "saturation": {m: self.saturation[m] for m in self.metrics},
            "benchmark": self.benchmark,
            "sample_sizes": self.sample_sizes,
            "repeats": self.repeats,
            "threshold": self.threshold,
            "seed": self.random_state,
            "selection": self.selection.to_dict(),
            "undefined": list(self.undefined),
            "notes": list(self.notes),
        }
        return to_jsonable(out)

    def to_frame(self) -> pd.DataFrame:
        """The rho(A%) curve: one row per sampling ratio, mean and sd per metric."""
        frame = pd.DataFrame({"ratio": self.ratios, "items": self.sample_sizes})
        for m in self.metrics:
            frame[f"{m}_mean"] = self.mean[m]
            frame[f"{m}_sd"] = self.sd[m]
        return frame.set_index("ratio")


def _fractions(ratios: Any) -> bool:
    arr = np.asarray(list(ratios), dtype=np.float64)
    return arr.ndim == 1 and arr.size > 0 and bool(((arr > 0.0) & (arr <= 1.0)).all())


_RATIOS = [Check(_fractions, "a non-empty list of sampling ratios in (0, 1] (fractions, 0.05 = 5 %)")]


def check_ratios(ratios: Sequence[float] | np.ndarray) -> np.ndarray:
    """Ratios as a sorted, de-duplicated float array, each in (0, 1]."""
    check_param("ratios", ratios, _RATIOS)
    return np.unique(np.asarray(list(ratios), dtype=np.float64))


def sample_sizes(n_items: int, ratios: np.ndarray) -> np.ndarray:
    """Items per sample, :math:`k = \\max(1, \\lfloor r M + 1/2 \\rfloor)` (round half up), at most M."""
    k = np.floor(ratios * n_items + 0.5).astype(np.int64)
    return np.clip(k, 1, max(n_items, 1))


def selection_matrix(
    n_items: int, k: int, repeats: int, rng: np.random.Generator, dtype: type = np.float64
) -> np.ndarray:
    """``(repeats, n_items)`` float 0/1 matrix; each row a uniform k-subset drawn without replacement.

    Row ``t`` marks the ``k`` smallest of ``n_items`` iid uniforms, which is a uniformly random k-subset.
    ``dtype`` (float64 or float32) does not change the draws. The row's k-th smallest key is found by
    ``np.partition`` (values only) and the row marked by one comparison with it: about half the time of an
    ``argpartition`` followed by ``put_along_axis`` at 100 x 3,088, the same matrix (a tie of two float64
    uniforms at a row's threshold, probability about ``n^2 / 2^53``, falls back to the index path, so the
    rows hold exactly ``k`` items whatever the keys).
    """
    check_param("k", k, [Interval(Integral, 1, n_items, noun="a sample size")], quote=False)
    if k == n_items:
        return np.ones((repeats, n_items), dtype=dtype)
    keys = rng.random((repeats, n_items))
    threshold = np.partition(keys, k - 1, axis=1)[:, k - 1 : k]
    marked = keys <= threshold
    if np.count_nonzero(marked) == k * repeats:  # each row marks at least k: so every row exactly k
        return marked.astype(dtype)
    sel: np.ndarray = np.zeros((repeats, n_items), dtype=dtype)
    np.put_along_axis(sel, np.argpartition(keys, k - 1, axis=1)[:, :k], 1.0, axis=1)
    return sel


def sampled_scores(
    zeroed: np.ndarray, observed: np.ndarray | None, selection: np.ndarray, k: int | None = None
) -> np.ndarray:
    """``(n_models, repeats)`` NaN-aware mean scores of each model on each sample.

    ``zeroed`` is the ``(n_models, n_items)`` score matrix with NaN set to 0, ``observed`` its float 0/1
    mask (``None`` when nothing is missing). A model with no scored item in a sample gets NaN. The
    products run in the inputs' dtype: float32 is exact (and about twice as fast) when the scores are
    integers whose sums stay below 2^24, which :func:`instance_redundancy` checks before it chooses it;
    the means are always divided in float64. ``k``: the items in every sample, when the caller knows it
    (:func:`selection_matrix`'s rows), instead of counting each row's.
    """
    sums = (zeroed @ selection.T).astype(np.float64, copy=False)
    if observed is None:
        return sums / (selection.sum(axis=1, dtype=np.float64)[None, :] if k is None else float(k))
    counts = (observed @ selection.T).astype(np.float64, copy=False)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(counts > 0, sums / np.where(counts > 0, counts, 1.0), np.nan)


def _chunk_task(
    zeroed: np.ndarray,
    observed: np.ndarray | None,
    full: np.ndarray,
    k: int,
    count: int,
    names: tuple[str, ...],
    stream: np.random.Generator | tuple[type, dict[str, Any], int],
) -> dict[str, np.ndarray]:
    """Metric values of ``count`` repeats at sample size ``k``: one chunk of the sweep.

    ``stream`` is the generator itself (drawn from in sequence) or ``(bit generator type, state, offset)``:
    the run's PCG64 state advanced by ``offset`` draws (``PCG64.advance``), which is exactly where the
    sequential loop would stand at this chunk, so chunks run in any order, on any worker, with the same draws.
    """
    n_items = zeroed.shape[1]
    if k == n_items:
        # Every sample is the whole benchmark: its scores are the full scores, exactly.
        sampled = np.repeat(full[:, None], count, axis=1)
    else:
        if isinstance(stream, np.random.Generator):
            rng = stream
        else:
            kind, state, offset = stream
            bit_gen = kind()
            bit_gen.state = state
            bit_gen.advance(offset)
            rng = np.random.Generator(bit_gen)
        sel = selection_matrix(n_items, k, count, rng, zeroed.dtype.type)
        # One BLAS thread: a chunk's product is small (169 x 3,088 x 100 is 50 M multiply-adds), so a
        # second thread's wake-up costs more than it saves, and on a loaded machine far more (measured).
        with single_thread():
            sampled = sampled_scores(zeroed, observed, sel, k)
    return {m: corr_with_vector(sampled, full, m) for m in names}


def _mean_sd(vals: np.ndarray) -> tuple[float, float, int]:
    ok = np.isfinite(vals)
    n = int(ok.sum())
    if n == 0:
        return float("nan"), float("nan"), 0
    v = vals[ok]
    mean = float(v.mean())
    sd = float(np.sqrt(((v - mean) ** 2).sum() / (n - 1))) if n > 1 else float("nan")
    return mean, sd, n


def saturation_ratio(ratios: np.ndarray, mean: np.ndarray, threshold: float) -> float | None:
    """Smallest ratio whose mean reaches ``threshold`` (Section 3.2); ``None`` if none does."""
    hit = np.flatnonzero(np.isfinite(mean) & (mean >= threshold))
    return float(ratios[hit[0]]) if hit.size else None


def _work_arrays(scores: np.ndarray) -> tuple[np.ndarray, np.ndarray | None]:
    """The scores with missing cells as 0 and the observed mask (``None`` when every cell is observed),
    in float32 when that is exact: integer scores (0/1 correctness) with sums below 2^24 make the sample
    sums exact in float32, so the selection products run there, bit for bit the float64 result at about
    half the cost. A complete panel is not copied; exactness is checked on the float32 copy (it equals the
    scores, and its values are integers), about half the passes of checking the float64 matrix."""
    n_items = scores.shape[1]
    obs = ~np.isnan(scores)
    complete = bool(obs.all())
    zeroed = scores if complete else np.where(obs, scores, 0.0)
    bound = float(max(-zeroed.min(initial=0.0), zeroed.max(initial=0.0)))
    if bound * n_items < 2.0**24:
        narrow = zeroed.astype(np.float32)
        if np.array_equal(narrow, zeroed) and np.array_equal(narrow, np.rint(narrow)):
            return narrow, None if complete else obs.astype(np.float32)
    return zeroed, None if complete else obs.astype(np.float64)


def _unscored_note(selection: ModelSelection, overall: np.ndarray, basis: str) -> list[str]:
    """The models of the panel with no score on the benchmark, which "all" leaves out (not counted), or []."""
    unscored = int(np.count_nonzero(~np.isfinite(overall)))
    if selection.mode != "all" or not unscored:
        return []
    used = selection.positions.size
    return [f"{unscored} of {overall.size} model(s) have no score on {basis} and are left out ({used} used)"]


def _undefined_full(n_models: int, full: np.ndarray) -> list[str]:
    """Why every metric is undefined (fewer than 2 models, or constant full-benchmark scores), or []."""
    if n_models < 2:
        return [f"only {n_models} model(s): correlations need at least 2"]
    if np.isfinite(full).sum() < 2 or not np.max(full[np.isfinite(full)]) > np.min(full[np.isfinite(full)]):
        return [
            "the full-benchmark scores are constant across models (or fewer than 2 are defined): every metric"
            " is undefined"
        ]
    return []


def _sample_metrics(
    zeroed: np.ndarray,
    observed: np.ndarray | None,
    full: np.ndarray,
    grid: np.ndarray,
    sizes: np.ndarray,
    repeats: int,
    names: Sequence[str],
    rng: np.random.Generator,
    workers: tuple[str | None, str | None, int | None],
    progress: ProgressFn | None,
) -> dict[str, np.ndarray]:
    """Each metric between the sample and the full scores, ``(ratios, repeats)`` per metric: the repeats
    run in chunks (:func:`_chunk_task`) on the sweep backend ``workers`` = (backend, address, n_jobs), each
    chunk from its own jump of ``rng``'s stream (PCG64), so the values are those of the sequential draws
    whatever the workers; ``rng`` is left where the sequential draws would have left it."""
    backend, address, n_jobs = workers
    n_items = zeroed.shape[1]
    block = max(1, _BLOCK_CELLS // n_items)
    values = {m: np.full((grid.size, repeats), np.nan) for m in names}
    chunks = [
        (r, start, min(repeats, start + block), int(k))
        for r, k in enumerate(sizes)
        for start in range(0, repeats, block)
    ]
    # uint64 draws of the stream before each chunk (rng.random takes one per double; none when k == M)
    used = [(stop - start) * n_items if k < n_items else 0 for _, start, stop, k in chunks]
    offsets = np.concatenate([[0], np.cumsum(used, dtype=np.int64)])
    bit_gen = rng.bit_generator
    jumpable = isinstance(bit_gen, np.random.PCG64 | np.random.PCG64DXSM)
    state = bit_gen.state
    tick = Ticker(progress, len(chunks))
    with sweep_backend(backend, address, n_jobs if jumpable else 1) as n_workers:
        outputs = ordered_parallel(n_workers)(
            delayed(_chunk_task)(
                zeroed,
                observed,
                full,
                k,
                stop - start,
                names,
                (type(bit_gen), state, int(off)) if jumpable else rng,
            )
            for (_, start, stop, k), off in zip(chunks, offsets, strict=False)
        )
        for (r, start, stop, _), out in zip(chunks, outputs, strict=True):
            for m in names:
                values[m][r, start:stop] = out[m]
            tick()
    if isinstance(bit_gen, np.random.PCG64 | np.random.PCG64DXSM):
        # leave a caller's Generator where the sequential draws would have left it
        bit_gen.advance(int(offsets[-1]))
    return values


def _summarise(
    values: dict[str, np.ndarray],
    grid: np.ndarray,
    names: Sequence[str],
    repeats: int,
    threshold: float,
    undefined: list[str],
) -> tuple[dict[str, np.ndarray], dict[str, np.ndarray], dict[str, np.ndarray], dict[str, float | None]]:
    """Per metric: mean, SD and defined repeats per ratio, and the saturation ratio (Section 3.2); a metric
    undefined in some repeats is added to ``undefined`` (when nothing is there yet)."""
    mean: dict[str, np.ndarray] = {}
    sd: dict[str, np.ndarray] = {}
    n_defined: dict[str, np.ndarray] = {}
    saturation: dict[str, float | None] = {}
    for m in names:
        stats = [_mean_sd(values[m][r]) for r in range(grid.size)]
        mean[m] = np.array([s[0] for s in stats])
        sd[m] = np.array([s[1] for s in stats])
        n_defined[m] = np.array([s[2] for s in stats], dtype=np.int64)
        saturation[m] = saturation_ratio(grid, mean[m], threshold)
        short = np.flatnonzero(n_defined[m] < repeats)
        if short.size and not undefined:
            detail = ", ".join(f"{grid[r]:g}: {repeats - n_defined[m][r]}" for r in short)
            undefined.append(
                f"{m}: undefined in some repeats (a sample with constant scores across models), left out of "
                f"the mean; undefined repeats per ratio {detail}"
            )
    return mean, sd, n_defined, saturation


@validate_params({"repeats": [Interval(Integral, 1, None)], "threshold": [Interval(Real, None, None)]})
def instance_redundancy(
    panel: Panel,
    benchmark: str | None = None,
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
) -> InstanceRedundancy:
    """Instance redundancy curve :math:`\\rho(A\\%)` of one benchmark (redundancy paper Eq. 3).

    Parameters
    ----------
    panel:
        Item-level score panel.
    benchmark:
        Benchmark to analyse; ``None`` uses every item of the panel (noted when it holds several).
    ratios:
        Sampling ratios in (0, 1] (default 1, 2, 5, 10, 20, ..., 90 %).
    repeats:
        T, samples per ratio (default 100).
    metrics:
        Any of ``srcc, plcc, r2, kendall`` (default all four).
    threshold:
        Saturation threshold (default 0.95).
    top_k, bottom_k:
        Restrict to the K best / worst models by full-benchmark score (Section 2.5).
    random_state:
        Seed or Generator; the same seed gives the same result.
    condition:
        Keep only model runs of this condition (``None`` keeps all).
    keep_values:
        Also return the per-repeat values.
    progress:
        ``progress(done, total)`` after each chunk of repeats (:mod:`benchsift.progress`); None: silent.
    n_jobs, backend, address:
        Where the chunks of repeats (one per ratio and block) run: joblib workers and backend (``None``,
        ``"loky"``, ``"threading"``, ``"dask"``, ``"ray"``) with a cluster address, see
        :func:`benchsift.parallel.sweep_backend`. Results do not depend on them.

    Random draws: one generator (:func:`benchsift.stats._random.check_random_state`); the ratios in ascending
    order, each drawing its T samples with :func:`selection_matrix` (nothing is drawn for a ratio whose
    sample is the whole benchmark). So the same seed gives the same result, also when the repeats are
    processed in blocks. A chunk run on a worker starts from the run's PCG64 state advanced past the draws
    of the chunks before it (``PCG64.advance``), so the parallel sweep draws exactly what the sequential
    loop draws; a Generator on another bit generator runs the chunks in sequence in this process.
    """
    names = parse_metrics(metrics)
    grid = check_ratios(ratios)
    repeats = int(repeats)
    threshold = float(threshold)
    if threshold <= 0.0:
        # a mean correlation of 0 is what unrelated rankings give: any subset, the smallest ratio first,
        # would "saturate", and the answer would say nothing about redundancy (issue 32)
        raise InputError(
            f"`threshold` must be above 0 (unrelated rankings already give a mean correlation near 0, so "
            f"every ratio would saturate; Section 3.2 uses 0.95), got {threshold!r}"
        )
    if threshold > 1.0:
        # every metric is at most 1: no ratio could reach it, and "no saturation" would be the answer
        raise InputError(
            f"`threshold` must be at most 1 (SRCC, PLCC, R^2 and Kendall's tau never exceed 1, so no "
            f"ratio could reach it), got {threshold!r}"
        )
    rng = check_random_state(random_state)
    seed = int(random_state) if isinstance(random_state, int | np.integer) else None
    panel, notes = prepare_panel(panel, benchmark, condition)
    basis = f"benchmark {benchmark!r}" if benchmark is not None else "the panel"
    overall = panel.model_means()  # the ranking basis; the kept rows' means are the full scores
    panel, selection = select_models(panel, top_k=top_k, bottom_k=bottom_k, overall=overall, basis=basis)
    notes += _unscored_note(selection, overall, basis)
    n_models, n_items = panel.shape
    if n_items == 0:
        raise InputError(f"instance redundancy: {basis} has no items")
    full = overall[selection.positions]  # NaN for a model with no score
    require_at_least(
        int(np.isfinite(full).sum()),
        MIN_MODELS,
        f"instance redundancy on {basis}: models with scores",
        "a correlation across 2 models is +-1, so rho(A%) and the saturation ratio would mean nothing",
    )
    zeroed, observed = _work_arrays(panel.scores)
    sizes = sample_sizes(n_items, grid)
    undefined = _undefined_full(n_models, full)
    values = _sample_metrics(
        zeroed, observed, full, grid, sizes, repeats, names, rng, (backend, address, n_jobs), progress
    )
    mean, sd, n_defined, saturation = _summarise(values, grid, names, repeats, threshold, undefined)
    return InstanceRedundancy(
        benchmark=benchmark,
        n_models=n_models,
        n_items=n_items,
        ratios=grid,
        sample_sizes=sizes,
        repeats=repeats,
        metrics=names,
        mean=mean,
        sd=sd,
        n_defined=n_defined,
        saturation=saturation,
        threshold=threshold,
        random_state=seed,
        selection=selection,
        values=values if keep_values else None,
        undefined=undefined,
        notes=notes,
    )
