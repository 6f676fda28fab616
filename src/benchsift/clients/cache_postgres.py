"""The response cache on a PostgreSQL server: one cache for processes on several machines.

Opened by ``ResponseCache("postgresql://user@host:port/dbname")`` (``--cache`` or the config's ``cache``
field; libpq's connection URI, so ``?sslmode=...``, ``PGPASSWORD`` and ``~/.pgpass`` work as for psql),
through psycopg 3 (``pip install 'benchsift[postgres]'``). The tables, the statements and the lease rules
are those of the SQLite cache (:class:`benchsift.clients.cache.ResponseCache` runs them for both); what
differs:

* transactions are PostgreSQL's (READ COMMITTED), and :meth:`~ResponseCache.claim` locks the one lease
  row it reads (``SELECT ... FOR UPDATE`` after ``INSERT ... ON CONFLICT (key) DO NOTHING``) instead of
  taking the whole database: claims of different keys run at once, claims of one key queue on its row,
  and a holder's ``put`` (insert the answer, delete the row) waits for a claim that has the row locked,
  so the claim that follows sees the answer;
* lease expiries are the server's clock (``clock_timestamp()``), so the processes' own clocks need not
  agree; the dead-owner shortcut (a process that no longer exists) applies only to leases taken from this
  kernel and PID namespace (its boot id is in the owner string: two machines of one host name, or two
  containers, never take over each other's live leases);
* nothing is removed when a new cache stays empty (``created`` is always False): the database is the
  user's.

The tables are ``responses`` and ``leases`` in the connection's current schema (``?options=-csearch_path=...``
to choose another); a schema that already has a ``responses`` or ``leases`` table of other columns is
refused. A lost connection stops the run with one line (``lost the cache database``, whichever statement
first meets it: a query, or the BEGIN / COMMIT of a transaction); every answer committed before it stays,
and a rerun resumes (the same guarantee as after a kill).
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any

from benchsift.clients.cache import DEFAULT_LEASE_TTL, ResponseCache, redact_url
from benchsift.errors import InputError

__all__ = ["PostgresCache"]

_TABLES = {
    "responses": """
        CREATE TABLE IF NOT EXISTS responses (
            key TEXT PRIMARY KEY,
            endpoint TEXT NOT NULL,
            request TEXT NOT NULL,
            response TEXT NOT NULL,
            created DOUBLE PRECISION NOT NULL
        )""",
    # UNLOGGED: a lease is not worth a WAL flush; a claim (which writes only here) commits without one,
    # and a crash of the server empties the table, which only lets the leases of that moment be re-taken
    "leases": """
        CREATE UNLOGGED TABLE IF NOT EXISTS leases (
            key TEXT PRIMARY KEY,
            owner TEXT NOT NULL,
            expires DOUBLE PRECISION NOT NULL
        )""",
}
_COLUMNS = {
    "responses": {"key", "endpoint", "request", "response", "created"},
    "leases": {"key", "owner", "expires"},
}
#: pg_advisory_xact_lock key serialising the CREATE TABLEs of processes opening one new cache at once
#: (two concurrent CREATE TABLE IF NOT EXISTS can otherwise both try to create the table's type)
_SCHEMA_LOCK = 0x62656E6368  # "bench"


def _one_line(err: BaseException) -> str:
    return " ".join(str(err).split()) or type(err).__name__


def _lost(location: str, err: BaseException) -> InputError:
    """The one line of a connection the server dropped (or an operation it failed) under a statement."""
    return InputError(f"{location}: lost the cache database ({_one_line(err)})")


class PostgresCache(ResponseCache):
    """Cached responses and leases in a PostgreSQL database (see the module docstring).

    Parameters
    ----------
    url
        ``postgresql://[user[:password]@][host][:port][/dbname][?param=value...]``.
    lease_ttl
        Seconds a lease on an in-flight request lives without renewal.
    connect_timeout
        Seconds to wait for the server when connecting.
    synchronous_commit
        ``False`` (default): this session commits asynchronously (``SET synchronous_commit = off``), the
        durability of the SQLite cache (WAL, ``synchronous=NORMAL``): a committed answer survives the kill
        of any client; a crash of the database server itself can lose the last fraction of a second of
        answers (a rerun asks them again). ``True`` waits for every answer's WAL flush (250 against 630
        keys claimed and stored per second in one process here, ``benchmarks/bench_cache_backends.py``).
    """

    _now_sql = "CAST(EXTRACT(EPOCH FROM clock_timestamp()) AS DOUBLE PRECISION)"
    _lock_row = " FOR UPDATE"

    def __init__(
        self,
        url: str | os.PathLike[str],
        *,
        lease_ttl: float = DEFAULT_LEASE_TTL,
        connect_timeout: float = 10,
        synchronous_commit: bool = False,
    ) -> None:
        super().__init__(url, lease_ttl=lease_ttl)
        self.url = os.fspath(url)
        try:
            import psycopg
        except ImportError:
            raise InputError(
                f"{self.location}: a PostgreSQL cache needs psycopg: pip install 'benchsift[postgres]'"
            ) from None
        # a renewal that fails (the driver's error, or the lost connection as _run reports it) retries
        self._errors = (psycopg.Error, InputError)
        try:
            self._conn = psycopg.connect(
                self.url, autocommit=True, connect_timeout=max(1, round(connect_timeout))
            )
        except psycopg.Error as err:
            why = _one_line(err)
            raise InputError(f"{self.location}: cannot connect to the cache database ({why})") from None
        try:
            if not synchronous_commit:
                try:
                    self._conn.execute("SET synchronous_commit = off")
                except psycopg.OperationalError as err:
                    raise _lost(self.location, err) from None
            self._create_tables()
        except BaseException:
            self._conn.close()
            raise

    def _create_tables(self) -> None:
        import psycopg

        try:
            with self._conn.transaction():
                self._conn.execute("SELECT pg_advisory_xact_lock(%s)", (_SCHEMA_LOCK,))
                found: dict[str, set[str]] = {}
                for table, column in self._conn.execute(
                    "SELECT table_name, column_name FROM information_schema.columns "
                    "WHERE table_schema = current_schema() AND table_name IN ('responses', 'leases')"
                ):
                    found.setdefault(table, set()).add(column)
                for table, columns in found.items():
                    if columns != _COLUMNS[table]:
                        raise InputError(
                            f"{self.location}: table {table!r} is not a benchsift response cache's "
                            f"(columns {sorted(columns)}, expected {sorted(_COLUMNS[table])})"
                        )
                for ddl in _TABLES.values():
                    self._conn.execute(ddl)
        except psycopg.Error as err:
            raise InputError(f"{self.location}: cannot set up the cache tables ({_one_line(err)})") from None

    def _run(self, sql: str, params: Sequence[Any]) -> list[tuple[Any, ...]]:
        import psycopg

        try:
            cur = self._conn.execute(sql.replace("?", "%s"), params)
            return cur.fetchall() if cur.description is not None else []
        except psycopg.OperationalError as err:
            raise _lost(self.location, err) from None

    @contextmanager
    def _transaction(self) -> Iterator[None]:
        """A transaction of the connection; a connection lost at its BEGIN or COMMIT is the one line of
        :meth:`_run` (a statement inside already raised it)."""
        import psycopg

        try:
            with self._conn.transaction():
                yield
        except psycopg.OperationalError as err:
            raise _lost(self.location, err) from None

    def _disconnect(self) -> None:
        self._conn.close()

    def __repr__(self) -> str:
        return f"PostgresCache({redact_url(self.url)!r})"
