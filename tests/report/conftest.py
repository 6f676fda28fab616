"""One demo run shared by the report tests (about 8 s on one core)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from benchsift.workflows.demo import run_demo


@pytest.fixture(scope="session")
def demo_dir(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, Any]]:
    out = tmp_path_factory.mktemp("demo") / "demo"
    summary = run_demo(out, random_state=0).payload
    return out, summary
