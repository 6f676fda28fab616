"""The benchsift exception tree.

::

    BenchsiftError
    ├── InputError          bad user input: a file, column, row or argument that is not what was expected
    │   └── FormatError     a file that is not in the format its importer reads
    ├── DegenerateError     a statistic that is undefined on this data (too few models, a constant column)
    └── OutputError         an output the environment would not take (a full disk, a file-size limit, a
                            read-only file system, no permission)

    BenchsiftWarning (UserWarning)   something benchsift ignored or changed on purpose, said in Python too
    ├── EstimateWarning              a new-model estimate that extrapolates beyond the reference models
    ├── FloorWarning                 Stage 2's item floor keeps more than the retention asked for
    └── ResultWarning                a line of a result's ``warnings``, raised when the call returns

Catch :class:`BenchsiftError` to handle everything benchsift raises on purpose. ``InputError`` is also a
``ValueError`` so that generic callers keep working. The CLI turns any ``BenchsiftError`` into a one-line
message and exit code 2.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any, cast

if TYPE_CHECKING:
    from types import FrameType


class BenchsiftError(Exception):
    """Base class of every error benchsift raises on purpose."""


class InputError(BenchsiftError, ValueError):
    """Input that is not what was expected; the message names the file, column or row and what it expected."""


class FormatError(InputError):
    """A file that does not match the format its importer reads."""


class DegenerateError(BenchsiftError, ValueError):
    """A statistic that is undefined on this data (a constant column, too few models, ...)."""


class OutputError(BenchsiftError):
    """An output that could not be written because of the environment (``ENOSPC``, ``EDQUOT``, ``EFBIG``,
    ``EROFS``, ``EACCES``, ``EPERM``, ``EIO``); the message names the path and the error, and says whether
    anything was written (by :mod:`benchsift._fileio`: nothing). The ``OSError`` is its ``__cause__``."""


class BenchsiftWarning(UserWarning):
    """A warning benchsift issues on purpose: something it ignored or changed on purpose (a manifest entry
    that was ignored), or a default or limit that changes what the user asked for. A notebook shows it;
    the CLI prints it as one ``benchsift: warning: ...`` line on stderr, or from the result's ``warnings``
    (``--json`` carries them)."""


class EstimateWarning(BenchsiftWarning):
    """A new-model estimate that extrapolates beyond the suite's reference models."""


class FloorWarning(BenchsiftWarning):
    """Stage 2's item floor keeps more items than the retention asked for (``floor=0`` keeps exactly r)."""


class ResultWarning(BenchsiftWarning):
    """A line of a result's ``warnings`` (Stage 3 kept every category, DIF skipped, a cluster bootstrap
    inferred from the items' images, a benchmark left out of a section, ...), raised as the call returns so
    that a notebook shows it; the result keeps the same line. The CLI prints the result's ``warnings`` (in
    ``--json`` too), so it ignores this class."""


def warn_each(lines: Iterable[str], call: str) -> None:
    """Each distinct line of ``lines`` as a :class:`ResultWarning` ``"<call>: <line>"``, attributed to the
    first frame outside benchsift (the notebook cell or script that called, whatever decorators and
    workflows lie between)."""
    import os
    import sys
    import warnings

    lines = list(dict.fromkeys(map(str, lines)))
    if not lines:
        return
    package = os.path.dirname(os.path.abspath(__file__)) + os.sep
    level, frame = 1, cast("FrameType | None", sys._getframe(0))
    while frame is not None and os.path.abspath(frame.f_code.co_filename).startswith(package):
        level, frame = level + 1, frame.f_back
    for line in lines:
        warnings.warn(f"{call}: {line}", ResultWarning, stacklevel=level)


#: fewest models a correlation across models is computed on: with 2 a rank correlation is always +-1
MIN_MODELS = 3


def require_at_least(count: int, minimum: int, what: str, why: str) -> None:
    """Raise :class:`DegenerateError` ``"<what>: <count> ..., at least <minimum> needed (<why>)"`` when
    ``count < minimum``: each method states its minimum input and refuses below it (issue 12)."""
    if count < minimum:
        raise DegenerateError(f"{what}: {count} found, at least {minimum} needed ({why})")


def listed(values: Iterable[Any], limit: int = 10) -> str:
    """``values`` as a list for a one-line message: the first ``limit`` reprs, then how many more
    (``"['a', 'b', ... 167 more]"``), so a wide table's 169 column names do not fill the screen."""
    seq = list(values)
    shown = ", ".join(repr(v) for v in seq[:limit])
    more = f", ... {len(seq) - limit} more" if len(seq) > limit else ""
    return f"[{shown}{more}]"


def wide_table_hint(columns: Iterable[Any]) -> str:
    """A pointer to ``benchsift import wide`` for a table with no ``score`` column and 5 or more columns (a
    models x items table read as a long one), else ``""``."""
    cols = [str(c) for c in columns]
    if "score" in cols or len(cols) < 5:
        return ""
    return "; a table with one column per model (or per item) is read by `benchsift import wide`"
