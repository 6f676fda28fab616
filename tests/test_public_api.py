"""The public names are what docs/API.md says they are, each one exists and is documented, and the
README's and docs/' examples use only them."""

from __future__ import annotations

import ast
import importlib
import inspect
import re
from pathlib import Path

import pytest

import benchsift

ROOT = Path(__file__).resolve().parents[1]
API_DOC = ROOT / "docs" / "API.md"

PACKAGES = [
    "benchsift.panel",
    "benchsift.stats",
    "benchsift.irt",
    "benchsift.leaderboard",
    "benchsift.simulate",
    "benchsift.io",
    "benchsift.redundancy",
    "benchsift.audit",
    "benchsift.compression",
    "benchsift.compression.selectors",
    "benchsift.compression.diagnostics",
    "benchsift.compression.protocols",
    "benchsift.compression.stages",
    "benchsift.compression.export",
    "benchsift.prism",
    "benchsift.clients",
    "benchsift.workflows",
    "benchsift.adaptive",
]


def _documented() -> dict[str, dict[str, str]]:
    """docs/API.md: package -> {name: description}, from its ``## `package` `` sections and their
    ``- `name`: description`` lines."""
    out: dict[str, dict[str, str]] = {}
    current: dict[str, str] | None = None
    for line in API_DOC.read_text(encoding="utf-8").splitlines():
        head = re.fullmatch(r"## `(benchsift[\w.]*)`", line)
        if head:
            current = out.setdefault(head.group(1), {})
            continue
        if line.startswith("## "):
            current = None
            continue
        item = re.fullmatch(r"- `(\w+)`: (.*)", line)
        if item and current is not None:
            assert item.group(1) not in current, f"docs/API.md lists {item.group(1)} twice"
            current[item.group(1)] = item.group(2).strip()
    return out


DOCUMENTED = _documented()


def test_top_level_names() -> None:
    assert set(benchsift.__all__) == {
        "BenchsiftError",
        "BenchsiftWarning",  # the warnings a notebook filters, and OutputError (Python API audit s32)
        "DegenerateError",
        "EstimateWarning",
        "FloorWarning",
        "FormatError",
        "GroupScores",
        "InputError",
        "OutputError",
        "Panel",
        "ResultWarning",
        "__version__",
        "compare",
    }


def test_api_doc_covers_exactly_the_packages() -> None:
    assert set(DOCUMENTED) == set(PACKAGES)


@pytest.mark.parametrize("name", PACKAGES)
def test_every_exported_name_exists_and_is_the_documented_surface(name: str) -> None:
    module = importlib.import_module(name)
    exported = getattr(module, "__all__", None)
    assert exported, f"{name} has no __all__"
    assert len(set(exported)) == len(exported), f"{name}.__all__ repeats a name"
    missing = [n for n in exported if not hasattr(module, n)]
    assert not missing, f"{name}.__all__ names missing attributes: {missing}"
    doc = DOCUMENTED[name]
    assert set(exported) == set(doc), (
        f"{name}: exported but not in docs/API.md: {sorted(set(exported) - set(doc))}; "
        f"in docs/API.md but not exported: {sorted(set(doc) - set(exported))}"
    )


@pytest.mark.parametrize("name", PACKAGES)
def test_every_exported_name_is_documented(name: str) -> None:
    module = importlib.import_module(name)
    undocumented = []
    for n in module.__all__:
        obj = getattr(module, n)
        if not DOCUMENTED[name][n]:
            undocumented.append(n)
        elif inspect.isfunction(obj) or inspect.isclass(obj):
            own = obj.__doc__ if inspect.isfunction(obj) else obj.__dict__.get("__doc__")
            if not (own and own.strip()):
                undocumented.append(n)
    assert not undocumented, f"{name}: no docstring: {undocumented}"


def _readme_imports() -> list[tuple[str, str]]:
    """``(package, name)`` of every ``from benchsift.X import name`` in the Python blocks of the README and
    of the pages of docs/."""
    pages = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
    text = "\n".join(p.read_text(encoding="utf-8") for p in pages)
    found = []
    for block in re.findall(r"```python\n(.*?)```", text, flags=re.S):
        for node in ast.walk(ast.parse(block)):
            if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("benchsift"):
                found.extend((node.module, a.name) for a in node.names)
    return found


def test_the_readme_uses_only_public_names() -> None:
    used = _readme_imports()
    assert len(used) >= 10  # the README's Python examples are found
    private = []
    for module, n in used:
        mod = importlib.import_module(module)
        if module in DOCUMENTED or module == "benchsift":
            if n not in mod.__all__:
                private.append(f"{module}.{n}")
        elif n.startswith("_"):
            private.append(f"{module}.{n}")
    assert not private, f"the README or docs/ import names outside the public API: {private}"


def test_error_tree() -> None:
    assert issubclass(benchsift.FormatError, benchsift.InputError)
    assert issubclass(benchsift.InputError, ValueError)
    assert issubclass(benchsift.DegenerateError, benchsift.BenchsiftError)
