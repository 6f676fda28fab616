"""The one progress protocol of benchsift's library: a callback ``progress(done, total)``.

Every long-running library function takes ``progress: ProgressFn | None = None`` and calls it with the
number of finished steps and the number of steps in all: once with ``(0, total)`` when the work starts, then
after each step (a category pruned, a split scored, a block of bootstrap replicates, a pipeline stage).
``None`` (the default) shows nothing. The library never draws a bar itself: the CLI passes a rich bar on
stderr (:class:`benchsift.report.progress.RichProgress`); a notebook can pass any callable, e.g.
``lambda done, total: print(f"{done}/{total}")`` or a tqdm bar's ``update``.

This module is a leaf (it imports nothing of benchsift), like :mod:`benchsift.errors`, so every layer may
use it.
"""

from __future__ import annotations

from collections.abc import Callable

__all__ = ["ProgressFn", "Ticker"]

#: ``progress(done, total)``: ``done`` finished steps out of ``total``.
ProgressFn = Callable[[int, int], None]


class Ticker:
    """Counts the steps of one piece of work and reports each to a :data:`ProgressFn`.

    ``Ticker(progress, total)`` reports ``(0, total)`` at once; each call ``tick()`` reports one more done
    step. With ``progress=None`` it does nothing, so library code needs no ``if``.

    Examples
    --------
    >>> seen = []
    >>> tick = Ticker(lambda done, total: seen.append((done, total)), 2)
    >>> tick(); tick()
    >>> seen
    [(0, 2), (1, 2), (2, 2)]
    """

    __slots__ = ("_progress", "done", "total")

    def __init__(self, progress: ProgressFn | None, total: int) -> None:
        self._progress = progress
        self.done = 0
        self.total = int(total)
        if progress is not None:
            progress(0, self.total)

    def __call__(self, steps: int = 1) -> None:
        self.done += int(steps)
        if self._progress is not None:
            self._progress(self.done, self.total)
