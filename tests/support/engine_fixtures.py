"""Fixtures of the engine tests (tests/clients, tests/prism): a simulated world of items and model
behaviours (engine_world.py) and the scripted OpenAI-compatible server over it (fake_server.py).

Each of those folders' conftest.py imports them: ``from engine_fixtures import ...``.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))  # engine_world, fake_server

from engine_world import make_world  # noqa: E402
from fake_server import API_KEY, FakeServer  # noqa: E402


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> dict:
    return make_world(tmp_path_factory.mktemp("world"), n=50)


@pytest.fixture()
def server(world: dict):
    srv = FakeServer(world["world"], slow=1.0).start()
    yield srv
    srv.stop()


@pytest.fixture(autouse=True)
def _key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("BENCHSIFT_TEST_KEY", API_KEY)


@pytest.fixture(scope="session")
def pg_server():
    """One real PostgreSQL server for the session (initdb + pg_ctl in a temporary folder, 127.0.0.1, a
    free port): the server-database cache backend is tested against it. Never skipped: without the
    server binaries (``.ci/run`` installs Debian's postgresql) this fixture fails."""
    from pg_server import PostgresServer

    srv = PostgresServer().start()
    yield srv
    srv.stop()


@pytest.fixture()
def pg_database(pg_server, request: pytest.FixtureRequest):
    """A fresh, empty database on the session's server for each use: ``new()`` -> its URL."""
    import itertools

    import psycopg

    counter = itertools.count()
    made: list[str] = []

    def new() -> str:
        name = f"t_{abs(hash(request.node.nodeid)) % 10**8}_{next(counter)}"
        with psycopg.connect(pg_server.url, autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{name}"')
            conn.execute(f'CREATE DATABASE "{name}"')
        made.append(name)
        return pg_server.url.rsplit("/", 1)[0] + f"/{name}"

    yield new
    with psycopg.connect(pg_server.url, autocommit=True) as conn:
        for name in made:
            conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


@pytest.fixture(params=["sqlite", "postgresql"])
def new_cache(request: pytest.FixtureRequest, tmp_path: Path):
    """Each test using it runs on both cache backends: ``new()`` -> the location of a fresh cache, an
    SQLite file or the URL of a new database on :func:`pg_server`."""
    if request.param == "sqlite":
        import itertools

        n = itertools.count()
        return lambda: str(tmp_path / f"cache-{next(n)}.sqlite")
    return request.getfixturevalue("pg_database")
