"""Demo section ``redundancy``: the redundancy paper's three analyses on a simulated panel.

Data: :func:`benchsift.simulate.simulate_panel` with ``SimulationConfig.small()`` (46 model runs, 8
benchmarks, ~4,000 items). Its item column ``dimension`` splits each benchmark into six dimensions that fall
into two planted groups sharing one specific trait, so the dimension heatmap should show two blocks; the
section reports the mean within-group and across-group SRCC against that ground truth.

Writes into ``out_dir/redundancy/``: ``dimensions.json``, ``instances.json``, ``benchmarks.json`` and PNG +
SVG figures (dimension heatmap and bars, rho(A%) curves for all / top-K / bottom-K, benchmark heatmap).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
from rich.console import Console

from benchsift._fileio import atomic_path
from benchsift._jsonutil import to_jsonable
from benchsift.compression.pipeline import panel_fingerprint
from benchsift.redundancy import (
    InstanceRedundancy,
    benchmark_redundancy,
    dimension_redundancy,
    instance_redundancy,
)
from benchsift.report.console import DataTable
from benchsift.report.redundancy_figures import (
    bar_figure,
    bars_caption,
    curves_caption,
    curves_figure,
    heatmap_caption,
    heatmap_figure,
    save_figure,
)
from benchsift.simulate import SimulationConfig, simulate_panel
from benchsift.workflows.result import WorkflowResult, section_result

METRICS = ("srcc", "plcc", "r2")
TOP_K = 20


def _write_json(path: Path, obj: Any) -> Path:
    with atomic_path(path) as tmp:
        tmp.write_text(json.dumps(to_jsonable(obj), indent=2))
    return path


def _within_across(matrix: np.ndarray, dims: list[str], groups: dict[str, int]) -> tuple[float, float]:
    """Mean off-diagonal correlation within planted groups and across them."""
    g = np.array([groups[d] for d in dims])
    same = g[:, None] == g[None, :]
    off = ~np.eye(len(dims), dtype=bool)
    return float(np.nanmean(matrix[same & off])), float(np.nanmean(matrix[~same]))


def _groups(groups: dict[str, int]) -> str:
    by: dict[int, list[str]] = {}
    for d, g in groups.items():
        by.setdefault(g, []).append(d)
    return "; ".join(", ".join(sorted(v)) for _, v in sorted(by.items()))


def run_demo_section(out_dir: Path, seed: int, console: Console) -> WorkflowResult[Any]:
    """Dimension (Eq. 1-2), instance (Eq. 3) and cross-benchmark (Eq. 4) redundancy on simulated data."""
    folder = out_dir / "redundancy"
    folder.mkdir(parents=True, exist_ok=True)
    sim = simulate_panel(SimulationConfig.small(), random_state=seed)
    panel = sim.panel
    files: list[Path] = []
    data = f"simulated panel (SimulationConfig.small(), seed {seed}), image-condition runs"

    # Dimension redundancy of the first benchmark with planted dimension groups.
    planted = sim.truth.dimension_groups
    bench = next(iter(planted))
    dims = dimension_redundancy(panel, benchmark=bench, column="dimension", metrics=METRICS)
    within, across = _within_across(dims.matrix["srcc"], dims.dimensions, planted[bench])
    files.append(_write_json(folder / "dimensions.json", dims.to_dict()))
    files += save_figure(
        heatmap_figure(dims.matrix["srcc"], dims.dimensions, f"{bench}: SRCC between dimensions", "SRCC"),
        folder / "dimensions_heatmap_srcc",
        data=data,
        caption=heatmap_caption("srcc", "dimension", data)
        + f" The simulation plants two groups of dimensions that share a trait: {_groups(planted[bench])}.",
    )
    files += save_figure(
        bar_figure(dims.redundancy["srcc"], dims.dimensions, f"{bench}: ρ(X_i), SRCC", "ρ(X_i)"),
        folder / "dimensions_bars_srcc",
        caption=bars_caption("srcc", "dimension", data),
        data=data,
    )

    # Instance redundancy of the largest benchmark for all / top-K / bottom-K models.
    sizes = panel.items.groupby("benchmark", sort=False).size()
    big = str(sizes.idxmax())
    curves: dict[str, InstanceRedundancy] = {}
    for label, top, bottom in (
        ("all", None, None),
        (f"top-{TOP_K}", TOP_K, None),
        (f"bottom-{TOP_K}", None, TOP_K),
    ):
        curves[label] = instance_redundancy(
            panel, benchmark=big, metrics=METRICS, top_k=top, bottom_k=bottom, random_state=seed
        )
    files.append(_write_json(folder / "instances.json", {k: v.to_dict() for k, v in curves.items()}))
    for m in ("srcc", "r2"):
        files += save_figure(
            curves_figure(curves, m, f"{big}: instance redundancy"),
            folder / f"instances_curve_{m}",
            caption=curves_caption(m, list(curves), data),
            data=data,
        )

    # Cross-benchmark redundancy of all benchmarks and the anchor.
    cross = benchmark_redundancy(panel, metrics=METRICS)
    files.append(_write_json(folder / "benchmarks.json", cross.to_dict()))
    files += save_figure(
        heatmap_figure(cross.matrix["srcc"], cross.benchmarks, "SRCC between benchmarks", "SRCC"),
        folder / "benchmarks_heatmap_srcc",
        caption=heatmap_caption("srcc", "benchmark", data),
        data=data,
    )

    table = DataTable(title="redundancy (simulated panel)")
    table.add_column("analysis")
    table.add_column("result", justify="right")
    table.add_row(f"ρ_BI of {bench} (SRCC)", f"{dims.internal_redundancy['srcc']:.3f}")
    table.add_row("planted groups: within / across SRCC", f"{within:.3f} / {across:.3f}")
    pair = dims.top_pairs("srcc", 1)
    if pair:  # Appendix C: the pair to review for merging
        table.add_row(f"most redundant pair: {pair[0]['a']} / {pair[0]['b']}", f"{pair[0]['value']:.3f}")
    for label, res in curves.items():
        sat = res.saturation["srcc"]
        table.add_row(
            f"{big} saturation SRCC ≥ 0.95 ({label})", "not reached" if sat is None else f"{100 * sat:g} %"
        )
    table.add_row("anchor benchmark (SRCC)", str(cross.anchor["srcc"]))
    console.print(table)
    payload = {
        "run": {
            "calls": (
                f"dimension_redundancy(panel, benchmark={bench!r}, column='dimension'), "
                f"instance_redundancy(panel, benchmark={big!r}, top_k / bottom_k={TOP_K}), "
                "benchmark_redundancy(panel)"
            ),
            "metrics": ", ".join(METRICS),
            "input": f"simulated panel (SimulationConfig.small(), seed {seed})",
            "fingerprint_sha256": panel_fingerprint(panel),
            "sizes": (
                f"{panel.n_models} model runs x {panel.n_items} items, {len(panel.benchmarks)} benchmarks"
            ),
        },
        "files": [str(f) for f in files],
        "dimension_benchmark": bench,
        "internal_redundancy": dims.internal_redundancy,
        "planted_within_srcc": within,
        "planted_across_srcc": across,
        "top_pair_srcc": pair[0] if pair else None,
        "instance_benchmark": big,
        "saturation": {label: res.saturation for label, res in curves.items()},
        "anchor": cross.anchor,
    }
    return section_result({"dimensions": dims, "instances": curves, "benchmarks": cross}, payload)
