"""What one tool's writer produced, and the checks every writer shares."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from benchsift._inputs import check_known
from benchsift.errors import InputError


@dataclass
class Written:
    """Files (relative to the output directory), items per benchmark, harness names, commands, warnings;
    ``logged_by_position``: the harness logs the ``k``-th item of a benchmark as ``k`` (lmms-eval)."""

    files: list[str]
    items: dict[str, list[str]]
    harness_names: dict[str, str]
    commands: list[str]
    warnings: list[str] = field(default_factory=list)
    logged_by_position: bool = False


def check_per_benchmark(
    tool: str, option: str, given: Mapping[str, object], items: Mapping[str, object]
) -> None:
    """A per-benchmark option (``task_yaml``, ``dataset_tsv``, ...) names exactly the suite's benchmarks;
    ``option`` is named in backticks, which the CLI writes as its flag."""
    missing = [b for b in items if b not in given]
    if missing:
        raise InputError(f"{tool} export needs {option} for benchmark(s) {missing}")
    check_known(option, given, list(items), what="suite benchmark")


def write_lists(path: Path, lists: Mapping[str, Sequence[object]]) -> None:
    """A JSON object of lists, one key per line (readable and diffable: a suite's ids per task)."""
    body = ",\n".join(f" {json.dumps(k)}: {json.dumps(list(v))}" for k, v in lists.items())
    path.write_text("{\n" + body + "\n}\n")
