"""Importer ``vlmevalkit``: re-runs, killed runs and ``EVAL_FORMAT=json``, on outputs VLMEvalKit wrote.

``tests/fixtures/io/vlmevalkit/real/extra/`` was written by ``generate_extra.py`` (VLMEvalKit's own
``run.py`` layout and ``evaluate``; commit in each ``VERSION``): ``rerun/`` ScriptedA run twice (two
``<eval_id>`` folders and the links ``run.py`` makes in ``ScriptedA/``, pointing into the newer run, other
MMStar answers the second time), ``killed/`` a run stopped in MME's inference (``status.json``: TextVQA
``eval``, MME ``infer``, ``01_MME.pkl``), ``eval_json/`` a run with ``EVAL_FORMAT=json`` (``_acc.json``),
``json_fmt/`` a run with ``PRED_FORMAT=json`` whose evaluations all failed (``error_message``). The tests
compare with VLMEvalKit's own numbers: its ``_acc.csv`` / ``_acc.json`` and ``status.json`` metrics.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from typer.testing import CliRunner

from benchsift.cli.importers import app
from benchsift.errors import InputError
from benchsift.io import read_vlmevalkit
from benchsift.panel import Panel

EXTRA = Path(__file__).resolve().parents[1] / "fixtures" / "io" / "vlmevalkit" / "real" / "extra"
OLD, NEW = "T20261207-222725", "T20261207-222728"


def _mean(panel: Panel, model: str, bench: str) -> float:
    row = list(panel.model_ids).index(model)
    cols = [j for j, k in enumerate(panel.item_keys) if k[0] == bench]
    return float(np.nanmean(panel.scores[row, cols]))


def _overall(run: Path, name: str) -> float:
    return float(pd.read_csv(run / name)["Overall"].iloc[0])


# --- 1: a model run twice --------------------------------------------------------------------------------


def test_rerun_takes_the_newest_run_folder_as_run_py_links_it() -> None:
    folder = EXTRA / "rerun"
    runs = folder / "ScriptedA"
    assert (
        runs / "ScriptedA_MMStar_exact_matching_result.xlsx"
    ).resolve().parent.name == NEW  # run.py's link
    notes: list[str] = []
    panel = read_vlmevalkit(folder, notes=notes)
    assert list(panel.model_ids) == ["ScriptedA"]
    new_acc = _overall(runs / NEW, "ScriptedA_MMStar_acc.csv")
    assert new_acc != _overall(runs / OLD, "ScriptedA_MMStar_acc.csv")  # the runs differ
    assert _mean(panel, "ScriptedA", "MMStar") == pytest.approx(new_acc)  # 0.8333
    assert _mean(panel, "ScriptedA", "TextVQA_VAL") == pytest.approx(
        _overall(runs / NEW, "ScriptedA_TextVQA_VAL_acc.csv") / 100
    )
    skipped = [n for n in notes if "superseded" in n]
    assert skipped and all(f"{OLD}/" in n and f"run folder {NEW}" in n for n in skipped)
    assert any(
        n.startswith(f"warning: {runs / OLD / 'ScriptedA_MMStar_exact_matching_result.xlsx'}")
        for n in skipped
    )


def test_rerun_keep_all_runs_and_cli(tmp_path: Path) -> None:
    folder = EXTRA / "rerun"
    runs = folder / "ScriptedA"
    panel = read_vlmevalkit(folder, keep_all_runs=True, notes=[])
    assert sorted(panel.model_ids) == [f"ScriptedA (run {OLD})", f"ScriptedA (run {NEW})"]
    for run in (OLD, NEW):
        assert _mean(panel, f"ScriptedA (run {run})", "MMStar") == pytest.approx(
            _overall(runs / run, "ScriptedA_MMStar_acc.csv")
        )
    out = tmp_path / "runs.parquet"
    result = CliRunner().invoke(app, ["vlmevalkit", str(folder), "-o", str(out), "--keep-all-runs"])
    assert result.exit_code == 0, result.output
    assert sorted(Panel.load(out).model_ids) == sorted(panel.model_ids)


def test_runs_in_two_folders_clash_with_the_run_folder_named(tmp_path: Path) -> None:
    """One model in two output folders: not joined by run.py's rule; the error names the run folders
    (not the links) and the choices."""
    for name, run in (("monday", OLD), ("tuesday", NEW)):
        dest = tmp_path / name / "ScriptedA" / run
        shutil.copytree(EXTRA / "rerun" / "ScriptedA" / run, dest)
        (dest.parent / "ScriptedA_MMStar_exact_matching_result.xlsx").symlink_to(
            f"{run}/ScriptedA_MMStar_exact_matching_result.xlsx"
        )
    with pytest.raises(InputError) as err:
        read_vlmevalkit([tmp_path / "monday", tmp_path / "tuesday"], notes=[])
    text = str(err.value)
    assert "conflicting duplicate" in text and "--keep-all-runs" in text
    assert f"{OLD}/ScriptedA_MMStar" in text and f"{NEW}/ScriptedA_MMStar" in text
    panel = read_vlmevalkit([tmp_path / "monday", tmp_path / "tuesday"], keep_all_runs=True, notes=[])
    assert _mean(panel, f"ScriptedA (run {NEW})", "MMStar") == pytest.approx(
        _overall(EXTRA / "rerun" / "ScriptedA" / NEW, "ScriptedA_MMStar_acc.csv")
    )


# --- 6: a killed run; status.json ------------------------------------------------------------------------


def test_killed_run_names_the_unfinished_datasets() -> None:
    folder = EXTRA / "killed"
    run = folder / "ScriptedK" / "T20261207-222748"
    status = json.loads((run / "status.json").read_text())["datasets"]
    notes: list[str] = []
    panel = read_vlmevalkit(folder, notes=notes)
    assert _mean(panel, "ScriptedK", "MMStar") == pytest.approx(
        status["MMStar"]["metrics"]["split=none|Overall"]
    )
    unfinished = [n for n in notes if "unfinished" in n]
    assert len(unfinished) == 2 and all(
        n.startswith(f"warning: {run / 'status.json'}: dataset ") for n in unfinished
    )
    (mme,) = [n for n in unfinished if "'MME'" in n]
    assert f"status {status['MME']['status']!r}" in mme and "01_MME.pkl" in mme and "left out" in mme
    assert any("'TextVQA_VAL'" in n and "status 'eval'" in n for n in unfinished)


def test_status_json_linking_outside_is_not_read(tmp_path: Path) -> None:
    folder = tmp_path / "in"
    shutil.copytree(EXTRA / "killed", folder, symlinks=True)
    run = folder / "ScriptedK" / "T20261207-222748"
    outside = tmp_path / "outside.json"
    shutil.move(run / "status.json", outside)
    (run / "status.json").symlink_to(outside)
    notes: list[str] = []
    read_vlmevalkit(folder, notes=notes)
    assert not [n for n in notes if "unfinished" in n]


def test_failed_evaluations_are_named_when_nothing_is_readable() -> None:
    with pytest.raises(
        InputError,
        match=r"4 dataset\(s\) unfinished or failed, first .*status.json: dataset "
        r"'MMStar' of model 'ScriptedJ' .*its evaluation failed \('list' object",
    ):
        read_vlmevalkit(EXTRA / "json_fmt", notes=[])


# --- 7: EVAL_FORMAT=json ---------------------------------------------------------------------------------


def test_eval_format_json_checks_against_acc_json(tmp_path: Path) -> None:
    folder = tmp_path / "eval_json"
    shutil.copytree(EXTRA / "eval_json", folder, symlinks=True)
    run = folder / "ScriptedE" / "T20261207-223423"
    acc = run / "ScriptedE_TextVQA_VAL_acc.json"
    own = json.loads(acc.read_text())[0]["Overall"]
    notes: list[str] = []
    panel = read_vlmevalkit(folder, notes=notes)
    assert _mean(panel, "ScriptedE", "TextVQA_VAL") == pytest.approx(own / 100)  # agrees: no warning
    assert not [n for n in notes if "tool's own aggregate" in n]
    acc.write_text(json.dumps([{"Overall": own + 25.0}]))  # a number the items do not give
    notes = []
    read_vlmevalkit(folder, notes=notes)
    (warning,) = [n for n in notes if "tool's own aggregate" in n]
    assert "ScriptedE_TextVQA_VAL_acc.json" in warning and f"{(own + 25) / 100:g}" in warning
