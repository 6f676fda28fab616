"""benchsift._params: constraints declared once, one message per broken parameter.

The truth tables are written out by hand (each value and whether it belongs); scikit-learn's own
``Interval`` and ``StrOptions`` (its private module, read here only as a cross-check of the semantics on
the values where the two are meant to agree) decide the same cases.
"""

from __future__ import annotations

from numbers import Integral, Real
from pathlib import Path

import numpy as np
import pytest

from benchsift._params import (
    Check,
    ConstraintLike,
    Interval,
    Options,
    check_param,
    check_params,
    describe,
    renamed_params,
    validate_params,
)
from benchsift.errors import InputError

NAN = float("nan")
INF = float("inf")


@pytest.mark.parametrize(
    ("constraint", "value", "ok"),
    [
        (Interval(Integral, 1, None), 1, True),
        (Interval(Integral, 1, None), 0, False),
        (Interval(Integral, 1, None), np.int64(5), True),
        (Interval(Integral, 1, None), 2.0, False),  # a float is no integer, even a whole one
        (Interval(Integral, 1, None), True, False),  # nor is a bool
        (Interval(Integral, 0, 3, closed="left"), 3, False),
        (Interval(Integral, 0, 3, closed="left"), 0, True),
        (Interval(Real, 0, 1, closed="neither"), 0, False),
        (Interval(Real, 0, 1, closed="neither"), 1, False),
        (Interval(Real, 0, 1, closed="neither"), 0.5, True),
        (Interval(Real, 0, 1, closed="neither"), NAN, False),
        (Interval(Real, 0, 1, closed="right"), 1.0, True),
        (Interval(Real, 0, 1, closed="right"), 0.0, False),
        (Interval(Real, 0, 1), np.float32(1.0), True),
        (Interval(Real, 0, None), INF, True),  # unbounded on that side, as in scikit-learn
        (Interval(Real, None, 1), INF, False),
        (Interval(Real, None, None), NAN, False),
        (Interval(Real, None, None), "0.5", False),
        (Interval(Real, 0, None), False, False),
    ],
)
def test_interval_truth_table(constraint: Interval, value: object, ok: bool) -> None:
    assert constraint.is_satisfied_by(value) is ok


def test_interval_agrees_with_scikit_learn() -> None:
    from sklearn.utils._param_validation import Interval as SkInterval

    values = [-1, 0, 1, 2, 0.5, 1.0, np.int32(1), np.float64(0.999), 3]
    for lo, hi in [(0, 1), (0, None), (None, 1), (1, 3)]:
        for asked in ("both", "left", "right", "neither"):
            # scikit-learn wants an absent bound's end open; ours reads it as unbounded either way
            left_closed = asked in ("both", "left") and lo is not None
            right_closed = asked in ("both", "right") and hi is not None
            closed = {(1, 1): "both", (1, 0): "left", (0, 1): "right", (0, 0): "neither"}[
                (left_closed, right_closed)
            ]
            for typ in (Integral, Real):
                ours = Interval(typ, lo, hi, closed=closed)  # type: ignore[arg-type]
                theirs = SkInterval(typ, lo, hi, closed=closed)
                for v in values:
                    assert ours.is_satisfied_by(v) == theirs.is_satisfied_by(v), (typ, lo, hi, closed, v)


@pytest.mark.parametrize(
    ("constraint", "words"),
    [
        (Interval(Integral, 1, None), "an integer >= 1"),
        (Interval(Integral, 0, None, closed="neither"), "an integer > 0"),
        (Interval(Real, None, 1, closed="neither"), "a number < 1"),
        (Interval(Real, 0, 1, closed="neither"), "a number in (0, 1)"),
        (Interval(Real, 0, 1, closed="right"), "a number in (0, 1]"),
        (Interval(Real, -1, 1), "a number in [-1, 1]"),
        (Interval(Real, 0, 0.5, closed="left", noun="a fraction"), "a fraction in [0, 0.5)"),
        (Interval(Real, 1e-9, None), "a number >= 1e-09"),
        (Interval(Real, None, None), "a number"),
        (Interval(Real, 0, 1, desc="a share of the models"), "a share of the models"),
        (Options(["srcc", "plcc"]), "srcc or plcc"),
        (Options(["srcc", "plcc", "r2"]), "one of srcc, plcc, r2"),
        (Options(["auto"]), "auto"),
    ],
)
def test_descriptions(constraint: Interval | Options, words: str) -> None:
    assert str(constraint) == words


def test_options_compare_type_and_value() -> None:
    opts = Options(["a", "b"])
    assert opts.is_satisfied_by("a")
    assert not opts.is_satisfied_by("c")
    assert not opts.is_satisfied_by(["a"])  # unhashable: refused, not a TypeError
    ints = Options([1, 2], type=int)
    assert ints.is_satisfied_by(2)
    assert not ints.is_satisfied_by("2")


def test_describe_puts_none_last_and_names_types() -> None:
    assert describe([None, Interval(Integral, 1, None)]) == "an integer >= 1 or None"
    assert describe([str, Path]) == "a string or a Path"
    assert describe(["boolean"]) == "True or False"
    assert describe([Check(lambda v: len(v) > 0, "a non-empty list of model names")]) == (
        "a non-empty list of model names"
    )


def test_check_param_message_is_one_line_naming_parameter_expected_and_given() -> None:
    with pytest.raises(InputError) as info:
        check_param("n_boot", 0, [Interval(Integral, 1, None)])
    assert str(info.value) == "`n_boot`: expected an integer >= 1, got 0"
    with pytest.raises(InputError) as info:
        check_param("level", "x\ny", [Interval(Real, 0, 1, closed="neither"), None], owner="auto")
    assert str(info.value) == "auto `level`: expected a number in (0, 1) or None, got 'x\\ny'"
    assert "\n" not in str(info.value)
    with pytest.raises(InputError) as info:
        check_param("models", list(range(100)), [Options(["all"])])
    msg = str(info.value)
    assert msg.endswith("...") and len(msg) < 140
    assert check_param("x", None, [None]) is None
    with pytest.raises(InputError) as info:
        check_param("n_models", 1, [Interval(Integral, 2, None)], owner="simulation parameter", quote=False)
    assert str(info.value) == "simulation parameter n_models: expected an integer >= 2, got 1"


def test_boolean_refuses_integers() -> None:
    check_param("flag", True, ["boolean"])
    check_param("flag", np.bool_(False), ["boolean"])
    with pytest.raises(InputError, match="`flag`: expected True or False, got 1"):
        check_param("flag", 1, ["boolean"])


def test_check_that_raises_counts_as_refused() -> None:
    nonempty = Check(lambda v: len(v) > 0, "a non-empty list")
    with pytest.raises(InputError, match="expected a non-empty list, got 3"):
        check_param("items", 3, [nonempty])  # len(3) raises TypeError: a refusal, not a crash


def test_check_params_checks_declared_names_in_order() -> None:
    declared: dict[str, list[ConstraintLike]] = {"a": [Interval(Integral, 0, None)], "b": [Options(["x"])]}
    check_params(declared, {"a": 1, "b": "x", "undeclared": object()})
    check_params(declared, {"b": "x"})  # absent: not checked
    with pytest.raises(InputError, match="^`a`"):
        check_params(declared, {"b": "y", "a": -1})  # the declaration's order, not the mapping's


def test_validate_params_checks_defaults_and_keeps_the_function() -> None:
    @validate_params({"k": [Interval(Integral, 1, None)], "how": [Options(["mean", "median"])]})
    def f(x: float, k: int = 1, *, how: str = "mean") -> float:
        """Doc of f."""
        return x * k

    assert f(2.0, 3) == 6.0
    assert f.__doc__ == "Doc of f." and f.__name__ == "f"
    with pytest.raises(InputError, match=r"^`k`: expected an integer >= 1, got 0$"):
        f(1.0, k=0)
    with pytest.raises(InputError, match=r"^`how`: expected mean or median, got 'mode'$"):
        f(1.0, how="mode")

    @validate_params({"k": [Interval(Integral, 1, None)]})
    def g(k: int = 0) -> int:  # a default outside its own declaration is caught too
        return k

    with pytest.raises(InputError, match="`k`"):
        g()


def test_validate_params_refuses_a_declaration_of_no_parameter() -> None:
    with pytest.raises(TypeError, match="no parameter"):

        @validate_params({"nope": [None]})
        def f(x: int) -> int:
            return x


def test_interval_refuses_a_bad_declaration() -> None:
    with pytest.raises(TypeError):
        Interval(int, 0, 1)  # type: ignore[arg-type]
    with pytest.raises(ValueError):
        Interval(Real, 1, 0)
    with pytest.raises(ValueError):
        Interval(Real, 0, 1, closed="open")  # type: ignore[arg-type]


def test_renamed_params_pass_the_old_name_on_with_a_future_warning() -> None:
    @renamed_params({"seed": "random_state", "bootstrap": "n_boot"}, until="0.3")
    def f(x: int, *, n_boot: int = 10, random_state: int = 0) -> tuple[int, int, int]:
        return x, n_boot, random_state

    assert f(1, n_boot=5, random_state=2) == (1, 5, 2)
    with pytest.warns(
        FutureWarning, match=r"^f: `seed` is now called `random_state`; .* until benchsift 0.3$"
    ):
        assert f(1, seed=7) == (1, 10, 7)  # type: ignore[call-arg]
    with pytest.warns(FutureWarning, match="`bootstrap` is now called `n_boot`"):
        assert f(1, bootstrap=3) == (1, 3, 0)  # type: ignore[call-arg]
    with pytest.raises(InputError, match="^`seed` and `random_state`: give `random_state` only"):
        f(1, seed=1, random_state=2)  # type: ignore[call-arg]
    with pytest.raises(TypeError, match="renamed to no parameter"):
        renamed_params({"a": "b"}, until="0.3")(f)
