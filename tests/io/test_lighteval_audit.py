"""Importer ``lighteval``: the defects the importer audit found, on details written by lighteval itself.

``tests/fixtures/io/lighteval/real/rerun/`` was written by ``generate.py OUT --only rerun`` (lighteval
version in ``rerun/VERSION``): ``org/alpha`` evaluated twice into one output folder, so that
``details/org/alpha/`` holds two ``<date_id>`` folders; ``results/org/alpha/results_<date_id>.json`` hold
lighteval's own aggregates of each run.
"""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from benchsift.errors import FormatError, InputError
from benchsift.io import read_lighteval
from benchsift.panel import Panel

RERUN = Path(__file__).resolve().parents[1] / "fixtures" / "io" / "lighteval" / "real" / "rerun"


def _runs() -> list[tuple[str, dict]]:  # type: ignore[type-arg]
    """(date_id, lighteval's results of the run) of the two runs, oldest first."""
    out = []
    for path in sorted((RERUN / "results" / "org" / "alpha").glob("results_*.json")):
        date = path.stem.removeprefix("results_")
        out.append((date, json.loads(path.read_text())["results"]))
    return out


def _check_means(panel: Panel, row: int, results: dict) -> None:  # type: ignore[type-arg]
    for task, metrics in results.items():
        if task == "all":
            continue
        (name,) = [m for m in metrics if not m.endswith("_stderr")]
        cols = [j for j, k in enumerate(panel.item_keys) if k[0] == task]
        assert float(np.mean(panel.scores[row, cols])) == pytest.approx(metrics[name], abs=1e-12)


def test_rerun_into_one_output_folder_takes_the_newest_run() -> None:
    """The two runs answered differently (arith_mc acc 0.8 then 0.6): the newest ``<date_id>`` is read, as
    lighteval's ``latest``, with a warning naming each superseded file (it was a conflict error)."""
    (old, _), (new, results) = _runs()
    assert sorted(p.name for p in (RERUN / "details" / "org" / "alpha").iterdir()) == [old, new]
    notes: list[str] = []
    panel = read_lighteval(RERUN, notes=notes)
    assert panel.model_ids == ["org/alpha"]
    _check_means(panel, 0, results)
    superseded = [n for n in notes if "superseded" in n]
    assert len(superseded) == 2
    assert all(
        n.startswith(f"warning: {RERUN / 'details' / 'org' / 'alpha' / old}/details_") for n in superseded
    )
    assert all(f"_{new}.parquet (run {new})" in n for n in superseded)


def test_rerun_keep_all_runs() -> None:
    runs = _runs()
    panel = read_lighteval(RERUN, keep_all_runs=True)
    assert panel.model_ids == [f"org/alpha (run {date})" for date, _ in runs]
    for row, (_, results) in enumerate(runs):
        _check_means(panel, row, results)


def test_rerun_keep_all_runs_on_the_command_line(tmp_path: Path) -> None:
    """``benchsift import lighteval --keep-all-runs`` is ``keep_all_runs=True`` (the messages name it)."""
    from typer.testing import CliRunner

    from benchsift.cli.main import app
    from benchsift.panel import Panel

    out = tmp_path / "p.parquet"
    res = CliRunner().invoke(app, ["import", "lighteval", str(RERUN), "--keep-all-runs", "-o", str(out)])
    assert res.exit_code == 0, res.output
    assert Panel.load(out).model_ids == [f"org/alpha (run {date})" for date, _ in _runs()]


def _two_output_folders(tmp_path: Path) -> list[Path]:
    """The two runs as if written with two ``--output-dir`` values: ``<dir>/details/org/alpha/<date_id>``."""
    out = []
    for k, (date, _) in enumerate(_runs()):
        target = tmp_path / f"out{k}" / "details" / "org" / "alpha" / date
        shutil.copytree(RERUN / "details" / "org" / "alpha" / date, target)
        out.append(target)
    return out


def test_one_model_in_two_output_folders(tmp_path: Path) -> None:
    """Not one folder's runs, so not chosen between: a conflict error that names both runs and the ways
    out (rows named 1-based: ``row N`` is the file's N-th document), and one model run each with
    ``keep_all_runs``."""
    first, second = _two_output_folders(tmp_path)
    with pytest.raises(InputError) as err:
        read_lighteval(tmp_path)
    message = str(err.value)
    assert "conflicting duplicate scores for model 'org/alpha'" in message
    assert "model 'org/alpha' ran " in message and " in 2 separate runs here" in message
    assert str(first) in message and str(second) in message
    assert "--keep-all-runs (keep_all_runs=True) keeps each run as its own model run" in message
    where = re.match(r"^(?P<file>.+\.parquet), row (?P<row>\d+): .* item '(?P<item>[^']+)'", message)
    assert where is not None
    table = pd.read_parquet(where["file"])
    assert str(table["doc"].iloc[int(where["row"]) - 1]["id"]) == where["item"]
    panel = read_lighteval(tmp_path, keep_all_runs=True)
    runs = _runs()
    assert panel.model_ids == [f"org/alpha (run {date})" for date, _ in runs]
    for row, (_, results) in enumerate(runs):
        _check_means(panel, row, results)


def test_row_numbers_are_one_based(tmp_path: Path) -> None:
    """A bad value in the first document is ``row 1``, as lm-eval's ``line 1``."""
    src = next((RERUN / "details" / "org" / "alpha").glob("*/details_arith_mc*.parquet"))
    table = pd.read_parquet(src)
    table["metric"] = [{"acc": "high"}] * len(table)
    bad = tmp_path / "details" / "m" / "d" / "details_bad_d.parquet"
    bad.parent.mkdir(parents=True)
    table.to_parquet(bad)
    with pytest.raises(FormatError, match=rf"^{re.escape(str(bad))}, row 1: metric 'acc' value 'high'"):
        read_lighteval(bad)
