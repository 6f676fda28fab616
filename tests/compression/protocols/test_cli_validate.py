"""``benchsift validate --json``: the JSON shape of every protocol."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from typer.testing import CliRunner

from benchsift.cli.main import app
from benchsift.panel import Panel

KEYS = {"selector", "retention", "rho_mean", "rho_sd", "rho_min", "rho_max", "wins"}


@pytest.fixture(scope="module")
def one_benchmark(tmp_path_factory: pytest.TempPathFactory) -> Path:
    rng = np.random.default_rng(0)
    theta = rng.normal(size=(30, 1))
    S = (rng.random((30, 300)) < 1 / (1 + np.exp(-(theta - rng.normal(size=(1, 300)))))).astype(float)
    p = Panel.from_matrix(S, [f"m{i}" for i in range(30)], [f"q{j}" for j in range(300)], benchmark="only")
    path = tmp_path_factory.mktemp("cli") / "panel.parquet"
    p.save(path)
    return path


@pytest.mark.parametrize("protocol", ["random", "same-model", "end-to-end"])
def test_validate_json_shape(one_benchmark: Path, protocol: str) -> None:
    args = [
        "validate",
        str(one_benchmark),
        "--protocol",
        protocol,
        "--selectors",
        "random,variance",
        "--retentions",
        "0.05,0.2",
        "--splits",
        "3",
        "--floor",
        "0",
        "--json",
    ]
    out = CliRunner().invoke(app, args)
    assert out.exit_code == 0, out.output
    data = json.loads(out.stdout)
    assert data["protocol"] == protocol
    assert len(data["results"]) == 4
    for row in data["results"]:
        assert set(row) == KEYS  # the same seven keys for every protocol
        assert row["selector"] in ("random", "variance") and row["retention"] in (0.05, 0.2)
        assert isinstance(row["wins"], int) and 0 <= row["wins"] <= 3
        assert row["rho_min"] <= row["rho_mean"] <= row["rho_max"]
    if protocol == "random":
        assert data["categories"] == ["only"]  # one benchmark, no categories: one category
        assert len(data["splits"]) == 3
    if protocol == "end-to-end":  # Table 12's other columns, outside the results rows
        assert [set(r) for r in data["table12"]] == [
            {"selector", "retention", "no_stage3", "beats_stage3_only"}
        ] * 4
        assert set(data["stage3_only"]) == {"mean", "sd", "min", "max"}


@pytest.fixture(scope="module")
def dated(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """30 models (the oldest 20 dated, monthly; the last 10 undated) on one 300-item benchmark."""
    rng = np.random.default_rng(1)
    theta = rng.normal(size=(30, 1))
    S = (rng.random((30, 300)) < 1 / (1 + np.exp(-(theta - rng.normal(size=(1, 300)))))).astype(float)
    p = Panel.from_matrix(S, [f"m{i}" for i in range(30)], [f"q{j}" for j in range(300)], benchmark="only")
    models = p.models.copy()
    dates = pd.Series(pd.date_range("2023-01-01", periods=30, freq="MS"))
    dates[20:] = pd.NaT
    models["release_date"] = dates.to_numpy()
    path = tmp_path_factory.mktemp("cli") / "dated.parquet"
    Panel(p.scores, models, p.items).save(path)
    return path


def test_validate_chronological_json(dated: Path) -> None:
    args = ["validate", str(dated), "--protocol", "chronological", "--selectors", "random,variance"]
    out = CliRunner().invoke(app, [*args, "--retentions", "0.05", "--floor", "0", "--json"])
    assert out.exit_code == 0, out.output
    data = json.loads(out.stdout)
    assert data["protocol"] == "chronological"
    assert [set(r) for r in data["results"]] == [KEYS, KEYS]
    # main split: the 15 oldest build; 20 dated models, so 10/20 and 20/10 keep undated models out
    assert [s["name"] for s in data["splits"]] == [
        "chronological 15/15",
        "chronological 10/20",
        "chronological 20/10",
    ]
    assert [x["split"] for x in data["sensitivity"]] == ["chronological 10/20", "chronological 20/10"]


def test_random_tables_add_the_chronological_column(dated: Path) -> None:
    args = ["validate", str(dated), "--selectors", "random,variance", "--retentions", "0.05,0.2"]
    out = CliRunner().invoke(app, [*args, "--splits", "2", "--floor", "0"])
    assert out.exit_code == 0, out.output
    assert "Table 10" in out.stdout and "Table 11" in out.stdout
    assert "chronological 15/15" in out.stdout


def test_random_json_carries_the_chronological_column(dated: Path) -> None:
    """The column the tables show is in ``--json`` too: the main chronological split's macro rho at the
    retention closest to 5 %, the same numbers as the chronological protocol run on its own."""
    from benchsift.compression.protocols import stage2_heldout

    args = ["validate", str(dated), "--selectors", "random,variance", "--retentions", "0.05,0.2"]
    out = CliRunner().invoke(app, [*args, "--splits", "2", "--floor", "0", "--json"])
    assert out.exit_code == 0, out.output
    chrono = json.loads(out.stdout)["chronological"]
    assert chrono["split"] == "chronological 15/15" and chrono["retention"] == 0.05
    alone = stage2_heldout(
        Panel.load(dated),
        selectors=["random", "variance"],
        retentions=[0.05],
        protocol="chronological",
        floor=0,
    )
    assert alone.splits[0].name == chrono["split"]
    expected = dict(zip(alone.selectors, alone.macro[0, :, 0], strict=True))
    assert chrono["rho_macro"] == pytest.approx(expected, abs=1e-12)


def test_random_json_without_release_dates_has_no_chronological_column(one_benchmark: Path) -> None:
    args = [
        "validate",
        str(one_benchmark),
        "--selectors",
        "random",
        "--splits",
        "2",
        "--floor",
        "0",
        "--json",
    ]
    out = CliRunner().invoke(app, args)
    assert out.exit_code == 0, out.output
    assert "chronological" not in json.loads(out.stdout)


def test_validate_rejects_unknown_selector(one_benchmark: Path) -> None:
    out = CliRunner().invoke(app, ["validate", str(one_benchmark), "--selectors", "nope", "--json"])
    assert out.exit_code == 2
    assert "unknown" in out.output


def test_validate_chronological_needs_release_dates(one_benchmark: Path) -> None:
    out = CliRunner().invoke(app, ["validate", str(one_benchmark), "--protocol", "chronological", "--json"])
    assert out.exit_code == 2
    assert "release date" in out.output


def test_validate_reads_logged_answers_for_disco(one_benchmark: Path, tmp_path: Path) -> None:
    p = Panel.load(one_benchmark)
    rng = np.random.default_rng(2)
    rows = [
        {"model": m, "item": it, "prediction": rng.choice(list("ABCD"))}
        for m in p.model_ids
        for it in p.items["item"]
        if not (m == "m0" and it == "q0")  # one scored cell without an answer
    ]
    answers = tmp_path / "answers.csv"
    pd.DataFrame(rows).to_csv(answers, index=False)
    base = ["validate", str(one_benchmark), "--selectors", "disco", "--retentions", "0.05", "--splits", "2"]
    base += ["--floor", "0", "--json"]
    plain = json.loads(CliRunner().invoke(app, base).stdout)
    out = CliRunner().invoke(app, [*base, "--answers", str(answers), "--answer-column", "prediction"])
    assert out.exit_code == 0, out.output
    data = json.loads(out.stdout)
    assert any("1 of 9000 scored cells have no logged answer" in n for n in data["notes"])
    assert data["results"][0]["rho_mean"] != plain["results"][0]["rho_mean"]  # the answers were used
    bad = CliRunner().invoke(app, [*base, "--answers", str(answers)])  # no 'answer' column
    assert bad.exit_code == 2 and "answers.csv: missing column" in bad.output and "answer" in bad.output


@pytest.fixture(scope="module")
def thousand_items(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """40 models x 1,000 items of one benchmark (one category): the default floor of 100 binds below 10 %."""
    rng = np.random.default_rng(1)
    theta = rng.normal(size=(40, 1))
    S = (rng.random((40, 1000)) < 1 / (1 + np.exp(-(theta - rng.normal(size=(1, 1000)))))).astype(float)
    p = Panel.from_matrix(S, [f"m{i}" for i in range(40)], [f"q{j}" for j in range(1000)], benchmark="only")
    path = tmp_path_factory.mktemp("floor") / "panel.parquet"
    p.save(path)
    return path


def test_default_floor_raising_retentions_is_said_everywhere(thousand_items: Path) -> None:
    """`validate --retentions 0.02,0.05` on 1,000 items: the default floor keeps 100 items (10 %) for both,
    so the two columns are the same selection. Said on the terminal, in --json and, in Python, as a
    FloorWarning (before: terminal and --json only, so a notebook showed two identical columns silently)."""
    from benchsift.compression.protocols import validate
    from benchsift.errors import FloorWarning

    override = (
        "the item floor of 100 (`floor`) overrides retention 2 % in 1 of 1 category (100 of 1,000 items, "
        "10.0 %; r alone: 20); 5 % in 1 of 1 category (100 of 1,000 items, 10.0 %; r alone: 50): those "
        "columns measure more items than the retention asked (`floor` 0 keeps exactly r)"
    )
    same = "the item floor of 100 (`floor`) gives retentions 2 %, 5 % the same budget in every category"
    panel = Panel.load(thousand_items)
    with pytest.warns(FloorWarning) as said:
        report = validate(panel, selectors=["random"], retentions=[0.02, 0.05], splits=2)
    assert [str(w.message) for w in said] == [f"validate: {w}" for w in report.warnings]
    assert report.warnings[0] == override and report.warnings[1].startswith(same)
    # a floor the caller sets is a choice: in the warnings only; floor 0 keeps r and says nothing
    assert validate(panel, selectors=["random"], retentions=[0.02, 0.05], splits=2, floor=0).warnings == ()
    args = ["validate", str(thousand_items), "--selectors", "random", "--retentions", "0.02,0.05"]
    doc = json.loads(CliRunner().invoke(app, [*args, "--splits", "2", "--json"]).stdout)
    # (the CLI names the option as typed)
    assert doc["warnings"][:2] == [w.replace("`floor`", "--floor") for w in report.warnings]
    term = CliRunner().invoke(app, [*args, "--splits", "2"])
    assert term.exit_code == 0, term.output
    flat = " ".join(term.output.split())
    assert "overrides retention 2 %" in flat and "gives retentions 2 %, 5 % the same budget" in flat
