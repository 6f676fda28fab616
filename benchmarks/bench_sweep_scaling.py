"""How the heavy sweeps' time and memory grow with models, items and splits, and what a backend costs.

Steps (each in its own fresh subprocess, so its peak RSS is its own; the panel is loaded from a parquet file
as the CLI does, and the time is the library call's wall time, the load excluded):

* ``validate``: :func:`benchsift.compression.protocols.stage2_heldout`, random protocol, selectors
  ``random,variance,anchorpoints``, retentions 5 % and 20 %, floor 20; models x items x splits varied one at
  a time around 100 models x 4,000 items x 4 splits;
* ``instances``: :func:`benchsift.redundancy.instance_redundancy`, 12 ratios, T = 100, four metrics; models
  and items varied around 100 x 4,000;
* backends at the middle validate size with 8 splits: ``n_jobs=1`` (no pool), loky with 2 workers, and a
  dask ``LocalCluster`` of 2 worker processes started inside the call (``backend="dask"``), so the cost of
  starting a cluster and shipping the panel is in the figure.

Panels are simulated (:class:`benchsift.simulate.SimulationConfig.small`: 8 benchmarks, 3 categories;
about 2 % of the cells missing).

Baselines, at every size with ``n_jobs=1`` (each in its own fresh subprocess too, run right after
benchsift's in every repeat, so a burst of load hits both):

* ``validate``: :func:`bench_validate_scaling.random_heldout_baseline`, the random selector's held-out
  evaluation in numpy (the same splits and per-selection seeds, kept-item means of all splits and
  retentions as two products, Spearman vectorised over splits and retentions). It stands beside the
  *random selector's* cost only (``HeldoutResult.seconds["random"]``: its selections and scoring), not
  beside the whole call, which also runs ``variance`` and ``anchorpoints`` (no ten-line equivalent) and
  the shared set-up; the random selector's rho of both sides are compared (max |difference|);
* ``instances``: :func:`bench_redundancy_instances.matrix_baseline`, the vectorised selection-matrix
  product (the same draws, NaN-aware means by a second product with the observed mask, all four metrics
  vectorised over the T samples), beside the whole :func:`~benchsift.redundancy.instance_redundancy` call;
  the per-ratio means of both sides are compared.

Each cell is ``--repeats`` runs (default 3): wall time min / median, peak RSS the largest (with the
resident set just before the timed call, which holds the imports: the baseline's scipy and
scikit-learn); the speed-up is baseline / benchsift (of the minima / of the medians; below 1: benchsift
is slower). Read the load average printed at the start and the end. Run: ``python
benchmarks/bench_sweep_scaling.py [--repeats 3] [--json FILE]``; ``--quick`` runs one small validate and
one small instances case (a check that the script works, not a measurement).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np
from _timing import Timing, machine_line, ratio_cell

from benchsift.simulate import SimulationConfig, simulate_panel

BENCH_DIR = str(Path(__file__).resolve().parent)
CHILD = """
import json, resource, sys, time
kind, path, backend, side = sys.argv[1], sys.argv[2], sys.argv[4], sys.argv[6]
splits, n_jobs = int(sys.argv[3]), int(sys.argv[5])
sys.path.insert(0, sys.argv[7])
import numpy as np
from benchsift.panel import Panel
from benchsift.redundancy.instances import DEFAULT_RATIOS
panel = Panel.load(path)
backend = None if backend == "none" else backend
metrics = ("srcc", "plcc", "r2", "kendall")
if side == "baseline" and kind == "validate":
    from bench_validate_scaling import random_heldout_baseline
    from benchsift.panel.categories import category_or_benchmark
    inputs = panel.scores[np.asarray(panel.image_rows, dtype=bool)], category_or_benchmark(panel.items)
    call = lambda: random_heldout_baseline(*inputs, [0.05, 0.2], splits, floor=20, seed=0)
elif side == "baseline":
    from bench_redundancy_instances import matrix_baseline
    call = lambda: matrix_baseline(panel.scores, metrics, ratios=DEFAULT_RATIOS, repeats=100, seed=0)
elif kind == "validate":
    from benchsift.compression.protocols import stage2_heldout
    call = lambda: stage2_heldout(panel, selectors=["random", "variance", "anchorpoints"],
                                  retentions=[0.05, 0.2], n_splits=splits, floor=20, random_state=0,
                                  n_jobs=n_jobs, backend=backend)
else:
    from benchsift.redundancy import instance_redundancy
    call = lambda: instance_redundancy(panel, repeats=100, random_state=0, n_jobs=n_jobs, backend=backend)
before = int(open("/proc/self/statm").read().split()[1]) * resource.getpagesize() / 1e9
t = time.perf_counter()
out = call()
wall = time.perf_counter() - t
res = {"seconds": wall, "peak_rss_gb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1e6,
       "rss_before_gb": before}
if side == "baseline" and kind == "validate":
    res["check"] = out.tolist()
elif side == "baseline":
    res["check"] = {m: np.nanmean(out[m], axis=1).tolist() for m in metrics}
elif kind == "validate":
    res["random_seconds"] = out.seconds["random"]
    res["check"] = out.rho[:, out.selectors.index("random")].tolist()
else:
    res["check"] = {m: out.mean[m].tolist() for m in metrics}
print(json.dumps(res))
"""


def panel_file(folder: Path, n_models: int, n_items: int) -> str:
    path = folder / f"p{n_models}x{n_items}.parquet"
    if not path.exists():
        per = max(1, n_items // 8)
        cfg = SimulationConfig.small(n_models=n_models, items_per_benchmark=per, min_items_per_benchmark=per)
        simulate_panel(cfg, 0).panel.image_panel().save(path)
    return str(path)


def run(
    kind: str, path: str, splits: int = 4, backend: str = "none", n_jobs: int = 1, side: str = "ours"
) -> dict:
    out = subprocess.run(
        [sys.executable, "-c", CHILD, kind, path, str(splits), backend, str(n_jobs), side, BENCH_DIR],
        capture_output=True,
        text=True,
        check=True,
    )
    return json.loads(out.stdout.strip().splitlines()[-1])


def max_diff(ours: list | dict, base: list | dict) -> float:
    """Largest |difference| between the two sides' check values (rho arrays, or per-metric means); NaN on
    one side only counts as infinite."""
    if isinstance(ours, dict) and isinstance(base, dict):
        ours, base = [ours[m] for m in sorted(ours)], [base[m] for m in sorted(ours)]
    x, y = np.asarray(ours, dtype=float), np.asarray(base, dtype=float)
    if not np.array_equal(np.isnan(x), np.isnan(y)):
        return float("inf")
    both = ~np.isnan(x)
    return float(np.max(np.abs(x[both] - y[both]), initial=0.0))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--json", type=Path, default=None)
    ap.add_argument("--repeats", type=int, default=3, help="runs of each side per cell (min / median)")
    ap.add_argument("--quick", action="store_true", help="one small case of each kind (checks the script)")
    args = ap.parse_args()
    repeats = max(1, args.repeats)
    print(machine_line())
    print(f"{repeats} run(s) per side and cell, alternated; s = wall seconds min / median; GB = peak RSS")
    rows = []

    def show(label: str, ours: list[dict], base: list[dict]) -> None:
        t = Timing(tuple(r["seconds"] for r in ours), None)
        line = f"{label:52s} {t.cell():>15s} s {max(r['peak_rss_gb'] for r in ours):5.2f} GB"
        row: dict = {"case": label, "seconds": t.seconds, "peak_rss_gb": [r["peak_rss_gb"] for r in ours]}
        versus = t  # what the baseline stands beside: the whole call, or the random selector's seconds
        if ours[0].get("random_seconds") is not None:
            versus = Timing(tuple(r["random_seconds"] for r in ours), None)
            row["random_seconds"] = versus.seconds
            line += f"  random {versus.cell():>15s} s"
        if base:
            b = Timing(tuple(r["seconds"] for r in base), None)
            diff = max(max_diff(o["check"], x["check"]) for o, x in zip(ours, base, strict=True))
            line += (
                f" | baseline {b.cell():>15s} s {max(r['peak_rss_gb'] for r in base):5.2f} GB"
                f" (before call {base[0]['rss_before_gb']:.2f}) | speed-up {ratio_cell(versus, b)}"
                f" | max |diff| {diff:.1e}"
                + ("  benchsift SLOWER (median)" if b.median < versus.median else "")
            )
            row.update(baseline_seconds=b.seconds, baseline_peak_rss_gb=[r["peak_rss_gb"] for r in base])
            row["max_diff"] = diff
        rows.append(row)
        print(line, flush=True)

    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        cases: list[tuple[str, str, int, int, int, str, int]] = []
        if args.quick:
            cases.append(("validate  models=50 items=1000 splits=2", "validate", 50, 1000, 2, "none", 1))
            cases.append(("instances models=50 items=1000", "instances", 50, 1000, 0, "none", 1))
        else:
            for m in (50, 100, 200, 400):
                cases.append(
                    (f"validate  models={m:<5d} items=4000 splits=4", "validate", m, 4000, 4, "none", 1)
                )
            for n in (2000, 8000, 16000):
                cases.append(
                    (f"validate  models=100   items={n:<5d} splits=4", "validate", 100, n, 4, "none", 1)
                )
            for s in (2, 8, 16):
                cases.append(
                    (f"validate  models=100 items=4000 splits={s}", "validate", 100, 4000, s, "none", 1)
                )
            for m in (50, 200, 800):
                cases.append((f"instances models={m:<5d} items=4000", "instances", m, 4000, 0, "none", 1))
            for n in (1000, 16000):
                cases.append((f"instances models=100   items={n}", "instances", 100, n, 0, "none", 1))
            for size in ((100, 4000), (400, 16000)):
                for backend, jobs, what in (
                    ("none", 1, "n_jobs=1"),
                    ("loky", 2, "loky 2 workers"),
                    ("dask", 2, "dask LocalCluster(2), started"),
                ):
                    label = f"validate  {size[0]} x {size[1]}, 8 splits, {what}"
                    cases.append((label, "validate", size[0], size[1], 8, backend, jobs))
        for label, kind, m, n, splits, backend, jobs in cases:
            path = panel_file(folder, m, n)
            ours: list[dict] = []
            base: list[dict] = []
            for _ in range(repeats):  # the sides alternated
                ours.append(run(kind, path, splits, backend, jobs))
                if backend == "none":
                    base.append(run(kind, path, splits, backend, jobs, side="baseline"))
            show(label, ours, base)
    print(
        "baseline: validate, the random selector's numpy held-out evaluation beside benchsift's "
        "random-selector seconds; instances, the selection-matrix product beside the whole call (docstring)"
    )
    print(machine_line())
    if args.json:
        args.json.write_text(json.dumps(rows, indent=2))


if __name__ == "__main__":
    main()
