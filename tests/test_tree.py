"""The tests mirror src/: one test folder per package, and the tests stay inside the repository.

* every top-level package ``benchsift.<name>`` has ``tests/<name>/``; every test folder is a package or
  subpackage of benchsift (``tests/compression/selectors`` <-> ``benchsift.compression.selectors``), except
  the shared ``fixtures``/``support`` folders and ``badinput`` (one case table over every command);
* no test skips itself on a benchsift import (``importorskip`` turns an import error into a skip), and no
  test names a path outside the repository (the papers and data in ``../shared`` are not in a clean clone).
"""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SRC = ROOT / "src" / "benchsift"
TESTS = ROOT / "tests"
SHARED = {"fixtures", "support", "badinput", "__pycache__"}


def _packages() -> set[str]:
    return {str(p.parent.relative_to(SRC)) for p in SRC.rglob("__init__.py") if p.parent != SRC}


def test_every_package_has_a_test_folder() -> None:
    top = {p for p in _packages() if "/" not in p}
    assert top, "no packages found"
    assert sorted(p for p in top if not (TESTS / p).is_dir()) == []


def test_every_test_folder_mirrors_a_package() -> None:
    folders = {
        str(d.relative_to(TESTS))
        for d in TESTS.rglob("*")
        if d.is_dir() and not (set(d.relative_to(TESTS).parts) & SHARED) and any(d.glob("test_*.py"))
    }
    assert folders, "no test folders found"
    assert sorted(folders - _packages()) == []


def offending_lines(text: str) -> list[str]:
    """Lines that skip on a benchsift import or name a path outside the repository."""
    bad = re.compile(
        r"importorskip\(\s*['\"]benchsift|\.\./shared|['\"]/work/|parents\[[2-9]\]\s*/\s*['\"]shared"
    )
    return [line.strip() for line in text.splitlines() if bad.search(line)]


def test_no_test_skips_on_benchsift_or_reads_outside_the_repository() -> None:
    me = Path(__file__).resolve()
    found = {
        str(p.relative_to(ROOT)): offending_lines(p.read_text(encoding="utf-8"))
        for p in TESTS.rglob("*.py")
        if p.resolve() != me
    }
    assert {k: v for k, v in found.items() if v} == {}


def test_the_line_check_bites() -> None:
    text = 'pytest.importorskip("benchsift.prism")\nPath("../shared/papers/x.txt")\nimport numpy\n'
    assert offending_lines(text) == [
        'pytest.importorskip("benchsift.prism")',
        'Path("../shared/papers/x.txt")',
    ]


#: the most statements-to-last-line a CLI command body may span: parse, call one library function, print
MAX_COMMAND_BODY = 40


def _long_command_bodies(source: str) -> list[tuple[str, int]]:
    """``(name, lines)`` of each ``*_command`` function in ``source`` whose body (after its docstring)
    spans more than :data:`MAX_COMMAND_BODY` lines."""
    import ast

    out = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.FunctionDef) and node.name.endswith("_command"):
            body = node.body[1:] if ast.get_docstring(node) is not None else node.body
            if body:
                n = (body[-1].end_lineno or body[-1].lineno) - body[0].lineno + 1
                if n > MAX_COMMAND_BODY:
                    out.append((node.name, n))
    return out


def test_cli_command_bodies_stay_thin() -> None:
    long = {
        str(p.relative_to(SRC)): found
        for p in sorted((SRC / "cli").glob("*.py"))
        if (found := _long_command_bodies(p.read_text(encoding="utf-8")))
    }
    assert long == {}, long
    # the check bites: a body of 41 statements is reported, one of 40 is not
    make = lambda n: "def x_command():\n    '''doc'''\n" + "    a = 1\n" * n  # noqa: E731
    assert _long_command_bodies(make(41)) == [("x_command", 41)] and _long_command_bodies(make(40)) == []


def _long_functions(text: str, limit: int = 120) -> list[tuple[str, int]]:
    """Functions (and methods) of ``text`` longer than ``limit`` lines, decorators and docstring included."""
    import ast

    out = []
    for node in ast.walk(ast.parse(text)):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            start = min([node.lineno, *(d.lineno for d in node.decorator_list)])
            n = (node.end_lineno or node.lineno) - start + 1
            if n > limit:
                out.append((node.name, n))
    return out


def test_no_function_over_120_lines() -> None:
    """Issue 37: god functions are split into named steps; no function in src/ exceeds 120 lines."""
    long = {
        str(p.relative_to(SRC)): found
        for p in sorted(SRC.rglob("*.py"))
        if (found := _long_functions(p.read_text(encoding="utf-8")))
    }
    assert long == {}, long
    # the check bites: a function of 121 lines is reported, one of 120 is not
    make = lambda n: "def f():\n" + "    a = 1\n" * (n - 1)  # noqa: E731
    assert _long_functions(make(121)) == [("f", 121)] and _long_functions(make(120)) == []
