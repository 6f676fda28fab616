"""A large CSV without quotes read in byte ranges, one thread per range: pyarrow's parser and the byte
path's numpy passes (:mod:`benchsift.io._digit_csv`) release the interpreter lock, so ``k`` ranges parse on
``k`` cores at once (:func:`fill_in_ranges`).

A file that holds no quote (``"``) cannot hold a line break inside a cell, so every ``\\n`` ends a row and a
range that starts right after one starts at a row. :func:`split_points` cuts the file after the first ``\\n``
at or after each of ``k - 1`` equally spaced byte offsets; :func:`line_ends` counts each range's line ends
(``\\n``, ``\\r\\n``, a lone ``\\r``) in one pass, which bounds the rows of the range (a blank line is a line
end but no row: pyarrow skips it), so each range is given its own rows of the matrix before anything is
read, and the rows of a range that had blank lines are moved up afterwards (:func:`close_gaps`). A lone
``\\r`` also ends a row for pyarrow but is no cut, so such a file is read in one range.

Measured on the 2-core test machine (``benchmarks/bench_import_memory.py``, 2,000 x 50,000 cells, 0/1 and
partial credit): see the README's speed table.
"""

from __future__ import annotations

import io
import os
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import numpy as np

#: a file smaller than this is read in one range (its parse is short; threads would add their start-up)
MIN_BYTES = 32 << 20
#: most ranges (and threads) for one file: each holds its own reader's buffers
MAX_RANGES = 4
_SCAN = 1 << 24  # bytes per read while counting line ends
_SEEK = 1 << 20  # bytes per read while looking for a line end near a cut


def range_count(size: int) -> int:
    """How many ranges a file of ``size`` bytes is read in: one per usable CPU (at most
    :data:`MAX_RANGES`), each at least ``MIN_BYTES / 2`` long; 1 below :data:`MIN_BYTES`."""
    if size < MIN_BYTES:
        return 1
    cpus = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
    return max(1, min(MAX_RANGES, cpus, size // max(1, MIN_BYTES // 2)))


def split_points(path: Path, n: int) -> list[int]:
    """Byte offsets that cut ``path`` into at most ``n`` ranges, each cut right after a ``\\n`` (the first at
    or after ``k * size / n``); cuts that fall together or at the end are dropped."""
    size = path.stat().st_size
    cuts: list[int] = []
    with open(path, "rb") as fh:
        for k in range(1, n):
            pos = max(k * size // n, cuts[-1] if cuts else 0)
            fh.seek(pos)
            while True:
                chunk = fh.read(_SEEK)
                if not chunk:
                    pos = size
                    break
                at = chunk.find(b"\n")
                if at >= 0:
                    pos += at + 1
                    break
                pos += len(chunk)
            if pos >= size:
                break
            if not cuts or pos > cuts[-1]:
                cuts.append(pos)
    return cuts


@dataclass(frozen=True)
class LineEnds:
    """What one pass over a file's bytes found (:func:`line_ends`)."""

    #: the ``\n`` in each range of the file (``cuts`` split it)
    newlines: tuple[int, ...]
    #: the line ends that are a ``\r`` alone (not followed by ``\n``), in the whole file
    lone_cr: int
    #: whether the file holds a quote (``"``): a cell may then hold a line break
    quote: bool
    #: whether its last byte ends a line
    ends_with_eol: bool
    #: the bytes counted (the file's size at the pass)
    size: int

    @property
    def data_rows_bound(self) -> int:
        """The lines but the header's: exact when no cell holds a line break and no line is blank."""
        return sum(self.newlines) + self.lone_cr - self.ends_with_eol


def line_ends(path: Path, cuts: Sequence[int] = ()) -> LineEnds:
    """Count the ``\\n`` in each range of ``path`` (``cuts``: increasing offsets, each right after a
    ``\\n``) and the lone ``\\r`` in the file, reading 16 MiB at a time; ``\\r`` is searched for only in a
    block that holds one (searching costs a fortieth of counting ``\\r\\n``: 0.17 s for 200 MB)."""
    newlines = [0] * (len(cuts) + 1)
    lone, quote, last, offset, seg = 0, False, b"", 0, 0
    with open(path, "rb") as fh:
        for chunk in iter(lambda: fh.read(_SCAN), b""):
            start = 0
            while seg < len(cuts) and cuts[seg] <= offset + len(chunk):
                newlines[seg] += chunk.count(b"\n", start, cuts[seg] - offset)
                start = cuts[seg] - offset
                seg += 1
            newlines[seg] += chunk.count(b"\n", start)
            if b"\r" in chunk:
                lone += chunk.count(b"\r") - chunk.count(b"\r\n")
            lone -= last == b"\r" and chunk[:1] == b"\n"  # a \r\n across two blocks
            quote = quote or b'"' in chunk
            last = chunk[-1:]
            offset += len(chunk)
    return LineEnds(tuple(newlines), lone, quote, last in (b"\n", b"\r"), offset)


class RangeFile(io.RawIOBase):
    """The bytes ``[start, stop)`` of a file (``stop`` None: to its end) as a readable binary stream (for
    pyarrow's CSV reader and the byte path's blocks)."""

    def __init__(self, path: Path, start: int, stop: int | None = None) -> None:
        super().__init__()
        self._fh = open(path, "rb")  # noqa: SIM115 (closed by close())
        self._fh.seek(start)
        self._left = -1 if stop is None else stop - start  # -1: no end but the file's

    def readable(self) -> bool:
        return True

    def _want(self, n: int) -> int:
        return n if self._left < 0 else min(n, self._left)

    def read(self, size: int | None = -1) -> bytes:
        """Up to ``size`` bytes (all that is left of the range when ``size`` is None or negative), read
        straight from the file (no buffer in between)."""
        want = self._want(self._left if size is None or size < 0 else size)
        data = self._fh.read(want) if want else b""
        if self._left >= 0:
            self._left -= len(data)
        return data

    def readinto(self, buffer: memoryview) -> int:  # type: ignore[override]
        want = self._want(len(buffer))
        if want <= 0:
            return 0
        got = self._fh.readinto(memoryview(buffer)[:want])
        if self._left >= 0:
            self._left -= got
        return got

    def close(self) -> None:
        self._fh.close()
        super().close()


def close_gaps(scores: np.ndarray, starts: Sequence[int], got: Sequence[int], rows_first: bool) -> int:
    """Move each range's rows (``got[k]`` rows written from row ``starts[k]``) up to follow the rows before
    it; the rows in all. Rows run along the first axis of ``scores`` when ``rows_first``, else the second."""
    row = 0
    for start, n in zip(starts, got, strict=True):
        if start != row and n:
            if rows_first:
                scores[row : row + n] = scores[start : start + n]
            else:
                scores[:, row : row + n] = scores[:, start : start + n]
        row += n
    return row


#: one range's reader: ``(range index, first byte, end byte, the range's rows of the matrix)`` -> the text
#: columns' cells and the rows written, or None when the range is not one this reader reads
RangeReader = Callable[[int, int, int, np.ndarray], "tuple[dict[int, list], int] | None"]


def fill_in_ranges(
    path: Path, scores: np.ndarray, rows_first: bool, cuts: Sequence[int], ends: LineEnds, read: RangeReader
) -> tuple[dict[int, list], int] | None:
    """Fill ``scores`` from the ranges of ``path`` that ``cuts`` makes, ``read`` on one thread per range,
    each range given as many rows as it has lines (``ends``; the first range's header is no row); then the
    rows moved together where blank lines left gaps (:func:`close_gaps`). The text cells of every range in
    file order and the rows in all, or None when any range's reader says None. The last range ends where
    the count ended (a file that grew since is read no further)."""
    edges = [0, *cuts, ends.size]
    rows = [n - (k == 0) for k, n in enumerate(ends.newlines)]
    rows[-1] += not ends.ends_with_eol
    starts = [0, *np.cumsum(rows[:-1]).tolist()]

    def one(k: int) -> tuple[dict[int, list], int] | None:
        lo, hi = starts[k], starts[k] + rows[k]
        return read(k, edges[k], edges[k + 1], scores[lo:hi] if rows_first else scores[:, lo:hi])

    with ThreadPoolExecutor(max_workers=len(rows)) as pool:
        parts = list(pool.map(one, range(len(rows))))
    done = [p for p in parts if p is not None]
    if len(done) < len(parts):
        return None
    texts = {j: [t for p in done for t in p[0][j]] for j in done[0][0]}
    return texts, close_gaps(scores, starts, [p[1] for p in done], rows_first)
