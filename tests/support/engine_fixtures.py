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
