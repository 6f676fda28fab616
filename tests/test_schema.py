"""benchsift._schema: a table checked against its declared columns, a choice among a file's values, the
rules between parameters -- each broken one refused in one line naming where, column, row and expected."""

from __future__ import annotations

from numbers import Integral, Real
from operator import le

import numpy as np
import pandas as pd
import pytest

from benchsift._inputs import check_shape, choose
from benchsift._params import Interval
from benchsift._schema import Col, Rule, check_frame, check_rules
from benchsift.errors import InputError

SCHEMA = {
    "model": Col("name"),
    "score": Col("number", empty=True, within=Interval(Real, 0, 1)),
    "ok": Col("bool"),
    "kind": Col("text", required=False, empty=True, values=("a", "b")),
    "n": Col("number", required=False, add=True, empty=True, within=Interval(Integral, 1, 3)),
}


def _frame(**over: list[object]) -> pd.DataFrame:
    base: dict[str, list[object]] = {"model": ["m1", 2], "score": [0.5, None], "ok": ["Yes", False]}
    base.update(over)
    return pd.DataFrame(base)


def test_a_good_table_is_read_as_declared() -> None:
    out = check_frame(_frame(kind=[" A", None]).set_index(pd.Index([7, 9])), SCHEMA, where="t.csv")
    assert list(out.index) == [0, 1]
    assert list(out["model"]) == ["m1", "2"]  # an id is text, whatever the cell held
    assert out["score"].iloc[0] == 0.5 and np.isnan(out["score"].iloc[1])  # empty stays NaN, never 0
    assert out["ok"].dtype == bool and list(out["ok"]) == [True, False]
    assert out["kind"].iloc[0] == "a" and out["kind"].isna().iloc[1]
    assert "n" in out and out["n"].isna().all()  # an optional column with ``add`` is added, empty


@pytest.mark.parametrize(
    ("over", "message"),
    [
        (
            {"score": ["high", 0.2]},
            "t.csv: column 'score' row 0: expected a number in [0, 1] or empty, got 'high'",
        ),
        ({"score": [0.2, 1.5]}, "t.csv: column 'score' row 1: expected a number in [0, 1] or empty, got 1.5"),
        ({"ok": [True, "maybe"]}, "t.csv: column 'ok' row 1: expected true or false, got 'maybe'"),
        ({"ok": [True, None]}, "t.csv: column 'ok' row 1: expected true or false, got an empty value"),
        ({"model": ["m1", None]}, "t.csv: column 'model' row 1: expected a name, got an empty value"),
        ({"kind": ["a", "c"]}, "t.csv: column 'kind' row 1: expected a or b or empty, got 'c'"),
        ({"n": [2, 2.5]}, "t.csv: column 'n' row 1: expected an integer in [1, 3] or empty, got 2.5"),
    ],
)
def test_the_first_bad_cell_is_named(over: dict[str, list[object]], message: str) -> None:
    with pytest.raises(InputError) as err:
        check_frame(_frame(**over), SCHEMA, where="t.csv")
    assert str(err.value) == message


def test_missing_columns_rows_and_keys() -> None:
    with pytest.raises(InputError) as err:
        check_frame(pd.DataFrame({"model": ["m"], "x": [1]}), SCHEMA, where="t.csv", hint="; see the docs")
    assert str(err.value) == (
        "t.csv: missing column(s) ['score', 'ok']; expected ['model', 'score', 'ok'] "
        "(columns are ['model', 'x']); see the docs"
    )
    with pytest.raises(InputError, match=r"^t.csv: the table has no rows$"):
        check_frame(_frame().iloc[:0], SCHEMA, where="t.csv", nonempty=True)
    with pytest.raises(InputError, match=r"^t.csv has 2 rows but the matrix has 3$"):
        check_frame(_frame(), SCHEMA, where="t.csv", rows=(3, "the matrix has 3"))
    dup = _frame(model=["m", "m"], score=[0.1, 0.1])
    with pytest.raises(InputError) as err:
        check_frame(dup, SCHEMA, where="t.csv", key=("model", "score"))
    assert str(err.value) == "t.csv: row 1: duplicate (model, score) = ('m', 0.1); expected one row per key"
    # the key is compared on the read values: 1 and "1" are the same id
    with pytest.raises(InputError, match="row 1: duplicate"):
        check_frame(_frame(model=[1, "1"]), SCHEMA, where="t.csv", key=("model",))


def test_choose() -> None:
    assert choose(None, ["acc"], what="metric", param="metric", where="f") == "acc"
    assert choose("f1", ["acc", "f1"], what="metric", param="metric", where="f") == "f1"
    assert choose(None, [], what="filter", param="filter", where="f") is None
    with pytest.raises(InputError, match=r"^f: unknown metric 'em'; expected acc or f1$"):
        choose("em", ["acc", "f1"], what="metric", param="metric", where="f")
    with pytest.raises(InputError, match=r"^f: several metrics \['acc', 'f1'\]; choose one with `metric`$"):
        choose(None, ["acc", "f1"], what="metric", param="metric", where="f")


def test_rules_and_shapes() -> None:
    rules = [
        Rule(("a", "b"), le, "a <= b"),
        Rule(("a", "c"), lambda a, c: a + c <= 1, "a sum of at most 1", when=lambda a, c: c is not None),
    ]
    check_rules(rules, {"a": 1, "b": 2, "c": None})
    with pytest.raises(InputError, match=r"^config a=3, b=2: expected a <= b$"):
        check_rules(rules, {"a": 3, "b": 2, "c": None}, owner="config")
    with pytest.raises(InputError, match=r"^a=1, c=0.5: expected a sum of at most 1$"):
        check_rules(rules, {"a": 1, "b": 2, "c": 0.5})
    check_shape("W", (5, 3), ("n_boot", 3))
    with pytest.raises(InputError, match=r"^W: expected shape \(n_boot, 3\), got shape \(5, 4\)$"):
        check_shape("W", (5, 4), ("n_boot", 3))
    with pytest.raises(InputError, match=r"^x: expected shape \(3,\), got shape \(3, 1\)$"):
        check_shape("x", (3, 1), (3,))


def test_a_blank_text_cell_in_a_number_column_is_empty() -> None:
    """As ``pandas.to_numeric`` reads it (a CSV's ``params`` column with an empty string, as the panel
    models table had before the schema): NaN where empty cells are allowed, refused where they are not."""
    frame = pd.DataFrame({"params": ["", " 7", "  ", None], "n": ["1", "2", "3", "4"]})
    out = check_frame(frame, {"params": Col("number", empty=True), "n": Col("number")}, where="t")
    np.testing.assert_array_equal(out["params"].to_numpy(), [np.nan, 7.0, np.nan, np.nan])
    np.testing.assert_array_equal(out["n"].to_numpy(), [1.0, 2.0, 3.0, 4.0])
    with pytest.raises(
        InputError, match=r"^t: column 'params' row 0: expected a number, got an empty value$"
    ):
        check_frame(frame, {"params": Col("number")}, where="t")
