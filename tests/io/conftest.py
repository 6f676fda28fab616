"""Shared fixtures of the importer tests: paths to the hand-written files in ``tests/fixtures/io``."""

from __future__ import annotations

from pathlib import Path

import pytest
from hostile import no_data_reads  # noqa: E402, F401 - the fixture, for the tests of this folder

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "io"


@pytest.fixture
def fixtures() -> Path:
    return FIXTURES
