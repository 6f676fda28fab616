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
* each manifest entry names the command that wrote the file (``"command"``: the CLI's command, ``compare``,
  ``redundancy instances``, set for a command's run by :func:`output_command`); several commands may write
  into one folder, and each keeps its own files there (issue 33);
* :func:`atomic_dir` merges the new files into the directory; of the files it finds there it removes only
  the ones an earlier run *of the same command* wrote (unchanged, per the manifest) and this run did not
  write again, so a rerun's folder holds no stale result of the earlier run and keeps every other
  command's. A file benchsift did not write is never deleted, with or without ``--force``; a file of an
  older benchsift, whose manifest names no command, is never deleted by a command's run (it is replaced
  when a run writes the same name);
* a command whose folder write would replace a file another command wrote there (a name both write, such
  as ``items.csv`` of ``audit`` and of ``compress``) is refused in one line naming the file and the other
  command, before anything is moved, with or without ``--force``: the folder keeps both results whole
  (the page, :data:`SHARED_NAMES`, is every command's and is rewritten by each);
* a command's page is checked up front (:func:`check_output_page`, the test :func:`atomic_path` applies),
  so that a page benchsift would not overwrite refuses the run before any of its files are written;
* new files get the permissions of the process's umask (``0o666 & ~umask``), not ``mkstemp``'s 0600;
* an environment that does not take the write (a full disk or quota, a file-size limit, a read-only file
  system, no permission: :data:`ENVIRONMENT_ERRNOS`) raises :class:`~benchsift.errors.OutputError`, one
  line naming the output and the error (exit code 2 at the CLI), after the temporary file or directory and
  any directory the write created are removed. A folder that cannot be written into is refused before any
  work (:func:`check_output_file`, :func:`check_output_dir`).

A manifest is never trusted (issue 32): anyone who hands the user a folder can plant one. Of a manifest,
benchsift acts only on entries whose name is a plain file name of the manifest's own folder (no ``/``,
``\\``, NUL, ``.``/``..``, not the manifest itself) with an integer ``size`` and a 64-hex ``sha256``; a file
is then treated as benchsift's only when :func:`os.lstat` finds a regular file (not a symbolic link) of
that size and its bytes hash to that sha256. Files are written and pruned only in real directories inside
the output folder: a symbolic link on the way from the output folder to a file is refused. Every other
entry, and a manifest that is not a JSON object ``{"files": {...}}`` (a symbolic link, a FIFO, bad or too
deeply nested JSON, a list, over :data:`MAX_MANIFEST_BYTES`), is ignored with a
:class:`~benchsift.errors.BenchsiftWarning`, and nothing it names is removed or overwritten. A manifest
path that is a directory refuses the write before anything is moved in.
"""

from __future__ import annotations

import contextvars
import errno
import hashlib
import json
import os
import re
import shutil
import stat
import tempfile
import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, BinaryIO

from benchsift.errors import BenchsiftWarning, FormatError, InputError, OutputError, listed

if TYPE_CHECKING:
    import pyarrow.parquet as pq

__all__ = [
    "ENVIRONMENT_ERRNOS",
    "FORMULA_START",
    "MANIFEST",
    "MAX_LINE_BYTES",
    "MAX_MANIFEST_BYTES",
    "SHARED_NAMES",
    "allow_overwrite",
    "as_command",
    "atomic_dir",
    "atomic_path",
    "bounded_lines",
    "check_output_dir",
    "check_output_file",
    "check_output_page",
    "force_overwrite",
    "from_spreadsheet",
    "open_regular",
    "output_command",
    "read_regular",
    "spreadsheet_cell",
    "spreadsheet_frame",
]

#: Name of the manifest benchsift keeps in every directory it writes into.
MANIFEST = ".benchsift-manifest.json"

#: Largest manifest benchsift reads (one entry takes about 120 bytes: 8 MiB lists some 70,000 files);
#: a larger one is ignored with a warning.
MAX_MANIFEST_BYTES = 8 << 20

_SHA256 = re.compile(r"[0-9a-f]{64}")

#: File names every command writing into a folder shares: the folder's page, which each command rewrites
#: over all the folder's files. They are recorded with no command, never refused as another command's and
#: never pruned by a command's run.
SHARED_NAMES = frozenset({"index.html"})

#: Longest command name a manifest entry may carry (a longer or non-text one is read as no command).
_MAX_COMMAND = 200

#: errno values of an environment that does not take a write: a full disk or quota, a file-size limit, a
#: read-only file system, no permission, an I/O error
ENVIRONMENT_ERRNOS = frozenset(
    getattr(errno, name)
    for name in ("ENOSPC", "EDQUOT", "EFBIG", "EROFS", "EACCES", "EPERM", "EIO")
    if hasattr(errno, name)
)


def output_error(
    exc: BaseException, target: Path, tmp: Path | None = None, moved: str = ""
) -> OutputError | None:
    """The :class:`~benchsift.errors.OutputError` for ``exc`` met while writing ``target`` (through the
    temporary path ``tmp``), or None when ``exc`` is not an ``OSError`` of :data:`ENVIRONMENT_ERRNOS`.

    The message names the file the error names (a temporary one as the output it stands for; ``target``
    when it names none), the error and its errno name, then what was written: nothing, or ``moved``.
    """
    if not isinstance(exc, OSError) or exc.errno is None or exc.errno not in ENVIRONMENT_ERRNOS:
        return None
    code = exc.errno
    shown = target
    if exc.filename is not None:
        named = Path(os.path.abspath(os.fsdecode(exc.filename)))
        inside = None if tmp is None else Path(os.path.abspath(tmp))
        if inside is None or not (named == inside or inside in named.parents):
            shown = Path(os.fsdecode(exc.filename))
        elif named != inside:
            shown = target / named.relative_to(inside)
    why = os.strerror(code)  # pyarrow's strerror is a paragraph
    return OutputError(f"{shown}: {why} [{errno.errorcode[code]}]; {moved or 'nothing was written'}")


def _check_writable(target: Path, folder: Path) -> None:
    """Refuse the output ``target`` when ``folder`` (the nearest existing one it is written into) cannot be
    written into (no permission, a read-only file system), before any work."""
    if os.access(folder, os.W_OK | os.X_OK):
        return
    try:
        read_only = bool(os.statvfs(folder).f_flag & os.ST_RDONLY)
    except (OSError, AttributeError):
        read_only = False
    code = errno.EROFS if read_only else errno.EACCES
    raise OutputError(
        f"{target}: cannot write into {folder}: {os.strerror(code)} [{errno.errorcode[code]}];"
        " nothing was written"
    )


def _missing_dirs(folder: Path) -> list[Path]:
    """The folders from ``folder`` up that do not exist yet (deepest first): a failed write removes them."""
    out = []
    for d in [folder, *folder.parents]:
        if os.path.lexists(d):
            break
        out.append(d)
    return out


def _remove_dirs(dirs: list[Path]) -> None:
    for d in dirs:  # deepest first; only empty ones go
        try:
            os.rmdir(d)
        except OSError:
            pass


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


@dataclass
class _Run:
    """One run of a command: its name and the files it wrote so far (absolute paths)."""

    command: str
    written: set[str] = field(default_factory=set)


_RUN: contextvars.ContextVar[_Run | None] = contextvars.ContextVar("benchsift_output_command", default=None)


def output_command(command: str | None) -> None:
    """For the rest of the current context (the CLI runs each command in a fresh :mod:`contextvars`
    context), record every file benchsift writes as ``command``'s (the CLI's command without the program,
    ``compare``, ``redundancy instances``; None or "": no command) and let every folder write
    (:func:`atomic_dir`) replace that command's earlier files there, whatever its ``prune``."""
    _RUN.set(_Run(command) if command else None)


@contextmanager
def as_command(command: str | None) -> Iterator[None]:
    """Within the block, the writes are ``command``'s run (:func:`output_command`)."""
    token = _RUN.set(_Run(command) if command else None)
    try:
        yield
    finally:
        _RUN.reset(token)


def _command_of(entry: dict[str, Any]) -> str | None:
    """The command a (valid) manifest entry names, or None (an older benchsift's entry, or a bad name)."""
    name = entry.get("command")
    return name if isinstance(name, str) and 0 < len(name) <= _MAX_COMMAND else None


def _wrote(path: Path) -> None:
    run = _RUN.get()
    if run is not None:
        run.written.add(os.path.abspath(path))


def _umask() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def _sha256(path: Path) -> str:
    h = hashlib.sha256()
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
    with os.fdopen(fd, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def _plain_name(name: object) -> bool:
    """Whether a manifest key is what :func:`_record` writes: a plain file name of the manifest's folder."""
    if not isinstance(name, str) or name in ("", ".", "..", MANIFEST):
        return False
    if "/" in name or "\\" in name or "\0" in name:
        return False
    try:
        os.fsencode(name)  # a lone surrogate has no file name
    except UnicodeError:
        return False
    return True


def _plain_entry(value: object) -> bool:
    """Whether a manifest value is ``{"size": <int >= 0>, "sha256": <64 hex digits>}``."""
    if not isinstance(value, dict):
        return False
    size, digest = value.get("size"), value.get("sha256")
    return (
        type(size) is int and size >= 0 and isinstance(digest, str) and _SHA256.fullmatch(digest) is not None
    )


def _ignored(path: Path, why: str) -> None:
    warnings.warn(
        f"{path}: {why}; ignored (nothing it names is removed or overwritten)", BenchsiftWarning, stacklevel=3
    )


def _read_manifest(folder: Path) -> dict[str, dict[str, Any]]:
    """``{file name: {"size", "sha256"}}`` from ``folder``'s manifest: its valid entries only ({} when it is
    absent); whatever else it holds is ignored with a :class:`~benchsift.errors.BenchsiftWarning`."""
    path = folder / MANIFEST
    try:
        st = os.lstat(path)
    except (FileNotFoundError, NotADirectoryError):
        return {}
    except OSError as exc:
        _ignored(path, f"not read ({exc.strerror})")
        return {}
    if stat.S_ISLNK(st.st_mode):
        _ignored(path, "is a symbolic link, not benchsift's manifest")
        return {}
    if not stat.S_ISREG(st.st_mode):
        _ignored(path, "is not a regular file, not benchsift's manifest")
        return {}
    if st.st_size > MAX_MANIFEST_BYTES:
        _ignored(path, f"is {st.st_size} bytes, over the {MAX_MANIFEST_BYTES} a manifest may have")
        return {}
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0))
        with os.fdopen(fd, "rb") as fh:
            raw = json.loads(fh.read(MAX_MANIFEST_BYTES + 1).decode("utf-8"))
    except OSError as exc:
        _ignored(path, f"not read ({exc.strerror})")
        return {}
    except (ValueError, RecursionError):  # UnicodeDecodeError and JSONDecodeError are ValueErrors
        _ignored(path, "is not valid JSON (or nested too deeply)")
        return {}
    files = raw.get("files") if isinstance(raw, dict) else None
    if not isinstance(files, dict):
        _ignored(path, 'is not a JSON object with a "files" object, not benchsift\'s manifest')
        return {}
    good = {k: v for k, v in files.items() if _plain_name(k) and _plain_entry(v)}
    bad = [k for k in files if k not in good]
    if bad:
        what = "entry" if len(bad) == 1 else "entries"
        _ignored(
            path,
            f"{len(bad)} {what} {listed(bad, 3)} {'is' if len(bad) == 1 else 'are'} not a plain file name of"
            " this folder with an integer size and a sha256",
        )
    return good


def _write_manifest(folder: Path, files: dict[str, dict[str, Any]]) -> None:
    fd, name = tempfile.mkstemp(prefix=f"{MANIFEST}.", suffix=".tmp", dir=folder)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            json.dump({"written_by": "benchsift", "files": dict(sorted(files.items()))}, fh, indent=1)
        os.chmod(name, 0o666 & ~_umask())
        os.replace(name, folder / MANIFEST)
    except BaseException:
        Path(name).unlink(missing_ok=True)
        raise


def _owned_entry(path: Path, entry: dict[str, Any] | None) -> bool:
    """Whether ``path`` is a regular file (:func:`os.lstat`: not a symbolic link) of the size and sha256 of
    the manifest entry ``entry`` (a valid one, from :func:`_read_manifest`)."""
    if entry is None:
        return False
    try:
        st = os.lstat(path)
        return stat.S_ISREG(st.st_mode) and st.st_size == entry["size"] and _sha256(path) == entry["sha256"]
    except OSError:
        return False


def _owned(path: Path, manifest: dict[str, dict[str, Any]] | None = None) -> bool:
    """Whether ``path`` is a regular file that benchsift wrote and nobody changed since."""
    files = manifest if manifest is not None else _read_manifest(path.parent)
    return _owned_entry(path, files.get(path.name))


def _check_manifest_slot(folder: Path) -> None:
    """Refuse a folder whose manifest path is a directory (benchsift could not record what it writes)."""
    path = folder / MANIFEST
    try:
        is_dir = stat.S_ISDIR(os.lstat(path).st_mode)
    except OSError:
        return
    if is_dir:
        raise InputError(f"{path}: is a directory where benchsift keeps its manifest; nothing was written")


def _check_real_dirs(target: Path, rel: Path) -> None:
    """Refuse a symbolic link (or a file) on the way from the output folder ``target`` to ``target / rel``:
    benchsift writes and prunes only in real directories inside the folder it was given."""
    here = target
    for part in rel.parent.parts:
        here = here / part
        try:
            mode = os.lstat(here).st_mode
        except FileNotFoundError:
            return  # created by this write, as a real directory
        if stat.S_ISLNK(mode):
            raise InputError(
                f"{here}: is a symbolic link inside the output folder {target}; benchsift writes only into"
                " real directories there; nothing was written"
            )
        if not stat.S_ISDIR(mode):
            raise InputError(f"{target / rel}: {here} is a file, not a directory")
        _check_manifest_slot(here)


def _record(folder: Path, names: list[str], command: str | None = None) -> None:
    """Add the files ``names`` of ``folder`` (just written by ``command``) to its manifest."""
    files = _read_manifest(folder)
    for n in names:
        p = folder / n
        entry: dict[str, Any] = {"size": p.stat().st_size, "sha256": _sha256(p)}
        if command and n not in SHARED_NAMES:
            entry["command"] = command
        files[n] = entry
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
    _check_manifest_slot(target.parent)
    _check_writable(target, _nearest_existing(target))
    if (target.exists() or target.is_symlink()) and not _FORCE.get() and not _owned(target):
        raise InputError(f"{target}: exists and was not written by benchsift; not overwritten (see `force`)")
    return target


def check_output_dir(path: str | os.PathLike[str]) -> Path:
    """Refuse an output directory path that is a file (or lies under one); return it."""
    target = Path(path)
    if target.exists() and not target.is_dir():
        raise InputError(f"{target}: is a file; expected a directory")
    _check_parents(target)
    _check_writable(target, _nearest_existing(target / MANIFEST))
    return target


def check_output_page(folder: str | os.PathLike[str], name: str = "index.html") -> None:
    """Refuse, before any work, the output folder ``folder`` when benchsift would refuse to replace the page
    ``folder/name`` it writes last: the test of :func:`atomic_path` (a page that its folder's manifest does
    not list unchanged, one the user edited since, is not overwritten unless overwriting is allowed), so
    that a refused page leaves every other file of the folder as it was (issue 33). A folder that does not
    exist yet has no page to check."""
    page = Path(folder) / name
    if not Path(folder).is_dir():
        return
    if (page.exists() or page.is_symlink()) and not page.is_dir() and not _FORCE.get() and not _owned(page):
        raise InputError(
            f"{page}: exists and was not written by benchsift (or was changed since); nothing was written "
            "(see `force`)"
        )
    check_output_file(page)


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
    created = _missing_dirs(target.parent)
    folder = _nearest_existing(target)
    try:
        fd, tmp_name = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=folder)
    except OSError as exc:
        err = output_error(exc, target)
        if err is None:
            raise
        raise err from exc
    os.close(fd)
    tmp = Path(tmp_name)
    moved = ""
    try:
        yield tmp
        check_output_file(target)
        target.parent.mkdir(parents=True, exist_ok=True)
        os.chmod(tmp, 0o666 & ~_umask())
        os.replace(tmp, target)
        _wrote(target)
        moved = f"{target} was written, but not recorded in {target.parent / MANIFEST}"
        run = _RUN.get()
        _record(target.parent, [target.name], run.command if run is not None else None)
    except BaseException as exc:
        tmp.unlink(missing_ok=True)
        if not moved:
            _remove_dirs(created)
        err = output_error(exc, target, tmp, moved)
        if err is None:
            raise
        raise err from exc


def _files_under(root: Path) -> list[Path]:
    return sorted(p.relative_to(root) for p in root.rglob("*") if p.is_file() or p.is_symlink())


def _check_destinations(
    target: Path, rels: list[Path], command: str | None
) -> dict[Path, dict[str, dict[str, Any]]]:
    """Refuse the folder write of ``rels`` into ``target`` by ``command`` before anything is moved: a
    directory where a file goes, a file benchsift did not write (unless overwriting is allowed), a file
    another command wrote there (always); return the manifests read, by folder."""
    force = _FORCE.get()
    manifests: dict[Path, dict[str, dict[str, Any]]] = {}
    _check_manifest_slot(target)
    for rel in rels:
        dest = target / rel
        _check_parents(dest)
        _check_real_dirs(target, rel)
        if dest.is_dir() and not dest.is_symlink():
            raise InputError(f"{dest}: is a directory where benchsift writes a file; nothing was written")
        if not (dest.exists() or dest.is_symlink()):
            continue
        man = manifests.setdefault(dest.parent, _read_manifest(dest.parent))
        if not _owned(dest, man):
            if not force:
                raise InputError(
                    f"{dest}: exists and was not written by benchsift; nothing was written (see `force`)"
                )
            continue
        other = _command_of(man[dest.name])
        if command and other and other != command and dest.name not in SHARED_NAMES:
            raise InputError(
                f"{dest}: written there by `benchsift {other}`, and `benchsift {command}` writes a file of "
                f"the same name; nothing was written (choose another folder, or move {other}'s files out of "
                "this one)"
            )
    return manifests


def _prune_and_record(
    folder: Path, old: dict[str, dict[str, Any]], names: list[str], command: str | None, prune: bool
) -> None:
    """Record the files ``names`` that ``command`` just wrote into ``folder`` (whose manifest read before
    the write is ``old``); with ``prune``, first remove the files an earlier run of the same command wrote
    there (unchanged) that this run did not write, and forget their entries. Files of other commands (and,
    in a command's run, of no known command) are kept."""
    run = _RUN.get()
    for stale in sorted(set(old) - set(names)) if prune else []:
        p = folder / stale  # a plain name (_read_manifest) in a real directory (_check_real_dirs)
        if _command_of(old[stale]) != command or (run is not None and os.path.abspath(p) in run.written):
            continue
        if _owned_entry(p, old[stale]):
            p.unlink()
        del old[stale]
    _write_manifest(folder, old)
    _record(folder, names, command)


@contextmanager
def atomic_dir(
    path: str | os.PathLike[str], *, prune: bool = True, command: str | None = None
) -> Iterator[Path]:
    """Yield an empty temporary directory; on success its files are merged into ``path``.

    Before anything is moved, every destination is checked (a directory where a file goes, or a file
    benchsift did not write, refuses the whole write unless overwriting is allowed; a file another command
    wrote there refuses it always); then each file replaces its destination atomically and is recorded in
    the manifest of its directory as the command's: the run's (:func:`output_command`), else ``command``.
    Files an earlier run of the same command wrote there that this run did not write again are removed
    (only those, only unchanged; not those this run wrote earlier) in a command's run, and else when
    ``prune`` is true; ``prune=False`` outside a command's run keeps them (files that accumulate, such as
    :func:`benchsift.io.eee.write_eee`'s). Files of other commands always stay.
    On any exception the temporary directory is removed and ``path`` is left as it was.
    """
    target = check_output_dir(path)
    run = _RUN.get()
    label = run.command if run is not None else command
    created = _missing_dirs(target)
    try:
        tmp = Path(tempfile.mkdtemp(prefix=".benchsift-", suffix=".tmp", dir=_nearest_existing(target / "x")))
    except OSError as exc:
        err = output_error(exc, target)
        if err is None:
            raise
        raise err from exc
    n_moved = 0
    try:
        yield tmp
        check_output_dir(target)
        rels = [r for r in _files_under(tmp) if r.name != MANIFEST]
        manifests = _check_destinations(target, rels, label)
        by_dir: dict[Path, list[str]] = {}
        for rel in rels:
            dest = target / rel
            created += [d for d in _missing_dirs(dest.parent) if d not in created]
            dest.parent.mkdir(parents=True, exist_ok=True)
            os.replace(tmp / rel, dest)
            n_moved += 1
            by_dir.setdefault(dest.parent, []).append(dest.name)
        target.mkdir(parents=True, exist_ok=True)
        by_dir.setdefault(target, [])
        for folder, names in by_dir.items():
            old = manifests[folder] if folder in manifests else _read_manifest(folder)
            _prune_and_record(folder, old, names, label, prune or run is not None)
            for name in names:
                _wrote(folder / name)
    except BaseException as exc:
        if not n_moved:
            _remove_dirs(sorted(created, key=lambda d: len(d.parts), reverse=True))
        moved = f"the write stopped part-way, after moving {n_moved} file(s) into {target}" if n_moved else ""
        err = output_error(exc, target, tmp, moved)
        if err is None:
            raise
        raise err from exc
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


# --- cells of a CSV a spreadsheet opens (issue 32) ----------------------------------------------------------

#: first characters that make a spreadsheet read a cell as a formula (OWASP, "CSV Injection")
FORMULA_START = ("=", "+", "-", "@", "\t", "\r")

_NUMBER = re.compile(r"[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?|[+-]?(?:inf|nan)", re.IGNORECASE)


def spreadsheet_cell(value: Any) -> Any:
    """``value`` as a CSV cell no spreadsheet runs as a formula: a string starting with ``= + - @``, a tab or
    a carriage return gets a leading ``'`` (the OWASP rule), and so does one that starts with ``'`` (so that
    :func:`from_spreadsheet` gives back exactly the string written). A string that is a plain number
    (``-0.5``, ``+1e-3``) and any value that is not a string (numbers stay numbers) is kept as it is.
    Parquet and JSON outputs keep the raw value; only CSV writers use this."""
    if not isinstance(value, str) or not value:
        return value
    if value[0] == "'" or (value.startswith(FORMULA_START) and _NUMBER.fullmatch(value) is None):
        return "'" + value
    return value


def from_spreadsheet(value: Any) -> Any:
    """The inverse of :func:`spreadsheet_cell`, for the readers of benchsift's own CSV files."""
    return value[1:] if isinstance(value, str) and value.startswith("'") else value


def spreadsheet_frame(df: Any) -> Any:
    """A copy of the :class:`pandas.DataFrame` ``df`` whose string cells, column names and index labels
    are :func:`spreadsheet_cell`'s, for ``to_csv`` (every CSV writer of benchsift goes through it)."""
    import pandas as pd

    out = df.copy()
    for col in out.columns:
        if out[col].dtype == object or isinstance(out[col].dtype, pd.StringDtype):
            out[col] = out[col].map(spreadsheet_cell, na_action="ignore")
    out.columns = _safe_index(out.columns)
    out.index = _safe_index(out.index)
    return out


def _safe_index(index: Any) -> Any:
    import pandas as pd

    if isinstance(index, pd.MultiIndex):
        out = index.set_levels([_safe_index(level) for level in index.levels], verify_integrity=False)
    elif index.dtype == object or isinstance(index.dtype, pd.StringDtype):
        out = index.map(spreadsheet_cell)
    else:
        out = index.copy()
    out.names = [spreadsheet_cell(n) for n in index.names]
    return out


#: Decoded bytes a parquet file's footer may declare whatever its size (:func:`check_parquet_footer`): the
#: largest real panel, 2,000 models x 50,000 items, is 0.80 GB of float64 (0.81 GB with 10 item columns),
#: so it is read however well it compresses (the panel reader's and the importers' bounds above it:
#: ``benchsift.panel._storage``, ``benchsift.io._common``).
PARQUET_RATIO_FLOOR = 1 << 30
#: Above the floor, a panel file's bounds (why these numbers: ``benchsift.panel._storage``): at most this many
#: times the file's size, and never more than :data:`PANEL_MAX_BYTES`. An embedding file (floats, which
#: barely compress) is held to the same.
PANEL_MAX_RATIO = 256.0
PANEL_MAX_BYTES = 16 << 30


def parquet_footer_counts(pf: pq.ParquetFile, path: Path) -> tuple[int, int, int, int]:
    """``(rows, columns, values, declared bytes)`` the footer of ``pf`` declares: the rows (the file's
    count or the row groups' sum, whichever is more), the leaf columns, the values (rows x columns, or a
    list column's values where more) and the row groups' uncompressed bytes. A negative count is a damaged
    footer (:class:`~benchsift.errors.FormatError`)."""
    md = pf.metadata
    rows, columns = md.num_rows, md.num_columns
    group_rows = values = declared = 0
    for g in range(md.num_row_groups):
        group = md.row_group(g)
        counts = [group.num_rows, group.total_byte_size]
        counts += [group.column(c).num_values for c in range(group.num_columns)]
        if min(counts) < 0:
            raise FormatError(f"{path}: damaged parquet footer (row group {g} declares a negative count)")
        group_rows += group.num_rows
        declared += group.total_byte_size
        values += sum(max(group.num_rows, n) for n in counts[2:])
    if rows < 0:
        raise FormatError(f"{path}: damaged parquet footer (declares {rows:,} rows)")
    rows = max(rows, group_rows)
    return rows, columns, max(values, rows * columns), declared


def check_parquet_footer(
    pf: pq.ParquetFile,
    path: Path,
    *,
    max_ratio: float,
    max_bytes: int,
    what: str,
    floor: int = PARQUET_RATIO_FLOOR,
    value_bytes: int = 8,
) -> None:
    """Refuse the parquet file ``path`` (open as ``pf``) in one :class:`~benchsift.errors.FormatError` line
    when the decoded size its footer declares (``value_bytes`` per value, or the declared uncompressed bytes
    where more: :func:`parquet_footer_counts`) is over ``max_bytes``, or over ``floor`` and ``max_ratio``
    times the file's size (a bomb: a forged panel of 400,000,000 rows of one value is 3.7 MB on disk and
    9.6 GB once read). ``what`` names the kind of file in the message. Only the footer is read."""
    rows, columns, values, declared = parquet_footer_counts(pf, path)
    decoded = max(value_bytes * values, declared)
    size = max(1, path.stat().st_size)
    head = (
        f"{path}: the parquet footer declares {rows:,} rows x {columns:,} columns, {decoded:,} bytes once "
        f"read, in a {size:,}-byte file ({decoded / size:,.0f}x)"
    )
    if decoded > max_bytes:
        raise FormatError(
            f"{head}; expected at most {max_bytes:,} bytes for {what} (a forged or damaged file?)"
        )
    if decoded > floor and decoded > max_ratio * size:
        raise FormatError(
            f"{head}; expected at most {max_ratio:g}x the file size above {floor:,} bytes for {what} "
            "(a forged or damaged file?)"
        )


# --- inputs: only regular files, read within bounds (issue 32) ---------------------------------------------

#: Longest line a line-by-line reader of benchsift reads (bytes or characters): the importers' cap on a line
#: of a sample log (``benchsift.io._harness.MAX_LINE_CHARS``). A line of an item, artifact, record or
#: review file is a few kB; a file without line breaks (or a hostile 2 GB line) is refused after this much
#: instead of being read whole.
MAX_LINE_BYTES = 64 << 20


def _expected(expected: str) -> str:
    return f" (expected {expected})" if expected else ""


def open_regular(path: str | os.PathLike[str], expected: str = "") -> BinaryIO:
    """``path`` opened for reading (binary) when it names a regular file, symbolic links followed; else one
    :class:`~benchsift.errors.InputError` line: ``<path>: file not found`` or ``<path>: cannot be read
    (<why>)``, each followed by `` (expected <expected>)`` when given; ``<path>: is a directory, expected
    <expected, else "a file">``; ``<path>: is a FIFO (a device, a socket), not a regular file; expected
    <expected, else "a regular file">``.

    The file is opened without blocking and checked on the open descriptor (:func:`os.fstat`), so a FIFO is
    never waited on, a device (``/dev/zero``, a terminal) or a socket is never read, and a file swapped in
    between a check and the open is refused all the same. The caller closes the file (``with``).
    """
    p = Path(path)
    flags = (
        os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_BINARY", 0)
    )
    try:
        fd = os.open(p, flags)
    except (FileNotFoundError, NotADirectoryError):
        raise InputError(f"{p}: file not found{_expected(expected)}") from None
    except IsADirectoryError:
        raise InputError(f"{p}: is a directory, expected {expected or 'a file'}") from None
    except OSError as exc:
        raise InputError(f"{p}: cannot be read ({exc.strerror}){_expected(expected)}") from None
    try:
        mode = os.fstat(fd).st_mode
        if stat.S_ISDIR(mode):
            raise InputError(f"{p}: is a directory, expected {expected or 'a file'}")
        if not stat.S_ISREG(mode):
            kind = "a FIFO" if stat.S_ISFIFO(mode) else "a socket" if stat.S_ISSOCK(mode) else "a device"
            raise InputError(f"{p}: is {kind}, not a regular file; expected {expected or 'a regular file'}")
        if hasattr(os, "set_blocking"):
            os.set_blocking(fd, True)
        return os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise


def read_regular(path: str | os.PathLike[str], max_bytes: int, expected: str = "") -> bytes:
    """The bytes of the regular file ``path`` (:func:`open_regular`), reading at most ``max_bytes`` + 1 of
    them: a longer file is refused in one :class:`~benchsift.errors.FormatError` line (``<path>: larger
    than <max_bytes> bytes; refused``) before more is read."""
    with open_regular(path, expected) as fh:
        data = fh.read(max_bytes + 1)
    if len(data) > max_bytes:
        raise FormatError(f"{path}: larger than {max_bytes:,} bytes; refused{_expected(expected)}")
    return bytes(data)


def bounded_lines(fh: Any, where: str, max_len: int = MAX_LINE_BYTES, what: str = "") -> Iterator[Any]:
    """The lines of the open file ``fh`` (bytes or text, line ends kept), each read at most ``max_len``
    (+1) long: a longer line stops the read with one :class:`~benchsift.errors.FormatError` line,
    ``<where>, line <n>: longer than <max_len> <bytes|characters>; refused (<what>)``, so a file without
    line breaks costs ``max_len``, not its size. Lines are counted from 1 as they are read."""
    empty = fh.read(0)
    unit = "bytes" if isinstance(empty, bytes) else "characters"
    for n, line in enumerate(iter(lambda: fh.readline(max_len + 1), empty), start=1):
        if len(line) > max_len:
            raise FormatError(
                f"{where}, line {n}: longer than {max_len:,} {unit}; refused" + (f" ({what})" if what else "")
            )
        yield line
