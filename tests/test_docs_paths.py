"""The README and the pages of docs/ name only source files that exist (a renamed module must be renamed
there too)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
BASES = (ROOT, ROOT / "src", ROOT / "src" / "benchsift", ROOT / "benchmarks")
PATH = re.compile(r"`([A-Za-z0-9_./-]+\.py)`")


def named_paths(text: str) -> list[str]:
    """Backticked ``*.py`` paths (placeholders such as ``<group>.py`` are not matched)."""
    return sorted(set(PATH.findall(text)))


def missing(text: str) -> list[str]:
    """The named paths into this repository (their first folder is one of ours) that are not files.

    A path into another tool (``lm_eval/evaluator.py``), an absolute path (a scratch file of a measurement,
    outside the repository) or a bare file name is not checked."""
    ours = [
        p
        for p in named_paths(text)
        if "/" in p and not p.startswith("/") and any((b / p.split("/")[0]).is_dir() for b in BASES)
    ]
    return [p for p in ours if not any((base / p).is_file() for base in BASES)]


@pytest.mark.parametrize(
    "doc",
    [
        "README.md",
        "docs/CONTRACTS.md",
        "docs/ESTIMATE.md",
        "docs/ADAPTIVE.md",
        "docs/SCALING.md",
        "docs/SPEED_HISTORY.md",
    ],
)
def test_named_source_files_exist(doc: str) -> None:
    text = (ROOT / doc).read_text(encoding="utf-8")
    assert len(named_paths(text)) >= 3
    assert missing(text) == []


def test_the_check_sees_a_missing_file() -> None:
    text = "in `benchsift/panel/_io.py`, see `cli/_output.py`, `lm_eval/evaluator.py` and `/work/x/a.py`"
    assert missing(text) == ["benchsift/panel/_io.py"]
