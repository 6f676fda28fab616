"""Start-up time of the CLI and of ``import benchsift``, against an interpreter that does nothing.

Issue 13 target: ``benchsift --help`` and ``benchsift --version`` start in well under a second. Four
commands, each a fresh process, timed wall-clock from spawn to exit:

* ``benchsift --help`` and ``benchsift --version`` (the console script installed next to the interpreter);
* ``python -c 'import benchsift'``;
* the strongest simple baseline for ``--version``: a bare one-command click app with click's
  ``version_option`` (``python -c``);
* ``python -c pass``: the interpreter's own start-up, the floor every command pays.

``benchsift --version`` is answered by :func:`benchsift.cli.entry` before typer is imported (the console
script points there since issue 36; an environment installed before then still runs the typer app until
it is reinstalled).

The commands run alternately (one of each per round, ``--repeats`` rounds), so a burst of load hits all of
them; the table shows min / median seconds (benchmarks/_timing.py) and the load average before and after.
``--baseline-python PATH`` times the same four commands with another interpreter's benchsift in the same
rounds (e.g. a checkout of an older commit installed in its own virtual environment), so before / after
are measured side by side.

Run: ``python benchmarks/bench_startup.py [--repeats 15] [--baseline-python PATH] [--json FILE]``.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from pathlib import Path

from _timing import Timing, machine_line

COMMANDS = {
    "benchsift --help": ["--help"],
    "benchsift --version": ["--version"],
    "python -c 'import benchsift'": None,
    "baseline: bare click app --version": None,
    "python -c pass": None,
}
#: the strongest simple baseline for ``--version``: a one-command click app with click's version option
_CLICK_APP = (
    "import click\n@click.command()\n@click.version_option('0', prog_name='benchsift')\n"
    "def cli():\n    pass\ncli(['--version'])"
)


def _argv(python: str, label: str) -> list[str]:
    if label == "python -c pass":
        return [python, "-c", "pass"]
    if label == "python -c 'import benchsift'":
        return [python, "-c", "import benchsift"]
    if label == "baseline: bare click app --version":
        return [python, "-c", _CLICK_APP]
    script = Path(python).parent / "benchsift"
    head = [str(script)] if script.exists() else [python, "-m", "benchsift"]
    return head + list(COMMANDS[label] or [])


def _run(argv: list[str]) -> float:
    t0 = time.perf_counter()
    subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
    return time.perf_counter() - t0


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--repeats", type=int, default=15)
    ap.add_argument("--python", default=sys.executable, help="the interpreter whose benchsift is timed")
    ap.add_argument("--baseline-python", default=None, help="another interpreter, timed in the same rounds")
    ap.add_argument("--json", default=None, help="also write every repeat's seconds to this file")
    args = ap.parse_args()
    sides = {"this": args.python}
    if args.baseline_python:
        sides["baseline"] = args.baseline_python
    print(machine_line())
    for python in sides.values():  # warm the file cache and the bytecode once, untimed
        for label in COMMANDS:
            _run(_argv(python, label))
    seconds: dict[tuple[str, str], list[float]] = {(s, c): [] for s in sides for c in COMMANDS}
    for _ in range(max(1, args.repeats)):
        for label in COMMANDS:
            for side, python in sides.items():
                seconds[(side, label)].append(_run(_argv(python, label)))
    print(machine_line())
    width = max(len(c) for c in COMMANDS)
    header = f"{'command':<{width}}  " + "  ".join(f"{s + ' (min / median s)':>26}" for s in sides)
    print(header)
    for label in COMMANDS:
        cells = "  ".join(f"{Timing(tuple(seconds[(s, label)]), None).cell():>26}" for s in sides)
        print(f"{label:<{width}}  {cells}")
    if args.json:
        rows = [{"side": s, "python": sides[s], "command": c, "seconds": v} for (s, c), v in seconds.items()]
        Path(args.json).write_text(json.dumps(rows, indent=2) + "\n")


if __name__ == "__main__":
    main()
