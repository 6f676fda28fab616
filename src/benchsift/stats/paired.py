r"""Paired comparisons of every pair of rows of a score matrix: moments, paired t, exact McNemar, power,
and the paired bootstrap streamed over blocks of pairs.

``X`` is ``(M, N)``: M models (rows) by N items, NaN for an item a model did not answer. Every pair
``(a, b)`` is compared on the items *both* answered, :math:`C_{ab}`, with per-item differences
:math:`d_i = x_{ai} - x_{bi}`, :math:`n_{ab} = |C_{ab}|`, mean :math:`\bar d_{ab}` and sample variance
:math:`s^2_{ab}` (ddof 1).

**Paired t** (:func:`paired_t_test`): :math:`t = \bar d / (s / \sqrt n)` on :math:`n - 1` degrees of freedom,
two-sided; the same numbers as ``scipy.stats.ttest_rel`` on the common items and as lmms-eval 0.6's
paired t test (Miller 2024, Eq. 7: the paired standard error). All pairs come from five matrix products,
no loop over pairs.

**Exact McNemar** (:func:`mcnemar_exact`), for 0/1 scores: with :math:`b` the items only ``a`` solved and
:math:`c` the items only ``b`` solved, :math:`p = \min(1, 2\,F_{\mathrm{Bin}(b+c, 1/2)}(\min(b, c)))`
(McNemar 1947; the exact conditional form, ``scipy.stats.binomtest(b, b + c, 0.5)`` and
``statsmodels.stats.contingency_tables.mcnemar(exact=True)``); 1 when :math:`b + c = 0`.

**Paired bootstrap** (:func:`paired_bootstrap_pairs`): ``W`` is ``(B, N)`` resampling weights (item or
cluster bootstrap, :mod:`benchsift.stats.bootstrap` / :mod:`benchsift.stats.cluster`); replicate ``r`` of
the pair's mean difference is the ratio

.. math:: \bar d^{(r)}_{ab} = \frac{\sum_i W_{ri}\, \mathbb 1[i \in C_{ab}]\, d_i}
          {\sum_i W_{ri}\, \mathbb 1[i \in C_{ab}]},

one matrix product of the weights with the pairs' masked differences. Two models that answered the same
items need no product of their own: then :math:`\bar d^{(r)}_{ab} = \bar x^{(r)}_a - \bar x^{(r)}_b` with
:math:`\bar x^{(r)}_m = (W X^\top)_{rm} / (W O^\top)_{rm}` (``O`` the answered mask), the same number
exactly; so a complete panel costs one ``(B, N) @ (N, M)`` product, and only pairs with different answered
sets pay a product of their own, streamed in blocks of pairs. The weights themselves may be a
:class:`~benchsift.stats.WeightStream` (drawn in blocks of replicates, the same drawer as the PRISM-VLM
bootstrap's), held whole up to :data:`HOLD` entries and otherwise passed over block by block, so no panel
is too large. The summaries are computed block by block
(at most ``block`` replicate values, and as many masked item differences, in memory at once): the
bootstrap standard error (ddof 1), the percentile interval, the percentile p-value
:math:`2 \min(\Pr(\bar d^* \le 0), \Pr(\bar d^* \ge 0))` (the PRISM-VLM App. E test), and the Wald
p-value :math:`2 \Phi(-|\bar d| / \mathrm{se}^*)`.

The Wald form is the one to correct across pairs: the percentile p-value moves in steps of :math:`2/B`, so
with 2,000 replicates none of it falls below 0.001 and Holm over 14,000 pairs (threshold
:math:`\alpha / 14{,}000 \approx 3.6 \times 10^{-6}`) could only reject where not one replicate crosses 0,
a level the correction does not control.

**Power** (:func:`paired_power`, :func:`minimum_detectable_difference`, :func:`items_for_power`): the
two-sided level-:math:`\alpha` test of :math:`\bar d / \mathrm{se}` rejects a true difference
:math:`\delta` with probability

.. math:: \pi(\delta) = \Phi(|\delta| / \mathrm{se} - z_{1-\alpha/2})
          + \Phi(-|\delta| / \mathrm{se} - z_{1-\alpha/2}),

the minimum detectable difference at power :math:`\pi` is
:math:`\mathrm{MDD} = (z_{1-\alpha/2} + z_{\pi})\,\mathrm{se}` (the far tail, below
:math:`\Phi(-2 z_{1-\alpha/2})`, left out: Chow, Shao & Wang 2008, Sec. 3.1), and as
:math:`\mathrm{se} = \sigma_{\mathrm{eff}} / \sqrt n` the items that detect :math:`\delta` are
:math:`n^* = \lceil ((z_{1-\alpha/2} + z_{\pi})\, \sigma_{\mathrm{eff}} / \delta)^2 \rceil`, with
:math:`\sigma^2_{\mathrm{eff}} = n\,\mathrm{se}^2` (the per-item variance of the differences, times the
design effect when the bootstrap resamples clusters).

References
----------
Chow, S.-C., Shao, J. & Wang, H. (2008). *Sample Size Calculations in Clinical Research*, 2nd ed.
McNemar, Q. (1947). Note on the sampling error of the difference between correlated proportions or
percentages. *Psychometrika* 12, 153-157.
Miller, E. (2024). Adding Error Bars to Evals: A Statistical Approach to Language Model Evaluations.
arXiv:2411.00640.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike, NDArray

from benchsift._params import validate_params
from benchsift.errors import InputError
from benchsift.stats._checks import OPEN_UNIT, as_float_array, check_shape
from benchsift.stats.resample import WeightStream

__all__ = [
    "PairBootstrap",
    "items_for_power",
    "mcnemar_exact",
    "minimum_detectable_difference",
    "paired_bootstrap_pairs",
    "paired_moments",
    "paired_power",
    "paired_t_test",
    "replicate_means",
    "wald_pvalue",
]

FloatArray = NDArray[np.float64]
#: replicate values held at once by :func:`paired_bootstrap_pairs` (B x pairs of a block), 16 MB of float64
BLOCK = 2_000_000
#: most resampling weights (n_boot x items) :func:`paired_bootstrap_pairs` holds as one matrix; a larger
#: :class:`~benchsift.stats.WeightStream` is passed over block by block instead (134 MB of float64)
HOLD = 2**24


def _matrix(X: ArrayLike) -> FloatArray:
    A = as_float_array(X, "X", ndim=2)
    return A


def paired_moments(X: ArrayLike) -> tuple[FloatArray, FloatArray, FloatArray]:
    """``(n, mean, var)``, each ``(M, M)``: common items, mean difference ``x_a - x_b`` on them and its
    sample variance (ddof 1) for every ordered pair of rows; NaN where undefined (the diagonal's mean and
    variance, fewer than 1 / 2 common items)."""
    A = _matrix(X)
    obs = (~np.isnan(A)).astype(np.float64)
    X0 = np.where(obs > 0, A, 0.0)
    X2 = X0 * X0
    n = obs @ obs.T
    cross = X0 @ obs.T
    sum_d = cross - cross.T
    sq = X2 @ obs.T
    sum_d2 = sq + sq.T - 2.0 * (X0 @ X0.T)
    with np.errstate(invalid="ignore", divide="ignore"):
        mean = np.where(n >= 1, sum_d / n, np.nan)
        var = np.where(n >= 2, np.maximum(sum_d2 - sum_d * sum_d / n, 0.0) / (n - 1), np.nan)
    np.fill_diagonal(mean, np.nan)
    np.fill_diagonal(var, np.nan)
    return n, mean, var


def paired_t_test(
    X: ArrayLike, moments: tuple[FloatArray, FloatArray, FloatArray] | None = None
) -> tuple[FloatArray, FloatArray, FloatArray]:
    """``(t, p, df)`` ``(M, M)``: the two-sided paired t test of ``x_a - x_b`` on the common items (module
    docstring). ``t`` is NaN when the differences are all equal (zero variance) or fewer than 2 items.
    ``moments``: :func:`paired_moments` of ``X`` when already computed."""
    from scipy import stats as sps  # scipy on use: `import benchsift.stats` stays light

    n, mean, var = paired_moments(X) if moments is None else moments
    with np.errstate(invalid="ignore", divide="ignore"):
        se = np.sqrt(var / n)
        t = np.where(se > 0, mean / se, np.nan)
    df = np.where(n >= 2, n - 1, np.nan)
    p = np.full(t.shape, np.nan)
    ok = ~np.isnan(t)
    p[ok] = 2.0 * sps.t.sf(np.abs(t[ok]), df[ok])
    return t, p, df


def mcnemar_exact(X: ArrayLike) -> tuple[FloatArray, FloatArray, FloatArray]:
    """``(b, c, p)`` ``(M, M)`` for 0/1 scores: ``b[a, k]`` items only row ``a`` solved among the common
    items, ``c = b.T``, and the exact two-sided McNemar p-value (module docstring). Raises
    :class:`InputError` when a present score is not 0 or 1."""
    from scipy import stats as sps

    A = _matrix(X)
    present = A[~np.isnan(A)]
    if present.size and not np.isin(present, (0.0, 1.0)).all():
        raise InputError("X: the exact McNemar test needs 0/1 scores (NaN for missing)")
    obs = (~np.isnan(A)).astype(np.float64)
    X0 = np.where(obs > 0, A, 0.0)
    b = X0 @ obs.T - X0 @ X0.T  # a right, other present and wrong
    c = b.T.copy()
    total = b + c
    k = np.minimum(b, c)
    p = np.where(total > 0, np.minimum(1.0, 2.0 * sps.binom.cdf(k, np.maximum(total, 1), 0.5)), 1.0)
    np.fill_diagonal(p, np.nan)
    return b, c, p


def replicate_means(X: ArrayLike, W: ArrayLike) -> FloatArray:
    """``(B, M)`` replicate means of each row over its answered items: ``(W X^T) / (W O^T)``; NaN where a
    replicate draws none of the row's items."""
    A = _matrix(X)
    Wt = np.asarray(W, dtype=np.float64)
    obs = ~np.isnan(A)
    num = Wt @ np.where(obs, A, 0.0).T
    if obs.all():  # every row answered every item: one denominator, the replicate's size
        den = np.broadcast_to(Wt.sum(axis=1)[:, None], num.shape)
    else:
        den = Wt @ obs.T.astype(np.float64)
    out = np.full(num.shape, np.nan)
    np.divide(num, den, out=out, where=den > 0)
    return out


@dataclass(frozen=True)
class PairBootstrap:
    """Per-pair summaries of :func:`paired_bootstrap_pairs`, each ``(P,)`` in the order of the pairs given;
    ``means`` the ``(B, M)`` replicate means of the rows (:func:`replicate_means`)."""

    se: FloatArray
    low: FloatArray
    high: FloatArray
    p_percentile: FloatArray
    means: FloatArray


def _quantiles(D: FloatArray, q: tuple[float, float]) -> tuple[FloatArray, FloatArray]:
    """Rows' ``q`` quantiles (numpy's default ``linear`` method, same numbers as ``np.quantile``) from one
    ``np.partition`` at the four order statistics needed, on NaN-free rows of equal length."""
    B = D.shape[1]
    pos = [qq * (B - 1) for qq in q]
    lo = [int(np.floor(p)) for p in pos]
    kth = sorted({k for lo_k in lo for k in (lo_k, min(lo_k + 1, B - 1))})
    part = np.partition(D, kth, axis=1)
    out = []
    for p, k in zip(pos, lo, strict=True):
        a, b = part[:, k], part[:, min(k + 1, B - 1)]
        t = p - k
        diff = b - a
        # numpy's _lerp: a + t (b - a), computed from b's side when t >= 0.5
        out.append(a + diff * t if t < 0.5 else b - diff * (1.0 - t))
    return out[0], out[1]


def _summaries(D: FloatArray, level: float) -> tuple[FloatArray, FloatArray, FloatArray, FloatArray]:
    """SE, percentile interval and percentile p-value of each row of ``D`` (pairs x replicates)."""
    q = ((1.0 - level) / 2.0, (1.0 + level) / 2.0)
    if np.isnan(D).any():
        valid = ~np.isnan(D)
        nv = valid.sum(axis=1)
        with np.errstate(invalid="ignore", divide="ignore"):
            mean = np.where(valid, D, 0.0).sum(axis=1) / nv
            ss = np.where(valid, (D - mean[:, None]) ** 2, 0.0).sum(axis=1)
            se = np.where(nv >= 2, np.sqrt(ss / (nv - 1)), np.nan)
        from benchsift.stats.bootstrap import percentile_ci

        lo, hi = percentile_ci(D, level, axis=1)
        le = ((D <= 0) & valid).sum(axis=1)
        ge = ((D >= 0) & valid).sum(axis=1)
        p = np.full(D.shape[0], np.nan)
        np.divide(2.0 * np.minimum(le, ge), nv, out=p, where=nv > 0)
        return se, lo, hi, np.minimum(p, 1.0)
    B = D.shape[1]
    se = D.std(axis=1, ddof=1) if B >= 2 else np.full(D.shape[0], np.nan)
    lo, hi = _quantiles(D, q)
    le = (D <= 0).sum(axis=1)
    ge = (D >= 0).sum(axis=1)
    return se, lo, hi, np.minimum(1.0, 2.0 * np.minimum(le, ge) / B)


def _weight_blocks(W: FloatArray | WeightStream) -> Iterator[FloatArray]:
    """The weights as row blocks: a held matrix is one block (the products as before, same bytes)."""
    if isinstance(W, WeightStream):
        yield from W.blocks()
    else:
        yield W


def _masked_sums(
    X0: FloatArray,
    obs: NDArray[np.bool_],
    sa: NDArray[np.intp],
    sb: NDArray[np.intp],
    W: FloatArray | WeightStream,
    block: int,
) -> tuple[FloatArray, FloatArray]:
    """``(num, den)`` ``(k, B)``: each pair's replicate sums of ``W`` times its differences on the common
    items, and of ``W`` on them. Held weights: one product each. Streamed: one pass over the weight
    blocks, the items in chunks of at most ``block / k`` so the masked differences stay within ``block``
    values (integer sums are exact, so the chunks change no byte for 0/1 or integer scores)."""
    if not isinstance(W, WeightStream):
        common = obs[sa] & obs[sb]
        diff = np.where(common, X0[sa] - X0[sb], 0.0)
        return diff @ W.T, common.astype(np.float64) @ W.T
    k, (B, N) = sa.size, W.shape
    num, den = np.empty((k, B)), np.empty((k, B))
    chunk = max(1, block // max(k, 1))
    r0 = 0
    for Wb in W.blocks():
        nb, db = np.zeros((k, Wb.shape[0])), np.zeros((k, Wb.shape[0]))
        for c0 in range(0, N, chunk):
            cols = slice(c0, c0 + chunk)
            common = obs[sa, cols] & obs[sb, cols]
            Wc = Wb[:, cols].T
            nb += np.where(common, X0[sa, cols] - X0[sb, cols], 0.0) @ Wc
            db += common.astype(np.float64) @ Wc
        num[:, r0 : r0 + Wb.shape[0]], den[:, r0 : r0 + Wb.shape[0]] = nb, db
        r0 += Wb.shape[0]
    return num, den


@validate_params({"level": [OPEN_UNIT]})
def paired_bootstrap_pairs(
    X: ArrayLike,
    W: ArrayLike | WeightStream,
    pairs: tuple[ArrayLike, ArrayLike] | None = None,
    level: float = 0.95,
    block: int = BLOCK,
    progress: object = None,
    hold: int = HOLD,
) -> PairBootstrap:
    """Paired bootstrap of the mean difference of each pair of rows on their common items (module
    docstring), streamed over blocks of pairs.

    ``W`` is the ``(n_boot, N)`` resampling weights, or a :class:`~benchsift.stats.WeightStream` (the
    weights drawn in blocks of replicates, replayable): one of at most ``hold`` entries is drawn into one
    matrix; a larger one is passed over block by block, once for the replicate means and once per block
    of ``block / n_boot`` pairs answered on different items (their items taken in chunks), so memory stays
    at a block of weights (32 MB) and ``block`` values of pairs whatever the panel's size. The numbers are
    the same either way for scores whose weighted sums are exact (0/1, or any integers: the products are
    sums of integers); for other scores the blocks may change the products' summation order, hence the
    last bits.
    ``pairs`` is ``(a, b)``, two index arrays (default: every ``a < b``, ``numpy.triu_indices`` order).
    ``progress(done, total)`` (a :data:`benchsift.progress.ProgressFn`, typed loosely here because stats
    imports nothing of the rest) is called after each block of pairs.
    """
    A = _matrix(X)
    if isinstance(W, WeightStream) and W.size <= int(hold):
        W = W.toarray()
    Wt: FloatArray | WeightStream = W if isinstance(W, WeightStream) else np.asarray(W, dtype=np.float64)
    check_shape("W", Wt.shape, ("n_boot", A.shape[1]))
    M = A.shape[0]
    if pairs is None:
        ia, ib = np.triu_indices(M, 1)
    else:
        ia, ib = (np.asarray(p, dtype=np.intp).reshape(-1) for p in pairs)
        if ia.shape != ib.shape or (
            ia.size and (min(ia.min(), ib.min()) < 0 or max(ia.max(), ib.max()) >= M)
        ):
            raise InputError(f"pairs: expected two equal-length index arrays into {M} rows")
    obs = ~np.isnan(A)
    means = np.concatenate([replicate_means(A, Wb) for Wb in _weight_blocks(Wt)], axis=0)
    # rows with the same answered mask: their replicate difference is a difference of replicate means
    if obs.all():
        mask_id = np.zeros(M, dtype=np.intp)
    else:
        _, mask_id = np.unique(np.packbits(obs, axis=1), axis=0, return_inverse=True)
        mask_id = mask_id.reshape(-1)
    same = mask_id[ia] == mask_id[ib]
    P, B = ia.size, Wt.shape[0]
    se, low, high, pp = (np.full(P, np.nan) for _ in range(4))
    # a block holds its pairs' replicates (step x B) and, for pairs answered on different items, their
    # masked differences (step x N; streamed weights: step x a chunk of items): within `block` values
    streamed = isinstance(Wt, WeightStream)
    step = max(1, int(block) // max(B, 1 if streamed else A.shape[1], 1))
    order = np.concatenate([np.flatnonzero(same), np.flatnonzero(~same)])
    X0 = np.where(obs, A, 0.0)
    means_t = np.ascontiguousarray(means.T)  # (M, B): a pair's replicates are two contiguous rows
    done = 0
    for start in range(0, P, step):
        idx = order[start : start + step]
        a, b = ia[idx], ib[idx]
        fast = same[idx]
        if fast.all():
            D = means_t[a] - means_t[b]
        else:
            D = np.empty((idx.size, B))
            D[fast] = means_t[a[fast]] - means_t[b[fast]]
            num, den = _masked_sums(X0, obs, a[~fast], b[~fast], Wt, int(block))
            slow = np.full(num.shape, np.nan)
            np.divide(num, den, out=slow, where=den > 0)
            D[~fast] = slow
        se[idx], low[idx], high[idx], pp[idx] = _summaries(D, float(level))
        done += idx.size
        if callable(progress):
            progress(done, P)
    return PairBootstrap(se=se, low=low, high=high, p_percentile=pp, means=means)


def wald_pvalue(delta: ArrayLike, se: ArrayLike) -> FloatArray:
    """Two-sided ``2 Phi(-|delta| / se)``; 1 where ``delta == 0`` and ``se == 0``, 0 where only ``se == 0``,
    NaN where either is NaN."""
    from scipy import stats as sps

    d = np.asarray(delta, dtype=np.float64)
    s = np.asarray(se, dtype=np.float64)
    with np.errstate(invalid="ignore", divide="ignore"):
        z = np.abs(d) / s
    p = 2.0 * sps.norm.sf(z)
    p = np.where(s == 0, np.where(d == 0, 1.0, 0.0), p)
    return np.where(np.isnan(d) | np.isnan(s), np.nan, p)


def _z(alpha: float, power: float) -> tuple[float, float]:
    from scipy import stats as sps

    return float(sps.norm.ppf(1.0 - alpha / 2.0)), float(sps.norm.ppf(power))


@validate_params({"alpha": [OPEN_UNIT]})
def paired_power(delta: ArrayLike, se: ArrayLike, alpha: float = 0.05) -> FloatArray:
    """Power of the two-sided level-``alpha`` test of ``d / se`` at a true difference ``delta`` (module
    docstring, both tails)."""
    from scipy import stats as sps

    za, _ = _z(alpha, 0.5)
    d = np.abs(np.asarray(delta, dtype=np.float64))
    s = np.asarray(se, dtype=np.float64)
    with np.errstate(invalid="ignore", divide="ignore"):
        r = d / s
    return np.asarray(sps.norm.cdf(r - za) + sps.norm.cdf(-r - za), dtype=np.float64)


@validate_params({"alpha": [OPEN_UNIT], "power": [OPEN_UNIT]})
def minimum_detectable_difference(se: ArrayLike, alpha: float = 0.05, power: float = 0.8) -> FloatArray:
    """``(z_{1-alpha/2} + z_power) se`` (module docstring)."""
    za, zp = _z(alpha, power)
    return np.asarray((za + zp) * np.asarray(se, dtype=np.float64), dtype=np.float64)


@validate_params({"alpha": [OPEN_UNIT], "power": [OPEN_UNIT]})
def items_for_power(
    delta: ArrayLike, se: ArrayLike, n: ArrayLike, alpha: float = 0.05, power: float = 0.8
) -> FloatArray:
    """Items that detect a true difference ``delta`` with probability ``power`` when ``n`` items give
    standard error ``se``: ``ceil(n ((z_{1-alpha/2} + z_power) se / delta)^2)``; inf where ``delta == 0``,
    NaN where undefined."""
    za, zp = _z(alpha, power)
    d = np.abs(np.asarray(delta, dtype=np.float64))
    s = np.asarray(se, dtype=np.float64)
    nn = np.asarray(n, dtype=np.float64)
    with np.errstate(invalid="ignore", divide="ignore"):
        need = np.ceil(nn * ((za + zp) * s / d) ** 2)
    need = np.where(d == 0, np.inf, need)
    return np.asarray(need, dtype=np.float64)
