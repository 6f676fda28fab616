"""Importer ``lm-eval``: the defects the importer audit found, on logs written by lm-evaluation-harness.

``tests/fixtures/io/lm_eval/real/logs/{limit,one_filter,two_dirs}`` were written by ``generate.py --only
limit,one_filter,two_dirs`` (lm-eval's own command line, version in ``logs/VERSION``); each results json
holds lm-eval's own aggregates and sample counts (``n-samples``), which the tests compare with.
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from benchsift.cli.importers import app
from benchsift.errors import InputError
from benchsift.io import read_lm_eval
from benchsift.panel import Panel

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "io" / "lm_eval" / "real" / "logs"
# .ci/side_tools.sh points REAL at logs just regenerated with the current lm-eval (format drift check)
REAL = Path(os.environ.get("BENCHSIFT_LM_EVAL_LOGS") or FIXTURE)


def _results(folder: Path) -> dict:  # type: ignore[type-arg]
    (path,) = folder.glob("results_*.json")
    return json.loads(path.read_text())


def _mean(panel: Panel, row: int, task: str) -> float:
    cols = [j for j, k in enumerate(panel.item_keys) if k[0] == task]
    return float(np.nanmean(panel.scores[row, cols]))


# --- defect 2: a sample file cut at a line boundary -------------------------------------------------------


def _cut_tree(tmp_path: Path, keep: int) -> tuple[Path, Path]:
    run = tmp_path / "out" / "org__alpha"
    shutil.copytree(REAL / "tree" / "org__alpha", run)
    (samples,) = run.glob("samples_arith_mc_*.jsonl")
    lines = samples.read_text().splitlines(keepends=True)
    assert len(lines) == 6
    samples.write_text("".join(lines[:keep]))
    return run, samples


def test_sample_file_cut_at_a_line_boundary_is_warned(tmp_path: Path) -> None:
    """The real ``arith_mc`` sample file with its first 3 of 6 lines: a valid, smaller file whose mean
    happens to equal lm-eval's (no mean warning); the results json beside it says 6 were evaluated."""
    run, samples = _cut_tree(tmp_path, 3)
    (results,) = run.glob("results_*.json")
    assert _results(run)["n-samples"]["arith_mc"] == {"original": 6, "effective": 6}
    notes: list[str] = []
    panel = read_lm_eval(tmp_path / "out", filter="strict-match", notes=notes)
    assert sum(k[0] == "arith_mc" for k in panel.item_keys) == 3
    warnings = [n for n in notes if n.startswith("warning: ")]
    assert warnings == [
        f"warning: {samples}: holds 3 of the 6 documents the run evaluated on task 'arith_mc' "
        f"({results.name}, n-samples); the file looks cut short: the other 3 are not in the panel for model "
        "'org/alpha'"
    ]


def test_cut_file_warning_in_json(tmp_path: Path) -> None:
    _, samples = _cut_tree(tmp_path, 4)
    out = tmp_path / "p.parquet"
    result = CliRunner().invoke(
        app, ["lm-eval", str(tmp_path / "out"), "--filter", "strict-match", "-o", str(out), "--json"]
    )
    assert result.exit_code == 0, result.output
    warnings = json.loads(result.stdout)["warnings"]
    assert any(w.startswith(f"{samples}: holds 4 of the 6 documents") for w in warnings)


def test_complete_runs_give_no_count_warning() -> None:
    notes: list[str] = []
    read_lm_eval([REAL / "tree", REAL / "single", REAL / "group"], filter="strict-match", notes=notes)
    assert not any("n-samples" in n for n in notes)


# --- defect 10: a --limit run ----------------------------------------------------------------------------


def test_limit_run_is_warned() -> None:
    """``--limit 3``: lm-eval records ``config.limit`` and ``n-samples`` original 6, effective 3; the
    3-item ``arith_mc`` is lm-eval's own number on those 3, and a warning says it is not the benchmark."""
    run = REAL / "limit" / "org__alpha"
    results = _results(run)
    assert results["config"]["limit"] == 3
    assert results["n-samples"]["arith_mc"] == {"original": 6, "effective": 3}
    notes: list[str] = []
    panel = read_lm_eval(REAL / "limit", notes=notes)
    assert panel.n_items == 3
    assert _mean(panel, 0, "arith_mc") == pytest.approx(results["results"]["arith_mc"]["acc,none"], abs=1e-12)
    (samples,) = run.glob("samples_arith_mc_*.jsonl")
    (warning,) = [n for n in notes if n.startswith("warning: ")]
    assert warning.startswith(
        f"warning: {samples}: task 'arith_mc' is a run with --limit 3: 3 of its 6 documents were evaluated"
    )


# --- defect 3: a filter the task does not have -----------------------------------------------------------


def test_named_filter_a_task_lacks_is_a_warning() -> None:
    """``--filter strict-match`` on ``arith_gen`` (two filters) and ``arith_gen1`` (only
    ``flexible-extract``): arith_gen1 is imported under its only filter, with a warning, not a note."""
    run = REAL / "one_filter" / "org__alpha"
    results = _results(run)["results"]
    notes: list[str] = []
    panel = read_lm_eval(REAL / "one_filter", filter="strict-match", notes=notes)
    assert _mean(panel, 0, "arith_gen") == pytest.approx(results["arith_gen"]["exact_match,strict-match"])
    assert _mean(panel, 0, "arith_gen1") == pytest.approx(
        results["arith_gen1"]["exact_match,flexible-extract"]
    )
    (gen1,) = run.glob("samples_arith_gen1_*.jsonl")
    assert [n for n in notes if n.startswith("warning: ")] == [
        f"warning: {gen1}: task 'arith_gen1' has no filter 'strict-match'; its only filter is "
        "'flexible-extract', whose scores are imported instead"
    ]


def test_tasks_without_filters_are_not_warned_of() -> None:
    """``arith_mc`` logs the filter ``none`` (no filter): nothing was swapped for the filter named."""
    notes: list[str] = []
    read_lm_eval(REAL / "tree", filter="strict-match", notes=notes)
    assert not any("has no filter" in n for n in notes)


# --- defect 5: one model run into two output folders -----------------------------------------------------


def test_two_output_folders_conflict_says_how_to_proceed(tmp_path: Path) -> None:
    monday = next((REAL / "two_dirs" / "monday" / "org__alpha").glob("samples_*.jsonl"))
    tuesday = next((REAL / "two_dirs" / "tuesday" / "org__alpha").glob("samples_*.jsonl"))
    with pytest.raises(InputError) as err:
        read_lm_eval(REAL / "two_dirs")
    message = str(err.value)
    assert "conflicting duplicate scores for model 'org/alpha', benchmark 'arith_mc'" in message
    assert "model 'org/alpha' ran 'arith_mc' in 2 separate runs here" in message
    assert str(monday) in message and str(tuesday) in message
    assert "--keep-all-runs (keep_all_runs=True) keeps each run as its own model run" in message
    out = tmp_path / "p.parquet"
    result = CliRunner().invoke(app, ["lm-eval", str(REAL / "two_dirs"), "-o", str(out)])
    assert result.exit_code == 2
    assert result.stderr.count("\n") == 1 and "--keep-all-runs" in result.stderr
    assert not out.exists()


def test_two_output_folders_with_keep_all_runs() -> None:
    folders = [REAL / "two_dirs" / day / "org__alpha" for day in ("monday", "tuesday")]
    dates = [_results(f)["date"] for f in folders]
    assert dates[0] < dates[1]
    panel = read_lm_eval(REAL / "two_dirs", keep_all_runs=True)
    assert len(panel.model_ids) == 2 and all(m.startswith("org/alpha (run ") for m in panel.model_ids)
    for row, folder in enumerate(folders):
        (samples,) = folder.glob("samples_arith_mc_*.jsonl")
        assert samples.name.removeprefix("samples_arith_mc_").removesuffix(".jsonl") in panel.model_ids[row]
        acc = _results(folder)["results"]["arith_mc"]["acc,none"]
        assert _mean(panel, row, "arith_mc") == pytest.approx(acc, abs=1e-12)
