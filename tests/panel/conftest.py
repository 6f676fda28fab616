"""The hostile-input helpers of tests/support (hostile.py) importable by the panel tests, and its
no_data_reads fixture."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "support"))
from hostile import no_data_reads  # noqa: E402, F401 - the fixture, for the tests of this folder
