"""Peak memory and wall time of benchsift refusing hostile inputs ("bombs", issue 32), and of the plain read.

Each bomb is built in a temporary folder (sizes printed), then ``python -m benchsift import ...`` reads it
in a child process started by a small wrapper process, whose ``resource.getrusage(RUSAGE_CHILDREN)``
``ru_maxrss`` is the child's peak resident set; the wall time is the wrapper's. The target: every bomb
refused (exit 2, one line) under 1 GB peak. Each bomb is read ``--repeats`` times (default 3): wall time
min / median, peak RSS the largest.

Baseline: what a user reads the same file with when no bounds are set, in the same kind of child, right
after benchsift's run in every repeat: ``zipfile`` + ``json.loads`` of every sample member (the ``.eval``
zips with deflate members), ``json.load`` (the inspect ``.json`` log), ``pandas.read_csv`` (the wide CSV),
``json.loads`` per line (the lm-eval JSON lines), ``pandas.read_excel`` (the ``.xlsx``) and
``pandas.read_parquet`` (the parquet long table). Its address space is capped at ``--baseline-limit-gb``
(default 4 GB, ``RLIMIT_AS``) and it is stopped after ``--timeout`` seconds, so a read that would take the
machine ends as "MemoryError at the limit" or "timeout" instead (a baseline that times out is not run
again). None for the zstd ``.eval`` zips: the standard library's ``zipfile`` cannot read method 93, and the
user's tool for them (inspect_ai's log reader) is not a dependency here.

    PYTHONPATH=src python benchmarks/bench_bombs.py [--src DIR] [--timeout S] [--only NAME] [--repeats 3]

``--src`` runs another tree's benchsift (e.g. ``/work/main/src`` for the before numbers); ``--timeout``
stops a reader that runs away (reported as ``timeout``), and benchsift's child's address space is capped at
6 GB (``RLIMIT_AS``) so a runaway reader fails instead of taking the machine.
"""

from __future__ import annotations

import argparse
import io
import json
import os
import statistics
import struct
import subprocess
import sys
import tempfile
import zipfile
import zlib
from collections.abc import Callable, Iterator
from pathlib import Path

from _timing import load_average, machine_line

GiB = 1 << 30
MiB = 1 << 20
_HEADER = {
    "version": 2,
    "status": "success",
    "eval": {"task": "bomb", "model": "m", "dataset": {}, "config": {}},
}


def _sample(i: int) -> dict:
    return {"id": i, "epoch": 1, "scores": {"match": {"value": "C"}}}


def _filler(n: int) -> Callable[[], Iterator[bytes]]:
    """A sample JSON document padded to ``n`` bytes with one long string (chunks of 1 MiB)."""
    head, tail = b'{"id": 1, "epoch": 1, "scores": {"match": {"value": "C"}}, "pad": "', b'"}'
    body = n - len(head) - len(tail)

    def chunks() -> Iterator[bytes]:
        yield head
        for k in range(0, body, MiB):
            yield b"a" * min(MiB, body - k)
        yield tail

    return chunks


def eval_deflate(folder: Path, size: int) -> tuple[list[str], str]:
    """An .eval whose sample member is deflate-compressed and inflates to ``size`` bytes."""
    path = folder / "bomb_deflate.eval"
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as zf:
        zf.writestr("header.json", json.dumps(_HEADER))
        with zf.open("samples/1_epoch_1.json", "w", force_zip64=True) as fh:
            for chunk in _filler(size)():
                fh.write(chunk)
    return [
        "inspect",
        str(path),
    ], f"deflate member {size / GiB:.1f} GiB in {path.stat().st_size / MiB:.1f} MiB"


def _zstd_zip(path: Path, members: list[tuple[str, bytes, int, int]]) -> None:
    """A zip whose members ``(name, zstd bytes, declared size, crc)`` use method 93 (APPNOTE 4.3.7)."""
    out = io.BytesIO()
    central = b""
    for name, data, size, crc in members:
        offset = out.tell()
        fname = name.encode()
        out.write(
            struct.pack(
                "<4s2B4HL2L2H", b"PK\x03\x04", 63, 0, 0, 93, 0, 0, crc, len(data), size, len(fname), 0
            )
        )
        out.write(fname + data)
        central += (
            struct.pack(
                "<4s4B4HL2L5H2L",
                b"PK\x01\x02",
                63,
                0,
                63,
                0,
                0,
                93,
                0,
                0,
                crc,
                len(data),
                size,
                len(fname),
                0,
                0,
                0,
                0,
                0,
                offset,
            )
            + fname
        )
    start = out.tell()
    out.write(central)
    out.write(
        struct.pack("<4s4H2LH", b"PK\x05\x06", 0, 0, len(members), len(members), len(central), start, 0)
    )
    path.write_bytes(out.getvalue())


def eval_zstd(folder: Path, size: int, declared: int | None = None) -> tuple[list[str], str]:
    """An .eval whose sample member is zstd (method 93) and decompresses to ``size`` bytes; its directory
    entry declares ``declared`` bytes (default: the truth)."""
    import zstandard

    cctx = zstandard.ZstdCompressor(level=3)
    sink = io.BytesIO()
    crc = 0
    with cctx.stream_writer(sink, closefd=False) as w:
        for chunk in _filler(size)():
            w.write(chunk)
            crc = zlib.crc32(chunk, crc)
    data = sink.getvalue()
    header = json.dumps(_HEADER).encode()
    hz = zstandard.ZstdCompressor().compress(header)
    path = folder / ("bomb_zstd_lying.eval" if declared is not None else "bomb_zstd.eval")
    _zstd_zip(
        path,
        [
            ("header.json", hz, len(header), zlib.crc32(header)),
            ("samples/1_epoch_1.json", data, declared or size, crc),
        ],
    )
    lie = f", declared {declared:,} bytes" if declared is not None else ""
    return ["inspect", str(path)], f"zstd member {size / GiB:.1f} GiB in {len(data) / MiB:.2f} MiB{lie}"


def deep_json_log(folder: Path, depth: int) -> tuple[list[str], str]:
    """An inspect .json log whose first sample's metadata nests ``depth`` arrays."""
    path = folder / "deep.json"
    doc = json.dumps({**_HEADER, "samples": [{**_sample(1), "metadata": "X"}]})
    path.write_text(doc.replace('"X"', "[" * depth + "]" * depth))
    return [
        "inspect",
        str(path),
    ], f"inspect .json log nested {depth:,} deep ({path.stat().st_size / MiB:.1f} MiB)"


def deep_eval_member(folder: Path, depth: int) -> tuple[list[str], str]:
    """An .eval whose sample member nests ``depth`` arrays."""
    path = folder / "deep.eval"
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as zf:
        zf.writestr("header.json", json.dumps(_HEADER))
        zf.writestr(
            "samples/1_epoch_1.json",
            json.dumps(_sample(1))[:-1] + ', "m": ' + "[" * depth + "]" * depth + "}",
        )
    return ["inspect", str(path)], f".eval sample member nested {depth:,} deep"


def wide_columns(folder: Path, n_columns: int) -> tuple[list[str], str]:
    """A wide CSV whose header has ``n_columns`` columns (one data row)."""
    path = folder / "wide.csv"
    with open(path, "w") as fh:
        fh.write("item," + ",".join(f"m{j}" for j in range(n_columns - 1)) + "\n")
        fh.write("i1," + ",".join("1" for _ in range(n_columns - 1)) + "\n")
    return ["wide", str(path)], f"wide CSV {n_columns:,} columns ({path.stat().st_size / MiB:.1f} MiB)"


def jsonl_long_line(folder: Path, size: int) -> tuple[list[str], str]:
    """An lm-eval sample log whose one line is ``size`` bytes long (no line break)."""
    sub = folder / "lm" / "m"
    sub.mkdir(parents=True)
    path = sub / "samples_arc_2024-01-01T00-00-00.jsonl"
    with open(path, "wb") as fh:
        fh.write(b'{"doc_id": 0, "pad": "')
        for k in range(0, size, 16 * MiB):
            fh.write(b"a" * min(16 * MiB, size - k))
    return ["lm-eval", str(path)], f"lm-eval JSON lines, one {size / MiB:.0f} MiB line"


def xlsx_bomb(folder: Path, size: int) -> tuple[list[str], str]:
    """A VLMEvalKit result .xlsx (written by openpyxl) whose worksheet member is padded with ``size`` bytes of
    blanks between its XML elements (still a valid workbook), deflated."""
    import openpyxl

    book = openpyxl.Workbook()
    sheet = book.active
    sheet.append(["index", "question", "answer", "prediction", "hit"])
    sheet.append([1, "q", "A", "A", 1])
    plain = io.BytesIO()
    book.save(plain)
    path = folder / "m_MMBench_result.xlsx"
    with zipfile.ZipFile(plain) as src, zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as dst:
        for info in src.infolist():
            data = src.read(info)
            if info.filename != "xl/worksheets/sheet1.xml":
                dst.writestr(info.filename, data)
                continue
            cut = data.index(b"<sheetData>") + len(b"<sheetData>")
            with dst.open(info.filename, "w", force_zip64=True) as fh:
                fh.write(data[:cut])
                for k in range(0, size, MiB):
                    fh.write(b" " * min(MiB, size - k))
                fh.write(data[cut:])
    what = f"xlsx worksheet {size / GiB:.1f} GiB in {path.stat().st_size / MiB:.1f} MiB"
    return ["vlmevalkit", str(path), "--model", "m"], what


def parquet_rows(folder: Path, rows: int) -> tuple[list[str], str]:
    """A long table (model, benchmark, item, score) of ``rows`` rows of one value, dictionary-encoded, in row
    groups of 4,000,000 rows (the audit's forged ``panel.parquet`` of issue 32, as a long table)."""
    import numpy as np
    import pyarrow as pa
    import pyarrow.parquet as pq

    chunk = 4_000_000
    idx = pa.array(np.zeros(chunk, dtype=np.int32))
    columns = [pa.DictionaryArray.from_arrays(idx, pa.array([v])) for v in ("m", "B", "i", 1.0)]
    table = pa.table(columns, names=["model", "benchmark", "item", "score"])
    path = folder / "long.parquet"
    with pq.ParquetWriter(path, table.schema, compression="zstd") as writer:
        for _ in range(rows // chunk):
            writer.write_table(table)
    what = f"long parquet {rows:,} rows of one value ({path.stat().st_size / MiB:.1f} MiB)"
    return ["long", str(path)], what


BOMBS: dict[str, Callable[[Path], tuple[list[str], str]]] = {
    "eval-deflate-1.5GiB": lambda d: eval_deflate(d, 3 * GiB // 2),
    "eval-zstd-1.5GiB": lambda d: eval_zstd(d, 3 * GiB // 2),
    "eval-zstd-lying-1.5GiB": lambda d: eval_zstd(d, 3 * GiB // 2, declared=1000),
    "json-log-200k-deep": lambda d: deep_json_log(d, 200_000),
    "eval-member-200k-deep": lambda d: deep_eval_member(d, 200_000),
    "wide-1000001-columns": lambda d: wide_columns(d, 1_000_001),
    "jsonl-512MiB-line": lambda d: jsonl_long_line(d, 512 * MiB),
    "xlsx-1.5GiB-sheet": lambda d: xlsx_bomb(d, 3 * GiB // 2),
    "parquet-400M-rows": lambda d: parquet_rows(d, 400_000_000),
}

#: the plain read a user would run on each bomb (``sys.argv[1]``: the file), None where there is none
_ZIP_JSON = (
    "import json, sys, zipfile\n"
    "zf = zipfile.ZipFile(sys.argv[1])\n"
    "rows = [json.loads(zf.read(n)) for n in zf.namelist() if n.startswith('samples/')]"
)
BASELINES: dict[str, tuple[str, str] | None] = {
    "eval-deflate-1.5GiB": ("zipfile + json.loads", _ZIP_JSON),
    "eval-zstd-1.5GiB": None,
    "eval-zstd-lying-1.5GiB": None,
    "json-log-200k-deep": ("json.load", "import json, sys\nlog = json.load(open(sys.argv[1]))"),
    "eval-member-200k-deep": ("zipfile + json.loads", _ZIP_JSON),
    "wide-1000001-columns": ("pandas.read_csv", "import sys, pandas\ndf = pandas.read_csv(sys.argv[1])"),
    "jsonl-512MiB-line": (
        "json.loads per line",
        "import json, sys\nrows = [json.loads(line) for line in open(sys.argv[1])]",
    ),
    "xlsx-1.5GiB-sheet": ("pandas.read_excel", "import sys, pandas\ndf = pandas.read_excel(sys.argv[1])"),
    "parquet-400M-rows": ("pandas.read_parquet", "import sys, pandas\ndf = pandas.read_parquet(sys.argv[1])"),
}
assert set(BASELINES) == set(BOMBS)

_WRAPPER = """
import resource, subprocess, sys, time
cap_bytes = int(float(sys.argv[2]) * (1 << 30))
def cap():
    resource.setrlimit(resource.RLIMIT_AS, (cap_bytes, cap_bytes))
t = time.perf_counter()
try:
    limit = float(sys.argv[1])
    r = subprocess.run(sys.argv[3:], capture_output=True, text=True, timeout=limit, preexec_fn=cap)
    code, err = r.returncode, r.stderr.strip()
except subprocess.TimeoutExpired:
    code, err = "timeout", ""
wall = time.perf_counter() - t
peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
print(repr((code, wall, peak, err)))
"""


def _wrapped(cmd: list[str], timeout: float, cap_gb: float, env: dict[str, str]) -> tuple:
    """(exit code or "timeout", wall s, peak RSS MiB, stderr) of ``cmd`` run under the wrapper."""
    out = subprocess.run(
        [sys.executable, "-c", _WRAPPER, str(timeout), str(cap_gb), *cmd],
        capture_output=True,
        text=True,
        env=env,
    )
    return eval(out.stdout.strip().splitlines()[-1])


def _outcome(code: object, err: str, cap_gb: float) -> str:
    """What became of a baseline read, in words."""
    if code == "timeout":
        return "timeout"
    if code == 0:
        return "read it"
    last = err.strip().splitlines()[-1] if err.strip() else ""
    if "MemoryError" in last:
        return f"MemoryError at the {cap_gb:g} GB limit"
    if isinstance(code, int) and code < 0:
        return f"killed by signal {-code}"
    return f"exit {code}: {last[:120]}"


def _stats(runs: list[tuple]) -> str:
    walls = [r[1] for r in runs]
    return (
        f"{min(walls):6.1f} / {statistics.median(walls):6.1f} s (min / median of {len(runs)}), "
        f"peak RSS {max(r[2] for r in runs):7.0f} MiB"
    )


def run(name: str, src: str, timeout: float, repeats: int, cap_gb: float) -> None:
    with tempfile.TemporaryDirectory(prefix="bomb-") as tmp:
        folder = Path(tmp)
        argv, what = BOMBS[name](folder)
        cmd = [sys.executable, "-m", "benchsift", "import", *argv, "-o", str(folder / "out.parquet")]
        env = {**os.environ, "PYTHONPATH": src}
        base = BASELINES[name]
        ours: list[tuple] = []
        theirs: list[tuple] = []
        for _ in range(max(1, repeats)):  # alternated: benchsift, then the plain read
            ours.append(_wrapped(cmd, timeout, 6, env))
            if base is not None and not (theirs and theirs[-1][0] == "timeout"):
                theirs.append(_wrapped([sys.executable, "-c", base[1], argv[1]], timeout, cap_gb, env))
        codes = sorted({str(r[0]) for r in ours})
        err = ours[-1][3]
        lines = err.count("\n") + 1 if err else 0
        print(f"{name:24s} {what}")
        print(f"{'  benchsift':24s} exit {'/'.join(codes)}, {_stats(ours)}, {lines} line(s): {err[:150]}")
        if base is None:
            print(f"{'  baseline':24s} none (zstd members: the standard library cannot read them)")
        else:
            outcomes = sorted({_outcome(r[0], r[3], cap_gb) for r in theirs})
            print(f"{'  baseline':24s} {base[0]}: {'; '.join(outcomes)}, {_stats(theirs)}")
        sys.stdout.flush()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--src", default=str(Path(__file__).resolve().parents[1] / "src"))
    parser.add_argument("--timeout", type=float, default=120.0)
    parser.add_argument("--only", action="append", choices=sorted(BOMBS))
    parser.add_argument(
        "--repeats", type=int, default=3, help="reads of each bomb by each side (min / median)"
    )
    parser.add_argument("--baseline-limit-gb", type=float, default=4.0, help="the baseline's RLIMIT_AS")
    args = parser.parse_args()
    print(f"benchsift from {args.src}; python {sys.version.split()[0]}")
    print(machine_line())
    for name in args.only or list(BOMBS):
        run(name, args.src, args.timeout, args.repeats, args.baseline_limit_gb)
    print(f"load average after: {load_average()}")


if __name__ == "__main__":
    main()
