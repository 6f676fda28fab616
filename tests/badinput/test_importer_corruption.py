"""Random byte corruptions of every importer fixture, fed to every importer through the CLI.

Property (issue 12): whatever the bytes, ``benchsift import FORMAT`` either refuses with exit code 2 and
one line ``benchsift: error: ...``, or exits 0 having written a panel that loads back with every score in
[0, 1] or missing; never a traceback (an internal error is exit code 70) and nothing else.
"""

from __future__ import annotations

import shutil
import zipfile
from pathlib import Path

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from benchsift.cli.main import app
from benchsift.panel import Panel

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "io"

# (format, fixture folder or file, extra arguments, how the input is passed: "file", "dir" or "eval")
SOURCES: list[tuple[str, str, tuple[str, ...], str]] = [
    ("long", "long/scores.csv", (), "file"),
    ("long", "long/items.csv", (), "file"),
    ("long", "long/models.csv", (), "file"),
    ("wide", "wide/mini_mmmu.csv", ("--benchmark", "MMMU"), "file"),
    ("wide", "wide/models_rows.csv", ("--benchmark", "B", "--orient", "models-rows"), "file"),
    ("aggregate", "aggregate/leaderboard.csv", (), "file"),
    ("aggregate", "aggregate/OpenVLM.json", (), "file"),
    ("inspect", "inspect/2024-09-01T10-00-00+00-00_mmmu-multiple-choice_Hc9xk2.json", (), "file"),
    ("inspect", "inspect/chartqa_eval", (), "eval"),
    ("lmms-eval", "lmms_eval/llava-hf__llava-1.5-7b-hf", (), "dir"),
    ("lm-eval", "lm_eval/EleutherAI__pythia-160m", ("--filter", "strict-match"), "dir"),
    *[
        ("vlmevalkit", str(p.relative_to(FIXTURES)), (), "file")
        for p in sorted(FIXTURES.glob("vlmevalkit/*/*"))
    ],
]


def _files(source: str) -> list[Path]:
    p = FIXTURES / source
    return sorted(q for q in p.rglob("*") if q.is_file()) if p.is_dir() else [p]


CASES = [(fmt, src, extra, how, f) for fmt, src, extra, how in SOURCES for f in _files(src)]


@st.composite
def corruption(draw: st.DrawFn, size: int) -> tuple[str, int, bytes]:
    """(kind, position, bytes): truncate at, overwrite at, insert at, or delete a run at a position."""
    kind = draw(st.sampled_from(["truncate", "overwrite", "insert", "delete"]))
    pos = draw(st.integers(0, max(size - 1, 0)))
    data = draw(st.binary(min_size=1, max_size=16)) if kind in ("overwrite", "insert") else b""
    run = draw(st.integers(1, 64)) if kind == "delete" else 0
    return kind, pos, data if kind != "delete" else bytes(run)


def corrupt(raw: bytes, kind: str, pos: int, data: bytes) -> bytes:
    if kind == "truncate":
        return raw[:pos]
    if kind == "overwrite":
        return raw[:pos] + data + raw[pos + len(data) :]
    if kind == "insert":
        return raw[:pos] + data + raw[pos:]
    return raw[:pos] + raw[pos + len(data) :]


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_corrupted_fixture_is_refused_or_imported(data: st.DataObject, tmp_path_factory) -> None:
    fmt, src, extra, how, target = data.draw(st.sampled_from(CASES), label="fixture")
    raw = target.read_bytes()
    kind, pos, payload = data.draw(corruption(len(raw)), label="corruption")
    work = tmp_path_factory.mktemp("corrupt")
    source = FIXTURES / src
    if source.is_dir():
        copy = work / source.name
        shutil.copytree(source, copy)
        bad = copy / target.relative_to(source)
    else:
        copy = bad = work / source.name
        shutil.copy(source, copy)
    bad.write_bytes(corrupt(raw, kind, pos, payload))
    if how == "eval":  # an inspect .eval archive: the corrupted member zipped back
        archive = work / "log.eval"
        with zipfile.ZipFile(archive, "w") as zf:
            for m in sorted(copy.rglob("*.json")):
                zf.write(m, m.relative_to(copy).as_posix())
        copy = archive
    out = work / "panel.parquet"
    res = CliRunner().invoke(app, ["import", fmt, str(copy), *extra, "-o", str(out)])
    where = f"{fmt} {target.name} {kind}@{pos} {payload[:16]!r}: exit {res.exit_code}\n{res.stderr}"
    assert res.exit_code in (0, 2), where
    if res.exit_code == 2:
        err = res.stderr.strip()
        assert "\n" not in err and err.startswith("benchsift: error: "), where
        assert not out.exists(), where
    else:
        panel = Panel.load(out)
        s = panel.scores[~np.isnan(panel.scores)]
        assert ((s >= 0) & (s <= 1)).all(), where
