"""benchsift: cheaper, sharper vision-language-model evaluation."""

from __future__ import annotations

from benchsift.errors import BenchsiftError, DegenerateError, FormatError, InputError
from benchsift.panel import GroupScores, Panel

__version__ = "0.1.0"

__all__ = [
    "BenchsiftError",
    "DegenerateError",
    "FormatError",
    "GroupScores",
    "InputError",
    "Panel",
    "__version__",
]
