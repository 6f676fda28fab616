"""What a user audit of the CLI found, each pinned by what the user sees.

* a folder given for a file was called missing (``X: no such file``): it says it is a directory;
* a message named the library's parameter or another name of the option, not the option typed
  (``validate --retentions 0`` said ``--retention``, ``prism score --bootstrap 0`` said ``--n-boot``);
* ``diagnose stage3`` / ``shelf-life`` refused a default the user never typed (``--k ... got 5`` on 3
  benchmarks): the default is capped, with a warning; an explicit ``--k`` is still refused;
* several "did you mean" hints in a row did not say which unknown name each was for;
* ``validate --selectors random,variance`` noted that VAW had no coverage cells, though no VAW ran.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from benchsift import Panel
from benchsift._inputs import check_known, existing_file
from benchsift.cli.main import app
from benchsift.errors import InputError
from benchsift.simulate import SimulationConfig, simulate_panel

runner = CliRunner()


@pytest.fixture(scope="module")
def three(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A dated panel of 3 benchmarks with no question text (so no built-in text embedding)."""
    cfg = SimulationConfig.small(n_benchmarks=3, n_categories=3, items_per_benchmark=60)
    panel = simulate_panel(cfg, random_state=0).panel
    path = tmp_path_factory.mktemp("three") / "p.parquet"
    Panel(panel.scores, panel.models, panel.items.drop(columns="question")).save(path)
    return path


def _error(args: list[str]) -> str:
    r = runner.invoke(app, args)
    assert r.exit_code == 2, r.output
    assert r.stdout == "" and r.stderr.count("\n") == 1, r.output
    line: str = r.stderr.strip()
    assert line.startswith("benchsift: error: "), line
    return line.removeprefix("benchsift: error: ")


# --- a folder where a file is expected ------------------------------------------------------------------


def test_a_folder_for_a_file_is_called_a_folder(tmp_path: Path, three: Path) -> None:
    folder = tmp_path / "somedir"
    folder.mkdir()
    out = tmp_path / "out"
    suite = tmp_path / "suite"
    assert runner.invoke(app, ["compress", str(three), "--out", str(suite)]).exit_code == 0
    scores = f"{folder}: is a directory, expected scores: a long CSV or a panel parquet"
    for args in (
        ["info", str(folder)],
        ["compare", str(folder)],
        ["validate", str(folder), "--out", str(out)],
        ["audit", str(folder)],
        ["compress", str(folder), "--out", str(out)],
        ["adaptive", "bank", str(folder), "-o", str(out / "bank.json")],
        ["estimate", str(suite), str(folder)],
        ["diagnose", "stage3", str(folder)],
        ["redundancy", "instances", str(folder)],
    ):
        assert _error(args) == scores, args
    assert _error(["adaptive", "next", str(folder)]).startswith(
        f"{folder}: is a directory, expected an item bank"
    )
    assert _error(["validate", str(three), "--embeddings", str(folder)]) == (
        f"{folder}: is a directory, expected embeddings"
    )
    assert not out.exists()
    # a missing file is still missing
    assert _error(["info", str(tmp_path / "nope.parquet")]).startswith(
        f"{tmp_path / 'nope.parquet'}: no such file"
    )


def test_existing_file_names_a_folder(tmp_path: Path) -> None:
    with pytest.raises(InputError) as err:
        existing_file(tmp_path, "an item bank")
    assert str(err.value) == f"{tmp_path}: is a directory, expected an item bank"


# --- the option typed ------------------------------------------------------------------------------------


def test_messages_name_the_option_typed(three: Path) -> None:
    p = str(three)
    assert (
        _error(["validate", p, "--retentions", "0.05,0"])
        == "--retentions: expected a number in (0, 1], got 0.0"
    )
    assert _error(["validate", p, "--splits", "0"]) == "--splits: expected an integer >= 1, got 0"
    assert _error(["diagnose", "leftout", p, "--splits", "0"]) == "--splits: expected an integer >= 1, got 0"
    assert _error(["adaptive", "simulate", p, "--splits", "0"]).startswith("--splits: expected an int")
    assert _error(["redundancy", "instances", p, "--seed", "-1"]).startswith(
        "--seed: expected an integer >= 0"
    )
    # a negative seed reached numpy in a worker: an internal error (exit 70), now the one line of exit 2
    assert _error(["adaptive", "simulate", p, "--seed", "-1"]).startswith("--seed: expected an integer >= 0")
    # compress takes one retention, as --retention: its own name
    assert _error(["compress", p, "--out", str(three.parent / "o"), "--retention", "0"]).startswith(
        "--retention: expected"
    )


def test_prism_names_the_alias_typed(tmp_path: Path) -> None:
    from benchsift.simulate.verdicts import simulate_verdicts

    v = tmp_path / "verdicts.csv"
    simulate_verdicts(4, 30, random_state=3).table.to_csv(v, index=False)
    assert (
        _error(["prism", "score", str(v), "--bootstrap", "0"])
        == "--bootstrap: expected an integer >= 1, got 0"
    )
    assert (
        _error(["prism", "score", str(v), "--bootstrap=0"]) == "--bootstrap: expected an integer >= 1, got 0"
    )
    assert _error(["prism", "score", str(v), "--n-boot", "0"]) == "--n-boot: expected an integer >= 1, got 0"
    assert _error(["prism", "score", str(v), "--sc-variant", "X"]).startswith("--sc-variant: expected one of")


# --- a default that does not fit is capped, not blamed on the user ---------------------------------------

CAPPED_STAGE3 = "--k not given: its default 3, 5, 8 asks for more than the panel's 3 benchmark(s); using 3"


def test_stage3_caps_its_default_k_with_a_warning(three: Path) -> None:
    args = ["diagnose", "stage3", str(three), "--n-boot", "50"]
    plain = runner.invoke(app, args, terminal_width=300, env={"COLUMNS": "300"})
    assert plain.exit_code == 0, plain.output
    assert f"warning: {CAPPED_STAGE3} (pass --k to choose)" in plain.stdout
    js = runner.invoke(app, [*args, "--json"])
    assert js.exit_code == 0, js.output
    out = json.loads(js.stdout)
    assert out["warnings"][0] == f"{CAPPED_STAGE3} (pass --k to choose)"
    assert [row["k"] for row in out["rows"]] == [3]
    assert (
        _error([*args, "--k", "5"])
        == "--k: expected an integer between 1 and the number of benchmarks (3), got 5"
    )


def test_shelf_life_caps_its_default_k_with_a_warning(three: Path) -> None:
    js = runner.invoke(app, ["diagnose", "shelf-life", str(three), "--json"])
    assert js.exit_code == 0, js.output
    out = json.loads(js.stdout)
    assert out["k"] == 3
    assert out["warnings"] == [
        "--k not given: its default 5 asks for more than the panel's 3 benchmark(s); using 3"
        " (pass --k to choose)"
    ]
    assert _error(["diagnose", "shelf-life", str(three), "--k", "4"]).startswith(
        "--k: expected an integer between"
    )
    assert js.stderr == ""  # said once, in the result's warnings (the Python warning is not printed too)


def test_the_library_caps_its_default_sizes_with_a_python_warning(three: Path) -> None:
    # a notebook user calling the diagnostics without k gets the same capped default and a warning it shows
    from benchsift.compression import diagnostics as diag
    from benchsift.errors import BenchsiftWarning
    from benchsift.io import read_scores

    panel = read_scores(three)
    with pytest.warns(BenchsiftWarning, match=r"`ks` not given: its default 3, 5, 8 .* using 3 \(pass `ks`"):
        res = diag.aggregate_stage3(panel, n_boot=20)
    assert [row["k"] for row in res.rows] == [3] and res.warnings[0].startswith("`ks` not given")
    with pytest.warns(BenchsiftWarning, match=r"`k` not given: its default 5 .* using 3"):
        life = diag.shelf_life(panel)
    assert life.k == 3 and life.to_dict()["warnings"] == life.warnings


# --- each hint names its unknown name --------------------------------------------------------------------


def test_each_hint_names_its_unknown_name() -> None:
    from benchsift._inputs import named_hints

    known = ["MMMU", "AI2D", "MMT"]
    assert named_hints(["MMMU2", "OCR", "AI2D_TEST"], known) == (
        "'MMMU2' (did you mean 'MMMU'?), 'OCR', 'AI2D_TEST' (did you mean 'AI2D'?)"
    )
    many = named_hints([f"benchmark_{i:03d}_{'x' * 200}" for i in range(50)], known)
    assert many.endswith(" and 45 more") and len(many) < 400
    with pytest.raises(InputError) as err:
        check_known("targets", ["MMMU2", "MMT", "AI2D_TEST"], known, what="benchmark")
    assert str(err.value) == (
        "targets: unknown benchmark(s) 'MMMU2' (did you mean 'MMMU'?), 'AI2D_TEST' (did you mean 'AI2D'?);"
        " expected some of ['MMMU', 'AI2D', 'MMT']"
    )


def test_redundancy_hints_name_their_names(three: Path) -> None:
    line = _error(
        ["redundancy", "instances", str(three), "--each-benchmark", "--benchmarks", "bench01x,zzz,bench00"]
    )
    assert line.startswith("unknown benchmark(s) 'bench01x' (did you mean 'bench01'"), line
    assert "), 'zzz'; the panel has" in line


# --- the VAW note only when VAW runs ---------------------------------------------------------------------

VAW_NOTE = "no embeddings and no question text: VAW has no coverage cells (shares filled by score)"


@pytest.mark.parametrize(
    ("selectors", "noted"), [("random,variance", False), ("disco", False), ("vaw", True)]
)
def test_validate_notes_vaw_cells_only_when_vaw_runs(three: Path, selectors: str, noted: bool) -> None:
    args = ["validate", str(three), "--selectors", selectors, "--retentions", "0.5", "--splits", "2"]
    js = runner.invoke(app, [*args, "--json"])
    assert js.exit_code == 0, js.output
    assert (VAW_NOTE in json.loads(js.stdout)["notes"]) is noted


def test_auto_counts_as_vaw_when_vaw_is_a_candidate() -> None:
    from benchsift.compression.selectors.auto import AutoSelector
    from benchsift.compression.selectors.registry import draws_coverage_cells

    assert draws_coverage_cells("auto") and draws_coverage_cells("vaw")
    assert not draws_coverage_cells("random") and not draws_coverage_cells("disco")
    assert not draws_coverage_cells(AutoSelector(candidates=("random", "pointbiserial")))


def test_compress_notes_cells_only_for_vaw(three: Path, tmp_path: Path) -> None:
    for selector, noted in (("random", False), ("vaw", True)):
        r = runner.invoke(
            app, ["compress", str(three), "--out", str(tmp_path / selector), "--selector", selector, "--json"]
        )
        assert r.exit_code == 0, r.output
        notes = json.dumps(json.loads(r.stdout))
        assert ("no coverage cells" in notes) is noted, selector


def test_stacked_scores_are_unchanged_by_the_capped_default(three: Path) -> None:
    """--k left out on 3 benchmarks runs what --k 3 runs."""
    base = ["diagnose", "stage3", str(three), "--n-boot", "50", "--json"]
    capped, given = (json.loads(runner.invoke(app, a).stdout) for a in (base, [*base, "--k", "3"]))
    assert capped["rows"] == given["rows"] and given["warnings"] == []
    assert np.isfinite([r.get("rho", 0.0) or 0.0 for r in capped["rows"]]).all()
