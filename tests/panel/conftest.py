"""The no_data_reads fixture of tests/support (hostile.py) for the panel tests."""

from __future__ import annotations

from hostile import no_data_reads  # noqa: E402, F401 - the fixture, for the tests of this folder
