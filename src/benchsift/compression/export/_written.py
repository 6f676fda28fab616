"""What one tool's writer produced (shared by the writers and :func:`~.core.export_suite`)."""

from __future__ import annotations

from dataclasses import dataclass, field


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
