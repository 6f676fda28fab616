"""``python -m benchsift``."""

from benchsift.cli import entry

entry()
