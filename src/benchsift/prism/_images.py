"""Image paths of items: kept inside the image folder, and only real image files are read.

An item's ``images`` entries are file names relative to the image folder (``--images``; the current
directory when none is given). Before a byte is read, the path is joined to the folder, resolved with
every symbolic link followed (:meth:`pathlib.Path.resolve`) and checked to lie inside the resolved
folder; an absolute path, a ``..`` that climbs out, or a link that points out of the folder is refused.
A path inside the folder must be a regular file of at most :data:`MAX_IMAGE_BYTES` whose first bytes
are an image signature (PNG, JPEG, GIF, WebP, BMP, TIFF); anything else (a directory, a FIFO, a text
file renamed ``.png``) is refused. The
signatures are the ones each format's specification puts at offset 0 (PNG: ISO/IEC 15948 sec. 5.2;
JPEG: the SOI marker FF D8 FF; GIF87a/GIF89a; RIFF....WEBP; BM; TIFF II*\\0 / MM\\0*).
"""

from __future__ import annotations

import os
from pathlib import Path

from benchsift._fileio import read_regular
from benchsift.errors import InputError

__all__ = ["MAX_IMAGE_BYTES", "image_mime", "image_root", "read_image", "resolve_image"]

#: Largest image file read (API endpoints take images of up to about 20 MB; a larger file is refused in one
#: line, not read whole into memory and into every request that shows it)
MAX_IMAGE_BYTES = 64 << 20

_SIGNATURES: tuple[tuple[bytes, str], ...] = (
    (b"\x89PNG\r\n\x1a\n", "image/png"),
    (b"\xff\xd8\xff", "image/jpeg"),
    (b"GIF87a", "image/gif"),
    (b"GIF89a", "image/gif"),
    (b"BM", "image/bmp"),
    (b"II*\x00", "image/tiff"),
    (b"MM\x00*", "image/tiff"),
)


def image_mime(data: bytes) -> str | None:
    """The MIME type named by the file's signature, or None when ``data`` does not start like an image."""
    if len(data) >= 12 and data[:4] == b"RIFF" and data[8:12] == b"WEBP":
        return "image/webp"
    for sig, mime in _SIGNATURES:
        if data.startswith(sig):
            return mime
    return None


def image_root(root: str | os.PathLike[str] | None) -> Path:
    """The resolved image folder (the current directory when ``root`` is None)."""
    return Path(root if root is not None else Path.cwd()).resolve()


def resolve_image(name: str, root: str | os.PathLike[str] | None, where: str) -> Path:
    """``name`` resolved inside ``root`` (symlinks followed); InputError when it points outside.

    The check does not need the file to exist (``prism sources`` writes names before images are
    present); :func:`read_image` adds the existence and signature checks.
    """
    base = image_root(root)
    p = Path(name)
    if not name or p.is_absolute():
        raise InputError(f"{where}: image path {name!r} must be relative to the image folder {base}")
    full = (base / p).resolve()
    if not full.is_relative_to(base):
        raise InputError(f"{where}: image path {name!r} leads outside the image folder {base}")
    return full


def read_image(name: str, root: str | os.PathLike[str] | None, where: str) -> tuple[bytes, str]:
    """The bytes and MIME type of image ``name`` under ``root``, after every check of the module."""
    full = resolve_image(name, root, where)
    if not full.exists():
        raise InputError(f"{where}: image file {full} not found")
    if not full.is_file():
        raise InputError(f"{where}: image path {name!r} is not a regular file")
    try:  # a regular file still (not swapped for a FIFO since the check), read within the bound
        data = read_regular(full, MAX_IMAGE_BYTES, "an image file")
    except InputError as err:
        raise InputError(f"{where}: image path {name!r}: {err}") from None
    mime = image_mime(data[:16])
    if mime is None:
        raise InputError(f"{where}: {name!r} is not an image file (no PNG/JPEG/GIF/WebP/BMP/TIFF signature)")
    return data, mime
