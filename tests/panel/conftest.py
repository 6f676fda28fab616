"""The hostile-input helpers of tests/support (hostile.py) importable by the panel tests."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "support"))
