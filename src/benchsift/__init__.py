"""benchsift: cheaper, sharper vision-language-model evaluation.

``import benchsift`` is cheap: it loads the exception tree and the version only. The subpackages
(``benchsift.panel``, ``benchsift.stats``, ``benchsift.compression``, ...) and the top-level names
:class:`Panel`, :class:`GroupScores` and the leaderboard call :func:`compare`
(:func:`benchsift.leaderboard.compare`) are imported on first use (PEP 562 module ``__getattr__``), so a
script that needs ``benchsift.stats`` never pays for pandas, and ``benchsift --help`` starts fast.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from benchsift._version import __version__
from benchsift.errors import (
    BenchsiftError,
    BenchsiftWarning,
    DegenerateError,
    EstimateWarning,
    FloorWarning,
    FormatError,
    InputError,
    OutputError,
    ResultWarning,
)

if TYPE_CHECKING:
    from benchsift.leaderboard import compare
    from benchsift.panel import GroupScores, Panel

__all__ = [
    "BenchsiftError",
    "BenchsiftWarning",
    "DegenerateError",
    "EstimateWarning",
    "FloorWarning",
    "FormatError",
    "GroupScores",
    "InputError",
    "OutputError",
    "Panel",
    "ResultWarning",
    "compare",
    "__version__",
]

#: public names imported on first use, and the module holding each
_LAZY_NAMES = {
    "GroupScores": "benchsift.panel",
    "Panel": "benchsift.panel",
    "compare": "benchsift.leaderboard",
}
#: the public subpackages and modules, importable as attributes (``benchsift.stats.pearson``)
_SUBMODULES = frozenset(
    {
        "adaptive",
        "cli",
        "clients",
        "compression",
        "errors",
        "io",
        "irt",
        "leaderboard",
        "panel",
        "parallel",
        "prism",
        "progress",
        "redundancy",
        "report",
        "simulate",
        "stats",
        "workflows",
    }
)


def __getattr__(name: str) -> Any:
    if name in _LAZY_NAMES:
        value = getattr(importlib.import_module(_LAZY_NAMES[name]), name)
        globals()[name] = value  # the next lookup is a plain attribute
        return value
    if name in _SUBMODULES:
        return importlib.import_module(f"benchsift.{name}")
    raise AttributeError(f"module 'benchsift' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__) | _SUBMODULES)
