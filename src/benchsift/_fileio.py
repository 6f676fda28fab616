"""Output files: atomic, never over a file benchsift did not write, never a deleted user file.

Every writer in benchsift goes through :func:`atomic_path` (one file) or :func:`atomic_dir` (a directory
of files), so a failure (bad input found half-way, a crash, Ctrl-C) never leaves a half-written file
where a user expects a result, and nothing at all is created on failure (not even a parent directory).

The one rule for every output (issue 12):

* a missing output directory is created (on success only);
* every directory benchsift writes into gets a manifest, ``.benchsift-manifest.json``, naming each file
  benchsift wrote there with its size and sha256;
* an existing file is overwritten only when the manifest of its directory lists it with the same size and
  sha256 (a file benchsift wrote and nobody changed since); anything else is refused with an
  :class:`~benchsift.errors.InputError` (exit code 2 at the CLI) unless overwriting is allowed
  (:func:`allow_overwrite`, the CLI's ``--force``);
* a file path that is a directory, a directory path that is a file, or a parent that is a file is refused
  (``--force`` does not change that);
* :func:`atomic_dir` merges the new files into the directory; of the files it finds there it removes only
  the ones an earlier run of benchsift wrote (unchanged, per the manifest) and this run did not write
  again. A file benchsift did not write is never deleted, with or without ``--force``;
* new files get the permissions of the process's umask (``0o666 & ~umask``), not ``mkstemp``'s 0600.
"""

from __future__ import annotations

import contextvars
import hashlib
import json
import os
import shutil
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from benchsift.errors import InputError

__all__ = [
    "MANIFEST",
    "allow_overwrite",
    "atomic_dir",
    "atomic_path",
    "check_output_dir",
    "check_output_file",
    "force_overwrite",
]

#: Name of the manifest benchsift keeps in every directory it writes into.
MANIFEST = ".benchsift-manifest.json"

_FORCE: contextvars.ContextVar[bool] = contextvars.ContextVar("benchsift_force_overwrite", default=False)


@contextmanager
def allow_overwrite(flag: bool = True) -> Iterator[None]:
    """Within the block, writers may overwrite files benchsift did not write (the CLI's ``--force``)."""
    token = _FORCE.set(bool(flag))
    try:
        yield
    finally:
        _FORCE.reset(token)


def force_overwrite(flag: bool) -> None:
    """Allow (or not) overwriting for the rest of the current context (the CLI runs each command in a
    fresh :mod:`contextvars` context, so the setting ends with the command)."""
    _FORCE.set(bool(flag))


def _umask() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def _sha256(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def _read_manifest(folder: Path) -> dict[str, dict[str, Any]]:
    """``{file name: {"size", "sha256"}}`` from ``folder``'s manifest ({} when absent or unreadable)."""
    try:
        raw = json.loads((folder / MANIFEST).read_text(encoding="utf-8"))
        files = raw["files"]
    except (OSError, ValueError, KeyError, TypeError):
        return {}
    return {str(k): v for k, v in files.items() if isinstance(v, dict)} if isinstance(files, dict) else {}


def _write_manifest(folder: Path, files: dict[str, dict[str, Any]]) -> None:
    fd, name = tempfile.mkstemp(prefix=f"{MANIFEST}.", suffix=".tmp", dir=folder)
    with os.fdopen(fd, "w", encoding="utf-8") as fh:
        json.dump({"written_by": "benchsift", "files": dict(sorted(files.items()))}, fh, indent=1)
    os.chmod(name, 0o666 & ~_umask())
    os.replace(name, folder / MANIFEST)


def _owned(path: Path, manifest: dict[str, dict[str, Any]] | None = None) -> bool:
    """Whether ``path`` is a regular file that benchsift wrote and nobody changed since."""
    entry = (manifest if manifest is not None else _read_manifest(path.parent)).get(path.name)
    if entry is None or path.is_symlink() or not path.is_file():
        return False
    return entry.get("size") == path.stat().st_size and entry.get("sha256") == _sha256(path)


def _record(folder: Path, names: list[str]) -> None:
    """Add the files ``names`` of ``folder`` (just written) to its manifest."""
    files = _read_manifest(folder)
    for n in names:
        p = folder / n
        files[n] = {"size": p.stat().st_size, "sha256": _sha256(p)}
    _write_manifest(folder, files)


def _check_parents(target: Path) -> None:
    for parent in target.parents:
        if parent.exists():
            if not parent.is_dir():
                raise InputError(f"{target}: {parent} is a file, not a directory")
            return


def check_output_file(path: str | os.PathLike[str]) -> Path:
    """Refuse an output file path that cannot be written under the rule of this module; return it.

    Called by the CLI before any work, so a refusal comes before a long computation; the writers check
    again when they commit.
    """
    target = Path(path)
    if target.name in ("", ".", "..") or (target.exists() and target.is_dir() and not target.is_symlink()):
        raise InputError(f"{target}: is a directory; expected a file name")
    _check_parents(target)
    if target.name == MANIFEST:
        raise InputError(f"{target}: this name is reserved for benchsift's manifest")
    if (target.exists() or target.is_symlink()) and not _FORCE.get() and not _owned(target):
        raise InputError(f"{target}: exists and was not written by benchsift; not overwritten (see `force`)")
    return target


def check_output_dir(path: str | os.PathLike[str]) -> Path:
    """Refuse an output directory path that is a file (or lies under one); return it."""
    target = Path(path)
    if target.exists() and not target.is_dir():
        raise InputError(f"{target}: is a file; expected a directory")
    _check_parents(target)
    return target


def _nearest_existing(target: Path) -> Path:
    for parent in target.parents:
        if parent.is_dir():
            return parent
    return Path.cwd()


@contextmanager
def atomic_path(path: str | os.PathLike[str]) -> Iterator[Path]:
    """Yield a temporary file path; on success it is renamed onto ``path`` and recorded in the manifest.

    ``path`` is checked with :func:`check_output_file` first and again before the rename. Missing parent
    directories are created only on success. On any exception the temporary file is removed and
    ``path`` is left as it was.
    """
    target = check_output_file(path)
    fd, tmp_name = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=_nearest_existing(target))
    os.close(fd)
    tmp = Path(tmp_name)
    try:
        yield tmp
        check_output_file(target)
        target.parent.mkdir(parents=True, exist_ok=True)
        os.chmod(tmp, 0o666 & ~_umask())
        os.replace(tmp, target)
        _record(target.parent, [target.name])
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise


def _files_under(root: Path) -> list[Path]:
    return sorted(p.relative_to(root) for p in root.rglob("*") if p.is_file() or p.is_symlink())


@contextmanager
def atomic_dir(path: str | os.PathLike[str], *, prune: bool = True) -> Iterator[Path]:
    """Yield an empty temporary directory; on success its files are merged into ``path``.

    Before anything is moved, every destination is checked (a directory where a file goes, or a file
    benchsift did not write, refuses the whole write unless overwriting is allowed); then each file
    replaces its destination atomically and is recorded in the manifest of its directory. Files of an
    earlier benchsift run that this run did not write again are removed (only those, only unchanged)
    when ``prune`` is true (a suite directory then holds one run's files); ``prune=False`` keeps them
    (a folder that several commands write into, like ``redundancy --out``).
    On any exception the temporary directory is removed and ``path`` is left as it was.
    """
    target = check_output_dir(path)
    tmp = Path(tempfile.mkdtemp(prefix=".benchsift-", suffix=".tmp", dir=_nearest_existing(target / "x")))
    try:
        yield tmp
        check_output_dir(target)
        rels = [r for r in _files_under(tmp) if r.name != MANIFEST]
        force = _FORCE.get()
        manifests: dict[Path, dict[str, dict[str, Any]]] = {}
        for rel in rels:
            dest = target / rel
            _check_parents(dest)
            if dest.is_dir() and not dest.is_symlink():
                raise InputError(f"{dest}: is a directory where benchsift writes a file; nothing was written")
            if dest.exists() or dest.is_symlink():
                man = manifests.setdefault(dest.parent, _read_manifest(dest.parent))
                if not force and not _owned(dest, man):
                    raise InputError(
                        f"{dest}: exists and was not written by benchsift; nothing was written (see `force`)"
                    )
        by_dir: dict[Path, list[str]] = {}
        for rel in rels:
            dest = target / rel
            dest.parent.mkdir(parents=True, exist_ok=True)
            os.replace(tmp / rel, dest)
            by_dir.setdefault(dest.parent, []).append(dest.name)
        target.mkdir(parents=True, exist_ok=True)
        by_dir.setdefault(target, [])
        for folder, names in by_dir.items():
            old = _read_manifest(folder)
            fresh = set(names)
            for stale in sorted(set(old) - fresh) if prune else []:
                p = folder / stale
                if _owned(p, old):
                    p.unlink()
                del old[stale]
            _write_manifest(folder, old)
            _record(folder, names)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
