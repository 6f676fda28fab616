"""A SQLite response cache: a rerun makes no calls, a killed run resumes where it stopped.

Key: ``Request.key(scope)``, the sha256 of the canonical request JSON (model id, messages with each
image as the sha256 of its data URL, max_tokens, temperature, top_p, extra request fields) and the
endpoint's cache scope (its base URL, plus its configured extra body fields when there are any:
``EndpointConfig.cache_scope``). Never part of the key or of anything stored: the API key, the HTTP
transport, timeouts, retry and concurrency settings. Stored requests have their image payloads replaced
by digests.

Durability: WAL journal, one transaction per response, committed as soon as the response arrives
(before the slot of the concurrency limit serves another request). Errors are never cached.
Concurrent requests with the same key share one call (single flight), so the q answer and the
turn-0 answer of the sc dialogue, which are the same request, are asked once even when scheduled
together.

What a run killed with SIGKILL and restarted guarantees, counted at the server: no request is lost
(every one is answered, by the server or from the cache), a request whose answer was committed is
never sent again, and the only requests sent twice are those in flight at the kill (sent, answer
not yet committed), at most the sum of the endpoints' concurrency limits. Exactly-once is not
possible from the client alone: a request in flight at the kill may or may not have reached the
server, and the client cannot tell which; journalling keys before sending would only turn those
repeats into lost answers. An endpoint that deduplicates by an idempotency key could remove them.

Processes sharing one cache (several ``prism run`` at once, on one machine): before sending, a process
takes a *lease* on the request key (table ``leases``: key, owner, expiry), in one ``BEGIN IMMEDIATE``
transaction that also checks the answer is not already stored, so at most one process holds a key at a
time. A process that finds a key leased by another does not send it: that request waits, polling the cache,
until the answer is committed (then it is a cache hit) or the lease is gone (the holder failed: the
request is claimed again and sent), while the process's other requests go on. The holder commits the answer
and drops the lease in one transaction; an error drops the lease, so a waiter takes over. A holder's
leases are renewed by a background thread every ``lease_ttl / 3`` seconds; a holder killed with SIGKILL
stops renewing, and its leases expire after ``lease_ttl`` (default 30 s), or at once when the owner is a
process of this machine that no longer exists (owner = host:pid:nonce). So over any set of processes run
at once on one cache, each distinct request is sent once, plus, after a kill, the requests the killed
process had in flight (the resume guarantee above is unchanged). Expiry compares wall clocks: processes
on different machines need synchronised clocks, and a shared SQLite file needs a local disk (WAL does
not work over NFS), so beyond one machine the cache belongs on a database server (README, "Sharing one
cache").
"""

from __future__ import annotations

import asyncio
import json
import os
import socket
import sqlite3
import threading
import time
import uuid
from pathlib import Path
from typing import Literal

from benchsift.clients.base import ClientStats, ModelClient, Request, Response, canonical_json
from benchsift.errors import InputError

__all__ = ["CachedClient", "ResponseCache"]

_SCHEMA = """
CREATE TABLE IF NOT EXISTS responses (
    key TEXT PRIMARY KEY,
    endpoint TEXT NOT NULL,
    request TEXT NOT NULL,
    response TEXT NOT NULL,
    created REAL NOT NULL
)
"""

_LEASES = """
CREATE TABLE IF NOT EXISTS leases (
    key TEXT PRIMARY KEY,
    owner TEXT NOT NULL,
    expires REAL NOT NULL
)
"""

#: Seconds a lease lives without renewal (the holder renews every third of it).
DEFAULT_LEASE_TTL = 30.0

Claim = Literal["claimed", "answered", "held"]


def _owner_gone(owner: str) -> bool:
    """True when ``owner`` (host:pid:nonce) names a process of this host that no longer runs."""
    host, _, rest = owner.partition(":")
    pid = rest.partition(":")[0]
    if host != socket.gethostname() or not pid.isdigit():
        return False
    try:
        os.kill(int(pid), 0)
    except ProcessLookupError:
        return True
    except PermissionError:  # alive, another user's
        return False
    return False


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


class ResponseCache:
    """A file of cached responses (SQLite, WAL mode). Safe across threads and processes.

    Parameters
    ----------
    path
        The SQLite file (created with its folder when missing).
    lease_ttl
        Seconds a lease on an in-flight request lives without renewal (see the module docstring).
    """

    def __init__(self, path: str | os.PathLike[str], *, lease_ttl: float = DEFAULT_LEASE_TTL) -> None:
        self.path = Path(path)
        #: whether this object created the file (a caller may remove a new cache that stayed empty)
        self.created = not self.path.exists()
        _check_cache_file(self.path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        if not lease_ttl > 0:
            raise ValueError(f"lease_ttl must be positive, got {lease_ttl!r}")
        self.lease_ttl = float(lease_ttl)
        self.owner = f"{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex[:12]}"
        self._lock = threading.Lock()
        self._conn = sqlite3.connect(self.path, timeout=30.0, check_same_thread=False, isolation_level=None)
        try:
            tables = {r[0] for r in self._conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
            if tables and "responses" not in tables:
                raise InputError(f"{self.path}: an SQLite file but not a benchsift response cache")
            self._conn.execute("PRAGMA journal_mode=WAL")
            self._conn.execute("PRAGMA synchronous=NORMAL")
            self._conn.execute(_SCHEMA)
            self._conn.execute(_LEASES)
            self._conn.execute("SELECT COUNT(*) FROM responses").fetchone()
        except sqlite3.DatabaseError as err:
            self._conn.close()
            raise InputError(f"{self.path}: corrupt response cache ({err})") from None
        except BaseException:
            self._conn.close()
            raise
        self._stop = threading.Event()
        self._renewer: threading.Thread | None = None

    def get(self, key: str) -> Response | None:
        with self._lock:
            row = self._conn.execute("SELECT response FROM responses WHERE key = ?", (key,)).fetchone()
        if row is None:
            return None
        return Response.from_dict(json.loads(row[0]), cached=True)

    def put(self, key: str, endpoint: str, request: Request, response: Response) -> None:
        """Store one response and drop its lease, in one committed transaction (first writer wins)."""
        row = (key, endpoint, request.canonical, canonical_json(response.to_dict()), time.time())
        with self._lock:
            self._conn.execute("BEGIN IMMEDIATE")
            try:
                self._conn.execute(
                    "INSERT OR IGNORE INTO responses (key, endpoint, request, response, created) "
                    "VALUES (?, ?, ?, ?, ?)",
                    row,
                )
                self._conn.execute("DELETE FROM leases WHERE key = ? AND owner = ?", (key, self.owner))
                self._conn.execute("COMMIT")
            except BaseException:
                self._conn.execute("ROLLBACK")
                raise

    def claim(self, key: str) -> Claim:
        """Take the lease on ``key`` unless its answer is stored or another live owner holds it.

        Returns ``"claimed"`` (send it, then :meth:`put` or :meth:`release`), ``"answered"`` (read it
        with :meth:`get`) or ``"held"`` (another process has it in flight: wait, then claim again). An
        expired lease, or one of a process of this host that no longer exists, is taken over.
        """
        now = time.time()
        with self._lock:
            self._conn.execute("BEGIN IMMEDIATE")
            try:
                if self._conn.execute("SELECT 1 FROM responses WHERE key = ?", (key,)).fetchone():
                    self._conn.execute("COMMIT")
                    return "answered"
                row = self._conn.execute("SELECT owner, expires FROM leases WHERE key = ?", (key,)).fetchone()
                if row is not None and row[0] != self.owner and row[1] > now and not _owner_gone(row[0]):
                    self._conn.execute("COMMIT")
                    return "held"
                self._conn.execute(
                    "INSERT OR REPLACE INTO leases (key, owner, expires) VALUES (?, ?, ?)",
                    (key, self.owner, now + self.lease_ttl),
                )
                self._conn.execute("COMMIT")
            except BaseException:
                self._conn.execute("ROLLBACK")
                raise
            if self._renewer is None:
                self._renewer = threading.Thread(
                    target=self._renew, name="benchsift-lease-renewal", daemon=True
                )
                self._renewer.start()
        return "claimed"

    def release(self, key: str) -> None:
        """Drop this process's lease on ``key`` (its request failed): a waiting process takes it over."""
        with self._lock:
            self._conn.execute("DELETE FROM leases WHERE key = ? AND owner = ?", (key, self.owner))

    def leases(self) -> dict[str, tuple[str, float]]:
        """Every lease in the file: key -> (owner, expiry as a Unix time)."""
        with self._lock:
            return {k: (o, e) for k, o, e in self._conn.execute("SELECT key, owner, expires FROM leases")}

    def _renew(self) -> None:
        while not self._stop.wait(self.lease_ttl / 3.0):
            try:
                with self._lock:
                    self._conn.execute(
                        "UPDATE leases SET expires = ? WHERE owner = ?",
                        (time.time() + self.lease_ttl, self.owner),
                    )
            except sqlite3.Error:  # closed under us, or busy past the timeout: retry at the next tick
                if self._stop.is_set():
                    return

    def keys(self) -> set[str]:
        with self._lock:
            return {r[0] for r in self._conn.execute("SELECT key FROM responses")}

    def __len__(self) -> int:
        with self._lock:
            return int(self._conn.execute("SELECT COUNT(*) FROM responses").fetchone()[0])

    def close(self) -> None:
        """Stop renewing, drop this process's leases and close the file."""
        self._stop.set()
        if self._renewer is not None:
            self._renewer.join()
        with self._lock:
            try:
                self._conn.execute("DELETE FROM leases WHERE owner = ?", (self.owner,))
            except sqlite3.Error:
                pass
            self._conn.close()


class CachedClient:
    """Wrap a client: answer from the cache when possible, store every successful response."""

    def __init__(
        self,
        inner: ModelClient,
        cache: ResponseCache | None,
        *,
        endpoint: str = "",
        stats: ClientStats | None = None,
    ) -> None:
        self.inner = inner
        self.cache = cache
        self.endpoint = endpoint
        self.stats = stats if stats is not None else ClientStats()
        self._in_flight: dict[str, asyncio.Future[Response]] = {}

    async def generate(self, request: Request) -> Response:
        key = request.key(self.endpoint)
        if self.cache is not None:
            hit = self.cache.get(key)
            if hit is not None:
                self.stats.cache_hits += 1
                return hit
        pending = self._in_flight.get(key)
        if pending is not None:
            self.stats.cache_hits += 1
            resp = await asyncio.shield(pending)
            return Response(**{**resp.__dict__, "cached": True})
        fut: asyncio.Future[Response] = asyncio.get_running_loop().create_future()
        self._in_flight[key] = fut
        claimed = False
        try:
            if self.cache is not None:
                shared = await self._lease(key)
                if shared is not None:  # another process sent it and committed its answer
                    self.stats.cache_hits += 1
                    fut.set_result(shared)
                    return shared
                claimed = True
            resp = await self.inner.generate(request)
        except BaseException as err:
            if claimed and self.cache is not None:
                self.cache.release(key)
            if not fut.done():
                if isinstance(err, Exception):
                    fut.set_exception(err)
                    fut.exception()  # mark retrieved: waiters re-raise it themselves
                else:
                    fut.cancel()
            raise
        else:
            if self.cache is not None:
                self.cache.put(key, self.endpoint, request, resp)
            fut.set_result(resp)
            return resp
        finally:
            self._in_flight.pop(key, None)

    async def _lease(self, key: str) -> Response | None:
        """Claim ``key`` across processes: ``None`` once claimed (send it), else the answer another process
        committed while this one waited (polling from 10 ms up to 0.5 s)."""
        assert self.cache is not None
        delay = 0.01
        while True:
            state = self.cache.claim(key)
            if state == "claimed":
                return None
            if state == "answered":
                hit = self.cache.get(key)
                if hit is not None:
                    return hit
                continue
            await asyncio.sleep(delay)
            delay = min(0.5, delay * 1.5)
