"""Redundancy figures (PNG + SVG, labelled) and the demo section."""

from __future__ import annotations

import numpy as np
from rich.console import Console

from benchsift.redundancy import dimension_redundancy, instance_redundancy
from benchsift.report.redundancy_figures import (
    curves_figure,
    save_figure,
    write_dimension_figures,
)


def test_dimension_figures_are_labelled_png_and_svg(planted, tmp_path):
    panel, truth = planted
    res = dimension_redundancy(panel, metrics="srcc")
    paths = write_dimension_figures(res, tmp_path)
    names = sorted(p.name for p in paths)
    assert names == [
        "dimensions_bars_srcc.png",
        "dimensions_bars_srcc.svg",
        "dimensions_heatmap_srcc.png",
        "dimensions_heatmap_srcc.svg",
    ]
    assert (tmp_path / "dimensions_heatmap_srcc.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    svg = (tmp_path / "dimensions_heatmap_srcc.svg").read_text()
    for dim in truth:
        assert dim in svg
    assert not list(tmp_path.glob(".*tmp"))  # nothing half-written left behind


def test_curves_with_bands(planted, tmp_path):
    panel, _ = planted
    kw = {"ratios": [0.05, 0.5], "repeats": 5, "metrics": "srcc", "random_state": 0}
    res = {"all": instance_redundancy(panel, **kw), "top-20": instance_redundancy(panel, top_k=20, **kw)}
    fig = curves_figure(res, "srcc", "curves")
    ax = fig.axes[0]
    assert len(ax.lines) == 3  # two curves and the threshold line
    assert len(ax.collections) == 2  # two sd bands
    np.testing.assert_allclose(ax.lines[0].get_xdata(), [5.0, 50.0])
    paths = save_figure(fig, tmp_path / "c")
    assert [p.suffix for p in paths] == [".png", ".svg"]


def test_demo_section(tmp_path):
    from benchsift.workflows.demo_redundancy import run_demo_section

    summary = run_demo_section(tmp_path, 0, Console(quiet=True)).payload
    folder = tmp_path / "redundancy"
    for name in ("dimensions.json", "instances.json", "benchmarks.json", "instances_curve_srcc.svg"):
        assert (folder / name).exists()
    # The simulator's planted dimension groups show up as blocks of the heatmap.
    assert summary["planted_within_srcc"] > summary["planted_across_srcc"] + 0.2
    assert set(summary["saturation"]) == {"all", "top-20", "bottom-20"}
    # Appendix C: the most redundant pair is reported, and it lies inside one planted group.
    from benchsift.simulate import SimulationConfig, simulate_panel

    groups = simulate_panel(SimulationConfig.small(), random_state=0).truth.dimension_groups
    pair = summary["top_pair_srcc"]
    planted = groups[summary["dimension_benchmark"]]
    assert planted[pair["a"]] == planted[pair["b"]]


def test_r2_curves_cut_at_floor_with_a_note(planted):
    panel, _ = planted
    # 1 % of 840 items = 8 items: R2 of the top-20 models is far below -1 (their scores are close).
    kw = {"ratios": [0.01, 0.5, 0.9], "repeats": 10, "metrics": "r2,srcc", "random_state": 0}
    res = {"all": instance_redundancy(panel, **kw), "top-20": instance_redundancy(panel, top_k=20, **kw)}
    low = min(float(np.nanmin(r.mean["r2"])) for r in res.values())
    assert low < -1.0
    ax = curves_figure(res, "r2", "r2").axes[0]
    assert ax.get_ylim()[0] == -1.0 and 1.0 <= ax.get_ylim()[1] < 1.2
    notes = [t.get_text() for t in ax.texts]
    assert any(f"{low:.2f}" in t and "cut at -1" in t for t in notes)
    # A curve that stays above the floor keeps matplotlib's own limits and no note.
    ax = curves_figure(res, "srcc", "srcc").axes[0]
    assert ax.get_ylim()[0] > -1.0 and not ax.texts
