r"""Signal-to-noise of a benchmark and the minimum detectable difference between two models.

**Signal-to-noise.** Model :math:`m` scored :math:`n_m` items of the benchmark with mean
:math:`\bar x_m`. Treating the items as a sample from the population of possible questions, the item-sampling
variance of :math:`\bar x_m` is :math:`v_m = s_m^2 / n_m` with :math:`s_m^2 = \frac{1}{n_m}\sum_i (x_{mi} -
\bar x_m)^2` (for 0/1 scores the binomial :math:`\bar x_m (1 - \bar x_m) / n_m`, the standard error of
Miller 2024). The benchmark's

.. math:: \mathrm{SNR} = \frac{S^2}{\bar v}, \qquad S^2 = \frac{1}{M-1}\sum_m (\bar x_m - \bar{\bar x})^2,
          \quad \bar v = \frac{1}{M}\sum_m v_m,

compares the spread of the models' scores (signal) with the noise each score carries from the choice of
items (Heineman et al. 2025 define the signal-to-noise ratio of a benchmark the same way, with their noise
from training checkpoints). The companion reliability :math:`\max(0, 1 - \bar v / S^2)` is the share of the
score variance that reflects true differences between the models (classical test theory: Lord & Novick 1968,
Ch. 3). An SNR near 1 means the ranking of the models is mostly noise.

**Minimum detectable difference (paired).** Two models :math:`a, b` answered the same :math:`n_{ab}` items;
the per-item differences :math:`d_i = x_{ai} - x_{bi}` have sample variance :math:`s_{d,ab}^2` (ddof 1).
A two-sided paired z-test at level :math:`\alpha` detects a true mean difference :math:`\delta` with
probability ``power`` when

.. math:: \delta \ge \mathrm{MDD}_{ab} = (z_{1-\alpha/2} + z_{\mathrm{power}}) \sqrt{s_{d,ab}^2 / n_{ab}}

(Miller 2024: paired differences and power analysis; Chow, Shao & Wang 2008,
Sec. 3.1 for the paired-design sample size formula). The benchmark's MDD is the median of
:math:`\mathrm{MDD}_{ab}` over all pairs of its models: two models closer than that are told apart less
often than ``power``.

References
----------
Chow, S.-C., Shao, J. & Wang, H. (2008). *Sample Size Calculations in Clinical Research*, 2nd ed. Chapman &
Hall/CRC.
Heineman, D. et al. (2025). Signal and Noise: A Framework for Reducing Uncertainty in Language Model
Evaluation.
Lord, F. M. & Novick, M. R. (1968). *Statistical Theories of Mental Test Scores*. Addison-Wesley.
Miller, E. (2024). Adding Error Bars to Evals: A Statistical Approach to Language Model Evaluations.
arXiv:2411.00640.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from benchsift.stats import minimum_detectable_difference
from benchsift.stats.paired import paired_moments

__all__ = ["BenchmarkNoise", "benchmark_noise", "paired_mdd"]


@dataclass(frozen=True)
class BenchmarkNoise:
    """Signal-to-noise quantities of one benchmark (module docstring); NaN where undefined."""

    n_models: int  #: models with at least two scored items
    signal_variance: float  #: :math:`S^2`
    noise_variance: float  #: :math:`\bar v`
    snr: float
    reliability: float
    mean_se: float  #: mean of the models' standard errors :math:`\sqrt{v_m}`
    mdd: float  #: median paired minimum detectable difference over model pairs
    mdd_pairs: int  #: pairs it is the median of


def paired_mdd(X: np.ndarray, alpha: float = 0.05, power: float = 0.8) -> np.ndarray:
    """``(M, M)`` matrix of paired minimum detectable differences :math:`\\mathrm{MDD}_{ab}` (module
    docstring) of the rows of ``X`` (models x items, NaN missing); NaN on the diagonal and for pairs with
    fewer than two common items. The pairs' moments and the formula are :mod:`benchsift.stats.paired`'s
    (:func:`~benchsift.stats.paired.paired_moments`, :func:`~benchsift.stats.minimum_detectable_difference`),
    shared with ``benchsift compare``."""
    n, _, var = paired_moments(np.asarray(X, dtype=np.float64))
    with np.errstate(invalid="ignore", divide="ignore"):
        se = np.sqrt(var / n)
    out = np.where(n >= 2, minimum_detectable_difference(se, alpha, power), np.nan)
    np.fill_diagonal(out, np.nan)
    return out


def benchmark_noise(X: np.ndarray, alpha: float = 0.05, power: float = 0.8) -> BenchmarkNoise:
    """Signal-to-noise, reliability and paired MDD of one benchmark's scores ``X`` (models x items)."""
    X = np.asarray(X, dtype=np.float64)
    obs = ~np.isnan(X)
    n = obs.sum(axis=1)
    keep = n >= 2
    Xk, nk = X[keep], n[keep].astype(np.float64)
    m = int(keep.sum())
    if m < 2:
        nan = float("nan")
        return BenchmarkNoise(m, nan, nan, nan, nan, nan, nan, 0)
    ok = ~np.isnan(Xk)
    mean = np.where(ok, Xk, 0.0).sum(axis=1) / nk
    s2 = np.where(ok, (Xk - mean[:, None]) ** 2, 0.0).sum(axis=1) / nk
    v = s2 / nk
    signal = float(np.var(mean, ddof=1))
    noise = float(v.mean())
    snr = signal / noise if noise > 0 else float("nan")
    reliability = max(0.0, 1.0 - noise / signal) if signal > 0 else float("nan")
    mdd = paired_mdd(Xk, alpha=alpha, power=power)
    upper = mdd[np.triu_indices(m, k=1)]
    upper = upper[np.isfinite(upper)]
    return BenchmarkNoise(
        n_models=m,
        signal_variance=signal,
        noise_variance=noise,
        snr=float(snr),
        reliability=float(reliability),
        mean_se=float(np.sqrt(v).mean()),
        mdd=float(np.median(upper)) if upper.size else float("nan"),
        mdd_pairs=int(upper.size),
    )
