"""Settings that change a result are said: one warning line in the table output and the same line in
``--json`` under ``"warnings"`` (issue 16: the floor, partial release dates, DISCO without answers,
--figure writing files)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from typer.testing import CliRunner

from benchsift.cli._common import as_options
from benchsift.cli.main import app
from benchsift.compression.selectors.budget import floor_warning
from benchsift.panel import Panel
from benchsift.simulate import SimulationConfig, simulate_panel

runner = CliRunner()


def _run(*args: str) -> tuple[str, dict]:
    """The table output and the --json object of one command."""
    table = runner.invoke(app, list(args), env={"COLUMNS": "200"})
    assert table.exit_code == 0, table.output
    js = runner.invoke(app, [*args, "--json"])
    assert js.exit_code == 0, js.output
    return table.stdout, json.loads(js.stdout)


def test_floor_warning_hand_computed() -> None:
    # a: floor(0.05 * 1050) = 52 < min(1050, 100) = 100 -> the floor binds; b: 150 > 100 -> r decides.
    w = floor_warning({"a": 1050, "b": 3000}, 0.05, 100)
    assert w is not None
    assert "in 1 of 2 categories: a keeps 100 of 1,050 (9.5 %; r alone: 52)" in w
    assert "in all 250 of 4,050 items (6.2 %) are kept instead of 5 %" in w
    # the library names its parameter, the CLI its flag (as errors do): no "--floor" in a notebook
    assert w.startswith("the item floor of 100 (`floor`) overrides") and w.endswith(
        "(`floor` 0 keeps exactly r)"
    )
    assert as_options(w).startswith("the item floor of 100 (--floor) overrides")
    assert as_options(w).endswith("(--floor 0 keeps exactly r)")
    assert floor_warning({"a": 1050}, 0.05, 0) is None
    assert floor_warning({"b": 3000}, 0.05, 100) is None


@pytest.fixture(scope="module")
def one_category(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One category of ~1,050 items (two benchmarks of 525): at r = 5 % the 100-item floor binds."""
    path = tmp_path_factory.mktemp("floor") / "panel.parquet"
    cfg = SimulationConfig.small(
        n_benchmarks=2, n_categories=1, items_per_benchmark=525, blind_solvable_rate=0.0
    )
    simulate_panel(cfg, random_state=0).panel.save(path)
    return path


def test_compress_floor_overriding_retention_is_a_warning(one_category: Path, tmp_path: Path) -> None:
    out = tmp_path / "suite"
    table, js = _run("compress", str(one_category), "--out", str(out), "--retention", "0.05")
    (w,) = [x for x in js["warnings"] if "item floor" in x]
    assert w.startswith(
        "stage 2: the item floor of 100 (--floor) overrides retention 0.05 in 1 of 1 category"
    )
    assert f"warning: {w}" in table
    assert js["n_items_suite"] == 100
    # The same warning reaches suite.json, and so the suite's index.html, in the library's words (written by
    # the library, read in a notebook too): `floor` where the command line says --floor.
    suite = json.loads((out / "suite.json").read_text())
    (lib,) = [x for x in suite["warnings"] if "item floor" in x]
    assert "(`floor`)" in lib and as_options(lib) == w
    assert lib in (out / "index.html").read_text()
    # --floor 0: exactly floor(r n_C) items, no warning.
    table0, js0 = _run("compress", str(one_category), "--out", str(tmp_path / "s0"), "--floor", "0")
    pool = next(s for s in js0["stages"] if s["stage"] == 2)["items_in"]
    assert js0["n_items_suite"] == int(np.floor(0.05 * pool + 1e-9)) < 100
    # no floor warning; one category still skips Stages 1 and 3, which is a warning of its own
    assert js0["warnings"] == ["the panel has one category: Stages 1 and 3 are skipped"]
    assert "warning: the panel has one category" in table0 and "item floor" not in table0


def test_validate_floor_making_columns_identical(tmp_path: Path) -> None:
    path = tmp_path / "p.parquet"
    simulate_panel(SimulationConfig.small(items_per_benchmark=120), random_state=0).panel.save(path)
    args = [
        "validate",
        str(path),
        "--selectors",
        "variance",
        "--retentions",
        "0.02,0.05,0.5",
        "--splits",
        "3",
    ]
    table, js = _run(*args)
    over, w = js["warnings"]
    assert over.startswith("the item floor of 100 (--floor) overrides retention 2 % in ")
    assert f"warning: {over}" in table
    assert w.startswith("the item floor of 100 (--floor) gives retentions 2 %, 5 % the same budget in every")
    assert f"warning: {w}" in table
    # Same budgets in every category at 2 % and 5 % (the floor), not at 50 %: the columns match up to the
    # random tie-breaking among equal variances.
    from benchsift.compression.protocols import stage2_heldout

    res = stage2_heldout(Panel.load(path), selectors=["variance"], retentions=[0.02, 0.05, 0.5], n_splits=3)
    assert (res.budgets[0] == res.budgets[1]).all() and (res.budgets[2] > res.budgets[1]).any()
    rho = {r["retention"]: r["rho_mean"] for r in js["results"]}
    assert abs(rho[0.02] - rho[0.05]) < 0.01
    _, js0 = _run(*args, "--floor", "0")
    assert js0["warnings"] == []


def _partly_dated(tmp_path: Path, n_dated: int) -> Path:
    panel = simulate_panel(
        SimulationConfig.small(n_text_only_models=0, blind_solvable_rate=0.0), random_state=0
    ).panel
    models = panel.models.copy()
    dates = pd.to_datetime(models["release_date"])
    dates.iloc[n_dated:] = pd.NaT
    models["release_date"] = dates
    path = tmp_path / "dated.parquet"
    Panel(panel.scores, models, panel.items).save(path)
    return path


def test_chronological_with_part_of_the_models_dated(tmp_path: Path) -> None:
    path = _partly_dated(tmp_path, 24)
    args = [
        "validate",
        str(path),
        "--protocol",
        "chronological",
        "--selectors",
        "random",
        "--retentions",
        "0.5",
    ]
    table, js = _run(*args)
    (w,) = [x for x in js["warnings"] if "release date" in x]
    assert "only 24 of 40 image-condition models have a release date" in w
    assert "the 16 undated models are always held out" in w
    assert f"warning: {w}" in table
    _, full = _run("validate", str(_partly_dated(tmp_path, 40)), *args[2:])
    assert not [x for x in full["warnings"] if "release date" in x]


def test_disco_without_logged_answers(tmp_path: Path) -> None:
    panel = simulate_panel(SimulationConfig.small(items_per_benchmark=120), random_state=0).panel
    path = tmp_path / "p.parquet"
    panel.save(path)
    # --floor 0: at 50 % the floor would bind in cat00 (110 items), a warning of its own
    args = [
        "validate",
        str(path),
        "--selectors",
        "disco",
        "--retentions",
        "0.5",
        "--splits",
        "2",
        "--floor",
        "0",
    ]
    table, js = _run(*args)
    (w,) = js["warnings"]
    assert w.startswith("DISCO ran without logged answers (--answers FILE, predictions=)")
    assert f"warning: {w}" in table
    # With logged answers (a letter per cell, from the score) the warning goes.
    long = panel.to_long()
    long["answer"] = np.where(long["score"] >= 0.5, "A", "B")
    answers = tmp_path / "answers.csv"
    long[["model", "condition", "benchmark", "item", "answer"]].to_csv(answers, index=False)
    _, js2 = _run(*args, "--answers", str(answers))
    assert js2["warnings"] == []


def test_figure_written_is_said(tmp_path: Path) -> None:
    path = tmp_path / "p.parquet"
    simulate_panel(SimulationConfig.small(items_per_benchmark=120), random_state=0).panel.save(path)
    fig = tmp_path / "fig" / "sel"
    args = ["validate", str(path), "--selectors", "random", "--retentions", "0.5", "--splits", "2"]
    table, js = _run(*args, "--figure", str(fig), "--floor", "0")
    (w,) = js["warnings"]
    assert w == f"--figure: wrote {fig}.png, {fig}.svg"
    assert f"warning: {w}" in table
    assert (tmp_path / "fig" / "sel.png").is_file() and (tmp_path / "fig" / "sel.svg").is_file()
