r"""Items chosen for the new-model estimate: IRT-information strata (and difficulty strata where the
benchmark has a guessing floor) plus correctness anchors.

The suite that ranks well (VAW, PRIMEBench section 4.3) is not the suite that estimates a new model's full
score best: the full-score estimators (:mod:`benchsift.compression.full_score`) need (i) a precise ability
over the whole range of abilities new models will have, and (ii) items that stand for the rest of the pool
so that what the ability does not explain can be calibrated. The selector takes half of its budget for each:

* **Information strata** (half the budget, rounded up): a 2PL (:class:`benchsift.irt.TwoPL`, log-normal
  slope prior with sd ``prior_a_sd``) is fitted on the build models; the abilities :math:`\hat\theta_m` of
  the build models are cut at the ``q`` quantiles :math:`t_s = F^{-1}((s + 1/2)/q)`, ``s = 0..q-1``, and at
  each :math:`t_s` (from the median outwards) the unused item of largest Fisher information
  :math:`a_j^2 P_j(t_s)(1 - P_j(t_s))` is kept (Lord 1980, ch. 11: information is what fixes the
  ability's standard error; the strata spread it over the abilities the models have).
* **Difficulty strata** in place of half of them where the build models show a guessing floor: a 2PL has no
  lower asymptote, so on a multiple-choice benchmark the weak models answer the hard items above its curves
  (:func:`floor_misfit`: AI2D's weakest 30 % of models on its hardest 30 % of items 0.215 observed against
  0.176 expected under a 2PL fitted to all 169 models). The information strata are hard, steep items, so a
  weak model's ability read from them comes out too high, and so does its estimate (AI2D, 10 % suite, seed
  0: p-IRT over-estimated the held-out models below the 40th percentile by +0.026 on average, on a random
  item set of the same size by -0.001).
  Where :func:`floor_misfit` exceeds :data:`FLOOR_MISFIT` (the three VLM benchmarks; never on the three
  free-answer LLM benchmarks), ``ceil(q / 2)`` of the strata are :func:`difficulty_strata` instead (the
  items ranked by mean score, cut into equal strata, one drawn from each: the pool's own spread of
  difficulty, over which the misfit averages out as over the pool), the rest information strata among the
  other items.
* **Correctness anchors** (the rest): k-means on the remaining items' correctness vectors over the build
  models (missing filled with the item mean), the item nearest each centre (tinyBenchmarks' "anchor
  points", Polo et al. 2024, section 3.1, on the correctness vectors rather than on IRT parameters). The
  k-means is :func:`benchsift.stats.kmeans.grid_kmeans`, exact on a grid, so the anchors are the same on
  every machine (with scikit-learn's ``KMeans`` the BLAS kernel broke the many exact ties of 0/1 vectors:
  other anchors under AVX2 or AVX kernels than under AVX-512 in 9-23 of 36 MMMU / AI2D / MMT cases, and
  another suite); measured over 20 random splits per panel, the anchor mean erred as much with it as with
  scikit-learn's (MAE differences -0.001 to +0.003, each within 1.3 standard errors).

Measured (``benchmarks/bench_estimate.py``; MMMU 168 models x 1,050 items, 60/40 random splits): with the
stacked estimator of ``full_score``, the MAE at 2 / 5 / 10 % is lower than with K-means anchors alone or
information strata alone (see docs/ESTIMATE.md, "Estimating new models"). Not on every panel: on MMT-Bench and
AI2D (80-100 build models) the anchors alone erred less, so ``compress`` fits the full-score estimators on
both designs and keeps the anchors, chosen from every item, unless its cross-validation prefers Stage 2's
design by two standard errors (:data:`benchsift.compression.pipeline.ESTIMATE_DESIGNS`; ``info_share=0`` of
:func:`estimation_items` is the anchors-only design). The difficulty strata (issue 31;
``bench_estimate_peers.py``, 10 random 60 / 40 splits, 3 strongest-40 % ones, on MMT, AI2D and MMMU):
benchsift's MAE over the better of gp-IRT and a random subset, mean over the nine cells 0.994 -> 0.962,
the strongest split's summed MAE 3.8 % lower; docs/ESTIMATE.md gives the tables, and the design that took the
difficulty strata alone (better on random splits only, worse on the strongest).

With few build models (fewer than ``CHOICE_MIN_REFERENCE``) the 2PL's item parameters and the k-means
clusters are noisy, and a sample that needs neither can do better: ``estimation_items(..., info_share=1,
strata="difficulty")`` is a stratified random sample (:func:`difficulty_strata` over the whole budget), the
second design ``compress`` weighs on such panels
(:data:`benchsift.compression.pipeline.SMALL_PANEL_DESIGNS`), drawn from every item of each category and
estimated with design weights (the stratified mean and the design-based difference estimator,
:func:`benchsift.compression.full_score_stack.design_weights`).
"""

from __future__ import annotations

import math
import warnings
from numbers import Real
from typing import ClassVar, Literal

import numpy as np
from scipy.special import expit

from benchsift._params import ConstraintLike, Interval
from benchsift.compression.selectors.base import ItemSelector, SelectorInput
from benchsift.irt import TwoPL
from benchsift.stats import check_random_state
from benchsift.stats.kmeans import grid_kmeans

__all__ = ["EstimationSelector", "estimation_items"]

#: Share of the budget taken by the information strata (the rest: correctness anchors). Measured against
#: 0 (anchors only, as tinyBenchmarks), with the anchor mean's ties shared (``full_score_stack``), 60/40
#: random splits, 3 seeds: on ZeroEval GSM8K 0 won (headline MAE 0.030 / 0.023 / 0.022 at 2 / 5 / 10 %
#: against 0.036 / 0.027 / 0.027), on CRUX it lost (0.047 / 0.040 / 0.027 against 0.046 / 0.034 / 0.025),
#: on MATH-L5 it was mixed (0.076 / 0.043 / 0.032 against 0.072 / 0.046 / 0.032); so half and half stays.
#: Measured again against a quarter (``bench_estimate_peers.py --seeds 6 --splits random --selector estimate
#: --retentions 0.02,0.05``, same seeds, one run per panel): benchsift / min(gp-IRT, random) at 2 / 5 % was
#: GSM8K 0.93 / 0.82 (0.89 / 0.90 with a quarter), CRUX 1.02 / 0.99 (1.04 / 0.92), MATH-L5 1.02 / 1.03
#: (1.04 / 0.97): mean 0.967 against 0.958, within noise, losing three cells of six; a quarter is not kept.
#: None (anchors only, the same anchors as tinyBenchmarks) lost on GSM8K, 3 seeds (mean 1.062 against 0.924).
INFO_SHARE = 0.5
#: What the strata are: ``"auto"`` (default: :func:`information_strata`, and where the build models show a
#: guessing floor the 2PL misses, :func:`floor_misfit` above :data:`FLOOR_MISFIT`, half of them
#: :func:`difficulty_strata` instead), or all of one kind, ``"information"`` (the design before) or
#: ``"difficulty"``.
STRATA: Literal["auto", "difficulty", "information"] = "auto"
#: Share of the weakest build models and of the hardest items whose block :func:`floor_misfit` reads.
FLOOR_SHARE = 0.3
#: :func:`floor_misfit` above which the strata are by difficulty (``STRATA="auto"``). On the six real panels
#: (60 % build splits, seeds 0-9 and the weakest-60 % build) the three multiple-choice VLM benchmarks gave
#: +0.021 to +0.046, the three free-answer LLM benchmarks -0.004 to +0.013.
FLOOR_MISFIT = 0.017


def information_strata(a: np.ndarray, d: np.ndarray, theta: np.ndarray, n: int) -> np.ndarray:
    """``n`` items: at each of ``n`` quantiles of ``theta`` (median outwards), the unused item of largest
    Fisher information (ties: lowest position)."""
    if n <= 0:
        return np.empty(0, dtype=np.int64)
    qs = np.quantile(theta, (np.arange(n) + 0.5) / n)
    p = 1.0 / (1.0 + np.exp(-(np.outer(qs, a) + d[None, :])))
    info = a[None, :] ** 2 * p * (1 - p)
    used = np.zeros(a.shape[0], dtype=bool)
    out = []
    for s in np.argsort(np.abs(qs - np.median(theta)), kind="stable"):
        row = np.where(used, -np.inf, info[s])
        j = int(np.argmax(row))
        used[j] = True
        out.append(j)
    return np.sort(np.asarray(out, dtype=np.int64))


def floor_misfit(scores: np.ndarray, a: np.ndarray, d: np.ndarray, theta: np.ndarray) -> float:
    """Observed minus 2PL-expected mean score of the weakest :data:`FLOOR_SHARE` of the models (by mean score)
    on the hardest :data:`FLOOR_SHARE` of the items (by mean score), over the observed cells.

    A 2PL has no lower asymptote: on a multiple-choice benchmark the weak models answer the hard items at
    about chance (AI2D, weakest fifth on the hardest fifth: 0.18 observed, 0.12 expected), where on a free-
    answer one they answer almost none (MATH-L5: 0.008 and 0.005). NaN when the block has no observed cell."""
    x = np.asarray(scores, dtype=np.float64)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        item_mean = np.nanmean(x, axis=0)
        model_mean = np.nanmean(x, axis=1)
    ok_i, ok_m = np.isfinite(item_mean), np.isfinite(model_mean)
    if not ok_i.any() or not ok_m.any():
        return math.nan
    hard = ok_i & (item_mean <= np.quantile(item_mean[ok_i], FLOOR_SHARE))
    weak = ok_m & (model_mean <= np.quantile(model_mean[ok_m], FLOOR_SHARE))
    block = x[np.ix_(weak, hard)]
    seen = np.isfinite(block)
    if not seen.any():
        return math.nan
    expected = expit(np.outer(theta[weak], a[hard]) + d[hard])
    return float(block[seen].mean() - expected[seen].mean())


def difficulty_strata(scores: np.ndarray, n: int, rng: np.random.Generator) -> np.ndarray:
    """``n`` items: the items with a build score ranked by their mean build score (ties in a seeded random
    order), cut into ``n`` strata of equal size (``np.array_split``), one item drawn at random from each.

    Stratified sampling on difficulty (Cochran 1977, "Sampling techniques", ch. 5, proportional
    allocation): every stratum holds ``1 / n`` of the items, so the kept items have the pool's distribution of
    difficulty, and the estimators' misfit (a 2PL has no guessing floor: on AI2D the weak models answer
    the hardest fifth 0.14-0.25 right where the curves say 0.06-0.15) averages out over them as it does
    over the pool, where items of largest information at the ability quantiles are the hard, steep ones
    and carry it into every estimate of a weak model (module docstring)."""
    cols = np.flatnonzero((~np.isnan(scores)).any(axis=0))
    n = min(int(n), cols.size)
    if n <= 0:
        return np.empty(0, dtype=np.int64)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        p = np.nanmean(scores[:, cols], axis=0)
    order = cols[np.lexsort((rng.random(cols.size), p))]
    picks = [int(block[rng.integers(block.size)]) for block in np.array_split(order, n)]
    return np.sort(np.asarray(picks, dtype=np.int64))


def correctness_anchors(scores: np.ndarray, n: int, seed: int) -> np.ndarray:
    """``n`` items: k-means on the items' correctness vectors (columns of ``scores``, NaN -> item mean), the
    item nearest each non-empty centre."""
    if n <= 0 or scores.shape[1] == 0:
        return np.empty(0, dtype=np.int64)
    x = scores.T.copy()
    item_mean = np.nanmean(np.where(np.isnan(x).all(axis=1, keepdims=True), 0.0, x), axis=1)
    x = np.where(np.isnan(x), item_mean[:, None], x)
    n_clusters = min(n, int(np.unique(x, axis=0).shape[0]))
    km = grid_kmeans(x, n_clusters, seed)  # the same labels on every machine (BLAS kernels differ)
    return np.sort(km.nearest_rows())


def estimation_items(
    scores: np.ndarray,
    k: int,
    *,
    prior_a_sd: float = 1.0,
    random_state: int = 0,
    info_share: float | None = None,
    strata: Literal["auto", "difficulty", "information"] | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """``(kept positions sorted, reasons)`` of the estimation suite of ``k`` items (module docstring).

    ``info_share``: the share of ``k`` taken by the information strata (None: :data:`INFO_SHARE`; 0: the
    correctness anchors only, the design ``compress`` weighs against the default, see
    :data:`benchsift.compression.pipeline.ESTIMATE_DESIGNS`). ``strata``: the kind of strata (None:
    :data:`STRATA`); ``info_share=1, strata="difficulty"`` is a stratified random sample of the items
    (:func:`difficulty_strata` over the whole budget). Items without any build score are never kept
    unless nothing else is left (filled at random, reason ``"completion"``).
    """
    kind = STRATA if strata is None else strata
    share = INFO_SHARE if info_share is None else float(info_share)
    if not 0.0 <= share <= 1.0:
        raise ValueError(f"info_share: expected a number in [0, 1], got {info_share!r}")
    rng = check_random_state(random_state)
    x = np.asarray(scores, dtype=np.float64)
    n_items = x.shape[1]
    k = min(int(k), n_items)
    fitted = np.flatnonzero((~np.isnan(x)).any(axis=0))
    kept = np.empty(0, dtype=np.int64)
    reasons: list[str] = []
    if fitted.size and k > 0 and x.shape[0] >= 2:
        n_info = min(int(math.ceil(k * share)), fitted.size)
        n_dif = n_info if kind == "difficulty" else 0
        info = np.empty(0, dtype=np.int64)
        if n_info > 0 and kind != "difficulty":  # (no 2PL fit for the anchors-only design)
            irt = TwoPL(prior_a_sd=prior_a_sd).fit(x[:, fitted])
            a, d, theta = irt.discrimination_, irt.intercept_, irt.theta_
            if kind == "auto" and floor_misfit(x[:, fitted], a, d, theta) > FLOOR_MISFIT:
                n_dif = int(math.ceil(n_info / 2))
        dif = difficulty_strata(x, n_dif, rng) if n_dif > 0 else np.empty(0, dtype=np.int64)
        if n_info > n_dif:  # the information strata among the items the difficulty strata left
            left = np.setdiff1d(fitted, dif)
            at = np.searchsorted(fitted, left)
            info = left[information_strata(a[at], d[at], theta, n_info - n_dif)]
        rest = np.setdiff1d(fitted, np.concatenate([dif, info]))
        n_km = min(k - dif.size - info.size, rest.size)
        seed = int(rng.integers(0, 2**31 - 1))
        km = rest[correctness_anchors(x[:, rest], n_km, seed)]
        kept = np.concatenate([dif, info, km])
        reasons = ["difficulty"] * dif.size + ["information"] * info.size + ["anchor"] * km.size
    if kept.size < k:
        pool = np.setdiff1d(np.arange(n_items), kept)
        extra = np.sort(rng.choice(pool, size=k - kept.size, replace=False))
        kept = np.concatenate([kept, extra])
        reasons += ["completion"] * extra.size
    order = np.argsort(kept, kind="stable")
    return kept[order].astype(np.int64), np.asarray(reasons, dtype=object)[order]


class EstimationSelector(ItemSelector):
    """Stage 2 selector whose goal is the new-model estimate, not the ranking (module docstring).

    Parameters
    ----------
    prior_a_sd
        sd of the log-normal slope prior of the 2PL (1.0: on MMMU the strata of the default 0.5 gave a 10 %
        larger p-IRT error).
    random_state
        Seed of the k-means initialisation.
    """

    name = "estimate"
    _parameter_constraints: ClassVar[dict[str, list[ConstraintLike]]] = {
        "prior_a_sd": [Interval(Real, 0, None, closed="neither")]
    }

    def __init__(self, prior_a_sd: float = 1.0, random_state: int | np.random.Generator | None = 0) -> None:
        self.prior_a_sd = prior_a_sd
        self.random_state = random_state

    def _select(self, inp: SelectorInput) -> np.ndarray:
        rng = check_random_state(self.random_state)
        kept, reasons = estimation_items(
            inp.scores, inp.k, prior_a_sd=float(self.prior_a_sd), random_state=int(rng.integers(0, 2**31 - 1))
        )
        return self._set_fitted(inp.n_items, kept, reasons, np.full(inp.n_items, np.nan))
