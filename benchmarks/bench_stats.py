"""Speed of ``benchsift.stats.corr_with_vector`` against a scipy per-column loop (same process).

The hot path of instance-redundancy resampling: the scores of 169 models on 1000 random instance subsets
(X, 169 x 1000) against the full-benchmark scores (y, 169). For every metric, with and without missing
cells, it times the vectorized call and a loop of scipy (``spearmanr``, ``pearsonr``, ``kendalltau``) or
scikit-learn (``r2_score``) over the columns on the complete pairs, checks that both agree, and prints a
table with the sizes, the machine and the speed-up. Also times ``corr_matrix`` against
``pandas.DataFrame.corr``.

Run: ``.venv/bin/python benchmarks/bench_stats.py [--models 169] [--columns 1000] [--repeats 3]
[--blas-threads 1]``
"""

from __future__ import annotations

import argparse
import os
import platform
import time
from collections.abc import Callable
from functools import partial

import numpy as np
import pandas as pd
import scipy.stats
import sklearn.metrics
from rich.console import Console
from rich.table import Table
from threadpoolctl import threadpool_info, threadpool_limits

from benchsift.stats import corr_matrix, corr_with_vector

BASELINES: dict[str, Callable[[np.ndarray, np.ndarray], float]] = {
    "srcc": lambda a, b: scipy.stats.spearmanr(a, b).statistic,
    "plcc": lambda a, b: scipy.stats.pearsonr(a, b).statistic,
    "kendall": lambda a, b: scipy.stats.kendalltau(a, b).statistic,
    "r2": lambda a, b: sklearn.metrics.r2_score(b, a),  # y is the truth, each column a prediction
}
PANDAS = {"srcc": "spearman", "plcc": "pearson", "kendall": "kendall"}


def best_of(repeats: int, fn: Callable[[], object]) -> tuple[float, object]:
    best, out = np.inf, None
    for _ in range(repeats):
        t0 = time.perf_counter()
        out = fn()
        best = min(best, time.perf_counter() - t0)
    return best, out


def scipy_loop(metric: str, X: np.ndarray, y: np.ndarray) -> np.ndarray:
    out = np.empty(X.shape[1])
    for j in range(X.shape[1]):
        ok = ~(np.isnan(X[:, j]) | np.isnan(y))
        out[j] = BASELINES[metric](X[ok, j], y[ok])
    return out


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


def pandas_corr(method: str, data: np.ndarray) -> np.ndarray:
    return pd.DataFrame(data).corr(method=method).to_numpy()


def add_row(table: Table, metric: str, label: str, timed: tuple[float, object], base: tuple[float, object]):
    (t_fast, fast), (t_slow, slow) = timed, base
    diff = float(np.nanmax(np.abs(np.asarray(fast) - np.asarray(slow))))
    table.add_row(
        metric, label, f"{1e3 * t_fast:.1f}", f"{1e3 * t_slow:.0f}", f"{t_slow / t_fast:.0f}x", f"{diff:.1e}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--models", type=int, default=169)
    parser.add_argument("--columns", type=int, default=1000)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--blas-threads", type=int, default=None, help="limit BLAS threads (default: the library's own)"
    )
    args = parser.parse_args()
    with threadpool_limits(limits=args.blas_threads):
        run(args.models, args.columns, args.repeats, args.seed)


def run(n: int, k: int, repeats: int, seed: int) -> None:
    console = Console()
    X, y = make_data(n, k, seed)
    X_nan = X.copy()
    X_nan[np.random.default_rng(seed + 1).random(X.shape) < 0.05] = np.nan
    blas = [f"{p['internal_api']} x{p['num_threads']}" for p in threadpool_info() if p["user_api"] == "blas"]
    console.print(
        f"machine: {platform.platform()}, {platform.processor() or platform.machine()}, "
        f"{os.cpu_count()} CPUs, BLAS {', '.join(blas) or 'unknown'}; python {platform.python_version()}, "
        f"numpy {np.__version__}, scipy {scipy.__version__}, pandas {pd.__version__}"
    )
    table = Table(title=f"corr_with_vector: X {n} x {k} against y ({n},), best of {repeats}")
    for col in ("metric", "NaN", "benchsift (ms)", "scipy loop (ms)", "speed-up", "max |diff|"):
        table.add_column(col, justify="right")
    for metric in BASELINES:
        for label, data in (("none", X), ("5%", X_nan)):
            timed = best_of(repeats, partial(corr_with_vector, data, y, metric))
            add_row(table, metric, label, timed, best_of(1, partial(scipy_loop, metric, data, y)))
    console.print(table)

    k_mat = min(k, 200)
    mtable = Table(title=f"corr_matrix: X {n} x {k_mat} against pandas DataFrame.corr, best of {repeats}")
    for col in ("metric", "NaN", "benchsift (ms)", "pandas (ms)", "speed-up", "max |diff|"):
        mtable.add_column(col, justify="right")
    for metric, method in PANDAS.items():
        for label, data in (("none", X[:, :k_mat]), ("5%", X_nan[:, :k_mat])):
            timed = best_of(repeats, partial(corr_matrix, data, metric))
            add_row(mtable, metric, label, timed, best_of(1, partial(pandas_corr, method, data)))
    console.print(mtable)


if __name__ == "__main__":
    main()
