"""A fast two-parameter logistic (2PL) IRT model fitted by marginal maximum likelihood (EM).

The model (Birnbaum's 2PL in slope-intercept form)::

    P(x_mj = 1 | theta_m) = sigmoid(a_j * theta_m + d_j),   difficulty b_j = -d_j / a_j,
    theta_m ~ N(0, 1).

It is fitted by the Bock-Aitkin EM algorithm over a quadrature grid ``q_1..q_K`` with log-weights
``log w_k`` (:mod:`benchsift.irt.quadrature`). By default the grid follows the posteriors: an evenly spaced
grid whose step is a fraction of the narrowest posterior sd and whose range covers every posterior, rebuilt
whenever the posteriors move out of it. A fixed Gauss-Hermite grid (``n_quadrature=K``) is the classical
choice; it is accurate only while every respondent answers few items (with 3,000 items a posterior sd is
~0.03 while 41 Gauss-Hermite nodes are 0.49 apart, and the fit is distorted: abilities stretched ~1.3x).

* E-step. With ``x z - softplus(z) = x log P + (1 - x) log(1 - P)`` for ``z = a q + d``, the log-likelihood of
  respondent ``m`` at node ``q_k`` is ``q_k (X a)_m + (X d)_m - (O softplus(Z))_mk`` (``O`` the observed-cell
  mask, ``Z_jk = a_j q_k + d_j``): one matrix product, and none at all when no cell is missing (the last
  term is then the same row for every respondent). The posterior is ``R_mk ∝ w_k exp(loglik_mk)``.
* M-step. The expected complete-data log-likelihood of item ``j`` is
  ``sum_k r_jk log P_jk + (n_jk - r_jk) log(1 - P_jk)`` with ``n_jk = (O^T R)_jk`` and ``r_jk = (X^T R)_jk``;
  its gradient needs ``r`` only through ``sum_k r_jk = sum_m x_mj`` and ``sum_k r_jk q_k = (X^T E[theta])_j``,
  so ``r`` is never formed. A few Newton steps with a 2 x 2 Hessian per item (closed form, vectorised over
  items) on that objective plus the log prior.

Item priors make it a Bayes-modal ("MAP") fit: by default ``log a_j ~ N(c_a, 0.5^2)`` (the log-normal slope
prior that is BILOG-MG's default) and ``d_j ~ N(c_d, 3^2)``, with *floating* centres ``c_a = mean_j log a_j``,
``c_d = mean_j d_j`` re-estimated every cycle (BILOG-MG's ``FLOAT``; Mislevy 1986, "Bayes modal estimation
in item response models", Psychometrika 51(2)). A prior that pulls every slope towards a fixed value pulls
the whole latent scale with it (3,000 items outweigh 200 respondents' N(0, 1)); a floating centre only
shrinks items towards each other, and keeps items that every respondent gets right (or wrong), or whose
slope the data barely determine, from running off (b = -d / a explodes as a -> 0). ``a_prior="normal"``
(``a ~ N(c_a, sd^2)``) allows negative slopes (a mislabelled key); the likelihood is then invariant to
reflecting the latent scale (theta -> -theta, a -> -a), and the fit is anchored so that ability
correlates positively with the raw mean score.

The latent scale itself moves by a parameter-expanded EM step each cycle (:func:`_px_rescale`): plain EM
crawls along it when posteriors are sharp (hundreds of iterations on a 200 x 3,000 panel; a handful with
the PX step). Scores in (0, 1) enter as fractional
Bernoulli outcomes (the same ``x log P + (1 - x) log(1 - P)``); :class:`benchsift.irt.GradedResponse` models
ordered score levels instead.

Respondents are scored by the expected a posteriori (EAP) ability with its posterior sd, or by the maximum a
posteriori (MAP) ability with ``1 / sqrt(I(theta) + 1)`` (test information plus the prior's precision):
:meth:`TwoPL.score`, which also scores new respondents on any subset of the fitted items.

Cost per EM iteration: ``O(M N)`` for the sufficient statistics (``X a`` and ``X^T E[theta]``; the term
``(X d)_m`` is the same at every node, so it is left out of the posteriors and only its sum
``x_sum_item @ d`` enters the objective), ``O(M K)`` for the posteriors on the grid's K nodes, and
item-side work that does not grow with K or M on a complete panel (``O(M N K)``, one matrix product, when
cells are missing); K grows as the narrowest posterior sd shrinks (one point per sd over the span of the
posteriors: ~180 points for 200 respondents x 3,000 items, ~650 for 1,000 x 20,000). On every complete
panel, the E-step's item sum ``S(q) = sum_j softplus(a_j q + d_j)`` comes from Chebyshev interpolants on
the grid's span (:func:`_item_sum`) where they need at most 2/3 of the grid's points: ``S`` is analytic, so
~30-110 points give it to 1e-10 per item (:func:`_chebyshev_counts` bounds the error). And the M-step's node
weights are replaced by their Gauss rule (:func:`_gauss_rule`, Golub-Welsch): 15-70 points instead of the
~150-650 nodes the posteriors reach, as many as the item integrands' analyticity needs for a relative
error of ~1e-11 (:func:`_gauss_points`). Both are sized per slope group (:class:`_SlopePartition`: 4
groups by ``|a_j|``), each for its own steepest item, since the points needed fall with the slope (issue
36: 28 / 35 / 44 / 74 Chebyshev and 16 / 20 / 25 / 42 Gauss points on a 200 x 3,000 panel, where one
size for all took 74 and 42). With both, the fits equal the plain EM on the full grid (every node summed
in both steps) to 1e-11 on simulated 200 x 3,000, 1,000 x 5,000, 200 x 20,000 and 1,000 x 20,000 panels
(issue 36; tests/irt, with random panels in tests/irt/test_item_sums.py). Until
issue 36 a grid finer than 0.025 had its item-side sums moved to a 0.05 grid (Hermite interpolation of
``S``, quadratic binning of the node weights); that made EM non-monotone on long panels (1,000 x 20,000:
slopes 0.009 and intercepts 0.019 away from the exact fit; 200 x 20,000: 19 cycles instead of 7 and
intercepts 0.34 away; 40 x 8,000: 500 cycles without converging), and the Gauss rule made it unneeded.

Checked against: the EAP mean and sd against ``scipy.integrate.quad`` (tests/irt); parameter recovery against
girth's ``twopl_jml`` and ``twopl_mml`` on the same simulated panels (benchmarks/bench_irt.py).

References: R. D. Bock and M. Aitkin (1981), "Marginal maximum likelihood estimation of item parameters:
application of an EM algorithm", Psychometrika 46(4); F. M. Lord (1980), "Applications of item response
theory to practical testing problems", ch. 5 (information, MAP/EAP). Used for the IRT 2PL selector of
PRIMEBench (Appendix D.1, after metabench, Kipnis et al. 2025) and the p-IRT estimator of tinyBenchmarks.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from numbers import Integral, Real
from typing import ClassVar, Literal

import numpy as np
from scipy.special import expit

from benchsift._inputs import check_array, check_shape
from benchsift._params import (
    Check,
    ConstraintLike,
    Interval,
    Options,
    check_param,
    check_params,
    validate_params,
)
from benchsift._threads import single_thread
from benchsift.errors import DegenerateError
from benchsift.irt.quadrature import Grid, adaptive_grid, follow_posteriors, gauss_hermite_grid

__all__ = ["AbilityEstimate", "TwoPL"]

ScoreMethod = Literal["eap", "map"]
PriorKind = Literal["lognormal", "normal"]


@dataclass(frozen=True)
class AbilityEstimate:
    """Ability estimates, one per respondent: ``theta`` (EAP mean or MAP mode) and its standard error."""

    theta: np.ndarray
    se: np.ndarray


def _check_responses(X: np.ndarray, name: str = "responses") -> tuple[np.ndarray, np.ndarray]:
    arr = check_array(
        name, X, ndim=2, what="a 2-D respondents x items matrix", low=0, high=1, axes=("row", "item")
    )
    obs = ~np.isnan(arr)
    return np.where(obs, arr, 0.0), obs.astype(np.float64)


def _affine(a: np.ndarray, q: np.ndarray, d: np.ndarray) -> np.ndarray:
    """``a_j q_k + d_j`` as an ``(len(a), len(q))`` matrix, built in one array (no second temporary)."""
    z = np.multiply.outer(a, q)
    z += d[:, None]
    return z


def _expit(z: np.ndarray) -> np.ndarray:
    """``1 / (1 + exp(-z))`` in place of a fresh ``z`` (numpy's vectorised ``exp``: ~3x faster than
    :func:`scipy.special.expit` on the test machine, equal to it within 2 ulp, relative accuracy kept for
    very negative ``z``)."""
    with np.errstate(over="ignore"):  # exp(-z) = inf for z < -709 gives 1 / inf = 0, as expit does
        np.negative(z, out=z)
        np.exp(z, out=z)
    z += 1.0
    return np.reciprocal(z, out=z)


def _softplus(z: np.ndarray) -> np.ndarray:
    """``log(1 + exp(z)) = max(z, 0) + log1p(exp(-|z|))`` in place of a fresh ``z`` (numpy's vectorised
    ``exp`` and ``log1p``: ~4x faster than ``-log_expit(-z)``, equal to it within 1 ulp)."""
    top = np.maximum(z, 0.0)
    np.abs(z, out=z)
    np.negative(z, out=z)
    np.exp(z, out=z)
    np.log1p(z, out=z)
    z += top
    return z


#: bytes of one block of the item-side (items x points) arrays: the temporaries stay this size whatever the
#: number of items (an (N, K) array is 100 MB at 20,000 items x 650 nodes), and a block's elementwise passes
#: stay in the core's L2 cache (1 MB per core on the test machine). Blocks of 64 kB, 128 kB, 512 kB and
#: 2 MB fitted within the run-to-run noise of each other (+-10 % at load 13), 64 kB the slowest.
_BLOCK_BYTES = 512 * 1024


def _block_rows(n_points: int) -> int:
    """Items per block of an ``(items, n_points)`` float64 array of at most :data:`_BLOCK_BYTES`."""
    return max(16, _BLOCK_BYTES // (8 * max(n_points, 1)))


def _softplus_sums(
    a: np.ndarray, d: np.ndarray, points: np.ndarray, obs: np.ndarray | None = None
) -> np.ndarray:
    """``sum_j softplus(a_j q + d_j)`` at each of ``points`` (``(K,)``), or ``obs @ softplus`` (``(M, K)``)
    for an ``(M, N)`` observed-cell mask ``obs``, in blocks of items (:func:`_block_rows`)."""
    rows = _block_rows(points.size)
    out = np.zeros(points.size if obs is None else (obs.shape[0], points.size))
    for lo in range(0, a.size, rows):
        block = _softplus(_affine(a[lo : lo + rows], points, d[lo : lo + rows]))
        if obs is None:
            out += block.sum(axis=0)
        else:
            out += obs[:, lo : lo + rows] @ block
    return out


class _Responses:
    """A validated response matrix with the products every iteration reuses."""

    def __init__(self, X: np.ndarray, name: str = "responses") -> None:
        arr = check_array(
            name, X, ndim=2, what="a 2-D respondents x items matrix", low=0, high=1, axes=("row", "item")
        )
        missing = np.isnan(arr)
        self.complete = not bool(missing.any())
        self._obs: np.ndarray | None = None
        if self.complete:  # no copy and no mask (issue 36: 13 % of a 1,000 x 20,000 fit); never written to
            self.x = np.ascontiguousarray(arr)
            self.n_obs_item = np.full(arr.shape[1], float(arr.shape[0]))
        else:
            self.x = np.where(missing, 0.0, arr)
            self._obs = np.logical_not(missing).astype(np.float64)
            self.n_obs_item = self._obs.sum(axis=0)
        self.x_sum_item = self.x.sum(axis=0)
        self._bases: dict[bytes, np.ndarray] = {}  # the E-step's Chebyshev basis at the grid (_item_sum)

    @property
    def obs(self) -> np.ndarray:
        """The observed-cell mask as 0/1 floats (all ones for a complete panel, made only when asked for)."""
        if self._obs is None:
            self._obs = np.ones(self.x.shape)
        return self._obs

    def loglik(
        self,
        a: np.ndarray,
        d: np.ndarray,
        nodes: np.ndarray,
        constant: bool = True,
        partition: _SlopePartition | None = None,
    ) -> np.ndarray:
        """``(M, K)`` log-likelihood of each respondent's observed responses at each node.

        ``constant=False`` leaves out the term ``(X d)_m``, the same for every node: it cancels from the
        posteriors, and its sum over respondents is ``x_sum_item @ d`` (one pass over the matrix fewer per
        EM cycle).
        """
        xd = self.x @ d if constant else np.zeros(self.x.shape[0])
        lin = _affine(self.x @ a, nodes, xd)
        if self.complete:
            lin -= _item_sum(a, d, nodes, partition, self._bases)
            return lin
        lin -= _softplus_sums(a, d, nodes, self.obs)
        return lin

    def start_scores(self, a: np.ndarray, d: np.ndarray, n_steps: int = 10) -> AbilityEstimate:
        """Approximate MAP abilities and SEs for the starting grid, in ``O((M + N) G)`` on a complete panel.

        With every cell observed, the score equation ``x_m . a - sum_j a_j P_j(theta) - theta = 0`` and the
        information ``sum_j a_j^2 P_j (1 - P_j) + 1`` depend on the respondent only through ``x_m . a``: the
        item sums ``E(t) = sum_j a_j P_j(t)`` and ``I(t) = sum_j a_j^2 P_j (1 - P_j)`` are tabulated once on
        ``G = 81`` abilities over [-10, 10] (step ``h = 0.25``) with their exact derivatives
        (``E' = I``, ``I' = sum_j a_j^3 P_j (1 - P_j)(1 - 2 P_j)``), and every respondent's Newton steps
        read them by cubic Hermite interpolation (error at most ``h^4 / 384`` times the largest fourth
        derivative: the abilities agree with the full Newton MAP to 8e-6 on simulated 300 x 500 and
        200 x 3,000 panels, tests/irt; a starting grid needs far less:
        :func:`~benchsift.irt.quadrature.follow_posteriors` rebuilds the grid from the exact posteriors of
        the first E-step, and moving every start by 0.02 with SEs 20 % wider moved the fitted parameters of
        a simulated 200 x 3,000 panel by at most 1e-9). Before: 401 abilities with linear interpolation
        (issue 36: 20 % of a 1,000 x 20,000 fit), and before that ten full Newton passes of ``expit``
        over the (M, N) matrix. With missing cells: :meth:`map_scores`.
        """
        if not self.complete:
            return self.map_scores(a, d, n_steps=n_steps)
        table = np.linspace(-10.0, 10.0, 81)
        expected, info_t, info_slope = np.zeros(table.size), np.zeros(table.size), np.zeros(table.size)
        rows = _block_rows(table.size)
        for lo in range(0, a.size, rows):  # in blocks of items (cache-sized, :func:`_block_rows`)
            ab = a[lo : lo + rows]
            p = _expit(_affine(ab, table, d[lo : lo + rows]))  # (rows, G)
            pq = p * (1.0 - p)
            aa = ab * ab
            expected += ab @ p  # E(t)
            info_t += aa @ pq  # I(t) = E'(t)
            pq *= 1.0 - 2.0 * p
            info_slope += (aa * ab) @ pq  # I'(t)
        theta = np.zeros(self.x.shape[0])
        xa = self.x @ a
        for _ in range(n_steps):
            info = _hermite(theta, table, info_t, info_slope) + 1.0
            grad = xa - _hermite(theta, table, expected, info_t) - theta
            step = np.clip(grad / np.maximum(info, 1.0), -1.0, 1.0)
            theta = np.clip(theta + step, -10.0, 10.0)
            if np.abs(step).max(initial=0.0) < 1e-10:
                break
        info = np.maximum(_hermite(theta, table, info_t, info_slope) + 1.0, 1.0)
        return AbilityEstimate(theta=theta, se=1.0 / np.sqrt(info))

    def map_scores(self, a: np.ndarray, d: np.ndarray, n_steps: int = 30) -> AbilityEstimate:
        """MAP abilities under the N(0, 1) prior by Newton's method, SE ``1 / sqrt(I(theta) + 1)``."""
        theta = np.zeros(self.x.shape[0])
        xa = self.x @ a
        for _ in range(n_steps):
            p = expit(np.outer(theta, a) + d)
            grad = xa - (self.obs * p) @ a - theta
            info = (self.obs * (p * (1.0 - p))) @ (a * a) + 1.0
            step = np.clip(grad / info, -1.0, 1.0)
            theta = theta + step
            if np.abs(step).max(initial=0.0) < 1e-10:
                break
        p = expit(np.outer(theta, a) + d)
        info = (self.obs * (p * (1.0 - p))) @ (a * a) + 1.0
        return AbilityEstimate(theta=theta, se=1.0 / np.sqrt(info))


def _hermite(x: np.ndarray, knots: np.ndarray, f: np.ndarray, df: np.ndarray) -> np.ndarray:
    """Cubic Hermite interpolation at ``x`` of a function with values ``f`` and derivatives ``df`` at the
    evenly spaced ``knots`` (``x`` clipped to their span)."""
    h = float(knots[1] - knots[0])
    pos = np.clip((x - knots[0]) / h, 0.0, knots.size - 1.0)
    i = np.minimum(pos.astype(np.intp), knots.size - 2)
    t = pos - i
    t2, t3 = t * t, t * t * t
    return (
        (2 * t3 - 3 * t2 + 1) * f[i]
        + (t3 - 2 * t2 + t) * h * df[i]
        + (-2 * t3 + 3 * t2) * f[i + 1]
        + (t3 - t2) * h * df[i + 1]
    )


#: Slope groups of the item-side sums (:class:`_SlopePartition`): each group's Chebyshev points (E-step)
#: and Gauss rule (M-step) are sized for its own steepest item instead of the panel's.
_SLOPE_GROUPS = 4
#: Fewest items for which the sums are split into slope groups (below, the groups' overhead dominates).
_GROUP_MIN_ITEMS = 256
#: Pieces of each slope group whose steepest slope and largest |d| bound the Chebyshev error.
_PIECES = 16


class _SlopePartition:
    """The items partitioned by ``|a_j|`` into ``groups`` slope groups of ``pieces`` pieces each (all of about
    equal size; ``np.argpartition`` at the pieces' edges, ``O(N log P)``, no full sort): ``order`` lists the
    items piece by piece, ``starts`` where each piece begins. One group below :data:`_GROUP_MIN_ITEMS`
    items. Any partition gives exact sums; a partition by slope makes the smaller slopes' groups cheaper."""

    def __init__(self, a: np.ndarray, groups: int | None = None) -> None:
        n_items = a.size
        if groups is None:
            groups = _SLOPE_GROUPS if n_items >= _GROUP_MIN_ITEMS else 1
        self.groups = groups
        self.pieces = min(_PIECES, max(n_items // self.groups, 1))
        total = self.groups * self.pieces
        count = np.full(total, n_items // total, dtype=np.intp)
        count[: n_items % total] += 1
        self.count = count
        self.starts = np.concatenate(([0], np.cumsum(count[:-1]))).astype(np.intp)
        cuts = self.starts[1:]
        self.order = np.argpartition(np.abs(a), cuts) if cuts.size else np.arange(n_items)

    def span(self, g: int) -> slice:
        """Where slope group ``g`` lies in ``order``."""
        lo = int(self.starts[g * self.pieces])
        hi = int(self.starts[(g + 1) * self.pieces]) if g + 1 < self.groups else self.order.size
        return slice(lo, hi)

    def group(self, g: int) -> np.ndarray:
        """Item positions of slope group ``g`` (increasing slopes with ``g``)."""
        return self.order[self.span(g)]


def _item_sum(
    a: np.ndarray,
    d: np.ndarray,
    nodes: np.ndarray,
    partition: _SlopePartition | None = None,
    cache: dict[bytes, np.ndarray] | None = None,
) -> np.ndarray:
    """``S(q) = sum_j softplus(a_j q + d_j)`` at ``nodes``, slope group by slope group: each group's
    Chebyshev interpolant on as many points as its error bound asks for (:func:`_chebyshev_counts`,
    ``_CHEB_TOL`` per item) where that needs at most 2/3 of the nodes, else its direct sum. The groups'
    interpolants are added as Chebyshev coefficients and evaluated at the nodes in one product."""
    partition = _SlopePartition(a) if partition is None else partition
    counts = _chebyshev_counts(a, d, nodes, partition)
    out = np.zeros(nodes.size)
    coef = np.zeros(int(counts.max(initial=2)))
    lo, hi = float(nodes[0]), float(nodes[-1])
    for g, n_cheb in enumerate(counts):
        idx = partition.group(g)
        if 3 * n_cheb < 2 * nodes.size:
            coef[:n_cheb] += _chebyshev_coefficients(
                _softplus_sums(a[idx], d[idx], _chebyshev_nodes(lo, hi, n_cheb))
            )
        else:
            out += _softplus_sums(a[idx], d[idx], nodes)
    if coef.any():
        out += _chebyshev_series(coef, lo, hi, nodes, cache)
    return out


#: target absolute error of the E-step's item sum per item (its interpolation, _chebyshev_counts)
_CHEB_TOL = 1e-10


def _chebyshev_counts(
    a: np.ndarray, d: np.ndarray, nodes: np.ndarray, partition: _SlopePartition
) -> np.ndarray:
    """Chebyshev points per slope group for ``_CHEB_TOL`` per item on the span of ``nodes``.

    Item ``j``'s term is analytic in the ellipse with foci at the span's ends through its nearest
    singularity (``b_j = pi / |a_j|`` off the real axis; Bernstein parameter ``rho_j``); inside the smaller
    ellipse ``rho_j' = rho_j^0.95`` its size is taken as ``M_j = |a_j| (r + b_j) + |d_j| + 4`` (an estimate:
    ``|z|`` there plus room for the logarithmic singularity), so its
    interpolant on ``n`` Chebyshev points errs by at most ``4 M_j rho_j'^-n / (rho_j' - 1)`` (Trefethen
    2013, "Approximation theory and approximation practice", Theorem 8.2), and a group's sum by the sum of
    those. Each group's items are bounded in its pieces, each at its steepest slope and largest ``|d|``;
    the count is the smallest ``n`` in ``[2, 10 K + 1]`` whose bound is at most ``_CHEB_TOL`` times the
    group's items (so ``S`` errs by at most ``_CHEB_TOL`` per item), else ``10 K + 1``. Checked numerically
    (tests/irt): at the count it gives, the error is ~1e-14 per item, well below the target.
    """
    groups, pieces = partition.groups, partition.pieces
    r = 0.5 * float(nodes[-1] - nodes[0])
    if a.size == 0 or not r > 0:
        return np.full(groups, nodes.size)
    order, starts = partition.order, partition.starts
    top = np.maximum.reduceat(np.abs(a)[order], starts)
    far = np.maximum.reduceat(np.abs(d)[order], starts)
    count = partition.count.astype(np.float64)
    b = np.pi / np.maximum(top, 1e-12)
    rho = (b / r + np.sqrt(1.0 + (b / r) ** 2)) ** 0.95
    bound = 4.0 * count * (top * (r + b) + far + 4.0) / (rho - 1.0)  # the error bound at n = 0, per piece
    log_bound, log_rho = np.log(bound).reshape(groups, pieces), np.log(rho).reshape(groups, pieces)
    with np.errstate(divide="ignore"):  # a zero tolerance asks for every point: 10 K + 1
        log_tol = np.log(_CHEB_TOL * count.reshape(groups, pieces).sum(axis=1))
    # The smallest n lies where the group's largest single term is below its target, and no further than
    # where every term is below target / pieces.
    excess = log_bound - log_tol[:, None]
    largest = 10 * nodes.size + 1
    lo = np.clip(np.ceil((excess / log_rho).max(axis=1)), 2, largest)
    hi = np.clip(np.ceil(((excess + np.log(pieces)) / log_rho).max(axis=1)), lo, largest)
    n = np.arange(int(lo.min()), int(hi.max()) + 1)
    total = np.exp(log_bound[:, :, None] - log_rho[:, :, None] * n).sum(axis=1)  # (groups, len(n))
    ok = total <= np.exp(log_tol)[:, None]
    return np.where(ok.any(axis=1), n[ok.argmax(axis=1)], largest).astype(np.intp)


def _chebyshev_nodes(lo: float, hi: float, n_points: int) -> np.ndarray:
    """``n_points`` Chebyshev points of the second kind on ``[lo, hi]``, from ``hi`` down to ``lo``."""
    k = np.arange(n_points)
    return 0.5 * (lo + hi) + 0.5 * (hi - lo) * np.cos(np.pi * k / (n_points - 1))


def _chebyshev_coefficients(values: np.ndarray) -> np.ndarray:
    """Coefficients ``c_0..c_{n-1}`` of the polynomial interpolating ``values`` at :func:`_chebyshev_nodes`
    (a type-I discrete cosine transform, as one product with :func:`_dct1_matrix`; Trefethen 2013, ch. 3)."""
    return _dct1_matrix(values.size) @ values


@lru_cache(maxsize=64)
def _dct1_matrix(n_points: int) -> np.ndarray:
    """The ``(n, n)`` matrix from values at ``n`` Chebyshev points of the second kind to the coefficients of
    their interpolant: ``c_j = (2 / (n - 1)) sum_k'' f_k cos(pi j k / (n - 1))``, the first and last terms
    of the sum and the first and last coefficients halved (read-only, shared)."""
    k = np.arange(n_points)
    matrix = np.cos(np.pi * np.outer(k, k) / (n_points - 1)) * (2.0 / (n_points - 1))
    matrix[:, [0, -1]] *= 0.5
    matrix[[0, -1], :] *= 0.5
    matrix.setflags(write=False)
    return matrix


def _chebyshev_series(
    coef: np.ndarray, lo: float, hi: float, x: np.ndarray, cache: dict[bytes, np.ndarray] | None = None
) -> np.ndarray:
    """``sum_k c_k T_k(t)`` at ``x`` mapped to ``t`` in [-1, 1], ``T_k = cos(k arccos t)`` (one product).

    ``cache`` keeps the basis matrix for the next call on the same points and span (a fit's grid stays the
    same for most of its cycles)."""
    key = np.array([lo, hi, coef.size]).tobytes() + np.ascontiguousarray(x).tobytes()
    basis = None if cache is None else cache.get(key)
    if basis is None:
        t = np.clip((2.0 * x - (lo + hi)) / (hi - lo), -1.0, 1.0)
        basis = np.cos(np.multiply.outer(np.arccos(t), np.arange(coef.size)))
        if cache is not None:
            cache.clear()  # only the latest grid is worth keeping
            cache[key] = basis
    return basis @ coef


#: target error of the M-step's Gauss rule, relative, for integrands analytic near the nodes' interval
_GAUSS_TOL = 1e-11


def _gauss_points(nodes: np.ndarray, slope: float) -> int:
    """Nodes a Gauss rule needs for the M-step's item integrands on the span of ``nodes``.

    The integrands (``P_j(q) = expit(a_j q + d_j)`` times 1, q, q^2, and ``P_j (1 - P_j)`` likewise) are
    analytic with their nearest poles ``pi / |a_j|`` off the real axis, so an L-point Gauss rule errs by
    ``O(rho^-2L)`` with ``rho = b / r + sqrt(1 + (b / r)^2)`` the Bernstein ellipse through the pole
    (half-width ``r`` of the nodes' span, ``b = pi / max |a|``; Trefethen 2013, "Approximation theory and
    approximation practice", ch. 19): ``L = log(1 / tol) / (2 log rho)``.
    """
    r = 0.5 * float(nodes[-1] - nodes[0])
    if not r > 0 or not np.isfinite(slope) or slope <= 0:
        return nodes.size
    b = np.pi / slope
    rho = b / r + np.sqrt(1.0 + (b / r) ** 2)
    if not np.log(rho) > 0:  # a slope so steep that rho rounds to 1 (a fit running off): every node
        return nodes.size
    return int(min(np.ceil(np.log(1.0 / _GAUSS_TOL) / (2.0 * np.log(rho))), nodes.size))


def _gauss_rule(nodes: np.ndarray, weights: np.ndarray, n_points: int) -> tuple[np.ndarray, np.ndarray]:
    """The ``n_points``-point Gauss rule of the discrete measure ``sum_k weights_k delta(q - nodes_k)``.

    Golub and Welsch (1969, "Calculation of Gauss quadrature rules", Math. Comp. 23): the Jacobi matrix of
    the measure by Lanczos on ``diag(nodes)`` from ``sqrt(weights)`` (:func:`_jacobi_matrix`), its
    eigenvalues are the nodes and the squared first components of its eigenvectors times the total mass the
    weights (:func:`_rule_of_jacobi`). The rule sums every polynomial of degree below ``2 n_points``
    exactly as the full measure does. Fewer points come back when the measure has fewer support points.
    """
    alpha, beta, total = _jacobi_matrix(nodes, weights, n_points)
    return _rule_of_jacobi(alpha, beta, total, n_points)


def _jacobi_matrix(
    nodes: np.ndarray, weights: np.ndarray, n_points: int
) -> tuple[np.ndarray, np.ndarray, float]:
    """The leading ``n x n`` block (``n <= n_points``; fewer when the measure has fewer support points) of the
    Jacobi matrix of ``sum_k weights_k delta(q - nodes_k)``: diagonal ``alpha``, off-diagonal ``beta``
    (length ``n - 1``) and the total mass. Lanczos on ``diag(nodes)`` from ``sqrt(weights / total)``, fully
    reorthogonalised twice per step ("twice is enough", Parlett), so exact up to rounding however many
    steps. Its leading ``L x L`` block is the Jacobi matrix of the ``L``-point Gauss rule for every
    ``L <= n``."""
    total = float(weights.sum())
    basis = np.zeros((n_points, nodes.size))  # the Lanczos vectors as rows (contiguous)
    basis[0] = np.sqrt(weights / total)
    alpha = np.zeros(n_points)
    beta = np.zeros(n_points)
    size = n_points
    small = 1e-12 * max(1.0, float(np.abs(nodes).max()))
    for j in range(n_points):
        v = nodes * basis[j]
        alpha[j] = basis[j] @ v
        if j + 1 == n_points:
            break
        done = basis[: j + 1]
        for _ in range(2):  # full reorthogonalisation, twice
            v -= (done @ v) @ done
        beta[j] = np.sqrt(v @ v)
        if beta[j] <= small:
            size = j + 1
            break
        np.divide(v, beta[j], out=basis[j + 1])
    return alpha[:size], beta[: size - 1], total


def _rule_of_jacobi(
    alpha: np.ndarray, beta: np.ndarray, total: float, n_points: int
) -> tuple[np.ndarray, np.ndarray]:
    """The Gauss rule of the leading ``min(n_points, len(alpha))`` block of a Jacobi matrix (Golub-Welsch)."""
    from scipy.linalg import eigh_tridiagonal

    size = min(n_points, alpha.size)
    if size == 1:
        return alpha[:1].copy(), np.array([total])
    points, vectors = eigh_tridiagonal(alpha[:size], beta[: size - 1])
    return points, total * vectors[0] ** 2


def _newton_sums(
    a: np.ndarray,
    d: np.ndarray,
    nodes: np.ndarray,
    n_jk: np.ndarray,
    basis: np.ndarray,
    out: tuple[np.ndarray, np.ndarray] | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """The M-step's node sums per item, in blocks of items (:func:`_block_rows`): ``(N, 2)`` sums of
    ``n_jk P_jk`` times 1 and q, and ``(N, 3)`` sums of ``n_jk P_jk (1 - P_jk)`` times 1, q and q^2, with
    ``P_jk = expit(a_j q_k + d_j)`` (``n_jk`` is ``(K,)`` when shared by the items, else ``(N, K)``)."""
    n_items = a.size
    sum_w, info = (np.empty((n_items, 2)), np.empty((n_items, 3))) if out is None else out
    rows = _block_rows(nodes.size)
    for lo in range(0, n_items, rows):
        block = slice(lo, lo + rows)
        p = _expit(_affine(a[block], nodes, d[block]))
        w = p * (n_jk if n_jk.ndim == 1 else n_jk[block])  # expected correct responses, (rows, K)
        np.matmul(w, basis[:, :2], out=sum_w[block])  # sum_k w, sum_k w q
        p *= w
        np.subtract(w, p, out=p)  # n p (1 - p)
        np.matmul(p, basis, out=info[block])  # sums of n p (1 - p) times 1, q, q^2
    return sum_w, info


def _px_rescale(
    a: np.ndarray, d: np.ndarray, mean: np.ndarray, sd: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Parameter-expanded EM step for the latent scale (Liu, Rubin and Wu 1998, "Parameter expansion to
    accelerate EM: the PX-EM algorithm", Biometrika 85(4)).

    The likelihood is flat along ``theta -> mu + s theta`` (with ``a -> a s``, ``d -> d + a mu``): only the
    N(0, 1) prior pins the scale, so plain EM crawls along that direction when posteriors are sharp (the
    fraction of missing information there is close to one). The expanded model lets the ability
    distribution be ``N(mu, s^2)``; its M-step is ``mu = mean_m E[theta_m]``,
    ``s^2 = mean_m E[theta_m^2] - mu^2``, and mapping back to N(0, 1) moves the items by the same affine map
    (``d`` may hold one column per threshold, as in the graded response model).

    ``s^2`` takes the unbiased divisor ``M - 1`` instead of ``M``: the M respondents are a sample from the
    N(0, 1) population, and their spread about their own mean is ``(M - 1) / M`` in expectation, so the ML
    divisor stretches the fitted scale by ``sqrt(M / (M - 1))`` (the same correction as REML for a variance
    component, and as the ``ddof=1`` normalisation of joint maximum likelihood). On simulated 200 x 3,000
    panels it lowers the ability RMSE by ~0.002 (benchmarks/bench_irt.py).
    """
    n = mean.shape[0]
    mu = float(mean.mean())
    s2 = (float(np.mean(mean**2 + sd**2)) - mu * mu) * (n / (n - 1.0) if n > 1 else 1.0)
    if not np.isfinite(s2) or s2 <= 1e-12:
        return a, d
    s = np.sqrt(s2)
    return a * s, d + (a[:, None] if d.ndim == 2 else a) * mu


def _max_change(a1: np.ndarray, a0: np.ndarray, d1: np.ndarray, d0: np.ndarray) -> float:
    return float(max(np.abs(a1 - a0).max(initial=0.0), np.abs(d1 - d0).max(initial=0.0)))


def _squarem_point(
    x0: tuple[np.ndarray, np.ndarray], x1: tuple[np.ndarray, np.ndarray], x2: tuple[np.ndarray, np.ndarray]
) -> tuple[np.ndarray, np.ndarray]:
    """SQUAREM extrapolation ``x0 - 2 alpha r + alpha^2 v`` with ``alpha = -|r| / |v|`` capped at -1.

    ``r = x1 - x0`` and ``v = x2 - 2 x1 + x0`` over the stacked item parameters (Varadhan and Roland 2008,
    "Simple and globally convergent methods for accelerating the convergence of any EM algorithm",
    Scandinavian Journal of Statistics 35(2), scheme S3). ``alpha = -1`` gives ``x2`` itself.
    """
    r = np.concatenate([x1[0] - x0[0], np.ravel(x1[1] - x0[1])])
    v = np.concatenate([x2[0] - 2 * x1[0] + x0[0], np.ravel(x2[1] - 2 * x1[1] + x0[1])])
    vv = float(v @ v)
    alpha = -1.0 if vv <= 0 else min(-1.0, -np.sqrt(float(r @ r) / vv))
    out = []
    for p0, p1, p2 in zip(x0, x1, x2, strict=True):
        out.append(p0 - 2 * alpha * (p1 - p0) + alpha**2 * (p2 - 2 * p1 + p0))
    return out[0], out[1]


_POSITIVE = Interval(Real, 0, None, closed="neither")  # inf allowed: an infinite prior sd switches it off
#: the EM fit's parameters, shared by :class:`TwoPL` and :class:`~benchsift.irt.graded.GradedResponse`
EM_CONSTRAINTS: dict[str, list[ConstraintLike]] = {
    "points_per_sd": [_POSITIVE],
    "max_iter": [Interval(Integral, 1, None)],
    "tol": [_POSITIVE],
    "newton_steps": [Interval(Integral, 1, None)],
    "prior_a_sd": [_POSITIVE],
    "prior_d_sd": [_POSITIVE],
}


class TwoPL:
    """Two-parameter logistic IRT model, marginal maximum likelihood by EM (see the module docstring).

    Parameters
    ----------
    n_quadrature:
        ``None`` (default): a grid that follows the posteriors
        (:func:`~benchsift.irt.quadrature.adaptive_grid`); an int ``K``: a fixed ``K``-point Gauss-Hermite
        grid, the classical Bock-Aitkin choice (inaccurate when respondents answer hundreds of items).
    points_per_sd:
        Grid points per posterior sd of the best-measured respondent (adaptive grid only).
    max_iter, tol:
        EM stops when the largest change of any item parameter is below ``tol`` or after ``max_iter``
        iterations (``converged_`` says which).
    newton_steps:
        Newton steps per M-step.
    a_prior:
        ``"lognormal"`` (default; ``log a ~ N(c_a, prior_a_sd^2)``, slopes stay positive) or ``"normal"``
        (``a ~ N(c_a, prior_a_sd^2)``, negative slopes allowed; use it to look for mislabelled items).
    prior_a_sd, prior_d_sd:
        Prior standard deviations of ``log a`` (or ``a``) and of ``d``; ``inf`` switches a prior off.
    float_priors:
        Prior centres re-estimated each cycle as the items' mean ``log a`` (or ``a``) and mean ``d``
        (default), or fixed at ``a = 1``, ``d = 0``.
    accelerate:
        SQUAREM acceleration of EM (default; :func:`_squarem_point`): on real panels plain EM needs tens to
        hundreds of cycles for weakly identified items.
    warm_start:
        When true and the model is already fitted on the same number of items, :meth:`fit` starts EM from
        the fitted item parameters instead of the default start (scikit-learn's ``warm_start``).

    Attributes
    ----------
    discrimination_, intercept_, difficulty_:
        ``a_j``, ``d_j`` and ``b_j = -d_j / a_j`` per item.
    theta_, theta_se_:
        EAP ability and posterior sd of the respondents the model was fitted on.
    n_iter_, converged_, objective_:
        EM cycles run, whether ``tol`` was reached, and the log marginal posterior at each accepted point.
    grid_:
        The quadrature grid of the last iteration.
    """

    discrimination_: np.ndarray
    intercept_: np.ndarray
    difficulty_: np.ndarray
    theta_: np.ndarray
    theta_se_: np.ndarray
    grid_: Grid

    def __init__(
        self,
        n_quadrature: int | None = None,
        points_per_sd: float = 1.0,
        max_iter: int = 500,
        tol: float = 1e-4,
        newton_steps: int = 2,
        a_prior: PriorKind = "lognormal",
        prior_a_sd: float = 0.5,
        prior_d_sd: float = 3.0,
        float_priors: bool = True,
        accelerate: bool = True,
        warm_start: bool = False,
    ) -> None:
        self.n_quadrature = n_quadrature
        self.points_per_sd = points_per_sd
        self.max_iter = max_iter
        self.tol = tol
        self.newton_steps = newton_steps
        self.prior_a_sd = prior_a_sd
        self.prior_d_sd = prior_d_sd
        self.a_prior = a_prior
        self.float_priors = float_priors
        self.accelerate = accelerate
        self.warm_start = warm_start

    #: the constructor's parameters, declared once (:mod:`benchsift._params`), checked at ``fit``
    _parameter_constraints: ClassVar[dict[str, list[ConstraintLike]]] = {
        "n_quadrature": [Interval(Integral, 5, None), None],  # None: adaptive
        **EM_CONSTRAINTS,
        "a_prior": [Options(["lognormal", "normal"])],
    }

    def _check_params(self) -> None:
        check_params(self._parameter_constraints, vars(self), owner="TwoPL")

    @classmethod
    def from_parameters(cls, discrimination: np.ndarray, intercept: np.ndarray, **params: object) -> TwoPL:
        """A fitted model from stored item parameters ``a_j``, ``d_j`` (slope-intercept form), for scoring and
        prediction (an item bank read back from disk); ``params`` are the constructor's parameters."""
        a = check_array("discrimination", discrimination, ndim=1, finite=True, nan=False)
        d = check_array("intercept", intercept, shape=a.shape, finite=True, nan=False)
        model = cls(**params)  # type: ignore[arg-type]
        model.discrimination_ = a
        model.intercept_ = d
        with np.errstate(divide="ignore"):
            model.difficulty_ = -d / a
        return model

    # ------------------------------------------------------------------ fitting
    def fit(self, X: np.ndarray) -> TwoPL:
        """Fit item parameters to ``X`` (respondents x items, values in [0, 1], NaN = missing).

        Runs with one BLAS thread (:mod:`benchsift._threads`): the work is elementwise or small matrix
        products; on 2 cores the default pool made the fit 2.1-2.9x slower under load and at most 12 % faster
        on a quiet machine (benchmarks/bench_irt.py, thread-policy table).
        """
        with single_thread():
            return self._fit(X)

    def _fit(self, X: np.ndarray) -> TwoPL:
        self._check_params()
        data = _Responses(X)
        n_resp, n_items = data.x.shape
        if n_resp < 2:
            raise DegenerateError(f"2PL fit needs at least 2 respondents, got {n_resp}")
        if not data.n_obs_item.any():  # the fit ran off to slopes of 1e62, with no word of it
            raise DegenerateError("2PL fit: the matrix holds no score (every cell is missing)")

        if self.warm_start and hasattr(self, "discrimination_") and len(self.discrimination_) == n_items:
            a, d = self.discrimination_.copy(), self.intercept_.copy()
        else:
            # Start: a = 1, d from the logit of the observed mean (clipped), scaled by 1.4 as a rough
            # allowance for the spread of a N(0, 1) ability (EM moves it from there).
            p_item = np.where(data.n_obs_item > 0, data.x_sum_item / np.maximum(data.n_obs_item, 1), 0.5)
            p_item = np.clip(p_item, 0.02, 0.98)
            a = np.ones(n_items)
            d = np.log(p_item / (1 - p_item)) * np.sqrt(1.0 + np.pi / 8.0 * 3.0)
        grid = self._initial_grid(data, a, d)
        objective: list[float] = []
        converged = False
        it = 0
        while it < self.max_iter:
            # One SQUAREM cycle (Varadhan and Roland 2008, scheme S3): two EM steps, an extrapolation along
            # them, and one EM step from there; back to the plain second step if the extrapolation lowers the
            # objective. EM alone converges linearly, slowly on weakly identified items of real panels.
            a1, d1, obj0, grid = self._em_step(data, a, d, grid)
            it += 1
            objective.append(obj0)
            if _max_change(a1, a, d1, d) < self.tol:
                a, d, converged = a1, d1, True
                break
            if not self.accelerate or it + 2 > self.max_iter:
                a, d = a1, d1
                continue
            a2, d2, obj1, grid = self._em_step(data, a1, d1, grid)
            it += 1
            objective.append(obj1)
            a3, d3 = _squarem_point((a, d), (a1, d1), (a2, d2))
            if self.a_prior == "lognormal" and not (a3 > 0).all():
                a, d = a2, d2
                continue
            a4, d4, obj3, grid3 = self._em_step(data, a3, d3, grid)
            it += 1
            if obj3 >= obj1:
                objective.append(obj3)
                a, d, grid = a4, d4, grid3
            else:
                a, d = a2, d2

        _, _, mean, sd, grid = follow_posteriors(
            lambda nodes: data.loglik(a, d, nodes, constant=False), grid, self.points_per_sd
        )
        # Anchor the sign of the latent scale: ability must rise with the raw mean score (a normal slope
        # prior allows either sign; under the log-normal prior slopes are positive, nothing to reflect).
        n_obs_resp = np.full(n_resp, float(n_items)) if data.complete else data.obs.sum(axis=1)
        raw = np.where(n_obs_resp > 0, data.x.sum(axis=1) / np.maximum(n_obs_resp, 1), np.nan)
        ok = ~np.isnan(raw)
        if (
            self.a_prior == "normal"
            and ok.sum() >= 2
            and np.std(raw[ok]) > 0
            and np.corrcoef(mean[ok], raw[ok])[0, 1] < 0
        ):
            a, d = -a, d
            mean = -mean
            grid = Grid(nodes=-grid.nodes[::-1], log_weights=grid.log_weights[::-1], step=grid.step)

        self.discrimination_ = a
        self.intercept_ = d
        with np.errstate(divide="ignore", invalid="ignore"):
            self.difficulty_ = np.where(a != 0, -d / a, np.nan)
        self.theta_ = mean
        self.theta_se_ = sd
        self.n_iter_ = it
        self.converged_ = converged
        self.objective_ = np.asarray(objective)
        self.grid_ = grid
        return self

    def _em_step(
        self, data: _Responses, a: np.ndarray, d: np.ndarray, grid: Grid
    ) -> tuple[np.ndarray, np.ndarray, float, Grid]:
        """One EM cycle from ``(a, d)``: E-step (regridding if needed), M-step, PX step for the latent scale.

        Returns the new item parameters, the log marginal posterior at ``(a, d)`` and the grid used.
        """
        partition = _SlopePartition(a)
        post, log_marg, mean, sd, grid = follow_posteriors(
            lambda nodes: data.loglik(a, d, nodes, constant=False, partition=partition),
            grid,
            self.points_per_sd,
        )
        centres = self._prior_centres(a, d)
        # the log-likelihood's term (X d)_m, left out of the posteriors, summed over respondents
        log_lik = float(log_marg.sum()) + float(data.x_sum_item @ d)
        objective = log_lik + float(self._prior_terms(a, d, centres)[0].sum())
        n_jk = post.sum(axis=0) if data.complete else data.obs.T @ post  # (K,) or (N, K)
        a_new, d_new = self._m_step(
            a, d, n_jk, data.x_sum_item, data.x.T @ mean, grid.nodes, centres, partition
        )
        a_new, d_new = _px_rescale(a_new, d_new, mean, sd)
        return a_new, d_new, objective, grid

    def _initial_grid(self, data: _Responses, a: np.ndarray, d: np.ndarray) -> Grid:
        if self.n_quadrature is not None:
            return gauss_hermite_grid(int(self.n_quadrature))
        start = data.start_scores(a, d, n_steps=10)
        return adaptive_grid(start.theta, start.se, self.points_per_sd)

    def _prior_centres(self, a: np.ndarray, d: np.ndarray) -> tuple[float, float]:
        """Centres of the item priors: fixed (a = 1, d = 0), or floating with the items (``float_priors``)."""
        if not self.float_priors:
            return (0.0 if self.a_prior == "lognormal" else 1.0), 0.0
        if self.a_prior == "lognormal":
            return float(np.mean(np.log(np.maximum(a, 1e-12)))), float(d.mean())
        return float(a.mean()), float(d.mean())

    def _prior_terms(
        self, a: np.ndarray, d: np.ndarray, centres: tuple[float, float]
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """Log prior per item, its gradient in (a, d) and its curvature (h_aa, h_dd; independent priors).

        Normal: ``a ~ N(c_a, prior_a_sd^2)`` (exact curvature). Log-normal: ``log a ~ N(c_a, prior_a_sd^2)``
        as a prior on ``log a`` (so without the ``-log a`` Jacobian term, whose pull towards 0 would, with
        floating centres, ratchet every slope down); curvature ``max(1, -z) / (sd^2 a^2)`` with
        ``z = log a - c_a``. The exact one is ``(1 - z) / (sd^2 a^2)``; its leading term ``1 / (sd^2 a^2)``
        (kept for ``z >= -1``, where it is within 2x of the exact one and the steps settle) made the Newton
        steps of a slope far below the centre up to ``1 - z`` times too long: they overshot zero, were
        halved and never settled, and on real panels with items that carry no signal (MMT-Bench, 123-137
        models x 3,127 items, sd 1) EM ran to its 500-cycle limit with the objective going up and down.
        ``-z`` keeps the steps there within 2x of exact Newton steps, and leaves every fit whose slopes
        stay above ``exp(c_a - 1)`` (0.37 times the centre's slope; most clean panels) on exactly the path
        it had.
        ``d ~ N(c_d, prior_d_sd^2)``.
        """
        centre_a, centre_d = centres
        lp = np.zeros_like(a)
        g_a, g_d = np.zeros_like(a), np.zeros_like(a)
        h_aa, h_dd = np.zeros_like(a), np.zeros_like(a)
        if np.isfinite(self.prior_a_sd):
            v = self.prior_a_sd**2
            if self.a_prior == "lognormal":
                pos = np.maximum(a, 1e-12)
                z = np.log(pos) - centre_a
                lp -= z**2 / (2 * v)
                g_a -= z / (v * pos)
                h_aa += np.maximum(1.0, -z) / (v * pos * pos)
            else:
                lp -= (a - centre_a) ** 2 / (2 * v)
                g_a -= (a - centre_a) / v
                h_aa += 1.0 / v
        if np.isfinite(self.prior_d_sd):
            v = self.prior_d_sd**2
            lp -= (d - centre_d) ** 2 / (2 * v)
            g_d -= (d - centre_d) / v
            h_dd += 1.0 / v
        return lp, g_a, g_d, h_aa, h_dd

    def _m_step(
        self,
        a: np.ndarray,
        d: np.ndarray,
        n_jk: np.ndarray,
        r_sum: np.ndarray,
        r_theta: np.ndarray,
        nodes: np.ndarray,
        centres: tuple[float, float],
        partition: _SlopePartition | None = None,
    ) -> tuple[np.ndarray, np.ndarray]:
        """Newton steps on each item's expected log posterior (``n_jk`` is ``(K,)`` when shared by items)."""
        parts = [(slice(None), nodes, n_jk)]  # (items, their nodes, the nodes' weights)
        order = None
        if n_jk.ndim == 1:
            # Nodes that no respondent's posterior reaches add nothing to any item's sums: drop them.
            keep = n_jk > 1e-12 * n_jk.max(initial=0.0)
            nodes, n_jk = nodes[keep], n_jk[keep]
            # The item sums are smooth in q: a Gauss rule of the node weights with far fewer points gives
            # them to ~1e-11 (_gauss_points; with room for the slopes to grow by 25 % over the Newton steps),
            # sized per slope group for the group's steepest item; every rule is a leading block of one
            # Jacobi matrix (one Lanczos run). The items are taken in the partition's order, so that each
            # group is a contiguous slice, and put back at the end.
            partition = _SlopePartition(a) if partition is None else partition
            order = partition.order
            a, d, r_sum, r_theta = a[order], d[order], r_sum[order], r_theta[order]
            spans = [partition.span(g) for g in range(partition.groups)]
            sizes = [_gauss_points(nodes, 1.25 * float(np.abs(a[sl]).max(initial=0.0))) for sl in spans]
            wanted = [n if 2 * n < nodes.size else nodes.size for n in sizes]
            ruled = [n for n in wanted if n < nodes.size]  # the groups summed over a Gauss rule
            jacobi = _jacobi_matrix(nodes, n_jk, max(ruled)) if ruled else None
            parts = [
                (sl, nodes, n_jk) if n == nodes.size or jacobi is None else (sl, *_rule_of_jacobi(*jacobi, n))
                for sl, n in zip(spans, wanted, strict=True)
            ]
        parts_basis = [
            (sl, q, n_q, np.stack([np.ones_like(q), q, q * q], axis=1))  # (K, 3): sums of 1, q, q^2
            for sl, q, n_q in parts
        ]
        for _ in range(self.newton_steps):
            sum_w, info = np.empty((a.size, 2)), np.empty((a.size, 3))
            for sl, q, n_q, basis in parts_basis:
                _newton_sums(a[sl], d[sl], q, n_q, basis, out=(sum_w[sl], info[sl]))
            if self.float_priors:
                centres = self._prior_centres(a, d)  # the centres move with the items (joint update)
            _, pg_a, pg_d, ph_aa, ph_dd = self._prior_terms(a, d, centres)
            g_a = r_theta - sum_w[:, 1] + pg_a
            g_d = r_sum - sum_w[:, 0] + pg_d
            h_aa = info[:, 2] + ph_aa
            h_ad = info[:, 1]
            h_dd = info[:, 0] + ph_dd
            det = h_aa * h_dd - h_ad**2
            safe = det > 1e-10
            det = np.where(safe, det, 1.0)
            step_a = np.where(safe, (h_dd * g_a - h_ad * g_d) / det, 0.0)
            step_d = np.where(safe, (h_aa * g_d - h_ad * g_a) / det, 0.0)
            # Damp very large steps (early iterations on near-perfect items).
            scale = np.minimum(1.0, 2.0 / np.maximum(np.abs(step_a), np.abs(step_d)).clip(min=1e-12))
            a_new = a + scale * step_a
            if self.a_prior == "lognormal":
                a_new = np.where(a_new > 0, a_new, 0.5 * a)  # slopes stay positive under a log-normal prior
            a = a_new
            d = d + scale * step_d
        if order is not None:
            a_out, d_out = np.empty_like(a), np.empty_like(d)
            a_out[order], d_out[order] = a, d
            return a_out, d_out
        return a, d

    # ------------------------------------------------------------------ using a fitted model
    def _check_fitted(self) -> None:
        fitted = Check(
            lambda m: hasattr(m, "discrimination_"), "a fitted model (not fitted: call fit(X) first)"
        )
        check_param("this TwoPL", self, [fitted], quote=False)

    @validate_params({"method": [Check(lambda m: m in ("eap", "map"), "'eap' or 'map'")]})
    def score(
        self, X: np.ndarray, items: np.ndarray | None = None, method: ScoreMethod = "eap"
    ) -> AbilityEstimate:
        """Ability (and its standard error) of respondents ``X`` on the fitted items.

        ``items`` gives the fitted item positions that the columns of ``X`` correspond to (default: all
        fitted items, in order), so a new model evaluated on a subset of items can be scored. ``method``:
        ``"eap"`` (posterior mean and sd, on a grid built around each call's posteriors) or ``"map"``
        (posterior mode, SE ``1 / sqrt(I(theta) + 1)`` from the test information at the mode).
        """
        self._check_fitted()
        idx = np.arange(len(self.discrimination_)) if items is None else np.asarray(items)
        data = _Responses(np.atleast_2d(X), name="new responses")
        check_shape("new responses", data.x.shape, ("n", len(idx)), what="one column per item, shape")
        a, d = self.discrimination_[idx], self.intercept_[idx]
        start = data.map_scores(a, d)
        if method == "map":
            return start
        grid = (
            gauss_hermite_grid(int(self.n_quadrature))
            if self.n_quadrature is not None
            else adaptive_grid(start.theta, start.se, self.points_per_sd)
        )
        _, _, mean, sd, _ = follow_posteriors(
            lambda nodes: data.loglik(a, d, nodes, constant=False), grid, self.points_per_sd, rebuilds=3
        )
        return AbilityEstimate(theta=mean, se=sd)

    def predict_proba(self, theta: np.ndarray, items: np.ndarray | None = None) -> np.ndarray:
        """``P(correct)`` for abilities ``theta`` (n,) on the fitted items: an (n, n_items) matrix."""
        self._check_fitted()
        idx = np.arange(len(self.discrimination_)) if items is None else np.asarray(items)
        theta = np.atleast_1d(np.asarray(theta, dtype=float))
        return expit(np.outer(theta, self.discrimination_[idx]) + self.intercept_[idx])

    def item_information(self, theta: np.ndarray) -> np.ndarray:
        """Fisher information ``a_j^2 P (1 - P)`` of each item at abilities ``theta``: (n, n_items)."""
        p = self.predict_proba(theta)
        return self.discrimination_**2 * p * (1 - p)
