"""2PL fit: CPU per response cell as the panel grows (issue 36: linear in items).

Fits :class:`benchsift.irt.TwoPL` on simulated complete 2PL panels (theta ~ N(0, 1), a ~ U(0.6, 2.2),
b ~ N(0, 1), seed 0) of 200 x 3,000, 1,000 x 5,000 and 1,000 x 20,000 and prints the process CPU seconds
(``time.process_time``, min over ``--repeats``) and CPU per cell, then the ratio of the first size's CPU per
cell to the last's (issue 36 asks for at most 1.15 between 200 x 3,000 and 1,000 x 20,000).
``--before-src DIR`` runs the same sizes again from an older source tree in a fresh interpreter right after,
so both see the same load
(e.g. ``git archive 4c130fe src | tar -x -C /tmp/before``, then ``--before-src /tmp/before/src``).

    python benchmarks/bench_irt_scaling.py [--repeats 1] [--before-src DIR] [--sizes 200x3000,200x20000]
"""

from __future__ import annotations

import argparse
import os
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


def run(repeats: int, label: str, sizes: tuple[tuple[int, int], ...] = SIZES) -> None:
    from benchsift.irt import TwoPL

    per_cell = []
    for m, n in sizes:
        X = simulate(m, n)
        cpu = []
        for _ in range(max(1, repeats)):
            c0 = time.process_time()
            TwoPL().fit(X)
            cpu.append(time.process_time() - c0)
        best = min(cpu)
        per_cell.append(best / (m * n))
        print(
            f"{label:<8} {m:>5} x {n:<6} CPU {best:7.2f} s  per cell {best / (m * n) * 1e9:6.0f} ns  "
            f"load {os.getloadavg()[0]:.1f}",
            flush=True,
        )
    if len(sizes) > 1:
        (m0, n0), (m1, n1) = sizes[0], sizes[-1]
        print(
            f"{label:<8} CPU per cell, {m0} x {n0} / {m1} x {n1}: {per_cell[0] / per_cell[-1]:.2f}x",
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
    ap.add_argument("--label", default="now", help=argparse.SUPPRESS)
    args = ap.parse_args()
    sizes = tuple((int(m), int(n)) for m, n in (s.split("x") for s in args.sizes.split(",")))
    run(args.repeats, args.label, sizes)
    if args.before_src:
        env = dict(os.environ, PYTHONPATH=args.before_src)
        cmd = [sys.executable, __file__, "--repeats", str(args.repeats), "--label", "before"]
        cmd += ["--sizes", args.sizes]
        subprocess.run(cmd, env=env, check=True)


if __name__ == "__main__":
    main()
