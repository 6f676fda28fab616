"""Remove an SQLite response cache that a stage created and nobody used, and only then.

A ``prism`` stage that created a new cache file and stored nothing in it (bad input found after the cache was
opened, an endpoint that refused every connection) removes the file, so that a failed run leaves nothing
behind. Before, "this process created it and holds no row" was taken to mean "nobody uses it": a second run
started on the same new ``--cache`` while the first was still going lost every answer it paid for (an
outside audit: 277 of 277, written into the removed file's inode, and paid again by the rerun).

Now the file is removed only under SQLite's own proof that no connection of any process has it open: a
connection in ``locking_mode=EXCLUSIVE`` takes the database file's exclusive lock, which every open
connection of a WAL database blocks (it holds a shared lock on the file for as long as it is open, from its
first read), without waiting (``timeout=0``). That connection opens the file through a hard link of its own
(POSIX locks belong to the file, not to its name), so that its own ``-wal``, which SQLite deletes by name when
it closes, is never the ``-wal`` of a cache a new run has just created under the old name. Under the lock the
responses are counted (and a ``-wal`` left by a killed run keeps the file: it may hold answers), and the
files are unlinked while the lock is held. What is left: a process that opens the file within the few
milliseconds the lock is held waits on it, then reads the removed (empty) file.
"""

from __future__ import annotations

import os
import sqlite3
import tempfile
import urllib.parse
from pathlib import Path

__all__ = ["remove_if_unused"]

_SUFFIXES = ("", "-wal", "-shm", "-journal")


def remove_if_unused(path: str | Path) -> bool:
    """Remove the SQLite cache ``path`` (with its ``-wal``, ``-shm`` and ``-journal``) when no connection has
    it open and it holds no response; returns whether it was removed. Anything else (another process has it
    open, a response or a killed run's ``-wal`` in it, the file missing or unreadable, no hard links on its
    file system) keeps every file as it is."""
    path = Path(path)
    if not path.is_file() or path.is_symlink():
        return False
    fd, name = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".removing", dir=path.parent)
    os.close(fd)
    own = Path(name)
    try:
        own.unlink()
        os.link(path, own)  # the same file under a name of its own (its -wal is own-wal, not path-wal)
    except OSError:
        own.unlink(missing_ok=True)
        return False
    try:
        return _remove_under_lock(path, own)
    finally:
        for suffix in _SUFFIXES:
            Path(f"{own}{suffix}").unlink(missing_ok=True)


def _remove_under_lock(path: Path, own: Path) -> bool:
    try:
        conn = sqlite3.connect(
            f"file:{urllib.parse.quote(str(own.resolve()))}?mode=rw",
            uri=True,
            timeout=0,
            isolation_level=None,
        )
    except sqlite3.Error:
        return False
    try:
        conn.execute("PRAGMA locking_mode=EXCLUSIVE")
        conn.execute("BEGIN EXCLUSIVE")  # refused at once while another connection has the file open
        if not os.path.samefile(path, own) or _holds_bytes(Path(f"{path}-wal")):
            return False  # replaced meanwhile, or a killed run's log (answers not yet in the file)
        if conn.execute("SELECT COUNT(*) FROM responses").fetchone()[0]:
            return False
        for suffix in _SUFFIXES:  # under the lock: nobody can start reading it now
            Path(f"{path}{suffix}").unlink(missing_ok=True)
        return True
    except (sqlite3.Error, OSError):
        return False
    finally:
        conn.close()


def _holds_bytes(path: Path) -> bool:
    try:
        return path.stat().st_size > 0
    except FileNotFoundError:
        return False
