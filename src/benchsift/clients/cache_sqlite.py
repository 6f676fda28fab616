"""The SQLite backend of the response cache (the default: one file, one machine; WAL journal).

The statements and the lease rules are :class:`benchsift.clients.cache.ResponseCache`'s; this backend gives
the connection (refusing a path that is not a benchsift cache), ``BEGIN IMMEDIATE`` transactions over the
whole file and SQLite's clock.

What the file or its machine refuses is one line naming the file (``InputError``, exit 2), on opening it
and under any statement after (:meth:`SQLiteCache._cache_error`): a full file system (``SQLITE_FULL``: the
transaction is rolled back, the answers committed before stay, a rerun resumes), a file or folder that cannot
be written (``SQLITE_READONLY``, or ``SQLITE_CANTOPEN`` where the file, its ``-wal``/``-shm`` or its folder is
not writable: a read-only mount, no permission), and only a damaged file (``SQLITE_CORRUPT``,
``SQLITE_NOTADB``) is called corrupt.
"""

from __future__ import annotations

import os
import sqlite3
import tempfile
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from benchsift.clients.base import Request, Response, canonical_json
from benchsift.clients.cache import _CHUNK, DEFAULT_LEASE_TTL, Claim, ResponseCache, _other_live_lease
from benchsift.errors import InputError

__all__ = ["SQLiteCache"]

_SCHEMA = """
CREATE TABLE IF NOT EXISTS responses (
    key TEXT PRIMARY KEY,
    endpoint TEXT NOT NULL,
    request TEXT NOT NULL,
    response TEXT NOT NULL,
    created REAL NOT NULL
)
"""

#: The leases of new caches are a WITHOUT ROWID table: a claim and a store each change one b-tree instead
#: of the table and its key index (one WAL page less per transaction; issue 36: ``write_batch`` of 2,000
#: requests, SQLite 3.40, CPU per request 53-55 -> 47 us at one request per transaction, 29 -> 28 us at
#: four). A cache made before keeps its rowid table; the statements are the same for both.
_LEASES = """
CREATE TABLE IF NOT EXISTS leases (
    key TEXT PRIMARY KEY,
    owner TEXT NOT NULL,
    expires REAL NOT NULL
) WITHOUT ROWID
"""

#: The columns of each table of a cache file, checked before a file is used (a user's own database is
#: never changed).
_COLUMNS = {
    "responses": {"key", "endpoint", "request", "response", "created"},
    "leases": {"key", "owner", "expires"},
}

#: The connection's busy timeout in milliseconds (``sqlite3.connect(timeout=30.0)``): a transaction that
#: finds the file locked by another connection waits this long for it.
_BUSY_MS = 30_000

#: Commits after which the connection checkpoints its WAL into the database file (its own automatic
#: checkpoint is off: a commit run on an event loop must not wait for the checkpoint's two fsyncs, so
#: :class:`~benchsift.clients.cache_worker.CacheWorker` runs the checkpoint on its thread, and every other
#: commit runs it in place once due). 200 commits of a run are 706 WAL pages at one request per commit and
#: 1,427 at three (the run's typical batches), about SQLite's default automatic checkpoint (1,000 pages).
_CHECKPOINT_EVERY = 200


class _Busy(Exception):
    """The file's write lock is held by another connection (a transaction that must not wait)."""


_SQLITE_MAGIC = b"SQLite format 3\x00"  # the 16-byte header string of every SQLite 3 database file


def _check_cache_file(path: Path) -> None:
    """Refuse a cache path that is a directory, an empty file or not an SQLite database (one line each).

    An empty file would otherwise open as a new, empty database and silently re-send every request.
    """
    if not path.exists():
        return
    if path.is_dir():
        raise InputError(f"{path}: is a directory, expected a response cache file")
    with open(path, "rb") as fh:
        head = fh.read(len(_SQLITE_MAGIC))
    if not head:
        raise InputError(f"{path}: empty file, not a response cache (delete it to start a new cache)")
    if head != _SQLITE_MAGIC:
        raise InputError(f"{path}: not an SQLite file, so not a response cache")


def _create_cache_file(path: Path) -> bool:
    """Create an empty cache at ``path`` atomically: built under a temporary name, then hard-linked into
    place unless another process got there first. Returns whether this call created it.

    A plain ``sqlite3.connect`` leaves a 0-byte file until its first write, and a process opening the cache
    at that moment (several ``prism run`` started at once on a new cache) would refuse it as empty.
    """
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".new", dir=path.parent)
    os.close(fd)
    try:
        conn = sqlite3.connect(tmp, isolation_level=None)
        try:
            conn.execute("PRAGMA journal_mode=WAL")
            conn.execute(_SCHEMA)
            conn.execute(_LEASES)
        finally:
            conn.close()
        try:
            os.link(tmp, path)
        except FileExistsError:
            return False
        except OSError:  # no hard links here: the plain connect below creates it
            return True
        return True
    finally:
        for suffix in ("", "-wal", "-shm"):
            Path(f"{tmp}{suffix}").unlink(missing_ok=True)


class SQLiteCache(ResponseCache):
    """A file of cached responses (SQLite, WAL mode). Safe across threads and processes of one machine.

    Parameters
    ----------
    path
        The SQLite file (created with its folder when missing).
    lease_ttl
        Seconds a lease on an in-flight request lives without renewal (see the module docstring).
    """

    # SQLite's wall clock (julianday('now') is UTC days since -4713-11-24 12:00, in milliseconds)
    _now_sql = "((julianday('now') - 2440587.5) * 86400.0)"
    # a renewal or a close that fails (the driver's error, or what _run made of it) is retried or skipped
    _errors = (sqlite3.Error, InputError)

    def __init__(self, path: str | os.PathLike[str], *, lease_ttl: float = DEFAULT_LEASE_TTL) -> None:
        super().__init__(path, lease_ttl=lease_ttl)
        self.path = Path(path)
        self.created = not self.path.exists()
        _check_cache_file(self.path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        try:
            if self.created:
                self.created = _create_cache_file(self.path)
            self._conn = self._connect(busy_ms=_BUSY_MS)  # its first statements read the file's header
        except sqlite3.Error as err:
            raise self._refusal(err) from None
        try:
            self._check_tables()
            self._conn.execute("PRAGMA journal_mode=WAL")  # a setting of the file, kept
            self._conn.execute(_SCHEMA)
            self._conn.execute(_LEASES)
            self._conn.execute("SELECT COUNT(*) FROM responses").fetchone()
            self._conn_now = self._connect(busy_ms=0)
        except sqlite3.Error as err:
            self._conn.close()
            raise self._refusal(err) from None
        except BaseException:
            self._conn.close()
            raise
        #: the connection of the transaction in progress (the one its statements run on)
        self._cur = self._conn
        #: commits since the last checkpoint (_CHECKPOINT_EVERY)
        self._commits = 0

    def _cache_error(self, err: sqlite3.Error) -> InputError | None:
        """The one line (naming the file) of an SQLite error that is the file's or its machine's, not a bug:
        a full file system, a file or folder that cannot be written, a file that cannot be opened, a
        damaged file; ``None`` for any other error (``SQLITE_BUSY`` among them: :meth:`_transaction`
        needs it)."""
        code = getattr(err, "sqlite_errorcode", None)
        primary = code & 0xFF if isinstance(code, int) else None  # the extended codes share the low byte
        if primary == sqlite3.SQLITE_FULL:
            return InputError(
                f"{self.path}: the response cache cannot be written: its file system is full ({err}); the "
                "answers stored before stay (free some space and rerun to resume)"
            )
        if primary == sqlite3.SQLITE_READONLY or (primary == sqlite3.SQLITE_CANTOPEN and self._read_only()):
            return InputError(
                f"{self.path}: the response cache cannot be written (a read-only file or folder: {err})"
            )
        if primary == sqlite3.SQLITE_CANTOPEN:
            return InputError(f"{self.path}: cannot open the response cache ({err})")
        if primary in (sqlite3.SQLITE_CORRUPT, sqlite3.SQLITE_NOTADB):
            return InputError(f"{self.path}: corrupt response cache ({err})")
        return None

    def _refusal(self, err: sqlite3.Error) -> InputError:
        """The one line of an SQLite error on opening the file: :meth:`_cache_error`'s; else "corrupt" for a
        ``DatabaseError`` that is not an ``OperationalError`` (a file SQLite cannot read as a database),
        "cannot open" for the rest (a lock held past the busy timeout)."""
        known = self._cache_error(err)
        if known is not None:
            return known
        if isinstance(err, sqlite3.DatabaseError) and not isinstance(err, sqlite3.OperationalError):
            return InputError(f"{self.path}: corrupt response cache ({err})")
        return InputError(f"{self.path}: cannot open the response cache ({err})")

    def _read_only(self) -> bool:
        """Whether this process cannot write the cache file, its ``-wal`` or ``-shm``, or its folder (where
        SQLite reports only "unable to open database file"): a read-only mount, or no permission."""
        paths = [self.path.parent, self.path, Path(f"{self.path}-wal"), Path(f"{self.path}-shm")]
        return any(p.exists() and not os.access(p, os.W_OK) for p in paths)

    def _check_tables(self) -> None:
        """Refuse, before any statement that changes the file, an SQLite file whose tables are not a
        cache's: only ``responses`` and ``leases`` (SQLite's own ``sqlite_*`` aside), each with the cache's
        columns. A user's database that happens to hold a ``responses`` table of other columns was turned
        to WAL and given a ``leases`` table, then the run failed (exit 70). A file without tables is a new
        cache (``_create_cache_file`` where hard links fail)."""
        rows = self._conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'").fetchall()
        tables = {r[0] for r in rows if not str(r[0]).startswith("sqlite_")}
        if not tables:
            return
        if "responses" not in tables or tables - set(_COLUMNS):
            others = sorted(tables - set(_COLUMNS))[:3]
            raise InputError(
                f"{self.path}: an SQLite file but not a benchsift response cache (its tables: "
                f"{', '.join(sorted(tables)[:5])}{', ...' if len(tables) > 5 else ''}"
                f"{'; ' + ', '.join(others) + ' not a cache table' if others else ''}); nothing changed"
            )
        for table in sorted(tables):
            columns = {r[1] for r in self._conn.execute(f"PRAGMA table_info({table})")}
            if columns != _COLUMNS[table]:
                raise InputError(
                    f"{self.path}: table {table!r} has columns {sorted(columns)}, not a benchsift response "
                    f"cache's {sorted(_COLUMNS[table])}; nothing changed"
                )

    def _connect(self, busy_ms: int) -> sqlite3.Connection:
        """A connection to the file waiting at most ``busy_ms`` for a lock held by another connection.

        The cache has two: one waiting :data:`_BUSY_MS` for every call, one that never waits for
        :meth:`try_write_batch` (its busy timeout is set once: a ``PRAGMA busy_timeout`` before and after
        each transaction cost 13 us each, 18 us per request of a run, issue 36). Each checkpoints only when
        told (:data:`_CHECKPOINT_EVERY`)."""
        conn = sqlite3.connect(
            self.path, timeout=busy_ms / 1000, check_same_thread=False, isolation_level=None
        )
        try:
            conn.execute("PRAGMA synchronous=NORMAL")
            conn.execute("PRAGMA wal_autocheckpoint=0")
        except BaseException:
            conn.close()
            raise
        return conn

    def _run(self, sql: str, params: Sequence[Any]) -> list[tuple[Any, ...]]:
        try:
            return self._cur.execute(sql, params).fetchall()
        except sqlite3.Error as err:
            known = self._cache_error(err)
            if known is None:
                raise
            raise known from None

    def _run_many(self, sql: str, rows: Sequence[Sequence[Any]]) -> None:
        try:
            self._cur.executemany(sql, rows)
        except sqlite3.Error as err:
            known = self._cache_error(err)
            if known is None:
                raise
            raise known from None

    def _claim_rest(self, keys: list[str]) -> dict[str, Response | Claim]:
        """Claim ``keys`` in one ``BEGIN IMMEDIATE`` transaction, each by :meth:`ResponseCache.claim`'s rule
        (:meth:`_claim_locked`)."""
        with self._lock:
            with self._transaction():
                out = self._claim_locked(keys)
            if "claimed" in out.values():
                self._start_renewal()
        return out

    def write_batch(
        self,
        rows: Sequence[tuple[str, str, Request, Response]],
        released: Sequence[str],
        keys: Sequence[str],
    ) -> dict[str, Response | Claim]:
        """:meth:`ResponseCache.write_batch` in one ``BEGIN IMMEDIATE`` transaction: the stores, the
        released leases, then the claims (:meth:`_claim_locked`), committed together, so a batch of a busy
        run costs one commit instead of up to three. The claims take no read first (the transaction holds
        the write lock for the stores anyway)."""
        out = self._batch(rows, released, keys, wait=True)
        assert out is not None  # a waiting batch always runs
        return out

    def try_write_batch(
        self,
        rows: Sequence[tuple[str, str, Request, Response]],
        released: Sequence[str],
        keys: Sequence[str],
    ) -> dict[str, Response | Claim] | None:
        """:meth:`write_batch` if it can run without waiting, else ``None`` (nothing done).

        It waits for nothing: not for this object's lock (held by the lease renewal or another thread's
        call), and not for the file's write lock (held by another connection: the transaction runs on the
        cache's second connection, whose busy timeout is 0). Inside the transaction nothing else waits: in
        WAL mode the write lock is the only lock a writer takes, and the commit runs no checkpoint
        (:data:`_CHECKPOINT_EVERY`); a statement that still finds a lock rolls the batch back (``None``).
        """
        return self._batch(rows, released, keys, wait=False)

    def _batch(
        self,
        rows: Sequence[tuple[str, str, Request, Response]],
        released: Sequence[str],
        keys: Sequence[str],
        wait: bool,
    ) -> dict[str, Response | Claim] | None:
        """:meth:`write_batch` (``wait``) or :meth:`try_write_batch`: ``None`` when it would have waited."""
        values = [(k, e, q.canonical, canonical_json(r.to_dict())) for k, e, q, r in rows]
        if not self._lock.acquire(blocking=wait):
            return None
        try:
            try:
                with self._transaction(wait=wait):
                    out = self._write_locked(values, released, keys)
            except _Busy:
                return None
            if "claimed" in out.values():
                self._start_renewal()
            return out
        finally:
            self._lock.release()

    @property
    def checkpoint_due(self) -> bool:
        """Whether :data:`_CHECKPOINT_EVERY` commits were made since the last checkpoint."""
        return self._commits >= _CHECKPOINT_EVERY

    def checkpoint(self) -> None:
        """Copy the WAL's committed pages into the database file (``PRAGMA wal_checkpoint(PASSIVE)``: it
        waits for no reader or writer, and copies what it can)."""
        with self._lock:
            self._checkpoint()

    def _checkpoint(self) -> None:
        try:
            self._conn.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchall()
        except sqlite3.Error as err:
            known = self._cache_error(err)
            if known is None:
                raise
            raise known from None
        self._commits = 0

    def _write_locked(
        self, values: Sequence[tuple[str, str, str, str]], released: Sequence[str], keys: Sequence[str]
    ) -> dict[str, Response | Claim]:
        """The body of :meth:`write_batch` (``self._lock`` and the transaction held)."""
        self._put_rows(values)
        self._execute_many(
            "DELETE FROM leases WHERE key = ? AND owner = ?", [(k, self.owner) for k in released]
        )
        todo = list(dict.fromkeys(keys))
        out: dict[str, Response | Claim] = {}
        for start in range(0, len(todo), _CHUNK):
            out.update(self._claim_locked(todo[start : start + _CHUNK]))
        return out

    def _claim_locked(self, keys: list[str]) -> dict[str, Response | Claim]:
        """Claim ``keys`` (distinct, at most ``_CHUNK``) inside a ``BEGIN IMMEDIATE`` transaction (the
        caller holds ``self._lock`` and the transaction).

        The transaction holds the whole file, so it equals :meth:`claim` on each key in turn with nothing
        in between: insert the lease rows that are absent, read the keys' lease rows and answers (one
        join), then per key: answered (drop a lease of this owner), held by another live owner, or claimed
        (a lease of an expired or dead owner taken over).
        """
        out: dict[str, Response | Claim] = {}
        if not keys:
            return out
        marks = ", ".join("?" * len(keys))
        self._execute_many(
            "INSERT INTO leases (key, owner, expires) VALUES (?, ?, {now} + ?) ON CONFLICT (key) DO NOTHING",
            [(k, self.owner, self.lease_ttl) for k in keys],
        )
        rows = self._execute(
            "SELECT l.key, l.owner, l.expires, {now}, r.response FROM leases AS l "
            f"LEFT JOIN responses AS r ON r.key = l.key WHERE l.key IN ({marks})",
            keys,
        )
        leases = {k: (o, e, now, answer) for k, o, e, now, answer in rows}
        drop: list[tuple[str, str]] = []
        take: list[tuple[str, float, str]] = []
        for key in keys:
            owner, expires, now, answer = leases[key]  # inserted above, and nothing ran in between
            if answer is not None:
                if owner == self.owner:
                    drop.append((key, self.owner))
                out[key] = self._answer(answer)
            elif _other_live_lease(self.owner, owner, expires, now):
                out[key] = "held"
            else:
                if owner != self.owner:  # an expired or dead owner's lease: take it over
                    take.append((self.owner, self.lease_ttl, key))
                out[key] = "claimed"
        self._execute_many("DELETE FROM leases WHERE key = ? AND owner = ?", drop)
        self._execute_many("UPDATE leases SET owner = ?, expires = {now} + ? WHERE key = ?", take)
        return out

    @contextmanager
    def _transaction(self, wait: bool = True) -> Iterator[None]:
        """``BEGIN IMMEDIATE`` (the file's write lock at once: the transaction is exclusive) ... ``COMMIT``.

        ``wait=False`` runs it on the connection that never waits (:meth:`_connect`) and raises
        :class:`_Busy`, with nothing done, where a statement of it found the file locked by another
        connection. A commit with ``wait`` runs the checkpoint once due (:data:`_CHECKPOINT_EVERY`); one
        without it leaves it to the caller (:attr:`checkpoint_due`). A statement that fails rolls the whole
        transaction back; a failure of the file or its machine, the BEGIN and the COMMIT included, is
        :meth:`_cache_error`'s one line."""
        conn = self._conn if wait else self._conn_now
        try:
            conn.execute("BEGIN IMMEDIATE")
            self._cur = conn
            try:
                yield
                conn.execute("COMMIT")
            except BaseException:
                if conn.in_transaction:  # (SQLite may have rolled it back itself: SQLITE_FULL)
                    conn.execute("ROLLBACK")
                raise
            finally:
                self._cur = self._conn
        except sqlite3.Error as err:
            code = getattr(err, "sqlite_errorcode", None)
            if not wait and isinstance(code, int) and code & 0xFF == sqlite3.SQLITE_BUSY:  # and its extended
                raise _Busy(str(err)) from None
            known = self._cache_error(err)
            if known is None:
                raise
            raise known from None
        self._commits += 1
        if wait and self._commits >= _CHECKPOINT_EVERY:
            self._checkpoint()

    def _disconnect(self) -> None:
        self._conn_now.close()
        self._conn.close()
