"""The environment fails under a write (issue 32): a full disk (ENOSPC), a file-size limit (EFBIG), a
read-only file system (EROFS), no permission (EACCES), SIGTERM.

Each is made for real, around a real ``python -m benchsift`` process: a 8 KiB tmpfs mounted over the output
folder in a private mount namespace (``unshare``), ``RLIMIT_FSIZE``, a read-only bind mount of the output
folder, a folder without write permission (as root, the process runs as uid 1000 in a user namespace,
where permission bits apply to it). Three writers each time: ``simulate -o`` (one parquet file),
``compress --out`` (a folder of CSV, JSON, HTML) and ``prism score --out`` (CSV, JSON, figures). The checks
are the corpus's: exit code 2, one line ``benchsift: error: ...`` naming the output and the error, nothing
on stdout, nothing created or changed in the working directory (no ``.NAME.*.tmp`` either), the planted
file unchanged.

SIGTERM arrives while a write is in flight, deterministically: the process's :func:`os.replace` (the
standard library's, not benchsift's) sends it to itself just before the first file would be moved from
its temporary path onto the output. It must behave as SIGINT does: temporary files removed, nothing
created, exit code 128 + signal number (SIGINT: 130, SIGTERM: 143), nothing printed.
"""

from __future__ import annotations

import os
import resource
import shutil
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from corpus import FOREIGN, changed, snapshot

import benchsift

SRC = Path(benchsift.__file__).resolve().parents[1]
DEST = "dest"  # the output folder under the working directory (a mount point for ENOSPC and EROFS)

WRITERS = {
    "simulate": ["simulate", "-o", f"{DEST}/p.parquet", "--models", "6"],
    "compress": ["compress", "panel.parquet", "--out", f"{DEST}/suite", "--k", "2", "--json"],
    "score": ["prism", "score", "verdicts.csv", "--bootstrap", "50", "--out", f"{DEST}/res", "--json"],
}


def _world(tmp_path: Path, assets: dict[str, Path]) -> Path:
    work = tmp_path / "work"
    (work / DEST).mkdir(parents=True)
    shutil.copy(assets["panel"], work / "panel.parquet")
    shutil.copy(assets["verdicts"], work / "verdicts.csv")
    (work / "notes.md").write_text(FOREIGN)
    return work


def _env() -> dict[str, str]:
    return {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(SRC), os.environ.get("PYTHONPATH", "")]),
        "PYTHONDONTWRITEBYTECODE": "1",
        "COLUMNS": "200",
    }


def _run(work: Path, argv: list[str], wrap: list[str] = (), **kw: Any) -> subprocess.CompletedProcess[str]:  # type: ignore[assignment]
    cmd = [*wrap, sys.executable, "-m", "benchsift", *argv]
    return subprocess.run(cmd, cwd=work, env=_env(), capture_output=True, text=True, timeout=600, **kw)


def _in_namespace(script: str) -> list[str]:
    """Run the command after ``script`` in a private mount namespace (gone when the process ends); what
    is left in the output folder there is listed in ``../listing``."""
    body = f'{script} || exit 99; "$@"; rc=$?; ls -A {DEST} > ../listing; exit $rc'
    return ["unshare", "-rm", "sh", "-c", body, "sh"]


def _fsize(limit: int) -> Any:
    def apply() -> None:
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, resource.getrlimit(resource.RLIMIT_FSIZE)[1]))

    return apply


def _check_refused(
    work: Path, before: dict[str, Any], res: subprocess.CompletedProcess[str], code: str
) -> None:
    where = f"exit={res.returncode}\nstderr={res.stderr!r}\nstdout={res.stdout[-500:]!r}"
    created, modified, removed = changed(before, snapshot(work))
    assert res.returncode == 2, where
    err = res.stderr.strip()
    assert "\n" not in err and err.startswith("benchsift: error: "), where
    assert f"{DEST}" in err and f"[{code}]" in err and "nothing was written" in err, where
    assert res.stdout == "", where
    assert not created and not modified and not removed, (created, modified, removed)
    assert (work / "notes.md").read_text() == FOREIGN
    listing = work.parent / "listing"
    if listing.exists():  # what the namespace's mount held when the command ended
        assert listing.read_text() == "", listing.read_text()


@pytest.mark.parametrize("writer", list(WRITERS))
def test_full_disk(writer: str, tmp_path: Path, assets: dict) -> None:
    work = _world(tmp_path, assets)
    before = snapshot(work)
    res = _run(work, WRITERS[writer], _in_namespace(f"mount -t tmpfs -o size=8k tmpfs {DEST}"))
    _check_refused(work, before, res, "ENOSPC")


@pytest.mark.parametrize("writer", list(WRITERS))
def test_file_size_limit(writer: str, tmp_path: Path, assets: dict) -> None:
    import matplotlib.font_manager  # noqa: F401  (its cache exists before a process that could not write it)

    work = _world(tmp_path, assets)
    before = snapshot(work)
    res = _run(work, WRITERS[writer], preexec_fn=_fsize(4096))
    _check_refused(work, before, res, "EFBIG")


@pytest.mark.parametrize("writer", list(WRITERS))
def test_read_only_file_system(writer: str, tmp_path: Path, assets: dict) -> None:
    work = _world(tmp_path, assets)
    before = snapshot(work)
    ro = f"mount --bind {DEST} {DEST} && mount -o remount,ro,bind {DEST}"
    res = _run(work, WRITERS[writer], _in_namespace(ro))
    _check_refused(work, before, res, "EROFS")


@pytest.mark.parametrize("writer", list(WRITERS))
def test_no_write_permission(writer: str, tmp_path: Path, assets: dict) -> None:
    work = _world(tmp_path, assets)
    (work / DEST).chmod(0o555)
    before = snapshot(work)
    # root ignores permission bits: as root, run as uid 1000 of a user namespace (root's files are its own)
    wrap = ["unshare", "--user", "--map-user=1000", "--map-group=1000"] if os.geteuid() == 0 else []
    try:
        res = _run(work, WRITERS[writer], wrap)
    finally:
        (work / DEST).chmod(0o755)
    before[f"{DEST}/"] = None
    _check_refused(work, before, res, "EACCES")


#: a Python program: benchsift's CLI whose first rename of a temporary file is preceded by signal ARGV[1]
_SIGNAL_IN_WRITE = """
import os, signal, sys
sig = getattr(signal, sys.argv[1])
rename = os.replace
def replace(src, dst, *args, **kwargs):
    if ".tmp" in os.fspath(src):
        os.kill(os.getpid(), sig)
    return rename(src, dst, *args, **kwargs)
os.replace = replace
from benchsift.cli.main import main
sys.argv = ["benchsift", *sys.argv[2:]]
main()
"""


def _default_signals() -> None:
    """SIGINT and SIGTERM as a shell gives them to a command: a test suite started in the background (``&``
    in a script) inherits SIGINT ignored, and Python then leaves it ignored."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)


@pytest.mark.parametrize("writer", ["simulate", "compress", "import"])
def test_sigterm_in_a_write_is_sigint(writer: str, tmp_path: Path, assets: dict) -> None:
    argv = WRITERS.get(writer) or [
        "import",
        "wide",
        "wide.csv",
        "--benchmark",
        "B",
        "-o",
        f"{DEST}/p.parquet",
    ]
    outcomes = {}
    for sig in ("SIGINT", "SIGTERM"):
        work = _world(tmp_path / sig, assets)
        (work / "wide.csv").write_text("item,m1,m2,m3\ni1,1,0,1\ni2,0,0,1\ni3,1,1,1\n")
        before = snapshot(work)
        res = subprocess.run(
            [sys.executable, "-c", _SIGNAL_IN_WRITE, sig, *argv],
            cwd=work,
            env=_env(),
            capture_output=True,
            text=True,
            timeout=600,
            preexec_fn=_default_signals,
        )
        created, modified, removed = changed(before, snapshot(work))
        outcomes[sig] = (res.returncode, res.stdout, res.stderr.strip(), created, modified, removed)
    assert outcomes["SIGINT"] == (128 + signal.SIGINT, "", "", [], [], []), outcomes
    assert outcomes["SIGTERM"] == (128 + signal.SIGTERM, "", "", [], [], []), outcomes
