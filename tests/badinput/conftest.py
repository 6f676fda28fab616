"""Fixtures of the bad-input corpus: a recording OpenAI-compatible server, a small world, a panel."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).parent))

from engine_world import make_world  # noqa: E402
from fake_server import API_KEY, FakeServer  # noqa: E402


class RecordingServer(FakeServer):
    """The engine tests' scripted server, keeping the raw bytes of every request body it receives."""

    def __init__(self, world: dict[str, Any]) -> None:
        super().__init__(world)
        self.bodies: list[bytes] = []

    def handle(self, path: str, headers: dict[str, str], raw: bytes) -> tuple[int, bytes, dict[str, str]]:
        with self.lock:
            self.bodies.append(raw)
        return super().handle(path, headers, raw)


@pytest.fixture(scope="session")
def world(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    return make_world(tmp_path_factory.mktemp("badinput-world"), n=8)


@pytest.fixture(scope="session")
def server(world: dict[str, Any]):
    srv = RecordingServer(world["world"]).start()
    yield srv
    srv.stop()


@pytest.fixture(scope="session")
def assets(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """Inputs every case may copy: a simulated panel and a simulated verdict table."""
    from benchsift.simulate import SimulationConfig, simulate_panel
    from benchsift.simulate.verdicts import simulate_verdicts

    root = tmp_path_factory.mktemp("badinput-assets")
    cfg = SimulationConfig.small(
        n_models=12,
        n_text_only_models=3,
        n_benchmarks=6,
        n_categories=3,
        items_per_benchmark=40,
        min_items_per_benchmark=20,
    )
    simulate_panel(cfg, random_state=0).panel.save(root / "panel.parquet")
    simulate_verdicts(n_models=4, n_items=60, random_state=0).table.to_csv(root / "verdicts.csv", index=False)
    return {"panel": root / "panel.parquet", "verdicts": root / "verdicts.csv"}


@pytest.fixture(autouse=True)
def _key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("BENCHSIFT_TEST_KEY", API_KEY)
