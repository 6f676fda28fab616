"""Parameters declared once: constraint objects and the check that turns a broken one into one message.

The idea is scikit-learn's ``_parameter_constraints`` (``sklearn/utils/_param_validation.py``), written
again here, small, without its private API: a public function or estimator declares, once, what each
parameter may be, as a list of constraints any one of which suffices, and one check produces the message::

    @validate_params(
        {"level": [Interval(Real, 0, 1, closed="neither")], "n_boot": [Interval(Integral, 1, None)]}
    )
    def bootstrap_ci(x, *, level=0.95, n_boot=2000): ...

    bootstrap_ci(x, level=1.5)
    # InputError: `level`: expected a number in (0, 1), got 1.5

An estimator declares ``_parameter_constraints`` as a class attribute and calls
:func:`check_params` on its attributes where scikit-learn would (in ``fit``, or in ``__post_init__`` of a
dataclass). The message is one line: the parameter in backticks (the CLI writes each `` `name` `` as its
``--name`` flag, :func:`benchsift.cli._common.as_options`), what was expected (the constraints joined by
"or"), and what was given (its ``repr``, shortened to 80 characters).

A constraint is one of:

- :class:`Interval` -- an integer or a real number between two bounds, each end open, closed or absent
  (``bool`` is never a number here; NaN never satisfies a real interval);
- :class:`Options` -- one of a fixed set of values (strings, usually);
- a ``type`` (or a tuple of types) -- an instance of it (``str``, ``Path``, ``np.random.Generator``);
- ``None`` -- the value ``None``;
- ``"boolean"`` -- ``True`` or ``False`` (also ``numpy.bool_``; not ``0`` or ``1``);
- :class:`Check` -- any other rule: a predicate and the words that describe what it accepts.

This module sits at the bottom of the layers (it imports :mod:`benchsift.errors` only), so ``stats`` and
``irt`` may use it.
"""

from __future__ import annotations

import functools
import inspect
import math
import warnings
from collections.abc import Callable, Iterable, Mapping, Sequence
from numbers import Integral, Real
from typing import Any, Literal, ParamSpec, TypeVar

from benchsift.errors import InputError

__all__ = [
    "Check",
    "Constraint",
    "ConstraintLike",
    "Interval",
    "Options",
    "check_param",
    "check_params",
    "describe",
    "renamed_attribute",
    "renamed_params",
    "validate_params",
]

_P = ParamSpec("_P")
_R = TypeVar("_R")

Closed = Literal["both", "left", "right", "neither"]


class Constraint:
    """One rule a parameter's value may satisfy; ``str(c)`` says what it accepts ("an integer >= 1")."""

    def is_satisfied_by(self, value: Any) -> bool:
        raise NotImplementedError

    def __str__(self) -> str:
        raise NotImplementedError


def _fmt(x: float) -> str:
    """A bound as people write it: ``1`` not ``1.0``, ``0.5``, ``1e-09``."""
    if isinstance(x, Integral) or (isinstance(x, float) and x.is_integer() and abs(x) < 1e15):
        return str(int(x))
    return repr(float(x))


class Interval(Constraint):
    """An integer (``type=Integral``) or real number (``type=Real``) in ``[left, right]``.

    ``left`` / ``right`` ``None`` leaves that side unbounded; ``closed`` says which ends belong to the
    interval (``"both"``, ``"left"``, ``"right"``, ``"neither"``). ``bool`` satisfies no interval. For
    ``Real``, integers count (``1`` is a number in ``(0, 2)``) and NaN never does; an infinite value does
    only where its side is unbounded (as in scikit-learn). ``noun`` replaces "an integer" / "a number" in
    the description ("a fraction in (0, 1)"); ``desc`` replaces the whole description where a message
    already pinned elsewhere must keep its words.
    """

    def __init__(
        self,
        type: type[Integral] | type[Real],
        left: float | None,
        right: float | None,
        *,
        closed: Closed = "both",
        noun: str | None = None,
        desc: str | None = None,
    ) -> None:
        if type not in (Integral, Real):
            raise TypeError(f"Interval type must be numbers.Integral or numbers.Real, got {type!r}")
        if closed not in ("both", "left", "right", "neither"):
            raise ValueError(f"closed must be 'both', 'left', 'right' or 'neither', got {closed!r}")
        if left is not None and right is not None and right < left:
            raise ValueError(f"Interval: right bound {right} is below left bound {left}")
        self.type = type
        self.left = left
        self.right = right
        self.closed = closed
        self.noun = noun
        self.desc = desc

    def is_satisfied_by(self, value: Any) -> bool:
        if isinstance(value, bool) or not isinstance(value, self.type):
            # numpy.bool_ is no Integral; numpy integer and float scalars are registered as numbers
            return False
        if self.type is Real and math.isnan(float(value)):
            return False
        left_closed = self.closed in ("both", "left")
        right_closed = self.closed in ("both", "right")
        v: Any = value  # a numbers.Real, which typing gives no order
        if self.left is not None and (v < self.left if left_closed else v <= self.left):
            return False
        if self.right is not None and (v > self.right if right_closed else v >= self.right):
            return False
        return True

    def outside(self, values: Any) -> Any:
        """:meth:`is_satisfied_by` over an array of numbers, vectorised: a boolean array, True where a value
        lies outside the bounds (or, for ``Integral``, is not a whole number). NaN is never outside here:
        whether a missing value is allowed is the caller's rule."""
        import numpy as np

        v = np.asarray(values, dtype=np.float64)
        out = np.zeros(v.shape, dtype=bool)
        with np.errstate(invalid="ignore"):
            if self.left is not None:
                out |= v < self.left if self.closed in ("both", "left") else v <= self.left
            if self.right is not None:
                out |= v > self.right if self.closed in ("both", "right") else v >= self.right
            if self.type is Integral:
                out |= np.isfinite(v) & (v != np.round(v))
        return out & ~np.isnan(v)

    def __str__(self) -> str:
        if self.desc is not None:
            return self.desc
        noun = self.noun or ("an integer" if self.type is Integral else "a number")
        lo, hi = self.left, self.right
        if lo is None and hi is None:
            return noun
        if hi is None:
            return f"{noun} {'>=' if self.closed in ('both', 'left') else '>'} {_fmt(lo)}"  # type: ignore[arg-type]
        if lo is None:
            return f"{noun} {'<=' if self.closed in ('both', 'right') else '<'} {_fmt(hi)}"
        left = "[" if self.closed in ("both", "left") else "("
        right = "]" if self.closed in ("both", "right") else ")"
        return f"{noun} in {left}{_fmt(lo)}, {_fmt(hi)}{right}"


class Options(Constraint):
    """One of ``values`` (compared with ``==``; a value of another ``type`` never matches, so ``1`` is not
    ``True``); ``str`` lists them in the order given: "one of srcc, plcc, r2" ("era or family" for two)."""

    def __init__(self, values: Iterable[Any], *, type: type | tuple[type, ...] = str) -> None:
        self.values = tuple(values)
        self.type = type

    def is_satisfied_by(self, value: Any) -> bool:
        if not isinstance(value, self.type):
            return False
        try:
            return value in self.values
        except TypeError:  # an unhashable / uncomparable value
            return False

    def __str__(self) -> str:
        words = [str(v) for v in self.values]
        if len(words) <= 2:
            return " or ".join(words)
        return "one of " + ", ".join(words)


class Check(Constraint):
    """Any other rule: ``predicate(value)`` true (an exception from it counts as false) and the words that
    say what it accepts ("a list of model names")."""

    def __init__(self, predicate: Callable[[Any], bool], description: str) -> None:
        self.predicate = predicate
        self.description = description

    def is_satisfied_by(self, value: Any) -> bool:
        try:
            return bool(self.predicate(value))
        except Exception:
            return False

    def __str__(self) -> str:
        return self.description


class _InstanceOf(Constraint):
    def __init__(self, types: type | tuple[type, ...]) -> None:
        self.types = types

    def is_satisfied_by(self, value: Any) -> bool:
        return isinstance(value, self.types)

    def __str__(self) -> str:
        types = self.types if isinstance(self.types, tuple) else (self.types,)
        names = [_TYPE_WORDS.get(t, f"a {t.__qualname__}") for t in types]
        return " or ".join(names)


class _NoneConstraint(Constraint):
    def is_satisfied_by(self, value: Any) -> bool:
        return value is None

    def __str__(self) -> str:
        return "None"


class _Boolean(Constraint):
    def is_satisfied_by(self, value: Any) -> bool:
        kind = type(value)  # numpy.bool_ without importing numpy (named "bool" since numpy 2)
        return isinstance(value, bool) or (kind.__module__ == "numpy" and kind.__name__ in ("bool", "bool_"))

    def __str__(self) -> str:
        return "True or False"


_TYPE_WORDS: dict[type, str] = {str: "a string", bool: "True or False", dict: "a dict", list: "a list"}

ConstraintLike = Constraint | type | tuple[type, ...] | None | str


def make_constraint(spec: ConstraintLike) -> Constraint:
    """The :class:`Constraint` a declaration stands for (see the module docstring)."""
    if isinstance(spec, Constraint):
        return spec
    if spec is None:
        return _NoneConstraint()
    if spec == "boolean":
        return _Boolean()
    if isinstance(spec, type) or (isinstance(spec, tuple) and all(isinstance(t, type) for t in spec)):
        return _InstanceOf(spec)
    raise TypeError(f"not a parameter constraint: {spec!r}")


def describe(constraints: Sequence[ConstraintLike]) -> str:
    """What ``constraints`` accept, in words: each one's description joined by "or", ``None`` last."""
    made = [make_constraint(c) for c in constraints]
    made.sort(key=lambda c: isinstance(c, _NoneConstraint))  # "an integer >= 1 or None"
    return " or ".join(str(c) for c in made)


def _given(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 80 else text[:77] + "..."


def check_param(
    name: str, value: Any, constraints: Sequence[ConstraintLike], *, owner: str = "", quote: bool = True
) -> Any:
    """``value`` when it satisfies one of ``constraints``; else :class:`~benchsift.errors.InputError`
    ``[owner ]`name`: expected <what>, got <repr>``.

    ``quote=False`` writes the name bare: for a field that is no parameter of any public call (a config
    object's field), which the CLI must not rewrite as an option (`` `name` `` -> ``--name``)."""
    made = [make_constraint(c) for c in constraints]
    if any(c.is_satisfied_by(value) for c in made):
        return value
    where = f"{owner} " if owner else ""
    shown = f"`{name}`" if quote else name
    raise InputError(f"{where}{shown}: expected {describe(made)}, got {_given(value)}")


def check_params(
    constraints: Mapping[str, Sequence[ConstraintLike]],
    params: Mapping[str, Any],
    *,
    owner: str = "",
    quote: bool = True,
) -> None:
    """Check every declared parameter present in ``params`` (a function's arguments, an estimator's
    ``vars(self)``), in the order of the declaration; the first one broken raises its message."""
    for name, allowed in constraints.items():
        if name in params:
            check_param(name, params[name], allowed, owner=owner, quote=quote)


def validate_params(
    constraints: Mapping[str, Sequence[ConstraintLike]], *, owner: str = ""
) -> Callable[[Callable[_P, _R]], Callable[_P, _R]]:
    """Decorate a public function so that its declared parameters are checked at each call (defaults
    included), before its body runs. Every declared name must be one of the function's parameters."""

    def decorate(func: Callable[_P, _R]) -> Callable[_P, _R]:
        signature = inspect.signature(func)
        unknown = set(constraints) - set(signature.parameters)
        if unknown:
            raise TypeError(f"{func.__qualname__}: constraints for no parameter: {sorted(unknown)}")

        @functools.wraps(func)
        def wrapper(*args: _P.args, **kwargs: _P.kwargs) -> _R:
            bound = signature.bind(*args, **kwargs)
            bound.apply_defaults()
            check_params(constraints, bound.arguments, owner=owner)
            return func(*args, **kwargs)

        wrapper.__parameter_constraints__ = dict(constraints)  # type: ignore[attr-defined]
        return wrapper

    return decorate


def renamed_params(
    renames: Mapping[str, str], *, until: str
) -> Callable[[Callable[_P, _R]], Callable[_P, _R]]:
    """Decorate a public function whose keyword parameters were renamed (``{"seed": "random_state"}``):
    a call with an old name still works until version ``until``, passing the value on under the new name,
    and warns with a :class:`FutureWarning` (the warning a notebook shows) naming both; giving both names
    is an :class:`~benchsift.errors.InputError`."""

    def decorate(func: Callable[_P, _R]) -> Callable[_P, _R]:
        params = inspect.signature(func).parameters
        missing = [new for new in renames.values() if new not in params]
        if missing:
            raise TypeError(f"{func.__qualname__}: renamed to no parameter: {missing}")

        @functools.wraps(func)
        def wrapper(*args: _P.args, **kwargs: _P.kwargs) -> _R:
            for old, new in renames.items():
                if old in kwargs:
                    if new in kwargs:
                        raise InputError(f"`{old}` and `{new}`: give `{new}` only (`{old}` is its old name)")
                    warnings.warn(
                        f"{func.__name__}: `{old}` is now called `{new}`; `{old}` is accepted until "
                        f"benchsift {until}",
                        FutureWarning,
                        stacklevel=2,
                    )
                    kwargs[new] = kwargs.pop(old)
            return func(*args, **kwargs)

        return wrapper

    return decorate


def renamed_attribute(owner: str, old: str, new: str, *, until: str) -> property:
    """A read-only property ``old`` that returns attribute ``new`` and warns with a :class:`FutureWarning`
    (as :func:`renamed_params` does for a keyword): the old name of a result's field, readable until
    version ``until``. ``owner`` names the class in the message."""

    def get(self: Any) -> Any:
        warnings.warn(
            f"{owner}: `{old}` is now called `{new}`; `{old}` is accepted until benchsift {until}",
            FutureWarning,
            stacklevel=2,
        )
        return getattr(self, new)

    return property(get, doc=f"The old name of :attr:`{new}` (read with a FutureWarning until {until}).")
