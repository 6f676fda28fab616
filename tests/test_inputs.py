"""benchsift._inputs: an array argument's shape and values, a list's length, distinct names, a known
choice, an existing file or folder -- each declared once, each broken one a one-line message.

The expected messages are written out by hand from the declaration; the arrays are small enough to see
which cell is the first bad one (row-major order, numpy's ``argwhere``)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from benchsift._inputs import (
    check_array,
    check_choice,
    check_distinct,
    check_known,
    check_length,
    existing_dir,
    existing_file,
)
from benchsift.errors import FormatError, InputError

NAN = float("nan")


def test_check_array_returns_the_converted_array() -> None:
    a = check_array("x", [[0, 1], [0.5, NAN]], ndim=2, low=0, high=1)
    assert a.dtype == np.float64 and a.shape == (2, 2) and np.isnan(a[1, 1])
    ints = check_array("sizes", [3, 0, 2], ndim=1, dtype=np.int64, low=0)
    assert ints.dtype == np.int64 and ints.tolist() == [3, 0, 2]


@pytest.mark.parametrize(
    ("kwargs", "value", "message"),
    [
        ({"ndim": 2}, [1.0, 2.0], "x: expected a 2-D array, got shape (2,)"),
        (
            {"ndim": 2, "what": "a (models x items) array"},
            1.0,
            "x: expected a (models x items) array, got shape ()",
        ),
        ({"shape": (None, 3)}, np.zeros((2, 2)), "x: expected an array of shape (n, 3), got shape (2, 2)"),
        ({"shape": (4,)}, np.zeros(3), "x: expected an array of shape (4,), got shape (3,)"),
        ({"min_shape": (2, 1)}, np.zeros((1, 5)), "x: expected a 2-D array, got shape (1, 5)"),
        ({"min_shape": (2, 1)}, np.zeros((3, 0)), "x: expected a 2-D array, got shape (3, 0)"),
        (
            {"low": 0, "high": 1},
            [[0.0, 0.5], [1.5, 2.0]],
            "x: row 1, column 0 is 1.5; expected a value in [0, 1] or NaN",
        ),
        (
            {"low": 0, "high": 1},
            [[0.0, -np.inf]],
            "x: row 0, column 1 is -inf; expected a value in [0, 1] or NaN",
        ),
        ({"low": 0}, [1.0, -2.0], "x: entry 1 is -2.0; expected a value >= 0 or NaN"),
        ({"low": 0, "nan": False}, [1.0, NAN], "x: entry 1 is nan; expected a number"),
        (
            {"finite": True},
            [[1.0, 2.0], [np.inf, 0.0]],
            "x: row 1, column 0 is inf; expected a finite value or NaN",
        ),
        (
            {"low": 0, "high": 1, "axes": ("model row", "item column")},
            [[0.0, 0.0, 0.0], [0.0, 0.0, 7.0]],
            "x: model row 1, item column 2 is 7.0; expected a value in [0, 1] or NaN",
        ),
        (
            {"nan": "rows"},
            [[1.0, 2.0], [NAN, NAN], [3.0, NAN]],
            "x, row 2: partly NaN (a missing row must be a whole row of NaN)",
        ),
        ({"dtype": np.int64, "low": 0}, [2, -1], "x: entry 1 is -1; expected a value >= 0"),
    ],
)
def test_check_array_messages(kwargs: dict, value: object, message: str) -> None:
    with pytest.raises(InputError) as err:
        check_array("x", value, **kwargs)
    assert str(err.value) == message


def test_check_array_non_numeric() -> None:
    with pytest.raises(InputError, match=r"^x: expected a 2-D array of numbers: could not convert"):
        check_array("x", [["a", "b"]], ndim=2)
    with pytest.raises(FormatError, match=r"^x: expected a 2-D array of numbers"):
        check_array("x", [["a"]], ndim=2, error=FormatError)
    # an object array keeps its values; only its shape is checked
    labels = check_array("answers", [["A", None], ["B", "C"]], shape=(2, 2), dtype=object)
    assert labels.dtype == object and labels[0, 1] is None


def test_whole_nan_rows_are_missing_not_partly_nan() -> None:
    a = check_array("emb", [[NAN, NAN], [0.5, 0.25]], nan="rows", finite=True)
    assert np.isnan(a[0]).all()


def test_check_length() -> None:
    check_length("names", ["a", "b"], 2, "names (one per column)")
    with pytest.raises(InputError) as err:
        check_length("names", ["a", "b", "c"], 2, "names (one per column)")
    assert str(err.value) == "names: expected 2 names (one per column), got 3"


def test_check_distinct() -> None:
    check_distinct("`selectors`", ["vaw", "random"], what="selector")
    with pytest.raises(InputError) as err:
        check_distinct("`selectors`", [], what="selector")
    assert str(err.value) == "`selectors`: expected at least one selector"
    with pytest.raises(InputError) as err:
        check_distinct("`selectors`", ["vaw", "random", "vaw", "vaw", "random"], what="selector")
    assert str(err.value) == "`selectors`: duplicate selectors ['vaw', 'random']"


def test_check_choice_names_the_closest() -> None:
    assert check_choice("`variant`", "cells", ("cells", "shares", "dpp")) == "cells"
    with pytest.raises(InputError) as err:
        check_choice("`variant`", "cell", ("cells", "shares", "dpp"))
    assert (
        str(err.value) == "`variant`: expected one of cells, shares, dpp, got 'cell' (did you mean 'cells'?)"
    )
    with pytest.raises(InputError) as err:
        check_choice("`to`", "zzz", ("lm-eval", "inspect"), what="export target")
    assert str(err.value) == "`to`: unknown export target 'zzz'; expected lm-eval or inspect"
    with pytest.raises(InputError, match="expected one of a, b, c, got"):
        check_choice("x", ["unhashable"], ("a", "b", "c"))


def test_check_known() -> None:
    assert check_known("targets", iter(["b", "a"]), ["a", "b", "c"]) == ["b", "a"]
    with pytest.raises(InputError) as err:
        check_known("targets", ["a", "bench_3", "zz"], ["bench3", "a"], what="benchmark")
    assert str(err.value) == (
        "targets: unknown benchmark(s) 'bench_3' (did you mean 'bench3'?), 'zz'; "
        "expected some of ['bench3', 'a']"
    )


def test_existing_file_and_dir(tmp_path: Path) -> None:
    f = tmp_path / "e.yaml"
    f.write_text("x: 1\n")
    assert existing_file(f) == f
    assert existing_file(str(f), suffixes=(".yaml", ".yml")) == f
    with pytest.raises(InputError) as err:
        existing_file(tmp_path / "nope.npy", "embeddings")
    assert str(err.value) == f"{tmp_path / 'nope.npy'}: no such file (expected embeddings)"
    with pytest.raises(InputError) as err:
        existing_file(tmp_path, "embeddings")
    assert str(err.value) == f"{tmp_path}: is a directory, expected embeddings"
    txt = tmp_path / "t.txt"
    txt.write_text("")
    with pytest.raises(InputError) as err:
        existing_file(txt, "the task's YAML", suffixes=(".yaml", ".yml"))
    assert str(err.value) == f"{txt}: not a .yaml or .yml file (expected the task's YAML)"
    assert existing_dir(tmp_path) == tmp_path
    with pytest.raises(InputError) as err:
        existing_dir(f, "a suite directory")
    assert str(err.value) == f"{f}: not a directory (expected a suite directory)"
