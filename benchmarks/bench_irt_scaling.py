"""2PL fit: CPU per response cell as the panel grows (issue 36: linear in items), beside a numpy baseline.

Fits :class:`benchsift.irt.TwoPL` on simulated complete 2PL panels (theta ~ N(0, 1), a ~ U(0.6, 2.2),
b ~ N(0, 1), seed 0) of 200 x 3,000, 1,000 x 5,000 and 1,000 x 20,000 and prints the process CPU seconds
(``time.process_time``, min / median over ``--repeats``) and CPU per cell, then the ratio of the first size's
CPU per cell to the last's (issue 36 asks for at most 1.15 between 200 x 3,000 and 1,000 x 20,000).

At each size the simple baseline, :func:`_irt_baseline.fit_numpy_2pl` (vectorised numpy MML-EM on a fixed
81-node grid, one BLAS thread like ``TwoPL.fit``; benchmarks/_irt_baseline.py), is fitted on the same panel
with the same timer, the two alternating repeat by repeat, and its CPU per cell, cycles and the ratio
baseline / benchsift (min / median) are printed, then the baseline's own first / last CPU per cell ratio.
``--no-baseline`` leaves it out (it takes ~100x benchsift's CPU).

``--before-src DIR`` runs benchsift's sizes again from an older source tree (any with the same
``TwoPL().fit(X)``) in a fresh interpreter right after, so both see the same load; the baseline does not
depend on the source tree and is not run again there
(e.g. ``git archive 4c130fe src | tar -x -C /tmp/before``, then ``--before-src /tmp/before/src``).

    python benchmarks/bench_irt_scaling.py [--repeats 1] [--before-src DIR] [--sizes 200x3000,200x20000]
        [--no-baseline]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time

SIZES = ((200, 3000), (1000, 5000), (1000, 20000))


def simulate(n_models: int, n_items: int):
    import numpy as np

    rng = np.random.default_rng(0)
    theta = rng.normal(size=n_models)
    a = rng.uniform(0.6, 2.2, n_items)
    b = rng.normal(size=n_items)
    p = 1.0 / (1.0 + np.exp(-a * (theta[:, None] - b)))
    return (rng.random((n_models, n_items)) < p).astype(float)


def _cpu(fn, X, out: list[float]):
    c0 = time.process_time()
    result = fn(X)
    out.append(time.process_time() - c0)
    return result


def _ns(cpu: list[float], cells: int) -> str:
    return f"{min(cpu) / cells * 1e9:6.0f} / {statistics.median(cpu) / cells * 1e9:6.0f} ns"


def run(repeats: int, label: str, sizes: tuple[tuple[int, int], ...] = SIZES, baseline: bool = True) -> None:
    from benchsift.irt import TwoPL

    def fit_benchsift(X):
        return TwoPL().fit(X)

    if baseline:
        from _irt_baseline import fit_numpy_2pl
        from threadpoolctl import threadpool_limits

        def fit_baseline(X):
            with threadpool_limits(1):
                return fit_numpy_2pl(X)

    per_cell: dict[str, list[float]] = {"benchsift": [], "baseline": []}
    for m, n in sizes:
        X = simulate(m, n)
        cpu: list[float] = []
        base: list[float] = []
        for _ in range(max(1, repeats)):  # alternate, so that a burst of load hits both sides alike
            model = _cpu(fit_benchsift, X, cpu)
            if baseline:
                fit = _cpu(fit_baseline, X, base)
        per_cell["benchsift"].append(min(cpu) / (m * n))
        iters = getattr(model, "n_iter_", "?")
        print(
            f"{label:<8} {m:>5} x {n:<6} benchsift CPU {min(cpu):7.2f} / {statistics.median(cpu):7.2f} s  "
            f"per cell {_ns(cpu, m * n)}  ({iters} it)  load {os.getloadavg()[0]:.1f}",
            flush=True,
        )
        if baseline:
            per_cell["baseline"].append(min(base) / (m * n))
            print(
                f"{'baseline':<8} {m:>5} x {n:<6} numpy EM  CPU {min(base):7.2f} / "
                f"{statistics.median(base):7.2f} s  "
                f"per cell {_ns(base, m * n)}  ({fit['iters']} cycles{'' if fit['converged'] else ', cap'})  "
                f"baseline / benchsift {min(base) / min(cpu):.1f}x / "
                f"{statistics.median(base) / statistics.median(cpu):.1f}x  load {os.getloadavg()[0]:.1f}",
                flush=True,
            )
    if len(sizes) > 1:
        (m0, n0), (m1, n1) = sizes[0], sizes[-1]
        for side, name in ((label, "benchsift"), ("baseline", "baseline")):
            if per_cell[name]:
                print(
                    f"{side:<8} CPU per cell, {m0} x {n0} / {m1} x {n1}: "
                    f"{per_cell[name][0] / per_cell[name][-1]:.2f}x",
                    flush=True,
                )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeats", type=int, default=1)
    ap.add_argument(
        "--before-src", default=None, help="an older source tree, run in a fresh interpreter after"
    )
    ap.add_argument(
        "--sizes",
        default=",".join(f"{m}x{n}" for m, n in SIZES),
        help="models x items, comma-separated (e.g. 200x3000,200x20000: linear in items at fixed models)",
    )
    ap.add_argument("--no-baseline", action="store_true", help="leave out the numpy MML-EM baseline")
    ap.add_argument("--label", default="now", help=argparse.SUPPRESS)
    args = ap.parse_args()
    sizes = tuple((int(m), int(n)) for m, n in (s.split("x") for s in args.sizes.split(",")))
    run(args.repeats, args.label, sizes, baseline=not args.no_baseline)
    if args.before_src:
        env = dict(os.environ, PYTHONPATH=args.before_src)
        cmd = [sys.executable, __file__, "--repeats", str(args.repeats), "--label", "before"]
        cmd += ["--sizes", args.sizes, "--no-baseline"]
        subprocess.run(cmd, env=env, check=True)


if __name__ == "__main__":
    main()
