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
"""

from __future__ import annotations

import asyncio
import json
import os
import sqlite3
import threading
import time
from pathlib import Path

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
    """A file of cached responses (SQLite, WAL mode). Safe across threads and processes."""

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = Path(path)
        #: whether this object created the file (a caller may remove a new cache that stayed empty)
        self.created = not self.path.exists()
        _check_cache_file(self.path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._lock = threading.Lock()
        self._conn = sqlite3.connect(self.path, timeout=30.0, check_same_thread=False, isolation_level=None)
        try:
            tables = {r[0] for r in self._conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
            if tables and "responses" not in tables:
                raise InputError(f"{self.path}: an SQLite file but not a benchsift response cache")
            self._conn.execute("PRAGMA journal_mode=WAL")
            self._conn.execute("PRAGMA synchronous=NORMAL")
            self._conn.execute(_SCHEMA)
            self._conn.execute("SELECT COUNT(*) FROM responses").fetchone()
        except sqlite3.DatabaseError as err:
            self._conn.close()
            raise InputError(f"{self.path}: corrupt response cache ({err})") from None
        except BaseException:
            self._conn.close()
            raise

    def get(self, key: str) -> Response | None:
        with self._lock:
            row = self._conn.execute("SELECT response FROM responses WHERE key = ?", (key,)).fetchone()
        if row is None:
            return None
        return Response.from_dict(json.loads(row[0]), cached=True)

    def put(self, key: str, endpoint: str, request: Request, response: Response) -> None:
        """Store one response in its own committed transaction (first writer wins)."""
        with self._lock:
            self._conn.execute(
                "INSERT OR IGNORE INTO responses (key, endpoint, request, response, created) "
                "VALUES (?, ?, ?, ?, ?)",
                (
                    key,
                    endpoint,
                    request.canonical,
                    canonical_json(response.to_dict()),
                    time.time(),
                ),
            )

    def keys(self) -> set[str]:
        with self._lock:
            return {r[0] for r in self._conn.execute("SELECT key FROM responses")}

    def __len__(self) -> int:
        with self._lock:
            return int(self._conn.execute("SELECT COUNT(*) FROM responses").fetchone()[0])

    def close(self) -> None:
        with self._lock:
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
        try:
            resp = await self.inner.generate(request)
        except BaseException as err:
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
