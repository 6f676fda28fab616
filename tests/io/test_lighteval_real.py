"""Importer ``lighteval`` on details written by lighteval itself (``tests/fixtures/io/lighteval/real``).

``generate.py`` there ran lighteval's ``custom`` entry point (version in ``out/VERSION``) with two scripted
models on two local tasks, ``--save-details``; ``out/results/<model>/results_<date>.json`` holds
lighteval's own aggregates.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from benchsift.errors import FormatError, InputError
from benchsift.io import read_lighteval
from benchsift.io.lighteval import model_from_path

OUT = Path(__file__).resolve().parents[1] / "fixtures" / "io" / "lighteval" / "real" / "out"


def test_means_equal_lighteval_results() -> None:
    assert OUT.joinpath("VERSION").read_text().startswith("lighteval 0.13")
    notes: list[str] = []
    panel = read_lighteval(OUT, notes=notes)
    assert panel.model_ids == ["org/alpha", "org/beta"]
    assert panel.benchmarks == ["arith_gen|0", "arith_mc|0"]
    assert f"{OUT}: read 4 lighteval details file(s), skipped 0" in notes
    checked = 0
    for path in sorted(OUT.glob("results/*/*/results_*.json")):
        data = json.loads(path.read_text())
        model = data["config_general"]["model_name"]
        row = panel.scores[panel.model_ids.index(model)]
        for task, metrics in data["results"].items():
            if task == "all":
                continue
            cols = [j for j, k in enumerate(panel.item_keys) if k[0] == task]
            (name,) = [m for m in metrics if not m.endswith("_stderr")]
            assert abs(float(np.mean(row[cols])) - metrics[name]) < 1e-9, (model, task)
            checked += 1
    assert checked == 4
    # alpha's generations '4', ' 9 ' (stripped), '7', '4', 'eleven' against 4, 9, 3, 4, 11 (doc ids 0-4)
    alpha = dict(zip(panel.item_keys, panel.scores[0], strict=True))
    assert [alpha[("arith_gen|0", str(i))] for i in range(5)] == [1.0, 1.0, 0.0, 1.0, 0.0]


def test_model_from_path() -> None:
    assert model_from_path(Path("o/details/org/alpha/2026-01-01T00-00-00/details_x_1.parquet")) == "org/alpha"
    assert model_from_path(Path("o/details/m/d/details_x.parquet")) == "m"
    assert model_from_path(Path("elsewhere/details_x.parquet")) is None


def test_errors(tmp_path: Path) -> None:
    src = next(OUT.glob("details/org/alpha/*/details_arith_mc*.parquet"))
    loose = tmp_path / "details_arith_mc.parquet"
    loose.write_bytes(src.read_bytes())
    with pytest.raises(
        InputError, match=r"cannot tell the model \(not under details/<model>/<date>/\); give `model`$"
    ):
        read_lighteval(loose)
    assert read_lighteval(loose, model="m").model_ids == ["m"]
    table = pd.read_parquet(src)
    table["metric"] = [{"acc": 1, "f1": 0.5}] * len(table)
    two = tmp_path / "details_two.parquet"
    table.to_parquet(two)
    assert read_lighteval(two, model="m").mean_score == 1.0  # acc preferred
    table["metric"] = [{"rouge": 1.0, "f1": 0.5}] * len(table)
    table.to_parquet(two)
    with pytest.raises(InputError, match=r"several metrics \['rouge', 'f1'\]; choose one with `metric`$"):
        read_lighteval(two, model="m")
    assert read_lighteval(two, model="m", metric="f1").mean_score == 0.5
    other = tmp_path / "details_other.parquet"
    pd.DataFrame({"x": [1]}).to_parquet(other)
    with pytest.raises(FormatError, match="not a lighteval details file") as err:
        read_lighteval(other, model="m")
    assert "\n" not in str(err.value)
