"""``estimate`` on a suite whose items were chosen to rank models (VAW and the other ranking selectors) says
that its full-score estimates err more than on a suite built for them (``compress --selector estimate``),
in ``result.warnings``, ``--json`` and as an ``EstimateWarning`` a notebook shows; on a suite of the
estimate or the random selector it says nothing (measured in docs/ESTIMATE.md, "Suites chosen to rank")."""

from __future__ import annotations

import json
import warnings
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from benchsift.cli.main import app
from benchsift.compression import CompressionConfig, estimate_new_models, run_pipeline, write_suite
from benchsift.compression.estimate import ranking_suite_warning
from benchsift.compression.suite import load_suite
from benchsift.errors import EstimateWarning
from benchsift.simulate import SimulationConfig, simulate_panel


@pytest.fixture(scope="module")
def suites(tmp_path_factory: pytest.TempPathFactory) -> tuple[dict[str, Path], object]:
    panel = simulate_panel(
        SimulationConfig.small(n_models=60, n_benchmarks=2, n_categories=1, items_per_benchmark=200), 4
    )
    panel = panel.panel
    build, new = panel.subset(models=np.arange(50)), panel.subset(models=np.arange(50, 60))
    out = {}
    for selector in ("vaw", "variance", "estimate", "random"):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            res = run_pipeline(build, CompressionConfig(retention=0.1, floor=0, k=2, selector=selector))
        out[selector] = tmp_path_factory.mktemp(selector) / "suite"
        write_suite(res, build, out[selector])
    return out, new


def test_a_ranking_suite_is_said_to_estimate_less_well(suites) -> None:
    paths, new = suites
    for selector, path in paths.items():
        with warnings.catch_warnings(record=True) as seen:
            warnings.simplefilter("always")
            res = estimate_new_models(path, new, n_boot=50)
        said = ranking_suite_warning(load_suite(path))
        mine = [
            str(w.message)
            for w in seen
            if issubclass(w.category, EstimateWarning) and "rank" in str(w.message)
        ]
        if selector in ("estimate", "random"):
            assert said is None and not any("chosen by the" in w for w in res.warnings), selector
            assert mine == []
        else:
            assert said is not None and said.startswith(f"this suite's items were chosen by the {selector!r}")
            assert "compress --selector estimate" in said
            assert res.warnings.count(said) == 1 and mine == [said]


def test_the_cli_says_it_in_json_too(suites, tmp_path: Path) -> None:
    paths, new = suites
    scores = new.save(tmp_path / "new.parquet")
    r = CliRunner().invoke(app, ["estimate", str(paths["vaw"]), str(scores), "--n-boot", "50", "--json"])
    assert r.exit_code == 0, r.output
    assert ranking_suite_warning(load_suite(paths["vaw"])) in json.loads(r.stdout)["warnings"]
    r = CliRunner().invoke(app, ["estimate", str(paths["estimate"]), str(scores), "--n-boot", "50", "--json"])
    assert r.exit_code == 0, r.output
    assert not any("chosen by the" in w for w in json.loads(r.stdout)["warnings"])
