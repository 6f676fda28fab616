"""IRT 2PL item selection after metabench (Kipnis et al. 2025; PRIMEBench section 5, Appendix D.1).

A unidimensional two-parameter logistic model is fitted to the build models' responses by marginal maximum
likelihood (:class:`benchsift.irt.TwoPL`, Bock-Aitkin EM with a weak prior):

.. math::

    P_j(\\theta) = \\sigma(a_j \\theta + d_j), \\qquad I_j(\\theta) = a_j^2 P_j(\\theta)\\,(1 - P_j(\\theta)),

``I_j`` being the Fisher information of item ``j`` at ability ``theta``.

Binarisation (D.1). IRT 2PL needs binary responses, so the scaled scores are binarised per benchmark: binary
benchmarks are used as they are; VQA-style soft and judge scores at half their scale (``x >= 0.5``);
captioning, referring-expression and the remaining graded scores at the benchmark median (``x > median`` of
the benchmark's valid build scores; ``x >= median`` when no score exceeds the median, e.g. a benchmark whose
models mostly score 1, so that the cut still separates something). Which rule a non-binary benchmark gets
comes from the item column named by ``score_type_column`` when ``item_meta`` has it (values ``soft``,
``judge``, ``vqa``, ``half`` -> half scale; ``graded``, ``caption``, ``captioning``, ``referring``, ``median``
-> median), else from ``graded_benchmarks`` (names binarised at their median), else half scale. Missing scores
stay missing.

Selection rules (``rule=``):

* ``"metabench"`` (default): metabench's information filter. The range of the build models' EAP abilities is
  cut into ``K`` quantile bins ``[q_t, q_{t+1}]`` (``q`` the ``t/K`` quantiles, R type 4 as in metabench);
  going from the lowest bin to the highest, each bin keeps the not yet kept item with the largest information
  anywhere in the bin, ``max_{theta in bin} I_j(theta) = I_j(clip(b_j, q_t, q_{t+1}))`` (the 2PL information
  peaks at the difficulty ``b_j = -d_j / a_j``). metabench evaluates the bins on the discrete ability grid of
  its thousands of respondents; with a few dozen build models that grid leaves most bins empty, so the bins
  are taken as intervals here. metabench's threshold on the information (0 by default there) is not used:
  every bin keeps one item, so exactly ``K`` items are kept.
* ``"information"``: the ``K`` items with the largest test information over the build abilities,
  ``(1/M) sum_m I_j(theta_m)``.

Ties in a seeded random order. Items the model cannot rank (no valid build score) come last. The estimate of a
model's pool mean is the mean of its kept items (base class), as in the paper's protocols.
"""

from __future__ import annotations

import hashlib
import threading
import weakref
from collections import OrderedDict
from collections.abc import Sequence
from typing import ClassVar, Literal, Protocol

import numpy as np
import pandas as pd

from benchsift._inputs import check_known
from benchsift._params import ConstraintLike, Options
from benchsift.compression.selectors.base import (
    ItemSelector,
    SelectorInput,
    top_k_positions,
)
from benchsift.errors import InputError
from benchsift.irt import TwoPL
from benchsift.stats import check_random_state

__all__ = [
    "IRT2PLSelector",
    "binarize_scores",
    "clear_fit_memo",
    "fit_test_information",
    "fitted_twopl",
    "metabench_select",
    "selector_twopl",
]

Rule = Literal["metabench", "information"]
_HALF_TYPES = frozenset({"soft", "judge", "vqa", "half", "binary"})
_MEDIAN_TYPES = frozenset({"graded", "caption", "captioning", "referring", "median"})

# A few recent fits, keyed by the exact response matrix and fitter settings: the held-out protocols select at
# several retentions on the same build matrix, and the 2PL fit does not depend on the budget. The automatic
# selector fits up to 9 matrices per pool (8 inner build sets and all the rows) and revisits them at every
# retention of the pool: with room for 8 the least recently used one was refitted at every retention that
# needed it (one extra fit per outer split on the 169 x 3,088 cost panel), so the memo keeps 16.
_FIT_CACHE: OrderedDict[tuple[object, ...], TwoPL] = OrderedDict()
_FIT_CACHE_SIZE = 16
_FIT_LOCK = threading.Lock()


def fitted_twopl(
    responses: np.ndarray,
    n_quadrature: int | None = None,
    max_iter: int = 500,
    tol: float = 1e-4,
    prior_a_sd: float = 0.5,
    prior_d_sd: float = 3.0,
) -> TwoPL:
    """A :class:`~benchsift.irt.TwoPL` fitted to ``responses`` (models x items), memoised on the exact bytes.

    The returned model is shared with later calls on the same matrix: treat it as read-only. The memo lives in
    the process, so a parallel sweep gains from it when one worker handles every retention of a split.
    """
    x = np.ascontiguousarray(responses, dtype=np.float64)
    digest = hashlib.blake2b(x.tobytes(), digest_size=16).hexdigest()
    key = (
        x.shape,
        digest,
        None if n_quadrature is None else int(n_quadrature),
        int(max_iter),
        float(tol),
        float(prior_a_sd),
        float(prior_d_sd),
    )
    with _FIT_LOCK:
        hit = _FIT_CACHE.get(key)
        if hit is not None:
            _FIT_CACHE.move_to_end(key)
            return hit
    model = TwoPL(
        n_quadrature=n_quadrature, max_iter=max_iter, tol=tol, prior_a_sd=prior_a_sd, prior_d_sd=prior_d_sd
    ).fit(x)
    with _FIT_LOCK:
        _FIT_CACHE[key] = model
        while len(_FIT_CACHE) > _FIT_CACHE_SIZE:
            _FIT_CACHE.popitem(last=False)
    return model


# The test information of a memoised fit, computed once: every selection on the fit's rows (each retention,
# and every inner split's candidate in the automatic selector) needs it; it depends on the fit alone.
_INFO_CACHE: weakref.WeakKeyDictionary[TwoPL, np.ndarray] = weakref.WeakKeyDictionary()


def fit_test_information(model: TwoPL) -> np.ndarray:
    """The test information ``(1/M) sum_m I_j(theta_m)`` of each fitted item over the fitted abilities,
    ``I_j = a_j^2 P_j (1 - P_j)``; memoised per fitted model (a read-only array shared by later calls)."""
    with _FIT_LOCK:
        hit = _INFO_CACHE.get(model)
    if hit is not None:
        return hit
    a = model.discrimination_
    z = np.outer(model.theta_, a) + model.intercept_
    p = 0.5 * (1.0 + np.tanh(0.5 * z))
    info = (a**2 * p * (1.0 - p)).mean(axis=0)
    info.setflags(write=False)
    with _FIT_LOCK:
        _INFO_CACHE[model] = info
    return info


def clear_fit_memo() -> None:
    """Empty the memo of :func:`fitted_twopl` (benchmarks clear it so no timed run reuses another's fits)."""
    with _FIT_LOCK:
        _FIT_CACHE.clear()
        _INFO_CACHE.clear()


class TwoPLSettings(Protocol):
    """A selector that stores the 2PL fitter settings (IRT 2PL and tinyBenchmarks share them)."""

    n_quadrature: int | None
    max_iter: int
    tol: float
    prior_a_sd: float
    prior_d_sd: float


def selector_twopl(selector: TwoPLSettings, responses: np.ndarray) -> TwoPL:
    """:func:`fitted_twopl` on ``responses`` with the fitter settings ``selector`` stores."""
    return fitted_twopl(
        responses,
        selector.n_quadrature,
        selector.max_iter,
        selector.tol,
        selector.prior_a_sd,
        selector.prior_d_sd,
    )


def binarize_scores(
    scores: np.ndarray,
    item_meta: pd.DataFrame | None = None,
    graded_benchmarks: Sequence[str] = (),
    score_type_column: str = "score_type",
) -> tuple[np.ndarray, np.ndarray]:
    """Binarise scaled scores per benchmark as PRIMEBench D.1 prescribes (see the module docstring).

    Returns ``(binary, rule)``: ``binary`` has the shape of ``scores`` with 0/1 and NaN kept; ``rule`` is the
    per-item label ``"binary"``, ``"half"`` or ``"median"``.
    """
    x = np.asarray(scores, dtype=np.float64)
    n = x.shape[1]
    valid = ~np.isnan(x)
    if item_meta is not None and "benchmark" in item_meta.columns:
        bench = item_meta["benchmark"].astype(str).to_numpy()
    else:
        bench = np.full(n, "pool", dtype=object)
    codes, names = pd.factorize(bench, sort=False)
    # Per benchmark: is every valid score 0 or 1?
    non_binary_item = (valid & (x != 0.0) & (x != 1.0)).any(axis=0)
    non_binary_bench = np.bincount(codes, weights=non_binary_item, minlength=len(names)) > 0
    graded = set(check_known("graded_benchmarks", map(str, graded_benchmarks), [str(b) for b in names]))
    rule = np.where(non_binary_bench[codes], "half", "binary").astype(object)
    if graded:
        is_graded = np.isin(bench.astype(str), list(graded))
        rule[is_graded & non_binary_bench[codes]] = "median"
    if item_meta is not None and score_type_column in item_meta.columns:
        col = item_meta[score_type_column]
        known = col.notna().to_numpy()
        st = np.where(known, col.astype(str).str.strip().str.lower().to_numpy(), "")
        bad = known & ~np.isin(st, list(_HALF_TYPES | _MEDIAN_TYPES))
        if bad.any():
            row = int(np.flatnonzero(bad)[0])
            raise InputError(
                f"item_meta column {score_type_column!r}, row {row}: {st[row]!r} is not a known score type "
                f"(expected one of {sorted(_HALF_TYPES | _MEDIAN_TYPES)})"
            )
        typed = known & non_binary_bench[codes]
        rule[typed & np.isin(st, list(_MEDIAN_TYPES))] = "median"
        rule[typed & np.isin(st, list(_HALF_TYPES))] = "half"
    out = x.copy()
    half = rule == "half"
    out[:, half] = np.where(valid[:, half], (x[:, half] >= 0.5).astype(np.float64), np.nan)
    med_items = rule == "median"
    if med_items.any():
        thresholds = np.full(n, np.nan)
        inclusive = np.zeros(n, dtype=bool)
        for b in np.unique(codes[med_items]):  # one median per benchmark (a handful of benchmarks)
            cols = med_items & (codes == b)
            vals = x[:, cols]
            vals = vals[~np.isnan(vals)]
            if vals.size:
                med = float(np.median(vals))
                thresholds[cols] = med
                inclusive[cols] = not (vals > med).any()  # nothing above the median: cut at >= instead
        sub = x[:, med_items]
        with np.errstate(invalid="ignore"):
            hit = np.where(inclusive[med_items], sub >= thresholds[med_items], sub > thresholds[med_items])
        out[:, med_items] = np.where(~np.isnan(sub), hit.astype(np.float64), np.nan)
    return out, rule


def metabench_select(
    a: np.ndarray, d: np.ndarray, theta: np.ndarray, k: int, rng: np.random.Generator
) -> tuple[np.ndarray, np.ndarray]:
    """metabench's information filter with ``k`` ability-quantile bins (see the module docstring).

    ``a``, ``d``: 2PL slopes and intercepts (NaN = unusable item); ``theta``: the build abilities. Returns the
    kept positions in bin order and the max-information value each was kept with (``-inf`` when the bin had no
    usable item left and a random remaining item filled it). One O(n_items) pass per bin.
    """
    n = a.shape[0]
    k = min(int(k), n)
    if k <= 0:
        return np.empty(0, dtype=np.int64), np.empty(0)
    probs = np.linspace(0.0, 1.0, k + 1)
    edges = np.quantile(np.asarray(theta, dtype=np.float64), probs, method="interpolated_inverted_cdf")
    usable = np.isfinite(a) & np.isfinite(d)
    a0 = np.where(usable, a, 0.0)
    d0 = np.where(usable, d, 0.0)
    with np.errstate(divide="ignore", invalid="ignore"):
        b = np.where(a0 != 0, -d0 / a0, 0.0)
    a2 = a0 * a0
    priority = rng.permutation(n)
    taken = ~usable.copy()
    kept = np.empty(k, dtype=np.int64)
    value = np.empty(k)
    free = np.ones(n, dtype=bool)
    for t in range(k):
        th = np.clip(b, edges[t], edges[t + 1])
        z = a0 * th + d0
        p = 0.5 * (1.0 + np.tanh(0.5 * z))  # the logistic function, overflow-free
        info = a2 * p * (1.0 - p)
        info[taken] = -np.inf
        best = info.max()
        if np.isfinite(best):
            cand = np.flatnonzero(info == best)
        else:  # no usable item left: fill with a random remaining item
            cand = np.flatnonzero(free)
        j = int(cand[np.argmin(priority[cand])])
        kept[t] = j
        value[t] = best
        taken[j] = True
        free[j] = False
    return kept, value


class IRT2PLSelector(ItemSelector):
    """Items chosen by their Fisher information under a 2PL model of the binarised build scores (metabench).

    Reads ``item_meta`` (optional): ``benchmark`` (one binarisation rule and median per benchmark) and
    ``item_meta[score_type_column]`` (default column ``"score_type"``), the score type of each item, which
    picks the PRIMEBench D.1 binarisation of a non-binary benchmark: ``soft``, ``judge``, ``vqa``, ``half``
    (and ``binary``) -> ``x >= 0.5``; ``graded``, ``caption``, ``captioning``, ``referring``, ``median`` ->
    above the benchmark median of the build scores. Any other value is an :class:`InputError` naming the row;
    a missing value (or no such column) falls back to ``graded_benchmarks``, then to half scale. In the
    held-out protocols ``item_meta`` is the panel's item table, so a ``score_type`` item column set at import
    reaches this selector. Benchmarks whose valid scores are all 0/1 are used as they are.

    Parameters
    ----------
    rule
        ``"metabench"`` (one most-informative item per ability-quantile bin, default) or ``"information"``
        (top-``K`` test information over the build abilities).
    graded_benchmarks
        Benchmarks binarised at their median (captioning, referring expressions, other graded scores); other
        non-binary benchmarks are binarised at half scale unless ``item_meta[score_type_column]`` says
        otherwise.
    score_type_column
        Optional item column with the score type of each item (see the module docstring).
    n_quadrature, max_iter, tol, prior_a_sd, prior_d_sd
        Settings of the 2PL fit (:class:`benchsift.irt.TwoPL`: adaptive quadrature, floating log-normal slope
        prior with sd ``prior_a_sd`` on ``log a``).
    random_state
        Seed of the tie-breaking order.

    Fitted attributes
    -----------------
    ``support_``, ``item_scores_`` (the test information ``(1/M) sum_m I_j(theta_m)``; NaN for items with no
    valid build score), ``reasons_`` (``"bin"``, ``"top"`` or ``"completion"``), ``discrimination_``,
    ``intercept_``, ``difficulty_`` (item parameters, NaN where not fitted), ``theta_`` (build abilities),
    ``binarization_`` (per item: ``"binary"``, ``"half"`` or ``"median"``), ``converged_``.
    """

    name = "irt2pl"
    _parameter_constraints: ClassVar[dict[str, list[ConstraintLike]]] = {
        "rule": [Options(["metabench", "information"])]
    }

    def __init__(
        self,
        rule: Rule = "metabench",
        graded_benchmarks: Sequence[str] = (),
        score_type_column: str = "score_type",
        n_quadrature: int | None = None,
        max_iter: int = 500,
        tol: float = 1e-4,
        prior_a_sd: float = 0.5,
        prior_d_sd: float = 3.0,
        random_state: int | np.random.Generator | None = 0,
    ) -> None:
        self.rule = rule
        self.graded_benchmarks = graded_benchmarks
        self.score_type_column = score_type_column
        self.n_quadrature = n_quadrature
        self.max_iter = max_iter
        self.tol = tol
        self.prior_a_sd = prior_a_sd
        self.prior_d_sd = prior_d_sd
        self.random_state = random_state

    def _select(self, inp: SelectorInput) -> np.ndarray:
        """Fit the 2PL on the binarised build scores; keep ``k`` items by information (sorted positions)."""
        rng = check_random_state(self.random_state)
        n = inp.n_items
        binary, rule = binarize_scores(
            inp.scores, inp.item_meta, tuple(self.graded_benchmarks), self.score_type_column
        )
        observed = (~np.isnan(binary)).any(axis=0)
        a = np.full(n, np.nan)
        d = np.full(n, np.nan)
        theta = np.zeros(0)
        converged = False
        test_info = np.full(n, np.nan)  # NaN for items with no valid build score
        if observed.any() and inp.k > 0:
            fit = selector_twopl(self, binary[:, observed])
            a[observed] = fit.discrimination_
            d[observed] = fit.intercept_
            theta = fit.theta_
            converged = bool(fit.converged_)
            test_info[observed] = fit_test_information(fit)

        if self.rule == "information" or inp.k == 0 or not theta.size:
            kept = top_k_positions(test_info, inp.k, rng)
            reasons = np.full(kept.shape[0], "top", dtype=object)
        else:
            kept, value = metabench_select(a, d, theta, inp.k, rng)
            reasons = np.where(np.isfinite(value), "bin", "completion").astype(object)
        out = self._set_fitted(n, kept, reasons, test_info)
        self.discrimination_ = a
        self.intercept_ = d
        with np.errstate(divide="ignore", invalid="ignore"):
            self.difficulty_ = np.where(a != 0, -d / a, np.nan)
        self.theta_ = theta
        self.binarization_ = rule
        self.converged_ = converged
        return out
