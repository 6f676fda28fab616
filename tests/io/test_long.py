"""Importer ``long``: hand-checked values, metadata routing, side files, errors, round trip."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from benchsift.errors import FormatError, InputError
from benchsift.io import read_long
from benchsift.panel import Panel


def test_scores_and_metadata_by_hand(fixtures: Path) -> None:
    notes: list[str] = []
    d = fixtures / "long"
    p = read_long(d / "scores.csv", models=d / "models.csv", items=d / "items.csv", notes=notes)
    runs = list(zip(p.models["model"], p.models["condition"], strict=True))
    assert runs == [("llava-1.5-7b", "image"), ("qwen2-vl-7b", "image"), ("qwen2-vl-7b", "text-only")]
    assert p.item_keys == [
        ("MMStar", "1"),
        ("MMStar", "2"),
        ("MMStar", "3"),
        ("ChartQA", "007"),
        ("ChartQA", "008"),
    ]
    expected = np.array(
        [
            [1, 0, np.nan, 0, np.nan],
            [1, 1, 1, 0.5, 1],
            [0, np.nan, np.nan, np.nan, np.nan],
        ]
    )
    np.testing.assert_array_equal(p.scores, expected)
    # item metadata: question (constant per item) kept, answer from the items side file
    assert p.items["question"].tolist()[:2] == ["What color is the car?", "How many apples?"]
    assert p.items["answer"].tolist()[:4] == ["B", "C", "D", "40"]
    assert p.categories == ["coarse perception", "math", "chart"]
    # model metadata from the side file, both runs of qwen get it
    assert p.models["family"].tolist() == ["llava", "qwen", "qwen"]
    np.testing.assert_allclose(p.models["params"].to_numpy(), [7.0, 8.3, 8.3])
    assert p.models["release_date"].iloc[0] == pd.Timestamp("2023-10-05")
    assert any("logged model answers not kept" in n for n in notes)  # the prediction column, said so
    assert any("collapsed 1 identical duplicate" in n for n in notes)


def test_model_level_extra_column_goes_to_models(tmp_path: Path) -> None:
    f = tmp_path / "s.csv"
    f.write_text(
        "model,benchmark,item,score,org\nm1,B,1,1,acme\nm1,B,2,0,acme\nm2,B,1,0,zeta\nm2,B,2,1,zeta\n"
    )
    p = read_long(f)
    assert p.models["org"].tolist() == ["acme", "zeta"]
    assert "org" not in p.items.columns


@pytest.mark.parametrize(
    ("name", "error", "fragment"),
    [
        (
            "conflict.csv",
            InputError,
            "line 4: conflicting duplicate scores for model 'm1', benchmark 'B', item '1'",
        ),
        ("nonnumeric.csv", InputError, "line 3: score 'wrong' is not a number"),
        ("missing_column.csv", FormatError, "missing column 'item'"),
        ("empty.csv", FormatError, "empty file"),
    ],
)
def test_errors_name_file_and_problem(
    fixtures: Path, name: str, error: type[Exception], fragment: str
) -> None:
    path = fixtures / "long" / name
    with pytest.raises(error) as info:
        read_long(path)
    message = str(info.value)
    assert str(path) in message
    assert fragment in message
    assert "\n" not in message


def test_conflict_message_names_both_rows(fixtures: Path) -> None:
    with pytest.raises(InputError, match=r"line 4: .* 0\.0 here and 1\.0 at .*conflict\.csv, line 2"):
        read_long(fixtures / "long" / "conflict.csv")


def test_duplicate_across_files(tmp_path: Path) -> None:
    a, b = tmp_path / "a.csv", tmp_path / "b.csv"
    a.write_text("model,benchmark,item,score\nm,B,1,1\n")
    b.write_text("model,benchmark,item,score\nm,B,1,1\nm,B,2,0\n")
    p = read_long([a, b])  # identical duplicate across files collapses
    np.testing.assert_array_equal(p.scores, [[1.0, 0.0]])
    b.write_text("model,benchmark,item,score\nm,B,1,0\n")
    with pytest.raises(InputError, match=r"b\.csv, line 2: conflicting .* at .*a\.csv, line 2"):
        read_long([a, b])


def test_bad_condition_and_header_only(tmp_path: Path) -> None:
    f = tmp_path / "c.csv"
    f.write_text("model,benchmark,item,score,condition\nm,B,1,1,blind\n")
    with pytest.raises(InputError, match=r"c\.csv, line 2: condition 'blind'"):
        read_long(f)
    f.write_text("model,benchmark,item,score\n")
    with pytest.raises(FormatError, match="no data rows"):
        read_long(f)


def test_parquet_input_and_round_trip(tmp_path: Path) -> None:
    rng = np.random.default_rng(0)
    scores = rng.integers(0, 2, size=(4, 6)).astype(float)
    scores[1, 2] = np.nan
    items = pd.DataFrame({"benchmark": ["A"] * 3 + ["B"] * 3, "item": [f"q{i}" for i in range(6)]})
    items["category"] = ["x", "x", "y", "y", "z", "z"]
    original = Panel(scores, [f"m{i}" for i in range(4)], items)
    long = original.to_long()
    path = tmp_path / "long.parquet"
    long[["model", "condition", "benchmark", "item", "category", "score"]].to_parquet(path)
    back = read_long(path)
    np.testing.assert_array_equal(back.scores, original.scores)
    assert back.item_keys == original.item_keys
    assert back.model_ids == original.model_ids
    assert back.items["category"].tolist() == original.items["category"].tolist()


def test_round_trip_through_csv_file(tmp_path: Path, fixtures: Path) -> None:
    d = fixtures / "long"
    first = read_long(d / "scores.csv", models=d / "models.csv")
    out = tmp_path / "again.csv"
    first.to_long(dropna=False).to_csv(out, index=False)
    second = read_long(out)
    np.testing.assert_array_equal(second.scores, first.scores)
    assert second.item_keys == first.item_keys
    assert list(zip(second.models["model"], second.models["condition"], strict=True)) == list(
        zip(first.models["model"], first.models["condition"], strict=True)
    )
    assert second.models["family"].tolist() == first.models["family"].tolist()
    np.testing.assert_allclose(second.models["params"].to_numpy(), first.models["params"].to_numpy())


def test_side_file_errors(tmp_path: Path, fixtures: Path) -> None:
    models = tmp_path / "models.csv"
    models.write_text(
        "model,family,release_date,params\nllava-1.5-7b,llava,2023-10-05,7\nqwen2-vl-7b,qwen,soon,8\n"
    )
    with pytest.raises(InputError, match=r"models\.csv, line 3: release_date 'soon' is not a date"):
        read_long(fixtures / "long" / "scores.csv", models=models)
    models.write_text("model,params\nllava-1.5-7b,7\nllava-1.5-7b,8\n")
    with pytest.raises(InputError, match=r"models\.csv, line 3: repeats models \['llava-1.5-7b'\]"):
        read_long(fixtures / "long" / "scores.csv", models=models)
    items = tmp_path / "items.csv"
    items.write_text("benchmark,question\nMMStar,q\n")
    with pytest.raises(FormatError, match=r"items\.csv: missing column 'item' for the items side file"):
        read_long(fixtures / "long" / "scores.csv", items=items)


def test_a_wide_table_read_as_long_names_a_few_columns_and_the_wide_importer(tmp_path: Path) -> None:
    # 1 item column + 40 model columns: the message lists 10 columns, says how many more, and points to
    # `import wide`; a long table missing only `score` gets no such hint.
    wide = tmp_path / "wide.csv"
    pd.DataFrame({"item": ["q1", "q2"], **{f"model{j}": [1, 0] for j in range(40)}}).to_csv(wide, index=False)
    with pytest.raises(FormatError) as err:
        read_long(wide)
    msg = str(err.value)
    assert "'model8', ... 31 more])" in msg and "'model9'" not in msg
    assert msg.endswith("is read by `benchsift import wide`")
    nearly = tmp_path / "nearly.csv"
    pd.DataFrame({"model": ["m"], "benchmark": ["B"], "item": ["q"], "value": [1]}).to_csv(
        nearly, index=False
    )
    with pytest.raises(
        FormatError, match=r"missing column 'score' .*\['model', 'benchmark', 'item', 'value'\]\)$"
    ):
        read_long(nearly)
