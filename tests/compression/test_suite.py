"""The released suite directory: contents, round trip, atomicity, byte-for-byte determinism, the Frontier."""

from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from warned import calling

from benchsift.compression.embeddings import ItemEmbeddings
from benchsift.compression.frontier import capability_frontier
from benchsift.compression.pipeline import CompressionConfig, panel_fingerprint, run_pipeline
from benchsift.compression.suite import load_suite, write_suite
from benchsift.errors import FloorWarning, FormatError, InputError, ResultWarning
from benchsift.panel import Panel
from benchsift.simulate import SimulationConfig, simulate_panel

CFG = SimulationConfig.small(n_benchmarks=10, n_categories=5, items_per_benchmark=200)


def _run(seed: int, out: Path, sim_seed: int = 0) -> tuple[Panel, object]:
    sim = simulate_panel(CFG, random_state=sim_seed)
    emb = ItemEmbeddings(
        sim.panel.items[["benchmark", "item"]],
        vision_text=sim.truth.embeddings_vl,
        text=sim.truth.embeddings_text,
        source="simulated",
    )
    with pytest.warns(FloorWarning, match="item floor of 100"):
        res = calling(
            run_pipeline, sim.panel, CompressionConfig(retention=0.05, k=3, random_state=seed), embeddings=emb
        )
    write_suite(res, sim.panel, out, frontier=capability_frontier(res.stage0.panel))
    return sim.panel, res


def _files(d: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(d.iterdir())}


def test_same_seed_same_suite_byte_for_byte(tmp_path: Path) -> None:
    _run(7, tmp_path / "a")
    _run(7, tmp_path / "b")
    a, b = _files(tmp_path / "a"), _files(tmp_path / "b")
    assert a.keys() == b.keys()
    for name in a:
        assert a[name] == b[name], name
    assert {"items.csv", "suite.json", "stages.csv", "reference_scores.csv", "frontier.csv"} <= a.keys()


def test_contents_and_round_trip(tmp_path: Path) -> None:
    panel, res = _run(0, tmp_path / "s")
    items = pd.read_csv(tmp_path / "s" / "items.csv", dtype=str, keep_default_na=False)
    assert list(items.columns[:3]) == ["benchmark", "item", "category"]
    assert "why" in items.columns and (items["why"] != "").all()
    assert len(items) == res.n_items_suite  # type: ignore[attr-defined]
    meta = json.loads((tmp_path / "s" / "suite.json").read_text())
    assert meta["input"]["fingerprint_sha256"] == panel_fingerprint(panel)
    assert meta["parameters"]["retention"] == 0.05 and meta["seed"] == 0
    assert [s["stage"] for s in meta["stages"]] == [0, 1, 2, 3]
    assert meta["categories_selected"] == res.selected_categories  # type: ignore[attr-defined]
    assert meta["frontier"]["n_items"] == len(pd.read_csv(tmp_path / "s" / "frontier.csv"))
    suite = load_suite(tmp_path / "s")
    keys = list(zip(items["benchmark"], items["item"], strict=True))
    pos = [panel.item_keys.index(k) for k in keys]
    np.testing.assert_array_equal(suite.reference_scores, panel.image_panel().scores[:, pos])
    assert suite.reference_models == panel.image_panel().model_ids
    stages = pd.read_csv(tmp_path / "s" / "stages.csv")
    assert stages["stage"].astype(str).tolist() == ["0", "1", "2", "3", "suite", "no-stage3"]
    # the "No Stage 3" row (PRIMEBench Table 12): all pruned categories, items entering Stage 3
    row = stages.set_index("stage").loc["no-stage3"]
    s2 = stages.set_index("stage").loc["2"]
    assert row["items_out"] == s2["items_out"] and row["items_in"] == panel.n_items
    assert row["rho_vs_stage0"] == pytest.approx(res.rho_no_stage3)  # type: ignore[attr-defined]
    assert row["rho_vs_stage0"] == pytest.approx(s2["rho_vs_stage0"])  # Stage 2 output = all categories
    assert meta["rho_no_stage3"] == pytest.approx(res.rho_no_stage3)  # type: ignore[attr-defined]
    # the Stage 2 figure is measured on the models that selected the items, and says so
    assert "in-panel" in stages.set_index("stage").loc["2", "rho_stage_is"]


def test_fingerprint_sees_scores_and_keys_only() -> None:
    sim = simulate_panel(SimulationConfig.small(items_per_benchmark=50), 0)
    p = sim.panel
    base = panel_fingerprint(p)
    models = p.models
    models["family"] = "other"
    assert panel_fingerprint(Panel(p.scores, models, p.items)) == base
    scores = p.scores.copy()
    scores[0, 0] = 0.5 if scores[0, 0] != 0.5 else 0.25
    assert panel_fingerprint(Panel(scores, p.models, p.items)) != base
    items = p.items
    items.loc[0, "item"] = "renamed"
    assert panel_fingerprint(Panel(p.scores, p.models, items)) != base


def test_wrong_panel_writes_nothing(tmp_path: Path) -> None:
    sim = simulate_panel(SimulationConfig.small(items_per_benchmark=50), 0)
    other = simulate_panel(SimulationConfig.small(items_per_benchmark=50), 1)
    res = run_pipeline(sim.panel, CompressionConfig(retention=None, k=2))
    with pytest.raises(InputError, match="not the one"):
        write_suite(res, other.panel, tmp_path / "x")
    assert not (tmp_path / "x").exists()
    write_suite(res, sim.panel, tmp_path / "x")
    write_suite(res, sim.panel, tmp_path / "x")  # replacing an existing suite works
    assert sorted(p.name for p in tmp_path.iterdir()) == ["x"]


def test_load_suite_errors(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="not a directory"):
        load_suite(tmp_path / "missing")
    (tmp_path / "d").mkdir()
    with pytest.raises(FormatError, match=r"suite\.json"):
        load_suite(tmp_path / "d")
    # a suite.json edited by hand or forged: the entries estimate reads are checked, in one line each
    sim = simulate_panel(SimulationConfig.small(items_per_benchmark=50), 0)
    write_suite(run_pipeline(sim.panel, CompressionConfig(retention=None, k=2)), sim.panel, tmp_path / "s")
    path = tmp_path / "s" / "suite.json"
    meta = json.loads(path.read_text())
    for forged, reason in (
        ([1, 2], "suite.json: format missing (a JSON list), expected 'benchsift-suite"),
        ({**meta, "categories_selected": None}, "categories_selected: expected a list of category names"),
        ({**meta, "categories_selected": 1.5}, "categories_selected: expected a list of category names"),
        ({**meta, "categories_selected": [1.0]}, "categories_selected: expected a list of category names"),
        ({**meta, "categories_selected": ["x"]}, "categories_selected: none of them is a category of items"),
        ({**meta, "input": "x"}, "suite.json: input: expected an object (the panel's fingerprint)"),
    ):
        path.write_text(json.dumps(forged))
        with pytest.raises(FormatError, match=re.escape(reason)):
            load_suite(tmp_path / "s")
    path.write_text(json.dumps(meta))
    assert load_suite(tmp_path / "s").categories == meta["categories_selected"]


def test_frontier_hand_case() -> None:
    # families F (m0, m1) and G (m2, m3); 6 items
    X = np.array(
        [
            [0.0, 1.0, 0.0, 0.5, 0.0, np.nan],
            [1.0, 1.0, 0.0, 0.0, 0.0, np.nan],
            [0.0, 0.0, 1.0, 0.0, 0.0, np.nan],
            [0.0, 0.0, 0.0, 0.0, 0.0, 1.0],
        ]
    )
    models = pd.DataFrame(
        {
            "model": ["m0", "m1", "m2", "m3"],
            "family": ["F", "F", "G", "G"],
            "release_date": pd.to_datetime(["2024-01-01", "2025-01-01", "2024-01-01", "2025-01-01"]),
        }
    )
    items = pd.DataFrame({"benchmark": "b", "item": [f"i{j}" for j in range(6)], "category": "c"})
    fr = capability_frontier(Panel(X, models, items), gain=0.5)
    # i0: F mean .5, G 0 -> candidate, mean .25 in band, v = .1875, dw = .140625
    # i1: F mean 1 -> not a candidate; i2: G mean .5, F 0 -> candidate, mean .25, same dw as i0
    # i3: F .25 -> candidate, mean .125 in band, v = .046875 * ... ; i4: all 0 -> mean 0 below band
    # i5: one scored model -> not a candidate
    assert fr.n_candidates == 4  # i0, i2, i3, i4
    assert fr.n_in_band == 3  # i0, i2, i3
    assert fr.budget == 2  # round(3 * 0.5) = round(1.5) -> 2
    assert fr.table["item"].tolist() == ["i0", "i2"]
    np.testing.assert_allclose(fr.table["dw_variance"], [0.1875 * 0.75, 0.1875 * 0.75])
    # the automatic gain: family F goes 0.5 -> 0.5 (..) ; computed per family from release dates
    auto = capability_frontier(Panel(X, models, items))
    assert auto.gain == pytest.approx(auto.family_gains["gain_per_step"].max())
    assert auto.gain_source.startswith("family")


def test_demo_section_writes_suite_figures_and_estimates(tmp_path: Path) -> None:
    from rich.console import Console

    from benchsift.workflows.demo_compression import run_demo_section

    with pytest.warns(ResultWarning, match="run_pipeline: stage 3 kept 3 of 6 categories"):
        summary = run_demo_section(tmp_path, 0, Console(quiet=True)).payload
    folder = tmp_path / "compression"
    for name in (
        "stages.png",
        "stages.svg",
        "k_sweep.png",
        "estimate.csv",
        "suite/items.csv",
        "suite/frontier.csv",
    ):
        assert (folder / name).is_file(), name
    suite = load_suite(folder / "suite")
    assert suite.n_items == summary["n_items_suite"]
    assert summary["rho_suite_vs_stage0"] >= 0.9
    json.dumps(summary)  # JSON-able
    assert len(pd.read_csv(folder / "estimate.csv")) == 3
