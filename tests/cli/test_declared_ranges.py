"""A range or a set of choices lives in one place: the library's declaration (issue 37).

The library declares what each public parameter may be (:mod:`benchsift._params`: ``validate_params``,
``_parameter_constraints``) and its message names the parameter in backticks, which the CLI's error boundary
writes as the flag (`` `n_boot` `` -> ``--n-boot``, `` `random_state` `` -> ``--seed``). An option that
feeds a declared parameter must not declare the range again in typer (``min=``, ``max=``, choices), where
the two drift apart (``prism audit --items`` took 1 in typer, the library needs 2). Walks every command's
options against every declaration of the package, then checks the prism options' messages: exit 2, one
line naming the flag and what was expected, nothing written.
"""

from __future__ import annotations

import enum
import importlib
import inspect
import pkgutil
from pathlib import Path
from typing import Any

import pytest
from _commands import all_commands
from typer.testing import CliRunner

import benchsift as benchsift_package
from benchsift.cli._common import as_options
from benchsift.cli.main import app
from benchsift.simulate.verdicts import simulate_verdicts

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
runner = CliRunner()


def _declared() -> dict[str, list[str]]:
    """Every parameter name a library declaration constrains, and where (``module.function``)."""
    out: dict[str, list[str]] = {}
    for info in pkgutil.walk_packages(benchsift_package.__path__, "benchsift."):
        if info.name.startswith(("benchsift.cli", "benchsift.__main__")):
            continue
        module = importlib.import_module(info.name)
        for name, obj in vars(module).items():
            found = getattr(obj, "__parameter_constraints__", None)
            if found is None and inspect.isclass(obj):
                found = getattr(obj, "_parameter_constraints", None)
            if isinstance(found, dict) and getattr(obj, "__module__", "") == info.name:
                for param in found:
                    out.setdefault(param, []).append(f"{info.name}.{name}")
    return out


def _restriction(param: Any) -> str | None:
    """What typer itself restricts an option to (a range or choices), or None."""
    said = []
    for holder in (param, getattr(param, "type", None)):
        for attr in ("min", "max"):
            if getattr(holder, attr, None) is not None:
                said.append(f"{attr}={getattr(holder, attr)}")
        if getattr(holder, "choices", None):
            said.append(f"choices={list(holder.choices)}")
    bare = getattr(param, "bare_type", None)
    if inspect.isclass(bare) and issubclass(bare, enum.Enum):
        said.append(f"choices={[m.value for m in bare]}")
    return ", ".join(dict.fromkeys(said)) or None


def _library_name(param: Any) -> str:
    """The library parameter an option stands for: its flag as the error boundary maps it back
    (``--seed`` is ``random_state``)."""
    flag = max(param.opts, key=len)
    names = {as_options(f"`{n}`"): n for n in ("random_state", param.name)}
    return names.get(flag, param.name)


def test_no_option_restates_a_range_or_choices_the_library_declares() -> None:
    declared = _declared()
    assert {"n_boot", "random_state", "budget", "items"} <= set(declared)  # the walk found the prism ones
    restated = []
    for path, command in all_commands():
        for param in command.params:
            said = _restriction(param)
            if said is None:
                continue
            name = _library_name(param)
            if name in declared:
                restated.append(f"{' '.join(path)} {max(param.opts, key=len)} ({said}): {declared[name][:2]}")
    assert restated == []


@pytest.fixture(scope="module")
def verdicts(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("verdicts") / "verdicts.csv"
    simulate_verdicts(4, 30, random_state=3).table.to_csv(path, index=False)
    return path


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["score", "{v}", "--n-boot", "0"], "--n-boot: expected an integer >= 1, got 0"),
        # the flag typed: --bootstrap is --n-boot's other name (the message named --n-boot, never typed)
        (["score", "{v}", "--bootstrap", "0"], "--bootstrap: expected an integer >= 1, got 0"),
        (["score", "{v}", "--seed", "-1"], "--seed: expected an integer >= 0, got -1"),
        (["score", "{v}", "--budget", "0"], "--budget: expected an integer >= 1 or None, got 0"),
        (["analyze", "--axis-means", "{t}", "--n-boot", "0"], "--n-boot: expected an integer >= 1, got 0"),
        (["analyze", "--axis-means", "{t}", "--seed", "-3"], "--seed: expected an integer >= 0, got -3"),
        (["audit", "{v}", "{v}", "--items", "1"], "--items: expected an integer >= 2, got 1"),
        (["audit", "{v}", "{v}", "--seed", "-1"], "--seed: expected an integer >= 0, got -1"),
    ],
)
def test_a_prism_option_out_of_range_is_one_line_naming_the_flag(
    verdicts: Path, tmp_path: Path, args: list[str], message: str
) -> None:
    table2 = FIXTURES / "prism" / "table2.csv"
    out = tmp_path / "out"
    argv = [a.format(v=verdicts, t=table2) for a in args]
    r = runner.invoke(app, ["prism", *argv, "--out", str(out)])
    assert r.exit_code == 2, r.output
    assert r.stderr.strip() == f"benchsift: error: {message}"
    assert r.stdout == ""
    assert not out.exists()
