r"""A new model's ability prior from what else is known about it: its scores on other benchmarks.

A team that tests a new model adaptively on one benchmark has usually run it on others already. The bank's
reference models have those scores too, so the ability on the bank's benchmark can be predicted from them
before the first item: a linear regression of the reference models' abilities :math:`\theta_r` on their
covariates :math:`x_r` (for instance their means on the other benchmarks),

.. math:: \theta_r = \beta_0 + x_r^\top \beta + \varepsilon_r, \qquad
          \hat\sigma^2 = \frac{1}{R - p - 1}\sum_r (\theta_r - \hat\beta_0 - x_r^\top\hat\beta)^2,

and a new model with covariates :math:`x` starts from the prior :math:`N(\hat\beta_0 + x^\top\hat\beta,\, w^2
\hat\sigma^2 (1 + h(x)))`, :math:`h(x) = \tilde x^\top (A^\top A)^{-1} \tilde x` (:math:`\tilde x = (1, x)`,
:math:`A` the reference models' rows :math:`\tilde x_r`), the variance of a new observation's prediction error
(the prediction interval of a new observation, e.g. Weisberg 2014, *Applied Linear Regression*, 4th ed.: the
residual variance plus the fitted coefficients' uncertainty at :math:`x`, which grows as :math:`x` leaves the
reference models' range), instead of the bank's population prior (the empirical-Bayes prior of Mislevy 1987,
"Exploiting auxiliary information about examinees in the estimation of item parameters", Applied
Psychological Measurement 11(1); Zwinderman 1991, "A generalized Rasch model for manifest predictors",
Psychometrika 56(4)). The EAP ability under it (:meth:`benchsift.adaptive.bank.ItemBank.score`) drives
the full-score estimate, and the item choice only with ``prior_in_choice``
(:func:`benchsift.adaptive.next_items`). A model with only some of the covariates gets the same
regression on those it has (fitted on the reference models that have them; on MMMU a fifth of the models
have no MMT run); one with none keeps the bank's prior. ``width``
:math:`w` scales the residual sd (1 = the fitted one; measured in docs/ADAPTIVE.md: 1.5 was worse on MMMU and
GSM8K at 1-2 % of the items). Without the :math:`h(x)` term (the prior's sd the residual sd alone, the
default before) the prior was too sure of itself: on MATH-L5 (24 reference models, GSM8K and CRUXEval as
covariates) a held-out model's ability was off its prior mean by 1.64 residual sds (root mean square, median
of 10 splits), 1.30 prediction sds (docs/ADAPTIVE.md).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from numbers import Real
from typing import Any

import numpy as np
import pandas as pd

from benchsift._inputs import check_known
from benchsift._params import Interval, validate_params
from benchsift._schema import Col, check_frame
from benchsift.adaptive.bank import ItemBank
from benchsift.errors import DegenerateError, InputError
from benchsift.panel import Panel
from benchsift.results import Result

__all__ = ["CovariatePrior", "benchmark_covariates", "fit_covariate_prior", "other_benchmarks"]


@dataclass(frozen=True, repr=False)
class CovariatePrior(Result):
    """Regression of the bank's reference abilities on covariates (module docstring).

    ``features``: covariate names; ``coef``: intercept then one slope per feature; ``sd``: the residual sd
    times ``width`` (a model's prior sd is this times ``sqrt(1 + h(x))``, :meth:`predict`); ``n_models``:
    reference models the regression used; ``r2``: its R^2; ``reference_covariates`` / ``reference_theta``: the
    reference models' covariates (NaN = missing) and abilities, for the regressions on fewer covariates
    (:meth:`predict`); ``width``: the sd's factor."""

    features: list[str]
    coef: np.ndarray
    sd: float
    n_models: int
    r2: float
    warnings: list[str] = field(default_factory=list)
    reference_covariates: np.ndarray = field(default_factory=lambda: np.empty((0, 0)))
    reference_theta: np.ndarray = field(default_factory=lambda: np.empty(0))
    width: float = 1.0

    def predict(self, covariates: pd.DataFrame, models: list[str]) -> tuple[np.ndarray, np.ndarray]:
        """``(prior_mean, prior_sd)`` for ``models`` (rows of ``covariates``, indexed by model id, with a
        column per feature). A model with every covariate gets the fitted regression; one with some, the
        regression on those (refitted on the reference models that have them; NaN when fewer than
        ``k + 3`` do); one with none, NaN (the bank's own prior). The sd is the prediction's (module
        docstring): :attr:`sd` times ``sqrt(1 + h(x))``."""
        check_frame(
            covariates, {f: Col(empty=True) for f in self.features}, where="covariates (the prior's features)"
        )
        Z = covariates.reindex(index=list(models))[self.features].to_numpy(dtype=np.float64)
        have = np.isfinite(Z)
        mean = np.full(len(models), np.nan)
        sd = np.full(len(models), np.nan)
        for pattern in sorted({tuple(h) for h in have if h.any()}):
            cols = np.flatnonzero(pattern)
            rows = (have == np.asarray(pattern)).all(axis=1)
            fit = _ols(self.reference_covariates[:, cols], self.reference_theta)
            if fit is not None:
                coef, resid_sd, _, _, inv = fit
                A = np.column_stack([np.ones(int(rows.sum())), Z[np.ix_(rows, cols)]])
                lever = np.einsum("ij,jk,ik->i", A, inv, A)  # h(x) of the module docstring
                mean[rows] = A @ coef
                sd[rows] = resid_sd * self.width * np.sqrt(1.0 + lever)
        return mean, sd

    def to_dict(self) -> dict[str, Any]:
        """``{"features", "coef", "sd", "n_models", "r2", "warnings"}``."""
        return {
            "features": list(self.features),
            "coef": [float(c) for c in self.coef],
            "sd": float(self.sd),
            "n_models": int(self.n_models),
            "r2": float(self.r2),
            "warnings": list(self.warnings),
        }

    def to_frame(self) -> pd.DataFrame:
        """One row per term (``intercept`` and each feature): its coefficient."""
        return pd.DataFrame({"coef": self.coef}, index=["intercept", *self.features])


def benchmark_covariates(panel: Panel, benchmarks: list[str] | None = None) -> pd.DataFrame:
    """The image-condition models' benchmark means of ``panel`` (models x benchmarks, NaN = not run), the
    covariates of :func:`fit_covariate_prior`; ``benchmarks`` picks columns (default: all)."""
    image = panel.image_panel()
    gs = image.benchmark_means()
    frame = pd.DataFrame(gs.means, index=list(image.model_ids), columns=[str(n) for n in gs.groups])
    if benchmarks is None:
        return frame
    check_known("benchmarks", benchmarks, list(frame.columns), what="benchmark")
    return frame[list(benchmarks)]


def other_benchmarks(panel: Panel, exclude: list[str], benchmarks: list[str] | None = None) -> pd.DataFrame:
    """:func:`benchmark_covariates` of ``panel`` for a covariate prior: the named ``benchmarks``, or by
    default every benchmark of ``panel`` not in ``exclude`` (the bank's own: a model's score there would be
    the answer, not a prior). Refused when none is left."""
    if benchmarks is None:
        own = {str(b) for b in exclude}
        found = [str(b) for b in panel.benchmarks]
        benchmarks = [b for b in found if b not in own]
        if not benchmarks:
            raise InputError(
                f"prior panel: its benchmarks ({', '.join(found)}) are all the bank's own; a prior needs the "
                "models' scores on other benchmarks"
            )
    return benchmark_covariates(panel, benchmarks)


@validate_params({"width": [Interval(Real, 0, None, closed="neither", desc="a positive number")]})
def fit_covariate_prior(bank: ItemBank, covariates: pd.DataFrame, *, width: float = 1.0) -> CovariatePrior:
    """Fit the module docstring's regression on the bank's reference models that have every covariate
    (``covariates``: indexed by model id, one numeric column per feature). Needs at least
    ``n_features + 3`` such models and a residual sd above 0."""
    if covariates.shape[1] == 0:
        raise InputError("covariates: no columns")
    feats = [str(c) for c in covariates.columns]
    Z = covariates.reindex(index=list(bank.reference_models)).to_numpy(dtype=np.float64)
    th = np.asarray(bank.reference_theta, dtype=np.float64)
    p = Z.shape[1]
    fit = _ols(Z, th)
    if fit is None:
        n_ok = int((np.isfinite(Z).all(axis=1) & np.isfinite(th)).sum())
        raise DegenerateError(
            f"covariate prior: {n_ok} of the bank's {len(th)} reference models have every covariate "
            f"({', '.join(feats)}); at least {p + 3} needed"
        )
    coef, sd, r2, n_ok, _ = fit
    if not np.isfinite(sd) or sd <= 0:
        raise DegenerateError("covariate prior: the covariates predict the abilities exactly (residual sd 0)")
    notes = []
    if n_ok < len(th):
        notes.append(
            f"{len(th) - n_ok} reference model(s) lack a covariate and were left out of the full regression"
        )
    keep = np.isfinite(th)
    return CovariatePrior(feats, coef, sd * float(width), n_ok, r2, notes, Z[keep], th[keep], float(width))


def _ols(Z: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, float, float, int, np.ndarray] | None:
    """OLS of ``y`` on ``Z`` (with an intercept) over the rows where both are finite: ``(coef, residual sd
    with n - p - 1 degrees of freedom, R^2, n, (A^T A)^+)`` (``A``: the rows with a leading 1; the
    pseudo-inverse, for the leverage of a new row); ``None`` with fewer than ``p + 3`` rows."""
    ok = np.isfinite(Z).all(axis=1) & np.isfinite(y)
    n, p = int(ok.sum()), Z.shape[1]
    if n < p + 3:
        return None
    A = np.column_stack([np.ones(n), Z[ok]])
    coef, *_ = np.linalg.lstsq(A, y[ok], rcond=None)
    resid = y[ok] - A @ coef
    tss = float(((y[ok] - y[ok].mean()) ** 2).sum())
    r2 = 1.0 - float(resid @ resid) / tss if tss > 0 else float("nan")
    return np.asarray(coef), float(np.sqrt(resid @ resid / (n - p - 1))), r2, n, np.linalg.pinv(A.T @ A)
