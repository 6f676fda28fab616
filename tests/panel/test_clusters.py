"""Item cluster detection: explicit column, inference from image references (with a warning), singletons."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from warned import warned

from benchsift.errors import InputError
from benchsift.io import read_vlmevalkit
from benchsift.panel import item_clusters
from benchsift.simulate import SimulationConfig, simulate_panel

REAL = Path(__file__).resolve().parents[1] / "fixtures" / "io" / "vlmevalkit" / "real" / "outputs"


def test_explicit_cluster_column_missing_values_are_singletons() -> None:
    items = pd.DataFrame(
        {"benchmark": ["A", "A", "B", "B", "B"], "item": list("12345"), "cluster": ["x", None, "x", "", "y"]}
    )
    c = item_clusters(items)
    # "x" spans both benchmarks (the user's own labels); None and "" are singletons
    np.testing.assert_array_equal(c.codes, [0, 1, 0, 2, 3])
    assert (c.n_clusters, c.column, c.inferred, c.used, c.warnings) == (4, "cluster", False, True, [])
    assert c.to_dict() == {
        "used": True,
        "n_clusters": 4,
        "n_items": 5,
        "largest": 2,
        "column": "cluster",
        "inferred": False,
    }


def test_inferred_from_image_within_benchmark_with_warning() -> None:
    items = pd.DataFrame(
        {
            "benchmark": ["A", "A", "A", "B", "B"],
            "item": list("12345"),
            "image": ["p.png"] * 2 + ["q.png"] * 3,
        }
    )
    c = item_clusters(items)
    # the same relative path in two benchmarks is two images
    np.testing.assert_array_equal(c.codes, [0, 0, 1, 2, 2])
    assert c.inferred and c.column == "image" and c.used
    (w,) = c.warnings
    assert "3 clusters" in w and "column 'image'" in w and "4 of 5 items" in w
    assert not item_clusters(items, None).used and item_clusters(items, None).warnings == []
    np.testing.assert_array_equal(item_clusters(items, [1, 1, 2, 3, 4]).codes, [0, 0, 1, 2, 3])
    with pytest.raises(InputError, match="unknown item column 'nope'"):
        item_clusters(items, "nope")
    with pytest.raises(InputError, match="one cluster label per item"):
        item_clusters(items, [1, 2])


def test_no_shared_value_means_no_clusters() -> None:
    items = pd.DataFrame({"benchmark": ["A", "A"], "item": ["1", "2"], "image_path": ["a.png", "b.png"]})
    c = item_clusters(items)
    assert not c.used and c.warnings == [] and c.codes.tolist() == [0, 1]


def test_default_simulated_panel_has_no_clusters_and_shared_images_are_found() -> None:
    plain = simulate_panel(SimulationConfig.small(items_per_benchmark=60, n_benchmarks=3), 0).panel
    assert not item_clusters(plain.items).used
    cfg = SimulationConfig.small(items_per_benchmark=60, n_benchmarks=3, items_per_image=4)
    sim = simulate_panel(cfg, 0)
    c = item_clusters(sim.panel.items)
    assert c.used and c.column == "image" and c.inferred
    # the inferred clusters are the simulator's true images
    truth = sim.truth.item_image
    assert truth is not None
    pairs = c.codes[:, None] == c.codes[None, :]
    np.testing.assert_array_equal(pairs, truth[:, None] == truth[None, :])


def test_vlmevalkit_mme_questions_of_one_image_are_one_cluster() -> None:
    """MME asks two questions per image; VLMEvalKit's own result file keeps their image_path."""
    (run,) = [p for p in (REAL / "ScriptedA").iterdir() if p.is_dir()]
    panel = warned(read_vlmevalkit, run / "ScriptedA_MME_auxmatch.xlsx", expect=["MME"])
    c = item_clusters(panel.items)
    assert c.used and c.column == "image_path"
    aux = pd.read_excel(run / "ScriptedA_MME_auxmatch.xlsx")
    assert c.n_clusters == aux["image_path"].nunique()
    assert c.largest == int(aux["image_path"].value_counts().max())
