"""A new SQLite cache that a stage created and left empty is removed only when no process has it open.

Before, a ``prism run`` whose endpoint refused every connection removed the new cache it had created (with
its ``-wal`` and ``-shm``) while a second run on the same ``--cache`` was still writing into it: that run's
paid answers went into the removed file (an outside audit: 277 of 277 lost, paid again by the rerun). The
other process here is a real one holding the cache open, as a second ``prism run`` does.
"""

from __future__ import annotations

import json
import socket
import sqlite3
import subprocess
import sys
from pathlib import Path

from engine_world import prepare_run

from benchsift.clients.base import Request, Response
from benchsift.clients.cache_removal import remove_if_unused
from benchsift.clients.cache_sqlite import SQLiteCache
from benchsift.prism.engine import run

HOLD = """
import sys
from benchsift.clients.cache_sqlite import SQLiteCache
cache = SQLiteCache(sys.argv[1])
print("open", flush=True)
sys.stdin.readline()
cache.close()
"""


class Holder:
    """Another process with the cache at ``path`` open, until the block ends."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def __enter__(self) -> Holder:
        self.proc = subprocess.Popen(
            [sys.executable, "-c", HOLD, str(self.path)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        assert self.proc.stdout is not None and self.proc.stdout.readline() == "open\n"
        return self

    def __exit__(self, *exc: object) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write("\n")
        self.proc.stdin.close()
        assert self.proc.wait(timeout=60) == 0
        assert self.proc.stdout is not None
        self.proc.stdout.close()


def _files(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir())


def _store_one(path: Path) -> None:
    cache = SQLiteCache(path)
    request = Request(model="m", messages=({"role": "user", "content": "2+2?"},))
    cache.put("k", "ep", request, Response(text="paid", finish_reason="stop"))
    cache.close()


def test_an_unused_empty_cache_is_removed(tmp_path: Path) -> None:
    SQLiteCache(tmp_path / "c.sqlite").close()
    assert remove_if_unused(tmp_path / "c.sqlite")
    assert _files(tmp_path) == []


def test_a_cache_another_process_has_open_is_kept(tmp_path: Path) -> None:
    path = tmp_path / "c.sqlite"
    SQLiteCache(path).close()
    with Holder(path):
        assert not remove_if_unused(path)
        assert "c.sqlite" in _files(tmp_path)
    assert remove_if_unused(path)  # once the other closed it
    assert _files(tmp_path) == []


def test_a_cache_with_an_answer_or_a_killed_runs_log_is_kept(tmp_path: Path) -> None:
    path = tmp_path / "c.sqlite"
    _store_one(path)
    assert not remove_if_unused(path)
    assert SQLiteCache(path).get("k") is not None
    # a -wal with frames left by a killed run may hold answers not yet in the file
    other = tmp_path / "d.sqlite"
    SQLiteCache(other).close()
    writer = sqlite3.connect(other)
    writer.execute("PRAGMA wal_autocheckpoint=0")
    writer.execute("INSERT INTO leases (key, owner, expires) VALUES ('x', 'y', 0)")
    writer.commit()
    wal = Path(f"{other}-wal")
    frames = wal.read_bytes()
    writer.close()  # the last connection checkpoints and removes its -wal: put the killed run's back
    wal.write_bytes(frames)
    assert not remove_if_unused(other)
    assert wal.read_bytes() == frames and other.exists()


def test_a_link_or_a_missing_file_is_left_alone(tmp_path: Path) -> None:
    real = tmp_path / "real.sqlite"
    SQLiteCache(real).close()
    link = tmp_path / "link.sqlite"
    link.symlink_to(real)
    assert not remove_if_unused(link)
    assert not remove_if_unused(tmp_path / "missing.sqlite")
    assert sorted(_files(tmp_path)) == ["link.sqlite", "real.sqlite"]


def _refused_url() -> str:
    with socket.socket() as s:  # a port nothing listens on once closed
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    return f"http://127.0.0.1:{port}/v1"


def test_a_failed_run_keeps_the_new_cache_another_run_is_using(world: dict, server, tmp_path: Path) -> None:
    cfg, items, arts = prepare_run(world, tmp_path, server.url, ["correct"], 2)
    cfg.write_text(cfg.read_text().replace(f'base_url = "{server.url}"', f'base_url = "{_refused_url()}"'))
    cache = tmp_path / "shared.sqlite"
    recs = tmp_path / "records.jsonl"
    # alone, the failed run removes the cache it created and left empty
    run(items, arts, cfg, recs, images=world["images"], axes=["q"], cache=cache)
    assert not cache.exists()
    assert all(not json.loads(x)["answered"] for x in recs.read_text().splitlines())
    # the same run, with another process opening the cache this run created while the run goes on (its
    # progress callback runs once the cache is open): the cache stays, and so does the other's answer
    holders: list[Holder] = []

    def open_elsewhere(done: int, total: int) -> None:
        if not holders:
            holders.append(Holder(cache).__enter__())

    try:
        run(items, arts, cfg, recs, images=world["images"], axes=["q"], cache=cache, progress=open_elsewhere)
        assert holders and cache.exists()
    finally:
        for h in holders:
            h.__exit__()
    assert cache.exists()
    _store_one(cache)  # and it is still the file every run opens
    assert SQLiteCache(cache).get("k") is not None
