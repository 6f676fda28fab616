"""The wide reader's byte path (``fill_digits``) against pyarrow's reader and pandas on the same files.

For a file whose score cells are one digit or empty, the byte path must give exactly what pyarrow's
streaming reader (``_arrow_fill``, the path it stands in front of) gives, bits and NaN alike, and the same
text cells; for every other file it must decline (return None), and ``read_wide`` must then give what
``pandas.read_csv`` reads. Block sizes from 1 byte up put block ends inside lines and cells.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from benchsift.errors import InputError
from benchsift.io._digit_csv import fill_digits
from benchsift.io.wide import _arrow_fill, _fast_csv, _raw_header, read_wide


def _matrix(n_rows: int, n_scores: int, rows_first: bool) -> np.ndarray:
    return np.full((n_rows, n_scores) if rows_first else (n_scores, n_rows), -7.0)


def _both(
    path: Path, n_rows: int, lead: int, sep: str, rows_first: bool, block: int
) -> tuple[tuple[dict, np.ndarray] | None, tuple[dict, np.ndarray]]:
    """The byte path's and pyarrow's (texts, filled part of the matrix) for ``path``."""
    header = path.read_text(encoding="utf-8").split("\n", 1)[0].split(sep)
    cols = set(range(lead))
    n_scores = len(header) - lead
    ours, theirs = _matrix(n_rows, n_scores, rows_first), _matrix(n_rows, n_scores, rows_first)
    got = fill_digits(path, ours, cols, len(header), sep, rows_first, block_size=block)
    ref = _arrow_fill(path, header, cols, sep, theirs, rows_first)
    assert ref is not None
    ref_out = (ref[0], theirs[: ref[1]] if rows_first else theirs[:, : ref[1]])
    if got is None:
        return None, ref_out
    return (got[0], ours[: got[1]] if rows_first else ours[:, : got[1]]), ref_out


def _random_file(
    rng: np.random.Generator, path: Path, sep: str, lead: int, last_end: bool, crlf: bool, blanks: bool
) -> int:
    n_rows, n_scores = int(rng.integers(1, 30)), int(rng.integers(1, 15))
    digits = rng.integers(0, 10, size=(n_rows, n_scores)).astype(str).astype(object)
    digits[rng.random((n_rows, n_scores)) < 0.25] = ""
    names = ["id", "kind"][:lead] + [f"m{j}" for j in range(n_scores)]
    lines = [sep.join(names)]
    for k in range(n_rows):
        texts = [rng.choice(["", f"q{k}", f"é{k}ü", "NA", " x "]) for _ in range(lead)]
        lines.append(sep.join([*texts, *digits[k]]))
        if blanks and rng.random() < 0.25:
            lines.append("")  # an empty line: pyarrow skips it
    end = "\r\n" if crlf else "\n"
    path.write_bytes((end.join(lines) + (end if last_end else "")).encode())
    return n_rows


@pytest.mark.parametrize("seed", range(16))
def test_digit_files_read_as_pyarrow_reads_them(tmp_path: Path, seed: int) -> None:
    """Random files (CSV or TSV, one or two text columns, LF or CR LF line ends, empty lines, with and
    without a last line end) at block sizes that split lines and line ends: the byte path reads each and
    gives pyarrow's text cells and scores, bit for bit."""
    rng = np.random.default_rng(seed)
    sep = "," if seed % 3 else "\t"
    lead, rows_first, last_end = 1 + seed % 2, seed % 4 < 2, seed % 5 != 0
    path = tmp_path / ("t.tsv" if sep == "\t" else "t.csv")
    n_rows = _random_file(rng, path, sep, lead, last_end, crlf=seed % 8 >= 4, blanks=seed % 3 == 1)
    for block in (1, 2, 7, 64, 1 << 21):
        got, ref = _both(path, n_rows, lead, sep, rows_first, block)
        assert got is not None, block
        assert got[0] == ref[0]
        assert got[1].tobytes() == ref[1].tobytes()  # same bits, NaN included
        assert got[1].shape == ((n_rows, got[1].shape[1]) if rows_first else (got[1].shape[0], n_rows))


@pytest.mark.parametrize(
    ("body", "error"),
    [
        ("q1,1,01\nq2,0,1\n", None),  # two digits
        ("q1,1,0.5\nq2,0,1\n", None),  # a fraction
        ("q1,1.0,0.0\nq2,0,1\n", None),  # pandas' float text
        ("q1,1, 1\nq2,0,1\n", None),  # a blank before the digit
        ("q1,1,1\rq2,0,1\r", None),  # old Mac line ends
        ("q1,1,1\r\nq2,0,1\r0\n", r"line 4: 1 fields, the header has 3"),  # a lone CR
        ('q1,1,1\n"q2",0,1\n', None),  # a quote
        ("q1,1,x\nq2,0,1\n", r"line 2: score in column 'b' 'x' is not a number"),  # not a digit
        ("q1,1,-\nq2,0,1\n", r"line 2: score in column 'b' '-' is not a number"),
        ("q1,1,1,1\nq2,0,1\n", r"line 2: 4 fields, the header has 3"),  # an extra field
        ("q1,1\nq2,0,1\n", r"line 2: 2 fields, the header has 3"),  # a missing field
    ],
)
def test_other_files_decline_and_read_as_pandas_reads_them(
    tmp_path: Path, body: str, error: str | None
) -> None:
    """Declined by the byte path at any block size; the reader then gives pandas' reading of the file, or
    refuses it naming the line (pandas would read ``x`` as text and pad a short line with NaN)."""
    path = tmp_path / "o.csv"
    path.write_bytes(("item,a,b\n" + body).encode())
    assert fill_digits(path, _matrix(4, 2, False), {0}, 3, ",", False, block_size=5) is None
    assert fill_digits(path, _matrix(4, 2, False), {0}, 3, ",", False) is None
    if error is not None:
        with pytest.raises(InputError, match="o.csv, " + error):
            read_wide(path)
        return
    expected = pd.read_csv(path, dtype={"item": str})
    panel = read_wide(path)
    assert panel.items["item"].tolist() == expected["item"].tolist()
    np.testing.assert_array_equal(panel.scores, expected[["a", "b"]].to_numpy(dtype=np.float64).T)


def test_invalid_bytes_a_later_text_column_and_too_many_rows_decline(tmp_path: Path) -> None:
    """A byte 0xFF (the empty cell's code) or invalid UTF-8 in a score or text cell, a text column that is
    not among the leading ones, and more rows than the matrix holds: declined."""
    path = tmp_path / "b.csv"
    path.write_bytes(b"item,a,b\nq1,1,\xff\nq2,0,1\n")
    assert fill_digits(path, _matrix(4, 2, False), {0}, 3, ",", False) is None
    path.write_bytes(b"item,a,b\nq\xff1,1,0\nq2,0,1\n")
    assert fill_digits(path, _matrix(4, 2, False), {0}, 3, ",", False) is None
    path.write_bytes(b"a,item,b\n1,q1,0\n0,q2,1\n")
    assert fill_digits(path, _matrix(4, 2, False), {1}, 3, ",", False) is None
    path.write_bytes(b"item,a,b\nq1,1,0\nq2,0,1\nq3,1,1\n")
    assert fill_digits(path, _matrix(2, 2, False), {0}, 3, ",", False) is None
    got = fill_digits(path, _matrix(3, 2, False), {0}, 3, ",", False)
    assert got is not None and got[1] == 3


@pytest.mark.parametrize("line_end", ["\n", "\r\n"])
def test_read_wide_of_a_correctness_table_equals_pandas(tmp_path: Path, line_end: str) -> None:
    """The whole reader on a 0/1 table with empty cells, written by pandas (ints, missing as empty; LF, or
    CR LF as pandas writes on Windows), in both orients: the byte path is taken and the panel is pandas'
    reading of the file."""
    rng = np.random.default_rng(5)
    scores = rng.integers(0, 2, size=(300, 40)).astype(float)
    scores[rng.random(scores.shape) < 0.05] = np.nan
    frame = pd.DataFrame(scores, columns=[f"m{j}" for j in range(40)]).astype("Int64")
    frame.insert(0, "item", [f"item {k}" for k in range(300)])
    path = tmp_path / "c.csv"
    frame.to_csv(path, index=False, lineterminator=line_end)
    assert path.read_bytes().count(b"\r") == (301 if line_end == "\r\n" else 0)
    assert _fast_csv(path, _raw_header(path) or [], {0}, rows_first=False) is not None
    expected = pd.read_csv(path, dtype={"item": str})
    panel = read_wide(path)
    assert panel.items["item"].tolist() == expected["item"].tolist()
    assert panel.model_ids == [f"m{j}" for j in range(40)]
    np.testing.assert_array_equal(panel.scores, expected.iloc[:, 1:].to_numpy(dtype=np.float64).T)
    header = _raw_header(path) or []
    assert fill_digits(path, _matrix(300, 40, False), {0}, len(header), ",", False) is not None
    flipped = tmp_path / "f.csv"
    frame.set_index("item").T.rename_axis("model").to_csv(flipped, lineterminator=line_end)
    models_rows = read_wide(flipped, orient="models-rows", benchmark="c")
    np.testing.assert_array_equal(models_rows.scores, panel.scores)
    assert models_rows.items["item"].tolist() == panel.items["item"].tolist()
