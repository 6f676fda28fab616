"""Shared fixtures of the importer tests: paths to the hand-written files in ``tests/fixtures/io``; the
hostile-input helpers of tests/support (hostile.py) importable."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "support"))
from hostile import no_data_reads  # noqa: E402, F401 - the fixture, for the tests of this folder

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "io"


@pytest.fixture
def fixtures() -> Path:
    return FIXTURES
