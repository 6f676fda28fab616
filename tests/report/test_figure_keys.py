"""Every figure says on itself what its marks mean and which data it shows (issue 16, point 5)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from benchsift.redundancy import instance_redundancy
from benchsift.report.compression_figures import k_sweep_figure
from benchsift.report.figures import new_figure, save_figure
from benchsift.report.prism_figures import AXIS_NAMES, correlation_figure, forest_figure, profile_figure
from benchsift.report.redundancy_figures import curves_figure, heatmap_figure
from benchsift.report.validation_figures import selector_retention_figure
from benchsift.simulate import SimulationConfig, simulate_panel


def _legend(fig) -> list[str]:  # type: ignore[no-untyped-def]
    leg = fig.axes[0].get_legend()
    return [t.get_text() for t in leg.get_texts()]


def test_data_footer_is_on_the_figure_and_caption_in_the_svg(tmp_path: Path) -> None:
    fig = new_figure(4, 3)
    fig.add_subplot().plot([0, 1], [0, 1])
    save_figure(fig, tmp_path / "f", data="results.csv", caption="a line from 0 to 1")
    assert [t.get_text() for t in fig.texts] == ["Data: results.csv"]
    svg = (tmp_path / "f.svg").read_text()
    assert "<dc:description>a line from 0 to 1</dc:description>" in svg


def test_bands_and_lines_have_legend_entries() -> None:
    panel = simulate_panel(SimulationConfig.small(items_per_benchmark=80), random_state=0).panel
    res = instance_redundancy(panel, ratios=[0.1, 0.5], repeats=5, metrics="srcc", random_state=0)
    labels = _legend(curves_figure({"all": res}, "srcc", "t"))
    assert labels == ["all", "saturation threshold 0.95", "shaded: ±1 sd over random draws"]
    summary = pd.DataFrame(
        {
            "selector": ["vaw", "vaw"],
            "retention": [0.05, 0.1],
            "rho_mean": [0.9, 0.95],
            "rho_sd": [0.02, 0.01],
        }
    )
    assert _legend(selector_retention_figure(summary)) == ["vaw", "shaded: ±1 sd over splits"]
    sweep = pd.DataFrame({"k": [1, 2, 3], "rho": [0.9, 0.96, 0.99], "method": ["exhaustive"] * 3})
    assert sorted(_legend(k_sweep_figure(sweep, chosen_k=2))) == [
        "chosen k = 2 (rho = 0.960)",
        "exhaustive",
        "rho = 0.95",
    ]


def test_heatmaps_say_what_the_colour_and_grey_mean() -> None:
    m = np.array([[1.0, np.nan], [np.nan, 1.0]])
    fig = heatmap_figure(m, ["a", "b"], "t", "SRCC")
    assert fig.axes[1].get_ylabel() == "SRCC; grey = n/a (undefined)"
    corr = pd.DataFrame([[1.0, 0.5], [0.5, 1.0]], index=["q", "h"], columns=["q", "h"])
    assert correlation_figure(corr).axes[1].get_ylabel() == "correlation"


def test_profile_names_the_axes_and_why_these_models() -> None:
    means = pd.DataFrame(np.full((3, 2), 0.5), index=["m0", "m1", "m2"], columns=["q", "sc"])
    fig = profile_figure(means, ["m0", "m2"], why="a planted near tie")
    ax = fig.axes[0]
    assert "shown: a planted near tie" in ax.get_title()
    ticks = [t.get_text() for t in ax.get_xticklabels()]
    assert ticks == ["q\nquality", "sc\nsycophancy\nresistance"]
    assert AXIS_NAMES["sc"] == "sycophancy resistance"
    default = profile_figure(means).axes[0].get_title()
    assert "shown: the first 3 models of the table" in default
    table = pd.DataFrame({"pscore": [0.5, 0.6], "ci_lo": [0.4, 0.5], "ci_hi": [0.6, 0.7]}, index=["a", "b"])
    assert _legend(forest_figure(table)) == ["dot: PScore; bar: 95 % item-bootstrap CI"]


def test_names_with_dollar_signs_are_drawn_as_written(tmp_path: Path) -> None:
    """A benchmark named ``price$5$`` is text, not mathtext (which drew it as ``price5`` in italics)."""
    from matplotlib.text import Text

    names = ["price$5$", "plain"]
    fig = heatmap_figure(np.eye(2), names, "cost $1 vs $2", "SRCC")
    save_figure(fig, tmp_path / "h", data="runs$v2$.csv")
    texts = [t for t in fig.findobj(Text) if "$" in t.get_text()]
    assert {"price$5$", "cost $1 vs $2", "Data: runs$v2$.csv"} <= {t.get_text() for t in texts}
    assert not any(t.get_parse_math() for t in texts)
    renderer = fig.canvas.get_renderer()  # type: ignore[attr-defined]
    label = next(t for t in fig.axes[0].get_yticklabels() if t.get_text() == "price$5$")
    as_math = Text(text="price$5$", fontproperties=label.get_fontproperties(), figure=fig)
    # drawn with its dollar signs, it is wider than the same string set as math
    assert label.get_window_extent(renderer).width > as_math.get_window_extent(renderer).width
