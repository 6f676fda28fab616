"""``python -m benchsift``."""

from benchsift.cli.main import main

main()
