"""Left-out benchmark prediction against the number of training models (PRIMEBench I.3, Table 22, Fig. 4a).

For each target benchmark ``t``, a ridge regressor (:class:`sklearn.linear_model.Ridge`, ``alpha`` = 1)
predicts a model's score on ``t`` from its scores on the other benchmarks. Only models scored on ``t`` take
part. For each training size ``M`` (1, 2, 4, ..., 128, while at least one model is left to test), ``n_splits``
(30) random splits put ``M`` models in training and the rest in test; a missing feature score is replaced by
its mean over the training models (a feature no training model has is dropped for that split), and the
table reports the mean absolute error on the test models, averaged over splits:

.. math:: \\mathrm{MAE}(t, M) = \\frac{1}{30} \\sum_{s=1}^{30} \\frac{1}{|T_s|} \\sum_{m \\in T_s}
          |\\hat y_{m,t} - y_{m,t}|

The predictors are full benchmark scores (cross-benchmark redundancy, not the compressed suite).
"""

from __future__ import annotations

import math
import zlib
from collections.abc import Sequence
from dataclasses import dataclass
from numbers import Integral, Real
from typing import Any

import numpy as np
import pandas as pd
from sklearn.linear_model import Ridge

from benchsift._inputs import check_distinct, check_known
from benchsift._params import Check, Interval, validate_params
from benchsift.compression.diagnostics._aggregate import matrix_input
from benchsift.errors import InputError, require_at_least
from benchsift.panel import Panel
from benchsift.results import Result
from benchsift.stats import check_random_state
from benchsift.stats.means import nan_mean

__all__ = ["DEFAULT_SIZES", "LeftoutResult", "leftout_prediction"]

DEFAULT_SIZES: tuple[int, ...] = (1, 2, 4, 8, 16, 32, 64, 128)


@dataclass(frozen=True, repr=False)
class LeftoutResult(Result):
    """``mae`` is ``(n_targets, n_sizes, n_splits)`` (NaN where the size was not tested)."""

    targets: list[str]
    n_models: list[int]
    sizes: list[int]
    mae: np.ndarray
    alpha: float

    def to_frame(self) -> pd.DataFrame:
        """PRIMEBench Table 22: target, models, mean MAE per training size ``M``."""
        frame = pd.DataFrame({"target": self.targets, "models": self.n_models})
        mean = nan_mean(self.mae, axis=-1)
        for j, m in enumerate(self.sizes):
            frame[f"M={m}"] = mean[:, j]
        return frame

    def to_dict(self) -> dict[str, Any]:
        mean = nan_mean(self.mae, axis=-1)
        return {
            "targets": self.targets,
            "models": self.n_models,
            "sizes": self.sizes,
            "alpha": self.alpha,
            "mae": {t: mean[i].tolist() for i, t in enumerate(self.targets)},
        }

    def table(self) -> pd.DataFrame:
        """The same as :meth:`to_frame` (the name the CLI and older code use)."""
        return self.to_frame()


def _split_mae(X: np.ndarray, y: np.ndarray, train: np.ndarray, test: np.ndarray, alpha: float) -> float:
    Xtr, Xte = X[train], X[test]
    obs = ~np.isnan(Xtr)
    n = obs.sum(axis=0)
    use = n > 0
    if not use.any():  # no feature: predict the training mean
        return float(np.abs(y[test] - y[train].mean()).mean())
    mean = np.where(use, np.where(obs, Xtr, 0.0).sum(axis=0) / np.maximum(n, 1), 0.0)
    Xtr = np.where(np.isnan(Xtr), mean, Xtr)[:, use]
    Xte = np.where(np.isnan(Xte), mean, Xte)[:, use]
    model = Ridge(alpha=alpha).fit(Xtr, y[train])
    return float(np.abs(model.predict(Xte) - y[test]).mean())


@validate_params(
    {
        "n_splits": [Interval(Integral, 1, None)],
        "alpha": [Interval(Real, 0, math.inf, closed="left", desc="a ridge penalty >= 0")],
        "sizes": [Check(lambda s: len(s) > 0 and min(int(m) for m in s) >= 1, "positive training sizes")],
    }
)
def leftout_prediction(
    data: Panel | np.ndarray,
    *,
    targets: Sequence[str] | None = None,
    benchmarks: Sequence[str] | None = None,
    sizes: Sequence[int] = DEFAULT_SIZES,
    n_splits: int = 30,
    alpha: float = 1.0,
    random_state: int | np.random.Generator | None = 0,
) -> LeftoutResult:
    """Ridge prediction of each target benchmark from the others by training size (PRIMEBench I.3).

    ``data`` is a panel (benchmark means of its image-condition models) or a ``(models x benchmarks)``
    matrix named by ``benchmarks``. ``targets`` defaults to every benchmark.
    """
    X, names, _ = matrix_input(data, benchmarks)
    require_at_least(X.shape[1], 2, "left-out prediction: benchmarks", "one target, one predictor")
    tg = (
        list(names) if targets is None else check_known("targets", map(str, targets), names, what="benchmark")
    )
    check_distinct("`targets`", tg, what="benchmark")  # "--targets MMMU,MMMU" printed it twice
    sz = sorted({int(m) for m in sizes})
    most = int(np.max((~np.isnan(X[:, [names.index(t) for t in tg]])).sum(axis=0), initial=0))
    if sz and sz[0] >= most:  # no size leaves a model to predict: a table of nothing (a size too large
        # beside others is a column of NaN, shown as '-')
        raise InputError(
            f"`sizes`: {sz} leave no model to predict: the targets have at most {most} models with a score, "
            f"so a training size must be below {most}"
        )
    # one random stream per target, keyed by its name: a target's splits do not depend on which other
    # targets were asked for (issue 12)
    base = int(check_random_state(random_state).integers(2**63))
    mae = np.full((len(tg), len(sz), int(n_splits)), np.nan)
    n_models = []
    for i, t in enumerate(tg):
        j = names.index(t)
        rows = np.flatnonzero(~np.isnan(X[:, j]))
        n_models.append(int(rows.size))
        feats = np.delete(X[rows], j, axis=1)
        y = X[rows, j]
        rng = np.random.default_rng([base, zlib.crc32(t.encode("utf-8"))])
        for a, m in enumerate(sz):
            if m >= rows.size:
                continue
            perms = np.argsort(rng.random((int(n_splits), rows.size)), axis=1)
            for s in range(int(n_splits)):
                mae[i, a, s] = _split_mae(feats, y, perms[s, :m], perms[s, m:], float(alpha))
    return LeftoutResult(targets=tg, n_models=n_models, sizes=sz, mae=mae, alpha=float(alpha))
