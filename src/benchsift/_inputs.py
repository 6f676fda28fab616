"""Inputs declared once: the shape and values of an array argument, the length of a list that goes with
it, a file or folder that must exist; one check each, one message each.

:mod:`benchsift._params` checks a parameter's *value* against constraints (a number in a range, one of
some options). The checks here are the ones a parameter's *contents* need, written once instead of by
hand at each site:

- :func:`check_array` -- an array argument: converted to ``float64`` (or the dtype asked), its number of
  dimensions, the sizes that are fixed by other arguments (``shape=(None, n_items)``), at least so many
  rows and columns (``min_shape``), and its values: within bounds (``low``/``high``, NaN allowed for
  "missing" unless ``nan=False``), finite, or NaN only in whole rows (a missing embedding). The message
  names the argument, what was expected and what was given: ``scores: expected a (models x items) array,
  got shape (3,)`` or ``scores: row 2, column 5 is 1.5; expected a value in [0, 1] or NaN``;
- :func:`check_shape` -- the one check of an array's shape (``("n_boot", 7)``: a name is a free size, a
  number must match): ``W: expected shape (n_boot, 7), got shape (3, 5)``; :func:`check_array` uses it;
- :func:`check_length` -- a list that goes with an array (one name per column, one date per row):
  ``categories: expected 4 names (one per column), got 3``;
- :func:`check_distinct` -- a list of names or values, non-empty and without repeats:
  ``selectors: expected at least one``, ``selectors: duplicate values ['vaw']``;
- :func:`check_choice` / :func:`check_known` -- a name (or names) that must be among known ones, with the
  closest as a hint: ```selector`: unknown selector 'vaww' (did you mean 'vaw'?); expected one of ...``;
  :func:`named_hints` writes several unknown names each with its own hint (``'MMMU2' (did you mean
  'MMMU'?), 'OCR'``);
  :func:`choose` -- one of the values a file offers (its metrics, endpoints): the one asked for (checked by
  :func:`check_choice`), the only one when there is one, else which parameter chooses;
- :func:`existing_file` / :func:`existing_dir` -- a path the user gave that must be there:
  ``runs/x.npy: no such file (expected embeddings)``, ``runs: is a directory, expected embeddings``.

Every message is one line. ``name`` is written as given: a public parameter's name in backticks (which
the CLI rewrites as its ``--flag``), anything else bare.

This module sits just above :mod:`benchsift._params` in the layers (it imports that,
:mod:`benchsift._suggest`, :mod:`benchsift.errors` and numpy only).
"""

from __future__ import annotations

import os
from collections.abc import Collection, Hashable, Iterable, Sequence, Sized
from numbers import Real
from pathlib import Path
from typing import Any, Literal

import numpy as np

from benchsift._params import Interval, Options
from benchsift._suggest import did_you_mean
from benchsift.errors import InputError, listed

__all__ = [
    "check_array",
    "check_choice",
    "check_distinct",
    "check_known",
    "check_length",
    "check_shape",
    "choose",
    "existing_dir",
    "existing_file",
    "named_hints",
]

NanRule = Literal[True, False, "rows"]


def _interval_words(low: float | None, high: float | None) -> str:
    def fmt(x: float) -> str:
        return str(int(x)) if float(x).is_integer() else repr(float(x))

    if low is not None and high is not None:
        return f"a value in [{fmt(low)}, {fmt(high)}]"
    if low is not None:
        return f"a value >= {fmt(low)}"
    return f"a value <= {fmt(high)}"  # type: ignore[arg-type]


def _cell(index: tuple[int, ...], axes: tuple[str, str]) -> str:
    if len(index) == 1:
        return f"entry {index[0]}"
    if len(index) == 2:
        return f"{axes[0]} {index[0]}, {axes[1]} {index[1]}"
    return f"index {index}"


def check_array(
    name: str,
    value: Any,
    *,
    ndim: int | None = None,
    shape: Sequence[int | None] | None = None,
    min_shape: Sequence[int] | None = None,
    what: str | None = None,
    dtype: Any = np.float64,
    low: float | None = None,
    high: float | None = None,
    finite: bool = False,
    nan: NanRule = True,
    axes: tuple[str, str] = ("row", "column"),
    error: type[InputError] = InputError,
) -> np.ndarray:
    """``value`` as a numpy array of ``dtype`` that has the declared form; else one
    :class:`~benchsift.errors.InputError`.

    - ``ndim``: its number of dimensions (implied by ``shape`` / ``min_shape`` when they are given);
    - ``shape``: the size of each dimension, ``None`` where any size will do;
    - ``min_shape``: the least size of each dimension (``(2, 1)``: two rows, one column);
    - ``what``: the words for the expected form ("a (models x benchmarks) matrix"); by default
      "a 2-D array" / "an array of shape (n, 5)";
    - ``low`` / ``high``: bounds every non-NaN value must lie within (closed; infinite values fail);
    - ``finite``: no infinite value anywhere;
    - ``nan``: ``True`` NaN allowed anywhere (missing), ``False`` never, ``"rows"`` only as a whole row;
    - ``error``: the error raised when ``value`` is not numeric (a
      :class:`~benchsift.errors.FormatError` for a file's contents);
    - ``axes``: the words for a 2-D array's rows and columns in a message ("model row", "item column").

    Messages: ``<name>: expected <what>, got shape <shape>``, ``<name>: expected <what> of numbers:
    <reason>``, ``<name>: <row r, column c> is <v>; expected <a value in [low, high]>[ or NaN]``,
    ``<name>, row <r>: partly NaN (a missing row must be a whole row of NaN)``.
    """
    if shape is not None:
        ndim = len(shape)
    elif min_shape is not None:
        ndim = len(min_shape)
    if what is None:
        if shape is not None:
            dims = ", ".join("n" if s is None else str(s) for s in shape)
            what = f"an array of shape ({dims}{',' if len(shape) == 1 else ''})"
        else:
            what = f"a {ndim}-D array" if ndim is not None else "an array"
    try:
        a = np.asarray(value, dtype=dtype)
    except (TypeError, ValueError) as exc:
        raise error(f"{name}: expected {what} of numbers: {' '.join(str(exc).split())[:120]}") from None
    if shape is not None or ndim is not None:
        sizes: Sequence[int | None] = shape if shape is not None else (None,) * (ndim or 0)
        check_shape(name, a.shape, tuple("n" if d is None else d for d in sizes), words=what)
    if min_shape is not None and any(g < m for m, g in zip(min_shape, a.shape, strict=False)):
        raise InputError(f"{name}: expected {what}, got shape {a.shape}")
    if a.dtype.kind not in "iuf":
        return a
    isnan = np.isnan(a) if a.dtype.kind == "f" else np.zeros(a.shape, dtype=bool)
    checks: list[tuple[np.ndarray, str]] = []
    if low is not None or high is not None:
        # closed bounds, and an infinite value fails even on an unbounded side
        out = Interval(Real, low, high).outside(a)
        if a.dtype.kind == "f":
            out |= np.isinf(a)
        checks.append((out, _interval_words(low, high)))
    if finite and a.dtype.kind == "f":
        checks.append((np.isinf(a), "a finite value"))
    if nan is False:
        checks.append((isnan, "a number"))
    for bad, expected in checks:
        if bad.any():
            at = tuple(int(i) for i in np.argwhere(bad)[0])
            missing = " or NaN" if nan is True and a.dtype.kind == "f" and expected != "a number" else ""
            raise InputError(f"{name}: {_cell(at, axes)} is {a[at].item()!r}; expected {expected}{missing}")
    if nan == "rows" and a.ndim == 2:
        partial = isnan.any(axis=1) & ~isnan.all(axis=1)
        if partial.any():
            row = int(np.flatnonzero(partial)[0])
            raise InputError(
                f"{name}, {axes[0]} {row}: partly NaN (a missing row must be a whole row of NaN)"
            )
    return a


def check_shape(
    name: str,
    shape: tuple[int, ...],
    expected: Sequence[int | str],
    what: str = "shape",
    *,
    words: str | None = None,
) -> None:
    """The one check of an array's shape: refuse ``shape`` unless it matches ``expected`` (an ``int`` must
    be equal, a ``str`` names a free size): ``"<name>: expected <what> (n_boot, 7), got shape (3, 5)"``,
    or with ``words`` ``"<name>: expected <words>, got shape (3, 5)"``. :func:`check_array` checks its
    ``shape`` / ``ndim`` with it."""
    ok = len(shape) == len(expected) and all(
        isinstance(e, str) or int(e) == s for s, e in zip(shape, expected, strict=True)
    )
    if not ok:
        if words is None:
            dims = ", ".join(str(e) for e in expected) + ("," if len(expected) == 1 else "")
            words = f"{what} ({dims})"
        raise InputError(f"{name}: expected {words}, got shape {tuple(shape)}")


def check_length(name: str, value: Sized, n: int, unit: str) -> None:
    """``len(value) == n``; else ``<name>: expected <n> <unit>, got <len>`` (``unit`` such as
    "names (one per column)")."""
    if len(value) != n:
        raise InputError(f"{name}: expected {n} {unit}, got {len(value)}")


def check_distinct(name: str, values: Sequence[Hashable], *, what: str = "value") -> None:
    """``values`` non-empty and without repeats; else ``<name>: expected at least one <what>`` or
    ``<name>: duplicate <what>s [...]`` (the repeated ones, in order)."""
    if len(values) == 0:
        raise InputError(f"{name}: expected at least one {what}")
    seen: set[Hashable] = set()
    dup: list[Hashable] = []
    for v in values:
        if v in seen:
            dup.append(v)
        seen.add(v)
    if dup:
        raise InputError(f"{name}: duplicate {what}s {list(dict.fromkeys(dup))}")


def check_choice(name: str, value: Any, choices: Collection[Any], *, what: str = "") -> Any:
    """``value`` when it is one of ``choices``; else ``<name>: expected one of <choices>, got <value>
    (did you mean <closest>?)``, or with ``what`` ("selector") ``<name>: unknown selector <value> (did you
    mean <closest>?); expected one of <choices>``."""
    try:
        if value in choices:
            return value
    except TypeError:  # an unhashable value
        pass
    hint = did_you_mean(value, choices)
    expected = str(Options(choices, type=object))
    if what:
        raise InputError(f"{name}: unknown {what} {value!r}{hint}; expected {expected}")
    raise InputError(f"{name}: expected {expected}, got {value!r}{hint}")


def _shown(value: Any, width: int = 60) -> str:
    text = repr(value)
    return text if len(text) <= width else text[: width - 3] + "..."


def named_hints(unknown: Sequence[Any], known: Iterable[Any], *, limit: int = 5) -> str:
    """The unknown names, each followed by its own hint: ``'MMMU2' (did you mean 'MMMU'?), 'OCR',
    'AI2D_TEST' (did you mean 'AI2D'?)``; the first ``limit`` of them (each name cut at 60 characters),
    then ``and <n> more``, so the line stays short whatever the input. A hint after a list of names
    (``['MMMU2', 'AI2D_TEST'] (did you mean 'MMMU'?) (did you mean 'AI2D'?)``) did not say which name it
    was for, nor which names had none."""
    choices = [str(k) for k in known]
    parts = [f"{_shown(u)}{did_you_mean(u, choices)}" for u in list(unknown)[:limit]]
    more = len(unknown) - limit
    return ", ".join(parts) + (f" and {more} more" if more > 0 else "")


def check_known(name: str, values: Iterable[Any], known: Sequence[Any], *, what: str = "name") -> list[Any]:
    """``values`` as a list when every one is in ``known``; else ``<name>: unknown <what>(s) 'x' (did you
    mean 'y'?), 'z'; expected some of [...]`` (:func:`named_hints`: each unknown name with its own hint;
    the known ones listed up to 20)."""
    out = list(values)
    unknown = [v for v in out if v not in known]
    if unknown:
        raise InputError(
            f"{name}: unknown {what}(s) {named_hints(unknown, known)}; expected some of {listed(known, 20)}"
        )
    return out


def choose(wanted: Any, found: Sequence[Any], *, what: str, param: str, where: str) -> Any:
    """The one of ``found`` (the values of kind ``what`` a file holds: its scorers, metrics, endpoints) to
    use: ``wanted`` when given and there (else :func:`check_choice`'s ``"<where>: unknown <what> 'x' (did
    you mean ...?); expected one of ..."``), the only one when ``wanted`` is ``None`` (several:
    ``"<where>: several <what>s [...]; choose one with `<param>`"``); ``None`` when nothing is found and
    nothing wanted."""
    have = list(found)
    if wanted is not None:
        return check_choice(where, wanted, have, what=what)
    if len(have) > 1:
        raise InputError(f"{where}: several {what}s {have}; choose one with `{param}`")
    return have[0] if have else None


def existing_file(
    path: str | os.PathLike[str], expected: str = "", *, suffixes: Sequence[str] | None = None
) -> Path:
    """``path`` as a :class:`~pathlib.Path` when it names an existing file (with one of ``suffixes``, when
    given: ``(".yaml", ".yml")``); else ``<path>: no such file (expected <expected>)``, ``<path>: is a
    directory, expected <expected>`` (a folder given for a file is there: "no such file" would send the user
    looking for a typo), ``<path>: not a file (...)`` or ``<path>: not a .yaml or .yml file (...)``."""
    p = Path(path)
    why = ""
    if p.is_dir():
        raise InputError(f"{p}: is a directory, expected {expected or 'a file'}")
    if not p.is_file():
        why = "not a file" if p.exists() else "no such file"
    elif suffixes is not None and p.suffix.lower() not in suffixes:
        why = "not a " + " or ".join(suffixes) + " file"
    if why:
        raise InputError(f"{p}: {why}" + (f" (expected {expected})" if expected else ""))
    return p


def existing_dir(path: str | os.PathLike[str], expected: str = "") -> Path:
    """``path`` as a :class:`~pathlib.Path` when it names an existing folder; else ``<path>: not a
    directory (expected <expected>)``."""
    p = Path(path)
    if not p.is_dir():
        raise InputError(f"{p}: not a directory" + (f" (expected {expected})" if expected else ""))
    return p
