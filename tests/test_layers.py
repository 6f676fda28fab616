"""The layers of docs/CONTRACTS.md hold, checked by import-linter (contracts in pyproject.toml), and each
rule bites: the same linter run on a temporary copy of the package with one violating import injected
reports that contract broken. Plus what import-linter cannot express: no import of another package's
private *name* (a ``_name`` defined in a module of another package), parsed with ``ast``.
"""

from __future__ import annotations

import ast
import os
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SRC = ROOT / "src"
CONFIG = ROOT / "pyproject.toml"


def _contract_ids() -> list[str]:
    with CONFIG.open("rb") as fh:
        return [c["id"] for c in tomllib.load(fh)["tool"]["importlinter"]["contracts"]]


def _lint(src: Path, config: Path, *contracts: str) -> subprocess.CompletedProcess[str]:
    """``lint-imports`` on the package under ``src`` (found first on PYTHONPATH), without a cache."""
    cmd = [sys.executable, "-c", "from importlinter.cli import lint_imports_command; lint_imports_command()"]
    cmd += ["--no-cache", "--no-logo", str(config)]
    for c in contracts:
        cmd += ["--contract", c]
    env = {**os.environ, "PYTHONPATH": str(src)}
    return subprocess.run(cmd, cwd=config.parent, env=env, capture_output=True, text=True, timeout=300)


def test_every_contract_is_kept() -> None:
    ids = _contract_ids()
    assert len(ids) == 8
    res = _lint(SRC, CONFIG)
    assert res.returncode == 0, res.stdout + res.stderr
    assert f"Contracts: {len(ids)} kept, 0 broken." in res.stdout


@pytest.fixture(scope="module")
def copy_root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A pristine copy of src/benchsift and pyproject.toml; each test copies it again before editing."""
    root = tmp_path_factory.mktemp("layers")
    shutil.copytree(
        SRC / "benchsift", root / "src" / "benchsift", ignore=shutil.ignore_patterns("__pycache__")
    )
    shutil.copy(CONFIG, root / "pyproject.toml")
    clean = _lint(root / "src", root / "pyproject.toml")  # the copy itself keeps every contract
    assert clean.returncode == 0, clean.stdout + clean.stderr
    return root


def _inject(copy_root: Path, tmp_path: Path, module: str, line: str) -> Path:
    work = tmp_path / "work"
    shutil.copytree(copy_root, work)
    path = work / "src" / Path(*module.split("."))
    path = path / "__init__.py" if path.is_dir() else path.with_suffix(".py")
    if path.exists():
        path.write_text(path.read_text() + f"\n{line}\n")
    else:
        path.write_text(f'"""An injected module."""\n\n{line}\n')
    return work


# (contract, module to edit or create, the violating import line, a module the report must name)
VIOLATIONS = [
    ("layers", "benchsift.report.html", "import benchsift.cli.main", "benchsift.cli.main"),
    ("layers", "benchsift.compression.estimate", "import benchsift.prism.scores", "benchsift.prism.scores"),
    ("layers", "benchsift.panel.long", "import benchsift.io.wide", "benchsift.io.wide"),
    ("layers", "benchsift.newtool", "import benchsift.errors", "benchsift.newtool"),  # exhaustive
    (
        "layers",
        "benchsift.report.figures",
        "import benchsift.workflows.outputs",
        "benchsift.workflows.outputs",
    ),
    ("layers", "benchsift.workflows.result", "import benchsift.cli._common", "benchsift.cli._common"),
    (
        "report-renders-only",
        "benchsift.report.figures",
        "from benchsift.compression.pipeline import run_pipeline",
        "benchsift.compression.pipeline",
    ),
    ("stats-irt-leaves", "benchsift.stats.means", "import benchsift.panel", "benchsift.panel"),
    ("stats-irt-leaves", "benchsift.irt.twopl", "import benchsift._fileio", "benchsift._fileio"),
    (
        "clients-not-prism",
        "benchsift.clients.base",
        "import benchsift.prism.scores",
        "benchsift.prism.scores",
    ),
    (
        "simulate-not-prism",
        "benchsift.simulate.verdicts",
        "from benchsift.prism import scores",
        "benchsift.prism",
    ),
    ("no-root-import", "benchsift.clients.transport", "from benchsift import __version__ as v", "benchsift"),
    ("library-not-rich", "benchsift.redundancy.instances", "import rich.progress", "rich"),
    ("private-modules", "benchsift.io.wide", "from benchsift.stats._random import SeedLike", "stats._random"),
]


@pytest.mark.parametrize(("contract", "module", "line", "named"), VIOLATIONS)
def test_a_violating_import_breaks_the_contract(
    copy_root: Path, tmp_path: Path, contract: str, module: str, line: str, named: str
) -> None:
    work = _inject(copy_root, tmp_path, module, line)
    res = _lint(work / "src", work / "pyproject.toml", contract)
    assert res.returncode == 1, res.stdout + res.stderr
    assert "BROKEN" in res.stdout and "0 kept, 1 broken" in res.stdout
    assert named in res.stdout


def test_every_contract_has_a_violation_test() -> None:
    assert {v[0] for v in VIOLATIONS} == set(_contract_ids())


# -- private names: ``from benchsift.x.y import _helper`` from outside package benchsift.x -----------------


def _packages(src: Path) -> set[str]:
    return {".".join(p.relative_to(src).parent.parts) for p in src.rglob("__init__.py")}


def private_name_imports(src: Path) -> list[str]:
    """``importer:line -> target`` for each import of a private name or module from outside the package
    that owns it (the nearest package holding the module that defines it)."""
    packages = _packages(src)
    found = []
    for path in sorted(src.rglob("*.py")):
        rel = path.relative_to(src).with_suffix("")
        parts = list(rel.parts[:-1]) if rel.name == "__init__" else list(rel.parts)
        here = ".".join(parts)
        package = parts if rel.name == "__init__" else parts[:-1]
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                targets = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = package[: len(package) - node.level + 1] if node.level else []
                mod = ".".join(base + ([node.module] if node.module else []))
                targets = [f"{mod}.{a.name}" for a in node.names]
            else:
                continue
            for target in targets:
                comps = target.split(".")
                if comps[0] != "benchsift":
                    continue
                first = next(
                    (i for i, c in enumerate(comps) if c.startswith("_") and not c.startswith("__")), None
                )
                if first is None:
                    continue
                owner = comps[:first]
                while owner and ".".join(owner) not in packages:
                    owner = owner[:-1]
                owner_name = ".".join(owner)
                if here != owner_name and not here.startswith(owner_name + "."):
                    found.append(f"{here}:{node.lineno} -> {target}")
    return found


def test_no_private_name_of_another_package_is_imported() -> None:
    assert private_name_imports(SRC) == []


def test_the_private_name_check_bites(copy_root: Path, tmp_path: Path) -> None:
    line = "from benchsift.irt.twopl import _px_rescale"
    found = private_name_imports(_inject(copy_root, tmp_path / "a", "benchsift.prism.scores", line) / "src")
    assert len(found) == 1
    assert found[0].startswith("benchsift.prism.scores:")
    assert found[0].endswith(" -> benchsift.irt.twopl._px_rescale")
    # inside the owning package the same import is fine
    assert (
        private_name_imports(_inject(copy_root, tmp_path / "b", "benchsift.irt.graded", line) / "src") == []
    )
