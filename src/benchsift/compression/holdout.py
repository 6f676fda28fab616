"""``compress --holdout``: build the suite on some models, and say how its estimate did on the others.

The image-condition models are split into build and held-out models (a seeded random fraction, or the models
named); the suite is compressed from the build models only, and each held-out model is estimated from its
scores on the suite's items alone (:func:`benchsift.compression.estimate.estimate_new_models`). Its truth is
its full score: the mean over benchmarks of its mean over each benchmark's items (NaN-aware), the quantity
the full-score estimators target. Reported: the mean absolute error of the chosen estimate, the share of
held-out models whose interval covers the truth, the mean interval width, how many were flagged as
extrapolating, the held-out rank fidelity (Spearman rho between the estimates and the full scores of the
held-out models; redundancy paper App. A, Eq. 1, via :func:`benchsift.stats.spearman`), and for comparison
the mean absolute error and the rank fidelity of the plain mean over a random item subset of the suite's
size (seeded), what a user would get by running that many random items instead.

Edge models. Per model, ``at_edge`` says whether its ability on the suite reached the strongest build models'
(:mod:`benchsift.compression.extrapolation`: its estimate is then the edge estimator's, chosen on the folds
that hold out the strongest build models, and its interval's upper end is widened), and ``estimator`` which
estimator gave its headline (``"METHOD+stratified"``: the mean of that one's and the stratified mean of its
own suite answers, for an edge model above every build model on the latter). The MAE and coverage are
also reported for the edge and the other models
apart (``edge`` and ``not_edge`` in holdout.json): on a random hold-out the edge models are the strong half
of an ordinary split, on a hold-out of the strongest models (``--holdout-models``) they are a stronger
release, and the two numbers say whether the widening paid.
"""

from __future__ import annotations

import warnings as _warnings
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from benchsift._jsonutil import to_jsonable
from benchsift.errors import EstimateWarning, InputError, listed
from benchsift.panel import Panel
from benchsift.results import Result
from benchsift.stats import check_random_state, spearman
from benchsift.stats.means import nan_mean, random_subset_means

__all__ = ["HoldoutResult", "evaluate_holdout", "split_models"]


def split_models(
    panel: Panel, holdout: float | list[str] | tuple[str, ...], seed: int
) -> tuple[np.ndarray, np.ndarray]:
    """``(build mask, held-out mask)`` over ``panel``'s model rows (all conditions of a held-out model go)."""
    image = panel.image_panel()
    names = list(dict.fromkeys(image.model_ids))
    if isinstance(holdout, float | int) and not isinstance(holdout, bool):
        frac = float(holdout)
        if not 0.0 < frac < 1.0:
            raise InputError(f"`holdout`: expected a fraction in (0, 1), got {holdout!r}")
        n_held = int(round(frac * len(names)))
        if n_held < 1 or len(names) - n_held < 3:
            raise InputError(
                f"`holdout` {frac}: {n_held} held-out and {len(names) - n_held} build models of "
                f"{len(names)}; "
                "at least 1 and 3 are needed"
            )
        rng = check_random_state(seed)
        held_names = {names[j] for j in rng.permutation(len(names))[:n_held]}
    elif isinstance(holdout, list | tuple):
        held_names = {str(m) for m in holdout}
        unknown = sorted(held_names - set(names))
        if unknown:
            raise InputError(f"holdout models not in the panel: {listed(unknown)}")
        if not held_names or len(names) - len(held_names) < 3:
            raise InputError("holdout models: name at least one, and leave at least 3 build models")
    else:
        raise InputError(f"`holdout`: expected a fraction or a list of model names, got {holdout!r}")
    held = np.array([str(m) in held_names for m in panel.models["model"]], dtype=bool)
    return ~held, held


def read_model_list(spec: str) -> list[str]:
    """A file with one model per line (blank lines skipped), or a comma-separated list."""
    path = Path(spec)
    if path.is_file():
        return [ln.strip() for ln in path.read_text().splitlines() if ln.strip()]
    return [m.strip() for m in spec.split(",") if m.strip()]


@dataclass(frozen=True, repr=False)
class HoldoutResult(Result):
    """How the suite's estimate did on models it was not built on (see the module docstring)."""

    n_build: int
    n_held: int
    n_items: int
    method: str
    level: float
    mae: float
    coverage: float
    mean_width: float
    n_extrapolating: int
    random_subset_mae: float
    per_model: pd.DataFrame
    seed: int
    warnings: list[str] = field(default_factory=list)
    #: Spearman rho of the estimates with the held-out models' full scores (NaN with fewer than 2 models).
    rank_rho: float = float("nan")
    #: The same for the plain mean over the random subset of the suite's size.
    random_subset_rho: float = float("nan")
    #: ``{"edge": {...}, "not_edge": {...}}``: ``n``, ``mae``, ``coverage``, ``mean_width`` and the random
    #: subset's ``random_subset_mae`` over the held-out models at the edge and the others (NaN when none).
    by_edge: dict[str, dict[str, float]] = field(default_factory=dict)

    def summary_line(self) -> str:
        """The check in one line: the estimate's MAE and coverage on the held-out models against a random
        subset of the same size."""
        return (
            f"held-out check ({self.n_held} models, suite built on {self.n_build}, {self.n_items} items): "
            f"estimate MAE {self.mae:.4f}, {self.level:.0%} interval covers {self.coverage:.0%} (mean width "
            f"{self.mean_width:.3f}, {self.n_extrapolating} extrapolating); a random subset of "
            f"{self.n_items} items: MAE {self.random_subset_mae:.4f}{self._edge_text()} (holdout.json)"
        )

    def _edge_text(self) -> str:
        e = self.by_edge.get("edge")
        if not e or not e["n"]:
            return ""
        return (
            f"; {int(e['n'])} at the edge of the build models: MAE {e['mae']:.4f}, "
            f"covered {e['coverage']:.0%} (random subset {e['random_subset_mae']:.4f})"
        )

    def to_frame(self) -> pd.DataFrame:
        return self.per_model

    def to_dict(self) -> dict[str, Any]:
        return to_jsonable(
            {
                "n_build": self.n_build,
                "n_held": self.n_held,
                "n_items": self.n_items,
                "method": self.method,
                "level": self.level,
                "mae": self.mae,
                "coverage": self.coverage,
                "mean_width": self.mean_width,
                "n_extrapolating": self.n_extrapolating,
                "rank_rho": self.rank_rho,
                "random_subset": {
                    "n_items": self.n_items,
                    "mae": self.random_subset_mae,
                    "rank_rho": self.random_subset_rho,
                    "seed": self.seed,
                },
                **self.by_edge,
                "models": self.per_model.to_dict(orient="records"),
            }
        )


def evaluate_holdout(suite: Any, held: Panel, seed: int) -> HoldoutResult:
    """Estimate ``held`` (the held-out models) from the suite's items and score the estimate."""
    from benchsift.compression.estimate import estimate_new_models

    image = held.image_panel()
    truth = nan_mean(image.benchmark_means().means, axis=1)
    with _warnings.catch_warnings():
        _warnings.simplefilter("ignore", EstimateWarning)  # counted below and in the result's warnings
        est = estimate_new_models(suite, image, n_boot=200, random_state=seed)
    if est.full is None:
        raise InputError("holdout: the suite has no full-score estimators to check")
    f = est.full
    by_name = dict(zip(image.model_ids, truth, strict=True))
    t = np.array([by_name[m] for m in f.models])
    m = f.method
    s, lo, hi = f.score[m][:, -1], f.low[m][:, -1], f.high[m][:, -1]
    ok = np.isfinite(s) & np.isfinite(t)
    rng = check_random_state(seed)
    n = int(suite.n_items)
    # a random subset of the suite's size, an equal share per benchmark, each model's mean of its benchmark
    # means over it (the truth's definition; until 2026-12-07 a draw from the pool as a whole and its plain
    # mean, which weighed a suite's benchmarks by their size)
    plain = random_subset_means(image.scores, image.benchmark_positions(), min(n, image.n_items), rng)
    ext = f.extrapolating if f.extrapolating is not None else np.zeros(len(f.models), dtype=bool)
    edge = f.at_edge if f.at_edge is not None else np.zeros(len(f.models), dtype=bool)
    below = f.below_edge if f.below_edge is not None else np.zeros(len(f.models), dtype=bool)
    per = pd.DataFrame(
        {
            "model": f.models,
            "truth": t,
            "estimate": s,
            "low": lo,
            "high": hi,
            "covered": (lo <= t) & (t <= hi),
            "extrapolating": ext,
            "at_edge": edge,
            "below_edge": below,
            "estimator": f.estimator if f.estimator is not None else [m] * len(f.models),
            "suite_mean": f.suite_mean[:, -1],
            "random_subset_mean": [float(plain[image.model_ids.index(mm)]) for mm in f.models],
        }
    )
    per_rand = per["random_subset_mean"].to_numpy(dtype=float)
    by_edge = {
        name: _part_metrics(s, lo, hi, t, per_rand, ok & (edge == want))
        for name, want in (("edge", True), ("not_edge", False))
    }
    return HoldoutResult(
        n_build=int(f.n_reference),
        n_held=len(f.models),
        n_items=n,
        method=m,
        level=float(f.level),
        mae=float(np.mean(np.abs(s[ok] - t[ok]))) if ok.any() else float("nan"),
        coverage=float(np.mean(per["covered"].to_numpy()[ok])) if ok.any() else float("nan"),
        mean_width=float(np.mean((hi - lo)[ok])) if ok.any() else float("nan"),
        n_extrapolating=int(ext.sum()),
        random_subset_mae=float(np.nanmean(np.abs(plain - truth))),
        per_model=per,
        seed=int(seed),
        warnings=list(f.warnings),
        rank_rho=spearman(s, t) if ok.sum() >= 2 else float("nan"),
        random_subset_rho=spearman(per["random_subset_mean"].to_numpy(dtype=float), t)
        if ok.sum() >= 2
        else float("nan"),
        by_edge=by_edge,
    )


def _part_metrics(
    s: np.ndarray, lo: np.ndarray, hi: np.ndarray, t: np.ndarray, rand: np.ndarray, rows: np.ndarray
) -> dict[str, float]:
    """``n``, MAE, coverage, mean width and the random subset's MAE over ``rows`` (NaN where none)."""
    if not rows.any():
        nan = float("nan")
        return {"n": 0, "mae": nan, "coverage": nan, "mean_width": nan, "random_subset_mae": nan}
    return {
        "n": int(rows.sum()),
        "mae": float(np.mean(np.abs(s[rows] - t[rows]))),
        "coverage": float(np.mean((lo[rows] <= t[rows]) & (t[rows] <= hi[rows]))),
        "mean_width": float(np.mean(hi[rows] - lo[rows])),
        "random_subset_mae": float(nan_mean(np.abs(rand[rows] - t[rows]))),
    }
