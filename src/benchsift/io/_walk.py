"""Directory import: walk the folders given for a tool's result files, read each, say what was skipped.

Every importer takes files and folders. A file named by the user must be readable in the format (else the
usual one-line error). A folder is walked (sorted, recursively) for file names matching the format's patterns;
each found file is resolved (symlinks followed) and read only when it lies inside the resolved folder (else
skipped with a warning; so is a linked folder whose target lies outside) and was not read already (VLMEvalKit
links its result files from ``<model>/<eval_id>/`` into ``<model>/``). A found file that is not of the format
(:class:`NotThisFormat`, e.g. inspect's ``logs.json`` listing) is skipped with a note; one that is of the
format but unreadable (:class:`~benchsift.errors.FormatError`) is skipped with a warning naming it and why.
Errors that need the user's choice (:class:`~benchsift.errors.InputError`: several scorers, metrics, filters)
stop the import as for a file. The summary note says how many files were read and skipped.

The root: each file is read with the folder it was found in (resolved), or, for a file given by name, the
resolved folder that holds it. A reader that opens a file other than the one it was handed (a results
json, run spec or aggregate beside it, a schema above it) opens it only through :func:`side_file`: a
regular file (not a FIFO or device) that resolves inside that root; one that links outside it is treated
as absent, with a warning naming it, as a walked file linking outside is.
"""

from __future__ import annotations

import fnmatch
import os
import stat
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TypeVar

from benchsift.errors import FormatError, InputError

T = TypeVar("T")


class NotThisFormat(FormatError):
    """A file found in a folder walk that is not a result file of the format being imported."""


def root_of(given: Path) -> Path:
    """The root a reader reads within for a path the user gave: a folder itself (as given, for messages;
    :func:`inside` resolves it), or the folder that holds a file given by name (resolved: the folder of the
    file a symbolic link names)."""
    return given if given.is_dir() else given.resolve().parent


def inside(path: Path, root: Path) -> bool:
    """Whether ``path`` resolves (symlinks followed) to a place inside the folder ``root``."""
    try:
        return path.resolve().is_relative_to(root.resolve())
    except (OSError, RuntimeError):  # a symlink loop
        return False


def _regular(path: Path) -> bool:
    try:
        return stat.S_ISREG(os.stat(path).st_mode)  # a FIFO or a device is never opened (it could block)
    except (OSError, ValueError):
        return False


def side_file(path: Path, root: Path, notes: list[str] | None) -> Path | None:
    """``path`` when a reader may open it beside (or above) the file it reads: a regular file that
    resolves inside ``root`` (module docstring); else None, as if absent. One that links outside ``root``
    adds a warning to ``notes`` naming it (once)."""
    if not _regular(path):
        return None
    if inside(path, root):
        return path
    if notes is not None:
        how = "links" if path.is_symlink() else "lies"
        warning = f"warning: skipped {path}: {how} outside the folder {root} (not read)"
        if warning not in notes:
            notes.append(warning)
    return None


def find_files(root: Path, patterns: Sequence[str]) -> tuple[list[Path], list[Path]]:
    """Files under ``root`` whose name matches one of the glob ``patterns`` (case-insensitive), sorted:
    those that resolve to a place inside ``root``, and those that link outside it (never read), with every
    symbolic link to a folder outside ``root`` among the latter (the walk does not descend into linked
    folders; one whose target is inside ``root`` is walked there, one outside would otherwise vanish
    without a word)."""
    base = root.resolve()
    found: list[Path] = []
    outside: list[Path] = []
    for p in sorted(root.rglob("*")):
        if p.is_symlink() and p.is_dir():
            if not p.resolve().is_relative_to(base):
                outside.append(p)
            continue
        if not any(fnmatch.fnmatch(p.name.lower(), pat.lower()) for pat in patterns) or not p.is_file():
            continue
        (found if p.resolve().is_relative_to(base) else outside).append(p)
    return found, outside


def walk_inputs(
    given: Sequence[Path],
    patterns: Sequence[str],
    read: Callable[[Path, list[str] | None, Path], T | None],
    *,
    notes: list[str] | None,
    what: str,
) -> tuple[list[T], list[Path]]:
    """Read every given file and every matching file below every given folder.

    ``read(path, notes, root)`` returns what one file holds (a long table, for most readers), or None for
    a file that holds nothing to import, which counts as skipped (it then adds its own note); ``root`` is
    the folder it may read other files in (:func:`root_of` the given path; module docstring). Returns the
    parts and the files read.
    """
    parts: list[T] = []
    files: list[Path] = []
    seen: set[Path] = set()
    for path in given:
        root = root_of(path)
        if not path.is_dir():
            table = read(path, notes, root)
            if table is not None:
                parts.append(table)
                files.append(path)
            continue
        n_read = 0
        matching, outside = find_files(path, patterns)
        # why each file was skipped, for the summary note and for the error when nothing was read
        why = [(p, f"links outside the folder {path} (not read)") for p in outside]
        if notes is not None:
            notes.extend(f"warning: skipped {p}: {reason}" for p, reason in why)
        for found in matching:
            real = found.resolve()
            if real in seen:
                continue
            seen.add(real)
            try:
                table = read(found, notes, root)
            except NotThisFormat as exc:
                why.append((found, _reason(exc, found)))
                if notes is not None:
                    notes.append(f"skipped {found}: {why[-1][1]}")
                continue
            except FormatError as exc:
                why.append((found, _reason(exc, found)))
                if notes is not None:
                    notes.append(f"warning: skipped {found}: {why[-1][1]}")
                continue
            if table is None:
                why.append((found, "nothing to import"))
                continue
            parts.append(table)
            files.append(found)
            n_read += 1
        if notes is not None:
            notes.append(f"{path}: read {n_read} {what} file(s), skipped {len(why)}")
        if n_read == 0:
            first = f"; skipped {len(why)}, first {why[0][0].name}: {why[0][1]}" if why else ""
            raise InputError(
                f"{path}: no readable {what} in this folder (looked for {list(patterns)}){first}"
            )
    if not parts:
        raise InputError(f"{given[0]}: no {what} to import")
    return parts, files


def _reason(exc: Exception, path: Path) -> str:
    text = str(exc)
    prefix = f"{path}"
    return text[len(prefix) :].lstrip(":, ") if text.startswith(prefix) else text
