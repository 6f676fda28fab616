"""The wide reader's byte path: a CSV / TSV whose score cells are each one digit or empty.

A per-item correctness table (AutoJudger's ``MMMU_DEV_VAL.csv``, a VLMEvalKit-derived matrix) holds ``0``,
``1`` and empty cells only. For such a file the general CSV parsers do far more than needed: pyarrow's
tokenizer and per-column conversion cost about 25 ns per cell, pandas' about 21, on 2,000 x 50,000 cells.
Here a block of lines is read as bytes and every cell's value comes from numpy passes over the whole block:
the cell ends are the separators and line ends; the byte before a cell end is the cell's only character, or
is itself a cell end when the cell is empty. Five passes over the block and one over the cells, no per-cell
Python work; per line, one ``bytes.count`` (the fields) and one ``find`` per leading text column.

Whether the file is such a file is checked, not assumed: every line has exactly the header's number of
fields; the characters outside the text columns are exactly one per non-empty cell (so no cell has two),
each a digit ``0``-``9``; no quote; the lines of a block end all in LF or all in CR LF (a carriage return
anywhere else, or both kinds in one block, is left to pyarrow); the text columns are valid UTF-8. Empty
lines are dropped, as pyarrow's reader skips them. When
any check fails, :func:`fill_digits` returns None and the caller reads the file with pyarrow's parser,
which then decides from scratch (what was written into the matrix is overwritten). A digit is the number
pyarrow reads from it and an empty cell is NaN, as pyarrow's reader with ``null_values=[""]`` gives; a text
cell is a ``str``, an empty one None: the caller gets the same panel either way
(``tests/io/test_wide_digits.py`` compares the two on random files).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import numpy as np

from benchsift.io._csv_ranges import RangeFile

#: bytes read per block: the passes' temporaries (a few bytes per byte of the block) stay in cache-sized
#: pieces; 2 MiB blocks cost 2.4 s of CPU for 2,000 x 50,000 cells where 8 MiB blocks cost 3.6 s
BLOCK = 2 << 20
#: the longest line (bytes) the byte path holds; a longer one is left to pyarrow's reader, which bounds it
MAX_LINE = 64 << 20
_EMPTY = np.uint8(255)
_ZERO = np.uint8(ord("0"))


class _NotDigits(Exception):
    """The file is not one the byte path reads; the caller falls back."""


def _blocks(path: Path, block: int, start: int = 0, stop: int | None = None) -> Iterator[bytes]:
    """The data lines of the file's bytes ``[start, stop)`` (``stop`` None: to the end) in blocks of about
    ``block`` bytes (more when a line is longer), each block whole lines ending in ``\\n`` (the last one
    given one when the range has none); the header left out when the range starts the file (a range that
    starts elsewhere must start at a line)."""
    rest, header = b"", start == 0
    with RangeFile(path, start, stop) as fh:
        while True:
            chunk = fh.read(block)
            data = rest + chunk if rest else chunk
            if not chunk:
                if header:
                    return  # header only (or empty): pyarrow's reader says so
                if data:  # the last line, without its line end
                    yield data + (b"\r\n" if b"\r" in data else b"\n")
                return
            if header:
                end = data.find(b"\n")
                if end < 0:
                    if len(data) > MAX_LINE:
                        raise _NotDigits
                    rest = data
                    continue
                data, header = data[end + 1 :], False
            cut = data.rfind(b"\n") + 1
            if cut == 0 and len(data) > MAX_LINE:
                raise _NotDigits
            if cut:
                yield data[:cut]
            rest = data[cut:]


def _without_blank_lines(block: bytes, crlf: bool) -> bytes:
    """``block`` without its empty lines (pyarrow's reader skips them; so may this one)."""
    end = b"\r\n" if crlf else b"\n"
    while block.startswith(end):
        block = block[len(end) :]
    while end + end in block:
        block = block.replace(end + end, end)
    return block


def _lines(
    block: bytes, sep: bytes, n_columns: int, lead: int, crlf: bool, texts: dict[int, list]
) -> tuple[int, int]:
    """Walk ``block``'s lines (ending in ``\\r\\n`` when ``crlf``): check each has ``n_columns`` fields,
    append its ``lead`` text cells to ``texts``; the number of lines and of characters in the score
    cells."""
    p, n, rows, chars = 0, len(block), 0, 0
    score_seps = n_columns - lead - 1
    while p < n:
        e = block.index(b"\n", p)
        end = e - 1 if crlf else e  # a CR before the LF, checked by the caller
        if block.count(sep, p, end) != n_columns - 1:
            raise _NotDigits  # a ragged line: pyarrow's reader names it
        q = p
        for j in range(lead):
            c = block.index(sep, q, end)
            texts[j].append(block[q:c].decode("utf-8") if c > q else None)
            q = c + 1
        chars += end - q - score_seps
        rows += 1
        p = e + 1
    return rows, chars


def _codes(block: bytes, sep: int, line_end: int) -> np.ndarray:
    """For every cell end (``sep`` or ``line_end``) of ``block`` in order, the byte before it, or 255 when
    that byte is itself a cell end (the cell is empty)."""
    b = np.frombuffer(block, dtype=np.uint8)
    ends = b == sep
    ends |= b == line_end
    before = np.empty_like(b)
    before[0] = _EMPTY
    np.bitwise_or(b[:-1], np.negative(ends[:-1].view(np.uint8)), out=before[1:])
    return before[ends]


def _crlf(block: bytes) -> bool | None:
    """Whether ``block``'s lines end in CR LF (True) or LF (False); None when it holds a quote or a CR
    that does not end a line, or mixes the two line ends."""
    if b'"' in block:
        return None
    crs = block.count(b"\r")
    if crs == 0:
        return False
    if crs == block.count(b"\r\n") == block.count(b"\n"):
        return True
    return None


def fill_digits(
    path: Path,
    scores: np.ndarray,
    text_cols: set[int],
    n_columns: int,
    sep: str,
    rows_first: bool,
    block_size: int = BLOCK,
    start: int = 0,
    stop: int | None = None,
) -> tuple[dict[int, list], int] | None:
    """Fill ``scores`` (the file's rows along its first axis when ``rows_first``, else its second) from a
    CSV / TSV whose text columns are ``text_cols``, the leading ones, and whose every other cell is one digit
    or empty; the text columns' cells and the number of rows, or None when the file is not such a file (see
    the module docstring) or its rows outrun the matrix. ``block_size``: bytes read at a time; ``start``,
    ``stop``: read only those bytes of the file (a range that does not start the file must start at a line
    and has no header; :mod:`benchsift.io._csv_ranges`)."""
    lead = len(text_cols)
    if text_cols != set(range(lead)) or not 0 < lead < n_columns:
        return None
    texts: dict[int, list] = {j: [] for j in range(lead)}
    row, cap = 0, scores.shape[0 if rows_first else 1]
    sep_b = sep.encode()
    try:
        for raw in _blocks(path, block_size, start, stop):
            crlf = _crlf(raw)
            if crlf is None:
                return None
            block = _without_blank_lines(raw, crlf)
            rows, chars = _lines(block, sep_b, n_columns, lead, crlf, texts)
            if row + rows > cap:
                return None
            if not rows:
                continue
            cells = _codes(block, sep_b[0], 13 if crlf else 10).reshape(rows, n_columns)[:, lead:]
            if not rows_first:
                cells = np.ascontiguousarray(cells.T)
            empty = cells == _EMPTY
            n_digits = np.count_nonzero((cells - _ZERO) < 10)
            if n_digits != chars or n_digits + np.count_nonzero(empty) != cells.size:
                return None  # a cell of two or more characters, or one that is not a digit
            out = scores[row : row + rows] if rows_first else scores[:, row : row + rows]
            np.subtract(cells, np.float64(48.0), out=out, casting="unsafe")
            np.copyto(out, np.nan, where=empty)
            row += rows
    except (_NotDigits, UnicodeDecodeError):
        return None
    return texts, row
