"""Start-up stays cheap: ``import benchsift`` and the base packages load no pandas, rich or prism, and
``benchsift --help`` / ``--version`` import no subcommand module (the root group loads a command when it
runs, :mod:`benchsift.cli.main`). The start-up times are measured in benchmarks/bench_startup.py."""

from __future__ import annotations

import inspect
import json
import subprocess
import sys

import pytest
import typer.main
from typer.testing import CliRunner

from benchsift.cli.main import COMMANDS, app

HEAVY = ("pandas", "rich", "matplotlib", "sklearn", "benchsift.prism", "benchsift.panel", "benchsift.clients")


def _loaded_after(code: str) -> list[str]:
    """The HEAVY modules in ``sys.modules`` after running ``code`` in a fresh interpreter."""
    probe = f"{code}\nimport json, sys\nprint(json.dumps([m for m in {HEAVY!r} if m in sys.modules]))"
    out = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True, timeout=120
    )
    return json.loads(out.stdout.strip().splitlines()[-1])


@pytest.mark.parametrize("module", ["benchsift", "benchsift.stats", "benchsift.irt", "benchsift.progress"])
def test_importing_the_base_loads_nothing_heavy(module: str) -> None:
    assert _loaded_after(f"import {module}") == []


def test_simulate_loads_no_prism_nor_clients() -> None:
    loaded = _loaded_after("import benchsift.simulate")
    assert "benchsift.prism" not in loaded and "benchsift.clients" not in loaded and "rich" not in loaded


def test_the_probe_sees_heavy_modules() -> None:
    # the check above can fail: the lazy top-level name Panel loads the panel package and pandas
    assert set(_loaded_after("import benchsift; benchsift.Panel")) >= {"pandas", "benchsift.panel"}


def test_version_and_help_import_no_subcommand() -> None:
    code = (
        "import sys\nfrom benchsift.cli.main import main\n"
        "for argv in (['benchsift', '--version'], ['benchsift', '--help']):\n"
        "    sys.argv = argv\n"
        "    try:\n        main()\n    except SystemExit:\n        pass\n"
    )
    loaded = _loaded_after(code)
    assert "pandas" not in loaded and "benchsift.prism" not in loaded and "matplotlib" not in loaded
    probe = code + "print(sorted(m for m in sys.modules if m.startswith('benchsift.cli.')))"
    out = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True, timeout=120
    )
    assert out.stdout.strip().splitlines()[-1] == str(
        ["benchsift.cli._common", "benchsift.cli._output", "benchsift.cli.main"]
    )


def test_listed_help_is_each_commands_own() -> None:
    """The short help kept in COMMANDS is the first paragraph of the command's own help."""
    group = typer.main.get_command(app)
    for name, spec in COMMANDS.items():
        real = group.load(name)  # type: ignore[attr-defined]
        first = inspect.cleandoc(real.help or "").split("\n\n")[0].replace("\n", " ").strip()
        assert spec.short_help == first, name


def test_help_lists_every_command() -> None:
    r = CliRunner().invoke(app, ["--help"], terminal_width=200)
    assert r.exit_code == 0
    for name, spec in COMMANDS.items():
        assert any(
            line.split()[1:2] == [name] and spec.short_help[:40] in line for line in r.stdout.splitlines()
        ), name


@pytest.mark.parametrize("command", ["info", "importers", "simulate"])
def test_panel_commands_load_no_method_package(command: str) -> None:
    # `info` once loaded all of compression (2.7 s of imports, +90 MB) through a table module's import of
    # an annotation type; the panel commands need only panel, io and report
    code = f"import benchsift.cli.{command}\nimport sys\n"
    probe = code + (
        "print([m for m in ('benchsift.compression', 'benchsift.prism', 'benchsift.audit', 'scipy', "
        "'sklearn', 'matplotlib') if m in sys.modules])"
    )
    out = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True, timeout=120
    )
    assert out.stdout.strip().splitlines()[-1] == "[]"


def test_version_entry_imports_no_typer() -> None:
    """The console script's ``--version`` answers before the typer app is built: the same line as the
    app's own ``--version``, and neither typer nor click is imported."""
    code = (
        "import sys\nfrom benchsift.cli import entry\nsys.argv = ['benchsift', '--version']\nentry()\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] in ('typer', 'click', 'rich')))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=120
    )
    from benchsift._version import __version__

    assert out.stdout.splitlines() == [f"benchsift {__version__}", "[]"]
    app_out = subprocess.run(
        [
            sys.executable,
            "-c",
            "import sys\nfrom benchsift.cli.main import main\nsys.argv = ['b', '--version']\nmain()",
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert app_out.stdout.splitlines() == [f"benchsift {__version__}"]
