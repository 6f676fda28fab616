"""Importer ``lmms-eval``: re-runs, killed runs, ``--offset`` and lmms-eval 0.7.2's MMMU logs, on logs
lmms-eval wrote.

``tests/fixtures/io/lmms_eval/real/extra/`` was written by ``generate_extra.py`` (lmms-eval's own command
line; version in each ``VERSION``): ``rerun/`` org/alpha run twice into one ``--output_path`` (other
answers the second time), ``killed/`` a run stopped (``os._exit``) while writing its second samples file,
``killed_midline/`` the same with the pope file cut mid-line, ``offset/`` a run with ``--offset 2 --limit
3``, ``mixed/`` the same model's lmms-eval 0.7.3 (``20261208_062434``) and 0.7.2 (``20261208_063313``) runs
in one folder. The tests compare with lmms-eval's own aggregates in each ``<date>_results.json``.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from benchsift.cli.importers import app
from benchsift.io import read_lmms_eval
from benchsift.panel import Panel

EXTRA = Path(__file__).resolve().parents[1] / "fixtures" / "io" / "lmms_eval" / "real" / "extra"
FILTER = "flexible-extract"


def _results(path: Path) -> dict:  # type: ignore[type-arg]
    return json.loads(path.read_text())["results"]  # type: ignore[no-any-return]


def _mean(panel: Panel, model: str, task: str) -> float:
    row = list(panel.model_ids).index(model)
    cols = [j for j, k in enumerate(panel.item_keys) if k[0] == task]
    return float(np.nanmean(panel.scores[row, cols]))


# --- 2: a model run twice into one output folder ---------------------------------------------------------


def test_rerun_takes_the_latest_date_as_lmms_eval_does() -> None:
    folder = EXTRA / "rerun" / "org__alpha"
    old, new = (
        _results(folder / "20261208_062936_results.json"),
        _results(folder / "20261208_062953_results.json"),
    )
    assert old["mmmu_val_local"]["mmmu_acc,none"] != new["mmmu_val_local"]["mmmu_acc,none"]
    notes: list[str] = []
    panel = read_lmms_eval(EXTRA / "rerun", filter=FILTER, notes=notes)
    assert list(panel.model_ids) == ["org/alpha"]
    assert _mean(panel, "org/alpha", "mmmu_val_local") == pytest.approx(
        new["mmmu_val_local"]["mmmu_acc,none"], abs=1e-5
    )
    assert _mean(panel, "org/alpha", "seedbench_local") == pytest.approx(
        new["seedbench_local"]["seed_image,none"]
    )
    skipped = [n for n in notes if "superseded" in n]
    assert len(skipped) == 3 and all(
        "20261208_062936_samples_" in n and "run 20261208_062953" in n for n in skipped
    )


def test_rerun_keep_all_runs(tmp_path: Path) -> None:
    folder = EXTRA / "rerun" / "org__alpha"
    panel = read_lmms_eval(EXTRA / "rerun", filter=FILTER, keep_all_runs=True, notes=[])
    for date in ("20261208_062936", "20261208_062953"):
        own = _results(folder / f"{date}_results.json")
        model = f"org/alpha (run {date})"
        assert _mean(panel, model, "mmmu_val_local") == pytest.approx(
            own["mmmu_val_local"]["mmmu_acc,none"], abs=1e-5
        )
        assert _mean(panel, model, "seedbench_local") == pytest.approx(
            own["seedbench_local"]["seed_image,none"]
        )
    out = tmp_path / "runs.parquet"
    args = ["lmms-eval", str(EXTRA / "rerun"), "--filter", FILTER, "--keep-all-runs", "-o", str(out)]
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 0, result.output
    assert sorted(Panel.load(out).model_ids) == sorted(panel.model_ids)


def test_two_versions_in_one_folder_take_the_latest_run() -> None:
    folder = EXTRA / "mixed" / "org__alpha"
    new = _results(folder / "20261208_063313_results.json")  # the 0.7.2 run, written last
    notes: list[str] = []
    panel = read_lmms_eval(EXTRA / "mixed", filter=FILTER, notes=notes)
    assert _mean(panel, "org/alpha", "pope_local") == pytest.approx(new["pope_local"]["pope_accuracy,none"])
    assert len([n for n in notes if "superseded" in n]) == 7
    kept = read_lmms_eval(EXTRA / "mixed", filter=FILTER, keep_all_runs=True, notes=[])
    assert len(kept.model_ids) == 2


# --- 3: a run killed while writing its samples -----------------------------------------------------------


@pytest.mark.parametrize(
    ("scenario", "missing"),
    [("killed", ["pope_local", "seedbench_local"]), ("killed_midline", ["seedbench_local"])],
)
def test_tasks_without_samples_are_named(scenario: str, missing: list[str]) -> None:
    results = EXTRA / scenario / "org__alpha" / "20261208_063035_results.json"
    own = _results(results)
    notes: list[str] = []
    panel = read_lmms_eval(EXTRA / scenario, filter=FILTER, notes=notes)
    assert {k[0] for k in panel.item_keys} == {"mmmu_val_local"}  # no score made up from the aggregates
    named = [n for n in notes if "but no samples file" in n]
    assert len(named) == len(missing)
    for task, note in zip(missing, named, strict=True):
        assert note.startswith(f"warning: {results}: task {task!r} has results")
        value = next(v for k, v in own[task].items() if k != "alias" and "stderr" not in k)
        assert f"{value:g}" in note


# --- 5: --offset ----------------------------------------------------------------------------------------


def test_offset_run_is_complete_and_named() -> None:
    folder = EXTRA / "offset" / "org__alpha"
    (results,) = folder.glob("*_results.json")
    own = _results(results)
    notes: list[str] = []
    panel = read_lmms_eval(EXTRA / "offset", filter=FILTER, notes=notes)
    assert _mean(panel, "org/alpha", "seedbench_local") == pytest.approx(
        own["seedbench_local"]["seed_image,none"]
    )
    assert not [n for n in notes if "cut short" in n]  # 2 documents past the offset, both in the file
    limit = [n for n in notes if "--limit" in n]
    assert len(limit) == 3 and all("--offset 2" in n for n in limit)
    (seed,) = [n for n in limit if "'seedbench_local'" in n]
    assert "documents 2 to 3, 2 of its 4 documents" in seed


# --- 4: lmms-eval 0.7.2's MMMU logs ----------------------------------------------------------------------


def test_mmmu_072_log_scored_by_the_current_rule_with_the_reason() -> None:
    folder = EXTRA / "mixed" / "org__alpha"
    log = folder / "20261208_063313_samples_mmmu_val_local.jsonl"  # lmms-eval 0.7.2
    said_072 = _results(folder / "20261208_063313_results.json")["mmmu_val_local"]["mmmu_acc,none"]
    said_073 = _results(folder / "20261208_062434_results.json")["mmmu_val_local"][
        "mmmu_acc,none"
    ]  # same answers
    assert (said_072, said_073) == (0.16667, 0.66667)
    notes: list[str] = []
    panel = read_lmms_eval(log, notes=notes)
    assert _mean(panel, "org/alpha", "mmmu_val_local") == pytest.approx(said_073, abs=1e-5)
    (warning,) = [n for n in notes if n.startswith("warning:")]
    assert "character by character" in warning and "0.7.2" in warning and "0.7.3" in warning
    assert f"tool's own aggregate: {said_072:.5g}" in warning and f"mean {said_073:.5g}" in warning
    assert not [n for n in notes if "the per-item mean is" in n]  # explained, not a bare mismatch
