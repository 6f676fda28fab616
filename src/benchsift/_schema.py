"""Contents declared once: a table's columns, a choice among the values a file holds, the rules that tie
several parameters together; one check each turns a broken one into one message.

:mod:`benchsift._params` checks one argument against what it may be. The checks here are the same idea
for what an argument *holds*:

- :func:`check_frame` -- a table against a schema, ``{column: Col(...)}``: a column missing, an empty
  cell, a cell that is no number / no true-false / none of the allowed values / outside its interval, a
  key that repeats, a row count that does not match. The message names the table (``where``: a file, or
  "panel models table"), the column, the row and what was expected::

      verdicts.csv: column 'score' row 3: expected a number in [0, 1], got 'high'

- :class:`Rule` and :func:`check_rules` -- a relation between parameters (``n_categories <=
  n_benchmarks``) declared with the words that say it; the first broken one raises, naming the
  parameters and their values.

It sits just above :mod:`benchsift._params` (it imports ``errors`` and ``_params`` only), so every layer
from ``panel`` / ``stats`` up may use it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

import numpy as np

from benchsift._params import Interval
from benchsift.errors import InputError, listed

if TYPE_CHECKING:  # pandas is imported where a table is checked: stats, which has no table, never loads it
    import pandas as pd

__all__ = ["Col", "Rule", "check_frame", "check_rules"]

Kind = Literal["any", "name", "number", "bool", "text"]

#: how the cells of a ``bool`` column may be written (after strip and lower-case)
TRUE_TEXT = frozenset({"true", "1", "yes", "y", "t", "1.0"})
FALSE_TEXT = frozenset({"false", "0", "no", "n", "f", "0.0"})


@dataclass(frozen=True)
class Col:
    """What one column of a table holds.

    ``kind``: ``"name"`` (any value, read as a string: an id), ``"number"`` (read with
    ``pd.to_numeric``; text that is no number is refused), ``"bool"`` (``True``/``False`` or the words
    of :data:`TRUE_TEXT` / :data:`FALSE_TEXT`), ``"text"`` (a string, stripped and lower-cased before
    ``values`` are compared), ``"any"`` (left as it is). ``required``: the table must have the column
    (an absent optional column stays absent unless ``add``: then it is added, every cell empty).
    ``empty``: a cell may be empty (NaN), else an empty cell is refused. ``fill``: what an empty cell
    becomes (after the check). ``within``: the interval a number must lie in; ``values``: the values
    allowed (numbers or words). ``expected``: the words for the message where the default ("a number in
    [0, 1]", "one of a, b, c") does not say it.
    """

    kind: Kind = "any"
    required: bool = True
    empty: bool = False
    fill: Any = None
    add: bool = False
    within: Interval | None = None
    values: Sequence[Any] | None = None
    expected: str | None = None

    def describe(self) -> str:
        if self.expected is not None:
            return self.expected
        if self.values is not None:
            words = [str(v) for v in self.values]
            what = " or ".join(words) if len(words) <= 2 else "one of " + ", ".join(words)
        elif self.within is not None:
            what = str(self.within)
        else:
            what = {"name": "a name", "number": "a number", "bool": "true or false"}.get(self.kind, "a value")
        return what + (" or empty" if self.empty and self.kind != "name" else "")


def _plain(value: Any) -> Any:
    """A numpy scalar as its Python value, so a message shows ``1.5``, not ``np.float64(1.5)``."""
    return value.item() if isinstance(value, np.generic) else value


def _bools(col: pd.Series) -> tuple[pd.Series, np.ndarray]:
    """``col`` as a nullable boolean and the cells that are neither empty nor a true/false word."""
    import pandas as pd

    text = col.astype("string").str.strip().str.lower()
    out = pd.Series(pd.NA, index=col.index, dtype="boolean")
    out[text.isin(TRUE_TEXT).fillna(False).to_numpy(bool)] = True
    out[text.isin(FALSE_TEXT).fillna(False).to_numpy(bool)] = False
    return out, np.array(out.isna() & col.notna(), dtype=bool)


def check_frame(
    frame: pd.DataFrame,
    schema: Mapping[str, Col],
    *,
    where: str,
    key: Sequence[str] | None = None,
    rows: tuple[int, str] | None = None,
    nonempty: bool = False,
    hint: str = "",
) -> pd.DataFrame:
    """``frame`` checked against ``schema`` and converted: a copy with a fresh 0..n-1 index, each declared
    column read as its :class:`Col` says (names as ``str``, numbers as ``float``, true/false as
    ``bool`` -- nullable ``boolean`` where a cell may be empty), absent optional columns added where
    they say ``add``.

    Refused, with :class:`~benchsift.errors.InputError`, in this order: a required column missing
    (``"<where>: missing column(s) [...]; expected [...] (columns are [...])<hint>"``); ``nonempty`` and
    no row; ``rows=(n, why)`` and a row count other than
    ``n`` (``"<where> has 3 rows but <why>"``); for each column in the order of the
    schema, its first bad cell (``"<where>: column 'c' row r: expected <what>, got <value>"``, ``r``
    counted from 0 among the data rows); ``key`` and a key that repeats (``"<where>: row r: duplicate
    (a, b) = (...); expected one row per key"``).
    """
    import pandas as pd

    missing = [c for c, col in schema.items() if col.required and c not in frame.columns]
    if missing:
        needed = [c for c, col in schema.items() if col.required]
        raise InputError(
            f"{where}: missing column(s) {missing}; expected {needed} (columns are {listed(frame.columns)})"
            f"{hint}"
        )
    out = frame.reset_index(drop=True).copy()
    if nonempty and len(out) == 0:
        raise InputError(f"{where}: the table has no rows{hint}")
    if rows is not None and len(out) != rows[0]:
        raise InputError(f"{where} has {len(out)} rows but {rows[1]}")
    for name, col in schema.items():
        if name not in out.columns:
            if col.add:
                out[name] = col.fill if col.fill is not None else np.nan
            continue
        raw = out[name]
        value: pd.Series = raw
        bad = np.zeros(len(out), dtype=bool)
        # a blank text cell in a number column is empty, as pandas.to_numeric reads it
        blank = np.zeros(len(out), dtype=bool)
        if col.kind == "number":
            if pd.api.types.is_object_dtype(raw) or pd.api.types.is_string_dtype(raw):
                blank = raw.map(lambda v: isinstance(v, str) and not v.strip()).to_numpy(dtype=bool)
            value = pd.to_numeric(raw.where(~blank), errors="coerce").astype(float)
            bad = np.array(value.isna() & raw.notna(), dtype=bool) & ~blank
            if col.within is not None:
                bad |= col.within.outside(value.to_numpy(dtype=np.float64))
        elif col.kind == "bool":
            value, bad = _bools(raw)
        elif col.kind == "text":
            value = raw.astype("string").str.strip().str.lower()
        if col.values is not None:
            allowed = value.isin(list(col.values)).fillna(False).to_numpy(bool)
            bad |= ~allowed & value.notna().to_numpy()
        empty = np.array(raw.isna(), dtype=bool) | blank
        if not col.empty:
            bad |= empty
        if bad.any():
            r = int(np.flatnonzero(bad)[0])
            cell = raw.iloc[r]
            got = (
                "an empty value" if empty[r] else repr(cell.item() if isinstance(cell, np.generic) else cell)
            )
            raise InputError(f"{where}: column {name!r} row {r}: expected {col.describe()}, got {got}")
        if col.fill is not None and empty.any():
            value = value.astype(object).where(~empty, col.fill)
        if col.kind == "name" or (col.kind == "any" and col.fill is not None):
            value = value.astype(str)
        elif col.kind == "bool" and not col.empty:
            value = value.astype(bool)
        elif col.kind == "text" and col.fill is not None:
            value = value.astype(str)
        out[name] = value
    if key is not None:
        dup = out.duplicated(list(key)).to_numpy()
        if dup.any():
            r = int(np.flatnonzero(dup)[0])
            names = ", ".join(key)
            raise InputError(
                f"{where}: row {r}: duplicate ({names}) = {tuple(_plain(v) for v in out.loc[r, list(key)])}; "
                "expected one row per key"
            )
    return out


@dataclass(frozen=True)
class Rule:
    """A relation between parameters: ``holds(*values)`` true, ``names`` the parameters it reads (in
    that order), ``expected`` the words that say it ("n_categories <= n_benchmarks (every category needs
    a benchmark)"). A rule whose ``when`` is false for the values is not checked."""

    names: tuple[str, ...]
    holds: Callable[..., bool]
    expected: str
    when: Callable[..., bool] | None = None


def check_rules(rules: Sequence[Rule], params: Mapping[str, Any], *, owner: str = "") -> None:
    """Check each rule on ``params`` (a function's arguments, a config's ``vars``) in order; the first
    broken one raises ``"<owner> a=1, b=2: expected <rule.expected>"``."""
    for rule in rules:
        values = [params[n] for n in rule.names]
        if rule.when is not None and not rule.when(*values):
            continue
        if not rule.holds(*values):
            shown = ", ".join(f"{n}={v!r}" for n, v in zip(rule.names, values, strict=True))
            lead = f"{owner} " if owner else ""
            raise InputError(f"{lead}{shown}: expected {rule.expected}")
