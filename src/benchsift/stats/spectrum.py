"""Spectral energy of a score matrix (PRIMEBench Sec. 4.4 / Fig. 2, App. F.4 and Table 19).

The energy of component ``j`` is its squared singular value :math:`\\sigma_j^2` (the squared Frobenius
norm of its rank-1 term), so the fractions :math:`\\sigma_j^2 / \\sum_l \\sigma_l^2` sum to 1. The paper
takes the spectrum of the *z-normalised* model-by-category (or model-by-benchmark) matrix: the caller
normalises (``benchsift.stats.zscore(X, axis=0)``, which also centres each column) and these functions
do not centre by default; ``center=True`` subtracts each column's mean first (plain PCA energies).
``X`` must be complete (no NaN): impute or drop rows first.
"""

from __future__ import annotations

from numbers import Real
from typing import Literal

import numpy as np
from numpy.typing import ArrayLike, NDArray

from benchsift._params import Interval, Options, validate_params
from benchsift.errors import DegenerateError, InputError
from benchsift.stats._checks import COUNT, as_float_array

__all__ = ["components_for_energy", "participation_ratio", "spectral_energy", "top_k_energy"]

#: Slack when comparing a cumulative energy with the requested level (floating-point sums).
_LEVEL_TOL = 1e-12


def _singular_values(X: ArrayLike, center: bool) -> NDArray[np.float64]:
    A = as_float_array(X, "X", ndim=2)
    if A.size == 0:
        raise InputError(f"X: expected a non-empty (n, k) matrix, got shape {A.shape}")
    if np.isnan(A).any():
        bad = np.argwhere(np.isnan(A))[0]
        raise InputError(
            f"X: the spectrum needs a complete matrix, found NaN (first at row {bad[0]}, column {bad[1]}); "
            "impute or drop missing cells first"
        )
    if center:
        A = A - A.mean(axis=0)
    return np.asarray(np.linalg.svd(A, compute_uv=False), dtype=np.float64)


def _fractions(sv: NDArray[np.float64]) -> NDArray[np.float64]:
    energy = sv**2
    total = energy.sum()
    if not total > 0.0:
        return np.full(sv.shape, np.nan)
    return energy / total


def spectral_energy(X: ArrayLike, center: bool = False) -> NDArray[np.float64]:
    r"""Fraction of energy per component, :math:`\sigma_j^2 / \sum_l \sigma_l^2`, largest first.

    Shape ``(min(n, k),)``, sums to 1. All NaN for an all-zero matrix (no energy to share).
    """
    return _fractions(_singular_values(X, center))


@validate_params({"level": [Interval(Real, 0, 1, closed="right")]})
def components_for_energy(X: ArrayLike, level: float = 0.95, center: bool = False) -> int:
    r"""Smallest :math:`K` whose top-:math:`K` cumulative energy reaches ``level`` (PRIMEBench Table 19).

    Raises :class:`~benchsift.errors.DegenerateError` for an all-zero matrix (no energy to reach).
    """
    frac = spectral_energy(X, center)
    if np.isnan(frac).any():
        raise DegenerateError("X: the matrix has zero energy (all entries equal to zero after centring)")
    cum = np.cumsum(frac)
    return int(np.searchsorted(cum, level - _LEVEL_TOL, side="left")) + 1


@validate_params({"values": [Options(["singular", "eigen"])]})
def participation_ratio(
    X: ArrayLike, center: bool = False, values: Literal["singular", "eigen"] = "singular"
) -> float:
    r"""Participation-ratio effective rank :math:`(\sum_j \lambda_j)^2 / \sum_j \lambda_j^2`.

    ``values="singular"`` (default) takes :math:`\lambda_j = \sigma_j`, the singular values, as PRIMEBench
    App. F.4 defines it ("over the singular values"); ``values="eigen"`` takes :math:`\lambda_j =
    \sigma_j^2` (the eigenvalues of :math:`X^\top X`, the usual PCA participation ratio, smaller). Between
    1 (rank one) and ``min(n, k)`` (flat spectrum). NaN for an all-zero matrix.
    """
    sv = _singular_values(X, center)
    lam = sv if values == "singular" else sv**2
    denom = float((lam**2).sum())
    if not denom > 0.0:
        return float("nan")
    return float(lam.sum() ** 2 / denom)


@validate_params({"k": [COUNT]})
def top_k_energy(X: ArrayLike, k: int = 5, center: bool = False) -> float:
    r"""Energy fraction of the top ``k`` components, :math:`\sum_{j \le k} \sigma_j^2 / \sum_l \sigma_l^2`.

    ``k`` larger than the number of components gives 1. NaN for an all-zero matrix.
    """
    frac = spectral_energy(X, center)
    return float(frac[: int(k)].sum()) if not np.isnan(frac).any() else float("nan")
