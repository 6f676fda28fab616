"""The shared test helpers of tests/support (hostile.py, warned.py, the engine's fixtures and servers)
importable by every test folder."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent / "support"))
