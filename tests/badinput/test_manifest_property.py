"""A planted manifest never makes benchsift touch a file outside the output folder (issue 32).

Hypothesis draws the folder the user was handed (files, real and symbolically linked subfolders, linked
files, manifests in the folder, in its subfolders and in a folder outside) and the manifests' contents
(plain names, ``..``, absolute paths, paths through links, malformed entries, entries carrying the real
size and sha256 of files outside, malformed manifests), then one :func:`atomic_dir` write, pruning or not,
with or without ``--force``. Whatever happens (the write succeeds or is refused), the tree outside the
output folder has the same names, bytes, link targets and modification times as before.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
import warnings
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from benchsift._fileio import MANIFEST, allow_overwrite, atomic_dir
from benchsift.errors import BenchsiftWarning, InputError

#: the files outside the output folder ``out`` (paths relative to the folder that holds ``out``)
OUTSIDE = {"victim.txt": b"the user's file\n", "outside/deep.csv": b"a,b\n1,2\n", "outside/x.csv": b"x\n"}

#: what may stand inside ``out`` before the write: (kind, path)
PLACED = [
    ("file", "a.csv"),
    ("file", "old.csv"),
    ("file", "victim.txt"),
    ("file", "sub/old.csv"),
    ("file", "figures/old.png"),
    ("dir", "sub"),
    ("dir", "figures"),
    ("dirlink", "link"),
    ("dirlink", "sub"),
    ("dirlink", "figures"),
    ("filelink", "a.csv"),
    ("filelink", "old.csv"),
]

#: manifest keys worth trying (ABS: the absolute path of a file outside, filled in per example)
KEYS = [
    "a.csv",
    "old.csv",
    "victim.txt",
    "deep.csv",
    "x.csv",
    "../victim.txt",
    "../outside/deep.csv",
    "../../victim.txt",
    "link/victim.txt",
    "link/deep.csv",
    "sub/old.csv",
    "./victim.txt",
    "sub/../../victim.txt",
    "..\\victim.txt",
    "ABS:victim.txt",
    "ABS:outside/deep.csv",
    "",
    ".",
    "..",
    MANIFEST,
]

#: what a manifest entry carries: the real size and sha256 of the file its key names (the file found by
#: following the key from the manifest's folder, links and all; else the victim's), of one of these files,
#: or garbage
ENTRY_OF = ["real", "real", "real", "victim.txt", "outside/deep.csv", "inside", "garbage"]

RAW = [
    "[",
    "[]",
    '{"files": []}',
    '{"files": {"../victim.txt": 5}}',
    "DEEP",  # 200,000 nested lists (made in _build: a repr that long would make hypothesis warn)
    "\udcff\udcfe not utf-8",
]

#: what the write produces
WRITTEN = ["a.csv", "b.json", "figures/f.png", "sub/x.csv", "link/y.csv"]


def _digest(data: bytes) -> dict[str, Any]:
    return {"size": len(data), "sha256": hashlib.sha256(data).hexdigest()}


@st.composite
def layouts(draw: st.DrawFn) -> dict[str, Any]:
    placed = draw(st.lists(st.sampled_from(PLACED), max_size=6, unique_by=lambda t: t[1].split("/")[0]))
    keys = draw(st.lists(st.sampled_from(KEYS), max_size=10, unique=True))
    keys += draw(st.lists(st.text(max_size=8).filter(lambda k: k not in keys), max_size=2, unique=True))
    entries = {k: draw(st.sampled_from(ENTRY_OF)) for k in keys}
    return {
        "placed": placed,
        "entries": entries,
        "inside_bytes": draw(
            st.sampled_from([b"mine\n", OUTSIDE["victim.txt"], OUTSIDE["outside/deep.csv"]])
        ),
        "where": draw(st.lists(st.sampled_from(["out", "out/sub", "out/figures", "outside"]), min_size=1)),
        "raw": draw(st.sampled_from([None, None, None, None, *RAW])),
        "writes": draw(st.lists(st.sampled_from(WRITTEN), min_size=1, unique=True)),
        "prune": draw(st.booleans()),
        "force": draw(st.booleans()),
    }


def _build(base: Path, lay: dict[str, Any]) -> Path:
    for rel, data in OUTSIDE.items():
        (base / rel).parent.mkdir(parents=True, exist_ok=True)
        (base / rel).write_bytes(data)
    out = base / "out"
    out.mkdir()
    for kind, rel in lay["placed"]:
        p = out / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        if kind == "file":
            p.write_bytes(lay["inside_bytes"])
        elif kind == "dir":
            p.mkdir(exist_ok=True)
        elif kind == "dirlink":
            p.symlink_to(base / "outside" if rel != "link" else base, target_is_directory=True)
        else:
            p.symlink_to(base / "victim.txt")
    text = lay["raw"]
    text = "[" * 200_000 + "]" * 200_000 if text == "DEEP" else text
    for where in lay["where"]:
        folder = base / where
        if folder.is_dir() and not (folder / MANIFEST).is_symlink():
            (folder / MANIFEST).write_text(
                text if text is not None else json.dumps({"files": _entries(base, folder, lay)}),
                encoding="utf-8",
                errors="surrogateescape",
            )
    return out


def _entries(base: Path, folder: Path, lay: dict[str, Any]) -> dict[str, Any]:
    files: dict[str, Any] = {}
    for key, of in lay["entries"].items():
        name = str(base / key.removeprefix("ABS:")) if key.startswith("ABS:") else key
        if of == "real":
            try:
                named = (folder / name).read_bytes() if name else b""
            except (OSError, ValueError):
                named = OUTSIDE["victim.txt"]
            files[name] = _digest(named)
        elif of == "garbage":
            files[name] = {"size": "12", "sha256": None}
        elif of == "inside":
            files[name] = _digest(lay["inside_bytes"])
        else:
            files[name] = _digest(OUTSIDE[of])
    return files


def _outside(base: Path) -> dict[str, Any]:
    """Every path under ``base`` but ``out``'s contents: kind, bytes or link target, mtime (ns)."""
    snap: dict[str, Any] = {}
    for dirpath, dirnames, filenames in os.walk(base):
        here = Path(dirpath)
        if here == base / "out" or base / "out" in here.parents:
            dirnames[:] = []
            continue
        for name in dirnames + filenames:
            p = here / name
            st_ = os.lstat(p)
            rel = p.relative_to(base).as_posix()
            if p.is_symlink():
                snap[rel] = ("link", os.readlink(p), st_.st_mtime_ns)
            elif p.is_dir():
                snap[rel] = ("dir", None, st_.st_mtime_ns if rel != "out" else None)
            else:
                snap[rel] = ("file", p.read_bytes(), st_.st_mtime_ns)
    return snap


def _write(out: Path, lay: dict[str, Any]) -> None:
    with allow_overwrite(lay["force"]), atomic_dir(out, prune=lay["prune"]) as tmp:
        for rel in lay["writes"]:
            (tmp / rel).parent.mkdir(parents=True, exist_ok=True)
            (tmp / rel).write_bytes(f"new {rel}\n".encode())


@settings(
    max_examples=150,
    derandomize=True,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(layouts())
def test_no_file_outside_the_output_folder_is_ever_touched(lay: dict[str, Any]) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        base = Path(tmp)
        out = _build(base, lay)
        before = _outside(base)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", BenchsiftWarning)
            try:
                _write(out, lay)
            except InputError:
                pass
        assert _outside(base) == before
        left = [p for p in base.rglob("*.tmp")]
        assert not left, left


def test_an_ignored_entry_is_a_warning_a_notebook_shows(tmp_path: Path) -> None:
    (tmp_path / "victim.txt").write_bytes(OUTSIDE["victim.txt"])
    out = tmp_path / "out"
    out.mkdir()
    entry = _digest(OUTSIDE["victim.txt"])
    (out / MANIFEST).write_text(json.dumps({"files": {"victim.txt": entry, "../victim.txt": entry}}))
    with pytest.warns(BenchsiftWarning, match=r"1 entry \['\.\./victim\.txt'\] is not a plain file name"):
        _write(out, {"force": False, "prune": True, "writes": ["a.csv"]})
    assert (tmp_path / "victim.txt").read_bytes() == OUTSIDE["victim.txt"]
    assert json.loads((out / MANIFEST).read_text())["files"].keys() == {"a.csv"}


def test_a_file_benchsift_wrote_is_still_pruned(tmp_path: Path) -> None:
    """The positive control: a stale file of an earlier run (a valid entry, unchanged) is removed, a file
    the user changed since is kept."""
    out = tmp_path / "out"
    _write(out, {"force": False, "prune": True, "writes": ["a.csv", "b.json", "figures/f.png"]})
    (out / "b.json").write_text("edited by the user\n")
    _write(out, {"force": False, "prune": True, "writes": ["sub/x.csv"]})
    assert sorted(p.relative_to(out).as_posix() for p in out.rglob("*") if p.is_file()) == [
        MANIFEST,
        "b.json",
        f"figures/{MANIFEST}",
        "figures/f.png",
        f"sub/{MANIFEST}",
        "sub/x.csv",
    ]
