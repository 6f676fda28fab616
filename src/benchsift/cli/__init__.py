"""The ``benchsift`` command line (a thin layer over the library).

:func:`entry` is the console script: ``benchsift --version`` prints the version without importing typer
(the command line's largest import, about two thirds of its start-up); every other command line goes to
:func:`benchsift.cli.main.main`.
"""

from __future__ import annotations

import sys


def entry() -> None:
    """Run ``benchsift`` with ``sys.argv`` (the console script and ``python -m benchsift``)."""
    if sys.argv[1:] == ["--version"]:
        from benchsift._version import __version__

        sys.stdout.write(f"benchsift {__version__}\n")
        return
    from benchsift.cli.main import main

    main()
