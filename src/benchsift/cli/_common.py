"""Shared CLI plumbing: error handling, JSON output, consoles."""

from __future__ import annotations

import json
import sys
from typing import Any

import typer
from rich.console import Console
from typer.core import TyperGroup

from benchsift._jsonutil import to_jsonable
from benchsift.errors import BenchsiftError, InputError
from benchsift.parallel import BACKENDS, sweep_backend

#: Human-readable output goes to stderr when --json is active, so stdout carries one JSON object only.
console = Console()
err_console = Console(stderr=True)


class BenchsiftGroup(TyperGroup):
    """Root command group: any BenchsiftError raised by a command becomes a one-line error and exit code 2."""

    def invoke(self, ctx: Any) -> Any:
        try:
            return super().invoke(ctx)
        except BenchsiftError as exc:
            typer.echo(f"benchsift: error: {exc}", err=True)
            raise typer.Exit(code=2) from None


def split_list(value: str | None) -> list[str] | None:
    """A comma-separated option as a list of stripped names (``None`` stays ``None``); empty is an error."""
    if value is None:
        return None
    parts = [p.strip() for p in value.split(",") if p.strip()]
    if not parts:
        raise InputError(f"expected a comma-separated list, got {value!r}")
    return parts


def print_json(obj: Any) -> None:
    """Print one JSON object on stdout (NaN as null)."""
    sys.stdout.write(json.dumps(to_jsonable(obj), indent=2) + "\n")
    sys.stdout.flush()


def fail(message: str) -> typer.Exit:
    """Print a one-line error and return an Exit(2) to raise."""
    typer.echo(f"benchsift: error: {message}", err=True)
    return typer.Exit(code=2)


BACKEND_OPT = typer.Option(
    None,
    "--backend",
    help=f"Where the sweep's tasks run: {', '.join(BACKENDS)} (dask, ray: pip install 'benchsift[dask]' /"
    " '[ray]'; without --address a local cluster is started). Results do not depend on it.",
)
ADDRESS_OPT = typer.Option(
    None,
    "--address",
    help="With --backend dask / ray: the address of a running cluster (tcp://host:8786, ray://host:10001).",
)
N_JOBS_OPT = typer.Option(
    None,
    "--n-jobs",
    help="Concurrent tasks (-1: all cores; default 1 without --backend, every worker with one).",
)


def sweep_workers(
    ctx: typer.Context, backend: str | None, address: str | None, n_jobs: int | None
) -> int | None:
    """Enter :func:`benchsift.parallel.sweep_backend` for the rest of the running command (closed, and a
    local cluster it started shut down, when the command ends); returns the ``n_jobs`` to pass on."""
    return ctx.with_resource(sweep_backend(backend, address, n_jobs))
