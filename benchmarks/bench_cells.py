"""How VAW's coverage cells cost grows with a share's items, beside scikit-learn's flat ``KMeans``.

Run (from the repository root)::

    .venv/bin/python benchmarks/bench_cells.py
    .venv/bin/python benchmarks/bench_cells.py --sizes 1000,4000,16000,64000 --repeats 3

Data: ``n`` rows of 64-dim float32 points, clustered as item embeddings are (``n / 50`` centres, noise sd 0.3,
seeded). For each ``n`` and each of the paper's six retentions ``r`` the share asks for ``K = round(r n)``
cells, as VAW does (``K_b ~ r n_b``, PRIMEBench section 4.3).

What it prints: the machine line, then per ``(n, r)`` the CPU microseconds per row of
:func:`benchsift.compression.selectors._cells.kmeans_cells` (min / median of ``--repeats``, process CPU time,
one BLAS thread) and, for ``n <= --sklearn-max``, of scikit-learn ``KMeans(n_clusters=K, n_init=1,
max_iter=10, algorithm="lloyd")`` (greedy k-means++ init, the baseline a user would reach for), with the
k-means objective of each divided by the flat sklearn objective. Constant per-row cost as ``n`` grows means
the cells are linear in the items; a flat k-means grows as ``K``, i.e. linearly per row (quadratic in all).
"""

from __future__ import annotations

import argparse

import numpy as np
from _timing import load_average, machine_line, timed
from sklearn.cluster import KMeans
from threadpoolctl import threadpool_limits

from benchsift.compression.selectors._cells import kmeans_cells

RETENTIONS = (0.02, 0.05, 0.1, 0.2, 0.3, 0.5)


def clustered(n: int, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    centres = rng.normal(size=(max(5, n // 50), 64)).astype(np.float32)
    return centres[rng.integers(centres.shape[0], size=n)] + 0.3 * rng.normal(size=(n, 64)).astype(np.float32)


def inertia(x: np.ndarray, labels: np.ndarray) -> float:
    """Sum of squared distances of the rows to their cell's mean."""
    k = int(labels.max()) + 1
    counts = np.bincount(labels, minlength=k).astype(np.float64)
    means = np.zeros((k, x.shape[1]))
    np.add.at(means, labels, x.astype(np.float64))
    means /= np.maximum(counts, 1)[:, None]
    diff = x - means[labels]
    return float(np.einsum("ij,ij->", diff, diff))


def per_row(seconds: tuple[float, ...], n: int) -> str:
    """``"min / median"`` microseconds per row."""
    return f"{1e6 * min(seconds) / n:.1f} / {1e6 * float(np.median(seconds)) / n:.1f}"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--sizes", default="1000,4000,16000,64000", help="comma list of rows per share")
    ap.add_argument("--repeats", type=int, default=2)
    ap.add_argument("--sklearn-max", type=int, default=16000, help="largest n timed for sklearn KMeans")
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args(argv)
    sizes = [int(s) for s in args.sizes.split(",")]
    print(machine_line())
    head = f"{'n':>7} {'r':>5} {'K':>6}  {'benchsift us/row':>17}  {'sklearn us/row':>15}"
    print(f"{head}  objective / sklearn's")
    for n in sizes:
        x = clustered(n, args.seed)
        for r in RETENTIONS:
            k = max(1, int(round(r * n)))
            ours = timed(lambda x=x, k=k: kmeans_cells(x, k, args.seed), args.repeats)  # type: ignore[misc]
            cell = per_row(ours.cpu_seconds, n)
            base_cell, ratio = "-", "-"
            if n <= args.sklearn_max:
                km = KMeans(n_clusters=k, n_init=1, max_iter=10, algorithm="lloyd", random_state=args.seed)
                with threadpool_limits(1):
                    base = timed(lambda km=km, x=x: km.fit(x).labels_, args.repeats)  # type: ignore[misc]
                base_cell = per_row(base.cpu_seconds, n)
                ratio = f"{inertia(x, ours.result) / inertia(x, base.result):.3f}"
            print(f"{n:>7} {r:>5g} {k:>6}  {cell:>17}  {base_cell:>15}  {ratio}", flush=True)
    print(f"load average at the end: {load_average()}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
