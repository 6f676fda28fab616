"""The importers' warnings where nobody collects them: a notebook calling a reader shows them.

Every reader appends its notes to the ``notes`` list it is given (the lines that start with
:data:`WARNING` are warnings: a default that changed what was read, files left out, numbers that differ from
the tool's own); :func:`benchsift.io.importing.import_files` and the CLI print them. Called without a list --
a notebook's ``read_vlmevalkit("outputs/")`` -- a reader would drop them, so :func:`raises_uncollected`
gives it a list of its own and raises each warning line as a :class:`~benchsift.errors.ResultWarning`
(``"<reader>: <line>"``, attributed to the caller's cell), as the methods' results do.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import ParamSpec, TypeVar

from benchsift.errors import warn_each

__all__ = ["SUBSET_RUN", "WARNING", "raises_uncollected", "subset_run", "warning_lines"]

#: importers' notes that start so are warnings
WARNING = "warning: "
#: how a warning that a run evaluated part of a benchmark ends (``--limit``, ``--samples``, ``limit=``)
SUBSET_RUN = "not the whole benchmark"

P = ParamSpec("P")
R = TypeVar("R")


def warning_lines(notes: list[str]) -> list[str]:
    """The warnings among ``notes``, without the prefix."""
    return [n.removeprefix(WARNING) for n in notes if n.startswith(WARNING)]


def subset_run(line: str) -> bool:
    """Whether a warning line says that a run evaluated part of a benchmark (:data:`SUBSET_RUN`): expected of
    a run of an exported suite, which ``estimate`` checks against the suite itself."""
    return line.rstrip().endswith(SUBSET_RUN)


def raises_uncollected(reader: Callable[P, R]) -> Callable[P, R]:
    """``reader`` (taking ``notes=``) that, called without a ``notes`` list, raises its warning lines as
    :class:`~benchsift.errors.ResultWarning` instead of dropping them."""

    @functools.wraps(reader)
    def read(*args: P.args, **kwargs: P.kwargs) -> R:
        if kwargs.get("notes") is not None:
            return reader(*args, **kwargs)
        notes: list[str] = []
        kwargs["notes"] = notes
        result = reader(*args, **kwargs)
        warn_each(warning_lines(notes), reader.__name__)
        return result

    return read
