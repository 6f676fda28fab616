"""Every public result type follows one protocol (:mod:`benchsift.results`): ``to_dict()`` is JSON,
``to_frame()`` a DataFrame, ``repr`` a few lines however large the result, ``_repr_html_`` a table."""

from __future__ import annotations

import json
import warnings

import numpy as np
import pandas as pd
import pytest
from warned import calling

from benchsift.adaptive import fit_bank, next_items, simulate_adaptive
from benchsift.audit import audit
from benchsift.compression import CompressionConfig, run_pipeline
from benchsift.compression.diagnostics import (
    aggregate_stage3,
    leftout_prediction,
    panel_spectrum,
    shelf_life,
    spectrum_report,
)
from benchsift.compression.estimate import estimate_new_models
from benchsift.compression.export import export_suite
from benchsift.compression.protocols import validate
from benchsift.compression.suite import write_suite
from benchsift.errors import EstimateWarning
from benchsift.leaderboard import compare, compare_suite
from benchsift.prism import audit_report, means_report, score_report
from benchsift.redundancy import (
    benchmark_redundancy,
    compare_instance_redundancy,
    dimension_redundancy,
    instance_redundancy,
    instance_redundancy_by_benchmark,
)
from benchsift.results import REPR_LINES, REPR_WIDTH, Result, summarize_value
from benchsift.simulate import SimulationConfig, simulate_panel
from benchsift.simulate.verdicts import simulate_verdicts


@pytest.fixture(scope="module")
def results(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Result]:
    cfg = SimulationConfig.preset(
        "small", n_models=20, n_benchmarks=4, n_categories=2, items_per_benchmark=100
    )
    panel = simulate_panel(cfg, random_state=0).panel
    verdicts = simulate_verdicts(5, 60, random_state=0).table
    comp = calling(run_pipeline, panel, CompressionConfig(retention=0.1, k=2, floor=10, full_score_folds=2))
    bank = fit_bank(panel)
    image = panel.image_panel()
    models, X, _ = bank.responses(image.subset(models=[0, 1]))
    out: dict[str, Result] = {
        "compression": comp,
        "full_score": comp.full_score,  # type: ignore[dict-item]
        "stage2": comp.stage2,  # type: ignore[dict-item]
        "dimensions": dimension_redundancy(panel),
        "instances": instance_redundancy(panel, ratios=[0.1, 0.5], repeats=5, random_state=0),
        "instances_by_benchmark": instance_redundancy_by_benchmark(
            panel, ratios=[0.2, 0.5], repeats=3, random_state=0
        ),
        "benchmarks": benchmark_redundancy(panel),
        "compare": compare_instance_redundancy(panel, 5, ratios=[0.2, 0.5], repeats=3, random_state=0),
        "validate": validate(panel, splits=2, selectors=["random", "variance"], retentions=[0.1], floor=10),
        "heldout": validate(panel, splits=2, selectors=["random"], retentions=[0.1], floor=10).result,
        "bank": bank,
        "next": next_items(bank, X, models, batch=3),
        "adaptive": simulate_adaptive(panel, n_splits=2, random_state=0),
        "spectrum": panel_spectrum(panel),
        "spectrum_report": spectrum_report(panel, "benchmark"),
        "stage3": aggregate_stage3(panel, ks=[1, 2], n_boot=50),
        "shelf_life": shelf_life(panel, k=2),
        "leftout": leftout_prediction(panel, sizes=[2, 4], n_splits=2),
        "score": calling(score_report, verdicts, n_boot=50),
        "bootstrap": calling(score_report, verdicts, n_boot=50).bootstrap,
        "means": means_report(
            pd.DataFrame({"model": ["a", "b", "c"], "q": [0.2, 0.5, 0.7], "h": [0.3, 0.6, 0.4]})
        ),
        "audit": audit_report(verdicts, verdicts, items=30),
        "health": calling(audit, panel),
        "leaderboard": calling(compare, panel, n_boot=50),
    }
    suite_dir = tmp_path_factory.mktemp("suite") / "suite"
    write_suite(comp, panel, suite_dir)
    out["export"] = export_suite(
        suite_dir, "inspect", tmp_path_factory.mktemp("export") / "x", ids_from="inspect"
    )
    with warnings.catch_warnings():  # reference models given as new ones may be at the edge: incidental here
        warnings.simplefilter("ignore", EstimateWarning)
        out["estimate"] = estimate_new_models(suite_dir, image.subset(models=[0, 1]), n_boot=20)
        out["suite_compare"] = compare_suite(suite_dir, image.subset(models=[0, 1, 2]), n_boot=20)
    return out


NAMES = [
    "compression",
    "full_score",
    "stage2",
    "dimensions",
    "instances",
    "instances_by_benchmark",
    "benchmarks",
    "compare",
    "validate",
    "heldout",
    "bank",
    "next",
    "adaptive",
    "spectrum",
    "spectrum_report",
    "stage3",
    "shelf_life",
    "leftout",
    "score",
    "bootstrap",
    "means",
    "audit",
    "health",
    "export",
    "estimate",
    "leaderboard",
    "suite_compare",
]


@pytest.mark.parametrize("name", NAMES)
def test_result_protocol(results: dict[str, Result], name: str) -> None:
    res = results[name]
    assert isinstance(res, Result), type(res)
    doc = res.to_dict()
    assert isinstance(doc, dict) and doc
    json.dumps(doc)  # JSON-serialisable as it is: no numpy arrays or scalars left
    frame = res.to_frame()
    assert isinstance(frame, pd.DataFrame) and frame.shape[0] > 0
    text = repr(res)
    lines = text.splitlines()
    assert lines[0].startswith(type(res).__name__ + "(")
    assert len(lines) <= REPR_LINES and all(len(line) <= REPR_WIDTH + 20 for line in lines), text
    html = res._repr_html_()
    assert html.startswith("<pre>") and "<table" in html


def test_repr_is_short_for_a_large_result(results: dict[str, Result]) -> None:
    # the dataclass repr of a CompressionResult printed every array (29,886 characters on the demo panel)
    assert len(repr(results["compression"])) < 700


def test_summarize_value() -> None:
    assert summarize_value(np.zeros((3, 4))) == "array(shape=(3, 4), dtype=float64)"
    assert summarize_value(pd.DataFrame({"a": [1, 2]})) == "DataFrame(2x1)"
    assert summarize_value(list(range(10))) == "[10 items]"
    assert summarize_value(["a", "b"]) == "['a', 'b']"
    assert summarize_value(0.123456789) == "0.1235"
    assert summarize_value("x" * 50) == repr("x" * 37 + "...")
    assert summarize_value({"a": 1}) == "{1 entries}"
