"""One demo run shared by the report tests (about 8 s on one core)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from benchsift.errors import ResultWarning
from benchsift.workflows.demo import run_demo


@pytest.fixture(scope="session")
def demo_dir(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, Any]]:
    out = tmp_path_factory.mktemp("demo") / "demo"
    # the demo's two suites keep fewer categories than they have (Stage 3): said as the library says it
    with pytest.warns(ResultWarning, match="run_pipeline: stage 3 kept") as said:
        summary = run_demo(out, random_state=0).payload
    assert len(said) == 2, [str(w.message) for w in said]
    return out, summary
