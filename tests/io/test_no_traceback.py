"""No importer fails with anything but a one-line benchsift error on any fixture file or a truncated copy
of one (the CLI turns those into one line and exit 2; anything else would print a traceback)."""

from __future__ import annotations

import shutil
import warnings
from pathlib import Path

import pytest

from benchsift.errors import BenchsiftError
from benchsift.io.registry import FORMATS, import_panel

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
FILES = sorted(p for p in FIXTURES.rglob("*") if p.is_file())


def _try_all_formats(path: Path) -> None:
    for fmt in FORMATS:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # third-party readers may warn on garbage; errors are the point
            try:
                import_panel(fmt, path, notes=[])
            except BenchsiftError as exc:
                message = str(exc)
                assert message.strip() and "\n" not in message.strip(), (fmt, path, message)
            except Exception as exc:  # noqa: BLE001 - the test is that nothing else escapes
                pytest.fail(f"import {fmt} {path}: {type(exc).__name__}: {exc}")


def test_fixture_files_found() -> None:
    assert len(FILES) > 50


@pytest.mark.parametrize("path", FILES, ids=lambda p: str(p.relative_to(FIXTURES)))
def test_every_importer_on_fixture_and_truncated_copy(path: Path, tmp_path: Path) -> None:
    _try_all_formats(path)
    copy = tmp_path / path.parent.name / path.name
    copy.parent.mkdir()
    data = path.read_bytes()
    copy.write_bytes(data[: len(data) // 2])
    _try_all_formats(copy)
    # a truncated log beside its folder's other files (results json, prediction files) too
    folder = tmp_path / "folder"
    shutil.copytree(path.parent, folder)
    (folder / path.name).write_bytes(data[: max(1, len(data) // 3)])
    _try_all_formats(folder / path.name)
