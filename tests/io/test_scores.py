"""``read_scores``, the loader of ``estimate``, ``adaptive``, ``compress`` and ``validate``: a long table's
keys are read as ``benchsift import long`` reads them, so the same file gives the same panel either way."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from benchsift.errors import InputError
from benchsift.io import import_panel, read_scores


def test_float_ids_of_a_parquet_table_are_the_integers_import_long_makes(tmp_path: Path) -> None:
    # a parquet column of item ids that pandas once held as floats (a NaN elsewhere made it float64)
    path = tmp_path / "run.parquet"
    table = {"model": ["m"] * 3, "benchmark": ["B"] * 3, "item": [7.0, 12.0, 2.5], "score": [1.0, 0, 1]}
    pd.DataFrame(table).to_parquet(path)
    read = read_scores(path)
    assert read.item_keys == [("B", "7"), ("B", "12"), ("B", "2.5")]
    assert read.item_keys == import_panel("long", path).item_keys
    np.testing.assert_array_equal(read.scores, [[1.0, 0.0, 1.0]])


def test_ids_are_stripped_as_import_long_strips_them(tmp_path: Path) -> None:
    path = tmp_path / "run.csv"
    path.write_text("model,benchmark,item,score\nGPT4V ,  MMMU,733 ,1\nGPT4V , MMMU,0012,0\n")
    read = read_scores(path)
    assert read.model_ids == ["GPT4V"]
    assert read.item_keys == [("MMMU", "733"), ("MMMU", "0012")]  # "0012" stays as written
    assert read.item_keys == import_panel("long", path).item_keys


@pytest.mark.parametrize(
    ("body", "where"),
    [
        ("m,B,,1\nm,B,2,0\n", "line 2: empty item"),
        ("m,B,1,1\n,B,2,0\n", "line 3: empty model"),
        ("m,B,1,1\nm,  ,2,0\n", "line 3: empty benchmark"),
    ],
)
def test_an_empty_id_is_refused_naming_its_line(tmp_path: Path, body: str, where: str) -> None:
    path = tmp_path / "run.csv"
    path.write_text("model,benchmark,item,score\n" + body)
    with pytest.raises(InputError, match=f"run.csv, {where}"):
        read_scores(path)
    with pytest.raises(InputError, match=f"run.csv, {where}"):
        import_panel("long", path)


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ("m,B,1,1\nm,B,2,abc\n", r"^{p}, line 3: score 'abc' is not a number$"),
        (
            "m,B,1,1\nm,B,2,-0.5\n",
            r"^{p}, line 3: score -0.5 of model 'm', benchmark 'B', item '2' is outside",
        ),
        (
            "m,B,1,1\nm,B,1,0\n",
            r"^{p}, line 3: conflicting duplicate scores for model 'm', benchmark 'B', item '1': "
            r"0.0 here and 1.0 at {p}, line 2$",
        ),
    ],
)
def test_a_bad_score_is_named_by_its_line_as_import_long_names_it(
    tmp_path: Path, body: str, message: str
) -> None:
    # the panel layer counted data rows from 0 ("row 1"), where every importer names the file's line
    path = tmp_path / "run.csv"
    path.write_text("model,benchmark,item,score\n" + body)
    with pytest.raises(InputError, match=message.format(p=re.escape(str(path)))) as scores_error:
        read_scores(path)
    if "outside" not in message:  # one builder, one message: `import long` says the same (it rescales)
        with pytest.raises(InputError) as long_error:
            import_panel("long", path)
        assert str(long_error.value) == str(scores_error.value)
    # a parquet table has no lines: its rows are named by index
    pq = tmp_path / "run.parquet"
    pd.read_csv(path, dtype=str).to_parquet(pq)
    with pytest.raises(InputError, match=r"row 1|rows \[0, 1\]|row 0, row 1"):
        read_scores(pq)
