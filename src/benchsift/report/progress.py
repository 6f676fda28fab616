"""Progress bars: rich bars on stderr fed through the library's one protocol (used by the CLI).

Library functions take ``progress(done, total)`` (:mod:`benchsift.progress`) and draw nothing; a command
passes :func:`progress_bar` (None under ``--json``, so stdout carries the JSON object only and stderr no
bar). A bar starts on its first report, disappears (transient) when ``done`` reaches ``total``, and the
CLI's error boundary (:class:`benchsift.cli._common.BenchsiftGroup`) closes any bar still open when a
command fails, so an error line is never drawn over a live bar.
"""

from __future__ import annotations

from typing import Any

from benchsift.progress import ProgressFn

__all__ = ["RichProgress", "close_all", "progress_bar"]

_OPEN: list[RichProgress] = []


class RichProgress:
    """A :data:`~benchsift.progress.ProgressFn` drawing one rich bar labelled ``label`` on stderr.

    ``transient``: the bar disappears when done (default); otherwise its last state stays on stderr.
    ``bold``: the label in bold.
    """

    def __init__(self, label: str, transient: bool = True, bold: bool = True) -> None:
        self.label = label
        self.transient = transient
        self.bold = bold
        self._bar: Any = None
        self._task: Any = None

    def __call__(self, done: int, total: int) -> None:
        if self._bar is None:
            from rich.console import Console
            from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

            console = Console(stderr=True)  # stdout holds the results: tables, CSV, JSON
            self._bar = Progress(
                TextColumn("[bold]{task.description}" if self.bold else self.label),
                BarColumn(),
                MofNCompleteColumn(),
                TimeElapsedColumn(),
                console=console,
                transient=self.transient,
                # a transient bar in a pipe or a log: nothing (not a stray blank line); a kept one leaves its
                # last state there
                disable=self.transient and not console.is_terminal,
            )
            self._task = self._bar.add_task(self.label, total=total)
            self._bar.start()
            _OPEN.append(self)
        self._bar.update(self._task, completed=done, total=total)
        if done >= total:
            self.close()

    def close(self) -> None:
        """Stop the bar (it disappears); a later report starts a fresh one."""
        if self._bar is not None:
            self._bar.stop()
            self._bar = None
            if self in _OPEN:
                _OPEN.remove(self)


def progress_bar(label: str, enabled: bool = True, **style: bool) -> ProgressFn | None:
    """A rich bar labelled ``label`` (``style``: :class:`RichProgress`'s ``transient``, ``bold``), or None
    (no progress reported) when not ``enabled``."""
    return RichProgress(label, **style) if enabled else None


def close_all() -> None:
    """Stop every bar still drawn (a command that failed half-way)."""
    for bar in list(_OPEN):
        bar.close()
