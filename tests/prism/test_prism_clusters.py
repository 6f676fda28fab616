"""The PRISM paired bootstrap over item clusters: unchanged without clusters, whole clusters with them."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
from typer.testing import CliRunner
from warned import calling

from benchsift.cli.main import app
from benchsift.io.verdicts import build_arrays
from benchsift.prism.bootstrap import accuracy_separation, paired_bootstrap
from benchsift.prism.scoring import score_report
from benchsift.simulate.verdicts import simulate_verdicts
from benchsift.stats import cluster_bootstrap_weights


def _table() -> pd.DataFrame:
    return simulate_verdicts(n_models=5, n_items=120, random_state=3).table


def test_without_clusters_the_bytes_do_not_change() -> None:
    table = _table()
    base = paired_bootstrap(build_arrays(table), 300, 7, clusters=None)
    auto = paired_bootstrap(build_arrays(table), 300, 7)  # no cluster column: auto finds none
    key = table["benchmark"] + "/" + table["item"]
    unique = paired_bootstrap(build_arrays(table.assign(cluster=key)), 300, 7)  # one item per cluster
    for r in (auto, unique):
        assert r.samples.tobytes() == base.samples.tobytes()
        assert r.to_dict()["clusters"]["used"] is False
    assert base.to_dict()["clusters"]["n_clusters"] == 120


def test_duplicated_items_clustered_by_pair_give_the_original_bootstrap() -> None:
    """Each item twice, the copies one cluster: the cluster bootstrap of the doubled table draws the same
    cluster counts as the item bootstrap of the original (same seed), so the replicates agree; the item
    bootstrap of the doubled table would pretend twice the items and be about 1/sqrt(2) as wide."""
    table = _table()
    copy = table.assign(item=table["item"] + "_copy")
    doubled = pd.concat([table, copy], ignore_index=True)
    doubled["cluster"] = doubled["benchmark"] + "/" + doubled["item"].str.replace("_copy", "", regex=False)
    orig = paired_bootstrap(build_arrays(table), 400, 11, clusters=None)
    arrays = build_arrays(doubled)
    clus = paired_bootstrap(arrays, 400, 11)
    assert clus.meta["clusters"] == {
        "used": True,
        "n_clusters": 120,
        "n_items": 240,
        "largest": 2,
        "column": "cluster",
        "inferred": False,
    }
    assert clus.meta["warnings"] == []  # an explicit column is not a guess
    # items of the doubled table are ordered originals first, so map the cluster counts back
    codes = pd.factorize(arrays.item_table["cluster"], sort=False)[0]
    W = cluster_bootstrap_weights(codes, 400, 11)
    np.testing.assert_array_equal(W[:, :120], W[:, 120:])
    np.testing.assert_allclose(clus.samples, orig.samples, rtol=0, atol=1e-12)
    iid = paired_bootstrap(arrays, 400, 11, clusters=None)
    ratio = np.mean(np.diff(iid.ci, axis=1)) / np.mean(np.diff(clus.ci, axis=1))
    assert 0.6 < ratio < 0.8  # about 1 / sqrt(2)


def test_score_report_and_cli_say_an_inferred_grouping(tmp_path: Path) -> None:
    table = _table()
    # four items per image within each benchmark
    local = table.groupby("benchmark")["item"].transform(lambda s: pd.factorize(s)[0] // 4)
    table = table.assign(image_path=["img" + str(v) + ".png" for v in local])
    rep = calling(score_report, table, n_boot=200, random_state=1)
    info = rep.summary["clusters"]
    assert info["used"] and info["inferred"] and info["column"] == "image_path" and info["largest"] == 4
    (w,) = rep.summary["warnings"]
    assert "column 'image_path'" in w
    off = calling(score_report, table, n_boot=200, random_state=1, clusters=None)
    assert off.summary["warnings"] == [] and off.summary["clusters"]["used"] is False
    path = tmp_path / "verdicts.csv"
    table.to_csv(path, index=False)
    res = CliRunner().invoke(app, ["prism", "score", str(path), "--bootstrap", "100", "--json"])
    assert res.exit_code == 0, res.output
    doc = json.loads(res.stdout)
    assert doc["warnings"] == [w]
    assert doc["clusters"]["used"] is True
    text = CliRunner().invoke(
        app, ["prism", "score", str(path), "--bootstrap", "100"], env={"COLUMNS": "300"}
    )
    assert text.exit_code == 0 and "warning: items grouped into" in text.stdout


def test_accuracy_separation_and_checkpoint_ceiling_take_clusters() -> None:
    from benchsift.compression.diagnostics.checkpoints import bootstrap_ceiling
    from benchsift.panel import item_clusters

    rng = np.random.default_rng(0)
    X = (rng.random((4, 60)) < 0.6).astype(float)
    a, _ = accuracy_separation(X, 200, 3)
    b, _ = accuracy_separation(X, 200, 3, clusters=np.arange(60) * 7)  # all distinct: unchanged
    assert a.tobytes() == b.tobytes()
    pairs = np.repeat(np.arange(30), 2)
    c, _ = accuracy_separation(X, 200, 3, clusters=pairs)
    W = cluster_bootstrap_weights(pairs, 200, 3)
    np.testing.assert_allclose(c, (W @ X.T) / W.sum(axis=1, keepdims=True), rtol=0, atol=1e-12)
    items = pd.DataFrame({"benchmark": ["b"] * 60, "item": [str(i) for i in range(60)], "cluster": pairs})
    found = item_clusters(items)
    plain = bootstrap_ceiling(X, 100, 1)[1]
    assert bootstrap_ceiling(X, 100, 1, item_clusters(items, None))[1].tobytes() == plain.tobytes()
    clustered = bootstrap_ceiling(X, 100, 1, found)[1]
    assert clustered.shape == plain.shape and not np.array_equal(clustered, plain)
