"""The validate and diagnose workflows: the method's numbers unchanged, the figure files listed and named in
the warnings, the ``--out`` folder written, the end-to-end protocol's missing figure said."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from benchsift.compression.diagnostics import leftout_prediction as direct_leftout
from benchsift.compression.protocols import validate
from benchsift.panel import Panel
from benchsift.simulate import SimulationConfig, simulate_panel
from benchsift.workflows.diagnose import leftout_prediction
from benchsift.workflows.validate import NO_FIGURE, validate_panel


@pytest.fixture(scope="module")
def panel() -> Panel:
    cfg = SimulationConfig.small(n_benchmarks=6, n_categories=3, items_per_benchmark=60, n_models=24)
    return simulate_panel(cfg, 2).panel


def test_validate_writes_the_figure_and_the_folder(panel: Panel, tmp_path: Path) -> None:
    options = {
        "selectors": ["random", "variance"],
        "retentions": [0.1],
        "splits": 2,
        "random_state": 5,
        "floor": 0,
    }
    run = validate_panel(panel, figure=tmp_path / "fig", out=tmp_path / "out", data="sim", **options)
    direct = validate(panel, **options)
    assert run.value.to_dict()["results"] == direct.to_dict()["results"]
    pngs = [tmp_path / "fig.png", tmp_path / "fig.svg"]
    assert run.files == [*pngs, tmp_path / "out" / "index.html"]
    assert all(p.is_file() for p in run.files)
    line = f"--figure: wrote {pngs[0]}, {pngs[1]}"
    assert run.warnings[-1] == line and run.payload["warnings"][-1] == line
    saved = json.loads((tmp_path / "out" / "validate.json").read_text())
    assert saved["results"] == json.loads(json.dumps(run.payload["results"]))
    assert (tmp_path / "out" / "selector_retention.png").is_file()


def test_end_to_end_has_no_figure_and_says_so(panel: Panel, tmp_path: Path) -> None:
    run = validate_panel(
        panel,
        protocol="end-to-end",
        figure=tmp_path / "fig",
        selectors=["random"],
        retentions=[0.1],
        splits=2,
        k=2,
        floor=0,
    )
    assert run.files == [] and not list(tmp_path.iterdir())
    assert run.warnings[-1] == NO_FIGURE and run.payload["warnings"][-1] == NO_FIGURE


def test_leftout_figure(panel: Panel, tmp_path: Path) -> None:
    options = {"sizes": [2, 4], "n_splits": 3, "random_state": 1}
    run = leftout_prediction(panel, figure=tmp_path / "f", data="sim", **options)
    expected = direct_leftout(panel, **options).table()
    got = run.value.table()
    numeric = got.select_dtypes("number").columns
    assert len(numeric) and got.drop(columns=numeric).equals(expected.drop(columns=numeric))
    assert np.allclose(got[numeric].to_numpy(float), expected[numeric].to_numpy(float), equal_nan=True)
    assert run.files == [tmp_path / "f.png", tmp_path / "f.svg"] and all(p.is_file() for p in run.files)
    assert run.payload["warnings"] == run.warnings == [f"--figure: wrote {run.files[0]}, {run.files[1]}"]
    assert run.payload["mae"] == run.value.to_dict()["mae"]
