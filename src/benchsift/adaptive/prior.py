r"""A new model's ability prior from what else is known about it: its scores on other benchmarks.

A team that tests a new model adaptively on one benchmark has usually run it on others already. The bank's
reference models have those scores too, so the ability on the bank's benchmark can be predicted from them
before the first item: a linear regression of the reference models' abilities :math:`\theta_r` on their
covariates :math:`x_r` (for instance their means on the other benchmarks),

.. math:: \theta_r = \beta_0 + x_r^\top \beta + \varepsilon_r, \qquad
          \hat\sigma^2 = \frac{1}{R - p - 1}\sum_r (\theta_r - \hat\beta_0 - x_r^\top\hat\beta)^2,

and a new model with covariates :math:`x` starts from the prior :math:`N(\hat\beta_0 + x^\top\hat\beta,\,
(w\hat\sigma)^2)` instead of the bank's population prior (the empirical-Bayes prior of Mislevy 1987,
"Exploiting auxiliary information about examinees in the estimation of item parameters", Applied
Psychological Measurement 11(1); Zwinderman 1991, "A generalized Rasch model for manifest predictors",
Psychometrika 56(4)). The EAP ability under it (:meth:`benchsift.adaptive.ItemBank.score`) drives both the
item choice and the full-score estimate; a model without every covariate keeps the bank's prior. ``width``
:math:`w` scales the residual sd (1 = the fitted one; measured in the README: 1.5 was worse on MMMU and
GSM8K at 1-2 % of the items).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from numbers import Real
from typing import Any

import numpy as np
import pandas as pd

from benchsift._params import Interval, validate_params
from benchsift.adaptive.bank import ItemBank
from benchsift.errors import DegenerateError, InputError
from benchsift.panel import Panel
from benchsift.results import Result

__all__ = ["CovariatePrior", "benchmark_covariates", "fit_covariate_prior"]


@dataclass(frozen=True, repr=False)
class CovariatePrior(Result):
    """Regression of the bank's reference abilities on covariates (module docstring).

    ``features``: covariate names; ``coef``: intercept then one slope per feature; ``sd``: the prior sd
    (residual sd times ``width``); ``n_models``: reference models the regression used; ``r2``: its R^2."""

    features: list[str]
    coef: np.ndarray
    sd: float
    n_models: int
    r2: float
    warnings: list[str] = field(default_factory=list)

    def predict(self, covariates: pd.DataFrame, models: list[str]) -> tuple[np.ndarray, np.ndarray]:
        """``(prior_mean, prior_sd)`` for ``models`` (rows of ``covariates``, indexed by model id, with a
        column per feature); NaN mean (the bank's own prior) where a model lacks a covariate."""
        missing = [f for f in self.features if f not in covariates.columns]
        if missing:
            raise InputError(
                f"covariates: no column {missing[0]!r} (the prior was fitted on {self.features})"
            )
        Z = covariates.reindex(index=list(models))[self.features].to_numpy(dtype=np.float64)
        mean = self.coef[0] + np.nan_to_num(Z) @ self.coef[1:]
        mean = np.where(np.isfinite(Z).all(axis=1), mean, np.nan)
        return mean, np.full(len(models), self.sd)

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
    unknown = [b for b in benchmarks if b not in frame.columns]
    if unknown:
        raise InputError(f"benchmarks: {unknown[0]!r} is not in the panel (it has {list(frame.columns)})")
    return frame[list(benchmarks)]


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
    ok = np.isfinite(Z).all(axis=1) & np.isfinite(th)
    p = Z.shape[1]
    if ok.sum() < p + 3:
        raise DegenerateError(
            f"covariate prior: {int(ok.sum())} of the bank's {len(th)} reference models have every covariate "
            f"({', '.join(feats)}); at least {p + 3} needed"
        )
    A = np.column_stack([np.ones(int(ok.sum())), Z[ok]])
    coef, *_ = np.linalg.lstsq(A, th[ok], rcond=None)
    resid = th[ok] - A @ coef
    sd = float(np.sqrt(resid @ resid / (ok.sum() - p - 1)))
    if not np.isfinite(sd) or sd <= 0:
        raise DegenerateError("covariate prior: the covariates predict the abilities exactly (residual sd 0)")
    tss = float(((th[ok] - th[ok].mean()) ** 2).sum())
    r2 = 1.0 - float(resid @ resid) / tss if tss > 0 else float("nan")
    notes = []
    if ok.sum() < len(th):
        notes.append(f"{len(th) - int(ok.sum())} reference model(s) lack a covariate and were left out")
    return CovariatePrior(feats, np.asarray(coef), sd * float(width), int(ok.sum()), r2, notes)
