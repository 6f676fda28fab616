"""One ``--out`` folder, several commands and reruns (issue 33, audit s33 defects 2, 5 and 6).

* a rerun of a command into its folder removes the files its earlier run wrote there and this run does not
  write again (no stale figure or table on the page), and nothing else;
* a command keeps every other command's files in the folder; a file name two commands write is refused
  in one line naming the file and the other command (exit 2), with nothing written;
* a page benchsift would not overwrite (the user edited it) refuses the run before any file is written.

Real files in ``tmp_path``, the real CLI (typer's CliRunner); each check compares the sha256 of every file
before and after.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from benchsift._fileio import MANIFEST, as_command, atomic_dir
from benchsift.cli.main import app
from benchsift.errors import InputError
from benchsift.simulate import SimulationConfig, simulate_panel

runner = CliRunner()

#: the user's own files, placed in every folder first: never touched
USER_FILES = {"notes.txt": b"my notes\n", "my_results.csv": b"model,score\na,1\n", "sub/keep.csv": b"a,1\n"}

VALIDATE = ["--selectors", "vaw,random", "--splits", "2", "--floor", "0", "--seed", "0"]


@pytest.fixture(scope="module")
def panel_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    sim = simulate_panel(
        SimulationConfig.small(n_benchmarks=2, n_categories=2, items_per_benchmark=60, n_models=30), 1
    )
    return sim.panel.save(tmp_path_factory.mktemp("folders") / "panel.parquet")


def _snapshot(folder: Path) -> dict[str, str]:
    """sha256 of every file under ``folder`` (the manifest included), by relative path."""
    return {
        p.relative_to(folder).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(folder.rglob("*"))
        if p.is_file()
    }


def _user_folder(tmp_path: Path) -> Path:
    out = tmp_path / "out"
    for rel, data in USER_FILES.items():
        (out / rel).parent.mkdir(parents=True, exist_ok=True)
        (out / rel).write_bytes(data)
    return out


def _user_files_kept(out: Path) -> None:
    for rel, data in USER_FILES.items():
        assert (out / rel).read_bytes() == data, rel


def _run(args: list[str], code: int = 0) -> str:
    res = runner.invoke(app, [str(a) for a in args])
    assert res.exit_code == code, res.output
    return res.output


def _files(folder: Path) -> set[str]:
    return {p.name for p in folder.iterdir() if p.is_file()}


def _commands(folder: Path) -> dict[str, str | None]:
    files = json.loads((folder / MANIFEST).read_text())["files"]
    return {name: entry.get("command") for name, entry in files.items()}


# --- defect 2: a rerun removes its own earlier files ------------------------------------------------------


def test_a_compare_rerun_leaves_no_figure_or_table_of_the_earlier_run(
    panel_file: Path, tmp_path: Path
) -> None:
    out = _user_folder(tmp_path)
    from benchsift.io import read_scores

    panel = read_scores(panel_file)
    a, b = panel.model_ids[:2]
    bench = panel.benchmarks[0]
    _run(["compare", panel_file, "--n-boot", "50", "--pair", f"{a},{b}", "--out", out])
    first = _files(out)
    assert {"pair_power.csv", "ranks_overall.svg", f"ranks_{panel.benchmarks[1]}.svg"} <= first
    _run(["compare", panel_file, "--n-boot", "50", "--benchmarks", bench, "--out", out])
    now = _files(out)
    stale = {"pair_power.csv", "ranks_overall.svg", "ranks_overall.png"}
    stale |= {f"ranks_{panel.benchmarks[1]}.{ext}" for ext in ("svg", "png")}
    assert not stale & now, stale & now
    assert {"compare.json", "leaderboard.csv", "pairs.csv", f"ranks_{bench}.svg", "index.html"} <= now
    page = (out / "index.html").read_text()
    assert "pair_power.csv" not in page and f"ranks_{panel.benchmarks[1]}" not in page
    assert set(_commands(out)) == now - {"notes.txt", "my_results.csv", MANIFEST}
    _user_files_kept(out)


def test_a_redundancy_rerun_drops_the_curves_of_metrics_no_longer_asked(
    panel_file: Path, tmp_path: Path
) -> None:
    out = _user_folder(tmp_path)
    args = ["redundancy", "instances", panel_file, "--repeats", "3", "--ratios", "0.2,0.5", "--out", out]
    _run(args)
    first = _files(out)
    assert any("kendall" in n for n in first), first
    _run([*args, "--metric", "srcc"])
    now = _files(out)
    assert not any(m in n for n in now for m in ("kendall", "plcc", "r2")), now
    assert "instances.json" in now and "index.html" in now
    assert set(json.loads((out / "instances.json").read_text())["metrics"]) == {"srcc"}
    _user_files_kept(out)


# --- defect 5: a command keeps the other commands' files ----------------------------------------------------


def test_validate_keeps_the_audit_and_compare_results_in_the_same_folder(
    panel_file: Path, tmp_path: Path
) -> None:
    out = _user_folder(tmp_path)
    _run(["audit", panel_file, "--out", out])
    _run(["compare", panel_file, "--n-boot", "50", "--out", out])
    before = _snapshot(out)
    _run(["validate", panel_file, *VALIDATE, "--retentions", "0.2", "--out", out])
    after = _snapshot(out)
    others = {"audit.json", "benchmarks.csv", "items.csv", "duplicates.csv"}
    others |= {"compare.json", "leaderboard.csv", "pairs.csv", "resolution.csv"}
    assert others <= set(before)
    kept = {k: v for k, v in before.items() if k not in ("index.html", MANIFEST)}
    assert {k: after.get(k) for k in kept} == kept  # every earlier file, byte for byte
    assert {"validate.json", "results.csv"} <= set(after)
    commands = _commands(out)
    assert commands["audit.json"] == "audit" and commands["compare.json"] == "compare"
    assert commands["validate.json"] == "validate" and commands["index.html"] is None
    page = (out / "index.html").read_text()
    assert "audit.json" in page and "compare.json" in page and "validate.json" in page
    _user_files_kept(out)


def test_two_commands_writing_one_file_name_are_refused_with_nothing_written(
    panel_file: Path, tmp_path: Path
) -> None:
    """``validate`` and ``adaptive simulate`` both write ``results.csv``: the second is refused, naming the
    file and the first command, and the folder is byte-identical (the first's results stay whole)."""
    out = _user_folder(tmp_path)
    _run(["validate", panel_file, *VALIDATE, "--retentions", "0.2", "--out", out])
    before = _snapshot(out)
    adaptive = ["adaptive", "simulate", panel_file, "--splits", "1", "--budget", "0.2", "--out", out]
    for force in ([], ["--force"]):
        line = " ".join(_run([*adaptive, *force], 2).split())
        assert "results.csv" in line and "`benchsift validate`" in line, line
        assert "`benchsift adaptive simulate`" in line and "nothing was written" in line, line
        assert _snapshot(out) == before


def test_a_command_run_prunes_only_its_own_files(tmp_path: Path) -> None:
    """The rule itself, on :func:`atomic_dir`: a run of ``b`` removes ``b``'s earlier file it does not write
    again, keeps ``a``'s, a file of an older benchsift (no command in the manifest) and the user's."""
    out = tmp_path / "out"
    with as_command("a"), atomic_dir(out) as tmp:
        (tmp / "a.csv").write_text("a\n")
    with as_command("b"), atomic_dir(out) as tmp:
        (tmp / "b1.csv").write_text("b1\n")
        (tmp / "b2.csv").write_text("b2\n")
    (out / "legacy.csv").write_text("old\n")
    man = json.loads((out / MANIFEST).read_text())
    data = b"old\n"
    man["files"]["legacy.csv"] = {"size": len(data), "sha256": hashlib.sha256(data).hexdigest()}
    (out / MANIFEST).write_text(json.dumps(man))
    (out / "mine.csv").write_text("mine\n")
    with as_command("b"), atomic_dir(out, prune=False) as tmp:  # in a command's run: pruned all the same
        (tmp / "b1.csv").write_text("b1 again\n")
    assert _files(out) == {"a.csv", "b1.csv", "legacy.csv", "mine.csv", MANIFEST}
    assert _commands(out) == {"a.csv": "a", "b1.csv": "b", "legacy.csv": None}
    with as_command("c"), pytest.raises(InputError, match=r"a\.csv: written there by `benchsift a`"):
        with atomic_dir(out) as tmp:
            (tmp / "c.csv").write_text("c\n")
            (tmp / "a.csv").write_text("c's a\n")
    assert not (out / "c.csv").exists() and (out / "a.csv").read_text() == "a\n"


def test_a_library_write_outside_a_command_run_keeps_the_commands_files(tmp_path: Path) -> None:
    """Outside a command's run (a library call naming no command): ``prune=False`` keeps every earlier file
    (files that accumulate, as Every Eval Ever's), ``prune=True`` removes only earlier files of no command,
    never a command's."""
    out = tmp_path / "out"
    with as_command("compare"), atomic_dir(out) as tmp:
        (tmp / "compare.json").write_text("{}\n")
    with atomic_dir(out, prune=False) as tmp:
        (tmp / "one.json").write_text("1\n")
    with atomic_dir(out, prune=False) as tmp:
        (tmp / "two.json").write_text("2\n")
    assert _files(out) == {"compare.json", "one.json", "two.json", MANIFEST}
    with atomic_dir(out) as tmp:
        (tmp / "three.json").write_text("3\n")
    assert _files(out) == {"compare.json", "three.json", MANIFEST}


def test_one_run_keeps_what_it_wrote_earlier_in_the_same_folder(tmp_path: Path) -> None:
    out = tmp_path / "out"
    with as_command("x"):
        with atomic_dir(out) as tmp:
            (tmp / "one.csv").write_text("1\n")
        with atomic_dir(out) as tmp:
            (tmp / "two.csv").write_text("2\n")
    assert _files(out) == {"one.csv", "two.csv", MANIFEST}


def test_an_older_manifest_is_read_and_its_files_are_kept(panel_file: Path, tmp_path: Path) -> None:
    """A folder an older benchsift wrote (manifest entries without a command): read without a warning,
    its file of the same name replaced, its other files kept (not known to be validate's)."""
    out = _user_folder(tmp_path)
    old = {"validate.json": b"{}\n", "old_figure.svg": b"<svg/>\n"}
    for name, data in old.items():
        (out / name).write_bytes(data)
    entries = {n: {"size": len(d), "sha256": hashlib.sha256(d).hexdigest()} for n, d in old.items()}
    (out / MANIFEST).write_text(json.dumps({"written_by": "benchsift", "files": entries}))
    _run(["validate", panel_file, *VALIDATE, "--retentions", "0.2", "--out", out])
    assert (out / "old_figure.svg").read_bytes() == old["old_figure.svg"]
    assert (out / "validate.json").read_bytes() != old["validate.json"]
    assert _commands(out)["validate.json"] == "validate" and _commands(out)["old_figure.svg"] is None
    _user_files_kept(out)


# --- defect 6: a refused page refuses the run before anything is written -----------------------------------


def _edit_page(out: Path) -> None:
    page = out / "index.html"
    text = page.read_text()
    assert 'name="generator"' in text
    page.write_text(text.replace("<h1>", "<h1>MY NOTE: ", 1))


@pytest.mark.parametrize(
    "command",
    [
        ["validate", "{panel}", *VALIDATE, "--retentions", "0.2"],
        ["compare", "{panel}", "--n-boot", "50"],
        ["redundancy", "instances", "{panel}", "--repeats", "3", "--ratios", "0.2,0.5"],
    ],
    ids=["validate", "compare", "redundancy"],
)
def test_an_edited_page_refuses_the_rerun_before_any_file_is_written(
    command: list[str], panel_file: Path, tmp_path: Path
) -> None:
    out = _user_folder(tmp_path)
    args = [str(panel_file) if a == "{panel}" else a for a in command]
    _run([*args, "--out", out])
    _edit_page(out)
    before = _snapshot(out)
    rerun = [*args, "--seed", "1"] if command[0] != "compare" else [*args, "--n-boot", "60"]
    text = _run([*rerun, "--out", out], 2)
    assert _snapshot(out) == before  # results, figures, manifest: byte-identical
    assert "index.html" in text and "nothing was written" in " ".join(text.split()), text
    _run([*rerun, "--out", out, "--force"])  # --force: the edited page is the user's to replace
    assert "MY NOTE" not in (out / "index.html").read_text()
    _user_files_kept(out)


def test_the_library_writer_checks_the_page_first(tmp_path: Path) -> None:
    """:func:`write_command_dir` outside the CLI: the same refusal, the folder byte-identical."""
    import pandas as pd

    from benchsift.workflows.outputs import write_command_dir

    out = _user_folder(tmp_path)
    write_command_dir(out, "estimate", {"a": 1}, {"estimate": pd.DataFrame({"x": [1, 2]})})
    _edit_page(out)
    before = _snapshot(out)
    with pytest.raises(InputError, match="index.html") as refused:
        write_command_dir(out, "estimate", {"a": 2}, {"estimate": pd.DataFrame({"x": [3]})})
    assert _snapshot(out) == before
    assert "nothing was written" in str(refused.value)
