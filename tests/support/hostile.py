"""Shared by the tests of hostile inputs (tests/io, tests/panel): a guard that fails the test when any
parquet data is read (only a footer may be), and the CLI run in a child process under an address-space cap
(a refusal must come before the allocation it prevents, which the cap would make fail otherwise)."""

from __future__ import annotations

import os
import resource
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import benchsift

SRC = Path(benchsift.__file__).resolve().parents[1]


def forbid_parquet_data_reads(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every way the readers read parquet data fails the test: only the footer may be read."""

    def refuse(*args: object, **kwargs: object) -> None:
        pytest.fail("a row of the parquet file was read")

    for name in ("read", "read_row_group", "read_row_groups", "iter_batches"):
        monkeypatch.setattr(pq.ParquetFile, name, refuse)
    monkeypatch.setattr(pq, "read_table", refuse)
    monkeypatch.setattr(pd, "read_parquet", refuse)


def write_repeated(path: Path, table: pa.Table, times: int) -> Path:
    """``table`` written ``times`` times into the parquet file ``path`` (zstd, one row group each): a forged
    file of few distinct bytes whose footer declares ``times`` x its rows."""
    with pq.ParquetWriter(path, table.schema, compression="zstd") as writer:
        for _ in range(times):
            writer.write_table(table)
    return path


def run_capped(args: list[str], cwd: Path, limit: int) -> subprocess.CompletedProcess[str]:
    """``python -m benchsift *args`` in ``cwd``, its address space capped at ``limit`` bytes."""

    def cap() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))

    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(SRC), os.environ.get("PYTHONPATH", "")])}
    return subprocess.run(
        [sys.executable, "-m", "benchsift", *args],
        cwd=cwd,
        env={**env, "COLUMNS": "200", "PYTHONDONTWRITEBYTECODE": "1"},
        capture_output=True,
        text=True,
        timeout=300,
        preexec_fn=cap,
    )
