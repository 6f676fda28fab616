"""The wide reader's ranged parse (``fill_in_ranges``: one reader per byte range, on threads) against the
one-stream parse and pandas on the same files, for both readers: pyarrow's (``_arrow_range_reader`` against
``_arrow_fill``) and the byte path's (``_digit_range_reader`` against ``fill_digits`` on the whole file).

Random files (partial-credit cells, or single digits for the byte path) with empty cells, blank lines (inside
a range and at its end), CR LF line ends, a byte-order mark, no final line end, text columns, both
orientations, CSV and TSV, cut into 2-5 ranges: the ranged parse must give the bits, NaN and texts of the
one-stream parse. The byte counts behind the cuts (``line_ends``) are checked against a direct count on every
cut, with 16-byte scan blocks so that block ends fall inside ``\\r\\n`` pairs.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from benchsift.io import _csv_ranges
from benchsift.io._csv_ranges import close_gaps, fill_in_ranges, line_ends, split_points
from benchsift.io._digit_csv import fill_digits
from benchsift.io.wide import _arrow_fill, _arrow_range_reader, _digit_range_reader, read_wide

CELLS = np.array(["0", "0.25", "0.5", "0.75", "1", "", "1e-1", "-0.5"], dtype=object)
DIGITS = np.array(["0", "1", "", "7"], dtype=object)


def _random_file(
    rng: np.random.Generator,
    path: Path,
    *,
    sep: str = ",",
    lead: int = 1,
    crlf: bool = False,
    blanks: bool = False,
    last_end: bool = True,
    bom: bool = False,
    cells: np.ndarray = CELLS,
) -> tuple[int, int]:
    """Write a random wide table; its (data rows, score columns)."""
    n_rows, n_scores = int(rng.integers(1, 60)), int(rng.integers(1, 12))
    names = ["id", "kind"][:lead] + [f"m{j}" for j in range(n_scores)]
    lines = [sep.join(names)]
    for k in range(n_rows):
        texts = [rng.choice([f"q{k}", f"é{k}ü", "NA", " x ", ""]) for _ in range(lead)]
        lines.append(sep.join([*texts, *rng.choice(cells, size=n_scores)]))
        if blanks and rng.random() < 0.2:
            lines.append("")  # a blank line: pyarrow skips it
    end = "\r\n" if crlf else "\n"
    text = end.join(lines) + (end if last_end else "")
    if blanks and last_end:
        text += end  # a blank line at the very end too
    path.write_bytes(("\ufeff" if bom else "").encode() + text.encode())
    return n_rows, n_scores


def _ranged_and_single(
    path: Path, n_ranges: int, sep: str, lead: int, rows_first: bool, digits: bool = False
):
    """Cuts, the ranged and the one-stream result, and their matrices, of the pyarrow path (or the byte
    path with ``digits``)."""
    header = path.read_text(encoding="utf-8-sig").splitlines()[0].split(sep)
    cols = set(range(lead))
    cuts = split_points(path, n_ranges)
    ends = line_ends(path, cuts)
    n_scores = len(header) - lead
    shape = (ends.data_rows_bound, n_scores) if rows_first else (n_scores, ends.data_rows_bound)
    ours, ref = np.full(shape, -7.0), np.full(shape, -7.0)
    if digits:
        reader = _digit_range_reader(path, len(header), cols, sep, rows_first)
        want = fill_digits(path, ref, cols, len(header), sep, rows_first)
    else:
        reader = _arrow_range_reader(path, header, cols, sep, rows_first, len(cuts) + 1)
        want = _arrow_fill(path, header, cols, sep, ref, rows_first)
    got = fill_in_ranges(path, ours, rows_first, cuts, ends, reader)
    return cuts, got, want, ours, ref


@pytest.mark.parametrize("digits", [False, True], ids=["pyarrow", "bytes"])
@pytest.mark.parametrize("seed", range(24))
def test_ranged_parse_equals_the_one_stream_parse(tmp_path: Path, seed: int, digits: bool) -> None:
    rng = np.random.default_rng(seed)
    sep = "\t" if seed % 5 == 4 else ","
    path = tmp_path / ("t.tsv" if sep == "\t" else "t.csv")
    lead = int(rng.integers(1, 3))
    rows_first = bool(seed % 2)
    _random_file(
        rng,
        path,
        sep=sep,
        lead=lead,
        crlf=seed % 3 == 1,
        blanks=seed % 4 in (1, 2),
        last_end=seed % 6 != 5,
        bom=seed % 7 == 3,
        cells=DIGITS if digits else CELLS,
    )
    n_ranges = 2 + seed % 4
    cuts, got, want, ours, ref = _ranged_and_single(path, n_ranges, sep, lead, rows_first, digits)
    assert cuts, "the file was not cut"  # every file here is long enough for at least two ranges
    assert want is not None and got is not None
    assert got[1] == want[1]
    assert got[0] == want[0]  # texts, in file order
    rows = got[1]
    a = ours[:rows] if rows_first else ours[:, :rows]
    b = ref[:rows] if rows_first else ref[:, :rows]
    np.testing.assert_array_equal(a, b)  # NaN where empty, bit for bit elsewhere


def test_ranged_parse_declines_what_the_one_stream_parse_retries(tmp_path: Path) -> None:
    """A score cell ``NA`` (one of pandas' missing texts) is no number for the ranged parse, which reads only
    the empty cell as missing: it declines, and the one-stream parse reads the file with pandas' list."""
    path = tmp_path / "na.csv"
    lines = [
        "item,a,b",
        *(f"q{k},0.5,1" for k in range(40)),
        "q40,NA,0",
        *(f"r{k},0,0.25" for k in range(40)),
    ]
    path.write_text("\n".join(lines) + "\n")
    cuts, got, want, _, ref = _ranged_and_single(path, 3, ",", 1, False)
    assert cuts and got is None
    assert want is not None and want[1] == 81 and np.isnan(ref[0, 40])


@pytest.mark.parametrize("end", ["\n", "\r\n", "\r"])
def test_line_ends_count_every_range(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, end: str) -> None:
    """Per range the ``\\n`` between its cuts; the lone ``\\r`` of the whole file; 16-byte scan blocks put
    block ends inside ``\\r\\n`` pairs and right on the cuts."""
    monkeypatch.setattr(_csv_ranges, "_SCAN", 16)
    rng = np.random.default_rng(7)
    path = tmp_path / "e.csv"
    lines = ["item,a"] + [f"q{k},{rng.choice(CELLS)}" for k in range(50)]
    data = (end.join(lines) + end).encode()
    path.write_bytes(data)
    for n in (1, 2, 3, 5, 9):
        cuts = split_points(path, n)
        assert all(data[c - 1 : c] == b"\n" for c in cuts) and cuts == sorted(set(cuts))
        assert len(cuts) == (0 if end == "\r" else n - 1)  # no \n, no cut
        ends = line_ends(path, cuts)
        edges = [0, *cuts, len(data)]
        assert ends.newlines == tuple(data.count(b"\n", a, b) for a, b in zip(edges, edges[1:], strict=False))
        assert ends.lone_cr == (51 if end == "\r" else 0)
        assert ends.ends_with_eol and not ends.quote
        assert ends.data_rows_bound == len(pd.read_csv(path, lineterminator="\r" if end == "\r" else None))


def test_close_gaps_moves_each_range_up_in_order() -> None:
    rows = np.arange(10.0)
    m = np.full((10, 2), -1.0)
    m[:, 0] = rows
    m[:, 1] = rows
    # range 0: rows 0-1 of 3 places, range 1: rows 3-5 of 4, range 2: rows 7-8 of 3
    n = close_gaps(m, [0, 3, 7], [2, 3, 2], rows_first=True)
    assert n == 7
    np.testing.assert_array_equal(m[:7, 0], [0, 1, 3, 4, 5, 7, 8])
    t = np.ascontiguousarray(np.stack([rows, rows]))  # the same rows along the second axis
    assert close_gaps(t, [0, 3, 7], [2, 3, 2], rows_first=False) == 7
    np.testing.assert_array_equal(t[1, :7], [0, 1, 3, 4, 5, 7, 8])


def test_read_wide_in_ranges_equals_pandas(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Through ``read_wide`` with the ranged parse switched on for a small file (on a machine with one CPU
    the file is read in one stream; the tests above call the ranged parse directly): the panel pandas
    reads."""
    rng = np.random.default_rng(3)
    path = tmp_path / "MMB.csv"
    header = ["item"] + [f"m{j}" for j in range(30)]
    lines = [",".join(header)]
    for k in range(3000):
        lines.append(",".join([f"q{k}", *rng.choice(CELLS[:6], size=30)]))
        if k % 700 == 5:
            lines.append("")
    path.write_text("\n".join(lines) + "\n")
    monkeypatch.setattr(_csv_ranges, "MIN_BYTES", 4096)
    panel = read_wide(path)
    df = pd.read_csv(path, dtype={"item": str})
    assert panel.items["item"].tolist() == df["item"].tolist()
    np.testing.assert_array_equal(panel.scores, df.drop(columns="item").to_numpy().T)
