"""``read_scores``, the loader of ``estimate``, ``adaptive``, ``compress`` and ``validate``: a long table's
keys are read as ``benchsift import long`` reads them, so the same file gives the same panel either way."""

from __future__ import annotations

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
