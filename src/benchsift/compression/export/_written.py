"""What one tool's writer produced, and the checks every writer shares."""

from __future__ import annotations

import json
import os
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


#: The longest file name most file systems take, in bytes (ext4, xfs, btrfs, APFS, NTFS's 255 characters).
NAME_MAX = 255


def file_name(tool: str, benchmark: str, name: str) -> str:
    """``name``, a file name built from a suite benchmark's name for ``tool``, when it is a plain name of
    one folder: no ``/``, ``\\`` or NUL, not ``.`` / ``..`` or hidden, at most :data:`NAME_MAX` bytes;
    else one :class:`~benchsift.errors.InputError` naming the benchmark. The name comes from a file (the
    suite's ``items.csv``, from the panel's benchmark column), so it is not trusted as a path: a benchmark
    ``../../x`` would write outside the output folder."""
    why = None
    if any(c in benchmark for c in "/\\\0"):
        why = "holds a path separator or NUL"
    elif benchmark in ("", ".", "..") or name.startswith("."):
        why = "is empty, '.' / '..' or starts with '.'"
    else:
        try:
            if len(os.fsencode(name)) > NAME_MAX:
                why = f"makes the file name {name[:40]!r}... longer than {NAME_MAX} bytes"
        except UnicodeError:
            why = "cannot be encoded as a file name"
    if why is not None:
        raise InputError(
            f"suite benchmark {benchmark[:80]!r}: its name {why}, and {tool} names a file after it; "
            "rename the benchmark in the panel and compress again"
        )
    return name


def write_lists(path: Path, lists: Mapping[str, Sequence[object]]) -> None:
    """A JSON object of lists, one key per line (readable and diffable: a suite's ids per task)."""
    body = ",\n".join(f" {json.dumps(k)}: {json.dumps(list(v))}" for k, v in lists.items())
    path.write_text("{\n" + body + "\n}\n")
