"""Each command prints what its library function returns: ``--json`` equals ``to_dict()`` of the one call
the command makes (``prism score``, ``prism analyze``, ``validate``, ``diagnose checkpoints``, ``redundancy
dimensions``), so a notebook user gets the CLI's numbers with one call. ``--clusters`` and
``--resample-items`` (``diagnose stage3``, ``prism score``) give what the call with the same ``clusters``
gives; ``none`` turns clustering off, and an unknown column is a one-line error naming the option."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner
from warned import calling

from benchsift._jsonutil import to_jsonable
from benchsift.cli._common import as_options
from benchsift.cli.main import app
from benchsift.compression.diagnostics import aggregate_stage3, checkpoint_ranking_by_pattern
from benchsift.compression.protocols import validate
from benchsift.panel import Panel
from benchsift.prism import means_report, score_report
from benchsift.redundancy import dimension_redundancy
from benchsift.simulate import SimulationConfig, simulate_panel
from benchsift.simulate.verdicts import simulate_verdicts

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
runner = CliRunner()


def _cli(*args: str) -> dict:
    r = runner.invoke(app, [*args, "--json"])
    assert r.exit_code == 0, r.output
    return json.loads(r.stdout)


def _plain(doc: dict) -> dict:
    """``to_dict()`` as the CLI prints it (JSON, NaN as null)."""
    return json.loads(json.dumps(to_jsonable(doc)))


@pytest.fixture(scope="module")
def panel_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    cfg = SimulationConfig.preset(
        "small", n_models=16, n_benchmarks=3, n_categories=2, items_per_benchmark=80
    )
    path = tmp_path_factory.mktemp("panel") / "panel.parquet"
    simulate_panel(cfg, random_state=1).panel.save(path)
    return path


def test_prism_score_is_score_report(tmp_path: Path) -> None:
    path = tmp_path / "verdicts.csv"
    simulate_verdicts(5, 80, unanswered_rate=0.02, random_state=3).table.to_csv(path, index=False)
    cli = _cli("prism", "score", str(path), "--bootstrap", "150", "--seed", "2", "--budget", "40")
    lib = score_report(path, n_boot=150, random_state=2, budget=40)
    assert cli == _plain(lib.to_dict())
    assert cli["matched_budget"]["n_items"] == 40 and "accuracy_separation" in cli  # the extras are there
    # a DataFrame in memory gives the same report as its file
    assert (
        _plain(
            score_report(
                simulate_verdicts(5, 80, unanswered_rate=0.02, random_state=3).table,
                n_boot=150,
                random_state=2,
                budget=40,
            ).to_dict()
        )
        == cli
    )


def test_prism_analyze_is_means_report() -> None:
    table2 = FIXTURES / "prism" / "table2.csv"
    cli = _cli("prism", "analyze", "--axis-means", str(table2), "--bootstrap", "100", "--weights", "h=2")
    lib = means_report(table2, n_boot=100, weights={"h": 2.0})
    assert cli == _plain(lib.to_dict())


def test_validate_is_validate(panel_file: Path) -> None:
    # 16 models hold out 8: --min-heldout 5 (the default 10 is refused on this panel: every rho undefined)
    args = ["--splits", "2", "--selectors", "random,variance", "--retentions", "0.1", "--floor", "10"]
    cli = _cli("validate", str(panel_file), *args, "--min-heldout", "5")
    lib = validate(  # the CLI asks for the random protocol's chronological column (tables and JSON)
        Panel.load(panel_file),
        splits=2,
        selectors=["random", "variance"],
        retentions=[0.1],
        floor=10,
        min_heldout=5,
        chronological_column=True,
    )
    drop = {"seconds"}  # selection time per selector: measured, not computed
    # the floor of 10 binds at 10 % in one category: the library's warning, as the CLI writes its options
    expected = _plain(lib.to_dict())
    assert len(expected["warnings"]) == 1 and "(`floor`) overrides retention 10 %" in expected["warnings"][0]
    expected["warnings"] = [as_options(w) for w in expected["warnings"]]
    assert {k: v for k, v in cli.items() if k not in drop} == {
        k: v for k, v in expected.items() if k not in drop
    }
    assert lib.to_frame().shape[0] == 2


def test_diagnose_checkpoints_is_checkpoint_ranking_by_pattern(panel_file: Path) -> None:
    panel = Panel.load(panel_file)
    family = panel.models["family"].value_counts().index[0]
    cli = _cli("diagnose", "checkpoints", str(panel_file), "--variants", f"^{family}-", "--n-boot", "50")
    lib = checkpoint_ranking_by_pattern(panel, f"^{family}-", n_boot=50)
    assert cli == _plain({**lib.to_dict(), "warnings": []})


def test_redundancy_dimensions_is_dimension_redundancy(panel_file: Path) -> None:
    cli = _cli("redundancy", "dimensions", str(panel_file))
    assert cli == _plain(dimension_redundancy(Panel.load(panel_file)).to_dict())


@pytest.fixture(scope="module")
def clustered_panel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    cfg = SimulationConfig.small(
        n_models=14,
        n_benchmarks=4,
        n_categories=2,
        items_per_benchmark=60,
        min_items_per_benchmark=40,
        items_per_image=3,
        image_response_sd=1.0,
    )
    path = tmp_path_factory.mktemp("clusters") / "panel.parquet"
    simulate_panel(cfg, 2).panel.save(path)
    return path


def test_stage3_clusters_match_the_library(clustered_panel: Path) -> None:
    panel = Panel.load(clustered_panel)
    common = ["diagnose", "stage3", str(clustered_panel), "--k", "2", "--n-boot", "60"]
    kw: dict[str, Any] = dict(ks=[2], n_boot=60, random_state=0)
    auto = _cli(*common)
    assert auto["items_resampled"] is True and auto["clusters"]["used"] is True
    assert auto == _plain(aggregate_stage3(panel, **kw).to_dict())
    off = _cli(*common, "--clusters", "none")
    assert off["items_resampled"] is False
    assert off == _plain(aggregate_stage3(panel, clusters=None, **kw).to_dict())
    assert off["rows"] != auto["rows"]  # the item clusters widen the intervals
    models_only = _cli(*common, "--no-resample-items")
    assert models_only["items_resampled"] is False
    assert models_only == _plain(aggregate_stage3(panel, resample_items=False, **kw).to_dict())
    by_column = _cli(*common, "--clusters", "image")
    assert by_column == _plain(aggregate_stage3(panel, clusters="image", **kw).to_dict())


def test_unknown_cluster_column_is_one_line(clustered_panel: Path) -> None:
    r = runner.invoke(app, ["diagnose", "stage3", str(clustered_panel), "--clusters", "nosuch", "--json"])
    assert r.exit_code == 2
    assert "--clusters: unknown item column 'nosuch'" in r.output
    assert len(r.output.strip().splitlines()) == 1


def test_prism_score_clusters_match_the_library(tmp_path: Path) -> None:
    sim = simulate_verdicts(5, 120, random_state=1)
    table = sim.table.copy()
    # items item00000..item00119: four consecutive items share a cluster (e.g. one image)
    table["cluster"] = [f"c{int(i.removeprefix('item')) // 4}" for i in table["item"]]
    path = tmp_path / "v.csv"
    table.to_csv(path, index=False)
    args = ["prism", "score", str(path), "--bootstrap", "80"]
    auto = _cli(*args)
    assert auto["clusters"]["used"] is True
    assert auto == _plain(score_report(path, n_boot=80, random_state=0).summary)
    off = _cli(*args, "--clusters", "none")
    assert off["clusters"]["used"] is False
    assert off == _plain(score_report(path, n_boot=80, random_state=0, clusters=None).summary)
    assert off["ci"] != auto["ci"]


def test_compare_clusters_match_the_library(clustered_panel: Path) -> None:
    from benchsift.leaderboard import compare

    panel = Panel.load(clustered_panel)
    common = ["compare", str(clustered_panel), "--n-boot", "60", "--benchmarks", panel.benchmarks[0]]
    kw: dict[str, Any] = dict(n_boot=60, random_state=0, benchmarks=[panel.benchmarks[0]])
    auto = _cli(*common)
    assert auto["clusters"]["used"] is True
    lib = calling(compare, panel, **kw).to_dict()
    assert auto == _plain({**lib, "warnings": [as_options(w) for w in lib["warnings"]]})
    off = _cli(*common, "--clusters", "none")
    assert off["clusters"]["used"] is False
    assert off == _plain(calling(compare, panel, clusters=None, **kw).to_dict())
    assert off["sections"] != auto["sections"]
