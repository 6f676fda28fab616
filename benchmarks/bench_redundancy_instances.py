"""Speed of instance redundancy (redundancy paper Eq. 3): benchsift against a vectorised selection matrix.

Data: a simulated 0/1 benchmark of 169 models x 3,088 items (a 2PL model with seed 0; the size of the
issue's target), or a wide CSV given with ``--data`` (first column item id, one column per model).
Workload: T = 100 repeats at 10 sampling ratios, SRCC / PLCC / R^2 / Kendall tau-b.

* benchsift: :func:`benchsift.redundancy.instance_redundancy` (all repeats of a ratio as one product of a
  random 0/1 selection matrix with the score matrix, column-wise metrics);
* baseline, ``selection matrix`` (the strongest simple version, about ten lines): the same draws as a
  (T, M) 0/1 selection matrix per ratio, each row marked by one comparison of its uniform keys with their
  k-th smallest (``np.partition``, as benchsift draws; no ``argpartition`` + ``put_along_axis``), all T
  sampled score vectors as one product ``scores @ S.T / k``,
  and each metric vectorised over the T columns: Pearson and R² as centred column sums, Spearman as
  Pearson of ``scipy.stats.rankdata(axis=0)`` ranks, Kendall tau-b from the (n, n, T) sign arrays of
  every model pair. Asserted equal to benchsift's per-repeat values to ``TOL``. The README quotes this
  row;
* strawman, ``numpy loop`` (labelled as such): what a user writes without thinking of the product. The
  same random draws (the
  same generator, the same ``argpartition`` of uniform keys per ratio, so both sides compute the same
  numbers), then per repeat the sampled mean scores and each metric in a few numpy lines: Pearson and R²
  as centred dot products, Spearman as Pearson of ``scipy.stats.rankdata`` ranks, Kendall tau-b from the
  (169 x 169) sign matrices. Its per-repeat values are asserted equal to benchsift's (``keep_values``) to
  ``TOL``;
* strawman, ``scipy loop`` (``--strawmen``, the "all four" row only): the same draws with
  ``scipy.stats.spearmanr`` / ``pearsonr`` / ``kendalltau`` and ``sklearn.metrics.r2_score`` per repeat.

Both sides go through ``_timing.timed_pair`` (alternating, ``--repeats`` calls each; min and median shown).

Run: ``.venv/bin/python benchmarks/bench_redundancy_instances.py [--threads 2] [--repeats 3] [--strawmen]
[--json FILE]``.
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Callable
from functools import partial
from pathlib import Path

import numpy as np
import pandas as pd
import scipy
import scipy.stats as ss
from _timing import Timing, load_average, machine_line, ratio_cell, timed_pair
from rich.console import Console
from rich.table import Table
from sklearn.metrics import r2_score

from benchsift import Panel
from benchsift.redundancy import instance_redundancy
from benchsift.redundancy.instances import sample_sizes

RATIOS = (0.01, 0.02, 0.05, 0.1, 0.2, 0.3, 0.4, 0.5, 0.7, 0.9)
T_REPEATS = 100
SEED = 0
TOL = 1e-10
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


def _draws(
    n_items: int, seed: int, ratios: tuple[float, ...] = RATIOS, repeats: int = T_REPEATS
) -> list[np.ndarray]:
    """Per ratio, the (T, k) item indices benchsift draws: k smallest of iid uniform keys (same generator)."""
    rng = np.random.default_rng(seed)
    out = []
    for k in sample_sizes(n_items, np.array(ratios)):
        keys = rng.random((repeats, n_items))
        out.append(np.argpartition(keys, int(k) - 1, axis=1)[:, : int(k)])
    return out


def _selections(
    n_items: int, seed: int, ratios: tuple[float, ...] = RATIOS, repeats: int = T_REPEATS
) -> list[np.ndarray]:
    """Per ratio, the same draws as :func:`_draws` as a (T, n_items) 0/1 matrix: each row's keys compared
    with their k-th smallest (one ``np.partition``), the simple form of benchsift's draw."""
    rng = np.random.default_rng(seed)
    out = []
    for k in sample_sizes(n_items, np.array(ratios)):
        keys = rng.random((repeats, n_items))
        out.append((keys <= np.partition(keys, int(k) - 1, axis=1)[:, int(k) - 1 : int(k)]).astype(float))
    return out


def _lean_metrics(full: np.ndarray) -> dict[str, Callable[[np.ndarray], float]]:
    """Each metric of one sampled score vector against ``full`` in a few numpy lines (full hoisted)."""
    fc = full - full.mean()
    ss_tot = float(fc @ fc)
    rf = ss.rankdata(full)
    rfc = rf - rf.mean()
    sf = np.sign(full[:, None] - full[None, :])
    abs_sf = float(np.abs(sf).sum())

    def pearson(s: np.ndarray) -> float:
        sc = s - s.mean()
        return float(sc @ fc / np.sqrt((sc @ sc) * ss_tot))

    def spearman(s: np.ndarray) -> float:
        r = ss.rankdata(s)
        r -= r.mean()
        return float(r @ rfc / np.sqrt((r @ r) * (rfc @ rfc)))

    def kendall(s: np.ndarray) -> float:
        st = np.sign(s[:, None] - s[None, :])
        return float((st * sf).sum() / np.sqrt(np.abs(st).sum() * abs_sf))

    def r2(s: np.ndarray) -> float:
        d = full - s
        return float(1.0 - (d @ d) / ss_tot)

    return {"srcc": spearman, "plcc": pearson, "kendall": kendall, "r2": r2}


def _scipy_metrics(full: np.ndarray) -> dict[str, Callable[[np.ndarray], float]]:
    return {
        "srcc": lambda s: ss.spearmanr(s, full).statistic,
        "plcc": lambda s: ss.pearsonr(s, full).statistic,
        "kendall": lambda s: ss.kendalltau(s, full).statistic,
        "r2": lambda s: r2_score(full, s),
    }


def _pearson_columns(A: np.ndarray, b: np.ndarray) -> np.ndarray:
    return (b @ A) / np.sqrt((A * A).sum(axis=0) * (b @ b))  # A column-centred, b centred


def matrix_baseline(
    scores: np.ndarray,
    metrics: tuple[str, ...],
    ratios: tuple[float, ...] = RATIOS,
    repeats: int = T_REPEATS,
    seed: int = SEED,
) -> dict[str, np.ndarray]:
    """Per ratio: one selection matrix, one product for all T sampled means, every metric vectorised.

    With missing scores (NaN) the means are NaN-aware: a second product with the observed mask counts each
    model's scored items per sample (``benchmarks/bench_sweep_scaling.py`` uses that; a sample where some
    model has no scored item would need pairwise-complete metrics, which this baseline does not do)."""
    missing = np.isnan(scores)
    complete = not missing.any()
    full = scores.mean(axis=1) if complete else np.nanmean(scores, axis=1)
    zeroed = scores if complete else np.where(missing, 0.0, scores)
    observed = None if complete else (~missing).astype(np.float64)
    fc, rf = full - full.mean(), ss.rankdata(full) - (full.size + 1) / 2
    sf = np.sign(full[:, None] - full[None, :])[:, :, None]
    out = {m: np.empty((len(ratios), repeats)) for m in metrics}
    for r, S in enumerate(_selections(scores.shape[1], seed, ratios, repeats)):
        # (n_models, T): every sampled score vector at once
        s = zeroed @ S.T / (S.sum(axis=1) if observed is None else observed @ S.T)
        if "plcc" in metrics:
            out["plcc"][r] = _pearson_columns(s - s.mean(axis=0), fc)
        if "r2" in metrics:
            out["r2"][r] = 1 - ((full[:, None] - s) ** 2).sum(axis=0) / (fc @ fc)
        if "srcc" in metrics:
            out["srcc"][r] = _pearson_columns(ss.rankdata(s, axis=0) - (s.shape[0] + 1) / 2, rf)
        if "kendall" in metrics:
            st = np.sign(s[:, None, :] - s[None, :, :])  # (n, n, T) pair signs of every sample
            out["kendall"][r] = (st * sf).sum(axis=(0, 1)) / np.sqrt(
                np.abs(st).sum(axis=(0, 1)) * np.abs(sf).sum()
            )
    return out


def loop_baseline(scores: np.ndarray, metrics: tuple[str, ...], lean: bool) -> dict[str, np.ndarray]:
    """Per repeat: the sampled means, then each metric (lean numpy or scipy); values (n_ratios, T)."""
    full = scores.mean(axis=1)
    funcs = _lean_metrics(full) if lean else _scipy_metrics(full)
    out = {m: np.empty((len(RATIOS), T_REPEATS)) for m in metrics}
    for r, idx in enumerate(_draws(scores.shape[1], SEED)):
        for t in range(T_REPEATS):
            s = scores[:, idx[t]].mean(axis=1)
            for m in metrics:
                out[m][r, t] = funcs[m](s)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=None, help="wide CSV (item id column, then models)")
    parser.add_argument("--threads", type=int, default=None, help="limit BLAS / OpenMP threads")
    parser.add_argument("--repeats", type=int, default=3, help="timed calls of each side (alternated)")
    parser.add_argument(
        "--strawmen", action="store_true", help="also the per-repeat numpy and scipy loops (all four only)"
    )
    parser.add_argument("--json", default=None, help="also write the rows (all repeat times) to this file")
    args = parser.parse_args()
    if args.threads is not None:
        from threadpoolctl import threadpool_limits

        threadpool_limits(args.threads)
    scores = load_wide_csv(args.data) if args.data else simulated_scores()
    if np.isnan(scores).any():
        raise SystemExit("the numpy-loop baseline here assumes a complete score matrix (no NaN)")
    n_models, n_items = scores.shape
    panel = Panel.from_matrix(scores, [f"m{i}" for i in range(n_models)], [f"i{j}" for j in range(n_items)])
    console = Console(width=150)
    console.print(machine_line())
    console.print(f"scipy {scipy.__version__}; threads limit {args.threads or 'none'}")
    console.print(
        f"data: {'simulated 2PL 0/1' if args.data is None else args.data} {n_models} models x "
        f"{n_items} items; T = {T_REPEATS}, {len(RATIOS)} ratios {list(RATIOS)}; "
        f"min / median of {args.repeats} alternated calls"
    )
    table = Table(
        title="instance redundancy: benchsift vs the selection-matrix baseline on the same draws (s)"
    )
    for col in ("metrics", "baseline", "benchsift s", "baseline s", "speed-up", "", "max |diff|"):
        table.add_column(col, justify="right")
    records: list[dict[str, object]] = []
    for label, metrics in METRIC_SETS.items():
        ours_fn = partial(
            instance_redundancy,
            panel,
            ratios=RATIOS,
            repeats=T_REPEATS,
            metrics=metrics,
            random_state=SEED,
            keep_values=True,
        )
        bases = [("selection matrix", partial(matrix_baseline, scores, metrics))]
        if label == "all four" and args.strawmen:
            bases.append(("strawman: numpy loop", partial(loop_baseline, scores, metrics, True)))
            bases.append(("strawman: scipy loop", partial(loop_baseline, scores, metrics, False)))
        for name, fn in bases:
            ours, other = timed_pair(ours_fn, fn, args.repeats)
            diff = _agreement(ours, other, metrics, f"{label} {name}")
            table.add_row(
                label,
                name,
                ours.cell(),
                other.cell(),
                ratio_cell(ours, other),
                "[bold red]benchsift SLOWER[/]" if other.median < ours.median else "",
                f"{diff:.1e}",
            )
            records.append({"workload": label, "baseline": name, "ours": ours.seconds, "base": other.seconds})
    console.print(table)
    console.print(
        f"per-repeat values agree to {TOL:g} (same draws); speed-up = baseline / benchsift as min-ratio / "
        f"median-ratio; load average after: {load_average()}"
    )
    if args.json:
        with open(args.json, "w") as fh:
            json.dump({"script": "bench_redundancy_instances", "rows": records}, fh)


def _agreement(ours: Timing, other: Timing, metrics: tuple[str, ...], what: str) -> float:
    values = ours.result.values
    diff = 0.0
    for m in metrics:
        d = float(np.nanmax(np.abs(values[m] - other.result[m])))
        assert d <= TOL, f"{what} {m}: benchsift and the loop differ by {d:.2e} (> {TOL:g})"
        diff = max(diff, d)
    return diff


if __name__ == "__main__":
    main()
