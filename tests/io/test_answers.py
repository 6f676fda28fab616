"""Logged answers read against a panel (DISCO's input, PRIMEBench section 5)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from benchsift.errors import FormatError, InputError
from benchsift.io.answers import read_answers
from benchsift.panel import Panel


def _panel() -> Panel:
    models = pd.DataFrame({"model": ["a", "b", "a"], "condition": ["image", "image", "text-only"]})
    items = pd.DataFrame({"benchmark": ["X", "X", "Y"], "item": ["1", "2", "1"]})
    scores = np.array([[1.0, 0.0, 1.0], [0.0, np.nan, 1.0], [0.0, 0.0, 0.0]])
    return Panel(scores, models, items)


def test_answers_align_by_model_run_and_item(tmp_path: Path) -> None:
    path = tmp_path / "answers.csv"
    path.write_text(
        "model,benchmark,item,condition,prediction\n"
        "a,X,1,image, B \n"  # stripped
        "a,X,2,image,C\n"
        "a,Y,1,image,\n"  # empty: no answer
        "b,X,1,image,B\n"
        "b,X,2,image,D\n"  # a cell the panel has no score for still gets its answer
        "b,Y,1,image,7\n"
        "a,X,1,text-only,A\n"
        "a,X,1,image,B\n"  # an identical duplicate
        "zed,X,1,image,A\n"  # a model run the panel does not hold
        "b,Z,9,image,A\n"  # an item the panel does not hold
    )
    logged = read_answers(path, _panel(), column="prediction")
    expected = np.array([["B", "C", None], ["B", "D", "7"], ["A", None, None]], dtype=object)
    assert logged.values.tolist() == expected.tolist()
    # 8 scored cells; answered among them: a: 2, b: 2 (X/2 is unscored), a text-only: 1
    assert logged.coverage == pytest.approx(5 / 8)
    notes = " ".join(logged.notes)
    assert "skipped 1 row(s) of 1 model run(s) not in the panel (e.g. 'zed')" in notes
    assert "skipped 1 row(s) of items not in the panel" in notes
    assert "3 of 8 scored cells have no logged answer" in notes


def test_conflicting_duplicates_name_both_lines(tmp_path: Path) -> None:
    path = tmp_path / "dup.csv"
    path.write_text("model,benchmark,item,answer\na,X,1,B\nb,X,1,A\na,X,1,C\n")
    with pytest.raises(
        InputError, match=r"dup.csv, line 4: conflicting duplicate answers .* 'C' here and 'B' at line 2"
    ):
        read_answers(path, _panel())


def test_benchmark_column_needed_only_for_several_benchmarks(tmp_path: Path) -> None:
    path = tmp_path / "nob.csv"
    path.write_text("model,item,answer\na,1,B\nb,2,C\n")
    with pytest.raises(InputError, match="missing column 'benchmark' \\(the panel holds 2 benchmarks"):
        read_answers(path, _panel())
    one = Panel.from_matrix(np.array([[1.0, 0.0], [0.0, 1.0]]), ["a", "b"], ["1", "2"], benchmark="X")
    logged = read_answers(path, one)
    assert logged.values.tolist() == [["B", None], [None, "C"]] and logged.coverage == 0.5
    with pytest.raises(FormatError, match="nob.csv.*prediction"):
        read_answers(path, one, column="prediction")
