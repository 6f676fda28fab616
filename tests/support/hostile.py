"""Shared by the tests of hostile inputs (tests/io, tests/panel, tests/prism, tests/report): a guard that
fails the test when any parquet data is read (only a footer may be), the CLI run in a child process under an
address-space cap (a refusal must come before the allocation it prevents, which the cap would make fail
otherwise), and a FIFO that unblocks a reader waiting on it (a regression fails instead of hanging)."""

from __future__ import annotations

import os
import resource
import subprocess
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import benchsift

SRC = Path(benchsift.__file__).resolve().parents[1]


@pytest.fixture
def no_data_reads(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every way the readers read parquet data fails the test: only the footer may be read (a fixture,
    registered by the conftest of each test folder that uses it)."""

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


def run_capped(
    args: list[str], cwd: Path, limit: int, timeout: float = 300
) -> subprocess.CompletedProcess[str]:
    """``python -m benchsift *args`` in ``cwd``, its address space capped at ``limit`` bytes, killed after
    ``timeout`` seconds (a hang fails the test with ``TimeoutExpired``)."""

    def cap() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))

    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(SRC), os.environ.get("PYTHONPATH", "")])}
    return subprocess.run(
        [sys.executable, "-m", "benchsift", *args],
        cwd=cwd,
        env={**env, "COLUMNS": "200", "PYTHONDONTWRITEBYTECODE": "1"},
        capture_output=True,
        text=True,
        timeout=timeout,
        preexec_fn=cap,
    )


@contextmanager
def fifo(path: Path, after: float = 3.0) -> Iterator[Path]:
    """A FIFO at ``path``. Should the code under test wait on it (the bug), a writer opens and closes it
    after ``after`` seconds, and again every half second, so the reader gets end-of-file and returns."""
    os.mkfifo(path)
    done = threading.Event()

    def unblock() -> None:
        if done.wait(after):
            return
        while not done.wait(0.5):
            try:
                os.close(os.open(path, os.O_WRONLY | os.O_NONBLOCK))
            except OSError:  # no reader has it open (ENXIO)
                pass

    t = threading.Thread(target=unblock, daemon=True)
    t.start()
    try:
        yield path
    finally:
        done.set()
        t.join()
