"""One demo run shared by the report tests (about 8 s on one core); the hostile-input helpers of
tests/support (hostile.py) importable by them."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest

from benchsift.workflows.demo import run_demo

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "support"))


@pytest.fixture(scope="session")
def demo_dir(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, Any]]:
    out = tmp_path_factory.mktemp("demo") / "demo"
    summary = run_demo(out, random_state=0).payload
    return out, summary
