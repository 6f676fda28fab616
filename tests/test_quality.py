"""Lint and type checks run with the test suite, so CI enforces them (the test extra installs ruff, mypy)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", *args], cwd=ROOT, capture_output=True, text=True, check=False
    )


def test_ruff_lint_and_format() -> None:
    lint = run("ruff", "check", "src", "tests", "benchmarks")
    assert lint.returncode == 0, lint.stdout + lint.stderr
    fmt = run("ruff", "format", "--check", "src", "tests", "benchmarks")
    assert fmt.returncode == 0, fmt.stdout + fmt.stderr


def test_mypy() -> None:
    result = run("mypy", "src/benchsift", "benchmarks")
    assert result.returncode == 0, result.stdout + result.stderr
