"""Speed of ``benchsift.stats.correlation.corr_with_vector`` and ``corr_matrix`` against the strongest
simple baselines.

The hot path of instance-redundancy resampling: the scores of 169 models on 1000 random instance subsets
(X, 169 x 1000) against the full-benchmark scores (y, 169), with no missing cell and with 5 % missing.
For every metric it times benchsift and, in the same run and the same way (``_timing.timed_pair``: the
two sides alternate, ``--repeats`` calls each, min and median shown):

* ``numpy``: the vectorised version a competent user writes (``scipy.stats.rankdata(axis=0)`` then
  centred column dot products; with NaN, ranks with ``nan_policy="omit"`` over each column's complete
  rows and ``nansum`` moments; R² as ``1 - SS_res / SS_tot``); for Kendall, tau-b from the sign arrays
  of every model pair ``i < j`` (``sign(X[i] - X[j])``, ``(pairs, columns)`` in blocks of 256 columns):
  ``sum s_x s_y / sqrt(sum |s_x| sum |s_y|)`` over the pairs complete on both sides (checked against
  ``scipy.stats.kendalltau`` on tied data with and without NaN to 1e-12 before the timings);
* ``pandas``: ``DataFrame(X).corrwith(Series(y), method=...)`` (pairwise-complete);
* strawman, ``scipy loop`` (labelled as such): ``spearmanr`` / ``pearsonr`` / ``kendalltau`` /
  ``sklearn.metrics.r2_score`` per column on the complete pairs (the old baseline, kept as a reference
  point, not the comparison to quote).

Then ``corr_matrix`` (X 169 x 200) against ``pandas.DataFrame.corr``, without NaN ``np.corrcoef`` (of the
ranks for Spearman), and for Kendall the same sign arrays as one product ``S.T @ S`` (with NaN, the
missing signs zeroed and the tau-b denominators from products with the pairs' presence). Every baseline
is asserted to give benchsift's numbers to ``TOL``. A ratio below 1 means benchsift is slower, and the
table says so.

benchsift runs ``corr_matrix`` and Kendall's ``corr_with_vector`` under one BLAS thread itself
(``benchsift/_threads.py``); the baselines use the library's default pool. ``--blas-threads 1`` puts the
whole run, baselines included, under one thread: the same-thread comparison of the kernels.

Run: ``.venv/bin/python benchmarks/bench_stats.py [--models 169] [--columns 1000] [--repeats 5]
[--blas-threads 1] [--json FILE]``
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Callable
from functools import partial

import numpy as np
import pandas as pd
import scipy
import scipy.stats
import sklearn.metrics
from _timing import Timing, load_average, machine_line, ratio_cell, timed_pair
from rich.console import Console
from rich.table import Table
from threadpoolctl import threadpool_info, threadpool_limits

from benchsift.stats import corr_matrix
from benchsift.stats.correlation import corr_with_vector

TOL = 1e-10
METRICS = ("srcc", "plcc", "kendall", "r2")
PANDAS = {"srcc": "spearman", "plcc": "pearson", "kendall": "kendall"}
SCIPY: dict[str, Callable[[np.ndarray, np.ndarray], float]] = {
    "srcc": lambda a, b: scipy.stats.spearmanr(a, b).statistic,
    "plcc": lambda a, b: scipy.stats.pearsonr(a, b).statistic,
    "kendall": lambda a, b: scipy.stats.kendalltau(a, b).statistic,
    "r2": lambda a, b: sklearn.metrics.r2_score(b, a),  # y is the truth, each column a prediction
}


def scipy_loop(metric: str, X: np.ndarray, y: np.ndarray) -> np.ndarray:
    out = np.empty(X.shape[1])
    for j in range(X.shape[1]):
        ok = ~(np.isnan(X[:, j]) | np.isnan(y))
        out[j] = SCIPY[metric](X[ok, j], y[ok])
    return out


def _centred_corr(A: np.ndarray, B: np.ndarray) -> np.ndarray:
    """Pearson r of the columns of A and B (NaN-aware: moments over each column's present cells)."""
    A = A - np.nanmean(A, axis=0)
    B = B - np.nanmean(B, axis=0)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.nansum(A * B, axis=0) / np.sqrt(np.nansum(A * A, axis=0) * np.nansum(B * B, axis=0))


def numpy_vectorised(metric: str, X: np.ndarray, y: np.ndarray) -> np.ndarray:
    """The short vectorised version: rank (for Spearman), then centred column dot products."""
    if not np.isnan(X).any():  # the plain form: y broadcast once
        if metric == "r2":
            return 1.0 - ((X - y[:, None]) ** 2).sum(axis=0) / ((y - y.mean()) ** 2).sum()
        if metric == "srcc":
            X, y = scipy.stats.rankdata(X, axis=0), scipy.stats.rankdata(y)
        Xc, yc = X - X.mean(axis=0), y - y.mean()
        with np.errstate(invalid="ignore", divide="ignore"):
            return (yc @ Xc) / np.sqrt((Xc * Xc).sum(axis=0) * (yc @ yc))
    Y = np.where(np.isnan(X), np.nan, y[:, None])  # y on each column's complete rows
    if metric == "r2":
        ss_res = np.nansum((X - Y) ** 2, axis=0)
        return 1.0 - ss_res / np.nansum((Y - np.nanmean(Y, axis=0)) ** 2, axis=0)
    if metric == "srcc":
        X = scipy.stats.rankdata(X, axis=0, nan_policy="omit")
        Y = scipy.stats.rankdata(Y, axis=0, nan_policy="omit")
    return _centred_corr(X, Y)


def _signs(X: np.ndarray, cols: slice = slice(None)) -> tuple[np.ndarray, np.ndarray]:
    """The ``(pairs, columns)`` signs ``sign(X[i] - X[j])`` of every row pair ``i < j``, missing ones 0,
    and the pairs' presence (1 where both cells are there)."""
    ia, ib = np.triu_indices(X.shape[0], 1)
    S = np.sign(X[ia, cols] - X[ib, cols])
    present = ~np.isnan(S)
    return np.where(present, S, 0.0), present.astype(np.float64)


def kendall_vectorised(X: np.ndarray, y: np.ndarray, block: int = 256) -> np.ndarray:
    """Kendall tau-b of each column of X with y: ``sum s_x s_y / sqrt(sum |s_x| sum |s_y|)`` over the row
    pairs complete on both sides, from the sign arrays (columns in blocks to bound memory)."""
    sy, py = (a[:, 0] for a in _signs(y[:, None]))
    out = np.empty(X.shape[1])
    for c in range(0, X.shape[1], block):
        Sx, px = _signs(X, slice(c, c + block))
        Sx *= py[:, None]  # only the pairs y has too
        with np.errstate(invalid="ignore", divide="ignore"):
            out[c : c + block] = (sy @ Sx) / np.sqrt(np.abs(Sx).sum(axis=0) * (np.abs(sy) @ px))
    return out


def kendall_matrix(X: np.ndarray) -> np.ndarray:
    """Kendall tau-b of every pair of columns (pairwise-complete) from one product of the sign arrays."""
    S, present = _signs(X)
    A = np.abs(S)
    with np.errstate(invalid="ignore", divide="ignore"):
        return (S.T @ S) / np.sqrt((A.T @ present) * (present.T @ A))


def check_kendall(seed: int) -> float:
    """The vectorised Kendall against ``scipy.stats.kendalltau`` per column, on tied data (40 models x 30
    columns, with and without 10 % NaN in X and in y): the largest difference, asserted <= 1e-12."""
    X, y = make_data(40, 30, seed)
    rng = np.random.default_rng(seed + 2)
    Xn, yn = X.copy(), y.copy()
    Xn[rng.random(X.shape) < 0.1] = np.nan
    yn[rng.random(y.shape) < 0.1] = np.nan
    worst = 0.0
    for a, b in ((X, y), (Xn, y), (Xn, yn)):
        ref = scipy_loop("kendall", a, b)
        got = kendall_vectorised(a, b, block=7)
        assert np.array_equal(np.isnan(ref), np.isnan(got)), "vectorised Kendall: NaN in other places"
        worst = max(worst, float(np.nanmax(np.abs(ref - got))))
    ref = pd.DataFrame(Xn).corr(method="kendall").to_numpy()
    worst = max(worst, float(np.nanmax(np.abs(ref - kendall_matrix(Xn)))))
    assert worst <= 1e-12, f"vectorised Kendall differs from scipy by {worst:.2e}"
    return worst


def pandas_corrwith(metric: str, X: np.ndarray, y: np.ndarray) -> np.ndarray:
    return pd.DataFrame(X).corrwith(pd.Series(y), method=PANDAS[metric]).to_numpy()


def pandas_corr(metric: str, X: np.ndarray) -> np.ndarray:
    return pd.DataFrame(X).corr(method=PANDAS[metric]).to_numpy()


def numpy_corrcoef(metric: str, X: np.ndarray) -> np.ndarray:
    return np.corrcoef(scipy.stats.rankdata(X, axis=0) if metric == "srcc" else X, rowvar=False)


def make_data(n: int, k: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """Accuracies of n models on k random 10% instance subsets of a 500-item benchmark."""
    rng = np.random.default_rng(seed)
    ability = rng.normal(size=n)
    difficulty = rng.normal(size=500)
    correct = (rng.random((n, 500)) < 1 / (1 + np.exp(-(ability[:, None] - difficulty)))).astype(float)
    y = correct.mean(axis=1)
    subsets = np.argsort(rng.random((k, 500)), axis=1)[:, :50]  # k subsets of 50 items
    X = correct[:, subsets].mean(axis=2)  # (n, k), many ties
    return X, y


def max_diff(a: np.ndarray, b: np.ndarray, what: str) -> float:
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    if not np.array_equal(np.isnan(a), np.isnan(b)):
        raise AssertionError(f"{what}: NaN in different places")
    d = float(np.nanmax(np.abs(a - b))) if np.isfinite(a).any() else 0.0
    assert d <= TOL, f"{what}: benchsift and the baseline differ by {d:.2e} (> {TOL:g})"
    return d


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--models", type=int, default=169)
    parser.add_argument("--columns", type=int, default=1000)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--blas-threads", type=int, default=None, help="limit BLAS threads (default: the library's own)"
    )
    parser.add_argument("--json", default=None, help="also write the rows (all repeat times) to this file")
    args = parser.parse_args()
    with threadpool_limits(limits=args.blas_threads):
        run(args.models, args.columns, args.repeats, args.seed, args.json)


def run(n: int, k: int, repeats: int, seed: int, json_path: str | None) -> None:
    console = Console(width=140)
    X, y = make_data(n, k, seed)
    X_nan = X.copy()
    X_nan[np.random.default_rng(seed + 1).random(X.shape) < 0.05] = np.nan
    blas = [f"{p['internal_api']} x{p['num_threads']}" for p in threadpool_info() if p["user_api"] == "blas"]
    console.print(machine_line())
    console.print(f"BLAS {', '.join(blas) or 'unknown'}; scipy {scipy.__version__}, pandas {pd.__version__}")
    console.print(
        f"vectorised Kendall tau-b (sign arrays) = scipy.stats.kendalltau / pandas on tied data with NaN: "
        f"max |diff| {check_kendall(seed):.1e}"
    )
    records: list[dict[str, object]] = []

    def row(table: Table, workload: str, base: str, ours: Timing, other: Timing, diff: float) -> None:
        slower = other.median < ours.median
        table.add_row(
            *workload.split(" | "),
            base,
            ours.cell("ms"),
            other.cell("ms"),
            ratio_cell(ours, other),
            "[bold red]benchsift SLOWER[/]" if slower else "",
            f"{diff:.1e}",
        )
        records.append({"workload": workload, "baseline": base, "ours": ours.seconds, "base": other.seconds})

    def columns(table: Table) -> None:
        for col in ("metric", "NaN", "baseline", "benchsift ms", "baseline ms", "speed-up", "", "max |diff|"):
            table.add_column(col, justify="right")

    table = Table(
        title=f"corr_with_vector: X {n} x {k} against y ({n},); min / median of {repeats} alternated calls"
    )
    columns(table)
    for metric in METRICS:
        for label, data in (("none", X), ("5%", X_nan)):
            ours_fn = partial(corr_with_vector, data, y, metric)
            bases: list[tuple[str, Callable[[], np.ndarray]]] = []
            if metric != "kendall":
                bases.append(("numpy", partial(numpy_vectorised, metric, data, y)))
            else:
                bases.append(("numpy sign arrays", partial(kendall_vectorised, data, y)))
            if metric in PANDAS:
                bases.append(("pandas corrwith", partial(pandas_corrwith, metric, data, y)))
            bases.append(("strawman: scipy loop", partial(scipy_loop, metric, data, y)))
            for name, fn in bases:
                ours, other = timed_pair(ours_fn, fn, repeats)
                diff = max_diff(ours.result, other.result, f"{metric} {label} {name}")
                row(table, f"{metric} | {label}", name, ours, other, diff)
    console.print(table)

    k_mat = min(k, 200)
    mtable = Table(title=f"corr_matrix: X {n} x {k_mat}; min / median of {repeats} alternated calls")
    columns(mtable)
    for metric in PANDAS:
        for label, data in (("none", X[:, :k_mat]), ("5%", X_nan[:, :k_mat])):
            ours_fn = partial(corr_matrix, data, metric)
            bases = [("pandas DataFrame.corr", partial(pandas_corr, metric, data))]
            if label == "none" and metric != "kendall":
                bases.append(("np.corrcoef", partial(numpy_corrcoef, metric, data)))
            if metric == "kendall":
                bases.append(("numpy sign arrays S.T @ S", partial(kendall_matrix, data)))
            for name, fn in bases:
                ours, other = timed_pair(ours_fn, fn, repeats)
                diff = max_diff(ours.result, other.result, f"matrix {metric} {label} {name}")
                row(mtable, f"{metric} | {label}", name, ours, other, diff)
    console.print(mtable)
    console.print(
        f"all baselines agree with benchsift to {TOL:g}; speed-up = baseline / benchsift as "
        f"min-ratio / median-ratio (< 1: benchsift is slower); strawman rows are reference points, the "
        f"vectorised and pandas rows the comparison; load average after: {load_average()}"
    )
    if json_path:
        with open(json_path, "w") as fh:
            json.dump({"script": "bench_stats", "rows": records}, fh)


if __name__ == "__main__":
    main()
