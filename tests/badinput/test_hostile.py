"""The issue-32 cases of the bad-input corpus (cases_hostile.py), with test_corpus.py's checks."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from cases_hostile import HOSTILE_CASES
from corpus import Case
from test_corpus import test_case as corpus_checks


@pytest.mark.parametrize("case", HOSTILE_CASES, ids=[f"g{c.group}-{c.id}" for c in HOSTILE_CASES])
def test_hostile_case(
    case: Case, tmp_path: Path, server: Any, world: dict, assets: dict, monkeypatch: pytest.MonkeyPatch
) -> None:
    corpus_checks(case, tmp_path, server, world, assets, monkeypatch)
