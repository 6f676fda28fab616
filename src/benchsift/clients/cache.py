"""A SQLite response cache: a rerun makes no calls, a killed run resumes where it stopped.

Key: ``Request.key(scope)``, the sha256 of the canonical request JSON (model id, messages with each
image as the sha256 of its data URL, max_tokens, temperature, top_p, extra request fields) and the
endpoint's cache scope (its base URL, plus its configured extra body fields when there are any:
``EndpointConfig.cache_scope``). Never part of the key or of anything stored: the API key, the HTTP
transport, timeouts, retry and concurrency settings. Stored requests have their image payloads replaced
by digests.

Durability: WAL journal, every response committed as soon as it arrives (before the slot of the
concurrency limit serves another request). A run's calls are batched per pass of its event loop
(:mod:`benchsift.clients.cache_worker`: on the loop when the file is free, else on one thread per cache),
which commits the responses that arrived together, and claims the keys asked together, in one transaction
(:meth:`ResponseCache.write_batch`, :meth:`ResponseCache.put_many`, :meth:`ResponseCache.claim_many`: the
same rules, key by key). Errors
are never cached.
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

Processes sharing one cache (several ``prism run`` at once): before sending, a process takes a *lease* on
the request key (table ``leases``: key, owner, expiry), in one transaction that holds the lease row locked
while it checks the answer is not already stored, so at most one process holds a key at a time. A
process that finds a key leased by another does not send it: that request waits, polling the cache, until
the answer is committed (then it is a cache hit) or the lease is gone (the holder failed: the
request is claimed again and sent), while the process's other requests go on. The holder commits the answer
and drops the lease in one transaction; an error drops the lease, so a waiter takes over. A holder's
leases are renewed by a background thread every ``lease_ttl / 3`` seconds; a holder killed with SIGKILL
stops renewing, and its leases expire after ``lease_ttl`` (default 30 s), or at once when the owner is a
process that provably ran on this kernel, in this PID namespace, and no longer exists (owner =
host:pid:nonce:boot id:PID namespace, :func:`_owner_gone`; a pid means nothing outside its namespace, so
the lease of a process of another container, machine or boot, or one written by an older benchsift, is only
ever taken over when it expires). So over any set of processes run at once on one cache, each distinct
request is sent once, plus, after a kill, the requests the killed process had in flight (the resume
guarantee above is unchanged).

Backends: ``ResponseCache(location)`` is an :class:`~benchsift.clients.cache_sqlite.SQLiteCache` for a
file path (the default) and a
:class:`~benchsift.clients.cache_postgres.PostgresCache` for a ``postgresql://`` URL. The statements above
(and the lease rules) are this module's, run by both; a backend gives its connection, its transactions
(SQLite: ``BEGIN IMMEDIATE``, the whole file; PostgreSQL: the lease row, ``SELECT ... FOR UPDATE``) and its
clock (expiries are the database's ``now``, so on PostgreSQL the clients' clocks need not agree). The
client side (single flight, waiting on another process's lease) is
:class:`~benchsift.clients.cached_client.CachedClient`. A shared
SQLite file needs a local disk (WAL does not work over NFS) and serialises all writers, so beyond one
machine the cache belongs on the server (docs/SCALING.md, "Sharing one response cache").
"""

from __future__ import annotations

import json
import os
import re
import socket
import sys
import threading
import uuid
from collections.abc import Sequence
from contextlib import AbstractContextManager
from typing import Any, ClassVar, Literal

from benchsift.clients.base import Request, Response, canonical_json
from benchsift.errors import InputError

__all__ = ["ResponseCache", "is_database_url", "redact_url"]

DEFAULT_LEASE_TTL = 30.0
#: The longest lease a process may take (``lease_ttl``, seconds). A lease that expires later than this (plus a
#: minute for the clocks of the database's clients) from now was written by no benchsift process: it is taken
#: over as an expired one (a forged lease expiring in 1e12 s made every run on the cache wait for ever).
MAX_LEASE_TTL = 3600.0
_CLOCK_SLACK = 60.0

#: keys per statement of the batched reads (SQLite allows 32,766 parameters, old builds 999)
_CHUNK = 500

#: URL schemes of the server-database backends (libpq accepts both spellings).
POSTGRES_SCHEMES = ("postgresql", "postgres")

Claim = Literal["claimed", "answered", "held"]


def _other_live_lease(mine: str, owner: str | None, expires: float, now: float) -> bool:
    """Whether a lease row (``owner``, ``expires``, read at the database's ``now``) keeps the key from
    ``mine``: another owner's, not expired, not further ahead than :data:`MAX_LEASE_TTL` (else forged), and
    not of a process of this kernel and PID namespace that no longer runs (:func:`_owner_gone`). An expiry
    that is not a number (a row another program wrote) counts as expired."""
    if owner is None or owner == mine or not isinstance(expires, (int, float)):
        return False
    return now < expires <= now + MAX_LEASE_TTL + _CLOCK_SLACK and not _owner_gone(owner)


#: (pid, (boot id, PID namespace)) of the process that read them (:func:`_scope`)
_SCOPE: tuple[int, tuple[str, str]] | None = None

#: An owner string: host:pid:nonce:boot id:PID namespace (the host may hold colons; the others cannot)
_OWNER = re.compile(r"(.*):([0-9]{1,10}):([^:]*):([^:]*):([^:]*)", re.DOTALL)


def _read_scope() -> tuple[str, str]:
    """This process's kernel and PID namespace: the boot id (``/proc/sys/kernel/random/boot_id``, one per
    boot of a kernel, the same in every container on it) and the inode of its PID namespace
    (``/proc/self/ns/pid``); ``("", "")`` where either cannot be read (not Linux, no ``/proc``)."""
    try:
        with open("/proc/sys/kernel/random/boot_id", encoding="ascii") as fh:
            boot = fh.read(64).strip()
        ns = re.fullmatch(r"pid:\[([0-9]+)\]", os.readlink("/proc/self/ns/pid"))
    except (OSError, ValueError):
        return "", ""
    if ns is None or re.fullmatch(r"[0-9a-f-]{1,64}", boot) is None:
        return "", ""
    return boot, ns.group(1)


def _scope() -> tuple[str, str]:
    """:func:`_read_scope`, read once per process (a child of ``fork`` reads its own: it may run in a PID
    namespace its parent made)."""
    global _SCOPE
    pid = os.getpid()
    if _SCOPE is None or _SCOPE[0] != pid:
        _SCOPE = (pid, _read_scope())
    return _SCOPE[1]


def _owner_name(pid: int, nonce: str) -> str:
    """The owner string of process ``pid`` of this host, kernel and PID namespace: host:pid:nonce:boot id:PID
    namespace (the last two empty where unknown, :func:`_read_scope`)."""
    boot, ns = _scope()
    return f"{socket.gethostname()}:{pid}:{nonce}:{boot}:{ns}"


def _owner_gone(owner: object) -> bool:
    """True only when ``owner`` provably names a process of this kernel and PID namespace that no longer
    runs: an owner string of the form :func:`_owner_name` writes whose host, boot id and PID namespace are
    this process's, and whose pid no process has. On Linux, the boot id and the namespace must be known
    (a pid is only a process in its own namespace: two containers sharing a host name and a cache volume,
    or two machines called ``localhost`` sharing a database, see each other's pids as dead); elsewhere
    (no PID namespaces: macOS) the host name is the check. Anything else (another host, boot or namespace,
    the ``host:pid:nonce`` of an older benchsift, a string another program wrote, not a string at all) is
    never declared gone: its lease is taken over only once it expires."""
    if not isinstance(owner, str):
        return False
    parts = _OWNER.fullmatch(owner)
    if parts is None:
        return False
    host, pid, _, boot, ns = parts.groups()
    here = _scope()
    if host != socket.gethostname() or (boot, ns) != here:
        return False
    if sys.platform.startswith("linux") and not all(here):  # the namespace is unknown: no pid test
        return False
    try:
        os.kill(int(pid), 0)
    except ProcessLookupError:
        return True
    except (OSError, OverflowError, ValueError):  # alive, another user's (EPERM); or no such pid number
        return False
    return False


def redact_url(url: str) -> str:
    """``url`` with any password replaced by ``***`` (in ``user:password@`` and in a ``password=`` field),
    for messages: a cache URL may carry credentials."""
    out = re.sub(r"(://[^/@:]*):[^/@]*@", r"\1:***@", url)
    return re.sub(r"(?i)(password=)[^&\s]*", r"\1***", out)


def is_database_url(location: str | os.PathLike[str]) -> bool:
    """True when ``location`` is a URL (``scheme://...``) rather than a file path."""
    return isinstance(location, str) and re.match(r"^[A-Za-z][A-Za-z0-9+.-]*://", location) is not None


class ResponseCache:
    """A store of cached responses with per-key leases, shared by threads and processes.

    ``ResponseCache(location)`` opens the backend that ``location`` names: a file path opens an
    :class:`SQLiteCache` (the default, one machine), a ``postgresql://`` URL a
    :class:`~benchsift.clients.cache_postgres.PostgresCache` (a database server, several machines; the
    ``benchsift[postgres]`` extra). Both run the same statements for :meth:`get`, :meth:`put`,
    :meth:`claim`, :meth:`release` and the renewal of leases, here; a backend supplies only its
    connection, its transactions, its clock and its row lock.

    Parameters
    ----------
    location
        An SQLite file, or a ``postgresql://user@host:port/dbname`` URL (libpq's connection URI).
    lease_ttl
        Seconds a lease on an in-flight request lives without renewal (see the module docstring).
    """

    #: SQL expression for the database's clock in seconds since the epoch (lease expiries use it, so
    #: processes on several machines share one clock: the server's)
    _now_sql: ClassVar[str]
    #: appended to the SELECT of a lease row inside :meth:`claim` to lock it ("" where the whole
    #: transaction is already exclusive)
    _lock_row: ClassVar[str] = ""
    #: the driver's error classes (a renewal that fails with one of them is retried at the next tick)
    _errors: tuple[type[BaseException], ...] = ()

    def __new__(cls, location: str | os.PathLike[str], **options: Any) -> ResponseCache:
        if cls is ResponseCache:
            cls = _backend_for(location)
        return super().__new__(cls)

    def __init__(self, location: str | os.PathLike[str], *, lease_ttl: float = DEFAULT_LEASE_TTL) -> None:
        if not 0 < lease_ttl <= MAX_LEASE_TTL:
            raise ValueError(f"lease_ttl must be positive and at most {MAX_LEASE_TTL:g} s, got {lease_ttl!r}")
        self.lease_ttl = float(lease_ttl)
        #: where the cache is, for messages (a URL with its password redacted)
        self.location = redact_url(os.fspath(location))
        #: whether this object created the store (a caller may remove a new SQLite cache that stayed empty)
        self.created = False
        #: this process's name on its leases (:func:`_owner_name`)
        self.owner = _owner_name(os.getpid(), uuid.uuid4().hex[:12])
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._renewer: threading.Thread | None = None
        self._statements: dict[str, str] = {}
        #: the thread that runs the event loops' cache calls in batches (``cache_worker.worker_for``)
        self._worker: Any = None

    # --- what a backend supplies -------------------------------------------------------------------

    def _run(self, sql: str, params: Sequence[Any]) -> list[tuple[Any, ...]]:
        """Execute one statement (``?`` placeholders, already formatted) and return its rows."""
        raise NotImplementedError

    def _transaction(self) -> AbstractContextManager[None]:
        """A write transaction: committed when the block ends, rolled back when it raises."""
        raise NotImplementedError

    def _disconnect(self) -> None:
        raise NotImplementedError

    # --- shared by every backend -------------------------------------------------------------------

    def _run_many(self, sql: str, rows: Sequence[Sequence[Any]]) -> None:
        """Execute one statement for each row of parameters (a backend may do it in one call)."""
        for row in rows:
            self._run(sql, row)

    def _statement(self, sql: str) -> str:
        text = self._statements.get(sql)
        if text is None:
            text = self._statements[sql] = sql.format(now=self._now_sql)
        return text

    def _execute(self, sql: str, params: Sequence[Any] = ()) -> list[tuple[Any, ...]]:
        return self._run(self._statement(sql), params)

    def _execute_many(self, sql: str, rows: Sequence[Sequence[Any]]) -> None:
        if rows:  # a statement with no rows is skipped (most batches of a run drop or take over no lease)
            self._run_many(self._statement(sql), rows)

    def get(self, key: str) -> Response | None:
        with self._lock:
            rows = self._execute("SELECT response FROM responses WHERE key = ?", (key,))
        if not rows:
            return None
        return self._answer(rows[0][0])

    def _answer(self, stored: Any) -> Response:
        """A stored answer read back as a cached :class:`Response`, checked: a row that another program
        wrote or damaged is one line naming the cache (``InputError``), never a crash deep in the engine or
        a reply of the wrong type passed on as a model's answer."""
        try:
            doc = json.loads(stored)
        except (TypeError, ValueError):
            doc = None
        ok = isinstance(doc, dict)
        if ok:
            texts = (doc.get("text"), doc.get("finish_reason"))
            counts = (doc.get("prompt_tokens", 0), doc.get("completion_tokens", 0))
            ok = all(v is None or isinstance(v, str) for v in texts) and all(
                v is None or (type(v) is int and v >= 0) for v in counts
            )
        if not ok:
            raise InputError(
                f"{self.location}: corrupt response cache (a stored answer is not an object of a text, "
                "a finish reason and token counts)"
            )
        return Response.from_dict(doc, cached=True)

    def put(self, key: str, endpoint: str, request: Request, response: Response) -> None:
        """Store one response and drop its lease, in one committed transaction (first writer wins)."""
        row = (key, endpoint, request.canonical, canonical_json(response.to_dict()))
        with self._lock, self._transaction():
            self._execute(
                "INSERT INTO responses (key, endpoint, request, response, created) "
                "VALUES (?, ?, ?, ?, {now}) ON CONFLICT (key) DO NOTHING",
                row,
            )
            self._execute("DELETE FROM leases WHERE key = ? AND owner = ?", (key, self.owner))

    def claim(self, key: str) -> Claim:
        """Take the lease on ``key`` unless its answer is stored or another live owner holds it.

        Returns ``"claimed"`` (send it, then :meth:`put` or :meth:`release`), ``"answered"`` (read it
        with :meth:`get`) or ``"held"`` (another process has it in flight: wait, then claim again). An
        expired lease, or one of a process of this kernel and PID namespace that no longer exists
        (:func:`_owner_gone`), is taken over.

        A key already answered, or leased by another live owner, is reported from one read. Otherwise one
        transaction: insert the lease row if absent, read it back locked (the backend's row lock, or
        SQLite's exclusive transaction), and only then look for the answer, so an answer committed by the
        holder before this lock is seen and one committed after it cannot exist (the holder's commit
        deletes the locked row, so it waits). Hence no key is ever claimed after its answer was stored,
        and at most one live owner holds it.
        """
        while True:
            with self._lock:
                # read first, outside a transaction: a key answered, or leased by a live owner, needs no
                # lock (answers are never removed; "held" only makes the caller wait and ask again)
                answered, owner, expires, now = self._execute(
                    "SELECT EXISTS (SELECT 1 FROM responses WHERE key = ?), (SELECT owner FROM leases "
                    "WHERE key = ?), (SELECT expires FROM leases WHERE key = ?), {now}",
                    (key, key, key),
                )[0]
                if answered:
                    return "answered"
                if _other_live_lease(self.owner, owner, expires, now):
                    return "held"
                with self._transaction():
                    self._execute(
                        "INSERT INTO leases (key, owner, expires) VALUES (?, ?, {now} + ?) "
                        "ON CONFLICT (key) DO NOTHING",
                        (key, self.owner, self.lease_ttl),
                    )
                    rows = self._execute(
                        "SELECT owner, expires, {now} FROM leases WHERE key = ?" + self._lock_row, (key,)
                    )
                    state: Claim | None
                    if self._execute("SELECT 1 FROM responses WHERE key = ?", (key,)):
                        if rows and rows[0][0] == self.owner:
                            self._execute("DELETE FROM leases WHERE key = ? AND owner = ?", (key, self.owner))
                        state = "answered"
                    elif not rows:  # the holder released it between the insert and the read: again
                        state = None
                    elif _other_live_lease(self.owner, *rows[0]):
                        state = "held"
                    else:
                        if rows[0][0] != self.owner:  # an expired or dead owner's lease: take it over
                            self._execute(
                                "UPDATE leases SET owner = ?, expires = {now} + ? WHERE key = ?",
                                (self.owner, self.lease_ttl, key),
                            )
                        state = "claimed"
                if state == "claimed":
                    self._start_renewal()
            if state is not None:
                return state

    def claim_many(self, keys: Sequence[str]) -> dict[str, Response | Claim]:
        """:meth:`claim` for many keys at once, an answered key given with its stored :class:`Response`.

        The same rules as :meth:`claim`, key by key: the answered keys and those leased by another live
        owner come from one read per chunk of keys; the rest are claimed by :meth:`_claim_rest` (on
        SQLite, one exclusive transaction for the whole chunk, which is a sequence of :meth:`claim` calls
        that nothing can interleave; elsewhere :meth:`claim` per key). Returns key -> ``Response``
        (answered), ``"claimed"`` or ``"held"``.
        """
        out: dict[str, Response | Claim] = {}
        todo = list(dict.fromkeys(keys))
        for start in range(0, len(todo), _CHUNK):
            chunk = todo[start : start + _CHUNK]
            marks = ", ".join("?" * len(chunk))
            with self._lock:
                stored = self._execute(f"SELECT key, response FROM responses WHERE key IN ({marks})", chunk)
                leased = self._execute(
                    f"SELECT key, owner, expires, {{now}} FROM leases WHERE key IN ({marks})", chunk
                )
            answers = dict(stored)
            holders = {k: (o, e, now) for k, o, e, now in leased}
            rest: list[str] = []
            for key in chunk:
                if key in answers:
                    out[key] = self._answer(answers[key])
                    continue
                owner, expires, now = holders.get(key, (None, 0.0, 0.0))
                if _other_live_lease(self.owner, owner, expires, now):
                    out[key] = "held"
                else:
                    rest.append(key)
            if rest:
                out.update(self._claim_rest(rest))
        return out

    def _claim_rest(self, keys: list[str]) -> dict[str, Response | Claim]:
        """Claim ``keys`` (neither answered nor held at the last read): :meth:`claim` per key."""
        out: dict[str, Response | Claim] = {}
        for key in keys:
            state = self.claim(key)
            hit = self.get(key) if state == "answered" else None
            out[key] = hit if hit is not None else ("held" if state == "answered" else state)
        return out

    def put_many(self, rows: Sequence[tuple[str, str, Request, Response]]) -> None:
        """:meth:`put` for many (key, endpoint, request, response) rows in one committed transaction."""
        if not rows:
            return
        values = [(k, e, q.canonical, canonical_json(r.to_dict())) for k, e, q, r in rows]
        with self._lock, self._transaction():
            self._put_rows(values)

    def _put_rows(self, values: Sequence[tuple[str, str, str, str]]) -> None:
        """Insert (key, endpoint, request text, response text) rows and drop their leases (inside a
        transaction, ``self._lock`` held)."""
        self._execute_many(
            "INSERT INTO responses (key, endpoint, request, response, created) "
            "VALUES (?, ?, ?, ?, {now}) ON CONFLICT (key) DO NOTHING",
            values,
        )
        self._execute_many(
            "DELETE FROM leases WHERE key = ? AND owner = ?", [(v[0], self.owner) for v in values]
        )

    def write_batch(
        self,
        rows: Sequence[tuple[str, str, Request, Response]],
        released: Sequence[str],
        keys: Sequence[str],
    ) -> dict[str, Response | Claim]:
        """A batch of the worker (:mod:`benchsift.clients.cache_worker`): :meth:`put_many` of
        ``rows``, :meth:`release_many` of ``released``, then :meth:`claim_many` of ``keys`` (returned).

        Here three calls, each committed; the SQLite backend commits the three in one transaction. Either
        way the stores are committed when this returns, and the claims follow :meth:`claim`'s rules.
        """
        self.put_many(rows)
        self.release_many(released)
        return self.claim_many(keys)

    def try_write_batch(
        self,
        rows: Sequence[tuple[str, str, Request, Response]],
        released: Sequence[str],
        keys: Sequence[str],
    ) -> dict[str, Response | Claim] | None:
        """:meth:`write_batch` if it can run without waiting for a lock, else ``None`` with nothing done:
        the worker then runs the batch on its thread. Here always ``None`` (a server database answers over
        the network: every call waits); the SQLite backend runs it when the file is free."""
        return None

    @property
    def checkpoint_due(self) -> bool:
        """Whether commits made without waiting left a checkpoint to run (:meth:`checkpoint`)."""
        return False

    def checkpoint(self) -> None:
        """Move committed writes from the journal into the store (nothing to do here)."""

    def release_many(self, keys: Sequence[str]) -> None:
        """:meth:`release` for many keys in one transaction."""
        if not keys:
            return
        with self._lock, self._transaction():
            self._execute_many(
                "DELETE FROM leases WHERE key = ? AND owner = ?", [(k, self.owner) for k in keys]
            )

    def _start_renewal(self) -> None:
        """Start the thread that renews this owner's leases (once; call with ``self._lock`` held)."""
        if self._renewer is None:
            self._renewer = threading.Thread(target=self._renew, name="benchsift-lease-renewal", daemon=True)
            self._renewer.start()

    def release(self, key: str) -> None:
        """Drop this process's lease on ``key`` (its request failed): a waiting process takes it over."""
        with self._lock:
            self._execute("DELETE FROM leases WHERE key = ? AND owner = ?", (key, self.owner))

    def leases(self) -> dict[str, tuple[str, float]]:
        """Every lease in the store: key -> (owner, expiry as a Unix time)."""
        with self._lock:
            return {k: (o, float(e)) for k, o, e in self._execute("SELECT key, owner, expires FROM leases")}

    def _renew(self) -> None:
        while not self._stop.wait(self.lease_ttl / 3.0):
            try:
                with self._lock:
                    self._execute(
                        "UPDATE leases SET expires = {now} + ? WHERE owner = ?", (self.lease_ttl, self.owner)
                    )
            except self._errors:  # closed under us, or busy past the timeout: retry at the next tick
                if self._stop.is_set():
                    return

    def keys(self) -> set[str]:
        with self._lock:
            return {r[0] for r in self._execute("SELECT key FROM responses")}

    def __len__(self) -> int:
        with self._lock:
            return int(self._execute("SELECT COUNT(*) FROM responses")[0][0])

    def close(self) -> None:
        """Stop renewing, drop this process's leases and close the connection."""
        if self._worker is not None:  # its queued writes are committed first
            self._worker.stop()
        self._stop.set()
        if self._renewer is not None:
            self._renewer.join()
        with self._lock:
            try:
                self._execute("DELETE FROM leases WHERE owner = ?", (self.owner,))
            except self._errors:
                pass
            self._disconnect()


def _backend_for(location: str | os.PathLike[str]) -> type[ResponseCache]:
    if not is_database_url(location):
        from benchsift.clients.cache_sqlite import SQLiteCache

        return SQLiteCache
    scheme = str(location).split("://", 1)[0].lower()
    if scheme in POSTGRES_SCHEMES:
        from benchsift.clients.cache_postgres import PostgresCache

        return PostgresCache
    raise InputError(
        f"{redact_url(str(location))}: unsupported cache URL scheme {scheme!r} "
        "(expected a file path or a postgresql:// URL)"
    )
