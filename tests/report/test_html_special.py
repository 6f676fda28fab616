"""``report DIR`` reads an existing ``DIR/index.html`` only when it is a regular file, and only its head
(security review s31, t07): a FIFO there used to block the command forever, a link to ``/dev/zero`` made it
read until memory ran out. Either is now refused in one line (benchsift writes only over a page it wrote),
exit 2, nothing written.

The FIFO test runs in this process behind a guard that unblocks a reader waiting on the FIFO after a few
seconds (a regression fails instead of hanging); the ``/dev/zero`` case runs the CLI in a child process
with an address-space cap and a timeout.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hostile import fifo, run_capped

from benchsift._fileio import atomic_path
from benchsift.errors import InputError
from benchsift.report.html import write_report

pytestmark = pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs (POSIX)")


def _folder(tmp_path: Path) -> Path:
    out = tmp_path / "out"
    with atomic_path(out / "a.csv") as tmp:
        tmp.write_text("x\n1\n")
    return out


def test_fifo_index_is_refused_not_waited_on(tmp_path: Path) -> None:
    out = _folder(tmp_path)
    with (
        fifo(out / "index.html"),
        pytest.raises(InputError, match=r"index\.html: is a FIFO, not a regular file"),
    ):
        write_report(out)
    assert sorted(p.name for p in out.iterdir()) == [".benchsift-manifest.json", "a.csv", "index.html"]


def test_device_index_is_refused_unread(tmp_path: Path) -> None:
    out = _folder(tmp_path)
    (out / "index.html").symlink_to("/dev/null")  # a device that reads empty: a regression returns at once
    want = r"index\.html: is a device, not a regular file; expected benchsift.s report page; move it away"
    with pytest.raises(InputError, match=want):
        write_report(out)
    assert (out / "index.html").is_symlink()


def test_regular_foreign_and_own_pages(tmp_path: Path) -> None:
    out = _folder(tmp_path)
    (out / "index.html").write_text("<html>mine</html>")
    with pytest.raises(InputError, match=r"index\.html: exists and was not written by benchsift"):
        write_report(out)
    (out / "index.html").unlink()
    first = write_report(out).read_text()
    assert write_report(out).read_text() == first  # its own page is written again


def test_cli_report_with_index_linked_to_dev_zero(tmp_path: Path) -> None:
    out = _folder(tmp_path)
    (out / "index.html").symlink_to("/dev/zero")
    res = run_capped(["report", str(out)], tmp_path, 3 << 30, timeout=60)
    err = res.stderr.strip()
    assert res.returncode == 2, err
    assert err.startswith("benchsift: error: ") and "\n" not in err, err
    assert "index.html: is a device, not a regular file" in err, err
    assert (out / "index.html").is_symlink()
