"""2PL IRT fit: benchsift's EM fitter beside girth.twopl_mml on the same simulated responses.

Issue target: a 169-model x 3,088-item matrix fitted in at most 5 s on 2 cores. Prints, per data size, the
wall time (untraced run), the peak traced memory (a second, traced run) and the recovery (Pearson correlation
with the true discriminations, difficulties and abilities) of both fitters.

girth fits item by item with scalar optimisers: on this machine it took 20 s for 169 x 100 and 222 s for
169 x 300, so by default it runs only on matrices of at most ``--girth-max-items`` items (the 169 x 3,088 row
is benchsift alone).

girth is not a dependency of benchsift; install it to run the comparison: ``pip install girth``.
Usage: ``python benchmarks/bench_irt.py [--seed 0]``.
"""

from __future__ import annotations

import argparse
import functools
import os
import platform
import time
import tracemalloc
import warnings
from collections.abc import Callable
from typing import Any

import numpy as np
from rich.console import Console
from rich.table import Table
from scipy.special import expit

from benchsift.irt import TwoPL


def simulate(n_resp: int, n_items: int, seed: int) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(seed)
    theta = rng.standard_normal(n_resp)
    a = rng.uniform(0.6, 2.2, n_items)
    b = rng.normal(0.0, 1.0, n_items)
    X = (rng.random((n_resp, n_items)) < expit(a * (theta[:, None] - b))).astype(float)
    return {"X": X, "theta": theta, "a": a, "b": b}


def measure(fn: Callable[[], Any]) -> tuple[Any, float, float]:
    t0 = time.perf_counter()
    out = fn()
    seconds = time.perf_counter() - t0
    tracemalloc.start()
    fn()
    peak = tracemalloc.get_traced_memory()[1] / 2**20
    tracemalloc.stop()
    return out, seconds, peak


def _fit_twopl(x: np.ndarray) -> TwoPL:
    return TwoPL().fit(x)  # a fresh model per call: measure() runs it twice


def corr(x: np.ndarray, y: np.ndarray) -> float:
    ok = np.isfinite(x) & np.isfinite(y)
    return float(np.corrcoef(x[ok], y[ok])[0, 1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--girth-max-items", type=int, default=100)
    args = parser.parse_args()
    try:
        import girth
    except ImportError:
        girth = None

    console = Console(width=120)
    console.print(
        f"machine: {platform.platform()}, {platform.processor() or platform.machine()}, "
        f"{os.cpu_count()} CPUs, python {platform.python_version()}, numpy {np.__version__}"
    )
    table = Table(title="2PL fit: benchsift TwoPL (EM, 41-point Gauss-Hermite) vs girth.twopl_mml")
    for col in ("models x items", "fitter", "seconds", "peak MiB", "iters", "r(a)", "r(b)", "r(theta)"):
        table.add_column(col, justify="right")
    for n_resp, n_items in [(169, 3088), (169, 100), (500, 100)]:
        data = simulate(n_resp, n_items, args.seed)
        size = f"{n_resp} x {n_items}"
        model, secs, peak = measure(functools.partial(_fit_twopl, data["X"]))
        table.add_row(
            size,
            "benchsift",
            f"{secs:.2f}",
            f"{peak:.0f}",
            str(model.n_iter_),
            f"{corr(model.discrimination_, data['a']):.3f}",
            f"{corr(model.difficulty_, data['b']):.3f}",
            f"{corr(model.theta_, data['theta']):.3f}",
        )
        if girth is not None and n_items <= args.girth_max_items:
            resp = data["X"].T.astype(int)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                est, secs, peak = measure(functools.partial(girth.twopl_mml, resp))
                theta = girth.ability_eap(resp, est["Difficulty"], est["Discrimination"])
            table.add_row(
                size,
                "girth",
                f"{secs:.2f}",
                f"{peak:.0f}",
                "-",
                f"{corr(est['Discrimination'], data['a']):.3f}",
                f"{corr(est['Difficulty'], data['b']):.3f}",
                f"{corr(np.asarray(theta), data['theta']):.3f}",
            )
    console.print(table)
    if girth is None:
        console.print("girth is not installed (pip install girth): baseline column skipped")


if __name__ == "__main__":
    main()
