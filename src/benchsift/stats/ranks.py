"""Average ranks along an axis, NaN-aware and vectorized (argsort along the axis, no Python loop)."""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike, NDArray

from benchsift._params import Options, validate_params
from benchsift.stats._checks import OPEN_UNIT, as_float_array, check_shape, move_axis

__all__ = [
    "RANK_CRITICAL",
    "rank_among",
    "rank_average",
    "rank_interval",
    "rank_interval_pairwise",
    "tie_groups",
]

#: what ``critical`` of :func:`rank_interval_pairwise` accepts: each direction its own one-sided critical
#: value (default), or the larger of the two for both directions (the interval before)
RANK_CRITICAL = ("each", "worst")


def rank_average(x: ArrayLike, axis: int = 0) -> NDArray[np.float64]:
    """Average ranks of ``x`` along ``axis`` (1 = smallest); tied values share the mean of their ranks.

    The ranks of the non-missing values of each slice are ``1 .. n_valid``; NaN stays NaN. This is
    ``scipy.stats.rankdata(method="average", nan_policy="omit")`` applied slice by slice, computed for all
    slices at once: one ``argsort`` along the axis, tie groups found from equal neighbours in the sorted
    order, and the rank of a group ``(first + last) / 2 + 1``.
    """
    moved = move_axis(as_float_array(x, "x", min_ndim=1), axis, -1)
    ranks = rank_last_axis(np.ascontiguousarray(moved))
    return np.moveaxis(ranks, -1, axis)


def rank_last_axis(a: NDArray[np.float64]) -> NDArray[np.float64]:
    """Average ranks along the last axis of a float array (no validation; NaN stays NaN).

    Every slice is sorted at once; the sorted values are then handled as one flat run in which a tie group
    never crosses a slice (each slice's first position starts a group), so a group's average rank is the
    mean of its first and last flat positions less its slice's offset, plus one.
    """
    n = a.shape[-1]
    if n == 0 or a.size == 0:
        return np.array(a, dtype=np.float64, copy=True)
    rows = a.reshape(-1, n)
    size = rows.size
    offsets = np.arange(0, size, n)
    flat = (np.argsort(rows, axis=-1) + offsets[:, None]).reshape(-1)  # NaN sorts last
    s = rows.reshape(-1)[flat]
    starts_group = np.empty(size, dtype=bool)
    np.not_equal(s[1:], s[:-1], out=starts_group[1:])  # NaN != NaN: every NaN is its own group
    starts_group[::n] = True
    first = np.flatnonzero(starts_group)
    last = np.empty_like(first)
    last[:-1] = first[1:] - 1
    last[-1] = size - 1
    group = np.cumsum(starts_group) - 1
    sorted_ranks = ((first + last) / 2.0)[group].reshape(-1, n) - (offsets - 1.0)[:, None]
    sorted_ranks[np.isnan(s).reshape(-1, n)] = np.nan
    ranks = np.empty(size)
    ranks[flat] = sorted_ranks.reshape(-1)
    return ranks.reshape(a.shape)


def rank_among(reference: np.ndarray, values: np.ndarray) -> np.ndarray:
    """Rank of each value among ``reference``: ``1 + #(reference entries higher)``.

    ``reference`` is ``(n_ref, ...)`` and ``values`` ``(n, ...)`` (trailing axes, e.g. bootstrap replicates,
    are broadcast); a NaN reference entry never counts as higher, a NaN value gets a NaN rank.
    """
    reference = np.asarray(reference, dtype=np.float64)
    values = np.asarray(values, dtype=np.float64)
    higher = (reference[None, ...] > values[:, None, ...]).sum(axis=1)
    return np.where(np.isnan(values), np.nan, 1.0 + higher)


@validate_params({"level": [OPEN_UNIT]})
def rank_interval(samples: ArrayLike, level: float = 0.95) -> NDArray[np.float64]:
    """``(M, 2)`` rank intervals from ``(B, M)`` replicate scores (higher = better, rank 1 = best).

    Each replicate's scores are ranked (:func:`rank_average` of the negated scores: ties share the mean of
    their ranks) and each model's interval ends are its replicate ranks at the :math:`(1-\\text{level})/2`
    quantile rounded down and at the :math:`(1+\\text{level})/2` quantile rounded up (numpy's ``"lower"`` /
    ``"higher"`` methods: the outward-rounded percentile interval, as :mod:`benchsift.compression.estimate`
    takes it). Replicates where a model's score is NaN are left out for it; NaN ends when none is left.
    """
    S = as_float_array(samples, "samples", ndim=2)
    ranks = rank_last_axis(np.ascontiguousarray(-S))
    out = np.full((S.shape[1], 2), np.nan)
    ok = (~np.isnan(ranks)).any(axis=0)
    if ok.any():
        q = ((1.0 - level) / 2.0, (1.0 + level) / 2.0)
        out[ok, 0] = np.nanquantile(ranks[:, ok], q[0], axis=0, method="lower")
        out[ok, 1] = np.nanquantile(ranks[:, ok], q[1], axis=0, method="higher")
    return out


def tie_groups(scores: ArrayLike, separated: ArrayLike) -> NDArray[np.intp]:
    """Tie groups of a leaderboard: ``(M,)`` group numbers, 0 for the top group; -1 for a NaN score.

    The models are sorted by score, best first (stable: equal scores keep their row order). The first
    group is led by the best model and runs down the leaderboard until the first model that is separated
    from that leader (``separated[i, j]`` True: a symmetric boolean matrix, e.g. a corrected pairwise
    test); that model leads the next group, and so on. So every model of a group is *not separated from
    its group's leader*, and each leader is separated from the leader above it: a group is "the models that
    cannot be told apart from the best model still unplaced". Two members of one group may still be
    separated from each other (the leader's neighbours above and below can be far apart).

    Why not a stricter rule: on a dense leaderboard (MMMU's 168 models, neighbours 0.003 apart) almost no
    neighbouring pair is separated, so grouping by "runs of adjacent unseparated models", by connected
    components of the unseparated graph, or by "cuts that separate everything above from everything below"
    all give a single group of every model, while the top and the bottom are plainly apart. The leader
    rule keeps the statement a group makes exact and checkable, and stays informative there.
    """
    s = as_float_array(scores, "scores", ndim=1)
    sep = np.asarray(separated, dtype=bool)
    check_shape("separated", sep.shape, (s.size, s.size), what="a matrix of shape")
    out = np.full(s.size, -1, dtype=np.intp)
    present = np.flatnonzero(~np.isnan(s))
    if present.size == 0:
        return out
    order = present[np.argsort(-s[present], kind="stable")]
    sep_sorted = sep[np.ix_(order, order)] | sep[np.ix_(order, order)].T
    m, i, g = order.size, 0, 0
    while i < m:
        apart = np.flatnonzero(sep_sorted[i, i + 1 :])
        j = i + 1 + int(apart[0]) if apart.size else m
        out[order[i:j]] = g
        i, g = j, g + 1
    return out


@validate_params({"level": [OPEN_UNIT], "critical": [Options(RANK_CRITICAL)]})
def rank_interval_pairwise(
    estimates: ArrayLike, samples: ArrayLike, level: float = 0.95, critical: str = "each"
) -> NDArray[np.float64]:
    r"""``(M, 2)`` rank intervals (1 = best) from pairwise comparisons: **marginal** per model, each
    model's interval holds its true rank with probability at least ``level`` (asymptotically) whatever the
    true scores, about ``level`` where that model is least favourably placed and more elsewhere.

    ``estimates`` ``(M,)`` are the models' scores (higher = better) and ``samples`` ``(B, M)`` their paired
    bootstrap replicates. For model :math:`m` and competitor :math:`k`,
    :math:`\hat d_k = \hat x_k - \hat x_m`, its bootstrap standard error :math:`s_k` (ddof 1 over the
    replicates of :math:`x^*_k - x^*_m`), :math:`t_k = \hat d_k / s_k` and the centred replicates
    :math:`Z^{*(r)}_k = (d^{*(r)}_k - \hat d_k) / s_k`. The interval is

    .. math:: L_m = 1 + \#\{k : t_k > c^+_m\}, \qquad U_m = M - \#\{k : t_k < -c^-_m\}

    (the competitors shown to be above, and below, the model: Mogstad, Romano, Shaikh & Wilhelm 2024,
    eq. (3.3) with the differences' confidence set one-sided per claim), each direction at its own
    critical value, :math:`c^+_m` for the claims above and :math:`c^-_m` for those below, found by steps
    down: with :math:`R` the competitors not yet claimed above or below (at first all),

    .. math:: c^+_m(R) = q_{\text{level}}\bigl(\max_{k \in R} Z^*_k\bigr), \qquad
              c^-_m(R) = q_{\text{level}}\bigl(\max_{k \in R} -Z^*_k\bigr)

    (each at least 0), :math:`q_{\text{level}}` the ``level`` quantile over replicates; a competitor is
    claimed above when :math:`t_k > c^+_m(R)` and below when :math:`t_k < -c^-_m(R)`, the claims are added
    and :math:`R` shrinks until no new claim is made (Romano & Wolf 2005's step-down, as Mogstad et al.
    refine their marginal sets, Algorithm 3.1). ``critical="worst"`` uses the larger of the two for both
    directions (this function's interval before: it contains the default one on every input).

    Why one-sided, each direction on its own, not their two-sided :math:`\max_k |Z_k|`: the interval
    misses only when more competitors are claimed above than truly are (:math:`L_m` too high) or more
    below (:math:`U_m` too low); the claims are disjoint, so :math:`L_m \le U_m` and the two misses
    exclude each other: :math:`P(\text{miss}) = P(L_m > r_m) + P(U_m < r_m)`. A miss above needs the
    false "above" claims to outnumber the truly-above competitors left unclaimed; when those are near
    :math:`m` they are unclaimed and a miss needs two false claims or more, when they are far they are
    claimed and one false claim is a miss, but then no truly-above competitor is near enough to be
    claimed below, so :math:`P(U_m < r_m)` is the far tail :math:`\Phi(-c - \tau)`. The least favourable
    truth therefore puts every close competitor on one side of :math:`m` (it is the last, or the first, of
    a tie), where a miss is any false claim in that one direction: its probability is
    :math:`P(\max_{k} Z_k > c^+)` or :math:`P(\max_k -Z_k > c^-)`, each bounded by ``1 - level`` by its
    own critical value over the set still in question, with no need to guard the other direction at the
    same time (an argument, checked by simulation on the configurations of
    ``benchmarks/bench_compare.py``, not a proof; the steps' validity rests on Romano & Wolf's
    monotonicity: fewer competitors in question, a smaller critical value). Taking the larger of the two
    quantiles for both directions (``"worst"``) only adds the bootstrap noise of the other direction's
    quantile; the two-sided max guards both directions at once and is wider still.

    How close to ``level`` a valid interval can come (the measured numbers are in the README): to
    ``level`` for a model at the end of a near-tie (the least favourable truth above), and above it
    elsewhere, unavoidably. A claim must be at least a one-sided test at ``1 - level`` (where the
    competitor is the only close one, a smaller critical value is invalid), so a miss needs some
    competitor's :math:`t_k` beyond :math:`z_{\text{level}}` on the wrong side: coverage is at least
    :math:`1 - \sum_k \Phi(-z_{\text{level}} - |\delta_k| / \mathrm{se}_k)`, about 1 on a spread
    leaderboard. On an exact tie the data do not tell a model's true position, so its interval is
    distributed alike whatever that position is, and the coverage pooled over the tie's models is the
    interval's mean width over the tie's size; validity for the first and the last position (each needs
    :math:`L_m = 1`, :math:`U_m = M`, with probability ``level``) keeps that near 1 unless, in the
    panels where the interval is cut, it is cut by many ranks at once.

    Why not the percentile interval of the bootstrap ranks (:func:`rank_interval`): the bootstrap world's
    truth is the observed scores, whose gaps exceed the true ones near ties (Hall & Miller 2009), so its
    rank distribution is too narrow there: on 10 simulated models 0.005 apart in ability its 95 %
    intervals covered 0.87 of true ranks. Nor the critical value calibrated at the observed signs (what
    this function did before): its pooled coverage was near ``level`` (0.954) only by averaging 0.80 for
    the first and last model of a near-tie with 1.0 for the middle ones.

    Replicates where a pair's difference is NaN are left out of that pair; a model with a NaN estimate
    gets NaN ends and is nobody's competitor; a competitor whose difference never varies is claimed on
    its side (or, with difference 0, never).

    References: Mogstad, M., Romano, J. P., Shaikh, A. M. & Wilhelm, D. (2024), Inference for ranks with
    applications to mobility across neighbourhoods and academic achievement across countries, *Rev.
    Econ. Stud.* 91, 476-518. Romano, J. P. & Wolf, M. (2005), Exact and approximate stepdown methods
    for multiple hypothesis testing, *JASA* 100, 94-108. Hall, P. & Miller, H. (2009), Using the
    bootstrap to quantify the authority of an empirical ranking, *Ann. Statist.* 37, 3929-3959.
    """
    x = as_float_array(estimates, "estimates", ndim=1)
    S = as_float_array(samples, "samples", ndim=2)
    check_shape("samples", S.shape, ("n_boot", x.size), what="replicates of shape")
    out = np.full((x.size, 2), np.nan)
    live = np.flatnonzero(~np.isnan(x))
    M = live.size
    if M == 0:
        return out
    xs, Ss = x[live], S[:, live]
    se_all = _difference_se(Ss)
    S32 = Ss.astype(np.float32)
    for j in range(M):
        d = xs - xs[j]
        se = se_all[j] if se_all is not None else _difference_se_of(Ss, j)
        with np.errstate(invalid="ignore", divide="ignore"):
            z = np.where(se > 0, d / se, np.sign(d) * np.inf)
        z[j] = 0.0
        above, below = z > np.inf, z < -np.inf  # all False
        # competitors without a standard error (a constant replicate difference) are claimed on their
        # side and never in question; the steps run over the others
        cols = np.flatnonzero(se > 0)
        if cols.size:
            Z = S32[:, cols] - S32[:, [j]]
            Z -= d[cols].astype(np.float32)
            Z /= se[cols].astype(np.float32)
            up, down = _step_down(Z, z[cols], float(level), worst=critical == "worst")
            above[cols], below[cols] = up, down
        above |= np.isposinf(z)
        below |= np.isneginf(z)
        out[live[j], 0] = 1 + int(above.sum())
        out[live[j], 1] = M - int(below.sum())
    return out


def _step_down(
    Z: NDArray[np.float32], t: NDArray[np.float64], level: float, worst: bool = False
) -> tuple[NDArray[np.bool_], NDArray[np.bool_]]:
    """Claims ``(above, below)`` of :func:`rank_interval_pairwise` for one model: ``t`` the competitors'
    standardised differences, ``Z`` ``(B, K)`` their centred replicates (NaN: left out); ``worst``: both
    directions at the larger of their two critical values."""
    # the `level` quantile, numpy's "higher" method (the replicate at or above the level, no interpolation
    # with a -inf: no claim possible), is the k-th smallest of the B replicates: k found by numpy once
    k = int(np.quantile(np.arange(Z.shape[0], dtype=np.float64), level, method="higher"))
    nan = np.isnan(Z)
    if nan.any():
        hi = np.where(nan, -np.inf, Z)  # an undefined replicate difference never exceeds a critical value
        lo = np.where(nan, np.inf, Z)
    else:
        hi = lo = Z
    up = np.zeros(t.size, dtype=bool)
    down = np.zeros(t.size, dtype=bool)
    while True:
        rest = ~(up | down)
        if not rest.any():
            return up, down
        every = bool(rest.all())  # the first step: no column copy
        c_up = max(_order_stat((hi if every else hi[:, rest]).max(axis=1), k), 0.0)
        # max_k -Z_k = -min_k Z_k (negation is exact): the same value as the maximum of -Z
        c_down = max(_order_stat(-(lo if every else lo[:, rest]).min(axis=1), k), 0.0)
        if worst:
            c_up = c_down = max(c_up, c_down)
        new_up, new_down = up | (t > c_up), down | (t < -c_down)
        if (new_up == up).all() and (new_down == down).all():
            return up, down
        up, down = new_up, new_down


def _order_stat(v: NDArray[np.float32], k: int) -> float:
    """The ``k``-th smallest entry of ``v`` (0-based): ``np.quantile(v, level, method="higher")`` for the
    ``k`` of :func:`_step_down`, without its per-call overhead (``v`` holds no NaN)."""
    return float(np.partition(v, k)[k])


def _difference_se(S: NDArray[np.float64]) -> NDArray[np.float64] | None:
    """``(M, M)`` bootstrap standard errors (ddof 1) of every difference of columns, from one covariance
    product; None when a replicate is NaN (then per model, :func:`_difference_se_of`)."""
    if np.isnan(S).any() or S.shape[0] < 2:
        return None
    C = np.cov(S, rowvar=False, ddof=1).reshape(S.shape[1], S.shape[1])
    v = np.diag(C)
    out = np.sqrt(np.maximum(v[:, None] + v[None, :] - 2.0 * C, 0.0))
    # a difference that never varies (up to rounding) has no standard error
    out[out <= 1e-12 * np.maximum(np.sqrt(np.maximum(v[:, None], v[None, :])), 1e-300)] = 0.0
    np.fill_diagonal(out, 0.0)
    return np.asarray(out, dtype=np.float64)


def _difference_se_of(S: NDArray[np.float64], j: int) -> NDArray[np.float64]:
    D = S - S[:, [j]]
    n = (~np.isnan(D)).sum(axis=0)
    with np.errstate(invalid="ignore", divide="ignore"):
        se = np.where(n >= 2, np.nanstd(np.where(n >= 2, D, 0.0), axis=0, ddof=1), 0.0)
    se = np.nan_to_num(se, nan=0.0)
    se[j] = 0.0
    return np.asarray(se, dtype=np.float64)
