"""The public names are what they should be, and each one exists."""

from __future__ import annotations

import importlib

import pytest

import benchsift

PACKAGES = [
    "benchsift",
    "benchsift.panel",
    "benchsift.stats",
    "benchsift.irt",
    "benchsift.leaderboard",
    "benchsift.simulate",
    "benchsift.io",
    "benchsift.redundancy",
    "benchsift.audit",
    "benchsift.compression",
    "benchsift.prism",
    "benchsift.clients",
    "benchsift.workflows",
]


def test_top_level_names() -> None:
    assert set(benchsift.__all__) == {
        "BenchsiftError",
        "DegenerateError",
        "FormatError",
        "GroupScores",
        "InputError",
        "Panel",
        "__version__",
        "compare",
    }


@pytest.mark.parametrize("name", PACKAGES)
def test_every_exported_name_exists(name: str) -> None:
    module = importlib.import_module(name)
    exported = getattr(module, "__all__", None)
    assert exported, f"{name} has no __all__"
    assert len(set(exported)) == len(exported), f"{name}.__all__ repeats a name"
    missing = [n for n in exported if not hasattr(module, n)]
    assert not missing, f"{name}.__all__ names missing attributes: {missing}"


def test_error_tree() -> None:
    assert issubclass(benchsift.FormatError, benchsift.InputError)
    assert issubclass(benchsift.InputError, ValueError)
    assert issubclass(benchsift.DegenerateError, benchsift.BenchsiftError)
