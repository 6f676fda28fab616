r"""Cross-benchmark full-score estimates: per-benchmark abilities, and a new model's known full scores.

Two pieces used by :mod:`benchsift.compression.full_score` on a suite of several benchmarks:

* **``xbench`` estimator** (per-benchmark abilities as features). The suite's 2PL is one ability for every
  benchmark, so p-IRT estimates benchmark ``g`` from an ability its other benchmarks pull about as much as
  its own items. ``xbench`` adds to p-IRT a ridge regression of its residual on a few summaries of the
  model's suite answers, one pair per benchmark ``b``: the EAP ability :math:`\hat\theta_b` from the suite
  items of ``b`` alone (the suite's 2PL item parameters) and the mean over those items (a missing one
  replaced by its 2PL probability at the overall ability),

  .. math:: \hat Z^{xbench}_g = \hat Z^{p\text{-}IRT}_g + \hat c_g + (f - \bar f)^\top \hat\beta_g, \qquad
            f = \big((\hat\theta_b - \bar\theta_b)/s_{\theta_b},\ (\bar y_{S_b} - \bar m_b)/s_{m_b}\big)_b

  with :math:`\hat\beta_g` the ridge solution (Hastie, Tibshirani & Friedman 2009, Eq. 3.41) and the penalty
  chosen per group from ``XBENCH_PENALTIES`` by the same cross-validated error as ``ridge``'s. It is the
  low-dimensional counterpart of ``ridge`` (which regresses on every suite response): ``2 B`` features
  instead of ``|S|``, so it can be fitted on a few dozen build models. The method choice of
  :func:`~benchsift.compression.full_score.fit_full_score` takes it only where its out-of-fold error (random
  folds plus the strongest fold) is the lowest.

* **Known full scores** (:func:`adjust_known`). A new model often has its full score on some benchmarks of
  the suite already (published, or run in full). For a benchmark ``g`` it lacks, the estimate becomes the
  least-squares line (small ridge penalty, chosen by leave-one-out) of the reference models' full score on
  ``g`` on their out-of-fold estimate of ``g`` and their full scores on the known benchmarks ``K``:

  .. math:: \tilde Z_g = \alpha + \gamma\, \hat Z_g + \sum_{k \in K} \delta_k Z_k ,

  fitted on the reference models that have every one of those scores. Its interval is split-conformal on the
  leave-one-out residuals of that fit (the out-of-fold estimates are already out of fold; the line is
  refitted without each model, by the hat-matrix identity :math:`e_{(i)} = e_i / (1 - h_{ii})`, Hastie et
  al. 2009, Eq. 7.52): the half-width ``hw_K`` replaces the estimate's own ``hw``, scaled by ``hw_K / hw`` so
  that the widening for extrapolation or missing items is kept. The adjustment is used only where its
  leave-one-out mean absolute error is below that of the estimate alone (else the estimate is kept and a
  note says so). A known benchmark's own estimate is the known score (a zero-width interval); ``overall``
  is the mean over the benchmarks with the same leave-one-out interval.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from pathlib import Path

import numpy as np

from benchsift.errors import InputError
from benchsift.irt import TwoPL
from benchsift.stats.conformal import conformal_quantile
from benchsift.stats.means import nan_mean

__all__ = ["XBENCH_PENALTIES", "adjust_known", "bench_features", "known_scores", "ridge_fit_predict"]

#: Ridge penalties tried for ``xbench`` (on standardised features; the last is p-IRT plus a constant).
XBENCH_PENALTIES = (0.3, 1.0, 3.0, 10.0, 30.0, 100.0, 1e6)
#: Penalties tried for the known-score line (leave-one-out chooses; 0 is ordinary least squares).
_KNOWN_PENALTIES = (0.0, 0.1, 1.0, 10.0)


def bench_features(
    X_suite: np.ndarray, theta: np.ndarray, a: np.ndarray, d: np.ndarray, bench_cols: list[np.ndarray]
) -> np.ndarray:
    """``(n, 2 B)``: per benchmark the EAP ability from its suite items alone and its suite mean (a missing
    response replaced by its 2PL probability at the overall ability ``theta``); a model with no answer on a
    benchmark's suite items gets the overall ability there."""
    X = np.asarray(X_suite, dtype=np.float64)
    n = X.shape[0]
    th0 = np.nan_to_num(np.asarray(theta, dtype=np.float64))
    out = np.empty((n, 2 * len(bench_cols)))
    p = 1.0 / (1.0 + np.exp(-(np.outer(th0, a) + d[None, :])))
    filled = np.where(np.isnan(X), p, X)
    for b, cols in enumerate(bench_cols):
        if cols.size == 0:
            out[:, 2 * b] = th0
            out[:, 2 * b + 1] = 0.0
            continue
        Xb = X[:, cols]
        seen = ~np.isnan(Xb).all(axis=1)
        th_b = th0.copy()
        if seen.any():
            est = TwoPL.from_parameters(a[cols], d[cols]).score(Xb[seen]).theta
            th_b[seen] = np.where(np.isfinite(est), est, th0[seen])
        out[:, 2 * b] = th_b
        out[:, 2 * b + 1] = filled[:, cols].mean(axis=1)
    return out


def ridge_fit_predict(
    F_tr: np.ndarray, T_tr: np.ndarray, F_te: np.ndarray, penalties: tuple[float, ...] = XBENCH_PENALTIES
) -> tuple[list[np.ndarray], dict[str, np.ndarray]]:
    """Ridge regressions of every column of ``T_tr`` on the columns of ``F_tr`` standardised over the rows
    where that target is finite (a model without the benchmark's full score does not count; intercept
    unpenalised), one per penalty, by one SVD per target (Hastie et al. 2009, Eq. 3.47). Returns the
    corrections of ``F_te`` per penalty (``(n_te, n_targets)`` each; 0 for a target with fewer than three
    finite rows) and the fitted state: ``mean``, ``scale`` (n_targets, n_features), ``intercept``
    (n_targets,), ``coef`` (n_penalties, n_targets, n_features)."""
    T = np.asarray(T_tr, dtype=np.float64)
    nt, nf = T.shape[1], F_tr.shape[1]
    mean, scale = np.zeros((nt, nf)), np.ones((nt, nf))
    icpt = np.zeros(nt)
    coef = np.zeros((len(penalties), nt, nf))
    for t in range(nt):
        ok = np.isfinite(T[:, t])
        if ok.sum() < 3:
            continue
        F = F_tr[ok]
        mu, sd = F.mean(axis=0), F.std(axis=0)
        sd = np.where(sd > 1e-9, sd, 1.0)
        U, S, Vt = np.linalg.svd((F - mu) / sd, full_matrices=False)
        y = T[ok, t]
        uy = U.T @ (y - y.mean())
        for p_, lam in enumerate(penalties):
            coef[p_, t] = Vt.T @ (S / (S**2 + lam) * uy)
        mean[t], scale[t], icpt[t] = mu, sd, y.mean()
    Zte = (F_te[:, None, :] - mean[None, :, :]) / scale[None, :, :]  # (n_te, n_targets, n_features)
    preds = [icpt[None, :] + np.einsum("ntf,tf->nt", Zte, c) for c in coef]
    return preds, {"mean": mean, "scale": scale, "intercept": icpt, "coef": coef}


def _loo_line(Z: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray, float]:
    """Ridge line ``y ~ 1 + Z`` (standardised ``Z``, intercept unpenalised) with the penalty of
    ``_KNOWN_PENALTIES`` of least leave-one-out absolute error: ``(coefficients on [1, Z] in Z's units,
    leave-one-out residuals, penalty)``."""
    n = Z.shape[0]
    mu, sd = Z.mean(axis=0), Z.std(axis=0)
    sd = np.where(sd > 1e-12, sd, 1.0)
    Zs = (Z - mu) / sd
    best: tuple[float, np.ndarray, np.ndarray, float] | None = None
    for lam in _KNOWN_PENALTIES:
        G = Zs.T @ Zs + lam * np.eye(Zs.shape[1])
        try:
            Ginv = np.linalg.inv(G)
        except np.linalg.LinAlgError:
            continue
        beta = Ginv @ Zs.T @ (y - y.mean())
        h = 1.0 / n + np.einsum("ij,jk,ik->i", Zs, Ginv, Zs)
        if np.any(h >= 1 - 1e-9):
            continue
        loo = (y - y.mean() - Zs @ beta) / (1.0 - h)
        err = float(np.mean(np.abs(loo)))
        if best is None or err < best[0]:
            best = (err, beta, loo, lam)
    if best is None:
        return np.r_[y.mean(), np.zeros(Z.shape[1])], y - y.mean(), math.inf
    _, beta, loo, lam = best
    b = beta / sd
    return np.r_[y.mean() - mu @ b, b], loo, lam


def adjust_known(
    groups: list[str],
    n_benchmarks: int,
    reference_full: np.ndarray,
    reference_oof: np.ndarray,
    level: float,
    score: np.ndarray,
    low: np.ndarray,
    high: np.ndarray,
    known: Mapping[str, np.ndarray],
) -> tuple[np.ndarray, np.ndarray, np.ndarray, list[str]]:
    """The headline estimates of new models with their known full scores used (module docstring).

    ``reference_full`` and ``reference_oof``: ``(n_ref, n_groups + 1)`` full scores and out-of-fold estimates
    of the reference models (last column overall); ``score``, ``low``, ``high``: ``(n_new, n_groups + 1)``
    estimates and interval ends; ``known``: benchmark name -> ``(n_new,)`` known full scores (NaN: not known
    for that model). Returns the adjusted ``score``, ``low``, ``high`` and notes."""
    nb = n_benchmarks
    bench = list(groups[:nb])
    for name in known:
        if name not in bench:
            raise InputError(
                f"known score for {name!r}: not a benchmark of the suite (its benchmarks: {bench})"
            )
    score, low, high = score.copy(), low.copy(), high.copy()
    n_new = score.shape[0]
    K = np.full((n_new, nb), np.nan)
    for name, v in known.items():
        vals = np.asarray(v, dtype=np.float64).reshape(-1)
        if vals.shape[0] != n_new:
            raise InputError(f"known score for {name!r}: {vals.shape[0]} values, expected {n_new}")
        bad = np.isfinite(vals) & ((vals < 0) | (vals > 1))
        if bad.any():
            raise InputError(f"known score for {name!r}: expected a share in [0, 1], got {vals[bad][0]!r}")
        K[:, bench.index(name)] = vals
    notes: list[str] = []
    mask = np.isfinite(K)
    patterns, inverse = np.unique(mask, axis=0, return_inverse=True)
    Yf, Yo = reference_full, reference_oof
    for p, kn in enumerate(patterns):
        if not kn.any():
            continue
        rows = np.flatnonzero(inverse.ravel() == p)
        kidx = np.flatnonzero(kn)
        names = ", ".join(bench[k] for k in kidx)
        loo_bench = np.full((Yf.shape[0], nb), np.nan)  # reference leave-one-out estimates (for overall)
        for g in range(nb):
            if kn[g]:
                score[rows, g] = low[rows, g] = high[rows, g] = K[rows, g]
                loo_bench[:, g] = Yf[:, g]
                continue
            ok = np.isfinite(Yf[:, g]) & np.isfinite(Yo[:, g]) & np.isfinite(Yf[:, kidx]).all(axis=1)
            if ok.sum() < len(kidx) + 5:
                notes.append(
                    f"known scores ({names}): too few reference models with them to adjust {bench[g]!r}"
                )
                loo_bench[:, g] = Yo[:, g]
                continue
            Z = np.column_stack([Yo[ok, g], Yf[ok][:, kidx]])
            coef, loo, _ = _loo_line(Z, Yf[ok, g])
            base_res = Yf[ok, g] - Yo[ok, g]
            if float(np.mean(np.abs(loo))) >= float(np.mean(np.abs(base_res))):
                notes.append(
                    f"known scores ({names}) do not improve the reference models' out-of-fold error on "
                    f"{bench[g]!r} (leave-one-out): its estimate is kept"
                )
                loo_bench[:, g] = Yo[:, g]
                continue
            loo_bench[ok, g] = Yf[ok, g] - loo
            loo_bench[~ok, g] = Yo[~ok, g]
            hw_k = conformal_quantile(np.abs(loo), level)
            hw_0 = conformal_quantile(np.abs(base_res), level)
            s_old = score[rows, g]
            z_new = np.column_stack([s_old, K[np.ix_(rows, kidx)]])
            s_new = np.clip(coef[0] + z_new @ coef[1:], 0.0, 1.0)
            ratio = hw_k / hw_0 if hw_0 > 0 and np.isfinite(hw_0) else 1.0
            low[rows, g] = np.clip(s_new - (s_old - low[rows, g]) * ratio, 0.0, 1.0)
            high[rows, g] = np.clip(s_new + (high[rows, g] - s_old) * ratio, 0.0, 1.0)
            score[rows, g] = s_new
            lo_r, hi_r = np.nanmin(Yf[ok][:, kidx], axis=0), np.nanmax(Yf[ok][:, kidx], axis=0)
            kr = K[np.ix_(rows, kidx)]
            if ((kr < lo_r) | (kr > hi_r)).any():
                notes.append(
                    f"a known score ({names}) lies outside the reference models' range: the adjustment of "
                    f"{bench[g]!r} extrapolates a line"
                )
        # overall: the mean over the benchmarks, its interval from the reference models' leave-one-out errors
        ov_ref = nan_mean(loo_bench, axis=1)
        hw_ov = conformal_quantile(np.abs(ov_ref - Yf[:, -1]), level)
        hw_ov0 = conformal_quantile(np.abs(Yo[:, -1] - Yf[:, -1]), level)
        ratio = hw_ov / hw_ov0 if hw_ov0 > 0 and np.isfinite(hw_ov0) else 1.0
        s_old = score[rows, -1]
        s_new = nan_mean(score[rows, :nb], axis=1)
        low[rows, -1] = np.clip(s_new - (s_old - low[rows, -1]) * ratio, 0.0, 1.0)
        high[rows, -1] = np.clip(s_new + (high[rows, -1] - s_old) * ratio, 0.0, 1.0)
        score[rows, -1] = s_new
    return score, low, high, list(dict.fromkeys(notes))


#: Largest ``known`` CSV file read (a table of model, benchmark, score rows is far smaller).
MAX_KNOWN_BYTES = 16 << 20


def known_scores(spec: object, models: list[str]) -> dict[str, np.ndarray]:
    """The new models' known full scores as benchmark -> ``(n_models,)`` (NaN: not known for that model).

    ``spec``: ``None``; a mapping benchmark -> score (every model); a mapping model -> {benchmark: score}; a
    DataFrame with columns ``model``, ``benchmark``, ``score``; or a string / path: ``"NAME=0.61,NAME2=0.7"``
    (every model) or a CSV file with those three columns. Scores are shares in [0, 1]."""
    import pandas as pd

    if spec is None:
        return {}
    where = "known scores"
    if isinstance(spec, str | Path) and not Path(spec).is_file():
        text = str(spec)
        if "=" not in text:
            raise InputError(f"--known {text!r}: expected a CSV file or NAME=SCORE[,NAME=SCORE...]")
        pairs: dict[str, float] = {}
        for part in text.split(","):
            name, _, val = part.partition("=")
            try:
                pairs[name.strip()] = float(val)
            except ValueError:
                raise InputError(f"--known {part!r}: expected NAME=SCORE with a number") from None
        spec = pairs
    if isinstance(spec, str | Path):
        path = Path(spec).resolve()
        where = str(spec)
        if path.stat().st_size > MAX_KNOWN_BYTES:
            raise InputError(f"{where}: larger than {MAX_KNOWN_BYTES >> 20} MiB; expected a small CSV")
        try:
            spec = pd.read_csv(path, dtype={"model": str, "benchmark": str})
        except (ValueError, pd.errors.ParserError, UnicodeDecodeError) as exc:
            raise InputError(f"{where}: not a readable CSV ({exc})") from None
    out: dict[str, np.ndarray] = {}
    if isinstance(spec, pd.DataFrame):
        missing = [c for c in ("model", "benchmark", "score") if c not in spec.columns]
        if missing:
            raise InputError(f"{where}: missing column(s) {missing}; expected model, benchmark, score")
        index = {m: j for j, m in enumerate(models)}
        for row, (m, b, v) in enumerate(spec[["model", "benchmark", "score"]].itertuples(index=False)):
            try:
                score = float(v)
            except (TypeError, ValueError):
                raise InputError(
                    f"{where}: row {row + 1}, column score: expected a number, got {v!r}"
                ) from None
            if str(m) not in index:
                raise InputError(f"{where}: row {row + 1}: model {m!r} is not among the new models")
            out.setdefault(str(b), np.full(len(models), np.nan))[index[str(m)]] = score
    elif isinstance(spec, Mapping):
        for key, val in spec.items():
            if isinstance(val, Mapping):  # model -> {benchmark: score}
                if key not in models:
                    raise InputError(f"{where}: model {key!r} is not among the new models")
                for b, v in val.items():
                    out.setdefault(str(b), np.full(len(models), np.nan))[models.index(key)] = float(v)
            else:
                out[str(key)] = np.full(len(models), float(val))
    else:
        raise InputError(f"{where}: expected a mapping, a DataFrame or a file, got {type(spec).__name__}")
    for b, v in out.items():
        bad = np.isfinite(v) & ((v < 0) | (v > 1))
        if bad.any():
            raise InputError(f"{where}: {b!r}: expected a share in [0, 1], got {float(v[bad][0])!r}")
    return out
