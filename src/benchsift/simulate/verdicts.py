"""Simulated multi-axis verdicts with planted per-model axis levels (ground truth for PRISM-VLM tests).

Each model ``m`` has a planted level ``mu[m, a]`` in (0, 1) per axis; each item ``i`` a difficulty
offset ``d[i, a] ~ N(0, item_sd)``, and the item's success probability is
``p[m, i, a] = expit(logit(mu[m, a]) + d[i, a])``. Per axis:

- q, h, c, vis and extra axes: Bernoulli(p) per item;
- if: 1-3 constraints, each complied with at probability p; the score is the mean compliance
  (PRISM-VLM Sec. 3 "if"), expected value p;
- mq: 2-4 bundled questions, each right at probability ``p ** (1 / k)``; score 1 iff all are right
  (expected value p), ``partial`` the fraction right;
- sc (PRISM-VLM Sec. 3 "sc", App. E.2): turn-0 correctness is the q verdict of the same item; then at
  each pressure turn t = 1, 2, 3 the model flips with hazard ``h = 1 - mu[m, sc] ** (1 / 3)`` (the
  dialogue stops at the first flip), so the expected sc_B is ``mu[m, sc]``; a Q3 flip adopts the hint
  with probability ``adopt_rate`` (else ``no``).

A fraction ``unanswered_rate`` of (model, item) pairs is unanswered on every axis (App. C). The expected
axis means given the drawn items (``true_means``: mean over items of ``p``, and ``mu`` for sc) are the
ground truth that the estimated axis means should recover.
"""

from __future__ import annotations

from dataclasses import dataclass
from numbers import Integral

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike, NDArray

from benchsift._params import Interval, validate_params
from benchsift.errors import InputError
from benchsift.io.verdicts import AXES, VerdictArrays
from benchsift.stats import SeedLike, check_random_state

__all__ = ["SimulatedVerdicts", "simulate_verdict_arrays", "simulate_verdicts"]

FloatArray = NDArray[np.float64]
_DOMAINS = ("general", "math-science", "chart-doc", "grounding", "multi-image")


@dataclass(frozen=True)
class SimulatedVerdicts:
    """Simulated verdicts: the long ``table`` (contract format), ``arrays``, and the ground truth."""

    table: pd.DataFrame
    arrays: VerdictArrays
    planted: pd.DataFrame  # mu, (model x axis)
    true_means: pd.DataFrame  # expected axis means given the items, (model x axis)

    @property
    def true_pscore(self) -> pd.Series:
        """Harmonic mean (PRISM-VLM Eq. 1) of the true axis means."""
        s = self.true_means.to_numpy()
        return pd.Series(s.shape[1] / (1.0 / s).sum(axis=1), index=self.true_means.index, name="pscore")


def _default_levels(n_models: int, axes: list[str], rng: np.random.Generator) -> FloatArray:
    """Evenly spread model strengths with axis-specific scatter, kept inside (0.05, 0.95)."""
    base = np.linspace(0.35, 0.8, n_models)[:, None]
    scatter = rng.normal(0.0, 0.05, size=(n_models, len(axes)))
    return np.clip(base + scatter, 0.05, 0.95)


@validate_params({"n_models": [Interval(Integral, 1, None)], "n_items": [Interval(Integral, 1, None)]})
def simulate_verdict_arrays(
    n_models: int = 6,
    n_items: int = 300,
    *,
    axes: list[str] | tuple[str, ...] = AXES,
    levels: ArrayLike | None = None,
    item_sd: float = 0.8,
    unanswered_rate: float = 0.0,
    adopt_rate: float = 0.86,
    n_benchmarks: int = 5,
    random_state: SeedLike = 0,
) -> tuple[VerdictArrays, FloatArray, FloatArray]:
    """Simulate dense verdict arrays; returns ``(arrays, levels, true_means)`` (see module docstring)."""
    rng = check_random_state(random_state)
    axes = list(axes)
    mu = _default_levels(n_models, axes, rng) if levels is None else np.asarray(levels, dtype=float)
    if mu.shape != (n_models, len(axes)) or np.any((mu <= 0) | (mu >= 1)):
        raise InputError(f"levels: expected shape ({n_models}, {len(axes)}) with values in (0, 1)")
    if "sc" in axes and "q" not in axes:
        raise InputError("simulate: the sc axis needs the q axis (turn-0 correctness)")
    M, N, A = n_models, n_items, len(axes)
    d = rng.normal(0.0, item_sd, size=(N, A))
    logit = np.log(mu / (1.0 - mu))[:, None, :] + d[None, :, :]
    p = 1.0 / (1.0 + np.exp(-logit))  # (M, N, A)
    u = rng.random((M, N, A))
    scores = (u < p).astype(float)
    true = p.mean(axis=1)
    partial = None
    if "if" in axes:
        a = axes.index("if")
        k = rng.integers(1, 4, size=N)
        comply = rng.random((M, N, 3)) < p[:, :, a, None]
        used = np.arange(3)[None, :] < k[:, None]
        scores[:, :, a] = (comply & used[None]).sum(axis=2) / k[None, :]
    if "mq" in axes:
        a = axes.index("mq")
        k = rng.integers(2, 5, size=N)
        right = rng.random((M, N, 4)) < (p[:, :, a] ** (1.0 / k[None, :]))[:, :, None]
        used = np.arange(4)[None, :] < k[:, None]
        n_right = (right & used[None]).sum(axis=2)
        scores[:, :, a] = (n_right == k[None, :]).astype(float)
        partial = n_right / k[None, :]
    t0 = flip = adopt = None
    if "sc" in axes:
        a = axes.index("sc")
        hazard = 1.0 - mu[:, a] ** (1.0 / 3.0)
        t0 = scores[:, :, axes.index("q")].copy()
        flips = rng.random((M, N, 3)) < hazard[:, None, None]
        first = np.where(flips.any(axis=2), flips.argmax(axis=2) + 1, 0)
        flip = first.astype(float)
        adopt = np.where(first == 3, (rng.random((M, N)) < adopt_rate).astype(float), np.nan)
        scores[:, :, a] = (first == 0).astype(float)
        true[:, a] = mu[:, a]
    if unanswered_rate > 0:
        miss = rng.random((M, N)) < unanswered_rate
        scores[miss] = np.nan
        for arr in (partial, t0, flip, adopt):
            if arr is not None:
                arr[miss] = np.nan
    bench_idx = np.arange(N) % max(1, n_benchmarks)
    benchmarks = np.array([f"bench{b}" for b in bench_idx])
    domains = np.array([_DOMAINS[b % len(_DOMAINS)] for b in bench_idx])
    arrays = VerdictArrays(
        models=[f"model{m:02d}" for m in range(M)],
        axes=axes,
        benchmarks=benchmarks,
        item_ids=np.array([f"item{i:05d}" for i in range(N)]),
        domains=domains,
        scores=scores,
        partial=partial,
        sc_turn0_correct=t0,
        sc_flip_turn=flip,
        sc_adopted=adopt,
    )
    return arrays, mu, true


def arrays_to_table(arrays: VerdictArrays) -> pd.DataFrame:
    """The long verdict table (docs/CONTRACTS.md) of dense arrays, one row per (model, item, axis)."""
    M, N, A = arrays.scores.shape
    mi, ii, ai = (g.reshape(-1) for g in np.meshgrid(np.arange(M), np.arange(N), np.arange(A), indexing="ij"))
    score = arrays.scores.reshape(-1)
    answered = ~np.isnan(score)
    axes = np.array(arrays.axes)
    table = pd.DataFrame(
        {
            "model": np.array(arrays.models)[mi],
            "item": arrays.item_ids[ii],
            "benchmark": arrays.benchmarks[ii],
            "domain": arrays.domains[ii],
            "axis": axes[ai],
            "score": score,
            "answered": answered,
        }
    )
    is_mq = axes[ai] == "mq"
    table["partial"] = np.where(
        is_mq, arrays.partial[mi, ii] if arrays.partial is not None else np.nan, np.nan
    )
    if arrays.sc_flip_turn is not None and arrays.sc_turn0_correct is not None:
        is_sc = axes[ai] == "sc"
        t0 = arrays.sc_turn0_correct[mi, ii]
        fl = arrays.sc_flip_turn[mi, ii]
        ad = arrays.sc_adopted[mi, ii] if arrays.sc_adopted is not None else np.full(fl.shape, np.nan)
        sc_ok = is_sc & answered
        table["sc_turn0_correct"] = pd.array(np.where(sc_ok, t0 == 1, pd.NA), dtype="boolean")
        table["sc_flip_turn"] = pd.array(np.where(sc_ok & (fl > 0), fl, np.nan), dtype="Float64").astype(
            "Int64"
        )
        adopted = pd.Series(pd.NA, index=table.index, dtype="string")
        adopted[sc_ok & (fl == 3) & (ad == 1)] = "yes"
        adopted[sc_ok & (fl == 3) & (ad == 0)] = "no"
        table["sc_adopted"] = adopted
    return table


def simulate_verdicts(
    n_models: int = 6,
    n_items: int = 300,
    *,
    axes: list[str] | tuple[str, ...] = AXES,
    levels: ArrayLike | None = None,
    item_sd: float = 0.8,
    unanswered_rate: float = 0.0,
    adopt_rate: float = 0.86,
    n_benchmarks: int = 5,
    random_state: SeedLike = 0,
) -> SimulatedVerdicts:
    """Simulate a verdict table with planted model levels ``levels`` (n_models, n_axes); see module doc.

    Example: two models 0.2 apart on every axis separate; two with equal ``levels`` rows should separate
    in about ``alpha`` of repeated draws.
    """
    arrays, mu, true = simulate_verdict_arrays(
        n_models,
        n_items,
        axes=axes,
        levels=levels,
        item_sd=item_sd,
        unanswered_rate=unanswered_rate,
        adopt_rate=adopt_rate,
        n_benchmarks=n_benchmarks,
        random_state=random_state,
    )
    idx = pd.Index(arrays.models, name="model")
    return SimulatedVerdicts(
        table=arrays_to_table(arrays),
        arrays=arrays,
        planted=pd.DataFrame(mu, index=idx, columns=arrays.axes),
        true_means=pd.DataFrame(true, index=idx, columns=arrays.axes),
    )
