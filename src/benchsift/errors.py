"""The benchsift exception tree.

::

    BenchsiftError
    ├── InputError          bad user input: a file, column, row or argument that is not what was expected
    │   └── FormatError     a file that is not in the format its importer reads
    └── DegenerateError     a statistic that is undefined on this data (too few models, a constant column)

Catch :class:`BenchsiftError` to handle everything benchsift raises on purpose. ``InputError`` is also a
``ValueError`` so that generic callers keep working. The CLI turns any ``BenchsiftError`` into a one-line
message and exit code 2.
"""

from __future__ import annotations


class BenchsiftError(Exception):
    """Base class of every error benchsift raises on purpose."""


class InputError(BenchsiftError, ValueError):
    """Input that is not what was expected; the message names the file, column or row and what it expected."""


class FormatError(InputError):
    """A file that does not match the format its importer reads."""


class DegenerateError(BenchsiftError, ValueError):
    """A statistic that is undefined on this data (a constant column, too few models, ...)."""


#: fewest models a correlation across models is computed on: with 2 a rank correlation is always +-1
MIN_MODELS = 3


def require_at_least(count: int, minimum: int, what: str, why: str) -> None:
    """Raise :class:`DegenerateError` ``"<what>: <count> ..., at least <minimum> needed (<why>)"`` when
    ``count < minimum``: each method states its minimum input and refuses below it (issue 12)."""
    if count < minimum:
        raise DegenerateError(f"{what}: {count} found, at least {minimum} needed ({why})")
