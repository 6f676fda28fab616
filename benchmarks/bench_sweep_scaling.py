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

Panels are simulated (:class:`benchsift.simulate.SimulationConfig.small`: 8 benchmarks, 3 categories).
Each cell is one run: read the load average beside it. Run: ``python benchmarks/bench_sweep_scaling.py
[--json FILE]``.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path

from _timing import machine_line

from benchsift.simulate import SimulationConfig, simulate_panel

CHILD = """
import json, resource, sys, time
from benchsift.panel import Panel
kind, path, backend = sys.argv[1], sys.argv[2], sys.argv[4]
splits, n_jobs = int(sys.argv[3]), int(sys.argv[5])
panel = Panel.load(path)
backend = None if backend == "none" else backend
t = time.perf_counter()
if kind == "validate":
    from benchsift.compression.protocols import stage2_heldout
    stage2_heldout(panel, selectors=["random", "variance", "anchorpoints"], retentions=[0.05, 0.2],
                   n_splits=splits, floor=20, random_state=0, n_jobs=n_jobs, backend=backend)
else:
    from benchsift.redundancy import instance_redundancy
    instance_redundancy(panel, repeats=100, random_state=0, n_jobs=n_jobs, backend=backend)
wall = time.perf_counter() - t
print(json.dumps({"seconds": wall, "peak_rss_gb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1e6}))
"""


def panel_file(folder: Path, n_models: int, n_items: int) -> str:
    path = folder / f"p{n_models}x{n_items}.parquet"
    if not path.exists():
        per = max(1, n_items // 8)
        cfg = SimulationConfig.small(n_models=n_models, items_per_benchmark=per, min_items_per_benchmark=per)
        simulate_panel(cfg, 0).panel.image_panel().save(path)
    return str(path)


def run(kind: str, path: str, splits: int = 4, backend: str = "none", n_jobs: int = 1) -> dict:
    out = subprocess.run(
        [sys.executable, "-c", CHILD, kind, path, str(splits), backend, str(n_jobs)],
        capture_output=True,
        text=True,
        check=True,
    )
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--json", type=Path, default=None)
    args = ap.parse_args()
    print(machine_line())
    rows = []

    def show(label: str, res: dict) -> None:
        rows.append({"case": label, **res})
        print(f"{label:58s} {res['seconds']:7.2f} s  peak RSS {res['peak_rss_gb']:.2f} GB", flush=True)

    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        cases: list[tuple[str, str, int, int, int, str, int]] = []
        for m in (50, 100, 200, 400):
            cases.append((f"validate  models={m:<5d} items=4000 splits=4", "validate", m, 4000, 4, "none", 1))
        for n in (2000, 8000, 16000):
            cases.append((f"validate  models=100   items={n:<5d} splits=4", "validate", 100, n, 4, "none", 1))
        for s in (2, 8, 16):
            cases.append((f"validate  models=100 items=4000 splits={s}", "validate", 100, 4000, s, "none", 1))
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
            show(label, run(kind, panel_file(folder, m, n), splits, backend, jobs))
    print(machine_line())
    if args.json:
        args.json.write_text(json.dumps(rows, indent=2))


if __name__ == "__main__":
    main()
