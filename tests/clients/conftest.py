"""The client tests run against the scripted server of tests/support (engine_fixtures.py), and the cache
tests on both backends, an SQLite file and a real PostgreSQL server (``pg_server``, ``new_cache``)."""

from __future__ import annotations

from engine_fixtures import (  # noqa: E402, F401  (shared engine fixtures)
    _key,
    new_cache,
    pg_database,
    pg_server,
    server,
    world,
)
