"""Speed of instance redundancy (redundancy paper Eq. 3): vectorized vs a plain per-repeat loop.

Data: a simulated 0/1 benchmark of 169 models x 3,088 items (a 2PL model with seed 0; the size of the
issue's target), or a wide CSV given with ``--data`` (first column item id, one column per model).
Workload: T = 100 repeats at 10 sampling ratios, SRCC / PLCC / R^2 / Kendall tau-b.

* vectorized: :func:`benchsift.redundancy.instance_redundancy` (all repeats of a ratio as one product of a
  random 0/1 selection matrix with the score matrix, column-wise metrics);
* loop: per repeat ``rng.choice`` without replacement, the sampled mean scores, then
  ``scipy.stats.spearmanr`` / ``pearsonr`` / ``kendalltau`` and ``sklearn.metrics.r2_score``.

Both run in this process on the same data; the table shows the best of ``--rounds`` runs of each and the
largest difference between the two methods' mean curves (they use different random draws, so the
difference is Monte-Carlo noise; its scale is the standard error sd / sqrt(T) shown next to it).

Run: ``.venv/bin/python benchmarks/bench_redundancy_instances.py [--threads 2] [--rounds 3]``.
"""

from __future__ import annotations

import argparse
import os
import platform
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import TypeVar

import numpy as np
import pandas as pd
import scipy
import scipy.stats as ss
from rich.console import Console
from rich.table import Table
from sklearn.metrics import r2_score

from benchsift import Panel
from benchsift.redundancy import instance_redundancy, sample_sizes

T = TypeVar("T")

RATIOS = (0.01, 0.02, 0.05, 0.1, 0.2, 0.3, 0.4, 0.5, 0.7, 0.9)
REPEATS = 100
METRIC_SETS: dict[str, tuple[str, ...]] = {
    "srcc": ("srcc",),
    "plcc": ("plcc",),
    "r2": ("r2",),
    "kendall": ("kendall",),
    "srcc+plcc+r2": ("srcc", "plcc", "r2"),
    "all four": ("srcc", "plcc", "r2", "kendall"),
}


def simulated_scores(n_models: int = 169, n_items: int = 3088, seed: int = 0) -> np.ndarray:
    """0/1 responses from a 2PL model: P = sigmoid(a (theta - b)), theta ~ N(0, 1), b ~ N(0, 1.2)."""
    rng = np.random.default_rng(seed)
    theta = rng.normal(size=n_models)
    b = rng.normal(scale=1.2, size=n_items)
    a = rng.lognormal(0.2, 0.3, size=n_items)
    p = 1.0 / (1.0 + np.exp(-a * (theta[:, None] - b[None, :])))
    return (rng.random(p.shape) < p).astype(np.float64)


def load_wide_csv(path: Path) -> np.ndarray:
    df = pd.read_csv(path)
    return df.iloc[:, 1:].to_numpy(dtype=np.float64).T


def loop_baseline(scores: np.ndarray, metrics: tuple[str, ...], seed: int) -> dict[str, np.ndarray]:
    """Plain per-repeat loop: rng.choice + sampled means + scipy / scikit-learn per repeat."""
    rng = np.random.default_rng(seed)
    n_items = scores.shape[1]
    full = scores.mean(axis=1)
    funcs: dict[str, Callable[[np.ndarray], float]] = {
        "srcc": lambda s: ss.spearmanr(s, full).statistic,
        "plcc": lambda s: ss.pearsonr(s, full).statistic,
        "kendall": lambda s: ss.kendalltau(s, full).statistic,
        "r2": lambda s: r2_score(full, s),
    }
    out = {m: np.empty(len(RATIOS)) for m in metrics}
    for r, k in enumerate(sample_sizes(n_items, np.array(RATIOS))):
        vals: dict[str, list[float]] = {m: [] for m in metrics}
        for _ in range(REPEATS):
            idx = rng.choice(n_items, size=int(k), replace=False)
            s = scores[:, idx].mean(axis=1)
            for m in metrics:
                vals[m].append(float(funcs[m](s)))
        for m in metrics:
            out[m][r] = np.nanmean(vals[m])
    return out


def best_time(fn: Callable[[], T], rounds: int) -> tuple[float, T]:
    """Best wall time of ``rounds`` calls (at least one) and the last result."""
    best = float("inf")
    for _ in range(max(1, rounds)):
        t0 = time.perf_counter()
        result = fn()
        best = min(best, time.perf_counter() - t0)
    return best, result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=None, help="wide CSV (item id column, then models)")
    parser.add_argument("--threads", type=int, default=None, help="limit BLAS / OpenMP threads")
    parser.add_argument("--rounds", type=int, default=3, help="runs of the vectorized method (best kept)")
    parser.add_argument("--loop-rounds", type=int, default=1, help="runs of the loop baseline (best kept)")
    args = parser.parse_args()
    if args.threads is not None:
        from threadpoolctl import threadpool_limits

        threadpool_limits(args.threads)
    scores = load_wide_csv(args.data) if args.data else simulated_scores()
    n_models, n_items = scores.shape
    panel = Panel.from_matrix(scores, [f"m{i}" for i in range(n_models)], [f"i{j}" for j in range(n_items)])
    console = Console()
    console.print(
        f"machine: {platform.machine()} {platform.processor() or ''}, {os.cpu_count()} logical CPUs, "
        f"threads limit {args.threads or 'none'}; python {platform.python_version()}, "
        f"numpy {np.__version__}, scipy {scipy.__version__}"
    )
    console.print(
        f"data: {'simulated 2PL 0/1' if args.data is None else args.data} {n_models} models x "
        f"{n_items} items; T = {REPEATS}, {len(RATIOS)} ratios {list(RATIOS)}"
    )
    table = Table(title="instance redundancy: vectorized vs per-repeat loop (seconds, best of runs)")
    for col in ("metrics", "vectorized (s)", "loop (s)", "speed-up", "max |Δ mean|", "MC s.e."):
        table.add_column(col, justify="right")
    for label, metrics in METRIC_SETS.items():
        vec = partial(
            instance_redundancy, panel, ratios=RATIOS, repeats=REPEATS, metrics=metrics, random_state=0
        )
        t_vec, res = best_time(vec, args.rounds)
        t_loop, loop = best_time(partial(loop_baseline, scores, metrics, seed=1), args.loop_rounds)
        diffs = [np.max(np.abs(res.mean[m] - loop[m])) for m in metrics]
        se = [np.max(res.sd[m] / np.sqrt(REPEATS)) for m in metrics]
        speed = f"{t_loop / t_vec:.0f}x"
        table.add_row(label, f"{t_vec:.3f}", f"{t_loop:.2f}", speed, f"{max(diffs):.4f}", f"{max(se):.4f}")
    console.print(table)


if __name__ == "__main__":
    main()
