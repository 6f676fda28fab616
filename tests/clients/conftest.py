"""The client tests run against the scripted server of tests/support (engine_fixtures.py)."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "support"))

from engine_fixtures import _key, server, world  # noqa: E402, F401  (shared engine fixtures)
